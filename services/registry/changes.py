"""A city's registry changes, as its auditors and admins read them: who, what and when."""

from sqlalchemy import select
from sqlalchemy.orm import selectinload

from services.errors import NotFound
from services.registry.fses import page
from storage import reach
from storage.models import Jurisdiction, RegistryChange

SHOWN = (selectinload(RegistryChange.client), selectinload(RegistryChange.person))


def _city(session, principal, code) -> Jurisdiction:
    """Only the city's own auditors and admins read its changes; for anyone else it is not there."""
    jurisdiction = session.scalar(reach.jurisdiction_by_code(principal, code))
    if (
        jurisdiction is None
        or principal.role not in ("auditor", "admin")
        or jurisdiction.id != principal.jurisdiction_id
    ):
        raise NotFound("No such jurisdiction within your reach.")
    return jurisdiction


def listing(session, principal, *, code, cursor=None, limit=50) -> tuple[Jurisdiction, list, str | None]:
    """The city's changes, oldest first: (the city, a page of rows, the next cursor)."""
    jurisdiction = _city(session, principal, code)
    query = select(RegistryChange).where(RegistryChange.jurisdiction_id == jurisdiction.id)
    rows, next_cursor = page(session, query, model=RegistryChange, cursor=cursor, limit=limit, shown=SHOWN)
    return jurisdiction, rows, next_cursor


def every(session, principal, *, code):
    """(the city, all its changes oldest first) for a sheet."""
    jurisdiction = _city(session, principal, code)
    query = (
        select(RegistryChange)
        .where(RegistryChange.jurisdiction_id == jurisdiction.id)
        .options(*SHOWN)
        .order_by(RegistryChange.id)
    )
    return jurisdiction, session.scalars(query).all()
