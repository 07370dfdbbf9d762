"""Heavy reads in a pool of their own, as `make run` serves them: the app server passes sheets,
binders and ZIPs on to the export pool, whose worker runs at a lower CPU priority, and relays
the answer; filings never reach the pool."""

import json
import time
from datetime import timedelta

import pytest
import requests

from tests import factories
from tests.conftest import _free_port
from tests.manifest_world import NOW
from tests.servers import MakeRun, planned_servers, post, world  # noqa: F401  (the fixture)


def nice_of(pid) -> int:
    with open(f"/proc/{pid}/stat") as stat:
        return int(stat.read().rsplit(")", 1)[1].split()[16])


def test_make_run_starts_an_export_pool_at_a_lower_priority_and_points_the_app_at_it():
    (pool_env, pool), (app_env, app) = planned_servers(9000)
    assert pool[:3] == ["nice", "-n", "10"] and "127.0.0.1:9001" in pool
    # The app server is a proxy before it; both serve reads on backends as low as the pool.
    assert pool_env == {"TRUSTED_PROXIES": "1", "DATABASE_READS_NICE": "10"}
    assert app[0].endswith("/gunicorn") and "127.0.0.1:9000" in app
    assert app_env == {"EXPORTS_URL": "http://127.0.0.1:9001", "DATABASE_READS_NICE": "10"}


def logged_soon(logged, name, expected, seconds=10):
    """The request ids `name` has logged, once `expected` are among them (or `seconds` passed)."""
    deadline = time.monotonic() + seconds
    while not expected <= (found := {entry["request_id"] for entry in logged(name)}) and time.monotonic() < deadline:
        time.sleep(0.05)
    return found


@pytest.fixture
def pools(app, database_url, tmp_path):
    """The export pool and the app server that passes heavy reads to it, each logging to a file
    (started after `app`, so the test's database is emptied only when they have stopped)."""
    started = []

    def start(server, name):
        output = open(tmp_path / f"{name}.log", "w+")  # closed with the server
        started.append((server, output))
        return server.start(output=output)

    exports_port = _free_port()
    pool = start(MakeRun(database_url, tmp_path / "objects", exports=True, exports_port=exports_port), "pool")
    app = start(MakeRun(database_url, tmp_path / "objects", exports_port=exports_port), "app")
    yield (
        app,
        pool,
        lambda name: [
            json.loads(line)
            for line in (tmp_path / f"{name}.log").read_text().splitlines()
            if line.startswith("{") and '"request_id"' in line
        ],
    )
    for server, output in started:
        server.stop()
        output.close()


def test_a_sheet_asked_of_the_app_is_made_by_the_export_pool(pools, world, session):
    app, pool, logged = pools
    for hours in (2, 30):
        assert post(app.base, world, world.body(completed=NOW - timedelta(hours=hours))).status_code == 201
    auditor = factories.token(world.client, *factories.oauth_client(session, role="auditor", subject=["victorville"]))

    def ask(base, request_id, **headers):
        return requests.get(
            f"{base}/v1/audit/findings",
            params={"format": "csv"},
            timeout=30,
            headers={**factories.bearer(auditor), "X-Request-Id": request_id, **headers},
        )

    relayed, direct = ask(app.base, "sheet-via-app"), ask(pool.base, "sheet-direct")
    assert relayed.status_code == direct.status_code == 200
    assert relayed.headers["Content-Type"].startswith("text/csv")
    assert relayed.headers["Content-Disposition"] == direct.headers["Content-Disposition"]
    assert relayed.content == direct.content and relayed.content.count(b"\n") >= 3
    assert relayed.headers["X-Request-Id"] == "sheet-via-app"

    page = requests.get(
        f"{app.base}/v1/audit/findings", headers={**factories.bearer(auditor), "X-Request-Id": "first-page"}, timeout=30
    )
    assert page.status_code == 200 and page.json()["items"]
    fse = world.permit.fse_id
    operator = factories.token(world.client, *factories.oauth_client(session, role="fse", subject=[fse]))
    binder = requests.get(
        f"{app.base}/v1/fses/{fse}/records",
        timeout=60,
        headers={**factories.bearer(operator), "Accept": "application/pdf", "X-Request-Id": "binder-via-app"},
    )
    assert binder.status_code == 200 and binder.content.startswith(b"%PDF")
    assert binder.headers["Content-Length"] == str(len(binder.content))

    # A request's line is written once its answer is closed, just after its last byte is sent.
    in_pool, in_app = (
        logged_soon(logged, "pool", {"sheet-via-app", "sheet-direct", "binder-via-app"}),
        logged_soon(logged, "app", {"sheet-via-app", "first-page", "binder-via-app"}),
    )
    # The sheet asked of the app was made in the pool; the page and the filings stayed in the app.
    assert {"sheet-via-app", "sheet-direct", "binder-via-app"} <= in_pool and "first-page" not in in_pool
    assert {"sheet-via-app", "first-page", "binder-via-app"} <= in_app
    assert not [entry for entry in logged("pool") if entry["method"] == "POST"]
    # The pool's worker gives way to the app's: the operating system runs the filings first.
    assert {nice_of(pid) for pid in pool.worker_pids()} == {10}
    assert {nice_of(pid) for pid in app.worker_pids()} == {0}


def test_a_refusal_in_the_pool_reaches_the_caller_as_the_pool_gave_it(pools, world, session):
    app, _pool, _logged = pools
    answer = requests.get(
        f"{app.base}/v1/audit/findings?format=csv", headers=factories.bearer(world.hauler_token), timeout=30
    )
    assert answer.status_code == 403 and answer.headers["Content-Type"] == "application/problem+json"
    assert answer.json()["status"] == 403


def test_an_export_pool_that_does_not_answer_is_a_503_to_retry(database_url, tmp_path, world, session):
    app = MakeRun(database_url, tmp_path / "objects", exports_port=_free_port()).start()  # nothing listens there
    try:
        auditor = factories.token(
            world.client, *factories.oauth_client(session, role="auditor", subject=["victorville"])
        )
        answer = requests.get(
            f"{app.base}/v1/audit/missed-services",
            params={"format": "csv"},
            timeout=30,
            headers=factories.bearer(auditor),
        )
        assert answer.status_code == 503 and answer.headers["Retry-After"] == "5"
        assert answer.headers["Content-Type"] == "application/problem+json"
        # What does not go to the pool is answered as ever.
        page = requests.get(f"{app.base}/v1/audit/missed-services", headers=factories.bearer(auditor), timeout=30)
        assert page.status_code == 200
    finally:
        app.stop()
