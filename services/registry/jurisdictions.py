"""Jurisdictions: created from the shipped presets, listed, each read within a caller's reach."""

from sqlalchemy import select

from domain.presets import PRESETS, preset_rows
from services.errors import NotFound
from storage import reach
from storage.models import Jurisdiction


class UnknownPreset(KeyError):
    pass


def add_from_preset(session, *, code: str) -> tuple[Jurisdiction, bool]:
    """The jurisdiction for preset `code`, created if missing; (row, created)."""
    if code not in PRESETS:
        raise UnknownPreset(code)
    existing = session.scalar(select(Jurisdiction).where(Jurisdiction.code == code))
    if existing:
        return existing, False
    row = next(r for r in preset_rows() if r["code"] == code)
    jurisdiction = Jurisdiction(**row)
    session.add(jurisdiction)
    session.commit()
    return jurisdiction, True


def all_jurisdictions(session) -> list[Jurisdiction]:
    return session.scalars(select(Jurisdiction).order_by(Jurisdiction.code)).all()


def within_reach(session, principal) -> list[Jurisdiction]:
    """The cities the caller may read, by code."""
    return session.scalars(reach.jurisdictions(principal).order_by(Jurisdiction.code)).all()


def by_code(session, principal, *, code: str) -> Jurisdiction:
    """The city `code` within the caller's reach; any other answers as one that does not exist."""
    row = session.scalar(reach.jurisdiction_by_code(principal, code))
    if row is None:
        raise NotFound("No such jurisdiction within your reach.")
    return row
