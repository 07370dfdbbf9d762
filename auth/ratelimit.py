"""Failed client authentications are limited per client id and per address (429 + Retry-After).

Counters live in the process; behind several workers each keeps its own window, which
still bounds guessing to `AUTH_FAILURE_LIMIT` x workers per window.
"""
import base64
import functools
import threading
import time
from collections import defaultdict, deque

from flask import current_app, request

from auth.errors import OAuthRefused, TooManyAttempts
from auth.principal import current_principal


class FailureWindow:
    """Events per key in a sliding window; `retry_after` says how long a full key must wait."""

    def __init__(self, limit, window_seconds, clock=time.monotonic):
        self.limit = limit
        self.window = window_seconds
        self.clock = clock
        self._failures = defaultdict(deque)
        self._lock = threading.Lock()

    def _prune(self, key, at):
        failures = self._failures[key]
        while failures and failures[0] <= at - self.window:
            failures.popleft()
        return failures

    def retry_after(self, keys):
        """Seconds until the first blocked key frees up, or 0 when none is blocked."""
        at = self.clock()
        with self._lock:
            waits = [
                failures[0] + self.window - at
                for failures in (self._prune(key, at) for key in keys)
                if len(failures) >= self.limit
            ]
        return max(1, int(max(waits)) + 1) if waits else 0

    def record(self, keys):
        at = self.clock()
        with self._lock:
            for key in keys:
                self._prune(key, at).append(at)


def _claimed_client_id():
    header = request.headers.get("Authorization", "")
    if header[:6].lower() == "basic ":
        try:
            return base64.b64decode(header[6:], validate=True).decode().split(":", 1)[0]
        except (ValueError, UnicodeDecodeError):
            return None
    return request.form.get("client_id")


def failed_auth_limiter(view):
    @functools.wraps(view)
    def limited(*args, **kwargs):
        window = current_app.extensions["fogx.auth_failures"]
        keys = [("addr", request.remote_addr)]
        client_id = _claimed_client_id()
        if client_id:
            keys.append(("client", client_id))
        wait = window.retry_after(keys)
        if wait:
            raise TooManyAttempts("Too many failed client authentications; try again later.",
                                  retry_after=wait)
        try:
            return view(*args, **kwargs)
        except OAuthRefused as refused:
            if refused.status == 401:
                window.record(keys)
            raise

    return limited


def per_client(kind):
    """Limit a protected view per OAuth client: `kind` is `submissions` or `exports`."""

    def decorator(view):
        @functools.wraps(view)
        def limited(*args, **kwargs):
            window = current_app.extensions[f"fogx.limit.{kind}"]
            key = ("client", current_principal().client_id)
            wait = window.retry_after([key])
            if wait:
                raise TooManyAttempts(f"Too many {kind} from this client; slow down.", retry_after=wait)
            window.record([key])
            return view(*args, **kwargs)

        return limited

    return decorator


def init_app(app):
    app.extensions["fogx.auth_failures"] = FailureWindow(
        app.config["AUTH_FAILURE_LIMIT"], app.config["AUTH_FAILURE_WINDOW_SECONDS"]
    )
    app.extensions["fogx.limit.submissions"] = FailureWindow(app.config["SUBMISSIONS_PER_MINUTE"], 60)
    app.extensions["fogx.limit.exports"] = FailureWindow(app.config["EXPORTS_PER_MINUTE"], 60)
