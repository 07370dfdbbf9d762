"""`create_app(config)`: extensions are created at module level and wired here."""

import io
import re
import uuid

from flask import Flask, Request, current_app, g, has_request_context, request
from werkzeug.middleware.proxy_fix import ProxyFix

from api import cli, errors, exports, logs
from api.config import load_config
from api.errors import BadRequest, PayloadTooLarge, UriTooLong
from api.worker import start_background_work
from storage.db import db
from storage.objects import make_store
from storage.uploads import HashingSpool

_REQUEST_ID = re.compile(r"^[A-Za-z0-9._:-]{1,100}$")
# A scan PUT as the raw body: its view streams it, within MAX_UPLOAD_BYTES.
_STREAMED_PUT = re.compile(r"^/v1/manifests/[^/]+/documents/[^/]+/?$")
# The longest request target (path and query, as sent) the API reads. gunicorn takes request
# lines up to 8190 bytes (gunicorn.conf.py), so one longer than this gets our 414, not its page.
MAX_URL_BYTES = 4096
# Requests that only read: the API never writes on them, so their sessions read in autocommit.
READING_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})


def _only_reads() -> bool:
    return has_request_context() and request.method in READING_METHODS


class FogxRequest(Request):
    """File parts of multipart bodies are spooled to disk, hashed and counted as they arrive."""

    def _get_file_stream(self, total_content_length, content_type, filename=None, content_length=None):
        spool = HashingSpool(current_app.config["MAX_UPLOAD_BYTES"])
        g.setdefault("spools", []).append(spool)
        return spool


def create_app(config=None):
    app = Flask(__name__, static_folder=None)
    app.request_class = FogxRequest
    app.config.update(load_config(config))
    # Werkzeug refuses larger bodies with a 413 before a view reads them, chunked or not.
    app.config["MAX_CONTENT_LENGTH"] = app.config["MAX_UPLOAD_BYTES"]
    app.json.sort_keys = False

    if app.config["TRUSTED_PROXIES"]:
        # Behind a TLS-terminating proxy the scheme and client address come from its headers.
        app.wsgi_app = ProxyFix(
            app.wsgi_app, x_for=app.config["TRUSTED_PROXIES"], x_proto=app.config["TRUSTED_PROXIES"]
        )
    db.init_app(app, only_reads=_only_reads)
    app.extensions["fogx.store"] = make_store(app.config)
    errors.init_app(app)
    cli.init_app(app)
    _request_ids(app)
    _refuse_large_bodies(app)
    start_background_work(app)

    from auth.server import init_app as init_auth

    init_auth(app)

    from api.people.oidc import init_app as init_oidc

    init_oidc(app)

    from api import docs, health, portal
    from api.audit import changes, trends
    from api.audit import lists as audit
    from api.disposal import deliveries, receipts
    from api.filing import corrections, manifests
    from api.outbound import notices, webhooks
    from api.records import maintenance
    from api.records import record as records
    from api.registry import imports, jurisdictions
    from api.registry import routes as registry

    app.register_blueprint(health.bp)
    app.register_blueprint(docs.bp)
    app.register_blueprint(jurisdictions.bp)
    app.register_blueprint(registry.bp)
    app.register_blueprint(imports.bp)
    app.register_blueprint(manifests.bp)
    app.register_blueprint(records.bp)
    app.register_blueprint(maintenance.bp)
    app.register_blueprint(audit.bp)
    app.register_blueprint(corrections.bp)
    app.register_blueprint(corrections.sent_bp)
    app.register_blueprint(changes.bp)
    app.register_blueprint(webhooks.bp)
    app.register_blueprint(receipts.bp)
    app.register_blueprint(deliveries.bp)
    app.register_blueprint(trends.bp)
    app.register_blueprint(notices.bp)
    app.register_blueprint(portal.bp)

    from api import problems
    from api.people import account_pages, signin
    from api.people import memberships as people

    signin.init_app(app)
    app.register_blueprint(account_pages.bp)
    app.register_blueprint(problems.bp)
    app.register_blueprint(people.bp)
    logs.init_app(app)
    # Last, so that a request passed on is logged and timed as any other.
    exports.init_app(app)
    return app


def _request_ids(app):
    @app.before_request
    def _assign():
        supplied = request.headers.get("X-Request-Id", "")
        g.request_id = supplied if _REQUEST_ID.match(supplied) else uuid.uuid4().hex

    @app.before_request
    def _refuse_long_urls():
        if len(_request_target(request.environ)) > MAX_URL_BYTES:
            raise UriTooLong(f"The URL is longer than {MAX_URL_BYTES} bytes.")

    @app.teardown_request
    def _remove_spools(_exc):
        for spool in g.pop("spools", []):
            spool.close()

    @app.before_request
    def _refuse_nul():
        # NUL never belongs in a URL; PostgreSQL could not even compare it.
        if "\x00" in request.path or any("\x00" in k or "\x00" in v for k, v in request.args.items(multi=True)):
            raise BadRequest("The URL contains a NUL character.")

    @app.after_request
    def _echo(response):
        response.headers["X-Request-Id"] = g.get("request_id", "")
        response.headers["X-Content-Type-Options"] = "nosniff"
        if response.status_code >= 400 or request.path.startswith(("/v1/", "/oauth/")):
            response.headers.setdefault("Cache-Control", "no-store")
        return response


def _request_target(environ) -> str:
    """The path and query as the client sent them (gunicorn and Werkzeug keep it whole)."""
    raw = environ.get("RAW_URI") or environ.get("REQUEST_URI")
    if raw is not None:
        return raw
    query = environ.get("QUERY_STRING", "")
    return environ.get("SCRIPT_NAME", "") + environ.get("PATH_INFO", "") + (f"?{query}" if query else "")


class _SmallBodies:
    """WSGI middleware: a non-multipart body is read whole, up to `limit` bytes, before Flask.

    Werkzeug's form parser silently truncates a chunked body at the size limit; reading the
    body here instead turns "too large" into a 413, chunked or not, before any view or
    Authlib sees a truncated body. Multipart uploads, and a scan PUT as a raw body, are
    streamed by their views.
    """

    def __init__(self, wsgi_app, limit):
        self.wsgi_app = wsgi_app
        self.limit = limit

    def __call__(self, environ, start_response):
        if _BlockReads.wraps(environ.get("wsgi.input")):
            environ["wsgi.input"] = _BlockReads(environ["wsgi.input"])
        method = environ.get("REQUEST_METHOD")
        if (
            method in ("POST", "PUT", "PATCH")
            and not environ.get("CONTENT_TYPE", "").startswith("multipart/")
            and not (method == "PUT" and _STREAMED_PUT.match(environ.get("PATH_INFO", "")))
        ):
            declared = environ.get("CONTENT_LENGTH")
            chunked = "chunked" in environ.get("HTTP_TRANSFER_ENCODING", "").lower()
            if declared and declared.isdigit():
                size = int(declared)
                body = environ["wsgi.input"].read(min(size, self.limit + 1)) if size <= self.limit else b""
                too_large = size > self.limit
            elif chunked or environ.get("wsgi.input_terminated"):
                body = environ["wsgi.input"].read(self.limit + 1)
                too_large = len(body) > self.limit
            else:
                body, too_large = b"", False
            environ["fogx.body_too_large"] = too_large
            environ["wsgi.input"] = io.BytesIO(b"" if too_large else body)
            environ["CONTENT_LENGTH"] = "0" if too_large else str(len(body))
            environ.pop("HTTP_TRANSFER_ENCODING", None)
            environ.pop("wsgi.input_terminated", None)
        return self.wsgi_app(environ, start_response)


class _BlockReads:
    """gunicorn's request body, read a block at a time instead of a kilobyte at a time.

    gunicorn's `Body.read(n)` gathers `n` bytes 1 KiB per call to its reader, copying its
    buffer on each: a 50 MB scan costs some 50,000 trips and most of the upload's time. Its
    reader (length-delimited or chunked) honours any size, so reads go to it directly
    whenever `Body` holds nothing buffered; and its socket is read up to `SOCKET_BLOCK` bytes
    a call instead of gunicorn's 8 KiB (128 system calls and as many buffer copies a megabyte).
    A body of declared length is read from the socket itself once gunicorn holds none of it
    buffered: its reader passes each block through its buffer, copying it four or five times.
    """

    SOCKET_BLOCK = 256 * 1024

    def __init__(self, body):
        self._body = body
        reader = body.reader
        self._unreader = unreader = getattr(reader, "unreader", None)
        if isinstance(getattr(unreader, "mxchunk", None), int):
            unreader.mxchunk = max(unreader.mxchunk, self.SOCKET_BLOCK)
        declared = isinstance(getattr(reader, "length", None), int)
        self._socket = getattr(unreader, "sock", None) if declared and hasattr(unreader, "buf") else None

    @staticmethod
    def wraps(stream):
        return hasattr(stream, "reader") and hasattr(stream, "buf") and hasattr(stream.buf, "tell")

    def read(self, size=-1):
        if size is None or size < 0 or self._body.buf.tell():
            return self._body.read(size)
        if self._socket is not None:
            return self._received(size)
        return self._body.reader.read(size)

    def _received(self, size):
        """Up to `size` bytes of the body (fewer only where it ends early): what gunicorn holds
        first, then straight from the socket, counted off the reader's length as gunicorn would."""
        reader = self._body.reader
        held = self._unreader.buf.seek(0, io.SEEK_END)
        parts = [reader.read(min(size, held))] if held else []
        want = min(size - sum(map(len, parts)), reader.length)
        try:
            while want > 0:
                data = self._socket.recv(want)
                if not data:
                    break
                reader.length -= len(data)
                want -= len(data)
                parts.append(data)
        except Exception:
            self._body.failed = True  # where the next request on the connection starts is unknown
            raise
        return parts[0] if len(parts) == 1 else b"".join(parts)

    def readline(self, size=None):
        return self._body.readline(size)

    def __iter__(self):
        return iter(self._body)


def _refuse_large_bodies(app):
    app.wsgi_app = _SmallBodies(app.wsgi_app, app.config["MAX_JSON_BYTES"])

    @app.before_request
    def _refuse():
        if request.environ.get("fogx.body_too_large"):
            raise PayloadTooLarge(f"The body is larger than {app.config['MAX_JSON_BYTES']} bytes.")
