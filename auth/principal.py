"""The caller of a request, as its bearer token makes it: its role and what it may reach."""

import uuid
from dataclasses import dataclass

from flask import g


@dataclass(frozen=True)
class Principal:
    """The caller: one role and its subject (a hauler, some FSEs, a jurisdiction, or a
    disposal site)."""

    client_pk: uuid.UUID
    client_id: str
    role: str
    scopes: frozenset
    hauler_id: uuid.UUID | None = None
    jurisdiction_id: uuid.UUID | None = None
    fse_ids: frozenset = frozenset()
    site_id: uuid.UUID | None = None
    # A person's token: the person, acting through their membership's principal.
    person_id: uuid.UUID | None = None


def current_principal() -> Principal:
    """The caller of the request, set once `auth.protect.require` has checked its token."""
    return g.principal
