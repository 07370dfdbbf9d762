"""Typed errors and their RFC 9457 `application/problem+json` rendering, for every route."""
import logging

from flask import current_app, g, json
from werkzeug.exceptions import HTTPException

PROBLEM_JSON = "application/problem+json"
log = logging.getLogger("fogx.errors")


class ApiError(Exception):
    """An error with a preset status, `type` slug and `title`; raise it anywhere below a view."""

    status = 400
    slug = "bad-request"
    title = "Bad request"

    def __init__(self, detail=None, *, errors=None, headers=None, **extra):
        super().__init__(detail or self.title)
        self.detail = detail or self.title
        self.errors = errors
        self.headers = headers or {}
        self.extra = extra


class BadRequest(ApiError):
    pass


class Unauthorized(ApiError):
    status, slug, title = 401, "unauthorized", "Authentication required"


class Forbidden(ApiError):
    status, slug, title = 403, "insufficient-scope", "Insufficient scope"


class NotFound(ApiError):
    status, slug, title = 404, "not-found", "Not found"


class NotAcceptable(ApiError):
    status, slug, title = 406, "not-acceptable", "Not acceptable"


class Conflict(ApiError):
    status, slug, title = 409, "conflict", "Conflict"


class PayloadTooLarge(ApiError):
    status, slug, title = 413, "payload-too-large", "Payload too large"


class UnsupportedMediaType(ApiError):
    status, slug, title = 415, "unsupported-media-type", "Unsupported media type"


class ValidationFailed(ApiError):
    status, slug, title = 422, "validation-failed", "Validation failed"


class TooManyRequests(ApiError):
    status, slug, title = 429, "too-many-requests", "Too many requests"


class ServiceUnavailable(ApiError):
    status, slug, title = 503, "service-unavailable", "Service unavailable"


def problem_response(status, slug, title, detail, *, errors=None, headers=None, extra=None):
    body = {"type": f"/problems/{slug}", "title": title, "status": status, "detail": detail}
    if errors is not None:
        body["errors"] = errors
    if extra:
        body.update(extra)
    request_id = getattr(g, "request_id", None)
    if request_id:
        body["request_id"] = request_id
    response = current_app.response_class(
        json.dumps(body), status=status, mimetype=PROBLEM_JSON
    )
    response.headers.update(headers or {})
    return response


def render(error: ApiError):
    return problem_response(
        error.status,
        error.slug,
        error.title,
        error.detail,
        errors=error.errors,
        headers=error.headers,
        extra=error.extra,
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


def _upload_too_large(error):
    return render(PayloadTooLarge(f"A document is larger than {error.args[0]} bytes; nothing was stored."))


def _database_error(error):
    """A database that cannot be reached, or dropped the connection (or, on SQLite, stayed
    locked), is a 503 to retry; any other database error is a bug of ours, a 500."""
    from sqlalchemy.exc import InterfaceError, OperationalError

    if not (error.connection_invalidated or isinstance(error, (OperationalError, InterfaceError))):
        return _unexpected(error)
    log.warning("database error", exc_info=error)
    return render(ServiceUnavailable("The database could not complete the request; nothing was "
                                     "stored. Retry.", headers={"Retry-After": "5"}))


def init_app(app):
    from sqlalchemy.exc import DBAPIError

    from storage.uploads import TooLarge

    app.register_error_handler(DBAPIError, _database_error)
    app.register_error_handler(TooLarge, _upload_too_large)
    app.register_error_handler(ApiError, render)
    app.register_error_handler(HTTPException, _http_error)
    app.register_error_handler(Exception, _unexpected)
