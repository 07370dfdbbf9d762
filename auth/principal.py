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


def principal_of(client) -> Principal:
    """The principal a client acts as, as its tokens make it (`auth.protect.principal_of`), for
    work done for it outside a request: its webhooks, the demo's history."""
    return Principal(
        client_pk=client.id,
        client_id=client.client_id,
        role=client.role,
        scopes=frozenset(client.scope.split()),
        hauler_id=client.hauler_id,
        jurisdiction_id=client.jurisdiction_id,
        site_id=client.site_id,
        fse_ids=frozenset(f.id for f in client.fses),
    )
