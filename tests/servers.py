"""fogx under gunicorn in processes of its own, as `make run` starts it, and a manifest posted
to one."""

import os
import re
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import requests

from tests import factories
from tests.conftest import _free_port
from tests.manifest_world import build

BIN = Path(sys.executable).parent
ROOT = Path(__file__).resolve().parent.parent


class Gunicorn:
    """The app under gunicorn in its own process group, so it can be killed outright."""

    def __init__(self, database_url, storage_dir, workers=2):
        self.port = _free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.env = {
            **os.environ,
            "DATABASE_URL": database_url,
            "STORAGE_DIR": str(storage_dir),
            "OUTBOX_INTERVAL_SECONDS": "0",
            "SUBMISSIONS_PER_MINUTE": "100000",
        }
        self.workers = workers
        self.process = None

    def command(self):
        return [
            str(BIN / "gunicorn"),
            "--bind",
            f"127.0.0.1:{self.port}",
            "--workers",
            str(self.workers),
            "--access-logfile",
            "/dev/null",
            "wsgi:app",
        ]

    def start(self, output=subprocess.DEVNULL):
        """Start it and wait until it answers; its stdout and stderr go to `output`."""
        self.process = subprocess.Popen(
            self.command(), cwd=ROOT, env=self.env, stdout=output, stderr=output, start_new_session=True
        )
        for _ in range(300):
            try:
                if requests.get(f"{self.base}/health", timeout=5).status_code == 200:
                    return self
            except requests.RequestException:  # not listening yet, or workers still booting
                time.sleep(0.05)
        raise RuntimeError("gunicorn did not start")

    def worker_pids(self):
        listed = subprocess.run(["pgrep", "-P", str(self.process.pid)], capture_output=True, text=True).stdout
        return [int(pid) for pid in listed.split()]

    def kill(self):
        os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait()

    def stop(self):
        if self.process and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            self.process.wait(timeout=30)


@pytest.fixture
def world(app, client, session):
    return build(client, session)


def post(base, world, body, timeout=30):
    return requests.post(
        f"{base}/v1/manifests",
        json=body,
        timeout=timeout,
        headers={**factories.bearer(world.hauler_token), "Idempotency-Key": body["manifest_number"]},
    )


def planned_servers(port, exports_port=None):
    """The gunicorns `make run` starts (read from `make -n`), each as (environment, argv): the
    app server on `port` and the export pool beside it (on `exports_port`, where given)."""
    asked = ["make", "-n", "run", f"BIN={BIN}", "HOST=127.0.0.1", f"PORT={port}"]
    asked += [f"EXPORTS_PORT={exports_port}"] if exports_port else []
    planned = subprocess.run(asked, cwd=ROOT, capture_output=True, text=True, check=True).stdout
    commands = re.findall(
        r"((?:[A-Z_]+=\S+ )*)((?:nice -n \d+ )?" + re.escape(str(BIN)) + r"/gunicorn .*?wsgi:app)",
        planned.replace("\\\n", " "),
    )
    return [(dict(pair.split("=", 1) for pair in shlex.split(env)), shlex.split(argv)) for env, argv in commands]


class MakeRun(Gunicorn):
    """A gunicorn of `make run` (its app server, or with `exports=True` its export pool), started
    with its command line and environment on a free port, on the test's database. The app server
    passes heavy reads to the export pool on `exports_port` where given, and serves them itself
    where not."""

    def __init__(self, database_url, storage_dir, *, exports=False, exports_port=None):
        super().__init__(database_url, storage_dir)
        planned = dict(
            (argv[argv.index("--bind") + 1], (env, argv))
            for env, argv in planned_servers(self.port, exports_port or _free_port())
        )
        (env, self.planned), *_ = [
            server for bind, server in planned.items() if (bind != f"127.0.0.1:{self.port}") == exports
        ]
        if exports:
            self.port = int(self.planned[self.planned.index("--bind") + 1].rsplit(":", 1)[1])
            self.base = f"http://127.0.0.1:{self.port}"
        self.env = {
            **os.environ,
            "DATABASE_URL": database_url,
            "STORAGE_DIR": str(storage_dir),
            "OUTBOX_INTERVAL_SECONDS": "0",
            "WEBHOOK_INTERVAL_SECONDS": "0",
            "TRUSTED_PROXIES": "0",
            "EXPORTS_URL": "",
        }
        self.env.update(env if exports or exports_port else {})

    def command(self):
        return self.planned
