"""The one clock. Services read `now()`; rules take `now` as an argument; tests set it."""

import contextlib
from datetime import UTC, datetime

_frozen = None


def now() -> datetime:
    return _frozen or datetime.now(UTC)


def freeze(at: datetime | None):
    """Pin the clock to `at` (aware), or release it with None."""
    global _frozen
    if at is not None and at.tzinfo is None:
        raise ValueError("the clock keeps aware datetimes")
    _frozen = at


@contextlib.contextmanager
def frozen_at(at: datetime):
    """The clock pinned to `at` inside the block, and after it as it was before."""
    global _frozen
    before = _frozen
    freeze(at)
    try:
        yield at
    finally:
        _frozen = before
