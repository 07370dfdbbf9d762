"""The change feed: what happened to the manifests within each caller's reach, in an order
that never skips a change committed late."""

import hashlib
import io
import json
import uuid
from datetime import timedelta

import pytest
from sqlalchemy import create_engine, insert, select, text

from storage.models import Change
from tests import factories
from tests.manifest_world import NOW, build
from tests.spec import load_spec, schema_errors


@pytest.fixture
def world(client, session, frozen_clock):
    frozen_clock(NOW)
    return build(client, session, capacity=3000)


def read(client, token, **query):
    response = client.get("/v1/changes", query_string=query, headers=factories.bearer(token))
    assert response.status_code == 200, response.json
    spec = load_spec()
    assert schema_errors(spec, spec["components"]["schemas"]["ChangeFeed"], response.json) == []
    return response.json


def everything(client, token, limit=100):
    """The whole feed, page by page; the cursor of the last, empty, answer."""
    items, cursor = [], None
    while True:
        page = read(client, token, limit=limit, **({"cursor": cursor} if cursor else {}))
        items += page["items"]
        if not page["items"]:
            assert page["next_cursor"] == (cursor or page["next_cursor"])
            return items, page["next_cursor"]
        assert page["next_cursor"] == page["items"][-1]["cursor"]
        cursor = page["next_cursor"]


def summary(items):
    return [
        (
            item["kind"],
            item["manifest_number"],
            item["revision"],
            item.get("findings", item.get("raised", item.get("documents"))),
            item.get("cleared"),
        )
        for item in items
    ]


def test_each_caller_is_told_what_happened_to_the_manifests_within_its_reach(world, client, session):
    hauler = world.hauler_token
    # A partial first load, then the second load of the same service, which clears it.
    first = world.post(world.body(completed=NOW - timedelta(hours=6), gallons_removed=2500, full_pump_down=False))
    second = world.post(world.body(completed=NOW - timedelta(hours=3), gallons_removed=500))
    assert first.status_code == second.status_code == 201
    corrected = client.post(
        f"/v1/manifests/{second.json['id']}/corrections",
        headers=factories.bearer(hauler),
        json={
            **world.body(completed=NOW - timedelta(hours=3), gallons_removed=500, driver_name="Sam Ortiz"),
            "manifest_number": second.json["manifest_number"],
            "reason": "Driver's name",
        },
    )
    assert corrected.status_code == 201, corrected.json
    scan = factories.pdf_bytes("signed manifest")
    sha256 = hashlib.sha256(scan).hexdigest()
    put = client.put(
        f"/v1/manifests/{first.json['id']}/documents/{sha256}",
        data=scan,
        headers={**factories.bearer(hauler), "Content-Type": "application/pdf"},
    )
    assert put.status_code == 201, put.json
    with_scan = client.post(
        "/v1/manifests",
        content_type="multipart/form-data",
        headers=factories.bearer(hauler),
        data={
            "manifest": json.dumps(world.body(completed=NOW - timedelta(hours=30))),
            "documents": [(io.BytesIO(factories.png_bytes()), "scan.png")],
        },
    )
    assert with_scan.status_code == 201, with_scan.json
    png = with_scan.json["documents"][0]["sha256"]

    m1, m2, m3 = (r.json["manifest_number"] for r in (first, second, with_scan))
    expected = [
        ("manifest.filed", m1, 1, ["partial_pump_down"], None),
        ("manifest.filed", m2, 1, [], None),
        ("manifest.findings_changed", m1, 1, [], ["partial_pump_down"]),
        ("manifest.corrected", m2, 2, [], None),
        ("manifest.documents_attached", m1, 1, [sha256], None),
        ("manifest.filed", m3, 1, [], None),
        ("manifest.documents_attached", m3, 1, [png], None),
    ]
    items, last = everything(client, hauler)
    assert summary(items) == expected
    assert {item["hauler_id"] for item in items} == {str(world.hauler.id)}
    assert {item["fse_id"] for item in items} == {str(world.device.fse_id)}
    assert all(item["at"] == NOW.isoformat().replace("+00:00", "Z") for item in items)
    # Page by page, the same; asked again from the end, nothing, and the same cursor.
    assert summary(everything(client, hauler, limit=2)[0]) == expected
    assert read(client, hauler, cursor=last) == {"items": [], "next_cursor": last}
    # From any entry's cursor, what follows it.
    assert summary(read(client, hauler, cursor=items[3]["cursor"])["items"]) == expected[4:]

    # The city's auditor and the restaurant's operator see the same; others nothing.
    auditor = factories.token(client, *factories.oauth_client(session, role="auditor", subject=["victorville"]))
    operator = factories.token(client, *factories.oauth_client(session, role="fse", subject=[world.device.fse_id]))
    assert summary(everything(client, auditor)[0]) == expected
    assert summary(everything(client, operator)[0]) == expected
    factories.jurisdiction(session, "tracy")
    elsewhere = factories.token(client, *factories.oauth_client(session, role="auditor", subject=["tracy"]))
    other_hauler = factories.hauler(session)
    stranger = factories.token(client, *factories.oauth_client(session, role="hauler", subject=[other_hauler.id]))
    other_fse = factories.fse(session)
    neighbour = factories.token(client, *factories.oauth_client(session, role="fse", subject=[other_fse.id]))
    for token in (elsewhere, stranger, neighbour):
        assert read(client, token)["items"] == []


@pytest.mark.postgresql_only  # SQLite's writers take turns: none begins first and commits last
def test_a_change_that_commits_late_is_not_skipped(world, app, client, session):
    """A change written by a transaction that began first but commits last comes out in its
    place: before it commits the feed stops short of what came after it."""
    engine = app.extensions["fogx.engine"]
    hauler = world.hauler_token
    world.post(world.body(completed=NOW - timedelta(hours=30)))
    _, cursor = everything(client, hauler)
    with engine.connect() as slow:
        slow.execute(
            insert(Change).values(
                kind="manifest.filed",
                at=NOW,
                manifest_id=uuid.uuid4(),
                manifest_number="SLOW-1",
                revision=1,
                hauler_id=world.hauler.id,
                fse_id=world.device.fse_id,
                jurisdiction_id=early_jurisdiction(session),
                detail={"findings": []},
            )
        )
        quick = world.post(world.body(completed=NOW - timedelta(hours=3)))
        assert quick.status_code == 201
        # Committed, but after a change still uncommitted: held back, and the cursor with it.
        assert read(client, hauler, cursor=cursor) == {"items": [], "next_cursor": cursor}
        slow.commit()
    after = read(client, hauler, cursor=cursor)["items"]
    assert [item["manifest_number"] for item in after] == ["SLOW-1", quick.json["manifest_number"]]


@pytest.mark.postgresql_only  # the transactions of other databases on the same server
def test_transactions_that_are_not_fogx_writers_do_not_hold_the_feed(world, app, client):
    """A writer open on another database of the server, and a long reader of fogx's own, have
    nothing to do with the feed: what fogx commits meanwhile is given out at once."""
    engine = app.extensions["fogx.engine"]
    elsewhere = create_engine(engine.url.set(database="postgres"))
    _, cursor = everything(client, world.hauler_token)
    try:
        with elsewhere.connect() as other, engine.connect() as reader:
            other.execute(text("SELECT pg_current_xact_id()"))  # holds a transaction id, open
            reader.execute(text("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ"))
            reader.execute(text("SELECT count(*) FROM changes"))  # a report's snapshot, open
            filed = world.post(world.body(completed=NOW - timedelta(hours=3)))
            assert filed.status_code == 201
            after = read(client, world.hauler_token, cursor=cursor)["items"]
            assert [item["manifest_number"] for item in after] == [filed.json["manifest_number"]]
            other.rollback()
            reader.rollback()
    finally:
        elsewhere.dispose()


def early_jurisdiction(session):
    from storage.models import Jurisdiction

    return session.scalar(select(Jurisdiction.id).where(Jurisdiction.code == "victorville"))


def test_a_bad_cursor_or_limit_is_a_422(world, client):
    for query in ({"cursor": "not a cursor"}, {"limit": 0}, {"limit": 1001}, {"cursor": "A" * 21}):
        response = client.get("/v1/changes", query_string=query, headers=factories.bearer(world.hauler_token))
        assert response.status_code == 422 and response.mimetype == "application/problem+json", query


def test_manifests_filed_before_the_feed_began_have_their_entries(app, world, client, session):
    """Migration 0008 writes the entries the manifests already filed would have had."""
    first = world.post(world.body(completed=NOW - timedelta(hours=6), gallons_removed=2500, full_pump_down=False))
    late = world.post(world.body(completed=NOW - timedelta(hours=100), gallons_removed=2950))
    corrected = client.post(
        f"/v1/manifests/{late.json['id']}/corrections",
        headers=factories.bearer(world.hauler_token),
        json={
            **world.body(completed=NOW - timedelta(hours=100), gallons_removed=2950, driver_name="Sam Ortiz"),
            "manifest_number": late.json["manifest_number"],
            "reason": "Driver",
        },
    )
    assert corrected.status_code == 201
    before = summary(everything(client, world.hauler_token)[0])
    factories.migrated_again(app, session, down_to="0007")
    assert (
        summary(everything(client, world.hauler_token)[0])
        == before
        == [
            ("manifest.filed", first.json["manifest_number"], 1, ["partial_pump_down"], None),
            ("manifest.filed", late.json["manifest_number"], 1, ["late_submission"], None),
            ("manifest.corrected", late.json["manifest_number"], 2, ["late_submission"], None),
        ]
    )
