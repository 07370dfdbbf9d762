"""Idempotency keys: the record a key's first request works under, and its lease.

A key belongs to an OAuth client. Its first request claims it; a repeat is served the stored
response, a repeat with another request is refused, and a repeat while the first still works
waits (409) unless the first one's process died.
"""

import fcntl
import hashlib
import os
from pathlib import Path

from sqlalchemy import delete, select, text
from sqlalchemy.exc import IntegrityError

from domain.clock import now
from services.errors import Conflict, Invalid
from storage.models import IdempotencyRecord


class Lease:
    """Held while a request works under a key; released by the OS or the database if the
    process dies, so a retry after a crash is served instead of answered 409 forever.

    PostgreSQL: a session advisory lock (good across machines). SQLite: a file lock in
    `lock_dir` (SQLite lives on one machine anyway).
    """

    def __init__(self, engine, lock_dir, client_pk, key):
        digest = hashlib.sha256(f"{client_pk}:{key}".encode()).digest()
        self.engine, self.lock_dir = engine, Path(lock_dir)
        self.number = int.from_bytes(digest[:8], "big", signed=True)
        self.name = digest.hex()[:32]
        self.held = None

    def try_acquire(self) -> bool:
        if self.engine.dialect.name == "postgresql":
            connection = self.engine.connect()
            if connection.scalar(text("SELECT pg_try_advisory_lock(:n)"), {"n": self.number}):
                self.held = connection
                return True
            connection.close()
            return False
        self.lock_dir.mkdir(parents=True, exist_ok=True)
        handle = os.open(self.lock_dir / f"{self.name}.lock", os.O_CREAT | os.O_RDWR, 0o600)
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


def claim(session, lease: Lease, *, client_pk, key, fingerprint):
    """(the stored record to replay, None), or (None, the id of the record this request now
    works under, with `lease` held)."""
    record = IdempotencyRecord(client_id=client_pk, key=key, request_sha256=fingerprint)
    session.add(record)
    try:
        session.commit()
        lease.try_acquire()
        return None, record.id
    except IntegrityError:
        session.rollback()
    stored = session.scalar(
        select(IdempotencyRecord).where(IdempotencyRecord.client_id == client_pk, IdempotencyRecord.key == key)
    )
    if stored is None:  # released between our insert and this read
        return claim(session, lease, client_pk=client_pk, key=key, fingerprint=fingerprint)
    if stored.request_sha256 != fingerprint:
        raise Invalid(
            "This Idempotency-Key was used with a different request.",
            errors={"Idempotency-Key": ["Reused with a different body."]},
        )
    if stored.state == "in_flight":
        if not lease.try_acquire():
            raise Conflict("A request with this Idempotency-Key is still being processed.", retry_after=1)
        # Its lease is free: the request that held the key died. Take the work over.
        stored.created_at = now()
        session.commit()
        return None, stored.id
    return stored, None


def finish(session, record_id, *, status: int, body):
    """The key's response, kept for its repeats; whatever the view left uncommitted is dropped."""
    session.rollback()
    record = session.get(IdempotencyRecord, record_id)
    record.state = "done"
    record.response_status = status
    record.response_body = body
    session.commit()


def forget(session, record_id):
    """The key freed for a retry: its request failed without an answer worth repeating."""
    session.rollback()
    session.execute(delete(IdempotencyRecord).where(IdempotencyRecord.id == record_id))
    session.commit()
