"""What a use case refuses, in its own words; `api/errors.py` gives each kind its HTTP status."""


class ServiceError(Exception):
    """A refusal the caller can act on: a message, the fields at fault (`errors`: field path ->
    messages) and, where waiting helps, how many seconds to wait before retrying."""

    def __init__(self, message: str, *, errors: dict | None = None, retry_after: int | None = None, **extra):
        super().__init__(message)
        self.message = message
        self.errors = errors
        self.retry_after = retry_after
        self.extra = extra  # further members of the problem body (e.g. a machine-readable `error`)


class NotFound(ServiceError):
    """No such thing within the caller's reach: the same answer whether it exists elsewhere or not."""


class Conflict(ServiceError):
    """The request contradicts what is stored, or a request still in flight."""


class Invalid(ServiceError):
    """The request cannot be filed as it stands; `errors` names each field at fault."""

    def __init__(self, message: str, errors: dict | None = None, **kwargs):
        super().__init__(message, errors=errors, **kwargs)


class Forbidden(ServiceError):
    """The caller is known and reaches the object, but its role may not do this to it."""


class Refused(ServiceError):
    """A person's sign-in was not accepted (wrong password or code); says nothing of which."""


class Locked(ServiceError):
    """An account locked after repeated failures, for a while."""


class Gone(ServiceError):
    """A link (invitation, password reset) that has expired or was used already."""


class Unsupported(ServiceError):
    """The bytes sent are not of a kind the use case takes (a scan that is no PDF, JPEG, PNG or TIFF)."""


class Incomplete(ServiceError):
    """The body ended before the length it declared; nothing was stored."""


class Altered(ServiceError):
    """A store gave back other bytes than were stored: not the caller's doing, and not served."""


class Unavailable(ServiceError):
    """A store the use case needs did not answer; nothing was stored, and a retry may succeed."""
