"""Scans no one can swap: a scan is read back as the version that was stored and locked, and
checked against its SHA-256 before any of it is served. An object written under its key later
(by anyone with access to the bucket or the folder) is never what a restaurant or an auditor
downloads: the stored version comes back, or a 502 problem that says the stored scan failed
its integrity check."""

import hashlib
import io
import json
import os
import uuid
import zipfile

import pytest
from pypdf import PdfReader
from sqlalchemy import select

from storage.models import Document
from tests import factories
from tests.conftest import https_client
from tests.manifest_world import NOW, build

ORIGINAL = factories.pdf_bytes("ORIGINAL SIGNED MANIFEST")
FORGED = factories.pdf_bytes("FORGED SIGNED MANIFEST!!")
PNG = factories.png_bytes((64, 48), (10, 20, 30))
FORGED_PNG = factories.png_bytes((64, 48), (200, 20, 30))


def sha(data):
    return hashlib.sha256(data).hexdigest()


@pytest.fixture
def world_of(frozen_clock):
    """(client, world, session, operator token) of an app, at NOW; the session is closed after
    the test (an open transaction would hold the tables the next test empties)."""
    from sqlalchemy.orm import Session

    sessions = []

    def make(app):
        frozen_clock(NOW)
        client = https_client(app)
        session = Session(bind=app.extensions["fogx.engine"], expire_on_commit=False)
        sessions.append(session)
        world = build(client, session)
        operator = factories.token(client, *factories.oauth_client(session, role="fse", subject=[world.device.fse_id]))
        return client, world, session, operator

    yield make
    for session in sessions:
        session.close()


def file_with_scans(client, world, scans, **kwargs):
    response = client.post(
        "/v1/manifests",
        content_type="multipart/form-data",
        headers=factories.bearer(world.hauler_token),
        **kwargs,
        data={"manifest": json.dumps(world.body()), "documents": [(io.BytesIO(data), name) for name, data in scans]},
    )
    assert response.status_code == 201, response.json
    return response


def put_scan(client, world, data):
    """A scan PUT as the raw body to a manifest filed for it (S3: streamed as it arrives)."""
    manifest_id = world.post(world.body()).json["id"]
    response = client.put(
        f"/v1/manifests/{manifest_id}/documents/{sha(data)}",
        data=data,
        headers={**factories.bearer(world.hauler_token), "Content-Type": "image/png"},
    )
    assert response.status_code == 201, response.json
    return manifest_id, response.json


def records(client, world, operator, fmt):
    return client.get(
        f"/v1/fses/{world.device.fse_id}/records", query_string={"format": fmt}, headers=factories.bearer(operator)
    )


def versions(s3, bucket, key):
    """The key's version ids, oldest first."""
    listed = s3.list_object_versions(Bucket=bucket, Prefix=key).get("Versions", [])
    return [v["VersionId"] for v in reversed(listed) if v["Key"] == key]


def test_a_scan_overwritten_in_the_bucket_is_served_as_it_was_stored(s3_app, s3_bucket, world_of):
    _, bucket, s3 = s3_bucket
    client, world, session, operator = world_of(s3_app)
    filed = file_with_scans(client, world, [("signed.pdf", ORIGINAL)])
    manifest_id, put_document = put_scan(client, world, PNG)
    for key, forged in ((sha(ORIGINAL), FORGED), (sha(PNG), FORGED_PNG)):
        s3.put_object(Bucket=bucket, Key=key, Body=forged)  # anyone with access to the bucket
        assert s3.get_object(Bucket=bucket, Key=key)["Body"].read() == forged
    by_key = {d.sha256: d for d in session.scalars(select(Document))}
    assert by_key[sha(ORIGINAL)].object_version_id == versions(s3, bucket, sha(ORIGINAL))[0]
    assert by_key[sha(PNG)].object_version_id == versions(s3, bucket, sha(PNG))[0]

    headers = factories.bearer(operator)
    pdf = client.get(f"/v1/manifests/{filed.json['id']}/documents/{filed.json['documents'][0]['id']}", headers=headers)
    assert pdf.status_code == 200 and pdf.data == ORIGINAL
    png = client.get(f"/v1/manifests/{manifest_id}/documents/{put_document['id']}", headers=headers)
    assert png.status_code == 200 and png.data == PNG

    archive = zipfile.ZipFile(io.BytesIO(records(client, world, operator, "zip").data))
    scans = {name.rsplit("/", 1)[1]: archive.read(name) for name in archive.namelist() if name.startswith("scans/")}
    assert scans == {f"{sha(ORIGINAL)}.pdf": ORIGINAL, f"{sha(PNG)}.png": PNG}
    binder = PdfReader(io.BytesIO(records(client, world, operator, "pdf").data))
    text = " ".join(page.extract_text() for page in binder.pages)
    assert "ORIGINAL SIGNED MANIFEST" in text and "FORGED" not in text

    verified = s3_app.test_cli_runner().invoke(args=["records", "verify", str(world.device.fse_id)])
    assert verified.exit_code == 0 and "every revision hash and scan verified" in verified.output, verified.output


def test_the_stored_version_is_the_one_locked(s3_app, s3_bucket, world_of):
    """Written under the key before the lock is applied, another object is not locked in the
    scan's place: the scan's version is."""
    _, bucket, s3 = s3_bucket
    client, world, session, _ = world_of(s3_app)
    response = file_with_scans(client, world, [("signed.pdf", ORIGINAL)], buffered=False)
    s3.put_object(Bucket=bucket, Key=sha(ORIGINAL), Body=FORGED)
    response.close()  # the receipt is sent: the lock is applied from the outbox now
    ours, forged = versions(s3, bucket, sha(ORIGINAL))
    assert s3.head_object(Bucket=bucket, Key=sha(ORIGINAL), VersionId=ours)["ObjectLockMode"] == "COMPLIANCE"
    assert "ObjectLockMode" not in s3.head_object(Bucket=bucket, Key=sha(ORIGINAL), VersionId=forged)


def test_the_same_scan_filed_again_after_an_overwrite_is_pinned_to_the_stored_version(s3_app, s3_bucket, world_of):
    """The key is there already (the conditional PUT writes nothing): the version that holds
    the scan's bytes is found, not the one written last."""
    _, bucket, s3 = s3_bucket
    client, world, session, operator = world_of(s3_app)
    file_with_scans(client, world, [("signed.pdf", ORIGINAL)])
    put_scan(client, world, PNG)
    s3.put_object(Bucket=bucket, Key=sha(ORIGINAL), Body=FORGED)
    s3.put_object(Bucket=bucket, Key=sha(PNG), Body=FORGED_PNG)
    again = file_with_scans(client, world, [("again.pdf", ORIGINAL)])
    manifest_id, document = put_scan(client, world, PNG)
    pinned = {(d.manifest_id, d.sha256): d.object_version_id for d in session.scalars(select(Document))}
    assert pinned[(uuid.UUID(again.json["id"]), sha(ORIGINAL))] == versions(s3, bucket, sha(ORIGINAL))[0]
    assert pinned[(uuid.UUID(manifest_id), sha(PNG))] == versions(s3, bucket, sha(PNG))[0]
    fetched = client.get(f"/v1/manifests/{manifest_id}/documents/{document['id']}", headers=factories.bearer(operator))
    assert fetched.data == PNG


def assert_integrity_problem(response, forged):
    assert response.status_code == 502, response.status_code
    assert response.mimetype == "application/problem+json"
    assert response.json["type"] == "https://fogx.test/problems/stored-scan-altered"
    assert "integrity check" in response.json["detail"]
    assert forged not in response.data


def test_a_scan_whose_stored_bytes_changed_is_a_502_and_never_served(make_app, world_of, tmp_path, capfd):
    """A folder keeps one copy: bytes written over a scan's file are found out by its SHA-256,
    before any is sent, and the error is logged."""
    app = make_app(STORAGE_DIR=str(tmp_path / "objects"))
    client, world, session, operator = world_of(app)
    filed = file_with_scans(client, world, [("signed.pdf", ORIGINAL)])
    path = tmp_path / "objects" / sha(ORIGINAL)[:2] / sha(ORIGINAL)
    tampered = ORIGINAL.replace(b"ReportLab Generated", b"ReportLab Tampered!")
    assert len(tampered) == len(ORIGINAL) and tampered != ORIGINAL  # the same size: only the hash tells
    path.write_bytes(tampered)
    capfd.readouterr()
    document = f"/v1/manifests/{filed.json['id']}/documents/{filed.json['documents'][0]['id']}"
    assert_integrity_problem(client.get(document, headers=factories.bearer(operator)), tampered)
    assert "STORED SCAN FAILED ITS INTEGRITY CHECK" in capfd.readouterr().err
    for fmt in ("pdf", "zip"):
        assert_integrity_problem(records(client, world, operator, fmt), tampered)
    verified = app.test_cli_runner().invoke(args=["records", "verify", str(world.device.fse_id)])
    assert verified.exit_code == 1 and "does not match its SHA-256" in verified.output
    path.write_bytes(ORIGINAL + b"more")  # longer than the scan
    assert_integrity_problem(client.get(document, headers=factories.bearer(operator)), b"more")


def test_a_bucket_without_versions_answers_502_for_an_overwritten_scan(make_app, s3_endpoint, world_of):
    import boto3

    s3 = boto3.client("s3", endpoint_url=s3_endpoint, region_name="us-west-1")
    bucket = f"fogx-plain-{uuid.uuid4().hex[:12]}"
    s3.create_bucket(Bucket=bucket, CreateBucketConfiguration={"LocationConstraint": "us-west-1"})
    app = make_app(
        STORAGE_BACKEND="s3", S3_ENDPOINT_URL=s3_endpoint, S3_BUCKET=bucket, S3_REGION="us-west-1", S3_OBJECT_LOCK="off"
    )
    client, world, session, operator = world_of(app)
    filed = file_with_scans(client, world, [("signed.pdf", ORIGINAL)])
    assert session.scalars(select(Document.object_version_id)).all() == [None]
    s3.put_object(Bucket=bucket, Key=sha(ORIGINAL), Body=FORGED)
    document = f"/v1/manifests/{filed.json['id']}/documents/{filed.json['documents'][0]['id']}"
    assert_integrity_problem(client.get(document, headers=factories.bearer(operator)), FORGED)


def test_a_large_scan_goes_up_in_parts_and_is_pinned(s3_bucket, monkeypatch, tmp_path):
    """Above the multipart threshold the version comes from the upload's completion."""
    from storage import objects

    endpoint, bucket, s3 = s3_bucket
    monkeypatch.setattr(objects, "MULTIPART_THRESHOLD", 1024 * 1024)
    monkeypatch.setattr(objects, "MULTIPART_CHUNK", 5 * 1024 * 1024)
    data = b"%PDF-1.4\n" + os.urandom(6 * 1024 * 1024)
    path = tmp_path / "large.pdf"
    path.write_bytes(data)
    store = objects.S3Store(bucket=bucket, endpoint_url=endpoint, region="us-west-1")
    stored = store.put_file(sha(data), str(path), "application/pdf")
    assert stored.wrote and stored.version_id == versions(s3, bucket, sha(data))[0]
    s3.put_object(Bucket=bucket, Key=sha(data), Body=b"other bytes")
    assert store.put_file(sha(data), str(path), "application/pdf") == (False, stored.version_id)
    with store.open(sha(data), stored.version_id) as body:
        assert body.read() == data
