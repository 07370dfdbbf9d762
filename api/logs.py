"""Structured JSON logs, one object a line, each carrying the request id of its request."""

import json
import logging
import sys
import time

from flask import g, has_request_context, request

access = logging.getLogger("fogx.access")


class JsonFormatter(logging.Formatter):
    def format(self, record):
        entry = {
            "ts": self.formatTime(record, "%Y-%m-%dT%H:%M:%S") + f".{int(record.msecs):03d}Z",
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": record.getMessage(),
        }
        if has_request_context():
            entry["request_id"] = g.get("request_id")
        entry.update(getattr(record, "fields", {}))
        if record.exc_info:
            entry["error"] = self.formatException(record.exc_info)
        return json.dumps(entry, default=str)


JsonFormatter.converter = time.gmtime


class StderrHandler(logging.StreamHandler):
    """Writes to whatever `sys.stderr` is at the time (a test's capture, or the real one)."""

    def __init__(self):
        super().__init__()

    @property
    def stream(self):
        return sys.stderr

    @stream.setter
    def stream(self, _value):
        pass


def configure():
    """JSON lines on stderr for the `fogx` loggers (idempotent)."""
    logger = logging.getLogger("fogx")
    if any(isinstance(h.formatter, JsonFormatter) for h in logger.handlers):
        return
    handler = StderrHandler()
    handler.setFormatter(JsonFormatter())
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    logger.propagate = False


def init_app(app):
    configure()

    @app.before_request
    def _start():
        g.started = time.perf_counter()

    @app.after_request
    def _log(response):
        # Written once the response has been sent (gunicorn closes it then): the line is not
        # on the client's wait, and its duration includes the sending.
        principal = g.get("principal")
        fields = {
            "request_id": g.get("request_id"),
            "method": request.method,
            "path": request.path,
            "status": response.status_code,
            "client_id": principal.client_id if principal else None,
        }
        started = g.get("started", time.perf_counter())

        def write():
            fields["duration_ms"] = round((time.perf_counter() - started) * 1000, 1)
            access.info("request", extra={"fields": fields})

        response.call_on_close(write)
        return response
