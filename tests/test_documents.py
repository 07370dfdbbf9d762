"""Scans: streamed, sniffed, content-addressed, locked in S3 for the retention period."""

import hashlib
import io
import json
import logging
import os
import sys
import threading
import time
from datetime import UTC, date, datetime, timedelta

import pytest
import requests
from sqlalchemy import func, select, text

from storage.models import Document, Manifest, OutboxEntry
from tests import factories
from tests.conftest import https_client, serve
from tests.manifest_world import NOW, build, post_multipart

PDF = factories.pdf_bytes()
PNG = factories.png_bytes()
ELF = b"\x7fELF\x02\x01\x01" + b"\x00" * 64


def sha(data):
    return hashlib.sha256(data).hexdigest()


@pytest.fixture
def world(client, session, frozen_clock):
    frozen_clock(NOW)
    return build(client, session)


def objects(app):
    return sorted(key for key, _ in app.extensions["fogx.store"].keys())


def test_manifest_with_scans_in_one_call(app, world):
    response = post_multipart(world, world.body(), [("manifest.pdf", PDF), ("truck.png", PNG)])
    assert response.status_code == 201, response.json
    docs = response.json["documents"]
    assert [(d["sha256"], d["content_type"], d["size_bytes"]) for d in docs] == [
        (sha(PDF), "application/pdf", len(PDF)),
        (sha(PNG), "image/png", len(PNG)),
    ]
    assert objects(app) == sorted([sha(PDF), sha(PNG)])
    path = f"/v1/manifests/{response.json['id']}/documents/{docs[0]['id']}"
    fetched = world.client.get(path, headers=factories.bearer(world.hauler_token))
    assert fetched.status_code == 200 and fetched.data == PDF
    assert fetched.headers["Content-Type"] == "application/pdf"
    assert fetched.headers["Content-Length"] == str(len(PDF))
    assert fetched.headers["ETag"] == f'"{sha(PDF)}"'
    assert fetched.headers["Cache-Control"] == "no-store"


def test_the_second_load_of_a_service_filed_with_its_scan(app, client, session, frozen_clock):
    """The scan comes with the load that completes a pump-down: the first load's findings are
    refreshed (its neighbourhood reads the new rows) and the scan is attached to the new one.
    This was a 500."""
    frozen_clock(NOW)
    world = build(client, session, capacity=3000)
    first = world.post(world.body(completed=NOW - timedelta(hours=6), gallons_removed=2500, full_pump_down=False))
    assert [f["code"] for f in first.json["findings"]] == ["partial_pump_down"]
    second = post_multipart(
        world, world.body(completed=NOW - timedelta(hours=3), gallons_removed=500), [("scan.pdf", PDF)]
    )
    assert second.status_code == 201, second.json
    assert second.json["findings"] == [] and [d["sha256"] for d in second.json["documents"]] == [sha(PDF)]
    again = client.get(f"/v1/manifests/{first.json['id']}", headers=factories.bearer(world.hauler_token))
    assert again.json["findings"] == [] and again.json["documents"] == []


def test_content_type_comes_from_the_bytes(world):
    response = post_multipart(world, world.body(), [("photo.jpg", PDF)])
    assert response.json["documents"][0]["content_type"] == "application/pdf"


def test_a_renamed_executable_is_415_and_nothing_is_stored(app, world, session):
    response = post_multipart(world, world.body(), [("scan.pdf", ELF)])
    assert response.status_code == 415 and response.mimetype == "application/problem+json"
    assert session.scalar(select(func.count()).select_from(Manifest)) == 0
    assert objects(app) == []


def test_a_declared_sha256_that_does_not_match_is_422(app, world, session):
    response = post_multipart(world, world.body(), [("scan.pdf", PDF)], documents_sha256="0" * 64)
    assert response.status_code == 422 and "documents.0" in response.json["errors"]
    assert session.scalar(select(func.count()).select_from(Manifest)) == 0
    assert objects(app) == []
    good = post_multipart(world, world.body(), [("scan.pdf", PDF)], documents_sha256=sha(PDF))
    assert good.status_code == 201


def test_the_same_scan_twice_is_stored_once(app, world):
    post_multipart(world, world.body(), [("a.pdf", PDF)])
    post_multipart(world, world.body(), [("b.pdf", PDF)])
    assert objects(app) == [sha(PDF)]


def test_a_retried_filing_with_scans_stores_one_manifest_and_one_object(app, world, session):
    body = world.body()
    first = post_multipart(world, body, [("a.pdf", PDF)])
    again = post_multipart(world, body, [("a.pdf", PDF)])
    assert (first.status_code, again.status_code) == (201, 200)
    assert session.scalar(select(func.count()).select_from(Document)) == 1
    assert objects(app) == [sha(PDF)]


def test_documents_added_later_and_who_may_read_them(world, client, session):
    receipt = world.post(world.body()).json
    added = client.post(
        f"/v1/manifests/{receipt['id']}/documents",
        data={"documents": [(io.BytesIO(PNG), "after.png")]},
        content_type="multipart/form-data",
        headers=factories.bearer(world.hauler_token),
    )
    assert added.status_code == 201
    doc = added.json["documents"][0]
    path = f"/v1/manifests/{receipt['id']}/documents/{doc['id']}"
    fse = factories.token(client, *factories.oauth_client(session, role="fse", subject=[world.device.fse_id]))
    auditor = factories.token(client, *factories.oauth_client(session, role="auditor", subject=["victorville"]))
    rival = factories.token(
        client, *factories.oauth_client(session, role="hauler", subject=[factories.hauler(session).id])
    )
    other_fse = factories.token(
        client, *factories.oauth_client(session, role="fse", subject=[factories.fse(session).id])
    )
    assert client.get(path, headers=factories.bearer(fse)).data == PNG
    assert client.get(path, headers=factories.bearer(auditor)).data == PNG
    assert client.get(path, headers=factories.bearer(rival)).status_code == 404
    assert client.get(path, headers=factories.bearer(other_fse)).status_code == 404
    not_multipart = client.post(
        f"/v1/manifests/{receipt['id']}/documents",
        data=PNG,
        content_type="image/png",
        headers=factories.bearer(world.hauler_token),
    )
    assert not_multipart.status_code == 415


def test_a_chunked_upload_over_the_limit_is_413_and_leaves_nothing(make_app, frozen_clock, tmp_path):
    app = make_app(MAX_UPLOAD_BYTES=256 * 1024, STORAGE_DIR=str(tmp_path / "small"))
    frozen_clock(NOW)
    client = https_client(app)
    from sqlalchemy.orm import Session

    with Session(bind=app.extensions["fogx.engine"], expire_on_commit=False) as session:
        world = build(client, session)
        boundary = "fogxboundary"
        manifest = json.dumps(world.body())

        def chunked_body():
            yield (
                f'--{boundary}\r\nContent-Disposition: form-data; name="manifest"\r\n\r\n'
                f'{manifest}\r\n--{boundary}\r\nContent-Disposition: form-data; name="documents"; '
                f'filename="big.pdf"\r\nContent-Type: application/pdf\r\n\r\n'
            ).encode()
            yield b"%PDF-1.4\n"
            for _ in range(64):  # 4 MiB, far over the 256 KiB limit
                yield b"0" * 65536
            yield f"\r\n--{boundary}--\r\n".encode()

        with serve(app) as base:
            response = requests.post(
                f"{base}/v1/manifests",
                data=chunked_body(),
                timeout=30,
                headers={
                    **factories.bearer(world.hauler_token),
                    "Content-Type": f"multipart/form-data; boundary={boundary}",
                },
            )
        assert response.status_code == 413
        assert response.headers["Content-Type"] == "application/problem+json"
        assert session.scalar(select(func.count()).select_from(Manifest)) == 0
        assert objects(app) == []


def test_the_database_failing_after_the_object_is_written_leaves_no_locked_orphan(s3_app, s3_bucket, frozen_clock):
    _, bucket, s3 = s3_bucket
    frozen_clock(NOW)
    client = https_client(s3_app)
    engine = s3_app.extensions["fogx.engine"]
    from sqlalchemy.orm import Session

    with Session(bind=engine, expire_on_commit=False) as session:
        world = build(client, session)
    with engine.begin() as connection:
        if engine.dialect.name == "postgresql":
            connection.execute(
                text(
                    "CREATE FUNCTION refuse() RETURNS trigger AS $$ BEGIN "
                    "RAISE EXCEPTION 'disk full' USING ERRCODE = 'disk_full'; END $$ "
                    "LANGUAGE plpgsql"
                )
            )
            connection.execute(
                text(
                    "CREATE TRIGGER refuse_documents BEFORE INSERT ON documents FOR EACH ROW EXECUTE FUNCTION refuse()"
                )
            )
        else:
            connection.execute(
                text(
                    "CREATE TRIGGER refuse_documents BEFORE INSERT ON documents "
                    "BEGIN SELECT RAISE(ABORT, 'disk full'); END"
                )
            )
    try:
        response = post_multipart(world, world.body(), [("scan.pdf", PDF)], client=client)
    finally:
        with engine.begin() as connection:
            connection.execute(
                text("DROP TRIGGER refuse_documents" + (" ON documents" if engine.dialect.name == "postgresql" else ""))
            )
            if engine.dialect.name == "postgresql":
                connection.execute(text("DROP FUNCTION refuse()"))
    if engine.dialect.name == "postgresql":  # a full disk: the database's to recover from, a retry may pass
        assert response.status_code == 503 and response.headers["Retry-After"]
    else:  # a trigger's abort is no state SQLite recovers from: an error of ours, said as one
        assert response.status_code == 500 and response.mimetype == "application/problem+json"
    with Session(bind=engine) as session:
        assert session.scalar(select(func.count()).select_from(Manifest)) == 0
        assert session.scalar(select(func.count()).select_from(OutboxEntry)) == 0
    # The object was written but never locked, so the sweeper can remove it.
    assert s3.head_object(Bucket=bucket, Key=sha(PDF))
    assert "ObjectLockMode" not in s3.head_object(Bucket=bucket, Key=sha(PDF))
    frozen_clock(datetime.now(UTC) + timedelta(minutes=1))  # the store's clock is real
    result = s3_app.test_cli_runner().invoke(args=["storage", "sweep", "--older-than-minutes", "0"])
    assert "removed 1 unreferenced object(s)" in result.output, result.output
    assert s3.list_objects_v2(Bucket=bucket).get("KeyCount") == 0


def s3_world(s3_app, frozen_clock):
    """A client and a world of the app that keeps scans in moto's S3, at NOW."""
    from sqlalchemy.orm import Session

    frozen_clock(NOW)
    client = https_client(s3_app)
    with Session(bind=s3_app.extensions["fogx.engine"], expire_on_commit=False) as session:
        return client, build(client, session)


def test_committed_scans_are_locked_in_compliance_mode_until_retention_ends(s3_app, s3_bucket, frozen_clock):
    _, bucket, s3 = s3_bucket
    client, world = s3_world(s3_app, frozen_clock)
    response = post_multipart(world, world.body(), [("scan.pdf", PDF)], client=client)
    assert response.status_code == 201
    head = s3.head_object(Bucket=bucket, Key=sha(PDF))  # moto's GetObjectRetention is broken
    assert head["ObjectLockMode"] == "COMPLIANCE"
    service_day = NOW.date()  # three years: exchange policy (Victorville 10.03.170(c) asks two)
    assert head["ObjectLockRetainUntilDate"].date() == service_day.replace(year=service_day.year + 3)
    version = s3.head_object(Bucket=bucket, Key=sha(PDF))["VersionId"]
    with pytest.raises(s3.exceptions.ClientError) as refused:
        s3.delete_object(Bucket=bucket, Key=sha(PDF), VersionId=version)
    assert refused.value.response["Error"]["Code"] == "AccessDenied"
    fetched = client.get(
        f"/v1/manifests/{response.json['id']}/documents/{response.json['documents'][0]['id']}",
        headers=factories.bearer(world.hauler_token),
    )
    assert fetched.data == PDF


def test_the_lock_follows_the_receipt(s3_app, s3_bucket, frozen_clock):
    """The hauler does not wait on the lock: it is applied from the outbox once the receipt
    has been sent (the response closed), by the worker that committed the scan."""
    _, bucket, s3 = s3_bucket
    client, world = s3_world(s3_app, frozen_clock)
    response = client.post(
        "/v1/manifests",
        content_type="multipart/form-data",
        buffered=False,
        headers=factories.bearer(world.hauler_token),
        data={"manifest": json.dumps(world.body()), "documents": [(io.BytesIO(PDF), "a.pdf")]},
    )
    assert response.status_code == 201
    assert "ObjectLockMode" not in s3.head_object(Bucket=bucket, Key=sha(PDF))
    response.close()
    assert s3.head_object(Bucket=bucket, Key=sha(PDF))["ObjectLockMode"] == "COMPLIANCE"


def _waiting_to_be_woken(thread) -> bool:
    """Whether `thread` is blocked in the wait of its loop (`Event.wait`, called from `loop`)."""
    frame = sys._current_frames().get(thread.ident)
    while frame is not None:
        caller = frame.f_back
        if frame.f_code is threading.Event.wait.__code__ and caller is not None and caller.f_code.co_name == "loop":
            return True
        frame = caller
    return False


def test_where_the_outbox_thread_runs_the_lock_is_its_work(make_app, s3_bucket, frozen_clock):
    """With the process's outbox thread running (its next round an hour away), the receipt
    sent (the response closed) wakes it and it applies the lock; not before, so that it does
    not take the interpreter from the request while the receipt is on its way, and not the
    request's thread. The events are recorded as they happen: the wake-up, the lock, the
    receipt sent."""
    endpoint, bucket, s3 = s3_bucket
    app = make_app(
        STORAGE_BACKEND="s3",
        S3_ENDPOINT_URL=endpoint,
        S3_BUCKET=bucket,
        S3_REGION="us-west-1",
        OUTBOX_INTERVAL_SECONDS=3600,
    )
    client, world = s3_world(app, frozen_clock)
    # The world's requests started this process's outbox thread; once its first round is done
    # it waits for its wake-up.
    worker = app.extensions["fogx.outbox_worker"]
    assert worker["pid"] == os.getpid()
    deadline = time.monotonic() + 20
    while not _waiting_to_be_woken(worker["thread"]):
        assert time.monotonic() < deadline, "the outbox thread never finished its first round"
        time.sleep(0.05)
    events, wake, lock = [], worker["wake"].set, app.extensions["fogx.store"].set_retention
    worker["wake"].set = lambda: (events.append("woken"), wake())
    app.extensions["fogx.store"].set_retention = lambda *args, **kwargs: (
        events.append(("locked by", threading.current_thread().name)),
        lock(*args, **kwargs),
    )
    response = client.post(
        "/v1/manifests",
        content_type="multipart/form-data",
        buffered=False,
        headers=factories.bearer(world.hauler_token),
        data={"manifest": json.dumps(world.body()), "documents": [(io.BytesIO(PDF), "a.pdf")]},
    )
    assert response.status_code == 201
    # Committed and answered, the receipt not yet sent: nothing has woken the thread.
    assert events == []
    events.append("receipt sent")
    response.close()
    deadline = time.monotonic() + 20
    while "ObjectLockMode" not in (head := s3.head_object(Bucket=bucket, Key=sha(PDF))):
        assert time.monotonic() < deadline, f"the outbox thread did not apply the lock: {events}"
        time.sleep(0.05)
    assert head["ObjectLockMode"] == "COMPLIANCE"
    assert events == ["receipt sent", "woken", ("locked by", "fogx-outbox")]


def test_the_same_scan_twice_in_s3_is_one_locked_version(s3_app, s3_bucket, frozen_clock):
    """A bucket with Object Lock keeps versions: a second PUT of the same bytes would add an
    unlocked one. The conditional PUT leaves the first, locked version alone."""
    _, bucket, s3 = s3_bucket
    client, world = s3_world(s3_app, frozen_clock)
    first = post_multipart(world, world.body(), [("a.pdf", PDF)], client=client)
    second = post_multipart(world, world.body(), [("b.pdf", PDF)], client=client)
    assert (first.status_code, second.status_code) == (201, 201)
    versions = s3.list_object_versions(Bucket=bucket, Prefix=sha(PDF)).get("Versions", [])
    assert len(versions) == 1
    assert s3.head_object(Bucket=bucket, Key=sha(PDF))["ObjectLockMode"] == "COMPLIANCE"


def test_the_store_down_during_a_submission_is_503_and_nothing_is_stored(make_app, frozen_clock):
    from tests.conftest import _free_port

    app = make_app(
        STORAGE_BACKEND="s3",
        S3_ENDPOINT_URL=f"http://127.0.0.1:{_free_port()}",
        S3_BUCKET="nowhere",
        S3_REGION="us-west-1",
    )
    frozen_clock(NOW)
    client = https_client(app)
    from sqlalchemy.orm import Session

    with Session(bind=app.extensions["fogx.engine"], expire_on_commit=False) as session:
        world = build(client, session)
        response = post_multipart(world, world.body(), [("scan.pdf", PDF)], client=client)
        assert response.status_code == 503 and int(response.headers["Retry-After"]) > 0
        assert session.scalar(select(func.count()).select_from(Manifest)) == 0
    assert client.get("/ready").status_code == 503


def test_the_outbox_retries_a_lock_until_the_store_takes_it(make_app, s3_bucket, frozen_clock):
    endpoint, bucket, s3 = s3_bucket
    from tests.conftest import _free_port

    frozen_clock(NOW)
    s3.put_object(Bucket=bucket, Key=sha(PDF), Body=PDF)
    down = make_app(
        STORAGE_BACKEND="s3",
        S3_ENDPOINT_URL=f"http://127.0.0.1:{_free_port()}",
        S3_BUCKET=bucket,
        S3_REGION="us-west-1",
    )
    from sqlalchemy.orm import Session

    with Session(bind=down.extensions["fogx.engine"]) as session:
        from services.outbound import outbox

        outbox.enqueue_lock(session, key=sha(PDF), retain_until=date(2029, 1, 1))
        session.commit()
    result = down.test_cli_runner().invoke(args=["outbox", "run", "--once"])
    assert "applied 0, to retry 1, pending 1" in result.output, result.output
    up = make_app(STORAGE_BACKEND="s3", S3_ENDPOINT_URL=endpoint, S3_BUCKET=bucket, S3_REGION="us-west-1")
    frozen_clock(NOW + timedelta(minutes=5))
    result = up.test_cli_runner().invoke(args=["outbox", "run", "--once"])
    assert "applied 1, to retry 0, pending 0" in result.output, result.output
    head = s3.head_object(Bucket=bucket, Key=sha(PDF))
    assert head["ObjectLockMode"] == "COMPLIANCE"
    assert head["ObjectLockRetainUntilDate"].date() == date(2029, 1, 1)


def test_the_sweeper_keeps_referenced_and_young_objects(app, world, tmp_path, frozen_clock):
    post_multipart(world, world.body(), [("a.pdf", PDF)])
    store = app.extensions["fogx.store"]
    orphan = tmp_path / "orphan"
    orphan.write_bytes(PNG)
    store.put_file(sha(PNG), str(orphan), "image/png")
    runner = app.test_cli_runner()
    frozen_clock(datetime.now(UTC) + timedelta(minutes=1))  # file times are real
    young = runner.invoke(args=["storage", "sweep"])
    assert "removed 0" in young.output and "1 younger than 60 min" in young.output
    swept = runner.invoke(args=["storage", "sweep", "--older-than-minutes", "0"])
    assert "removed 1" in swept.output and "kept 1 referenced" in swept.output
    assert objects(app) == [sha(PDF)]


def test_the_sweeper_removes_partial_copies_a_crashed_upload_left(app, world, frozen_clock):
    store = app.extensions["fogx.store"]
    left = store.root / sha(PNG)[:2] / f"{sha(PNG)}.0a1b2c.partial"
    left.parent.mkdir(parents=True, exist_ok=True)
    left.write_bytes(PNG[:10])
    assert objects(app) == []  # not an object
    runner = app.test_cli_runner()
    frozen_clock(datetime.now(UTC) + timedelta(minutes=1))  # file times are real
    young = runner.invoke(args=["storage", "sweep"])
    assert "removed 0 abandoned partial write(s)" in young.output and left.exists()
    dry = runner.invoke(args=["storage", "sweep", "--older-than-minutes", "0", "--dry-run"])
    assert "would remove 1 abandoned partial write(s)" in dry.output and left.exists()
    swept = runner.invoke(args=["storage", "sweep", "--older-than-minutes", "0"])
    assert "removed 1 abandoned partial write(s)" in swept.output and not left.exists()


def test_the_same_scan_posted_by_four_clients_at_once_is_one_document(app, world, session):
    from concurrent.futures import ThreadPoolExecutor

    receipt = world.post(world.body()).json
    path = f"/v1/manifests/{receipt['id']}/documents"

    def post_scan(base):
        return requests.post(
            f"{base}{path}",
            headers=factories.bearer(world.hauler_token),
            timeout=30,
            files={"documents": ("again.png", PNG, "image/png")},
        ).status_code

    with serve(app) as base, ThreadPoolExecutor(4) as pool:
        statuses = list(pool.map(post_scan, [base] * 4))
    assert statuses == [201] * 4
    assert session.scalar(select(func.count()).select_from(Document)) == 1


def test_a_scan_downloaded_leaves_its_request_line(world, client):
    """The request's log line is written when its answer is closed: a scan streamed to the
    reader (and a binder) is closed as any answer is, so it leaves its line too."""
    receipt = post_multipart(world, world.body(), [("scan.png", PNG)]).json
    path = f"/v1/manifests/{receipt['id']}/documents/{receipt['documents'][0]['id']}"
    lines = []
    handler = logging.Handler()
    handler.emit = lambda record: lines.append(record.fields)
    access = logging.getLogger("fogx.access")
    access.addHandler(handler)
    try:
        response = client.get(path, headers={**factories.bearer(world.hauler_token), "X-Request-Id": "scan-read"})
        assert response.data == PNG
        response.close()
    finally:
        access.removeHandler(handler)
    assert [(line["request_id"], line["status"]) for line in lines if line["path"] == path] == [("scan-read", 200)]
