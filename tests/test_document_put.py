"""A scan PUT as the raw body to its SHA-256: streamed into S3 while it arrives, then checked."""

import base64
import contextlib
import hashlib
import http.client
import io
import os
import queue
import re
import socket
import threading
from datetime import timedelta
from urllib.parse import urlsplit

import pytest
from sqlalchemy import func, select, text

from storage.models import Document, OutboxEntry
from tests import factories
from tests.conftest import _free_port, https_client, serve
from tests.fake_s3 import fake_s3, listening
from tests.manifest_world import NOW, build

PDF = factories.pdf_bytes("PUT SCAN")
PNG = factories.png_bytes()
ELF = b"\x7fELF\x02\x01\x01" + b"\x00" * 64


def sha(data):
    return hashlib.sha256(data).hexdigest()


def big_png(side=600):
    """About a megabyte that does not compress: fresh bytes every call."""
    import io

    from PIL import Image

    out = io.BytesIO()
    Image.frombytes("RGB", (side, side), os.urandom(side * side * 3)).save(out, format="PNG", compress_level=0)
    return out.getvalue()


def world_of(app, frozen_clock):
    """(client, world, session) of an app, at NOW."""
    from sqlalchemy.orm import Session

    frozen_clock(NOW)
    client = https_client(app)
    session = Session(bind=app.extensions["fogx.engine"], expire_on_commit=False)
    return client, build(client, session), session


@pytest.fixture(params=["local", "s3"])
def put_world(request, make_app, frozen_clock):
    """The same checks against both stores: the local folder spools first, S3 streams."""
    if request.param == "s3":
        endpoint, bucket, _ = request.getfixturevalue("s3_bucket")
        app = make_app(
            STORAGE_BACKEND="s3",
            S3_ENDPOINT_URL=endpoint,
            S3_BUCKET=bucket,
            S3_REGION="us-west-1",
            S3_OBJECT_LOCK="compliance",
        )
    else:
        app = make_app()
    client, world, session = world_of(app, frozen_clock)
    manifest_id = world.post(world.body()).json["id"]
    yield app, client, world, session, manifest_id
    session.close()


def put(client, world, manifest_id, key, data, **headers):
    return client.put(
        f"/v1/manifests/{manifest_id}/documents/{key}",
        data=data,
        headers={**factories.bearer(world.hauler_token), "Content-Type": "application/pdf", **headers},
    )


def stored(app):
    return sorted(key for key, _ in app.extensions["fogx.store"].keys())


def test_a_scan_put_to_its_sha256_is_attached_locked_and_read_back(put_world):
    app, client, world, session, manifest_id = put_world
    response = put(
        client,
        world,
        manifest_id,
        sha(PDF),
        PDF,
        **{"Content-Disposition": 'attachment; filename="signed manifest.pdf"'},
    )
    assert response.status_code == 201, response.json
    document = response.json
    assert (document["sha256"], document["size_bytes"], document["content_type"], document["filename"]) == (
        sha(PDF),
        len(PDF),
        "application/pdf",
        "signed manifest.pdf",
    )
    assert response.headers["Location"].endswith(f"/v1/manifests/{manifest_id}/documents/{document['id']}")
    assert stored(app) == [sha(PDF)]
    for name in (document["id"], sha(PDF)):
        fetched = client.get(
            f"/v1/manifests/{manifest_id}/documents/{name}", headers=factories.bearer(world.hauler_token)
        )
        assert fetched.status_code == 200 and fetched.data == PDF
    receipt = client.get(f"/v1/manifests/{manifest_id}", headers=factories.bearer(world.hauler_token)).json
    assert [d["id"] for d in receipt["documents"]] == [document["id"]]
    locks = session.scalars(select(OutboxEntry.payload)).all()
    # Records are kept three years (exchange policy; Victorville 10.03.170(c) asks two); the lock
    # runs from the service day.
    assert {"key": sha(PDF), "retain_until": NOW.date().replace(year=NOW.year + 3).isoformat()} in locks


def test_the_same_sha256_again_answers_the_attached_document_without_reading_the_body(put_world):
    app, client, world, session, manifest_id = put_world
    first = put(client, world, manifest_id, sha(PDF), PDF)
    again = put(client, world, manifest_id, sha(PDF), ELF)
    assert (first.status_code, again.status_code) == (201, 200)
    assert again.json == first.json
    assert session.scalar(select(func.count()).select_from(Document)) == 1
    assert stored(app) == [sha(PDF)]


def test_the_same_scan_put_by_eight_clients_at_once_is_one_document(put_world):
    """A dispatch client retrying a PUT it thinks lost races its first attempt."""
    from concurrent.futures import ThreadPoolExecutor

    app, client, world, session, manifest_id = put_world
    scan = big_png(300)
    path = f"/v1/manifests/{manifest_id}/documents/{sha(scan)}"
    with serve(app) as base, ThreadPoolExecutor(8) as pool:
        statuses = sorted(pool.map(lambda _: _raw_put(base, path, world.hauler_token, [scan], len(scan))[0], range(8)))
    assert statuses == [200] * 7 + [201]
    assert session.scalar(select(func.count()).select_from(Document)) == 1
    assert stored(app) == [sha(scan)]


def test_bytes_that_do_not_hash_to_the_path_are_422_and_not_kept(put_world):
    app, client, world, session, manifest_id = put_world
    response = put(client, world, manifest_id, sha(PNG), PDF)
    assert response.status_code == 422 and response.mimetype == "application/problem+json"
    assert sha(PDF) in response.json["errors"]["sha256"][0]
    assert stored(app) == []
    assert session.scalar(select(func.count()).select_from(Document)) == 0
    big, other = big_png(), big_png()  # more than is read before the store's PUT begins
    assert put(client, world, manifest_id, sha(other), big).status_code == 422
    assert stored(app) == []
    # The key stays free for the right bytes.
    assert put(client, world, manifest_id, sha(PNG), PNG).status_code == 201
    assert stored(app) == [sha(PNG)]


def test_a_truncated_pdf_under_its_own_hash_is_422_and_not_kept(put_world):
    app, client, world, session, manifest_id = put_world
    torso = PDF[: len(PDF) // 2]
    response = put(client, world, manifest_id, sha(torso), torso)
    assert response.status_code == 422 and "end-of-file" in response.json["errors"]["body"][0]
    assert stored(app) == []
    assert session.scalar(select(func.count()).select_from(Document)) == 0


def test_what_is_no_scan_is_415_and_what_is_empty_is_422(put_world):
    app, client, world, session, manifest_id = put_world
    no_scan = put(client, world, manifest_id, sha(ELF), ELF)
    empty = put(client, world, manifest_id, sha(b""), b"")
    malformed = put(client, world, manifest_id, sha(PDF).upper(), PDF)
    assert (no_scan.status_code, empty.status_code, malformed.status_code) == (415, 422, 422)
    assert {r.mimetype for r in (no_scan, empty, malformed)} == {"application/problem+json"}
    assert "body" in empty.json["errors"] and "sha256" in malformed.json["errors"]
    assert stored(app) == []


def test_only_the_manifests_hauler_may_put_a_scan(put_world):
    app, client, world, session, manifest_id = put_world
    rival = factories.token(
        client, *factories.oauth_client(session, role="hauler", subject=[factories.hauler(session).id])
    )
    refused = client.put(f"/v1/manifests/{manifest_id}/documents/{sha(PDF)}", data=PDF, headers=factories.bearer(rival))
    assert refused.status_code == 404
    assert stored(app) == []


def test_a_body_over_the_limit_is_413_declared_or_chunked(make_app, frozen_clock, tmp_path):
    app = make_app(MAX_UPLOAD_BYTES=256 * 1024, STORAGE_DIR=str(tmp_path / "small"))
    client, world, session = world_of(app, frozen_clock)
    manifest_id = world.post(world.body()).json["id"]
    big = big_png(400)
    url = f"/v1/manifests/{manifest_id}/documents/{sha(big)}"
    with serve(app) as base:
        declared = _raw_put(base, url, world.hauler_token, [big], length=len(big))
        chunked = _raw_put(base, url, world.hauler_token, [big[i : i + 65536] for i in range(0, len(big), 65536)])
    assert declared[:2] == chunked[:2] == (413, "application/problem+json")
    assert stored(app) == []
    assert session.scalar(select(func.count()).select_from(Document)) == 0
    session.close()


def test_a_chunked_scan_is_spooled_and_stored(s3_app, frozen_clock):
    client, world, session = world_of(s3_app, frozen_clock)
    manifest_id = world.post(world.body()).json["id"]
    url = f"/v1/manifests/{manifest_id}/documents/{sha(PDF)}"
    with serve(s3_app) as base:
        status, _, _ = _raw_put(base, url, world.hauler_token, [PDF[:100], PDF[100:]])
    assert status == 201
    assert stored(s3_app) == [sha(PDF)]
    session.close()


def test_the_put_to_s3_starts_before_the_body_has_arrived(make_app, s3_bucket, frozen_clock):
    """Half the scan is sent; the store's PUT must begin before the other half is."""
    endpoint, bucket, s3 = s3_bucket
    with _relay(endpoint) as (relayed, requests_seen, _):
        app, world, session, manifest_id = _filed_behind(relayed, bucket, make_app, frozen_clock)
        scan = big_png(1200)  # 4 MiB: more blocks than may wait to be spooled at once
        half = len(scan) // 2
        with serve(app) as base:
            connection = _open_put(
                base, f"/v1/manifests/{manifest_id}/documents/{sha(scan)}", world.hauler_token, len(scan)
            )
            connection.send(scan[:half])
            while not (started := requests_seen.get(timeout=20)).startswith(b"PUT "):
                pass  # the PUT waited for the whole body when none comes before the rest is sent
            assert started.startswith(f"PUT /{bucket}/{sha(scan)} ".encode()), started
            connection.send(scan[half:])
            response = connection.getresponse()
            assert response.status == 201, response.read()
    assert s3.get_object(Bucket=bucket, Key=sha(scan))["Body"].read() == scan
    session.close()


@pytest.mark.postgresql_only
def test_no_transaction_is_open_while_a_scan_goes_up_to_s3(make_app, s3_bucket, frozen_clock):
    """A scan's rows are written once S3 holds its checked bytes: an upload over a slow link
    holds no transaction open (no row locked, no vacuum held back) while its body arrives."""
    endpoint, bucket, s3 = s3_bucket
    with _relay(endpoint) as (relayed, _, forwarded):
        app, world, session, manifest_id = _filed_behind(relayed, bucket, make_app, frozen_clock)
        session.commit()
        scan = big_png(1200)
        with serve(app) as base:
            connection = _open_put(
                base, f"/v1/manifests/{manifest_id}/documents/{sha(scan)}", world.hauler_token, len(scan)
            )
            connection.send(scan[: 3 * len(scan) // 4])
            # Past the blocks that may wait to be spooled: the upload's own work has begun.
            for _ in range(200):
                if forwarded[0] > 2 * 2**20:
                    break
                threading.Event().wait(0.05)
            assert forwarded[0] > 2 * 2**20
            open_transactions = session.scalar(
                text(
                    "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
                    "AND state LIKE 'idle in transaction%'"
                )
            )
            session.commit()
            connection.send(scan[3 * len(scan) // 4 :])
            response = connection.getresponse()
            assert response.status == 201, response.read()
    assert open_transactions == 0
    assert session.scalar(select(func.count()).select_from(Document)) == 1
    assert s3.get_object(Bucket=bucket, Key=sha(scan))["Body"].read() == scan
    session.close()


def _filed_behind(relayed, bucket, make_app, frozen_clock):
    """An app whose store is reached through the relay at `relayed`, and a manifest filed on it."""
    app = make_app(
        STORAGE_BACKEND="s3",
        S3_ENDPOINT_URL=relayed,
        S3_BUCKET=bucket,
        S3_REGION="us-west-1",
        OUTBOX_INTERVAL_SECONDS=0,
    )
    _, world, session = world_of(app, frozen_clock)
    return app, world, session, world.post(world.body()).json["id"]


@contextlib.contextmanager
def _relay(endpoint):
    """A TCP relay in front of `endpoint`; a queue of the first line of each connection's first
    request as it arrives (what the store has begun to send, seen on the wire); and, in a
    one-item list, how many bytes have gone through to the store."""
    target = urlsplit(endpoint)
    seen = queue.Queue()
    forwarded = [0]

    def pump(source, sink, first_line=None):
        try:
            while data := source.recv(65536):
                if first_line is not None:
                    forwarded[0] += len(data)
                    if not first_line:
                        first_line.append(data.split(b"\r\n", 1)[0])
                        seen.put(first_line[0])
                sink.sendall(data)
        except OSError:
            pass
        finally:
            with contextlib.suppress(OSError):
                sink.shutdown(socket.SHUT_WR)

    def relay(inbound):
        outbound = socket.create_connection((target.hostname, target.port))
        threading.Thread(target=pump, args=(inbound, outbound, []), daemon=True).start()
        threading.Thread(target=pump, args=(outbound, inbound), daemon=True).start()

    with listening(relay) as address:
        yield address, seen, forwarded


def test_a_client_gone_mid_upload_is_400_and_nothing_is_stored(s3_app, frozen_clock):
    client, world, session = world_of(s3_app, frozen_clock)
    manifest_id = world.post(world.body()).json["id"]
    assert gone_mid_upload(s3_app, manifest_id, world.hauler_token) == (400, "application/problem+json")
    assert stored(s3_app) == []
    assert session.scalar(select(func.count()).select_from(Document)) == 0
    session.close()


def test_a_client_gone_mid_upload_to_the_local_store_is_400_and_nothing_is_stored(make_app, frozen_clock):
    """A store that cannot take a body as it arrives gets it spooled first: the body is read up
    to its declared length, and one that ends before it is refused as such, not checked."""
    app = make_app()
    client, world, session = world_of(app, frozen_clock)
    manifest_id = world.post(world.body()).json["id"]
    assert gone_mid_upload(app, manifest_id, world.hauler_token) == (400, "application/problem+json")
    assert stored(app) == []
    assert session.scalar(select(func.count()).select_from(Document)) == 0
    session.close()


def test_a_client_gone_while_the_store_is_down_is_400(make_app, frozen_clock):
    app = store_down(make_app)
    client, world, session = world_of(app, frozen_clock)
    manifest_id = world.post(world.body()).json["id"]
    assert gone_mid_upload(app, manifest_id, world.hauler_token) == (400, "application/problem+json")
    assert session.scalar(select(func.count()).select_from(Document)) == 0
    session.close()


def gone_mid_upload(app, manifest_id, token):
    """(status, content type) answered to a client that sends a third of a scan and stops."""
    scan = big_png()
    with serve(app) as base:
        connection = _open_put(base, f"/v1/manifests/{manifest_id}/documents/{sha(scan)}", token, len(scan))
        connection.send(scan[: len(scan) // 3])
        connection.sock.shutdown(socket.SHUT_WR)  # no more bytes will come
        response = connection.getresponse()
        response.read()
        return response.status, response.getheader("Content-Type")


def store_down(make_app):
    """An app whose S3 endpoint is a port nobody listens on."""
    return make_app(
        STORAGE_BACKEND="s3",
        S3_ENDPOINT_URL=f"http://127.0.0.1:{_free_port()}",
        S3_BUCKET="nowhere",
        S3_REGION="us-west-1",
    )


def test_the_store_down_is_503_and_bytes_that_do_not_match_are_still_422(make_app, frozen_clock):
    app = store_down(make_app)
    client, world, session = world_of(app, frozen_clock)
    manifest_id = world.post(world.body()).json["id"]
    down = put(client, world, manifest_id, sha(PDF), PDF)
    assert down.status_code == 503 and int(down.headers["Retry-After"]) > 0
    mismatched = put(client, world, manifest_id, sha(PNG), PDF)
    assert mismatched.status_code == 422
    assert session.scalar(select(func.count()).select_from(Document)) == 0
    session.close()


def test_a_store_that_answers_412_before_the_body_still_gets_the_scan_read_and_checked(
    make_app, frozen_clock, monkeypatch
):
    """S3 may answer `Expect: 100-continue` with 412 at once when the key exists, before any
    of the body is sent: the scan is still read whole from the client, hashed, checked and
    attached (the object being there already)."""
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
    with _answering_412() as endpoint:
        app = make_app(
            STORAGE_BACKEND="s3",
            S3_ENDPOINT_URL=endpoint,
            S3_BUCKET="there",
            S3_REGION="us-west-1",
            OUTBOX_INTERVAL_SECONDS=0,
        )
        client, world, session = world_of(app, frozen_clock)
        manifest_id = world.post(world.body()).json["id"]
        scan = big_png(200)
        response = put(client, world, manifest_id, sha(scan), scan)
        assert response.status_code == 201, response.json
        assert (response.json["sha256"], response.json["size_bytes"]) == (sha(scan), len(scan))
        other = big_png(200)
        assert put(client, world, manifest_id, sha(scan), other).status_code == 200  # attached already
        wrong = put(client, world, manifest_id, sha(big_png(200)), other)
        assert wrong.status_code == 422 and sha(other) in wrong.json["errors"]["sha256"][0]
        session.close()


@contextlib.contextmanager
def _answering_412():
    """An S3 endpoint for which every key exists: each PUT is answered 412 after its headers."""
    with fake_s3(stored_already=True) as (endpoint, _):
        yield endpoint


def test_a_put_is_signed_conditional_checksummed_and_only_a_file_waits_for_100_continue(tmp_path, monkeypatch):
    """One signed PUT each, conditional, the content's SHA-256 (the key) as the checksum S3
    verifies against the bytes it receives, the body not hashed again for the signature; a
    file waits for `100 Continue` (S3 may refuse it unsent), a stream does not."""
    from storage.objects import S3Store
    from storage.uploads import HashingSpool, Passing

    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
    monkeypatch.setenv("AWS_SESSION_TOKEN", "a-role-session")  # as an instance or task role has
    with fake_s3() as (endpoint, received):
        store = S3Store(bucket="scans", endpoint_url=endpoint, region="us-west-1")
        spool = HashingSpool(10 * 2**20, directory=tmp_path)
        try:
            assert store.put_stream(sha(PNG), Passing(io.BytesIO(PNG), spool, len(PNG)), len(PNG), "image/png").wrote
        finally:
            spool.close()
        scan = tmp_path / "scan.pdf"
        scan.write_bytes(PDF)
        store.put_file(sha(PDF), str(scan), "application/pdf")
    (streamed, png), (from_file, pdf) = received
    assert (png, pdf) == (PNG, PDF)
    assert "Expect" not in streamed and from_file[b"Expect"] == b"100-continue"
    for headers, data in received:
        assert headers[b"If-None-Match"] == b"*"
        assert headers[b"x-amz-checksum-sha256"] == base64.b64encode(hashlib.sha256(data).digest())
        assert headers[b"X-Amz-Content-SHA256"] == b"UNSIGNED-PAYLOAD"
        assert headers[b"Authorization"].startswith(b"AWS4-HMAC-SHA256 Credential=testing/")
        assert b"/us-west-1/s3/aws4_request" in headers[b"Authorization"]
        assert b"x-amz-checksum-sha256" in headers[b"Authorization"]  # a signed header
        assert headers[b"X-Amz-Security-Token"] == b"a-role-session"


def test_a_file_is_sent_again_when_s3_is_busy_and_a_stream_is_not(tmp_path, monkeypatch):
    from storage.objects import S3Store, StoreUnavailable
    from storage.uploads import HashingSpool, Passing

    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
    scan = tmp_path / "scan.pdf"
    scan.write_bytes(PDF)
    with fake_s3(busy=2) as (endpoint, received):
        S3Store(bucket="scans", endpoint_url=endpoint, region="us-west-1").put_file(
            sha(PDF), str(scan), "application/pdf"
        )
    assert [body for _, body in received] == [PDF, PDF, PDF]  # the whole file each time
    with fake_s3(busy=1) as (endpoint, received):
        store = S3Store(bucket="scans", endpoint_url=endpoint, region="us-west-1")
        spool = HashingSpool(10 * 2**20, directory=tmp_path)
        try:
            with pytest.raises(StoreUnavailable, match="503 SlowDown"):
                store.put_stream(sha(PNG), Passing(io.BytesIO(PNG), spool, len(PNG)), len(PNG), "image/png")
        finally:
            spool.close()
    assert len(received) == 1
    with fake_s3(busy=3) as (endpoint, received):
        with pytest.raises(StoreUnavailable, match="503 SlowDown"):
            S3Store(bucket="scans", endpoint_url=endpoint, region="us-west-1").put_file(
                sha(PDF), str(scan), "application/pdf"
            )
    assert len(received) == 3


def test_a_put_goes_where_the_client_addresses_the_bucket(s3_bucket, monkeypatch):
    """Virtual-hosted on AWS, path-style on an endpoint of its own, as the boto3 client
    resolves them; and the bytes land where the client reads them."""
    from storage.objects import S3Store

    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
    on_aws = S3Store(bucket="fogx-scans", region="us-west-1")
    assert on_aws._put().base == "https://fogx-scans.s3.us-west-1.amazonaws.com/"
    endpoint, bucket, s3 = s3_bucket
    store = S3Store(bucket=bucket, endpoint_url=endpoint, region="us-west-1")
    assert store._put().base == f"{endpoint}/{bucket}/"
    stored = store.put_stream(sha(PNG), io.BytesIO(PNG), len(PNG), "image/png")
    assert stored.wrote is True and stored.version_id
    assert s3.get_object(Bucket=bucket, Key=sha(PNG))["Body"].read() == PNG
    again = store.put_stream(sha(PNG), io.BytesIO(PNG), len(PNG), "image/png")
    assert again == (False, stored.version_id)  # stored already, as that version


def _open_put(base, path, token, length):
    address = urlsplit(base)
    connection = http.client.HTTPConnection(address.hostname, address.port, timeout=30)
    connection.putrequest("PUT", path)
    connection.putheader("Authorization", f"Bearer {token}")
    connection.putheader("Content-Type", "image/png")
    connection.putheader("Content-Length", str(length))
    connection.endheaders()
    return connection


def _raw_put(base, path, token, pieces, length=None):
    """(status, content type, body) of a PUT of `pieces`: with `length` declared, else chunked."""
    address = urlsplit(base)
    connection = http.client.HTTPConnection(address.hostname, address.port, timeout=30)
    headers = {"Authorization": f"Bearer {token}", "Content-Type": "image/png"}
    if length is not None:
        headers["Content-Length"] = str(length)
        connection.request("PUT", path, body=b"".join(pieces), headers=headers)
    else:
        connection.request("PUT", path, body=iter(pieces), headers=headers, encode_chunked=True)
    response = connection.getresponse()
    try:
        return response.status, response.getheader("Content-Type"), response.read()
    finally:
        connection.close()


def test_a_scan_answers_for_its_token_then_its_manifest(put_world, frozen_clock):
    """The hauler's own manifest, its scan attached already; 404 for another hauler or an id
    that is none; 401 for an unknown, expired or revoked token (from the moment the revocation
    is answered)."""
    app, client, world, session, manifest_id = put_world
    assert put(client, world, manifest_id, sha(PDF), PDF).status_code == 201
    again = put(client, world, manifest_id, sha(PDF), PDF)
    assert again.status_code == 200 and again.json["sha256"] == sha(PDF)
    rival = factories.token(
        client, *factories.oauth_client(session, role="hauler", subject=[factories.hauler(session).id])
    )
    assert (
        client.put(
            f"/v1/manifests/{manifest_id}/documents/{sha(PNG)}", data=PNG, headers=factories.bearer(rival)
        ).status_code
        == 404
    )
    assert put(client, world, "not-a-manifest", sha(PNG), PNG).status_code == 404
    unknown = client.put(
        f"/v1/manifests/{manifest_id}/documents/{sha(PNG)}", data=PNG, headers=factories.bearer("never-issued")
    )
    assert unknown.status_code == 401
    frozen_clock(NOW + timedelta(hours=2))  # the token has expired
    expired = put(client, world, manifest_id, sha(PNG), PNG)
    assert expired.status_code == 401 and 'error="invalid_token"' in expired.headers["WWW-Authenticate"]
    frozen_clock(NOW)
    assert client.post("/oauth/revoke", data={"token": world.hauler_token}, auth=world.credentials).status_code == 200
    assert put(client, world, manifest_id, sha(PNG), PNG).status_code == 401
    assert stored(app) == [sha(PDF)]


def test_a_stream_goes_to_s3_in_blocks_of_256_kib_as_it_came(monkeypatch):
    """The HTTP connection would read a file-like body 16 KiB a call; the PUT asks for whole
    blocks, and the blocks `Passing` read from the request go on uncopied."""
    from storage.objects import S3Store
    from storage.uploads import HashingSpool, Passing

    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
    data = os.urandom(700 * 1024)

    class Source(io.BytesIO):
        blocks = []

        def read(self, size=-1):
            block = super().read(size)
            self.blocks.append(block)
            return block

    class Watched(Passing):
        given = []

        def read(self, size=-1):
            block = super().read(size)
            self.given.append((size, block))
            return block

    spool = HashingSpool(10 * 2**20)
    try:
        passing = Watched(Source(data), spool, len(data))
        with fake_s3() as (endpoint, received):
            store = S3Store(bucket="scans", endpoint_url=endpoint, region="us-west-1")
            assert store.put_stream(sha(data), passing, len(data), "image/png").wrote
    finally:
        spool.close()
    assert received[0][1] == data
    sizes = {size for size, _ in Watched.given}
    assert sizes == {256 * 1024}
    sent = [block for _, block in Watched.given if block]
    assert [len(block) for block in sent] == [256 * 1024, 256 * 1024, 188 * 1024]
    assert all(out is read for out, read in zip(sent, Source.blocks))


def test_a_small_scan_is_spooled_in_memory_and_a_large_one_on_disk(tmp_path):
    """Up to the spool's memory the bytes never touch the disk; past it, or once a path is
    asked for, they move to a file at the same position, and closing removes it. The checks
    read either."""
    from storage.uploads import HashingSpool

    png = big_png(300)
    small = HashingSpool(10 * 2**20, directory=tmp_path, memory=len(png))
    small.write(png[:1000])
    small.write(png[1000:])
    assert not small.on_disk and list(tmp_path.iterdir()) == []
    assert small.sha256 == sha(png) and small.size == len(png)
    assert small.defect("image/png") is None
    small.seek(0)
    assert small.read() == png
    small.close()

    large = HashingSpool(10 * 2**20, directory=tmp_path, memory=len(png) - 1)
    large.write(png[:-100])
    assert not large.on_disk
    large.write(png[-100:])
    assert large.on_disk and large.tell() == len(png)
    large.flush()
    (spooled,) = tmp_path.iterdir()
    assert spooled.read_bytes() == png and large.path == str(spooled)
    assert large.defect("image/png") is None
    large.close()
    assert list(tmp_path.iterdir()) == []

    torso = HashingSpool(10 * 2**20, directory=tmp_path, memory=len(PDF))
    torso.write(PDF[:-20])
    assert torso.defect("application/pdf").startswith("the PDF has no end-of-file marker")
    asked = HashingSpool(10 * 2**20, directory=tmp_path, memory=len(PNG))
    asked.write(PNG)
    assert not asked.on_disk
    path = asked.path  # a path moves it to disk
    asked.flush()
    assert open(path, "rb").read() == PNG
    form_part = HashingSpool(10 * 2**20, directory=tmp_path)  # a form's files: any number of them
    form_part.write(PNG)
    assert form_part.on_disk
    for spool in (torso, asked, form_part):
        spool.close()
    assert list(tmp_path.iterdir()) == []


def test_puts_follow_the_bucket_to_the_region_s3_names(tmp_path, monkeypatch):
    """Configured for us-west-1 with the bucket in eu-west-1, S3 answers the first PUT with
    the bucket's region: a file is sent again at once, signed for it; a stream, read once, is
    refused for its client to retry, and the PUTs after it are signed for eu-west-1."""
    from storage.objects import S3Store, StoreUnavailable
    from storage.uploads import HashingSpool, Passing

    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
    scan = tmp_path / "scan.pdf"
    scan.write_bytes(PDF)

    def signed_for(headers):
        return re.search(rb"/\d{8}/([a-z0-9-]+)/s3/", headers[b"Authorization"]).group(1).decode()

    with fake_s3(region="eu-west-1") as (endpoint, received):
        S3Store(bucket="scans", endpoint_url=endpoint, region="us-west-1").put_file(
            sha(PDF), str(scan), "application/pdf"
        )
    assert [(signed_for(headers), body) for headers, body in received] == [("us-west-1", b""), ("eu-west-1", PDF)]

    with fake_s3(region="eu-west-1") as (endpoint, received):
        store = S3Store(bucket="scans", endpoint_url=endpoint, region="us-west-1")
        for attempt in range(2):
            spool = HashingSpool(10 * 2**20)
            try:
                passing = Passing(io.BytesIO(PNG), spool, len(PNG))
                if attempt == 0:
                    with pytest.raises(StoreUnavailable, match="PermanentRedirect"):
                        store.put_stream(sha(PNG), passing, len(PNG), "image/png")
                else:
                    assert store.put_stream(sha(PNG), passing, len(PNG), "image/png").wrote
            finally:
                spool.close()
    assert [(signed_for(headers), body) for headers, body in received] == [("us-west-1", PNG), ("eu-west-1", PNG)]
