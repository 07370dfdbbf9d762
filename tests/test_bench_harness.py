"""The bench serves the app as `make run` does: the app server, and beside it the export pool
(api/exports.py) at a lower CPU priority, to which the app server passes sheets, binders and ZIPs.
Both are real gunicorns on a migrated SQLite database."""

import os
import signal
from pathlib import Path

import requests

from bench.harness import EXPORTS_NICE, Server
from storage import migrate
from storage.db import make_engine


def _nice(pid):
    return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[16])


def test_the_bench_serves_the_app_beside_an_export_pool_that_takes_the_heavy_reads(tmp_path):
    url = f"sqlite:///{tmp_path / 'bench.db'}"
    engine = make_engine(url)
    migrate.upgrade(engine)
    engine.dispose()
    server = Server(url, "http://127.0.0.1:1", workers=1)
    try:
        app, pool = server.worker_pids(), server.export_worker_pids()
        assert len(app) == 1 and len(pool) == 1 and not set(app) & set(pool)
        # The pool runs at a lower CPU priority, so that the filings' workers get the cores first.
        assert _nice(pool[0]) == _nice(app[0]) + EXPORTS_NICE
        assert requests.get(f"{server.exports_base}/health", timeout=10).status_code == 200

        # With the pool gone, the app server still answers a list's page itself, but a list as CSV
        # it passed on to the pool: it says the pool did not answer.
        os.killpg(server.exports.pid, signal.SIGTERM)
        server.exports.wait(timeout=60)
        page = requests.get(f"{server.base}/v1/audit/findings", timeout=10)
        sheet = requests.get(f"{server.base}/v1/audit/findings", params={"format": "csv"}, timeout=10)
        assert page.status_code == 401
        assert sheet.status_code == 503 and sheet.headers["Content-Type"] == "application/problem+json"
        assert "export pool" in sheet.json()["detail"]
    finally:
        server.stop()
    assert server.process.poll() is not None and server.exports.poll() is not None
    assert not any(Path(f"/proc/{pid}").exists() for pid in app + pool)
