"""A scheduled frequency change is withdrawn before it takes effect, with why and who: it stays
listed as withdrawn and counts nowhere (the missed services, the record, the next filing), and a
new change can take its place; a change in force is not withdrawn."""

from tests import factories
from tests.ordinance_cases import admin_of, change, pacific, world_in

CITY = "victorville"


def withdraw(client, token, world, change_id, **body):
    return client.post(
        f"/v1/fses/{world.device.fse_id}/devices/{world.device.id}/frequency-changes/{change_id}/withdrawal",
        json=body,
        headers=factories.bearer(token),
    )


def due(client, session, world, as_of):
    """(the missed-services list's due days as of `as_of`, in SQL; the record's next due day)."""
    auditor = factories.bearer(
        factories.token(client, *factories.oauth_client(session, role="auditor", subject=[CITY]))
    )
    missed = client.get("/v1/audit/missed-services", query_string={"as_of": as_of}, headers=auditor).json["items"]
    record = client.get(f"/v1/fses/{world.device.fse_id}/records", headers=auditor).json
    return [row["due_on"] for row in missed], record["summary"]["devices"]["GI-1"]["next_due_on"]


def test_a_scheduled_change_is_withdrawn_and_another_takes_its_place(client, session, frozen_clock):
    """Victorville 10.03.080(c): "The permittee shall be informed by the city of any proposed
    changes in the permit ... at least thirty days prior to the effective date of the change."
    A 90-day interceptor pumped on 20 May; on 1 June the city schedules 30 days from 1 August.
    On 15 June it wants 60 days from 20 July instead: refused while the August change stands
    (it would come before it); withdrawn (with why), the device is due on 18 August again,
    in the missed-services list and the record alike; then 60 days from 20 July is taken (35
    days' notice) and the device is due on 20 July. Once in force, a change is not withdrawn."""
    world = world_in(client, session, frozen_clock, CITY, now=pacific(2026, 5, 21, 9))
    assert world.post(world.body(completed=pacific(2026, 5, 20, 9), disposal=None)).status_code == 201
    frozen_clock(pacific(2026, 6, 1, 9))
    admin = admin_of(client, session, CITY)
    device = str(world.device.id)
    august = change(client, admin, world, device, frequency_days=30, effective_on="2026-08-01", reason="Spill.")
    assert august.status_code == 201, august.json
    [scheduled] = august.json["frequency_changes"]
    assert due(client, session, world, "2026-08-02") == (["2026-08-01"], "2026-08-01")

    frozen_clock(pacific(2026, 6, 15, 9))
    admin = admin_of(client, session, CITY)
    july = {"frequency_days": 60, "effective_on": "2026-07-20", "reason": "Hearing officer's order."}
    refused = change(client, admin, world, device, **july)
    assert refused.status_code == 422
    assert refused.json["errors"]["effective_on"] == ["Must be after the device's last change, on 2026-08-01."]
    assert withdraw(client, admin, world, scheduled["id"]).status_code == 422  # no reason
    assert withdraw(client, admin, world, "01a24516-eda4-0fc8-41ff-2d00dcc20037", reason="x").status_code == 404
    withdrawn = withdraw(client, admin, world, scheduled["id"], reason="Replaced by the hearing's order.")
    assert withdrawn.status_code == 200, withdrawn.json
    assert withdrawn.json["frequency_days"] == 90
    [listed] = withdrawn.json["frequency_changes"]
    assert (listed["withdrawn"], listed["withdrawn_reason"], listed["withdrawn_by_role"]) == (
        True,
        "Replaced by the hearing's order.",
        "admin",
    )
    assert listed["withdrawn_at"].startswith("2026-06-15")
    assert withdraw(client, admin, world, scheduled["id"], reason="again").status_code == 409
    assert due(client, session, world, "2026-08-02") == ([], "2026-08-18")
    assert due(client, session, world, "2026-08-19") == (["2026-08-18"], "2026-08-18")

    replaced = change(client, admin, world, device, **july)
    assert replaced.status_code == 201, replaced.json
    assert [(c["effective_on"], c["frequency_days"], c["withdrawn"]) for c in replaced.json["frequency_changes"]] == [
        ("2026-07-20", 60, False),
        ("2026-08-01", 30, True),
    ]
    assert due(client, session, world, "2026-07-21") == (["2026-07-20"], "2026-07-20")
    auditor = factories.token(client, *factories.oauth_client(session, role="auditor", subject=[CITY]))
    actions = [
        (row["action"], row["detail"].get("reason"))
        for row in client.get("/v1/jurisdictions/victorville/registry-changes", headers=factories.bearer(auditor)).json[
            "items"
        ]
    ]
    assert ("device.frequency_change_withdrawn", "Replaced by the hearing's order.") in actions

    # The pump-out filed now is judged without the withdrawn change: due 60 days on, 20 July.
    world.reauthenticate()
    filed = world.post(world.body(completed=pacific(2026, 6, 14, 9), disposal=None))
    assert filed.status_code == 201 and filed.json["due_by"] == "2026-08-13", filed.json

    frozen_clock(pacific(2026, 7, 20, 9))
    admin = admin_of(client, session, CITY)
    in_force = withdraw(client, admin, world, replaced.json["frequency_changes"][0]["id"], reason="Too late.")
    assert in_force.status_code == 409, in_force.json
    assert "took effect on 2026-07-20" in in_force.json["detail"]


def test_only_the_latest_scheduled_change_is_withdrawn_and_only_by_its_city(client, session, frozen_clock):
    """Exchange policy: a change's `from_days` is the frequency before it, so the later of two
    scheduled changes is withdrawn first; another city's admin finds no such device."""
    world = world_in(client, session, frozen_clock, CITY, now=pacific(2026, 6, 1, 9))
    admin = admin_of(client, session, CITY)
    device = str(world.device.id)
    first = change(client, admin, world, device, frequency_days=30, effective_on="2026-08-01", reason="x")
    second = change(client, admin, world, device, frequency_days=60, effective_on="2026-09-01", reason="y")
    assert second.status_code == 201, second.json
    first_id, second_id = (c["id"] for c in second.json["frequency_changes"])
    assert first.json["frequency_changes"][0]["id"] == first_id
    earlier = withdraw(client, admin, world, first_id, reason="z")
    assert earlier.status_code == 409 and "2026-09-01" in earlier.json["detail"]
    factories.jurisdiction(session, "tracy")
    other = admin_of(client, session, "tracy")
    assert withdraw(client, other, world, second_id, reason="z").status_code == 404
    # On 1 June the 90 days are in force throughout; what is scheduled shrinks to nothing.
    left = withdraw(client, admin, world, second_id, reason="z").json
    assert left["frequency_days"] == 90
    assert [(c["frequency_days"], c["effective_on"]) for c in left["scheduled_frequency_changes"]] == [
        (30, "2026-08-01")
    ]
    left = withdraw(client, admin, world, first_id, reason="z").json
    assert (left["frequency_days"], left["scheduled_frequency_changes"]) == (90, [])
