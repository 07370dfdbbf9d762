"""What a principal may see: each select here is filtered to the caller's objects.

Admins and auditors reach their jurisdiction; haulers themselves, the disposal sites of the
jurisdictions they are registered in, and the FSEs they have serviced (with their permits and
devices: what their dispatch plans the next service by); FSE operators their FSEs; disposal sites the jurisdictions they serve, and nothing in them. Anything else is answered 404 by the views, exactly as if it did not exist.

A hauler's or site's person whose membership a city granted reaches that city alone
(`city_scope`): every query that follows a principal's hauler or site also keeps to it.
"""

from sqlalchemy import false, select, true

from storage.models import (
    DisposalSite,
    DisposalSiteJurisdiction,
    Fse,
    Hauler,
    HaulerRegistration,
    Jurisdiction,
    Manifest,
)


def city_scope(principal):
    """The one city a hauler's or site's principal is kept to (a person's membership a city
    granted); None for the whole company, and for every other role."""
    return principal.jurisdiction_id if principal.role in ("hauler", "site") else None


def in_scope(principal, jurisdiction_column):
    """A condition: the row's city (`jurisdiction_column`) is within the caller's city scope."""
    city = city_scope(principal)
    return true() if city is None else jurisdiction_column == city


def jurisdiction_ids(principal):
    """A select of the jurisdiction ids within the caller's reach."""
    if principal.role in ("admin", "auditor"):
        return select(Jurisdiction.id).where(Jurisdiction.id == principal.jurisdiction_id)
    if principal.role == "hauler":
        return select(HaulerRegistration.jurisdiction_id).where(
            HaulerRegistration.hauler_id == principal.hauler_id, in_scope(principal, HaulerRegistration.jurisdiction_id)
        )
    if principal.role == "site":
        return select(DisposalSiteJurisdiction.jurisdiction_id).where(
            DisposalSiteJurisdiction.site_id == principal.site_id,
            in_scope(principal, DisposalSiteJurisdiction.jurisdiction_id),
        )
    return select(Fse.jurisdiction_id).where(Fse.id.in_(principal.fse_ids or [None]))


def jurisdictions(principal):
    return select(Jurisdiction).where(Jurisdiction.id.in_(jurisdiction_ids(principal)))


def jurisdiction_by_code(principal, code):
    return jurisdictions(principal).where(Jurisdiction.code == code)


def fse_ids(principal):
    """A select of the FSE ids within reach (permits and devices follow their FSE)."""
    if principal.role == "fse":
        return select(Fse.id).where(Fse.id.in_(principal.fse_ids or [None]))
    if principal.role == "site":
        return select(Fse.id).where(false())
    if principal.role == "hauler":
        return select(Manifest.fse_id).where(
            Manifest.hauler_id == principal.hauler_id, in_scope(principal, Manifest.jurisdiction_id)
        )
    return select(Fse.id).where(Fse.jurisdiction_id.in_(jurisdiction_ids(principal)))


def hauler_ids(principal):
    if principal.role == "hauler":
        return select(Hauler.id).where(Hauler.id == principal.hauler_id)
    if principal.role in ("admin", "auditor"):
        return select(HaulerRegistration.hauler_id).where(
            HaulerRegistration.jurisdiction_id == principal.jurisdiction_id
        )
    return select(Hauler.id).where(false())


def site_ids(principal):
    if principal.role == "fse":
        return select(DisposalSite.id).where(false())
    return select(DisposalSiteJurisdiction.site_id).where(
        DisposalSiteJurisdiction.jurisdiction_id.in_(jurisdiction_ids(principal))
    )
