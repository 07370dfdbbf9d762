"""A registry with a memory: a device's frequency changes from a date on, with the city's
notice, and every judgement reads the frequency in force on the day it concerns; a renewal
moves its devices to the new permit from its first day, and the days before stay on the old."""

import csv
import io
import re
from datetime import date

import pytest
from pypdf import PdfReader

from tests import factories
from tests.ordinance_cases import admin_of, change, findings_of, move, pacific, register_device, renewed, world_in
from tests.registry_calls import imported

CITY = "victorville"


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
        assert "service_interval_exceeded" not in findings_of(
            world.post(world.body(completed=pacific(*day, 9), disposal=None))
        )
    too_soon = change(
        client,
        admin,
        world,
        device,
        frequency_days=30,
        effective_on="2026-06-30",
        reason="Grease builds up faster than the 25% rule allows.",
    )
    assert too_soon.status_code == 422
    assert too_soon.json["errors"]["effective_on"] == [
        "Must be at least 30 days after the permittee was told (Victorville 10.03.080(c)), or say why sooner in "
        "sooner_because."
    ]
    past = change(client, admin, world, device, frequency_days=30, effective_on="2026-05-31", reason="Backdated")
    assert past.status_code == 422 and "effective_on" in past.json["errors"]
    changed = change(
        client,
        admin,
        world,
        device,
        frequency_days=30,
        effective_on="2026-07-01",
        reason="Grease builds up faster than the 25% rule allows.",
    )
    assert changed.status_code == 201, changed.json
    # On 1 June the 90 days are still in force; the 30 are scheduled from 1 July.
    assert (changed.json["frequency_days"], changed.json["frequency_as_of"]) == (90, "2026-06-01")
    assert changed.json["scheduled_frequency_changes"] == changed.json["frequency_changes"]
    [listed] = changed.json["frequency_changes"]
    assert listed["by_client_id"].startswith("admin-")
    assert {name: value for name, value in listed.items() if name not in ("id", "by_client_id")} == {
        "from_days": 90,
        "frequency_days": 30,
        "effective_on": "2026-07-01",
        "noticed_on": "2026-06-01",
        "reason": "Grease builds up faster than the 25% rule allows.",
        "sooner_because": None,
        "after_inspection": False,
        "by_role": "admin",
        "by_person_id": None,
        "by_person_name": None,
        "by_command": None,
        "withdrawn": False,
        "withdrawn_at": None,
        "withdrawn_reason": None,
        "withdrawn_by_client_id": None,
        "withdrawn_by_role": None,
        "withdrawn_by_person_id": None,
        "withdrawn_by_person_name": None,
    }
    # Filed after the change was recorded, a pump-out of 30 May (38 days after the last) is
    # judged by the 90 days then in force.
    late_filed = findings_of(world.post(world.body(completed=pacific(2026, 5, 30, 9), disposal=None)))
    assert "service_interval_exceeded" not in late_filed
    auditor = factories.token(client, *factories.oauth_client(session, role="auditor", subject=[CITY]))

    def missed(**query):
        return client.get("/v1/audit/missed-services", query_string=query, headers=factories.bearer(auditor)).json[
            "items"
        ]

    # The 80-day gap of the spring is no missed service, then or now: the one gap is the year
    # from the permit's issue to the first pump-out.
    spring = missed(**{"from": "2026-01-01", "to": "2026-06-30"})
    assert [row["counted_from"] for row in spring] == ["permit_issued"], spring
    # From 30 May the 30 days would end on 29 June; they hold from 1 July, so the device is
    # due that day.
    assert missed(as_of="2026-07-01") == []
    assert [(row["status"], row["due_on"], row["days_overdue"]) for row in missed(as_of="2026-07-02")] == [
        ("missed", "2026-07-01", 1)
    ]
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
    sooner = change(
        client,
        admin,
        world,
        device,
        frequency_days=30,
        effective_on="2026-06-01",
        reason="Overflow upstream",
        sooner_because="Sewer overflow traced to this interceptor on 30 May.",
    )
    assert sooner.status_code == 201, sooner.json
    assert sooner.json["frequency_changes"][0]["sooner_because"] == (
        "Sewer overflow traced to this interceptor on 30 May."
    )
    again = change(
        client,
        admin,
        world,
        device,
        frequency_days=60,
        effective_on="2026-06-01",
        reason="Twice",
        sooner_because="Twice",
    )
    assert again.status_code == 422 and again.json["errors"]["effective_on"] == [
        "Must be after the device's last change, on 2026-06-01."
    ]
    not_listed = change(client, admin, world, device, frequency_days=45, effective_on="2026-08-01", reason="x")
    assert not_listed.status_code == 422 and "frequency_days" in not_listed.json["errors"]
    # Another city's admin finds no such device.
    factories.jurisdiction(session, "tracy")
    other = admin_of(client, session, "tracy")
    assert (
        change(client, other, world, device, frequency_days=30, effective_on="2026-08-01", reason="x").status_code
        == 404
    )


# The cities whose text makes a permit a year's, renewed by a new one (quoted below).
ANNUAL = ("placentia", "victorville")


@pytest.mark.parametrize("city", ANNUAL)
def test_a_renewal_moves_the_device_and_a_late_filing_is_judged_on_the_permit_then_in_force(
    client, session, frozen_clock, city
):
    """Victorville 10.03.080(a): "The FOG permit shall be issued for a one-year period and shall
    be renewed annually." Placentia 16.24 FOG Wastewater Discharge Permits (f): "FOG Wastewater
    Discharge Permits shall be issued annually." A renewal is a new permit; the devices move to
    it from its first day. A pump-out on the old permit's last day (30 June), filed the next
    day, names either permit and is judged against the old one, in force then; the record and
    the binder list each pump-out under its own permit."""
    world, admin, new = renewed(client, session, frozen_clock, city)
    old_number, new_number = world.permit.permit_number, new["permit_number"]
    assert "permit_not_active" not in findings_of(world.post(world.body(completed=pacific(2026, 6, 19, 9))))
    for tag in ("GI-1", "GI-2"):
        moved = move(client, admin, world, tag, permit_number=new_number, reason="Annual renewal.")
        assert moved.status_code == 201, moved.json
        assert moved.json["permit_number"] == new_number
        [listed] = moved.json["permit_moves"]
        assert listed == {
            "from_permit_id": str(world.permit.id),
            "permit_id": new["id"],
            "effective_on": "2026-07-01",
            "reason": "Annual renewal.",
            "by_client_id": listed["by_client_id"],
            "by_role": "admin",
            "by_person_id": None,
            "by_person_name": None,
            "by_command": None,
        }
        assert listed["by_client_id"].startswith("admin-")
    frozen_clock(pacific(2026, 7, 1, 9))
    world.reauthenticate()
    # Filed the next day, the old permit's last day names the old permit or the new one.
    by_old = world.post(world.body(completed=pacific(2026, 6, 30, 15)))
    by_new = world.post(world.body(completed=pacific(2026, 6, 30, 15), device_tag="GI-2", permit_number=new_number))
    for filed in (by_old, by_new):
        assert filed.status_code == 201, filed.json
        assert "permit_not_active" not in findings_of(filed)
    # A service on the new permit's first day, named by the old permit, is on the new one.
    frozen_clock(pacific(2026, 7, 2, 9))
    world.reauthenticate()
    first_day = world.post(world.body(completed=pacific(2026, 7, 1, 15), device_tag="GI-2"))
    assert "permit_not_active" not in findings_of(first_day)
    # A device never on the permit it is named by stays unknown there.
    admin = admin_of(client, session, city)
    other = register_device(client, admin, world, tag="GI-3", frequency_days=90, permit_number=new_number)
    assert other.status_code == 201
    unknown = world.post(world.body(completed=pacific(2026, 7, 1, 20), device_tag="GI-3"))
    assert unknown.status_code == 422 and unknown.json["errors"]["device_tag"] == [
        f"No device 'GI-3' on permit {old_number}."
    ]
    operator = factories.token(client, *factories.oauth_client(session, role="fse", subject=[world.device.fse_id]))
    record = client.get(f"/v1/fses/{world.device.fse_id}/records", headers=factories.bearer(operator)).json
    served = {(m["manifest_number"], m["permit_number"]) for m in record["manifests"]}
    numbers = [response.json["manifest_number"] for response in (by_old, by_new, first_day)]
    assert served >= {(numbers[0], old_number), (numbers[1], old_number), (numbers[2], new_number)}, served
    assert {row["tag"]: row["permit_number"] for row in record["devices"]} == {
        "GI-1": new_number,
        "GI-2": new_number,
        "GI-3": new_number,
    }
    csv_rows = list(
        csv.DictReader(
            io.StringIO(
                client.get(
                    f"/v1/fses/{world.device.fse_id}/records",
                    query_string={"format": "csv"},
                    headers=factories.bearer(operator),
                ).data.decode()
            )
        )
    )
    assert {(row["manifest_number"], row["permit_number"]) for row in csv_rows} >= served
    pdf = client.get(
        f"/v1/fses/{world.device.fse_id}/records", query_string={"format": "pdf"}, headers=factories.bearer(operator)
    )
    text = " ".join(page.extract_text().replace("\u00a0", " ") for page in PdfReader(io.BytesIO(pdf.data)).pages)
    for number, permit in ((numbers[0], old_number), (numbers[1], old_number), (numbers[2], new_number)):
        assert re.search(
            rf"Manifest {re.escape(number)} · revision 1 of 1 · device GI-\d · permit "
            rf"{re.escape(permit)}(?!-)",
            text,
        ), (number, permit)


def test_a_move_never_reaches_back_and_stays_within_the_fse_and_its_city(client, session, frozen_clock):
    """A move takes effect from today on, after the device's last move and within the new
    permit's term (exchange policy); the past stays on the permit it was on."""
    world, admin, new = renewed(client, session, frozen_clock)
    past = move(client, admin, world, "GI-1", permit_number=new["permit_number"], reason="x", effective_on="2026-06-19")
    assert past.status_code == 422 and past.json["errors"]["effective_on"] == [
        "A device moves from today on; the days before stay on the permit they were on."
    ]
    outside = move(
        client, admin, world, "GI-1", permit_number=new["permit_number"], reason="x", effective_on="2027-07-01"
    )
    assert outside.status_code == 422 and outside.json["errors"]["effective_on"] == [
        "Must be within the permit's term, 2026-07-01 to 2027-06-30."
    ]
    same = move(client, admin, world, "GI-1", permit_number=world.permit.permit_number, reason="x")
    assert same.status_code == 422 and "permit_number" in same.json["errors"]
    assert move(client, admin, world, "GI-1", permit_number="NO-SUCH", reason="x").status_code == 422
    assert move(client, admin, world, "GI-1", permit_number=new["permit_number"], reason="Renewal").status_code == 201
    back = move(
        client, admin, world, "GI-1", permit_number=world.permit.permit_number, reason="x", effective_on="2026-06-25"
    )
    assert back.status_code == 422 and back.json["errors"]["effective_on"] == [
        "Must be after the device's last move, on 2026-07-01."
    ]
    factories.jurisdiction(session, "tracy")
    other = admin_of(client, session, "tracy")
    device = str(world.device.id)
    assert (
        client.post(
            f"/v1/fses/{world.device.fse_id}/devices/{device}/permit-moves",
            json={"permit_number": new["permit_number"], "reason": "x"},
            headers=factories.bearer(other),
        ).status_code
        == 404
    )


def test_the_import_changes_a_frequency_or_permit_from_its_effective_date_only(client, session, frozen_clock):
    """Victorville 10.03.080(c): "at least thirty days prior to the effective date of the
    change", through the CSV import as through the API: a row that changes a device's
    frequency or permit says from when (`effective_on`), and the days before stay as judged."""
    world = world_in(client, session, frozen_clock, CITY, now=pacific(2026, 6, 1, 9))
    admin = admin_of(client, session, CITY)
    for day in ((2026, 2, 1), (2026, 4, 22)):
        assert world.post(world.body(completed=pacific(*day, 9), disposal=None)).status_code == 201
    number = world.permit.permit_number
    header = "permit_number,tag,kind,capacity_gallons,liquid_depth_in,frequency_days"
    undated = imported(client, admin, "devices", f"{header}\n{number},GI-1,interceptor,1500,48,30\n")
    assert undated["rejected"] == 1 and undated["rejections"][0]["errors"] == {
        "effective_on": ["Required where the frequency or the permit changes."]
    }
    dated = f"{header},effective_on,reason\n{number},GI-1,interceptor,1500,48,30,{{}},Grease builds up fast.\n"
    too_soon = imported(client, admin, "devices", dated.format("2026-06-30"))
    assert too_soon["rejected"] == 1 and too_soon["rejections"][0]["errors"] == {
        "effective_on": [
            "Must be at least 30 days after the permittee was told (Victorville 10.03.080(c)), or say why sooner in "
            "sooner_because."
        ]
    }
    changed = imported(client, admin, "devices", dated.format("2026-07-01"))
    assert changed["updated"] == 1, changed
    assert imported(client, admin, "devices", dated.format("2026-07-01"))["unchanged"] == 1
    device = client.get(f"/v1/fses/{world.device.fse_id}/devices/{world.device.id}", headers=factories.bearer(admin))
    # In force on 1 June: the 90 days; the 30 are scheduled.
    assert device.json["frequency_days"] == 90
    assert device.json["scheduled_frequency_changes"] == device.json["frequency_changes"]
    assert [
        {name: change[name] for name in ("from_days", "frequency_days", "effective_on", "noticed_on", "reason")}
        for change in device.json["frequency_changes"]
    ] == [
        {
            "from_days": 90,
            "frequency_days": 30,
            "effective_on": "2026-07-01",
            "noticed_on": "2026-06-01",
            "reason": "Grease builds up fast.",
        }
    ]
    # Imported through the API: the admin who uploaded the file made it.
    assert device.json["frequency_changes"][0]["by_role"] == "admin"
    auditor = factories.token(client, *factories.oauth_client(session, role="auditor", subject=[CITY]))
    spring = client.get(
        "/v1/audit/missed-services",
        query_string={"from": "2026-01-01", "to": "2026-06-30"},
        headers=factories.bearer(auditor),
    ).json["items"]
    # The 80-day gap of the spring stays lawful: the one gap is from the permit's issue.
    assert [row["counted_from"] for row in spring] == ["permit_issued"], spring
    # A renewal by import: the device moves from the day the row says, never before today.
    permits = (
        "permit_number,fse_apn,fse_name,kind,status,issued_on,expires_on\n"
        f"{number}-2026,{world.device.fse.apn},{world.device.fse.name},regular,active,2026-07-01,2027-06-30\n"
    )
    assert imported(client, admin, "permits", permits)["created"] == 1
    renewal = f"{header},effective_on,reason\n{number}-2026,GI-1,interceptor,1500,48,30,{{}},Annual renewal.\n"
    backdated = imported(client, admin, "devices", renewal.format("2026-05-01"))
    assert backdated["rejected"] == 1 and backdated["rejections"][0]["errors"] == {
        "effective_on": ["A device moves from today on; the days before stay on the permit they were on."]
    }
    assert imported(client, admin, "devices", renewal.format("2026-07-01"))["updated"] == 1
    device = client.get(f"/v1/fses/{world.device.fse_id}/devices/{world.device.id}", headers=factories.bearer(admin))
    assert device.json["permit_number"] == f"{number}-2026"
    assert [(m["from_permit_id"], m["effective_on"]) for m in device.json["permit_moves"]] == [
        (str(world.permit.id), "2026-07-01")
    ]
    # A service before the move, filed after it, is on the permit it was served under.
    late = world.post(world.body(completed=pacific(2026, 5, 30, 9), disposal=None, permit_number=f"{number}-2026"))
    assert late.status_code == 201, late.json
    assert "permit_not_active" not in findings_of(late)


def test_a_revoked_then_reinstated_permit_is_not_charged_for_the_months_it_was_revoked(client, session, frozen_clock):
    """Victorville 10.03.320(b)(4): "the permittee shall immediately cease and desist its
    discharge and shall have no right to discharge any wastewater containing FOG ... for the
    term of the temporary suspension, or in the event of a revocation, until such time as a new
    FOG permit is applied for and approved by the city." Two 90-day interceptors pumped on 5
    January; the permit revoked on 1 February and reinstated on 1 May (89 days): 27 days ran
    before the revocation, so the 63 left run out on 3 July, not 5 April. The finding, the
    missed-services lists (as of a day and by period), the dashboard and the record agree."""
    world = world_in(client, session, frozen_clock, CITY, now=pacific(2026, 1, 6, 9))
    admin = admin_of(client, session, CITY)
    assert register_device(client, admin, world, tag="GI-2", frequency_days=90).status_code == 201
    for tag, hour in (("GI-1", 9), ("GI-2", 13)):
        assert world.post(world.body(completed=pacific(2026, 1, 5, hour), device_tag=tag)).status_code == 201
    for status, day in (("revoked", (2026, 2, 1)), ("active", (2026, 5, 1))):
        frozen_clock(pacific(*day, 9))
        changed = client.patch(
            f"/v1/permits/{world.permit.id}",
            headers=factories.bearer(admin_of(client, session, CITY)),
            json={"status": status, "effective_on": date(*day).isoformat(), "reason": "Hearing officer's order."},
        )
        assert changed.status_code == 200, changed.json
    frozen_clock(pacific(2026, 7, 3, 12))
    auditor = factories.token(client, *factories.oauth_client(session, role="auditor", subject=[CITY]))

    def missed(**query):
        return client.get("/v1/audit/missed-services", query_string=query, headers=factories.bearer(auditor)).json[
            "items"
        ]

    assert missed(as_of="2026-07-03") == []
    assert sorted(
        (row["device_tag"], row["status"], row["due_on"], row["days_overdue"]) for row in missed(as_of="2026-07-04")
    ) == [("GI-1", "missed", "2026-07-03", 1), ("GI-2", "missed", "2026-07-03", 1)]
    # After the pump-outs of 5 January, nothing was missed up to 3 July.
    assert missed(**{"from": "2026-01-06", "to": "2026-07-03"}) == []
    assert sorted(
        (row["device_tag"], row["due_on"], row["missed_on"])
        for row in missed(**{"from": "2026-07-01", "to": "2026-07-04"})
    ) == [("GI-1", "2026-07-03", "2026-07-04"), ("GI-2", "2026-07-03", "2026-07-04")]
    trends = client.get("/v1/audit/trends", headers=factories.bearer(auditor)).json
    assert [month["missed_services"] for month in trends["months"]] == [0] * 12, trends
    record = client.get(f"/v1/fses/{world.device.fse_id}/records", headers=factories.bearer(auditor)).json
    assert {tag: (line["status"], line["next_due_on"]) for tag, line in record["summary"]["devices"].items()} == {
        "GI-1": ("due_soon", "2026-07-03"),
        "GI-2": ("due_soon", "2026-07-03"),
    }
    # The receipts read back say the same due day.
    world.reauthenticate()
    listed = client.get("/v1/manifests", headers=factories.bearer(world.hauler_token)).json["items"]
    assert [row["due_by"] for row in listed] == ["2026-07-03", "2026-07-03"]
    # Filed the next day: pumped on the last day in time, and a day later.
    frozen_clock(pacific(2026, 7, 4, 9))
    world.reauthenticate()
    filed = world.post(world.body(completed=pacific(2026, 7, 3, 15)))
    assert "service_interval_exceeded" not in findings_of(filed)
    # The next 90 days run from 3 July: due on 1 October.
    assert filed.json["due_by"] == "2026-10-01"
    late = findings_of(world.post(world.body(completed=pacific(2026, 7, 4, 8), device_tag="GI-2")))
    assert "at most 179 allowed" in late["service_interval_exceeded"]["message"], late


# Each city's notice period before a new frequency takes effect, and what it cites.
NOTICE = {
    "placentia": (45, "Placentia 16.24 FOG Wastewater Discharge Permits (e)(3)"),
    "san-clemente": (45, "San Clemente 13.30.050(J)"),
    "victorville": (30, "Victorville 10.03.080(c)"),
    "colusa": (30, "exchange policy"),
    "tracy": (30, "exchange policy"),
}


@pytest.mark.parametrize("city", sorted(NOTICE))
def test_each_city_gives_its_own_notice_before_a_new_frequency(client, session, frozen_clock, city):
    """Placentia 16.24 FOG Wastewater Discharge Permits (e)(3): "The permittee shall be informed
    of any change in the permit limits, conditions, or requirements at least forty-five (45)
    days prior to the effective date of the change." San Clemente 13.30.050(J): "shall receive
    at least forty-five (45) days prior written notice of any changes in the requirements or
    form of the general Discharge Permit". Victorville 10.03.080(c): "at least thirty days
    prior to the effective date of the change". Colusa and Tracy are silent: 30 days, exchange
    policy. Told on 1 June: a day short is refused with the city's citation, the day itself is
    in time."""
    days, cited = NOTICE[city]
    world = world_in(client, session, frozen_clock, city, now=pacific(2026, 6, 1, 9))
    admin = admin_of(client, session, city)
    short = date.fromordinal(date(2026, 6, 1).toordinal() + days - 1).isoformat()
    refused = change(client, admin, world, str(world.device.id), frequency_days=30, effective_on=short, reason="x")
    assert refused.status_code == 422 and refused.json["errors"]["effective_on"] == [
        f"Must be at least {days} days after the permittee was told ({cited}), or say why sooner in sooner_because."
    ]
    on_time = date.fromordinal(date(2026, 6, 1).toordinal() + days).isoformat()
    assert (
        change(
            client, admin, world, str(world.device.id), frequency_days=30, effective_on=on_time, reason="x"
        ).status_code
        == 201
    )


def test_two_spans_out_of_force_both_stop_the_clock(client, session, frozen_clock):
    """Victorville 10.03.320(b)(4): "no right to discharge ... for the term of the temporary
    suspension, or in the event of a revocation, until such time as a new FOG permit is ...
    approved". A 90-day interceptor pumped on 5 January; its permit suspended 1 February to 1
    March (28 days), then revoked 10 April to 10 May (30 days): the first span moves the due
    day from 5 April to 3 May, which brings in the second, so it is due on 2 June."""
    world = world_in(client, session, frozen_clock, CITY, now=pacific(2026, 1, 6, 9))
    assert world.post(world.body(completed=pacific(2026, 1, 5, 9))).status_code == 201
    for status, day in (
        ("suspended", (2026, 2, 1)),
        ("active", (2026, 3, 1)),
        ("revoked", (2026, 4, 10)),
        ("active", (2026, 5, 10)),
    ):
        frozen_clock(pacific(*day, 9))
        assert (
            client.patch(
                f"/v1/permits/{world.permit.id}",
                headers=factories.bearer(admin_of(client, session, CITY)),
                json={"status": status, "effective_on": date(*day).isoformat(), "reason": "Hearing officer's order."},
            ).status_code
            == 200
        )
    frozen_clock(pacific(2026, 6, 1, 12))
    auditor = factories.token(client, *factories.oauth_client(session, role="auditor", subject=[CITY]))

    def missed(**query):
        return client.get("/v1/audit/missed-services", query_string=query, headers=factories.bearer(auditor)).json[
            "items"
        ]

    assert missed(as_of="2026-06-02") == []
    assert [(row["due_on"], row["days_overdue"]) for row in missed(as_of="2026-06-03")] == [("2026-06-02", 1)]
    assert [(row["due_on"], row["missed_on"]) for row in missed(**{"from": "2026-01-06", "to": "2026-06-03"})] == [
        ("2026-06-02", "2026-06-03")
    ]
    record = client.get(f"/v1/fses/{world.device.fse_id}/records", headers=factories.bearer(auditor)).json
    assert record["summary"]["devices"]["GI-1"]["next_due_on"] == "2026-06-02"


def test_a_renewal_does_not_forgive_a_device_never_serviced(client, session, frozen_clock):
    """Victorville 10.03.080(a): "The FOG permit shall be issued for a one-year period and shall
    be renewed annually." A device never serviced since its first permit of 1 July 2025 was due
    90 days later; moving it to the renewal of 1 July 2026 (recorded on 20 June) neither drops it
    from the lists before the new permit's first day nor starts its clock again."""
    world, admin, new = renewed(client, session, frozen_clock)
    assert move(client, admin, world, "GI-1", permit_number=new["permit_number"], reason="Renewal").status_code == 201
    auditor = factories.token(client, *factories.oauth_client(session, role="auditor", subject=[CITY]))

    def missed(**query):
        return [
            (row["device_tag"], row["due_on"])
            for row in client.get(
                "/v1/audit/missed-services", query_string=query, headers=factories.bearer(auditor)
            ).json["items"]
        ]

    assert ("GI-1", "2025-09-29") in missed(as_of="2026-06-25")
    frozen_clock(pacific(2026, 7, 2, 9))
    auditor = factories.token(client, *factories.oauth_client(session, role="auditor", subject=[CITY]))
    assert ("GI-1", "2025-09-29") in missed(as_of="2026-07-02")
    assert ("GI-1", "2025-09-29") in missed(**{"from": "2025-07-01", "to": "2026-07-02"})
    record = client.get(f"/v1/fses/{world.device.fse_id}/records", headers=factories.bearer(auditor)).json
    assert record["summary"]["devices"]["GI-1"] == {
        "status": "never_serviced",
        "next_due_on": "2025-09-29",
        "days_overdue": 276,
    }
