"""Ids as callers send them: a path segment or a field that may be no UUID at all."""

import uuid


def id_or_none(value) -> uuid.UUID | None:
    """`value` as a UUID, or None where it is none (looked up, it is then not found)."""
    try:
        return uuid.UUID(str(value))
    except ValueError:
        return None
