"""A restaurant's binder and ZIP, made once for each state of its record and kept in the store.

A copy is named by what it shows: the digest of the record as JSON (its FSE, permits, devices
and their status on the period's last day, every revision, finding, receipt and scan by its
SHA-256), the file's kind and the layout's version. Any commit that changes what the record
shows changes the name, so a copy made before it is never served after it; a record no commit
has touched is served as the copy already made, with no PDF built again. Copies are not records
of their own: `storage sweep` removes them like any object no row names, once they are older
than `SWEEP_DELAY_MINUTES`.
"""

import hashlib
import json
import os
import tempfile
from collections.abc import Callable

from reports import record_json
from storage.objects import ObjectStore

# Raised whenever the binder's or the ZIP's layout changes: a copy of the old layout is then
# another file.
LAYOUT = "2026-12-2"
TYPES = {"pdf": "application/pdf", "zip": "application/zip"}


def name_of(record, kind: str) -> str:
    """The store key of the record's `kind` file in its present state."""
    shown = {k: v for k, v in record_json.render(record).items() if k != "generated_at"}
    digest = hashlib.sha256(json.dumps([LAYOUT, kind, shown], sort_keys=True, default=str).encode()).hexdigest()
    return f"record-{digest}.{kind}"


def file_of(store: ObjectStore, record, *, kind: str, make: Callable) -> tuple[object, int | None]:
    """The record's `kind` file, open at its start, and its size where known: the copy kept
    for this state, or one made now by `make(handle)` (which writes the whole file) and kept."""
    key = name_of(record, kind)
    if store.exists(key):
        handle = store.open(key)
        return handle, _size(handle)
    handle = tempfile.NamedTemporaryFile()  # removed when the answer closes it
    try:
        make(handle)
        size = handle.tell()
        handle.flush()
        store.put_file(key, handle.name, TYPES[kind])
        handle.seek(0)
        return handle, size
    except BaseException:
        handle.close()
        raise


def _size(handle) -> int | None:
    try:
        size = handle.seek(0, os.SEEK_END)
        handle.seek(0)
        return size
    except (AttributeError, OSError, ValueError):  # a body streamed from S3 does not seek
        return None
