"""Disposal sites post the loads they received; the city sees where the site's side and the
hauler's manifests disagree."""

import csv
import io
from datetime import UTC, datetime, timedelta

from domain import reconcile
from tests import factories
from tests.manifest_world import NOW, iso
from tests.receipts_world import RECEIVED, post_receipt, receipt, reconciliation, site_world  # noqa: F401
from tests.spec import load_spec, schema_errors


def test_a_site_posts_each_load_once_and_never_changes_it(site_world, client, session):
    world = site_world
    first = post_receipt(world, receipt("HDR-1", world.licence))
    assert first.status_code == 201, first.json
    assert first.json["hauler_id"] == str(world.hauler.id) and first.json["site_id"] == str(world.site.id)
    assert first.headers["Location"].endswith(first.json["id"])
    spec = load_spec()
    assert schema_errors(spec, spec["components"]["schemas"]["DisposalReceipt"], first.json) == []
    again = post_receipt(world, receipt("HDR-1", world.licence))
    assert again.status_code == 200 and again.json["id"] == first.json["id"]
    changed = post_receipt(world, receipt("HDR-1", world.licence, gallons=1000))
    assert changed.status_code == 409 and changed.mimetype == "application/problem+json"
    unknown = post_receipt(world, receipt("HDR-2", "NOT-A-LICENCE"))
    assert unknown.status_code == 201 and unknown.json["hauler_id"] is None
    for bad in (
        receipt("HDR-3", world.licence, at=NOW + timedelta(hours=1)),
        receipt("HDR-3", world.licence, gallons=-1),
        receipt("HDR-3", world.licence, waste_type="oil"),
        {"ticket_number": "HDR-3"},
        receipt("HDR-3", world.licence, colour="red"),
    ):
        response = post_receipt(world, bad)
        assert response.status_code == 422 and response.mimetype == "application/problem+json", bad
    listed = client.get("/v1/receipts", headers=factories.bearer(world.site_token)).json["items"]
    assert [r["ticket_number"] for r in listed] == ["HDR-1", "HDR-2"]
    # Only sites post receipts; a site does nothing else.
    assert post_receipt(world, receipt("HDR-4", world.licence), token=world.hauler_token).status_code == 403
    assert world.post(world.body(), token=world.site_token).status_code == 403
    other_site = factories.oauth_client(session, role="site", subject=[factories.disposal_site(session).id])
    other = factories.token(client, *other_site)
    assert client.get(f"/v1/receipts/{first.json['id']}", headers=factories.bearer(other)).status_code == 404
    assert client.get("/v1/receipts", headers=factories.bearer(other)).json["items"] == []


def test_the_city_sees_where_the_site_and_the_manifests_disagree(site_world, client, session, frozen_clock):
    world = site_world

    def filed(days_ago, **overrides):
        response = world.post(world.body(completed=NOW - timedelta(days=days_ago), **overrides))
        assert response.status_code == 201, response.json
        disposal = response.json["manifest"]["disposal"]
        delivered = datetime.fromisoformat(disposal["delivered_at"].replace("Z", "+00:00"))
        return response.json["manifest_number"], disposal["ticket_number"], delivered

    before_reporting = filed(12)  # delivered before the site reported anything
    matched = filed(9)
    short = filed(8)
    unreceived = filed(7)
    recent = filed(1)  # not received yet, but within the city's 72 hours
    other_truck = filed(6)
    elsewhere = factories.hauler(session, name="Other Pumping")
    by_another = filed(5)
    for (_, ticket, delivered), gallons, vehicle, licence in (
        (matched, 1420, "trk 1", world.licence),  # within 5%; the truck as the site writes it
        (short, 1100, "TRK-1", world.licence),
        (other_truck, 1450, "TRK-9", world.licence),
        (by_another, 1450, "TRK-1", elsewhere.licences[0].licence_number),
    ):
        # The site weighs the load in a few minutes after it arrives, the same day.
        at = delivered + timedelta(minutes=10)
        assert post_receipt(world, receipt(ticket, licence, gallons=gallons, vehicle=vehicle, at=at)).status_code == 201
    for ticket, licence in (("NO-MANIFEST", world.licence), ("STRANGER", "UNLICENSED-1")):
        assert post_receipt(world, receipt(ticket, licence)).status_code == 201
    post_receipt(world, receipt("JUST-NOW", world.licence, at=NOW - timedelta(hours=2)))

    answer = reconciliation(client, session).json
    # The year up to today by default: a dispute entered today is often of a load weeks old.
    assert (answer["from"], answer["to"]) == ((NOW.date() - timedelta(days=365)).isoformat(), NOW.date().isoformat())
    found = sorted((row["code"], row["manifest_number"] or row["ticket_number"]) for row in answer["items"])
    assert found == sorted(
        [
            (reconcile.GALLONS_DIFFER, short[0]),
            (reconcile.RECEIPT_MISSING, unreceived[0]),
            (reconcile.VEHICLE_DIFFERS, other_truck[0]),
            (reconcile.HAULER_DIFFERS, by_another[0]),
            (reconcile.MANIFEST_MISSING, "NO-MANIFEST"),
            (reconcile.MANIFEST_MISSING, "STRANGER"),
        ]
    )
    assert before_reporting[0] not in str(answer) and recent[0] not in str(answer)
    gallons = next(row for row in answer["items"] if row["code"] == reconcile.GALLONS_DIFFER)
    assert (gallons["gallons_delivered"], gallons["gallons_received"]) == (1450, 1100)
    assert gallons["fse_id"] == str(world.device.fse_id) and gallons["citation"] == "exchange policy"
    stranger = next(row for row in answer["items"] if row["ticket_number"] == "STRANGER")
    assert stranger["hauler_id"] is None and stranger["received_hauler_licence_number"] == "UNLICENSED-1"

    # Filters, pages and CSV; another city sees none of it.
    only = reconciliation(client, session, code=reconcile.MANIFEST_MISSING).json["items"]
    assert {row["ticket_number"] for row in only} == {"NO-MANIFEST", "STRANGER"}
    first_page = reconciliation(client, session, limit=4).json
    rest = reconciliation(client, session, limit=4, cursor=first_page["next_cursor"]).json
    assert first_page["items"] + rest["items"] == answer["items"] and rest["next_cursor"] is None
    table = reconciliation(client, session, format="csv")
    assert table.mimetype == "text/csv"
    sheet = list(csv.DictReader(io.StringIO(table.get_data(as_text=True))))
    assert len(sheet) == len(answer["items"])
    # What differs in words beside its code.
    assert {(row["code"], row["code_words"]) for row in sheet} >= {
        ("gallons_differ", "Gallons differ"),
        ("manifest_missing", "No manifest for the load"),
    }
    factories.jurisdiction(session, "tracy")
    assert reconciliation(client, session, city="tracy").json["items"] == []
    # The missing manifest filed at last: that row goes.
    late = world.post(
        world.body(
            completed=RECEIVED - timedelta(hours=1),
            disposal={
                "site_id": str(world.site.id),
                "ticket_number": "NO-MANIFEST",
                "delivered_at": iso(RECEIVED),
                "gallons_delivered": 1450,
            },
        )
    )
    assert late.status_code == 201
    tickets = {row["ticket_number"] for row in reconciliation(client, session).json["items"]}
    assert "NO-MANIFEST" not in tickets and "STRANGER" in tickets


def test_a_bad_period_or_code_is_a_422(site_world, client, session):
    auditor = factories.token(client, *factories.oauth_client(session, role="auditor", subject=["victorville"]))
    for query in ({"from": "2026-06-01", "to": "2026-05-01"}, {"code": "lost"}, {"from": "June"}):
        response = client.get(
            "/v1/audit/disposal-reconciliation", query_string=query, headers=factories.bearer(auditor)
        )
        assert response.status_code == 422 and response.mimetype == "application/problem+json", query


def test_the_rule_compares_both_sides_once_each_has_had_its_time():
    at = datetime(2026, 6, 1, 12, tzinfo=UTC)
    wait = timedelta(hours=72)
    sent = reconcile.Delivered("h", "TRK-1", 1000, at)
    assert reconcile.compare(sent, None, now=at + wait, wait=wait) == []
    assert reconcile.compare(sent, None, now=at + wait + timedelta(seconds=1), wait=wait) == [reconcile.RECEIPT_MISSING]
    took = reconcile.Received("h", "TRK-1", 1050, at)
    assert reconcile.compare(None, took, now=at + 2 * wait, wait=wait) == [reconcile.MANIFEST_MISSING]
    assert reconcile.compare(sent, took, now=at, wait=wait) == []  # 5% of 1,050 is 52.5
    assert reconcile.compare(sent, reconcile.Received("h", "trk 1", 1053, at), now=at, wait=wait) == [
        reconcile.GALLONS_DIFFER
    ]
    assert reconcile.compare(sent, reconcile.Received(None, "TRK-1", 1000, at), now=at, wait=wait) == [
        reconcile.HAULER_DIFFERS
    ]


def test_0010_keeps_the_clients_tokens_and_manifests_it_rebuilds_around(app, site_world, session):
    """0010 changes the clients' constraints, which SQLite does by building the table anew
    under the rows that refer to it (tokens, manifests, webhooks): down past it and up again,
    every one of them is there, but the site's client, which cannot be without it."""
    from sqlalchemy import func, select

    from storage.models import Manifest, OAuthClient, OAuthToken

    world = site_world
    assert world.post(world.body()).status_code == 201
    assert post_receipt(world, receipt("HDR-1", world.licence)).status_code == 201

    def counts():
        return [
            session.scalar(select(func.count()).select_from(model)) for model in (OAuthClient, OAuthToken, Manifest)
        ]

    before = counts()
    factories.migrated_again(app, session, down_to="0009")
    clients, tokens, manifests = counts()
    assert (clients, manifests) == (before[0] - 1, before[2]) and 0 < tokens < before[1]
    assert world.client.get("/v1/manifests", headers=factories.bearer(world.hauler_token)).status_code == 200


def test_a_correction_that_dates_a_delivery_into_the_period_is_compared(site_world, client, session, frozen_clock):
    """The list finds the period's deliveries among the manifests filed since its first day,
    and among the corrected ones: a correction may date a delivery after the filing."""
    world = site_world
    frozen_clock(NOW - timedelta(days=40))
    world.reauthenticate()
    old = world.post(world.body(completed=NOW - timedelta(days=40, hours=2)))
    assert old.status_code == 201
    frozen_clock(NOW)
    world.reauthenticate()
    assert reconciliation(client, session).json["items"] == []
    completed = NOW - timedelta(days=5)
    body = world.body(completed=completed)
    body.update(manifest_number=old.json["manifest_number"], reason="Keyed the wrong month")
    corrected = client.post(
        f"/v1/manifests/{old.json['id']}/corrections", json=body, headers=factories.bearer(world.hauler_token)
    )
    # A month's shift waits for the city's review; the city's auditor accepts it.
    assert corrected.status_code == 202, corrected.json
    assert reconciliation(client, session).json["items"] == []
    auditor = factories.token(client, *factories.oauth_client(session, role="auditor", subject=["victorville"]))
    approved = client.post(
        f"/v1/audit/corrections/{corrected.json['id']}/approve", json={}, headers=factories.bearer(auditor)
    )
    assert approved.status_code == 200 and approved.json["revision"] == 2, approved.json
    assert [(row["code"], row["manifest_number"]) for row in reconciliation(client, session).json["items"]] == [
        (reconcile.RECEIPT_MISSING, old.json["manifest_number"])
    ]


def test_a_receipt_made_in_error_is_corrected_and_its_first_state_kept(site_world, client, session):
    world = site_world
    body = world.body(completed=NOW - timedelta(days=3))
    assert world.post(body).status_code == 201
    ticket, delivered = body["disposal"]["ticket_number"], body["disposal"]["gallons_delivered"]
    at = datetime.fromisoformat(body["disposal"]["delivered_at"].replace("Z", "+00:00")) + timedelta(minutes=10)
    first = post_receipt(world, receipt(ticket, world.licence, gallons=delivered - 400, at=at)).json
    assert [r["code"] for r in reconciliation(client, session).json["items"]] == [reconcile.GALLONS_DIFFER]
    headers = factories.bearer(world.site_token)

    def correct(receipt_id, reason="The scale was read with the hose still on.", token=None, **changes):
        return client.post(
            f"/v1/receipts/{receipt_id}/corrections",
            json={**receipt(ticket, world.licence, gallons=delivered, at=at), **changes, "reason": reason},
            headers=factories.bearer(token or world.site_token),
        )

    corrected = correct(first["id"])
    assert corrected.status_code == 201, corrected.json
    assert corrected.headers["Location"].endswith(f"/v1/receipts/{first['id']}")
    spec = load_spec()
    assert schema_errors(spec, spec["components"]["schemas"]["ReceiptCorrection"], corrected.json) == []
    assert corrected.json["before"]["gallons_received"] == delivered - 400
    assert corrected.json["after"]["gallons_received"] == delivered
    assert corrected.json["submitted_by"]["role"] == "site"
    # The receipt shows the load as corrected: the city's reconciliation no longer differs.
    shown = client.get(f"/v1/receipts/{first['id']}", headers=headers).json
    assert (shown["id"], shown["gallons_received"]) == (first["id"], delivered)
    assert reconciliation(client, session).json["items"] == []
    # Nothing to correct, a reason missing, the future, another site's receipt: refused.
    assert correct(first["id"]).status_code == 422
    assert correct(first["id"], reason="", gallons_received=delivered + 1).status_code == 422
    assert correct(first["id"], received_at=iso(NOW + timedelta(hours=1))).status_code == 422
    other = factories.token(
        client, *factories.oauth_client(session, role="site", subject=[factories.disposal_site(session).id])
    )
    assert correct(first["id"], token=other, gallons_received=1).status_code == 404
    # A ticket another receipt holds that day: a 409, and the receipt as it stood.
    post_receipt(world, receipt("HDR-OTHER", world.licence, at=at))
    clash = correct(first["id"], ticket_number="HDR-OTHER")
    assert clash.status_code == 409 and clash.mimetype == "application/problem+json"
    assert client.get(f"/v1/receipts/{first['id']}", headers=headers).json["ticket_number"] == ticket
    from sqlalchemy import select

    from storage.receipt_corrections import ReceiptCorrection

    session.expire_all()
    kept = session.scalars(select(ReceiptCorrection)).all()
    assert [(c.before["gallons_received"], c.after["gallons_received"]) for c in kept] == [(delivered - 400, delivered)]
