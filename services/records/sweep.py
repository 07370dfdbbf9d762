"""Removing objects that no committed row references: uploads whose commit never came."""

from datetime import timedelta

from sqlalchemy import select

from domain.clock import now as clock_now
from storage.models import Document
from storage.objects import StoreUnavailable


def sweep(session, store, *, older_than: timedelta, dry_run=False, progress=None) -> dict:
    """Delete unreferenced objects older than `older_than` (younger ones may be mid-commit),
    and the store's abandoned partial writes as old."""
    referenced = set(session.scalars(select(Document.object_key)))
    cutoff = clock_now() - older_than
    counts = {"kept": 0, "removed": 0, "young": 0, "refused": 0, "partials": 0}
    for key, modified in store.keys():
        if key in referenced:
            counts["kept"] += 1
        elif modified > cutoff:
            counts["young"] += 1
        elif dry_run:
            counts["removed"] += 1
        else:
            try:
                store.delete(key)
                counts["removed"] += 1
            except StoreUnavailable:
                counts["refused"] += 1  # locked: never ours to remove
        if progress:
            progress(key)
    for name, modified in store.abandoned():  # partial copies a crashed upload left behind
        if modified <= cutoff:
            if not dry_run:
                store.discard(name)
            counts["partials"] += 1
    return counts
