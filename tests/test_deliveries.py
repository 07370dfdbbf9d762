"""A disposal site's clerk sees the loads haulers say they brought, confirms them with a receipt
or disputes them; the city's reconciliation shows the dispute."""

import threading
from datetime import datetime, timedelta

import pytest
from sqlalchemy import event

from domain import reconcile
from tests import factories
from tests.manifest_world import NOW
from tests.receipts_world import post_receipt, receipt, reconciliation, site_world  # noqa: F401
from tests.spec import load_spec, schema_errors


def deliveries(world, token=None, **query):
    response = world.client.get(
        "/v1/deliveries", query_string=query, headers=factories.bearer(token or world.site_token)
    )
    assert response.status_code == 200, response.json
    spec = load_spec()
    for item in response.json["items"]:
        assert schema_errors(spec, spec["components"]["schemas"]["Delivery"], item) == []
    return response.json


def dispute(world, manifest_id, body, token=None):
    return world.client.post(
        f"/v1/deliveries/{manifest_id}/disputes", json=body, headers=factories.bearer(token or world.site_token)
    )


def filed(world, days_ago):
    response = world.post(world.body(completed=NOW - timedelta(days=days_ago)))
    assert response.status_code == 201, response.json
    return response.json


def test_a_clerk_confirms_one_delivery_and_disputes_another(site_world, client, session):
    world = site_world
    confirmed, questioned, waiting = filed(world, 8), filed(world, 7), filed(world, 6)
    listed = deliveries(world)
    # Newest first, each as the hauler filed it, none yet received.
    assert [d["manifest_number"] for d in listed["items"]] == [
        waiting["manifest_number"],
        questioned["manifest_number"],
        confirmed["manifest_number"],
    ]
    assert {d["state"] for d in listed["items"]} == {reconcile.AWAITING}
    first = next(d for d in listed["items"] if d["manifest_id"] == confirmed["id"])
    assert (first["hauler_licence_number"], first["gallons_delivered"]) == (world.licence, 1450)
    assert first["ticket_number"] == confirmed["manifest"]["disposal"]["ticket_number"]

    # Confirmed: the site's receipt of the ticket, as the clerk read it at the gate.
    at = datetime.fromisoformat(first["delivered_at"].replace("Z", "+00:00")) + timedelta(minutes=10)
    assert post_receipt(world, receipt(first["ticket_number"], world.licence, gallons=1450, at=at)).status_code == 201
    # Disputed, with a reason; kept as sent, and a second word kept beside the first.
    reason = "No truck TRK-1 came through the gate that day."
    made = dispute(world, questioned["id"], {"reason": reason})
    assert made.status_code == 201, made.json
    spec = load_spec()
    assert schema_errors(spec, spec["components"]["schemas"]["DeliveryDispute"], made.json) == []
    assert made.json["reason"] == reason and made.json["manifest_id"] == questioned["id"]
    assert dispute(world, questioned["id"], {"reason": "Still not here."}).status_code == 201

    states = {d["manifest_id"]: d for d in deliveries(world)["items"]}
    assert states[confirmed["id"]]["state"] == reconcile.RECEIVED
    assert states[confirmed["id"]]["receipt"]["gallons_received"] == 1450
    assert states[questioned["id"]]["state"] == reconcile.DISPUTED
    assert [d["reason"] for d in states[questioned["id"]]["disputes"]] == [reason, "Still not here."]
    assert states[waiting["id"]]["state"] == reconcile.AWAITING
    assert [d["manifest_id"] for d in deliveries(world, state="disputed")["items"]] == [questioned["id"]]
    assert [d["manifest_id"] for d in deliveries(world, state="received")["items"]] == [confirmed["id"]]
    assert [d["manifest_id"] for d in deliveries(world, state="awaiting")["items"]] == [waiting["id"]]
    # Pages, newest first.
    page = deliveries(world, limit=2)
    rest = deliveries(world, limit=2, cursor=page["next_cursor"])
    assert [d["manifest_id"] for d in page["items"] + rest["items"]] == [
        waiting["id"],
        questioned["id"],
        confirmed["id"],
    ]
    assert rest["next_cursor"] is None

    # The city sees the dispute, with the site's latest word, beside the other disagreements.
    rows = reconciliation(client, session).json["items"]
    disputed = [row for row in rows if row["code"] == reconcile.DISPUTED]
    assert [row["manifest_number"] for row in disputed] == [questioned["manifest_number"]]
    assert disputed[0]["message"].endswith("The site says: Still not here.")
    assert {row["code"] for row in rows if row["manifest_number"] == confirmed["manifest_number"]} == set()
    only = reconciliation(client, session, code="disputed").json["items"]
    assert [row["manifest_number"] for row in only] == [questioned["manifest_number"]]


def test_a_dispute_is_the_sites_own_and_says_why(site_world, client, session):
    world = site_world
    manifest = filed(world, 5)
    for bad in ({}, {"reason": ""}, {"reason": "x" * 2001}, {"reason": "ok", "colour": "red"}, {"reason": "bell\x07"}):
        response = dispute(world, manifest["id"], bad)
        assert response.status_code == 422 and response.mimetype == "application/problem+json", bad
    for missing in ("not-an-id", "0193a7e2-5c1f-7b3e-9a51-3f2d8c4b1a07"):
        response = dispute(world, missing, {"reason": "Never came."})
        assert response.status_code == 404 and response.mimetype == "application/problem+json"
    # Another site neither sees the delivery nor disputes it; a hauler does neither.
    other = factories.token(
        client, *factories.oauth_client(session, role="site", subject=[factories.disposal_site(session).id])
    )
    assert deliveries(world, token=other)["items"] == []
    assert dispute(world, manifest["id"], {"reason": "Never came."}, token=other).status_code == 404
    assert dispute(world, manifest["id"], {"reason": "Never came."}, token=world.hauler_token).status_code == 403
    assert client.get("/v1/deliveries", headers=factories.bearer(world.hauler_token)).status_code == 403
    assert client.get("/v1/deliveries?state=lost", headers=factories.bearer(world.site_token)).status_code == 422
    # Nothing refused was kept.
    assert deliveries(world)["items"][0]["disputes"] == []


def test_the_city_month_by_month_counts_what_its_lists_list(app, client, session):
    """The trends add up to the lists they summarise: each month's findings and late filings are
    the findings list's rows of services in that month, its missed services those the missed
    services list gives for the month."""
    import calendar

    assert app.test_cli_runner().invoke(args=["demo", "load"]).exit_code == 0
    auditor = factories.bearer(factories.token(client, "demo-auditor", "demo-auditor-secret"))
    response = client.get("/v1/audit/trends?months=13", headers=auditor)
    assert response.status_code == 200, response.json
    answer = response.json
    spec = load_spec()
    schema = spec["paths"]["/v1/audit/trends"]["get"]["responses"]["200"]["content"]["application/json"]["schema"]
    assert schema_errors(spec, schema, answer) == []
    assert len(answer["months"]) == 13 and answer["months"][-1]["month"] == answer["as_of"][:7]
    for month in answer["months"]:
        year, number = map(int, month["month"].split("-"))
        first, last = f"{month['month']}-01", f"{month['month']}-{calendar.monthrange(year, number)[1]:02d}"
        listed = client.get(
            "/v1/audit/findings", query_string={"from": first, "to": last, "limit": 1000}, headers=auditor
        ).json
        assert month["findings"] == len(listed["items"]), month
        assert month["late_filings"] == listed["counts"].get("late_submission", 0)
        # Missed by today: the list of a month not yet over is asked up to today.
        last = min(last, answer["as_of"])
        missed = client.get(
            "/v1/audit/missed-services", query_string={"from": first, "to": last, "limit": 1000}, headers=auditor
        ).json["items"]
        assert month["missed_services"] == sum(first <= row["missed_on"] <= last for row in missed), month
    assert sum(m["findings"] for m in answer["months"]) > 0 and sum(m["missed_services"] for m in answer["months"]) > 0
    due = client.get(
        f"/v1/fses/{client.get('/v1/fses', headers=auditor).json['items'][0]['id']}/service-status", headers=auditor
    )
    assert due.status_code == 200
    assert answer["due_soon"] >= sum(d["status"] == "due_soon" for d in due.json["items"])
    for bad in ({"months": 0}, {"months": 37}, {"as_of": "June"}):
        refused = client.get("/v1/audit/trends", query_string=bad, headers=auditor)
        assert refused.status_code == 422 and refused.mimetype == "application/problem+json"


def test_the_months_of_an_early_year_are_named_as_the_schema_says_and_no_year_before_1_is_asked(client, session):
    """A month is `YYYY-MM` however early the year (`0193-07`, not `193-07`); months that would
    fall before the year 1 or after 9999 cannot be counted and are a 422, never a 500."""
    factories.jurisdiction(session, "victorville")
    auditor = factories.bearer(
        factories.token(client, *factories.oauth_client(session, role="auditor", subject=["victorville"]))
    )
    early = client.get("/v1/audit/trends", query_string={"as_of": "0193-09-15", "months": 3}, headers=auditor)
    assert early.status_code == 200, early.json
    assert [m["month"] for m in early.json["months"]] == ["0193-07", "0193-08", "0193-09"]
    spec = load_spec()
    schema = spec["paths"]["/v1/audit/trends"]["get"]["responses"]["200"]["content"]["application/json"]["schema"]
    assert schema_errors(spec, schema, early.json) == []
    first = client.get("/v1/audit/trends", query_string={"as_of": "0001-12-31", "months": 12}, headers=auditor)
    assert first.status_code == 200 and first.json["months"][0]["month"] == "0001-01"
    for bad in ({"as_of": "0001-11-30", "months": 12}, {"as_of": "9999-12-31", "months": 1}):
        refused = client.get("/v1/audit/trends", query_string=bad, headers=auditor)
        assert refused.status_code == 422 and refused.mimetype == "application/problem+json", refused.data[:300]
        assert "as_of" in refused.json["errors"]


@pytest.mark.postgresql_only
def test_the_dashboard_works_its_figures_out_at_the_same_time(app, client, session):
    """On PostgreSQL the year of missed intervals, the findings and the devices due soon are
    each asked on a connection of their own at once: a reading request runs every statement
    on a snapshot of its own anyway, so the dashboard takes the time of the longest."""
    assert app.test_cli_runner().invoke(args=["demo", "load"]).exit_code == 0
    auditor = factories.bearer(factories.token(client, "demo-auditor", "demo-auditor-secret"))
    pool = app.extensions["fogx.engine"].pool
    # The two figures asked beside the request's own each take a connection, and neither gets
    # on until the other has one too: asked one after the other, the first would wait in vain.
    beside = threading.Barrier(2, timeout=10)
    met = []

    def out(_connection, _record, _proxy):
        if threading.current_thread().name.startswith("fogx-read"):
            met.append(beside.wait())

    event.listen(pool, "checkout", out)
    try:
        response = client.get("/v1/audit/trends", headers=auditor)
    finally:
        event.remove(pool, "checkout", out)
    assert response.status_code == 200, response.json
    assert sorted(met) == [0, 1]


def test_the_latest_delivered_load_comes_first_whenever_it_was_filed(site_world):
    world = site_world
    newer, older = filed(world, 3), filed(world, 5)  # the older load's manifest was filed last
    oldest = filed(world, 9)
    listed = deliveries(world)["items"]
    assert [d["manifest_id"] for d in listed] == [newer["id"], older["id"], oldest["id"]]
    assert [d["delivered_at"] for d in listed] == sorted((d["delivered_at"] for d in listed), reverse=True)
    page = deliveries(world, limit=1)
    second = deliveries(world, limit=1, cursor=page["next_cursor"])
    third = deliveries(world, limit=1, cursor=second["next_cursor"])
    assert [d["manifest_id"] for d in page["items"] + second["items"] + third["items"]] == [
        newer["id"],
        older["id"],
        oldest["id"],
    ]
    assert third["next_cursor"] is None
