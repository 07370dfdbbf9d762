"""What auth refuses: no valid token, a scope not held, too many attempts, an OAuth error.

Each carries its RFC 6749/6750 `error` code and, where the RFCs ask for one, the challenge or
wait to send; `api/errors.py` renders them as problem+json."""


class AuthError(Exception):
    def __init__(
        self, message: str, *, error: str | None = None, challenge: str | None = None, retry_after: int | None = None
    ):
        super().__init__(message)
        self.message = message
        self.error = error
        self.challenge = challenge
        self.retry_after = retry_after


class Malformed(AuthError):
    """A request to an OAuth or OpenID endpoint that names something this server never issued."""


class Unauthenticated(AuthError):
    """No bearer token, or one that is expired, revoked, malformed or unknown."""


class InsufficientScope(AuthError):
    """The token is good but holds none of the scopes the route needs."""


class TooManyAttempts(AuthError):
    """Too many failed client authentications, or requests of one kind, in the window."""


class LimitsUnavailable(AuthError):
    """The store the limits are counted in did not answer; nothing was done, and a retry may pass."""


class InsecureTransport(AuthError):
    """An OAuth request over plain HTTP."""


class OAuthRefused(AuthError):
    """An OAuth endpoint's error (RFC 6749 section 5.2, RFC 7009, RFC 7662): its own status,
    and the RFC's members (`error`, `error_description`) kept in the body."""

    def __init__(self, status: int, code: str, description: str, *, body: dict, headers: dict):
        super().__init__(description, error=code)
        self.status = status
        self.body = body
        self.headers = headers
