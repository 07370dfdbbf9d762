"""With `DATABASE_READS_NICE`, requests that only read are served by PostgreSQL backends that
run at that niceness, and filings by backends at the server's own: where the database shares
the machine, the operating system gives the CPU to filings first (storage/db.py)."""

import os

import pytest
from sqlalchemy import text

from tests import factories
from tests.servers import world  # noqa: F401  (the fixture)

pytestmark = pytest.mark.postgresql_only

NICE = 7


@pytest.fixture
def app(make_app):
    return make_app(DATABASE_READS_NICE=NICE)


def backends(session):
    """{pid: application_name} of the other backends on the test's database, as they are now
    (not as the transaction's snapshot of the statistics last saw them)."""
    session.execute(text("SELECT pg_stat_clear_snapshot()"))
    rows = session.execute(
        text(
            "SELECT pid, application_name FROM pg_stat_activity"
            " WHERE datname = current_database() AND pid <> pg_backend_pid()"
        )
    )
    return dict(rows.all())


def test_reads_run_on_lowered_backends_and_filings_on_the_servers_own(app, client, world, session):
    before = set(backends(session))
    filed = client.post(
        "/v1/manifests",
        json=world.body(),
        headers={**factories.bearer(world.hauler_token), "Idempotency-Key": "read-priority-1"},
    )
    assert filed.status_code == 201, filed.get_json()
    listed = client.get("/v1/manifests", headers=factories.bearer(world.hauler_token))
    assert listed.status_code == 200 and listed.get_json()["items"]
    after = backends(session)
    new = {pid: name for pid, name in after.items() if pid not in before}
    reads = [pid for pid, name in after.items() if name == "fogx reads"]
    writes = [pid for pid, name in new.items() if name != "fogx reads"]
    assert reads and writes, after
    assert {os.getpriority(os.PRIO_PROCESS, pid) for pid in reads} == {NICE}
    assert {os.getpriority(os.PRIO_PROCESS, pid) for pid in writes} == {0}


def test_without_the_setting_reads_share_the_filings_backends(make_app):
    app = make_app()
    assert "fogx.reads_engine" not in app.extensions
    assert app.extensions["fogx.reading_engine"].pool is app.extensions["fogx.engine"].pool
