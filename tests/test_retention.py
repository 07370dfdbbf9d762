"""Retention purge, legal holds, and `records verify`."""
import io
import json
from datetime import datetime, timedelta, timezone

import pytest
from sqlalchemy import func, select, update
from sqlalchemy.orm import Session

from storage.models import Document, Manifest, ManifestRevision
from tests import factories
from tests.conftest import https_client
from tests.manifest_world import build

PDF_OLD = factories.pdf_bytes("old scan")
PDF_NEW = factories.pdf_bytes("new scan")


def file_with_scan(world, frozen_clock, completed, scan):
    frozen_clock(completed + timedelta(hours=1))
    world.reauthenticate()
    response = world.client.post("/v1/manifests", content_type="multipart/form-data",
                                 headers=factories.bearer(world.hauler_token),
                                 data={"manifest": json.dumps(world.body(completed=completed)),
                                       "documents": [(io.BytesIO(scan), "scan.pdf")]})
    assert response.status_code == 201, response.json
    return response.json


@pytest.fixture
def timeline(s3_app, s3_bucket, frozen_clock):
    """Records are kept three years (exchange policy; Victorville 10.03.170(c) asks two). An expired
    record, an expired one under hold, a young one."""
    real_now = datetime.now(timezone.utc).replace(microsecond=0)
    client = https_client(s3_app)
    engine = s3_app.extensions["fogx.engine"]
    with Session(bind=engine, expire_on_commit=False) as session:
        world = build(client, session)
        held_world = build(client, session)
        old = file_with_scan(world, frozen_clock, real_now - timedelta(days=4 * 365), PDF_OLD)
        held = file_with_scan(held_world, frozen_clock, real_now - timedelta(days=4 * 365 - 5),
                              factories.pdf_bytes("held scan"))
        young = file_with_scan(world, frozen_clock, real_now - timedelta(days=30), PDF_NEW)
    frozen_clock(real_now)
    return {"app": s3_app, "engine": engine, "old": old, "held": held, "young": young,
            "held_fse": str(held_world.device.fse_id), "s3": s3_bucket}


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
        ("manifest.purged", None)]
    assert [c["kind"] for c in feed if c["manifest_id"] == timeline["young"]["id"]] == [
        "manifest.filed", "manifest.documents_attached"]

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
    filed = world.client.post("/v1/manifests", content_type="multipart/form-data",
                              headers=factories.bearer(world.hauler_token),
                              data={"manifest": json.dumps(world.body()),
                                    "documents": [(io.BytesIO(PDF_NEW), "scan.pdf")]}).json
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
