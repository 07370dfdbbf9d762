"""The bench's stand: its settings, the databases, a local S3 server (moto), the app under gunicorn, its clients."""

import os
import signal
import socket
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from urllib.parse import urlsplit

import boto3
import psycopg
import requests

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
SMALL = os.environ.get("BENCH_SMALL") == "1"
DEVICES = 3_000 if SMALL else 20_000  # enough that no two rounds or stages service one device
STAGES = (10_000, 50_000) if SMALL else (100_000, 1_000_000)
# BENCH_STAGES=100000: the stages named alone (a comma-separated subset), for a quicker run
if os.environ.get("BENCH_STAGES"):
    STAGES = tuple(int(size) for size in os.environ["BENCH_STAGES"].split(","))
INGEST_N = 300 if SMALL else 1_500
CLIENTS = 8
WARM_UP = 4 * CLIENTS
WARM_UP_UPLOADS = 8
# The export pool as `make run` starts it (the Makefile's EXPORT_WORKERS and EXPORTS_NICE).
EXPORT_WORKERS, EXPORTS_NICE = 1, 10


def say(message):
    print(message, flush=True)


def free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_for(url):
    for _ in range(300):
        try:
            requests.get(url, timeout=5)
            return
        except requests.RequestException:
            time.sleep(0.1)
    raise RuntimeError(f"{url} did not answer")


def database():
    url = os.environ.get("BENCH_DATABASE_URL")
    if url:
        return url
    url = "postgresql://postgres@127.0.0.1:5432/fogx_bench"
    create(url)
    return url


def migrated(dsn):
    """The database of `dsn` brought to the project's schema (a city built earlier as well)."""
    from sqlalchemy import create_engine

    from storage import migrate

    engine = create_engine(dsn.replace("postgresql://", "postgresql+psycopg://"))
    migrate.upgrade(engine)
    engine.dispose()


def create(dsn, template=None):
    """The database of `dsn` made anew: empty, or a copy of the database `template` (a URL on
    the same server, which nothing may be connected to meanwhile)."""
    drop(dsn)
    with _server(dsn) as conn:
        conn.execute(f'CREATE DATABASE "{_name(dsn)}"' + (f' TEMPLATE "{_name(template)}"' if template else ""))


def drop(dsn):
    with _server(dsn) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{_name(dsn)}" WITH (FORCE)')


def sibling(dsn, suffix):
    """The URL of a database beside the one of `dsn` on the same server, its name + `suffix`."""
    return urlsplit(dsn)._replace(path=f"/{_name(dsn)}{suffix}").geturl()


def _name(dsn):
    return urlsplit(dsn).path.lstrip("/")


def _server(dsn):
    return psycopg.connect(urlsplit(dsn)._replace(path="/postgres").geturl(), autocommit=True)


def start_s3():
    port = free_port()
    env = {**os.environ, "AWS_ACCESS_KEY_ID": "bench", "AWS_SECRET_ACCESS_KEY": "bench"}
    process = subprocess.Popen(
        [sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    endpoint = f"http://127.0.0.1:{port}"
    wait_for(endpoint)
    client = boto3.client(
        "s3", endpoint_url=endpoint, region_name="us-west-1", aws_access_key_id="bench", aws_secret_access_key="bench"
    )
    client.create_bucket(
        Bucket="fogx-bench",
        ObjectLockEnabledForBucket=True,
        CreateBucketConfiguration={"LocationConstraint": "us-west-1"},
    )
    return process, endpoint, client


class Server:
    """The app served as `make run` serves it: the app server's gunicorn, and beside it the export
    pool (api/exports.py) to which it passes sheets, binders and ZIPs: the same app under
    `nice -n EXPORTS_NICE`, one worker, trusting one proxy more than the app server (the app
    server is that proxy)."""

    # One worker per core (threaded: gunicorn.conf.py), as README.md tells operators: a filing is
    # CPU-bound, and more workers than cores only add switching.
    # `root`: the checkout whose code it serves (bench/ingest.py and bench/uploads.py compare two).
    def __init__(self, dsn, endpoint, workers=None, root=ROOT, export_workers=EXPORT_WORKERS):
        self.port, self.exports_port = free_port(), free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.exports_base = f"http://127.0.0.1:{self.exports_port}"
        # PORT is the app server's in both: the pool's public address (PUBLIC_BASE_URL) is the app's.
        env = {
            **os.environ,
            "DATABASE_URL": dsn,
            "PORT": str(self.port),
            "STORAGE_BACKEND": "s3",
            "S3_ENDPOINT_URL": endpoint,
            "S3_BUCKET": "fogx-bench",
            "S3_REGION": "us-west-1",
            "AWS_ACCESS_KEY_ID": "bench",
            "AWS_SECRET_ACCESS_KEY": "bench",
            "SUBMISSIONS_PER_MINUTE": "1000000",
            "EXPORTS_PER_MINUTE": "1000",
            "TOKEN_TTL_SECONDS": "7200",
            "MAX_UPLOAD_BYTES": str(200 * 2**20),
            # The notices' background work is left out: its daily pass, once a day at each
            # city's 06:00, would otherwise fall inside whichever stage the bench is running.
            "NOTICE_INTERVAL_SECONDS": "0",
            # As `make run` sets it, unless told (0: reads' backends at the filings' priority, to
            # measure what the setting gives): reads' backends give way to filings' (storage/db.py).
            "DATABASE_READS_NICE": os.environ.get("DATABASE_READS_NICE", str(EXPORTS_NICE)),
        }
        env.pop("EXPORTS_URL", None)
        proxies = int(env.get("TRUSTED_PROXIES") or 0)
        self.exports = self._gunicorn(
            root, {**env, "TRUSTED_PROXIES": str(proxies + 1)}, self.exports_port, export_workers, nice=EXPORTS_NICE
        )
        try:
            self.process = self._gunicorn(
                root, {**env, "EXPORTS_URL": self.exports_base}, self.port, workers or os.cpu_count()
            )
            wait_for(f"{self.exports_base}/health")
            wait_for(f"{self.base}/health")
        except BaseException:
            self.stop()
            raise

    @staticmethod
    def _gunicorn(root, env, port, workers, nice=0):
        command = [
            str(BIN / "gunicorn"),
            "--bind",
            f"127.0.0.1:{port}",
            "--workers",
            str(workers),
            "--timeout",
            "300",
            "--error-logfile",
            "/dev/null",
            "wsgi:app",
        ]
        return subprocess.Popen(
            ["nice", "-n", str(nice), *command] if nice else command,
            cwd=root,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )

    def worker_pids(self):
        """The app server's workers (they take the filings)."""
        return _children(self.process.pid)

    def export_worker_pids(self):
        """The export pool's workers."""
        return _children(self.exports.pid)

    def stop(self):
        """Both servers stopped, the app server first (it passes requests to the pool)."""
        for process in (getattr(self, "process", None), self.exports):
            if process is not None and process.poll() is None:
                os.killpg(process.pid, signal.SIGTERM)
                process.wait(timeout=60)


def _children(pid):
    out = subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True).stdout
    return [int(child) for child in out.split()]


def clients(dsn, city):
    """OAuth clients for one hauler, the Victorville auditor, an FSE, and each disposal site
    (made before the city's history, so that every site reports all of it, and posts none of
    it: the reconciliation's worst case)."""
    from api import create_app
    from domain import clock
    from services.people.clients import create_client
    from storage.db import db

    app = create_app({"DATABASE_URL": dsn})
    with app.app_context():
        with clock.frozen_at(datetime(2000, 1, 1, tzinfo=UTC)):
            for n, site_id in enumerate(city.sites):
                create_client(db.session, role="site", subject=[str(site_id)], client_id=f"bench-site-{n}")
        hauler_id = city.haulers[0][0]
        create_client(
            db.session,
            role="hauler",
            subject=[str(hauler_id)],
            client_id="bench-hauler",
            client_secret="bench-hauler-secret",
        )
        create_client(
            db.session,
            role="auditor",
            subject=["victorville"],
            client_id="bench-auditor",
            client_secret="bench-auditor-secret",
        )
        fse_id = city.devices[0][1]
        create_client(
            db.session, role="fse", subject=[str(fse_id)], client_id="bench-fse", client_secret="bench-fse-secret"
        )
    app.extensions["fogx.engine"].dispose()


def token(base, name):
    response = requests.post(
        f"{base}/oauth/token",
        data={"grant_type": "client_credentials"},
        auth=(f"bench-{name}", f"bench-{name}-secret"),
        timeout=10,
    )
    response.raise_for_status()
    return response.json()["access_token"]
