"""Rate limits counted in the process's memory (no `REDIS_URL`): counted as `limits` counts them,
with their expired entries swept by one thread now and then, not a thread started after each
hit (a hundred threads a second in each process under steady load)."""

import time

from auth.ratelimit import Limits

CONFIG = {
    "REDIS_URL": "",
    "AUTH_FAILURE_LIMIT": 5,
    "AUTH_FAILURE_WINDOW_SECONDS": 60,
    "SIGN_IN_FAILURE_LIMIT": 5,
    "SIGN_IN_LOCKOUT_SECONDS": 900,
    "SUBMISSIONS_PER_MINUTE": 3,
    "EXPORTS_PER_MINUTE": 1_000_000,
}


def test_a_steady_stream_of_hits_starts_no_thread_per_hit():
    limits = Limits(CONFIG)
    sweepers = set()
    ends = time.monotonic() + 0.3  # thirty of the library's 10 ms sweeps
    while time.monotonic() < ends:
        assert limits.take("exports", "dispatch-vendor") == 0
        sweepers.add(limits.storage.timer)
        time.sleep(0.001)
    assert len(sweepers) <= 2, len(sweepers)  # the one made with the storage, and one sweep
    assert limits.storage.timer.daemon  # an exiting process does not wait for the next sweep


def test_the_limit_still_holds_and_expired_entries_are_still_swept():
    limits = Limits(CONFIG)
    assert [limits.take("submissions", "hauler") for _ in range(3)] == [0, 0, 0]
    assert limits.take("submissions", "hauler") > 0  # the fourth in a minute waits
    limits.storage.SWEEP_SECONDS = 0.1
    limits.storage.incr("brief", expiry=0.05)
    deadline = time.monotonic() + 5
    while "brief" in limits.storage.storage and time.monotonic() < deadline:
        limits.storage.incr("other", expiry=60)  # hits go on; none of them reads "brief"
        time.sleep(0.05)
    assert "brief" not in limits.storage.storage
