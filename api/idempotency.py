"""`Idempotency-Key` on POSTs: a retry gets the first response again, never a second effect.

Same key and same body: the stored response. Same key, different body: 422. Same key
while the first request is still running: 409. The key belongs to the OAuth client.
"""

import functools
import hashlib
import re

from flask import current_app, json, make_response, request

from api.errors import TYPED, BadRequest, render, status_of
from auth.protect import current_principal
from services.filing import idempotency
from storage.db import db

KEY = re.compile(r"^[\x21-\x7e]{1,200}$")


def lease(client_pk, key) -> idempotency.Lease:
    """The lease of `key` for this app's database."""
    return idempotency.Lease(db.engine, current_app.config["LOCK_DIR"], client_pk, key)


def _fingerprint():
    digest = hashlib.sha256(f"{request.method} {request.path}\n".encode())
    if request.mimetype == "multipart/form-data":
        digest.update(_parts_digest())
    else:
        digest.update(request.get_data(cache=True))
    return digest.hexdigest()


def _parts_digest() -> bytes:
    """Every part of a multipart body: each field's name and value, each file's name, filename
    and the SHA-256 of its bytes (hashed as they were spooled to disk, so memory does not grow
    with the upload). The boundary is left out: a client that retries with another one sends
    the same request."""
    parts = [["field", name, value] for name, value in request.form.items(multi=True)]
    parts += [
        ["file", name, upload.filename, upload.stream.sha256, upload.stream.size]
        for name, upload in request.files.items(multi=True)
    ]
    return hashlib.sha256(json.dumps(parts).encode()).digest()


def idempotent(view=None, *, fingerprint=None):
    """`fingerprint`: what tells this route's requests apart, where the body alone is not read
    (an upload its view parses); by default the method, path and body."""
    if view is None:
        return functools.partial(idempotent, fingerprint=fingerprint)

    @functools.wraps(view)
    def wrapper(*args, **kwargs):
        key = request.headers.get("Idempotency-Key")
        if key is None:
            return view(*args, **kwargs)
        if not KEY.match(key):
            raise BadRequest("Idempotency-Key must be 1 to 200 visible ASCII characters.")
        client_pk = current_principal().client_pk
        held = lease(client_pk, key)
        try:
            return _run(view, args, kwargs, client_pk, key, held, fingerprint or _fingerprint)
        finally:
            held.release()

    return wrapper


def _run(view, args, kwargs, client_pk, key, held, fingerprint):
    """Replay the stored response, or run the view under the key and store its response."""
    session = db.session
    stored, record_id = idempotency.claim(session, held, client_pk=client_pk, key=key, fingerprint=fingerprint())
    if stored is not None:
        response = make_response(json.dumps(stored.response_body), stored.response_status)
        response.mimetype = "application/problem+json" if stored.response_status >= 400 else "application/json"
        response.headers["Idempotent-Replayed"] = "true"
        return response
    try:
        response = make_response(view(*args, **kwargs))
    except TYPED as error:
        if status_of(error) >= 500:
            idempotency.forget(session, record_id)
            raise
        response = render(error)
    except Exception:
        idempotency.forget(session, record_id)
        raise
    idempotency.finish(session, record_id, status=response.status_code, body=response.get_json(silent=True))
    return response
