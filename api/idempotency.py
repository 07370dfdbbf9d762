"""`Idempotency-Key` on POSTs: a retry gets the first response again, never a second effect.

Same key and same body: the stored response. Same key, different body: 422. Same key
while the first request is still running: 409. The key belongs to the OAuth client.
"""
import functools
import hashlib
import re
from datetime import timedelta

from flask import json, make_response, request
from sqlalchemy import delete, select
from sqlalchemy.exc import IntegrityError

from api.errors import ApiError, BadRequest, Conflict, ValidationFailed, render
from auth.protect import current_principal
from domain.clock import now
from storage.db import db
from storage.models import IdempotencyRecord

KEY = re.compile(r"^[\x21-\x7e]{1,200}$")
# A request still "in flight" after this long died with its worker; its key may be reused.
ABANDONED = timedelta(minutes=2)


def _fingerprint():
    digest = hashlib.sha256(f"{request.method} {request.path}\n".encode())
    if request.mimetype == "multipart/form-data":
        digest.update(request.headers.get("Content-Length", "").encode())
    else:
        digest.update(request.get_data(cache=True))
    return digest.hexdigest()


def _claim(session, client_pk, key, fingerprint):
    """The stored record for a replay, or None once this request holds the key."""
    record = IdempotencyRecord(client_id=client_pk, key=key, request_sha256=fingerprint)
    session.add(record)
    try:
        session.commit()
        return None, record
    except IntegrityError:
        session.rollback()
    stored = session.scalar(select(IdempotencyRecord).where(
        IdempotencyRecord.client_id == client_pk, IdempotencyRecord.key == key))
    if stored is None:  # released between our insert and this read
        return _claim(session, client_pk, key, fingerprint)
    if stored.request_sha256 != fingerprint:
        raise ValidationFailed("This Idempotency-Key was used with a different request.",
                               errors={"Idempotency-Key": ["Reused with a different body."]})
    if stored.state == "in_flight":
        if now() - stored.created_at < ABANDONED:
            raise Conflict("A request with this Idempotency-Key is still being processed.",
                           headers={"Retry-After": "1"})
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
        stored, record = _claim(session, client_pk, key, _fingerprint())
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

    return wrapper


def _release(session, record_id):
    session.rollback()
    session.execute(delete(IdempotencyRecord).where(IdempotencyRecord.id == record_id))
    session.commit()
