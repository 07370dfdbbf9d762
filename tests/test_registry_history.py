"""A registry with a memory: a device's frequency changes from a date on, with the city's
notice, and every judgement reads the frequency in force on the day it concerns."""
from tests import factories
from tests.ordinance_cases import admin_of, findings_of, pacific, register_device, world_in

CITY = "victorville"


def change(client, token, world, device_id, **body):
    return client.post(f"/v1/fses/{world.device.fse_id}/devices/{device_id}/frequency-changes", json=body,
                       headers=factories.bearer(token))


def test_a_frequency_shortened_with_notice_leaves_the_earlier_gaps_lawful(client, session, frozen_clock):
    """Victorville 10.03.080(c): "The permittee shall be informed by the city of any proposed
    modifications in the FOG permit terms or conditions at least thirty days prior to the
    effective date of the change." A 90-day interceptor shortened to 30 days, told on 1 June
    and in force from 1 July: an 80-day gap before it stays lawful, a pump-out filed later for
    a day before it is judged by 90 days, and the next is due on the change's first day."""
    world = world_in(client, session, frozen_clock, CITY, now=pacific(2026, 6, 1, 9))
    admin = admin_of(client, session, CITY)
    device = str(world.device.id)
    for day in ((2026, 2, 1), (2026, 4, 22)):
        assert "service_interval_exceeded" not in findings_of(world.post(world.body(completed=pacific(*day, 9),
                                                                                    disposal=None)))
    too_soon = change(client, admin, world, device, frequency_days=30, effective_on="2026-06-30",
                      reason="Grease builds up faster than the 25% rule allows.")
    assert too_soon.status_code == 422
    assert too_soon.json["errors"]["effective_on"] == [
        "Must be at least 30 days after the permittee was told (Victorville 10.03.080(c)), or say why sooner in "
        "sooner_because."]
    past = change(client, admin, world, device, frequency_days=30, effective_on="2026-05-31", reason="Backdated")
    assert past.status_code == 422 and "effective_on" in past.json["errors"]
    changed = change(client, admin, world, device, frequency_days=30, effective_on="2026-07-01",
                     reason="Grease builds up faster than the 25% rule allows.")
    assert changed.status_code == 201, changed.json
    assert changed.json["frequency_days"] == 30
    assert changed.json["frequency_changes"] == [{
        "from_days": 90, "frequency_days": 30, "effective_on": "2026-07-01", "noticed_on": "2026-06-01",
        "reason": "Grease builds up faster than the 25% rule allows.", "sooner_because": None}]
    # Filed after the change was recorded, a pump-out of 30 May (38 days after the last) is
    # judged by the 90 days then in force.
    late_filed = findings_of(world.post(world.body(completed=pacific(2026, 5, 30, 9), disposal=None)))
    assert "service_interval_exceeded" not in late_filed
    auditor = factories.token(client, *factories.oauth_client(session, role="auditor", subject=[CITY]))

    def missed(**query):
        return client.get("/v1/audit/missed-services", query_string=query, headers=factories.bearer(auditor)).json[
            "items"]

    # The 80-day gap of the spring is no missed service, then or now: the one gap is the year
    # from the permit's issue to the first pump-out.
    spring = missed(**{"from": "2026-01-01", "to": "2026-06-30"})
    assert [row["counted_from"] for row in spring] == ["permit_issued"], spring
    # From 30 May the 30 days would end on 29 June; they hold from 1 July, so the device is
    # due that day.
    assert missed(as_of="2026-07-01") == []
    assert [(row["status"], row["due_on"], row["days_overdue"]) for row in missed(as_of="2026-07-02")] == [
        ("missed", "2026-07-01", 1)]
    gaps = missed(**{"from": "2026-06-01", "to": "2026-07-05"})
    assert [(row["due_on"], row["missed_on"]) for row in gaps] == [("2026-07-01", "2026-07-02")]
    record = client.get(f"/v1/fses/{world.device.fse_id}/records", headers=factories.bearer(auditor)).json
    assert record["summary"]["devices"][world.device.tag]["next_due_on"] == "2026-07-01"


def test_a_change_sooner_than_the_notice_says_why(client, session, frozen_clock):
    """Victorville 10.03.080(c): "at least thirty days prior to the effective date of the
    change", unless the city records why sooner; a change never reaches back before today."""
    world = world_in(client, session, frozen_clock, CITY, now=pacific(2026, 6, 1, 9))
    admin = admin_of(client, session, CITY)
    created = register_device(client, admin, world, tag="GI-2", frequency_days=90)
    assert created.status_code == 201
    device = created.json["id"]
    sooner = change(client, admin, world, device, frequency_days=30, effective_on="2026-06-01",
                    reason="Overflow upstream", sooner_because="Sewer overflow traced to this interceptor on 30 May.")
    assert sooner.status_code == 201, sooner.json
    assert sooner.json["frequency_changes"][0]["sooner_because"] == "Sewer overflow traced to this interceptor on 30 May."
    again = change(client, admin, world, device, frequency_days=60, effective_on="2026-06-01", reason="Twice",
                   sooner_because="Twice")
    assert again.status_code == 422 and again.json["errors"]["effective_on"] == [
        "Must be after the device's last change, on 2026-06-01."]
    not_listed = change(client, admin, world, device, frequency_days=45, effective_on="2026-08-01", reason="x")
    assert not_listed.status_code == 422 and "frequency_days" in not_listed.json["errors"]
    # Another city's admin finds no such device.
    factories.jurisdiction(session, "tracy")
    other = admin_of(client, session, "tracy")
    assert change(client, other, world, device, frequency_days=30, effective_on="2026-08-01",
                  reason="x").status_code == 404
