"""Work that follows a commit: locking committed scans in the object store, retried until done.

The database and the object store share no transaction. Objects are written unlocked
first; the rows that reference them commit with an outbox entry; the lock is applied from
the outbox. Rows are claimed with FOR UPDATE SKIP LOCKED on PostgreSQL, so several workers
drain one outbox without applying a lock twice or skipping one.
"""

from datetime import date, timedelta

from sqlalchemy import select, text

from domain.clock import now as clock_now
from storage.models import Document, OutboxEntry, new_id, unflushed
from storage.objects import StoreUnavailable

LOCK_OBJECT = "lock_object"
MAX_BACKOFF = timedelta(hours=1)


def enqueue_lock(session, *, key: str, retain_until: date):
    session.add(OutboxEntry(**_lock(key, retain_until)))


def lock_row(*, key: str, retain_until: date) -> OutboxEntry:
    """The same entry as a new row for `storage.prebuilt.insert_rows`, every column set."""
    return unflushed(
        OutboxEntry,
        id=new_id(),
        created_at=clock_now(),
        attempts=0,
        done_at=None,
        last_error=None,
        **_lock(key, retain_until),
    )


def _lock(key, retain_until):
    return {
        "kind": LOCK_OBJECT,
        "payload": {"key": key, "retain_until": retain_until.isoformat()},
        "next_attempt_at": clock_now(),
    }


def _claim(session, limit, at):
    query = (
        select(OutboxEntry)
        .where(OutboxEntry.done_at.is_(None), OutboxEntry.next_attempt_at <= at)
        .order_by(OutboxEntry.created_at)
        .limit(limit)
    )
    if session.get_bind().dialect.name == "postgresql":
        query = query.with_for_update(skip_locked=True)
    else:
        # SQLite has no row locks: take its one write lock before reading, so a second worker
        # waits for this one's commit instead of claiming the same rows.
        session.execute(text("UPDATE outbox SET attempts = attempts WHERE 1 = 0"))
    return session.scalars(query).all()


def drain(session, store, *, limit=100, progress=None) -> dict:
    """Apply due entries once; returns counts of what was done and what will be retried."""
    at = clock_now()
    done = failed = 0
    for entry in _claim(session, limit, at):
        try:
            if entry.kind == LOCK_OBJECT:
                retain_until = date.fromisoformat(entry.payload["retain_until"])
                documents = session.scalars(select(Document).where(Document.object_key == entry.payload["key"])).all()
                # The version each scan was stored as, not whatever was written under its key since.
                for version_id in {document.object_version_id for document in documents} or {None}:
                    store.set_retention(entry.payload["key"], retain_until, version_id=version_id)
                for document in documents:
                    if document.retained_until is None or document.retained_until < retain_until:
                        document.retained_until = retain_until
            entry.done_at = at
            done += 1
        except (StoreUnavailable, KeyError) as error:
            entry.attempts += 1
            entry.last_error = str(error)[:2000]
            entry.next_attempt_at = at + min(timedelta(seconds=2**entry.attempts), MAX_BACKOFF)
            failed += 1
        if progress:
            progress(1)
    session.commit()
    return {"done": done, "retry": failed}


def pending(session) -> int:
    return len(session.scalars(select(OutboxEntry.id).where(OutboxEntry.done_at.is_(None))).all())
