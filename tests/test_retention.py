"""Retention purge, legal holds, and `records verify`."""

import hashlib
import io
import json
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from sqlalchemy import func, select, update
from sqlalchemy.orm import Session

from domain.dates import add_years
from storage.models import Document, Manifest, ManifestRevision
from tests import factories
from tests.conftest import https_client
from tests.manifest_world import build

PDF_OLD = factories.pdf_bytes("old scan")
PDF_NEW = factories.pdf_bytes("new scan")


def file_with_scan(world, frozen_clock, completed, scan):
    frozen_clock(completed + timedelta(hours=1))
    world.reauthenticate()
    response = world.client.post(
        "/v1/manifests",
        content_type="multipart/form-data",
        headers=factories.bearer(world.hauler_token),
        data={"manifest": json.dumps(world.body(completed=completed)), "documents": [(io.BytesIO(scan), "scan.pdf")]},
    )
    assert response.status_code == 201, response.json
    return response.json


@pytest.fixture
def timeline(s3_app, s3_bucket, frozen_clock):
    """Records are kept three years (exchange policy; Victorville 10.03.170(c) asks two). An expired
    record, an expired one under hold, a young one."""
    real_now = datetime.now(UTC).replace(microsecond=0)
    client = https_client(s3_app)
    engine = s3_app.extensions["fogx.engine"]
    with Session(bind=engine, expire_on_commit=False) as session:
        world = build(client, session)
        held_world = build(client, session)
        old = file_with_scan(world, frozen_clock, real_now - timedelta(days=4 * 365), PDF_OLD)
        held = file_with_scan(
            held_world, frozen_clock, real_now - timedelta(days=4 * 365 - 5), factories.pdf_bytes("held scan")
        )
        young = file_with_scan(world, frozen_clock, real_now - timedelta(days=30), PDF_NEW)
    frozen_clock(real_now)
    return {
        "app": s3_app,
        "engine": engine,
        "old": old,
        "held": held,
        "young": young,
        "held_fse": str(held_world.device.fse_id),
        "s3": s3_bucket,
    }


def count(engine, model, **where):
    with Session(bind=engine) as session:
        query = select(func.count()).select_from(model)
        for name, value in where.items():
            query = query.where(getattr(model, name) == value)
        return session.scalar(query)


def test_purge_removes_expired_records_but_not_held_or_young_ones(timeline):
    app, engine = timeline["app"], timeline["engine"]
    runner = app.test_cli_runner()
    placed = runner.invoke(args=["retention", "hold", timeline["held_fse"], "--reason", "County v. Grill"])
    assert placed.exit_code == 0 and "placed on FSE" in placed.output

    dry = runner.invoke(args=["retention", "purge", "--dry-run"])
    assert "2 manifest(s) past retention: would purge 1, kept 1 under legal hold" in dry.output
    assert count(engine, Manifest) == 3

    result = runner.invoke(args=["retention", "purge"])
    assert result.exit_code == 0, result.output
    assert "2 manifest(s) past retention: purged 1, kept 1 under legal hold; scans removed 1" in result.output
    import uuid

    assert count(engine, Manifest, id=uuid.UUID(timeline["old"]["id"])) == 0
    assert count(engine, Manifest, id=uuid.UUID(timeline["held"]["id"])) == 1
    assert count(engine, Manifest, id=uuid.UUID(timeline["young"]["id"])) == 1
    assert count(engine, ManifestRevision) == 2 and count(engine, Document) == 2
    # The change feed tells who copied the record that it is gone, and no longer what it was.
    client = https_client(app)
    with Session(bind=engine) as session:
        auditor = factories.token(client, *factories.oauth_client(session, role="auditor", subject=["victorville"]))
    feed = client.get("/v1/changes", query_string={"limit": 1000}, headers=factories.bearer(auditor)).json["items"]
    assert [(c["kind"], c["revision"]) for c in feed if c["manifest_id"] == timeline["old"]["id"]] == [
        ("manifest.purged", None)
    ]
    assert [c["kind"] for c in feed if c["manifest_id"] == timeline["young"]["id"]] == [
        "manifest.filed",
        "manifest.documents_attached",
    ]

    _, bucket, s3 = timeline["s3"]
    keys = {o["Key"] for o in s3.list_object_versions(Bucket=bucket).get("Versions", [])}
    old_key = timeline["old"]["documents"][0]["sha256"]
    young_key = timeline["young"]["documents"][0]["sha256"]
    assert old_key not in keys and young_key in keys
    # The young scan stays locked: the store itself refuses to delete it.
    version = s3.head_object(Bucket=bucket, Key=young_key)["VersionId"]
    with pytest.raises(s3.exceptions.ClientError):
        s3.delete_object(Bucket=bucket, Key=young_key, VersionId=version)

    runner.invoke(args=["retention", "release", timeline["held_fse"]])
    again = runner.invoke(args=["retention", "purge"])
    assert "1 manifest(s) past retention: purged 1, kept 0 under legal hold" in again.output
    assert count(engine, Manifest) == 1


def test_hold_on_a_single_manifest(timeline):
    runner = timeline["app"].test_cli_runner()
    runner.invoke(args=["retention", "hold", timeline["old"]["id"], "--reason", "audit"])
    holds = runner.invoke(args=["retention", "holds"])
    assert timeline["old"]["id"] in holds.output and "audit" in holds.output
    result = runner.invoke(args=["retention", "purge"])
    assert "purged 1, kept 1 under legal hold" in result.output
    assert count(timeline["engine"], Manifest) == 2


def test_hold_needs_a_known_target(app):
    result = app.test_cli_runner().invoke(args=["retention", "hold", "nope", "--reason", "x"])
    assert result.exit_code != 0 and "not an id" in result.output


def test_no_route_deletes_a_record(app):
    for rule in app.url_map.iter_rules():
        assert "DELETE" not in rule.methods, rule.rule


def test_records_verify_finds_tampering(app, client, session, frozen_clock):
    from tests.manifest_world import NOW

    frozen_clock(NOW)
    world = build(client, session)
    filed = world.client.post(
        "/v1/manifests",
        content_type="multipart/form-data",
        headers=factories.bearer(world.hauler_token),
        data={"manifest": json.dumps(world.body()), "documents": [(io.BytesIO(PDF_NEW), "scan.pdf")]},
    ).json
    runner = app.test_cli_runner()
    fse_id = str(world.device.fse_id)
    clean = runner.invoke(args=["records", "verify", fse_id])
    assert clean.exit_code == 0 and "verified" in clean.output

    store = app.extensions["fogx.store"]
    path = store._path(filed["documents"][0]["sha256"])
    path.write_bytes(PDF_NEW + b"tampered")
    tampered_scan = runner.invoke(args=["records", "verify", fse_id])
    assert tampered_scan.exit_code == 1 and "does not match its SHA-256" in tampered_scan.output
    path.write_bytes(PDF_NEW)

    revision = session.scalar(select(ManifestRevision))
    body = dict(revision.body)
    body["manifest"] = {**body["manifest"], "gallons_removed": 9999}
    session.execute(update(ManifestRevision).where(ManifestRevision.id == revision.id).values(body=body))
    session.commit()
    tampered_row = runner.invoke(args=["records", "verify", fse_id])
    assert tampered_row.exit_code == 1 and "does not match its hash" in tampered_row.output


# A record follows everything it ever was -----------------------------------------------------


def correction_of(receipt, **changes):
    """The receipt's manifest as a correction body."""
    return {**receipt["manifest"], "reason": "correcting", **changes}


def moved(receipt, delta):
    body = dict(receipt["manifest"])
    for name in ("service_started_at", "service_completed_at"):
        body[name] = (datetime.fromisoformat(body[name].replace("Z", "+00:00")) + delta).isoformat()
    body["disposal"] = None
    return body


def approve(client, session, correction_id):
    auditor = factories.token(client, *factories.oauth_client(session, role="auditor", subject=["victorville"]))
    response = client.post(f"/v1/audit/corrections/{correction_id}/approve", json={}, headers=factories.bearer(auditor))
    assert response.status_code == 200, response.json
    return response.json


def purge(app, *args):
    result = app.test_cli_runner().invoke(args=["retention", "purge", *args])
    assert result.exit_code == 0, result.output
    return result.output


def scans_sent_later(client, path, headers):
    """A scan sent to its SHA-256 and one posted as a form, after the filing: their keys."""
    late_scan = factories.pdf_bytes("late scan")
    put = client.put(
        f"{path}/documents/{hashlib.sha256(late_scan).hexdigest()}",
        data=late_scan,
        headers={**headers, "Content-Type": "application/pdf"},
    )
    assert put.status_code == 201, put.json
    added = client.post(
        f"{path}/documents",
        headers=headers,
        content_type="multipart/form-data",
        data={"documents": [(io.BytesIO(PDF_NEW), "scan.pdf")]},
    )
    assert added.status_code == 201, added.json
    return put.json["sha256"], hashlib.sha256(PDF_NEW).hexdigest()


def retain_until(s3, bucket, key):
    return s3.head_object(Bucket=bucket, Key=key)["ObjectLockRetainUntilDate"].date()


def test_a_correction_years_back_does_not_shorten_how_long_the_record_is_kept(s3_app, s3_bucket, frozen_clock):
    """Victorville 10.03.170(c): manifests are kept "for no less than two years". A record is
    kept from its first filing or the latest service it ever had: a correction dating the
    service years back, even one the city approves, purges nothing and unlocks no scan."""
    _, bucket, s3 = s3_bucket
    real_now = datetime.now(UTC).replace(microsecond=0)
    client = https_client(s3_app)
    engine = s3_app.extensions["fogx.engine"]
    with Session(bind=engine, expire_on_commit=False) as session:
        world = build(client, session)
        filed = file_with_scan(world, frozen_clock, real_now - timedelta(days=30), PDF_OLD)
        key = filed["documents"][0]["sha256"]
        locked = retain_until(s3, bucket, key)
        frozen_clock(real_now)
        world.reauthenticate()
        headers = factories.bearer(world.hauler_token)
        path = f"/v1/manifests/{filed['id']}"
        proposal = client.post(
            f"{path}/corrections",
            headers=headers,
            json={**moved(filed, -timedelta(days=5 * 365)), "reason": "Keyed the wrong year"},
        )
        assert proposal.status_code == 202, proposal.json
        assert "0 manifest(s) past retention" in purge(s3_app)
        assert approve(client, session, proposal.json["id"])["revision"] == 2
        assert (
            client.get(path, headers=headers)
            .json["manifest"]["service_completed_at"]
            .startswith(str((real_now - timedelta(days=5 * 365 + 30)).year))
        )

        assert "0 manifest(s) past retention: purged 0" in purge(s3_app)
        assert count(engine, Manifest) == 1 and count(engine, Document) == 1
        assert retain_until(s3, bucket, key) == locked
        # A scan attached now is locked as long as the record is kept, not from the old date.
        assert [retain_until(s3, bucket, key) for key in scans_sent_later(client, path, headers)] == [locked] * 2


def test_a_scan_of_an_evening_service_is_locked_from_the_citys_day(s3_app, s3_bucket, frozen_clock):
    """A service at 21:30 or 22:30 in Victorville is 05:30 UTC the next day: its scans, however
    sent, are kept from the city's day, as its record is (three years, exchange policy)."""
    _, bucket, s3 = s3_bucket
    evening = (datetime.now(UTC) - timedelta(days=30)).replace(hour=5, minute=30, second=0, microsecond=0)
    city_day = evening.astimezone(ZoneInfo("America/Los_Angeles")).date()
    kept_until = add_years(city_day, 3)
    client = https_client(s3_app)
    with Session(bind=s3_app.extensions["fogx.engine"], expire_on_commit=False) as session:
        world = build(client, session)
        filed = file_with_scan(world, frozen_clock, evening, PDF_OLD)  # filed an hour later, that evening
        assert retain_until(s3, bucket, filed["documents"][0]["sha256"]) == kept_until
        sent = scans_sent_later(client, f"/v1/manifests/{filed['id']}", factories.bearer(world.hauler_token))
        assert [retain_until(s3, bucket, key) for key in sent] == [kept_until] * 2


def test_a_later_service_lengthens_the_scans_locks(s3_app, s3_bucket, frozen_clock):
    _, bucket, s3 = s3_bucket
    real_now = datetime.now(UTC).replace(microsecond=0)
    # At noon in the city: filed an hour later, on the service's day, which the lock counts from.
    noon = (real_now - timedelta(days=30)).replace(hour=20, minute=0, second=0)
    client = https_client(s3_app)
    with Session(bind=s3_app.extensions["fogx.engine"], expire_on_commit=False) as session:
        world = build(client, session)
        filed = file_with_scan(world, frozen_clock, noon, PDF_OLD)
        key = filed["documents"][0]["sha256"]
        locked = retain_until(s3, bucket, key)
        frozen_clock(real_now)
        world.reauthenticate()
        later = client.post(
            f"/v1/manifests/{filed['id']}/corrections",
            headers=factories.bearer(world.hauler_token),
            json={**moved(filed, timedelta(days=10)), "reason": "Keyed the wrong week"},
        )
        assert later.status_code == 202
        approve(client, session, later.json["id"])
        s3_app.test_cli_runner().invoke(args=["outbox", "run", "--once"])
        assert retain_until(s3, bucket, key) == locked + timedelta(days=10)


@pytest.fixture
def moved_off(s3_app, s3_bucket, frozen_clock):
    """An expired manifest with a scan, filed for restaurant A, whose first restaurant is on
    hold; restaurant B is another in the same city."""
    real_now = datetime.now(UTC).replace(microsecond=0)
    client = https_client(s3_app)
    engine = s3_app.extensions["fogx.engine"]
    session = Session(bind=engine, expire_on_commit=False)
    world = build(client, session)
    other = factories.device(
        session, permit_row=factories.permit(session, fse_row=factories.fse(session, city="victorville"))
    )
    filed = file_with_scan(world, frozen_clock, real_now - timedelta(days=4 * 365), PDF_OLD)
    frozen_clock(real_now)
    world.reauthenticate()
    yield {
        "app": s3_app,
        "engine": engine,
        "client": client,
        "session": session,
        "world": world,
        "other": other,
        "filed": filed,
        "s3": s3_bucket,
    }
    session.close()


def test_a_hold_on_the_first_restaurant_keeps_a_manifest_moved_off_it(moved_off):
    app, engine, client, session = (moved_off[k] for k in ("app", "engine", "client", "session"))
    world, other, filed = moved_off["world"], moved_off["other"], moved_off["filed"]
    runner = app.test_cli_runner()
    fse_a = str(world.device.fse_id)
    assert runner.invoke(args=["retention", "hold", fse_a, "--reason", "County v. Grill"]).exit_code == 0

    proposal = client.post(
        f"/v1/manifests/{filed['id']}/corrections",
        headers=factories.bearer(world.hauler_token),
        json=correction_of(filed, permit_number=other.permit.permit_number),
    )
    assert proposal.status_code == 202 and proposal.json["moves"] == ["fse", "permit", "device"]
    assert "1 manifest(s) past retention: purged 0, kept 1 under legal hold" in purge(app)

    approve(client, session, proposal.json["id"])
    receipt = client.get(f"/v1/manifests/{filed['id']}", headers=factories.bearer(world.hauler_token)).json
    assert receipt["fse_id"] == str(other.fse_id)
    assert "1 manifest(s) past retention: purged 0, kept 1 under legal hold" in purge(app)
    assert count(engine, Manifest) == 1 and count(engine, Document) == 1
    _, bucket, s3 = moved_off["s3"]
    keys = {o["Key"] for o in s3.list_object_versions(Bucket=bucket).get("Versions", [])}
    assert filed["documents"][0]["sha256"] in keys

    runner.invoke(args=["retention", "release", fse_a])
    assert "1 manifest(s) past retention: purged 1, kept 0 under legal hold" in purge(app)
    assert count(engine, Manifest) == 0


def test_a_hold_on_a_permit_keeps_every_manifest_that_named_it(moved_off):
    app, client = moved_off["app"], moved_off["client"]
    world, other, filed = moved_off["world"], moved_off["other"], moved_off["filed"]
    runner = app.test_cli_runner()
    first_permit = str(world.permit.id)
    placed = runner.invoke(args=["retention", "hold", first_permit, "--reason", "Permit revocation hearing"])
    assert placed.exit_code == 0 and f"placed on permit {first_permit}" in placed.output
    assert f"permit {first_permit}\tPermit revocation hearing" in runner.invoke(args=["retention", "holds"]).output
    proposal = client.post(
        f"/v1/manifests/{filed['id']}/corrections",
        headers=factories.bearer(world.hauler_token),
        json=correction_of(filed, permit_number=other.permit.permit_number),
    ).json
    approve(client, moved_off["session"], proposal["id"])
    assert "purged 0, kept 1 under legal hold" in purge(app)
    assert "released 1 hold(s)" in runner.invoke(args=["retention", "release", first_permit]).output
    assert "purged 1, kept 0 under legal hold" in purge(app)


def test_a_correction_waiting_for_the_city_keeps_an_expired_record(moved_off):
    app, client, world, filed = (moved_off[k] for k in ("app", "client", "world", "filed"))
    proposal = client.post(
        f"/v1/manifests/{filed['id']}/corrections",
        headers=factories.bearer(world.hauler_token),
        json={**moved(filed, timedelta(days=30)), "reason": "Keyed the wrong month"},
    )
    assert proposal.status_code == 202
    assert (
        "purged 0, kept 0 under legal hold; scans removed 0, refused by the store 0; kept 1 with a "
        "correction awaiting the city's review"
    ) in purge(app)
    assert count(moved_off["engine"], Manifest) == 1


def test_retention_ends_on_the_citys_local_date(app, client, session, frozen_clock):
    """Records are kept three years (exchange policy; Victorville 10.03.170(c) asks "no less than
    two years"). A service at 23:30 Pacific on 30 June (1 July 06:30 UTC) is kept through 30 June
    three years on, Pacific time."""
    pacific = ZoneInfo("America/Los_Angeles")
    completed = datetime(2024, 6, 30, 23, 30, tzinfo=pacific)
    frozen_clock(completed + timedelta(minutes=10))
    world = build(client, session)
    assert world.post(world.body(completed=completed.astimezone(UTC), disposal=None)).status_code == 201

    frozen_clock(datetime(2027, 6, 30, 23, 59, tzinfo=pacific))
    assert "0 manifest(s) past retention" in purge(app, "--dry-run")
    frozen_clock(datetime(2027, 7, 1, 0, 1, tzinfo=pacific))
    assert "1 manifest(s) past retention: would purge 1" in purge(app, "--dry-run")


def test_retention_counts_from_the_first_filing_of_a_late_manifest(app, client, session, frozen_clock):
    """A manifest filed long after its service is kept from the day it was filed."""
    completed = datetime(2024, 3, 1, 18, tzinfo=UTC)
    frozen_clock(datetime(2025, 3, 1, 18, tzinfo=UTC))
    world = build(client, session)
    assert world.post(world.body(completed=completed, disposal=None)).status_code == 201
    frozen_clock(datetime(2027, 6, 1, 18, tzinfo=UTC))
    assert "0 manifest(s) past retention" in purge(app, "--dry-run")
    frozen_clock(datetime(2028, 3, 3, 18, tzinfo=UTC))
    assert "1 manifest(s) past retention" in purge(app, "--dry-run")


def test_records_verify_finds_altered_columns_that_decide_retention_and_holds(app, client, session, frozen_clock):
    """An UPDATE behind the hash (a service dated years back, a manifest moved off its
    restaurant) would let a purge take a record that must stay: `records verify` says so."""
    import uuid

    from tests.manifest_world import NOW

    frozen_clock(NOW)
    world = build(client, session)
    other = factories.fse(session, city="victorville")
    manifest_id = uuid.UUID(world.post(world.body()).json["id"])
    runner = app.test_cli_runner()
    fse_id = str(world.device.fse_id)
    assert runner.invoke(args=["records", "verify", fse_id]).exit_code == 0
    years_back = NOW - timedelta(days=4 * 365)
    tampering = [
        (ManifestRevision, ManifestRevision.manifest_id, "service_completed_at", years_back),
        (ManifestRevision, ManifestRevision.manifest_id, "received_at", years_back),
        (
            ManifestRevision,
            ManifestRevision.manifest_id,
            "device_id",
            factories.device(session, permit_row=factories.permit(session, fse_row=other)).id,
        ),
        (Manifest, Manifest.id, "fse_id", other.id),
        (Manifest, Manifest.id, "current_revision", 2),
    ]
    for model, key, column, value in tampering:
        original = session.scalar(select(getattr(model, column)).where(key == manifest_id))
        session.execute(update(model).where(key == manifest_id).values({column: value}))
        session.commit()
        result = runner.invoke(args=["records", "verify", fse_id])
        assert result.exit_code == 1 and "MISMATCH manifest" in result.output and column in result.output, (
            column,
            result.output,
        )
        session.execute(update(model).where(key == manifest_id).values({column: original}))
        session.commit()
        assert runner.invoke(args=["records", "verify", fse_id]).exit_code == 0, column


def test_retention_runs_from_the_latest_service_the_record_ever_had(app, client, session, frozen_clock):
    """A service corrected to a later day, then back years: the record is kept three years
    (exchange policy) past the later day, the latest service it ever had."""
    filed_at = datetime(2024, 3, 1, 18, tzinfo=UTC)
    frozen_clock(filed_at)
    world = build(client, session)
    filed = world.post(world.body(completed=filed_at - timedelta(hours=2), disposal=None)).json

    def corrected(delta):
        response = client.post(
            f"/v1/manifests/{filed['id']}/corrections",
            json={**moved(filed, delta), "reason": "c"},
            headers=factories.bearer(world.hauler_token),
        )
        assert response.status_code == 202, response.json
        approve(client, session, response.json["id"])

    frozen_clock(filed_at + timedelta(days=12))
    world.reauthenticate()
    corrected(timedelta(days=10))  # serviced 2024-03-11 (Pacific)
    corrected(-timedelta(days=3 * 365))
    pacific = ZoneInfo("America/Los_Angeles")
    frozen_clock(datetime(2027, 3, 11, 23, 59, tzinfo=pacific))
    assert "0 manifest(s) past retention" in purge(app, "--dry-run")
    frozen_clock(datetime(2027, 3, 12, 0, 1, tzinfo=pacific))
    assert "1 manifest(s) past retention" in purge(app, "--dry-run")
