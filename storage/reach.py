"""What a principal may see: each query here is filtered to the caller's scope of objects."""
from sqlalchemy import select

from storage.models import Fse, HaulerRegistration, Jurisdiction


def jurisdiction_ids(principal):
    """A select of the jurisdiction ids within the caller's reach."""
    if principal.role in ("admin", "auditor"):
        return select(Jurisdiction.id).where(Jurisdiction.id == principal.jurisdiction_id)
    if principal.role == "hauler":
        return select(HaulerRegistration.jurisdiction_id).where(
            HaulerRegistration.hauler_id == principal.hauler_id
        )
    return select(Fse.jurisdiction_id).where(Fse.id.in_(principal.fse_ids or [None]))


def jurisdictions(principal):
    return select(Jurisdiction).where(Jurisdiction.id.in_(jurisdiction_ids(principal)))


def jurisdiction_by_code(principal, code):
    return jurisdictions(principal).where(Jurisdiction.code == code)


