"""Every typed error as RFC 9457 `application/problem+json`: one table gives each kind its
status, problem `type` and title, whichever layer raised it."""

import logging

from flask import current_app, g, json
from werkzeug.exceptions import HTTPException

from auth import errors as auth
from services import errors as service
from storage.uploads import TooLarge

PROBLEM_JSON = "application/problem+json"
log = logging.getLogger("fogx.errors")


class ApiError(Exception):
    """An HTTP-level refusal raised by a view or its helpers (the request, not the use case, is at
    fault); `extra` members go into the problem body as they are."""

    def __init__(self, detail=None, *, errors=None, headers=None, **extra):
        super().__init__(detail)
        self.detail = detail
        self.errors = errors
        self.headers = headers or {}
        self.extra = extra


class BadRequest(ApiError):
    pass


class NotAcceptable(ApiError):
    pass


class PayloadTooLarge(ApiError):
    pass


class UriTooLong(ApiError):
    pass


class UnsupportedMediaType(ApiError):
    pass


class ServiceUnavailable(ApiError):
    pass


# kind -> (status, problem type slug, title); a kind not listed here is a 500.
PROBLEMS = {
    BadRequest: (400, "bad-request", "Bad request"),
    service.Incomplete: (400, "bad-request", "Bad request"),
    auth.InsecureTransport: (400, "bad-request", "Bad request"),
    auth.Malformed: (400, "bad-request", "Bad request"),
    auth.Unauthenticated: (401, "unauthorized", "Authentication required"),
    service.Refused: (401, "sign-in-refused", "Sign-in refused"),
    auth.InsufficientScope: (403, "insufficient-scope", "Insufficient scope"),
    service.Forbidden: (403, "forbidden", "Forbidden"),
    service.Locked: (403, "account-locked", "Account locked"),
    service.NotFound: (404, "not-found", "Not found"),
    NotAcceptable: (406, "not-acceptable", "Not acceptable"),
    service.Conflict: (409, "conflict", "Conflict"),
    PayloadTooLarge: (413, "payload-too-large", "Payload too large"),
    UriTooLong: (414, "uri-too-long", "URI too long"),
    UnsupportedMediaType: (415, "unsupported-media-type", "Unsupported media type"),
    service.Unsupported: (415, "unsupported-media-type", "Unsupported media type"),
    service.Gone: (410, "link-invalid", "Link expired or used"),
    service.Invalid: (422, "validation-failed", "Validation failed"),
    auth.TooManyAttempts: (429, "too-many-requests", "Too many requests"),
    service.Altered: (502, "stored-scan-altered", "Stored scan failed its integrity check"),
    ServiceUnavailable: (503, "service-unavailable", "Service unavailable"),
    service.Unavailable: (503, "service-unavailable", "Service unavailable"),
    auth.LimitsUnavailable: (503, "service-unavailable", "Service unavailable"),
}
# An OAuth endpoint's error keeps the status RFC 6749 gives it; its type names its `error` code.
TYPED = (*PROBLEMS, auth.OAuthRefused)


def status_of(error) -> int:
    """The status a typed error answers with."""
    if isinstance(error, auth.OAuthRefused):
        return error.status
    return next(PROBLEMS[kind] for kind in type(error).__mro__ if kind in PROBLEMS)[0]


def type_uri(slug: str) -> str:
    """The absolute `type` of a problem: its page at this instance's public address."""
    return f"{current_app.config['PUBLIC_BASE_URL']}/problems/{slug}"


def problem_response(status, slug, title, detail, *, errors=None, headers=None, extra=None):
    body = {"type": type_uri(slug), "title": title, "status": status, "detail": detail}
    if errors is not None:
        body["errors"] = errors
    if extra:
        body.update(extra)
    request_id = getattr(g, "request_id", None)
    if request_id:
        body["request_id"] = request_id
    response = current_app.response_class(json.dumps(body), status=status, mimetype=PROBLEM_JSON)
    response.headers.update(headers or {})
    return response


def render(error):
    """The problem response of any typed error (`TYPED`)."""
    if isinstance(error, auth.OAuthRefused):
        code = error.error
        response = problem_response(
            error.status,
            f"oauth-{code.replace('_', '-')}",
            code.replace("_", " ").capitalize(),
            error.message,
            extra=error.body,
        )
        response.headers.update(error.headers)
        response.headers["Content-Type"] = PROBLEM_JSON
        return response
    status, slug, title = next(PROBLEMS[kind] for kind in type(error).__mro__ if kind in PROBLEMS)
    if isinstance(error, ApiError):
        return problem_response(
            status, slug, title, error.detail or title, errors=error.errors, headers=error.headers, extra=error.extra
        )
    headers = {"Retry-After": str(error.retry_after)} if error.retry_after else {}
    extra = getattr(error, "extra", None) or None
    if isinstance(error, auth.AuthError):
        if error.challenge:
            headers["WWW-Authenticate"] = error.challenge
        extra = {"error": error.error} if error.error else None
    return problem_response(
        status, slug, title, error.message, errors=getattr(error, "errors", None), headers=headers, extra=extra
    )


# Werkzeug's own errors (routing, body size, ...) keep their status and get a problem body.
_HTTP_SLUGS = {
    400: ("bad-request", "Bad request"),
    401: ("unauthorized", "Authentication required"),
    403: ("forbidden", "Forbidden"),
    404: ("not-found", "Not found"),
    405: ("method-not-allowed", "Method not allowed"),
    406: ("not-acceptable", "Not acceptable"),
    413: ("payload-too-large", "Payload too large"),
    414: ("uri-too-long", "URI too long"),
    415: ("unsupported-media-type", "Unsupported media type"),
    422: ("validation-failed", "Validation failed"),
    429: ("too-many-requests", "Too many requests"),
}


def _http_error(error: HTTPException):
    slug, title = _HTTP_SLUGS.get(error.code, ("http-error", error.name))
    headers = {}
    if error.code == 405 and error.valid_methods:
        headers["Allow"] = ", ".join(sorted(error.valid_methods))
    return problem_response(error.code, slug, title, error.description, headers=headers)


def _unexpected(error: Exception):
    log.exception("unhandled error", exc_info=error)
    return problem_response(
        500, "internal-error", "Internal server error", "The server could not complete the request."
    )


def _upload_too_large(error: TooLarge):
    return render(PayloadTooLarge(f"A document is larger than {error.args[0]} bytes; nothing was stored."))


def _database_error(error):
    """A database that cannot be reached, or dropped the connection (or, on SQLite, stayed
    locked), is a 503 to retry; any other database error is a bug of ours, a 500."""
    from sqlalchemy.exc import InterfaceError, OperationalError

    if not (error.connection_invalidated or isinstance(error, (OperationalError, InterfaceError))):
        return _unexpected(error)
    log.warning("database error", exc_info=error)
    return render(
        ServiceUnavailable(
            "The database could not complete the request; nothing was stored. Retry.", headers={"Retry-After": "5"}
        )
    )


def init_app(app):
    from sqlalchemy.exc import DBAPIError

    app.register_error_handler(DBAPIError, _database_error)
    app.register_error_handler(TooLarge, _upload_too_large)
    for kind in TYPED:
        app.register_error_handler(kind, render)
    app.register_error_handler(HTTPException, _http_error)
    app.register_error_handler(Exception, _unexpected)
