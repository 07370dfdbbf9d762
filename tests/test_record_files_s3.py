"""A restaurant's binder and ZIP kept in S3, the production store: its key names the record's
state, not the file's bytes, so the file's own SHA-256 is what S3 checks it against."""

import base64
import hashlib
from datetime import timedelta

from sqlalchemy.orm import Session

from tests import factories
from tests.conftest import https_client
from tests.fake_s3 import fake_s3
from tests.manifest_world import NOW, build, filed

PDF = factories.pdf_bytes()


def test_a_binder_and_a_zip_are_kept_in_s3_and_served_again_from_there(s3_app, s3_bucket, frozen_clock):
    _, bucket, s3 = s3_bucket
    frozen_clock(NOW)
    client = https_client(s3_app)
    session = Session(bind=s3_app.extensions["fogx.engine"], expire_on_commit=False)
    world = build(client, session)
    filed(world, completed=NOW - timedelta(hours=3))
    operator = factories.token(client, *factories.oauth_client(session, role="fse", subject=[world.device.fse_id]))

    def download(kind):
        response = client.get(
            f"/v1/fses/{world.device.fse_id}/records", query_string={"format": kind}, headers=factories.bearer(operator)
        )
        assert response.status_code == 200, response.data[:300]
        return response.data

    for kind in ("pdf", "zip"):
        first = download(kind)
        frozen_clock(NOW + timedelta(minutes=5))  # the record unchanged: the kept copy
        assert download(kind) == first
        [key] = [
            item["Key"]
            for item in s3.list_objects_v2(Bucket=bucket).get("Contents", [])
            if item["Key"].startswith("record-") and item["Key"].endswith(f".{kind}")
        ]
        assert s3.get_object(Bucket=bucket, Key=key)["Body"].read() == first
        frozen_clock(NOW)
    session.close()


def test_a_file_whose_key_is_not_its_hash_goes_to_s3_with_its_own_sha256(tmp_path, monkeypatch):
    """The checksum S3 verifies the bytes against is the file's SHA-256, not read from the key."""
    from storage.objects import S3Store

    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
    binder = tmp_path / "binder.pdf"
    binder.write_bytes(PDF)
    with fake_s3() as (endpoint, received):
        S3Store(bucket="records", endpoint_url=endpoint, region="us-west-1").put_file(
            "record-0c1d.pdf", str(binder), "application/pdf"
        )
    [(headers, data)] = received
    assert data == PDF and headers[b"If-None-Match"] == b"*"
    assert headers[b"x-amz-checksum-sha256"] == base64.b64encode(hashlib.sha256(PDF).digest())
