"""A disposal site's clerk sees the loads haulers say they brought, confirms them with a receipt
or disputes them; the city's reconciliation shows the dispute."""
from datetime import datetime, timedelta

from domain import reconcile
from tests import factories
from tests.manifest_world import NOW
from tests.test_openapi import _schema_errors, load_spec
from tests.test_receipts import post_receipt, receipt, reconciliation, site_world  # noqa: F401


def deliveries(world, token=None, **query):
    response = world.client.get("/v1/deliveries", query_string=query,
                                headers=factories.bearer(token or world.site_token))
    assert response.status_code == 200, response.json
    spec = load_spec()
    for item in response.json["items"]:
        assert _schema_errors(spec, spec["components"]["schemas"]["Delivery"], item) == []
    return response.json


def dispute(world, manifest_id, body, token=None):
    return world.client.post(f"/v1/deliveries/{manifest_id}/disputes", json=body,
                             headers=factories.bearer(token or world.site_token))


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
        waiting["manifest_number"], questioned["manifest_number"], confirmed["manifest_number"]]
    assert {d["state"] for d in listed["items"]} == {reconcile.AWAITING}
    first = next(d for d in listed["items"] if d["manifest_id"] == confirmed["id"])
    assert (first["hauler_licence_number"], first["gallons_delivered"]) == (world.licence, 1450)
    assert first["ticket_number"] == confirmed["manifest"]["disposal"]["ticket_number"]

    # Confirmed: the site's receipt of the ticket, as the clerk read it at the gate.
    at = datetime.fromisoformat(first["delivered_at"].replace("Z", "+00:00")) + timedelta(minutes=10)
    assert post_receipt(world, receipt(first["ticket_number"], world.licence, gallons=1450,
                                       at=at)).status_code == 201
    # Disputed, with a reason; kept as sent, and a second word kept beside the first.
    reason = "No truck TRK-1 came through the gate that day."
    made = dispute(world, questioned["id"], {"reason": reason})
    assert made.status_code == 201, made.json
    spec = load_spec()
    assert _schema_errors(spec, spec["components"]["schemas"]["DeliveryDispute"], made.json) == []
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
    assert [d["manifest_id"] for d in page["items"] + rest["items"]] == [waiting["id"], questioned["id"],
                                                                        confirmed["id"]]
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
    for bad in ({}, {"reason": ""}, {"reason": "x" * 2001}, {"reason": "ok", "colour": "red"},
                {"reason": "bell\x07"}):
        response = dispute(world, manifest["id"], bad)
        assert response.status_code == 422 and response.mimetype == "application/problem+json", bad
    for missing in ("not-an-id", "0193a7e2-5c1f-7b3e-9a51-3f2d8c4b1a07"):
        response = dispute(world, missing, {"reason": "Never came."})
        assert response.status_code == 404 and response.mimetype == "application/problem+json"
    # Another site neither sees the delivery nor disputes it; a hauler does neither.
    other = factories.token(client, *factories.oauth_client(
        session, role="site", subject=[factories.disposal_site(session).id]))
    assert deliveries(world, token=other)["items"] == []
    assert dispute(world, manifest["id"], {"reason": "Never came."}, token=other).status_code == 404
    assert dispute(world, manifest["id"], {"reason": "Never came."}, token=world.hauler_token).status_code == 403
    assert client.get("/v1/deliveries", headers=factories.bearer(world.hauler_token)).status_code == 403
    assert client.get("/v1/deliveries?state=lost", headers=factories.bearer(world.site_token)).status_code == 422
    # Nothing refused was kept.
    assert deliveries(world)["items"][0]["disputes"] == []
