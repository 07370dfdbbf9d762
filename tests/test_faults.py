"""Faults on purpose: a worker killed mid-load, a client that gives up and retries, two app
instances on one database, database connections dropped under the app."""

import itertools
import os
import subprocess
import threading
import time
from datetime import timedelta

import pytest
import requests
from sqlalchemy import func, select, text
from sqlalchemy.orm import Session

from storage.models import Manifest, ManifestRevision, OutboxEntry
from tests import factories
from tests.conftest import https_client
from tests.manifest_world import NOW
from tests.servers import BIN, ROOT, Gunicorn, post, world  # noqa: F401


def open_files(pid):
    """What a process has open, read from /proc; a descriptor closed while it is listed
    (a worker still importing, a connection ending) is left out."""
    files = []
    for fd in os.listdir(f"/proc/{pid}/fd"):
        try:
            files.append(os.readlink(f"/proc/{pid}/fd/{fd}"))
        except FileNotFoundError:
            continue
    return files


@pytest.fixture
def servers(app, database_url, tmp_path):
    # After `app`: the test's database is emptied after the servers stop, never under them.
    started = []

    def start(**kwargs):
        server = Gunicorn(database_url, tmp_path / "objects", **kwargs).start()
        started.append(server)
        return server

    yield start
    for server in started:
        server.stop()


def counts(session):
    session.expire_all()
    return (
        session.scalar(select(func.count()).select_from(Manifest)),
        session.scalar(select(func.count()).select_from(ManifestRevision)),
    )


def test_sigkill_under_load_loses_nothing_acknowledged(world, session, servers):
    server = servers()
    sent, acknowledged, unanswered = {}, {}, []
    lock = threading.Lock()
    stop = threading.Event()
    # The kill comes once the server has acknowledged some filings, with more in flight.
    loaded = threading.Event()

    services = itertools.count()

    def sender(lane):
        n = 0
        while not stop.is_set():
            n += 1
            with lock:
                # Each a service of its own, a day apart: hundreds of loads in one service would
                # each refresh all the others' findings, and slow the load this test needs.
                completed = NOW - timedelta(hours=2 + 25 * next(services))
                body = world.body(manifest_number=f"K-{lane}-{n:04d}", completed=completed)
                sent[body["manifest_number"]] = body
            try:
                response = post(server.base, world, body, timeout=10)
                if response.status_code == 201:
                    with lock:
                        acknowledged[body["manifest_number"]] = response.json()["sha256"]
                        if len(acknowledged) > 5:
                            loaded.set()
                else:
                    unanswered.append(body["manifest_number"])
            except requests.RequestException:
                unanswered.append(body["manifest_number"])

    threads = [threading.Thread(target=sender, args=(lane,)) for lane in range(4)]
    for thread in threads:
        thread.start()
    assert loaded.wait(60), "the server acknowledged too few filings to be killed under load"
    server.kill()  # SIGKILL to the master and every worker, mid-request
    stop.set()
    for thread in threads:
        thread.join()
    assert len(acknowledged) > 5

    stored = dict(
        session.execute(
            select(Manifest.manifest_number, ManifestRevision.sha256).join(
                ManifestRevision, ManifestRevision.manifest_id == Manifest.id
            )
        ).all()
    )
    for number, sha256 in acknowledged.items():
        assert stored.get(number) == sha256, f"{number} was acknowledged but is not intact"
    assert set(stored) <= set(sent)

    # The dispatch software retries what got no answer; each is then stored exactly once.
    restarted = servers()
    for number in unanswered:
        response = post(restarted.base, world, sent[number])
        assert response.status_code in (200, 201), response.text
    manifests, revisions = counts(session)
    assert manifests == revisions == len(sent)


def test_a_client_that_times_out_and_retries_files_once(world, session, servers):
    server = servers()
    body = world.body()
    with pytest.raises(requests.Timeout):
        post(server.base, world, body, timeout=0.0005)
    for _ in range(50):
        response = post(server.base, world, body)
        if response.status_code != 409:  # 409: the first attempt is still being processed
            break
        time.sleep(0.1)
    assert response.status_code in (200, 201)
    assert counts(session) == (1, 1)


def test_two_instances_store_concurrent_duplicates_once(world, session, servers):
    first, second = servers(), servers()
    body = world.body()
    statuses = []

    def send(base):
        response = requests.post(
            f"{base}/v1/manifests", json=body, timeout=30, headers=factories.bearer(world.hauler_token)
        )
        statuses.append(response.status_code)

    threads = [threading.Thread(target=send, args=(server.base,)) for server in (first, second) * 10]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert statuses.count(201) == 1 and set(statuses) <= {200, 201}, statuses
    assert counts(session) == (1, 1)


def test_two_outbox_workers_apply_each_lock_once(app, database_url, session, tmp_path):
    from datetime import date

    from services.outbound import outbox

    for n in range(40):
        outbox.enqueue_lock(session, key=f"{n:064x}", retain_until=date(2029, 1, 1))
    session.commit()
    env = {**os.environ, "DATABASE_URL": database_url, "STORAGE_DIR": str(tmp_path / "objects")}
    command = [str(BIN / "flask"), "--app", "wsgi", "outbox", "run", "--once"]
    workers = [
        subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        for _ in range(2)
    ]
    outputs = [worker.communicate(timeout=120)[0] for worker in workers]
    applied = [int(out.split("applied ")[1].split(",")[0]) for out in outputs]
    assert sum(applied) == 40, outputs
    session.expire_all()
    entries = session.scalars(select(OutboxEntry)).all()
    assert all(entry.done_at is not None and entry.attempts == 0 for entry in entries)


@pytest.mark.postgresql_only
def test_dropped_database_connections_are_not_500s(app, world, session):
    engine = app.extensions["fogx.engine"]
    client = https_client(app)
    assert client.get("/v1/manifests", headers=factories.bearer(world.hauler_token)).status_code == 200
    with Session(bind=engine) as killer:
        killer.execute(
            text(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                "WHERE datname = current_database() AND pid <> pg_backend_pid()"
            )
        )
    response = world.post(world.body())
    assert response.status_code in (201, 503), response.get_data(as_text=True)
    if response.status_code == 503:
        assert response.headers["Retry-After"] and world.post(world.body()).status_code == 201
    assert client.get("/ready").status_code == 200


@pytest.mark.postgresql_only
def test_a_dashboard_whose_figures_lost_their_connections_is_a_503_not_a_500(app, world, session):
    """The dashboard asks two of its figures on connections of their own, from threads beside
    the request's: where the database drops those (and only those), the answer is a 503 to
    retry, as for the request's own, and the next one is whole."""
    import psycopg
    from sqlalchemy import event

    engine = app.extensions["fogx.engine"]
    auditor = factories.bearer(
        factories.token(world.client, *factories.oauth_client(session, role="auditor", subject=["victorville"]))
    )
    dropped = []
    killer = psycopg.connect(
        engine.url.set(drivername="postgresql").render_as_string(hide_password=False), autocommit=True
    )

    def drop_beside(connection, _record, _proxy):
        if threading.current_thread().name.startswith("fogx-read"):
            killer.execute("SELECT pg_terminate_backend(%s)", (connection.info.backend_pid,))
            dropped.append(connection.info.backend_pid)

    event.listen(engine.pool, "checkout", drop_beside)
    try:
        response = world.client.get("/v1/audit/trends", headers=auditor)
    finally:
        event.remove(engine.pool, "checkout", drop_beside)
        killer.close()
    assert len(dropped) == 2
    assert response.status_code == 503, response.get_data(as_text=True)
    assert response.mimetype == "application/problem+json" and response.headers["Retry-After"]
    assert world.client.get("/v1/audit/trends", headers=auditor).status_code == 200


@pytest.mark.skipif(not os.path.isdir("/dev/shm"), reason="no /dev/shm on this system")
def test_workers_mark_themselves_alive_in_memory(servers):
    """gunicorn.conf.py: each worker's heartbeat file, touched after every request, is in
    /dev/shm, not on the disk PostgreSQL commits to."""
    server = servers()
    workers = server.worker_pids()
    assert len(workers) == server.workers
    for pid in workers:
        files = open_files(pid)
        heartbeats = [name for name in files if "wgunicorn-" in name]
        assert heartbeats and all(name.startswith("/dev/shm/") for name in heartbeats), files


def test_scans_arrive_whole_through_gunicorn(servers, world, tmp_path):
    """gunicorn's request body is read in blocks of our choosing (`api.app._BlockReads`): a
    scan PUT with its length, one PUT chunked, and one in a multipart body arrive byte for byte."""
    import hashlib
    import http.client
    import io

    from PIL import Image

    def scan(side):
        out = io.BytesIO()
        Image.frombytes("RGB", (side, side), os.urandom(side * side * 3)).save(out, format="PNG", compress_level=0)
        return out.getvalue()

    server = servers()
    manifest_id = post(server.base, world, world.body()).json()["id"]
    documents = f"/v1/manifests/{manifest_id}/documents"
    bearer = factories.bearer(world.hauler_token)
    declared, chunked, multipart = scan(1000), scan(700), scan(900)
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=60)
    connection.request(
        "PUT",
        f"{documents}/{hashlib.sha256(declared).hexdigest()}",
        body=declared,
        headers={**bearer, "Content-Type": "image/png"},
    )
    assert connection.getresponse().status == 201
    connection.close()
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=60)
    pieces = (chunked[i : i + 100_000] for i in range(0, len(chunked), 100_000))
    connection.request(
        "PUT",
        f"{documents}/{hashlib.sha256(chunked).hexdigest()}",
        body=pieces,
        headers={**bearer, "Content-Type": "image/png"},
        encode_chunked=True,
    )
    assert connection.getresponse().status == 201
    connection.close()
    response = requests.post(
        f"{server.base}{documents}",
        headers=bearer,
        timeout=60,
        files={"documents": ("scan.png", multipart, "image/png")},
    )
    assert response.status_code == 201, response.text
    for data in (declared, chunked, multipart):
        key = hashlib.sha256(data).hexdigest()
        assert (tmp_path / "objects" / key[:2] / key).read_bytes() == data
        fetched = requests.get(f"{server.base}{documents}/{key}", headers=bearer, timeout=60)
        assert fetched.status_code == 200 and fetched.content == data


def test_a_scan_in_pieces_through_gunicorn_leaves_its_connection_ready_for_the_next_request(servers, world):
    """A scan PUT with its length whose bytes come in pieces: some with the headers (read by
    gunicorn), the rest as they arrive (read from the socket itself, `api.app._BlockReads`).
    It is stored whole, and the same connection then serves the next request: exactly the
    body was read off it."""
    import hashlib
    import http.client
    import io
    import socket

    from PIL import Image

    out = io.BytesIO()
    Image.frombytes("RGB", (700, 700), os.urandom(700 * 700 * 3)).save(out, format="PNG", compress_level=0)
    scan = out.getvalue()
    server = servers()
    manifest_id = post(server.base, world, world.body()).json()["id"]
    path = f"/v1/manifests/{manifest_id}/documents/{hashlib.sha256(scan).hexdigest()}"
    headers = f"Host: 127.0.0.1:{server.port}\r\nAuthorization: Bearer {world.hauler_token}\r\n"
    with socket.create_connection(("127.0.0.1", server.port), timeout=60) as connection:
        connection.sendall(
            f"PUT {path} HTTP/1.1\r\n{headers}Content-Type: image/png\r\nContent-Length: {len(scan)}\r\n\r\n".encode()
            + scan[:1000]
        )
        time.sleep(0.2)
        for start in range(1000, len(scan), 300_000):
            connection.sendall(scan[start : start + 300_000])
            time.sleep(0.05)
        put = http.client.HTTPResponse(connection)
        put.begin()
        put.read()
        connection.sendall(f"GET {path} HTTP/1.1\r\n{headers}\r\n".encode())
        fetched = http.client.HTTPResponse(connection)
        fetched.begin()
        assert (put.status, fetched.status) == (201, 200)
        assert fetched.read() == scan
