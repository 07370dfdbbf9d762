"""`Idempotency-Key` on POSTs: a retry gets the first response again, never a second effect.

Same key and same body: the stored response. Same key, different body: 422. Same key
while the first request is still running: 409. The key belongs to the OAuth client.
"""
import fcntl
import functools
import hashlib
import os
import re
from pathlib import Path

from flask import current_app, json, make_response, request
from sqlalchemy import delete, select, text
from sqlalchemy.exc import IntegrityError

from api.errors import ApiError, BadRequest, Conflict, ValidationFailed, render
from auth.protect import current_principal
from domain.clock import now
from storage.db import db
from storage.models import IdempotencyRecord

KEY = re.compile(r"^[\x21-\x7e]{1,200}$")


class Lease:
    """Held while a request works under a key; released by the OS or the database if the
    process dies, so a retry after a crash is served instead of answered 409 forever.

    PostgreSQL: a session advisory lock (good across machines). SQLite: a file lock
    (SQLite lives on one machine anyway).
    """

    def __init__(self, client_pk, key):
        digest = hashlib.sha256(f"{client_pk}:{key}".encode()).digest()
        self.number = int.from_bytes(digest[:8], "big", signed=True)
        self.name = digest.hex()[:32]
        self.held = None

    def try_acquire(self) -> bool:
        engine = db.engine
        if engine.dialect.name == "postgresql":
            connection = engine.connect()
            if connection.scalar(text("SELECT pg_try_advisory_lock(:n)"), {"n": self.number}):
                self.held = connection
                return True
            connection.close()
            return False
        folder = Path(current_app.config["LOCK_DIR"])
        folder.mkdir(parents=True, exist_ok=True)
        handle = os.open(folder / f"{self.name}.lock", os.O_CREAT | os.O_RDWR, 0o600)
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(handle)
            return False
        self.held = handle
        return True

    def release(self):
        if self.held is None:
            return
        if isinstance(self.held, int):
            fcntl.flock(self.held, fcntl.LOCK_UN)
            os.close(self.held)
        else:
            try:
                self.held.execute(text("SELECT pg_advisory_unlock(:n)"), {"n": self.number})
                self.held.commit()
            finally:
                self.held.close()
        self.held = None


def _fingerprint():
    digest = hashlib.sha256(f"{request.method} {request.path}\n".encode())
    if request.mimetype == "multipart/form-data":
        digest.update(request.headers.get("Content-Length", "").encode())
    else:
        digest.update(request.get_data(cache=True))
    return digest.hexdigest()


def _claim(session, client_pk, key, fingerprint, lease):
    """(stored record to replay, None) or (None, the record this request now works under)."""
    record = IdempotencyRecord(client_id=client_pk, key=key, request_sha256=fingerprint)
    session.add(record)
    try:
        session.commit()
        lease.try_acquire()
        return None, record
    except IntegrityError:
        session.rollback()
    stored = session.scalar(select(IdempotencyRecord).where(
        IdempotencyRecord.client_id == client_pk, IdempotencyRecord.key == key))
    if stored is None:  # released between our insert and this read
        return _claim(session, client_pk, key, fingerprint, lease)
    if stored.request_sha256 != fingerprint:
        raise ValidationFailed("This Idempotency-Key was used with a different request.",
                               errors={"Idempotency-Key": ["Reused with a different body."]})
    if stored.state == "in_flight":
        if not lease.try_acquire():
            raise Conflict("A request with this Idempotency-Key is still being processed.",
                           headers={"Retry-After": "1"})
        # Its lease is free: the request that held the key died. Take the work over.
        stored.created_at = now()
        session.commit()
        return None, stored
    return stored, None


def idempotent(view):
    @functools.wraps(view)
    def wrapper(*args, **kwargs):
        key = request.headers.get("Idempotency-Key")
        if key is None:
            return view(*args, **kwargs)
        if not KEY.match(key):
            raise BadRequest("Idempotency-Key must be 1 to 200 visible ASCII characters.")
        session = db.session
        client_pk = current_principal().client_pk
        lease = Lease(client_pk, key)
        try:
            return _run(view, args, kwargs, session, client_pk, key, lease)
        finally:
            lease.release()

    return wrapper


def _run(view, args, kwargs, session, client_pk, key, lease):
    """Replay the stored response, or run the view under the key and store its response."""
    stored, record = _claim(session, client_pk, key, _fingerprint(), lease)
    if stored is not None:
        response = make_response(json.dumps(stored.response_body), stored.response_status)
        response.mimetype = ("application/problem+json" if stored.response_status >= 400
                             else "application/json")
        response.headers["Idempotent-Replayed"] = "true"
        return response
    record_id = record.id
    try:
        response = make_response(view(*args, **kwargs))
    except ApiError as error:
        if error.status >= 500:
            _release(session, record_id)
            raise
        response = render(error)
    except Exception:
        _release(session, record_id)
        raise
    session.rollback()
    record = session.get(IdempotencyRecord, record_id)
    record.state = "done"
    record.response_status = response.status_code
    record.response_body = response.get_json(silent=True)
    session.commit()
    return response


def _release(session, record_id):
    session.rollback()
    session.execute(delete(IdempotencyRecord).where(IdempotencyRecord.id == record_id))
    session.commit()
