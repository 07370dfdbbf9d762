"""Jurisdictions: created from the shipped presets, listed."""

from sqlalchemy import select

from domain.presets import PRESETS, preset_rows
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
