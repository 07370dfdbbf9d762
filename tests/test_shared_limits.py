"""Rate limits counted in Redis are one limit for every app server: two gunicorn instances on one
database and one Redis (127.0.0.1:6379, a database number of the tests' own)."""

import os
import uuid

import pytest
import requests

from tests import factories
from tests.servers import Gunicorn, world  # noqa: F401  (the fixture)

REDIS_URL = os.environ.get("TEST_REDIS_URL", "redis://127.0.0.1:6379/13")


def _redis_absent():
    import redis

    try:
        redis.Redis.from_url(REDIS_URL, socket_connect_timeout=1).ping()
    except redis.RedisError as error:
        return f"no Redis at {REDIS_URL} ({error}); .ci/run starts one"
    return None


@pytest.fixture(autouse=True)
def redis_present():
    absent = _redis_absent()
    if absent and os.environ.get("FOGX_REDIS_TESTS") == "required":
        pytest.fail(absent)
    if absent:
        pytest.skip(absent)


@pytest.fixture
def two_servers(app, redis_present, database_url, tmp_path):
    # After `app`: the test's database is emptied after the servers stop, never under them.
    import redis

    redis.Redis.from_url(REDIS_URL).flushdb()  # the tests' own database: no count of an earlier run
    started = []
    for _ in range(2):
        server = Gunicorn(database_url, tmp_path / "objects", workers=2)
        server.env.update(REDIS_URL=REDIS_URL, SUBMISSIONS_PER_MINUTE="4", WEBHOOK_INTERVAL_SECONDS="0")
        started.append(server.start())
    yield started
    for server in started:
        server.stop()


def test_two_app_servers_count_one_submissions_limit(two_servers, world):
    """SUBMISSIONS_PER_MINUTE=4 on each: four filings in all pass, taken in turns from both
    servers (and so from several workers), and the fifth is refused by either."""
    first, second = two_servers
    bearer = factories.bearer(world.hauler_token)
    statuses = []
    for n in range(4):
        server = (first, second)[n % 2]
        body = world.body(manifest_number=f"R-{uuid.uuid4().hex[:8]}")
        statuses.append(requests.post(f"{server.base}/v1/manifests", json=body, headers=bearer, timeout=30).status_code)
    assert statuses == [201] * 4
    for server in (first, second):
        refused = requests.post(
            f"{server.base}/v1/manifests", json=world.body(manifest_number="R-over"), headers=bearer, timeout=30
        )
        assert refused.status_code == 429, refused.text
        assert refused.headers["Content-Type"] == "application/problem+json"
        assert 0 < int(refused.headers["Retry-After"]) <= 60


def test_two_app_servers_count_one_failed_sign_in_limit(two_servers):
    """AUTH_FAILURE_LIMIT failures for one client id from one address: counted across both
    servers, the address then waits at either."""
    first, second = two_servers
    statuses = [
        requests.post(
            f"{(first, second)[n % 2].base}/oauth/token",
            data={"grant_type": "client_credentials"},
            auth=("nobody", "guess"),
            timeout=30,
        ).status_code
        for n in range(12)
    ]
    assert statuses == [401] * 10 + [429] * 2
