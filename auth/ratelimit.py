"""fogx's rate limits (429 + Retry-After), counted by the `limits` library: in Redis when
`REDIS_URL` is set, so that every worker of every app server counts against the same limit,
else in each process's memory.

Failed client authentications are counted per address and per client id, after the secret is
checked. An address that failed `AUTH_FAILURE_LIMIT` times waits, whatever it sends; a client
id that many failures were made for slows down only the addresses that failed: a stranger who
knows a client id cannot keep the client that holds the right secret out. A person's failed
sign-ins are counted the same way (`SignInAttempts`).
"""

import base64
import contextlib
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
                config["REDIS_URL"],
                key_prefix=KEY_PREFIX,
                wrap_exceptions=True,
                socket_timeout=2,
                socket_connect_timeout=2,
            )
        else:
            self.storage = _Memory()
        # A limit of up to `EXACT` is counted exactly, each event kept for its window (a moving
        # window); a higher one (a limit lifted for a load test) by two counters a window, which
        # weigh the last window's count by the share of it still in view.
        self._moving = strategies.MovingWindowRateLimiter(self.storage)
        self._sliding = strategies.SlidingWindowCounterRateLimiter(self.storage)
        self.failure_limit = RateLimitItemPerSecond(
            config["AUTH_FAILURE_LIMIT"], config["AUTH_FAILURE_WINDOW_SECONDS"], namespace="auth-failures"
        )
        self.pair_limit = RateLimitItemPerSecond(
            config["SIGN_IN_FAILURE_LIMIT"], config["SIGN_IN_LOCKOUT_SECONDS"], namespace="sign-in-pairs"
        )
        self.per_minute = {
            "submissions": RateLimitItemPerSecond(config["SUBMISSIONS_PER_MINUTE"], 60, namespace="submissions"),
            "exports": RateLimitItemPerSecond(config["EXPORTS_PER_MINUTE"], 60, namespace="exports"),
        }

    def _strategy(self, item):
        return self._moving if item.amount <= EXACT else self._sliding

    def failure_wait(self, *key, limit=None) -> int:
        """Seconds until `key` may fail again, or 0 when it is under the limit (`failure_limit`
        unless another is given)."""
        limit = limit or self.failure_limit
        strategy = self._strategy(limit)
        if strategy.test(limit, *key):
            return 0
        return _seconds_until(strategy.get_window_stats(limit, *key).reset_time)

    def has_failed(self, *key, limit=None) -> bool:
        limit = limit or self.failure_limit
        return self._strategy(limit).get_window_stats(limit, *key).remaining < limit.amount

    def failed(self, *key, limit=None):
        limit = limit or self.failure_limit
        self._strategy(limit).hit(limit, *key)

    def counted(self, *key, limit) -> bool:
        """One more try counted against `key`, in one step with the test of its limit: False,
        and nothing counted, when it is over."""
        return self._strategy(limit).hit(limit, *key)

    def forget(self, *key, limit):
        self._strategy(limit).clear(limit, *key)

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


class SignInAttempts:
    """A person's sign-in attempts from one address for the account an email address names
    (whether or not it has one: the answers are the same), counted as client authentications
    are, so that a stranger cannot keep the owner out:

    - an address that failed `AUTH_FAILURE_LIMIT` times in `AUTH_FAILURE_WINDOW_SECONDS`
      (passwords and second-factor codes, any accounts) waits, whatever it sends;
    - an address that failed `SIGN_IN_FAILURE_LIMIT` passwords for one account within
      `SIGN_IN_LOCKOUT_SECONDS` waits for that account; each try is counted before the
      password is checked, so that tries sent at once come in turn, and a right password
      clears the count;
    - an account whose passwords failed `AUTH_FAILURE_LIMIT` times in the window, from any
      addresses, slows down the addresses that failed for it to one try each, and no other:
      the owner signing in from where no one failed is never kept waiting.
    """

    def __init__(self, limits: Limits, *, address: str, email: str):
        self.limits = limits
        self.address = ("sign-in address", address)
        self.account = ("sign-in account", email)
        self.pair = ("sign-in pair", email, address)

    def take(self) -> int:
        """A try of a password: 0, and the try counted against this address for this account
        (`password_right` forgets it), or the seconds until this address may try it again."""
        limits = self.limits
        with _counting():
            wait = limits.failure_wait(*self.address)
            if not wait and limits.has_failed(*self.pair, limit=limits.pair_limit):
                wait = limits.failure_wait(*self.account)
            if not wait and not limits.counted(*self.pair, limit=limits.pair_limit):
                wait = limits.failure_wait(*self.pair, limit=limits.pair_limit)
        return wait

    def address_wait(self) -> int:
        """Seconds until this address may try a second-factor code again, or 0."""
        with _counting():
            return self.limits.failure_wait(*self.address)

    def password_failed(self):
        """A wrong password: its try was counted for this address and account by `take`."""
        with _counting():
            self.limits.failed(*self.address)
            self.limits.failed(*self.account)

    def code_failed(self):
        """A wrong second-factor code: the account's own count is kept in the database."""
        with _counting():
            self.limits.failed(*self.address)

    def password_right(self):
        with _counting():
            self.limits.forget(*self.pair, limit=self.limits.pair_limit)


@contextlib.contextmanager
def _counting():
    """The limits' store not answering is a 503 (nothing was done), not a 500."""
    try:
        yield
    except StorageError as error:
        raise _unavailable(error) from error


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
            raise TooManyAttempts("Too many failed client authentications; try again later.", retry_after=wait)
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
