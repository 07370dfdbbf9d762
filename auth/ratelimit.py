"""fogx's rate limits (429 + Retry-After), counted by the `limits` library: in Redis when
`REDIS_URL` is set, so that every worker of every app server counts against the same limit,
else in each process's memory.

Failed client authentications are counted per address and per client id, after the secret is
checked. An address that failed `AUTH_FAILURE_LIMIT` times waits, whatever it sends; a client
id that many failures were made for slows down only the addresses that failed: a stranger who
knows a client id cannot keep the client that holds the right secret out.
"""
import base64
import functools
import math
import threading
import time

from flask import current_app, request
from limits import RateLimitItemPerSecond, storage, strategies
from limits.errors import StorageError

from auth.errors import LimitsUnavailable, OAuthRefused, TooManyAttempts
from auth.principal import current_principal

KEY_PREFIX = "fogx"
EXACT = 1000  # the highest limit counted exactly


class _Memory(storage.MemoryStorage):
    """`limits`' storage in the process's memory, its expired entries swept once a second: the
    library starts a thread to sweep them 10 ms after a hit whenever none is waiting, which
    under steady load is a hundred threads a second in each process."""

    SWEEP_SECONDS = 1.0

    def _MemoryStorage__schedule_expiry(self):
        if not self.timer.is_alive():
            self.timer = threading.Timer(self.SWEEP_SECONDS, self._MemoryStorage__expire_events)
            self.timer.daemon = True  # a process that exits does not wait for the next sweep
            self.timer.start()


class Limits:
    """The process's limits and where they are counted."""

    def __init__(self, config):
        if config.get("REDIS_URL"):
            self.storage = storage.storage_from_string(
                config["REDIS_URL"], key_prefix=KEY_PREFIX, wrap_exceptions=True,
                socket_timeout=2, socket_connect_timeout=2)
        else:
            self.storage = _Memory()
        # A limit of up to `EXACT` is counted exactly, each event kept for its window (a moving
        # window); a higher one (a limit lifted for a load test) by two counters a window, which
        # weigh the last window's count by the share of it still in view.
        self._moving = strategies.MovingWindowRateLimiter(self.storage)
        self._sliding = strategies.SlidingWindowCounterRateLimiter(self.storage)
        self.failure_limit = RateLimitItemPerSecond(config["AUTH_FAILURE_LIMIT"],
                                                    config["AUTH_FAILURE_WINDOW_SECONDS"], namespace="auth-failures")
        self.per_minute = {
            "submissions": RateLimitItemPerSecond(config["SUBMISSIONS_PER_MINUTE"], 60, namespace="submissions"),
            "exports": RateLimitItemPerSecond(config["EXPORTS_PER_MINUTE"], 60, namespace="exports"),
        }

    def _strategy(self, item):
        return self._moving if item.amount <= EXACT else self._sliding

    def failure_wait(self, *key) -> int:
        """Seconds until `key` may fail again, or 0 when it is under the limit."""
        strategy = self._strategy(self.failure_limit)
        if strategy.test(self.failure_limit, *key):
            return 0
        return _seconds_until(strategy.get_window_stats(self.failure_limit, *key).reset_time)

    def has_failed(self, *key) -> bool:
        stats = self._strategy(self.failure_limit).get_window_stats(self.failure_limit, *key)
        return stats.remaining < self.failure_limit.amount

    def failed(self, *key):
        self._strategy(self.failure_limit).hit(self.failure_limit, *key)

    def take(self, kind, client_id) -> int:
        """Counts one of `kind` for the client: 0, or the seconds to wait when it is over its limit."""
        item = self.per_minute[kind]
        strategy = self._strategy(item)
        if strategy.hit(item, client_id):
            return 0
        return _seconds_until(strategy.get_window_stats(item, client_id).reset_time)


def _seconds_until(at) -> int:
    return max(1, math.ceil(at - time.time()))


def current_limits() -> Limits:
    """The app's limits, for a view that counts failures of its own (a person's sign-in)."""
    return current_app.extensions["fogx.limits"]



def _unavailable(error):
    return LimitsUnavailable("The rate limits' store does not answer; nothing was done. Retry.", retry_after=5)


def _claimed_client_id():
    header = request.headers.get("Authorization", "")
    if header[:6].lower() == "basic ":
        try:
            return base64.b64decode(header[6:], validate=True).decode().split(":", 1)[0]
        except (ValueError, UnicodeDecodeError):
            return None
    return request.form.get("client_id")


def failed_auth_limiter(view):
    """Count the view's 401s (a failed client authentication) per address and per client id."""

    @functools.wraps(view)
    def limited(*args, **kwargs):
        limits, address, client_id = current_limits(), request.remote_addr or "", _claimed_client_id()
        try:
            wait = limits.failure_wait("address", address)
            if not wait and client_id:
                wait = limits.failure_wait("client", client_id)
                # A client id over its limit slows down the addresses that failed, not the others.
                wait = wait if wait and limits.has_failed("address", address) else 0
        except StorageError as error:
            raise _unavailable(error) from error
        if wait:
            raise TooManyAttempts("Too many failed client authentications; try again later.",
                                  retry_after=wait)
        try:
            return view(*args, **kwargs)
        except OAuthRefused as refused:
            if refused.status == 401:
                try:
                    limits.failed("address", address)
                    if client_id:
                        limits.failed("client", client_id)
                except StorageError as error:
                    raise _unavailable(error) from error
            raise

    return limited


def per_client(kind):
    """Limit a protected view per OAuth client: `kind` is `submissions` or `exports`."""

    def decorator(view):
        @functools.wraps(view)
        def limited(*args, **kwargs):
            try:
                wait = current_limits().take(kind, current_principal().client_id)
            except StorageError as error:
                raise _unavailable(error) from error
            if wait:
                raise TooManyAttempts(f"Too many {kind} from this client; slow down.", retry_after=wait)
            return view(*args, **kwargs)

        return limited

    return decorator


def init_app(app):
    app.extensions["fogx.limits"] = Limits(app.config)
