"""Fixtures: an app per test on SQLite, and on PostgreSQL too when TEST_DATABASE_URL is set.

Each database is built once per run by the migrations, and emptied after every test. Under
pytest-xdist each worker has a PostgreSQL database of its own beside TEST_DATABASE_URL's.
"""

import contextlib
import os
import threading
import uuid
from datetime import UTC, datetime
from urllib.parse import urlsplit

import pytest
from flask.testing import FlaskClient
from sqlalchemy import create_engine, text
from sqlalchemy.orm import Session
from werkzeug.serving import make_server

from api import create_app
from api.worker import stop as stop_background_work
from domain import clock
from storage import migrate
from storage.db import make_engine
from storage.models import Base

BACKENDS = ["sqlite"] + (["postgresql"] if os.environ.get("TEST_DATABASE_URL") else [])


def pytest_collection_modifyitems(config, items):
    """Tests of PostgreSQL behaviour (server-side connections) run on PostgreSQL only."""
    keep, drop = [], []
    for item in items:
        backend = getattr(getattr(item, "callspec", None), "params", {}).get("database_url")
        (drop if item.get_closest_marker("postgresql_only") and backend != "postgresql" else keep).append(item)
    if drop:
        config.hook.pytest_deselected(items=drop)
        items[:] = keep


def _worker_database(url):
    """TEST_DATABASE_URL's database, or under pytest-xdist one beside it for this worker."""
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    if not worker:
        return url
    parts = urlsplit(url)
    name = f"{parts.path.lstrip('/')}_{worker}"
    server = create_engine(make_engine(parts._replace(path="/postgres").geturl()).url, isolation_level="AUTOCOMMIT")
    with server.connect() as connection:
        if not connection.execute(text("SELECT 1 FROM pg_database WHERE datname = :name"), {"name": name}).scalar():
            connection.execute(text(f'CREATE DATABASE "{name}"'))
    server.dispose()
    return parts._replace(path=f"/{name}").geturl()


def _fresh_postgres(url):
    engine = create_engine(make_engine(url).url)
    with engine.begin() as connection:
        connection.execute(text("DROP SCHEMA IF EXISTS public CASCADE"))
        connection.execute(text("CREATE SCHEMA public"))
    engine.dispose()


@pytest.fixture(scope="session", params=BACKENDS)
def database_url(request, tmp_path_factory):
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path_factory.mktemp('db') / 'test.sqlite3'}"
    else:
        url = _worker_database(os.environ["TEST_DATABASE_URL"])
        _fresh_postgres(url)
    engine = make_engine(url)
    migrate.upgrade(engine)
    engine.dispose()
    return url


def _empty(engine):
    tables = [table.name for table in reversed(Base.metadata.sorted_tables)]
    with engine.begin() as connection:
        if engine.dialect.name == "postgresql":
            connection.execute(text(f"TRUNCATE {', '.join(tables)} CASCADE"))
        else:
            for table in tables:
                connection.execute(text(f"DELETE FROM {table}"))


@pytest.fixture
def make_app(database_url, tmp_path):
    """Build an app on the test database; overrides go into its config."""
    apps = []

    def build(**overrides):
        config = {
            "DATABASE_URL": database_url,
            "STORAGE_BACKEND": "local",
            "STORAGE_DIR": str(tmp_path / "objects"),
            "PUBLIC_BASE_URL": "https://fogx.test",
            "OUTBOX_INTERVAL_SECONDS": 0,
            "WEBHOOK_INTERVAL_SECONDS": 0,
            "NOTICE_INTERVAL_SECONDS": 0,
            "WEBHOOK_SIGNING_KEY_FILE": str(tmp_path / "webhook-signing.key"),
            "SECRET_KEY_FILE": str(tmp_path / "secret.key"),
            "OIDC_SIGNING_KEY_FILE": str(tmp_path / "oidc-signing.pem"),
            "MAIL_DIR": str(tmp_path / "mail"),
            **overrides,
        }
        built = create_app(config)
        apps.append(built)
        return built

    yield build
    for built in apps:
        stop_background_work(built)
        for name in ("fogx.engine", "fogx.reads_engine"):
            if name in built.extensions:
                built.extensions[name].dispose()
    if apps:
        engine = make_engine(database_url)
        _empty(engine)
        engine.dispose()


@pytest.fixture
def app(make_app):
    return make_app()


class HttpsClient(FlaskClient):
    """A test client speaking HTTPS, as OAuth demands."""

    def open(self, *args, **kwargs):
        kwargs.setdefault("base_url", "https://localhost")
        # Read the whole response and close it, as a server does once it has sent it (work
        # queued for after the response, such as locking scans, runs then).
        kwargs.setdefault("buffered", True)
        return super().open(*args, **kwargs)


def https_client(app):
    return HttpsClient(app, app.response_class, use_cookies=False)


@pytest.fixture
def client(app):
    return https_client(app)


@pytest.fixture
def session(app):
    """A session of the test's own, like another process looking at the same database."""
    with Session(bind=app.extensions["fogx.engine"], expire_on_commit=False) as own:
        yield own


@pytest.fixture
def frozen_clock():
    """Pin the clock; call it with an aware datetime to move time."""

    def set_to(at):
        clock.freeze(at)
        return at

    set_to(datetime(2026, 6, 1, 12, 0, tzinfo=UTC))
    yield set_to
    clock.freeze(None)


@contextlib.contextmanager
def serve(app):
    """The app served over real HTTP on a free loopback port."""
    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}"
    finally:
        server.shutdown()
        thread.join()


@pytest.fixture
def live_server(app):
    with serve(app) as base:
        yield base


def _free_port():
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture(scope="session")
def s3_endpoint():
    """moto's S3 server in its own process, spoken to over HTTP like any S3 endpoint."""
    import subprocess
    import sys
    import time

    import requests

    os.environ.setdefault("AWS_ACCESS_KEY_ID", "testing")
    os.environ.setdefault("AWS_SECRET_ACCESS_KEY", "testing")
    port = _free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    endpoint = f"http://127.0.0.1:{port}"
    for _ in range(300):
        try:
            requests.get(endpoint, timeout=5)
            break
        except requests.RequestException:  # not listening yet, or still starting up
            time.sleep(0.1)
    else:
        process.kill()
        raise RuntimeError("moto server did not start")
    yield endpoint
    process.terminate()
    process.wait(timeout=10)


@pytest.fixture
def s3_bucket(s3_endpoint):
    """A new bucket with Object Lock enabled; (endpoint, bucket, boto3 client)."""
    import boto3

    client = boto3.client("s3", endpoint_url=s3_endpoint, region_name="us-west-1")
    bucket = f"fogx-test-{uuid.uuid4().hex[:12]}"
    client.create_bucket(
        Bucket=bucket, ObjectLockEnabledForBucket=True, CreateBucketConfiguration={"LocationConstraint": "us-west-1"}
    )
    return s3_endpoint, bucket, client


@pytest.fixture
def s3_app(make_app, s3_bucket):
    endpoint, bucket, _ = s3_bucket
    return make_app(
        STORAGE_BACKEND="s3",
        S3_ENDPOINT_URL=endpoint,
        S3_BUCKET=bucket,
        S3_REGION="us-west-1",
        S3_OBJECT_LOCK="compliance",
    )
