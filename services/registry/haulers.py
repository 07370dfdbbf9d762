"""Haulers and disposal sites: one record shared by every city, each city's approval of it
that city's own rows.

A hauler's name, licence number and contact address, and a site's name and address, are
changed only by the city that registered the record first (its owner). Each city writes, reads
and judges its filings by its own approval alone: the licence as it records it, its
registrations and the vehicles it accepts; a site's approval dates, waste types and status. So
no city's admin can change what another city relies on.
"""

import uuid
from dataclasses import dataclass
from datetime import date

from sqlalchemy import func, or_, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import joinedload, selectinload

from domain import registry as rules
from domain.clock import now
from domain.dates import local_date
from domain.registry_rows import approval_of, approval_status_on, licences_of
from services.errors import Conflict, Invalid, NotFound
from services.registry import log as registry_log
from services.registry.fses import admin_jurisdiction, city_today, commit_or_conflict, page, within_reach
from storage import reach
from storage.models import (
    DisposalSite,
    DisposalSiteJurisdiction,
    DisposalSiteStatusChange,
    Hauler,
    HaulerLicence,
    HaulerRegistration,
    Jurisdiction,
    Vehicle,
)

SHARED_HAULER_FIELDS = ("name", "licence_number", "contact_email")
SHARED_SITE_FIELDS = ("name", "address")


@dataclass(frozen=True)
class Viewer:
    """Whose approvals a caller reads: its own city's (`home`: admins and auditors), or those
    of every city within its reach (`cities`: a hauler's, a site's)."""

    home: uuid.UUID | None
    cities: frozenset
    # Today where the caller reads: its own city's local date (for a caller of several cities,
    # the earliest of theirs, so that nothing is shown lapsed before its city's day ends).
    today: date | None = None


def viewer(session, principal) -> Viewer:
    if principal.role in ("admin", "auditor"):
        home, cities = principal.jurisdiction_id, frozenset({principal.jurisdiction_id})
    else:
        home, cities = None, frozenset(session.scalars(reach.jurisdiction_ids(principal)))
    zones = session.scalars(select(Jurisdiction.time_zone).where(Jurisdiction.id.in_(cities))).all()
    today = min((local_date(now(), zone) for zone in zones), default=local_date(now(), None))
    return Viewer(home, cities, today)


# One city's rows ----------------------------------------------------------------------------


def shared_field_kept(kind, record, *, fields) -> dict:
    """The warning for a second city whose differing shared fields were not taken."""
    owner = record.owner.name if record.owner is not None else "no city"
    return {
        "code": "shared_field_kept",
        "message": f"The {kind}'s {' and '.join(fields)} stay as {owner} registered them: only the "
        f"city that registered it first changes them. Your city's own approval is recorded.",
        "citation": "exchange policy",
    }


def differing(record, data, *, fields):
    return [name for name in fields if name in data and data[name] != getattr(record, name)]


def _owner_only(record, jurisdiction_id, data, fields, kind):
    """Refuses a change of a shared field by a city that does not own the record."""
    changed = differing(record, data, fields=fields)
    if changed and record.owner_jurisdiction_id != jurisdiction_id:
        owner = record.owner.name if record.owner is not None else "no city"
        verb = "is" if len(changed) == 1 else "are"
        raise Conflict(
            f"The {kind}'s {' and '.join(changed)} {verb} kept by {owner}, the city that "
            f"registered it; your city changes only its own approval of it.",
            errors={name: ["Kept by the city that registered the record."] for name in changed},
        )
    return changed


# Reading ----------------------------------------------------------------------------------

HAULER_SHOWN = (
    joinedload(Hauler.owner),
    selectinload(Hauler.licences),
    selectinload(Hauler.registrations).joinedload(HaulerRegistration.jurisdiction),
)
SITE_SHOWN = (
    joinedload(DisposalSite.owner),
    selectinload(DisposalSite.approvals).options(
        joinedload(DisposalSiteJurisdiction.jurisdiction), selectinload(DisposalSiteJurisdiction.status_changes)
    ),
)


def get_hauler(session, principal, *, hauler_id) -> Hauler:
    return within_reach(session, Hauler, object_id=hauler_id, visible_ids=reach.hauler_ids(principal), what="hauler")


def get_site(session, principal, *, site_id) -> DisposalSite:
    return within_reach(
        session, DisposalSite, object_id=site_id, visible_ids=reach.site_ids(principal), what="disposal site"
    )


def _like(text):
    return f"%{text.lower()}%"


def list_haulers(session, principal, *, q=None, jurisdiction=None, status=None, cursor=None, limit=50, as_of=None):
    query = select(Hauler).where(Hauler.id.in_(reach.hauler_ids(principal)))
    if jurisdiction:
        query = query.where(
            Hauler.id.in_(
                select(HaulerRegistration.hauler_id).join(Jurisdiction).where(Jurisdiction.code == jurisdiction)
            )
        )
    if q:
        query = query.where(
            or_(func.lower(Hauler.name).like(_like(q)), func.lower(Hauler.licence_number).like(_like(q)))
        )
    return page(session, query, model=Hauler, cursor=cursor, limit=limit, shown=HAULER_SHOWN)


def list_vehicles(session, principal, *, hauler_id, cursor=None, limit=50, **_filters):
    """The vehicles the cities within the caller's reach accept for the hauler."""
    hauler = get_hauler(session, principal, hauler_id=hauler_id)
    query = select(Vehicle).where(
        Vehicle.hauler_id == hauler.id, Vehicle.jurisdiction_id.in_(reach.jurisdiction_ids(principal))
    )
    return page(session, query, model=Vehicle, cursor=cursor, limit=limit, shown=(joinedload(Vehicle.jurisdiction),))


def list_sites(
    session, principal, *, q=None, jurisdiction=None, status=None, cursor=None, limit=50, as_of=None, seen_by: Viewer
):
    query = select(DisposalSite).where(DisposalSite.id.in_(reach.site_ids(principal)))
    if jurisdiction:
        query = query.where(
            DisposalSite.id.in_(
                select(DisposalSiteJurisdiction.site_id).join(Jurisdiction).where(Jurisdiction.code == jurisdiction)
            )
        )
    if q:
        query = query.where(
            or_(
                *(
                    func.lower(column).like(_like(q))
                    for column in (DisposalSite.name, DisposalSite.address, DisposalSite.facility_permit_number)
                )
            )
        )
    rows, next_cursor = page(session, query, model=DisposalSite, cursor=cursor, limit=limit, shown=SITE_SHOWN)
    if status:
        cities = {seen_by.home} if seen_by.home else seen_by.cities
        rows = [
            row
            for row in rows
            if any(
                approval_status_on(a, as_of or city_today(a.jurisdiction)) == status
                for a in row.approvals
                if a.jurisdiction_id in cities
            )
        ]
    return rows, next_cursor


# Writing ----------------------------------------------------------------------------------


def _writer(principal):
    """The city an admin writes for; anyone else has nothing to change here."""
    if principal.role != "admin":
        raise NotFound("Nothing of yours to change here.")
    return principal.jurisdiction_id


def _city(session, principal, codes) -> Jurisdiction:
    """The admin's own city, which every code in `codes` must name."""
    cities = [admin_jurisdiction(session, principal, code=code) for code in codes]
    return cities[0]


def hauler_by_licence(session, licence_number) -> Hauler | None:
    return session.scalar(select(Hauler).where(Hauler.licence_number == licence_number))


def new_hauler(data, city) -> Hauler:
    """A hauler first registered by `city`, which owns its shared record."""
    return Hauler(
        name=data["name"],
        licence_number=data["licence_number"],
        contact_email=data.get("contact_email"),
        owner_jurisdiction_id=city.id,
    )


def approve_hauler(hauler: Hauler, city: Jurisdiction, *, expires_on, licence_from, registered_on):
    """City `city`'s own licence record and registration of the hauler."""
    hauler.licences.append(
        HaulerLicence(
            jurisdiction_id=city.id,
            licence_number=hauler.licence_number,
            expires_on=expires_on,
            effective_on=licence_from,
        )
    )
    hauler.registrations.append(HaulerRegistration(jurisdiction_id=city.id, registered_on=registered_on))


def registered_here(hauler: Hauler, jurisdiction_id) -> bool:
    return any(r.jurisdiction_id == jurisdiction_id and r.ended_on is None for r in hauler.registrations)


def create_hauler(session, principal, *, data):
    """A hauler registered in the admin's city: (hauler, created, warnings).

    A licence number on record already gives the city its own registration and licence
    record on that hauler (not created); a name or contact address differing from the shared
    one is not taken, and a warning says so.
    """
    city = _city(session, principal, data.pop("jurisdictions"))
    day = city_today(city)
    dates = dict(
        expires_on=data["licence_expires_on"],
        licence_from=data.get("licence_issued_on") or day,
        registered_on=data.get("registered_on") or day,
    )
    hauler = hauler_by_licence(session, data["licence_number"])
    if hauler is None:
        hauler = new_hauler(data, city)
        approve_hauler(hauler, city, **dates)
        session.add(hauler)
        registry_log.note(session, principal, action="hauler.created", subject=hauler, fields=data)
        try:
            session.commit()
            return hauler, True, []
        except IntegrityError:  # another city registered the same licence meanwhile
            session.rollback()
            hauler = hauler_by_licence(session, data["licence_number"])
            if hauler is None:
                raise Conflict(f"Licence {data['licence_number']!r} could not be registered; retry.") from None
    if registered_here(hauler, city.id):
        raise Conflict(f"Licence {data['licence_number']!r} is already registered here.")
    approve_hauler(hauler, city, **dates)
    registry_log.note(session, principal, action="hauler.registered", subject=hauler, fields=data)
    session.commit()
    kept = differing(hauler, data, fields=("name", "contact_email"))
    return hauler, False, [shared_field_kept("hauler", hauler, fields=kept)] if kept else []


def update_hauler(session, principal, *, hauler_id, data) -> Hauler:
    """The owner's change of the shared name, licence number or contact address, and the
    city's own licence renewal, lapse or suspension from `effective_on` on."""
    hauler = get_hauler(session, principal, hauler_id=hauler_id)
    city = _writer(principal)
    _owner_only(hauler, city, data, SHARED_HAULER_FIELDS, "hauler")
    for name in SHARED_HAULER_FIELDS:
        if name in data:
            setattr(hauler, name, data[name])
    if "effective_on" in data:
        mine = licences_of(hauler, city)
        current = rules.licence_on(mine, data["effective_on"]) or (mine[-1] if mine else None)
        expires_on = data.get("licence_expires_on") or (current and current.expires_on)
        if expires_on is None:
            raise Invalid(
                "Your city has no licence of this hauler on record to renew.",
                errors={"licence_expires_on": ["Missing: no licence on record here."]},
            )
        hauler.licences.append(
            HaulerLicence(
                jurisdiction_id=city,
                licence_number=hauler.licence_number,
                expires_on=expires_on,
                status=data.get("licence_status") or "valid",
                effective_on=data["effective_on"],
            )
        )
    registry_log.note(session, principal, action="hauler.updated", subject=hauler, fields=data)
    commit_or_conflict(session, f"Licence number {hauler.licence_number!r} is another hauler's.")
    return hauler


def create_vehicle(session, principal, *, hauler_id, data) -> Vehicle:
    """A vehicle the admin's city accepts for the hauler."""
    hauler = get_hauler(session, principal, hauler_id=hauler_id)
    city = _writer(principal)
    conflict = f"Vehicle {data['vehicle_id']!r} is registered to this hauler here."
    if session.scalar(
        select(Vehicle.id).where(
            Vehicle.hauler_id == hauler.id, Vehicle.jurisdiction_id == city, Vehicle.vehicle_id == data["vehicle_id"]
        )
    ):
        raise Conflict(conflict)
    vehicle = Vehicle(hauler_id=hauler.id, jurisdiction_id=city, **data)
    session.add(vehicle)
    registry_log.note(session, principal, action="vehicle.created", subject=vehicle, fields=data)
    commit_or_conflict(session, conflict)
    return vehicle


def site_approval(jurisdiction_id, *, waste_types, approved_from, approved_until, status):
    """A city's approval of a site, its status from `approved_from` on."""
    return DisposalSiteJurisdiction(
        jurisdiction_id=jurisdiction_id,
        waste_types=list(waste_types),
        approved_from=approved_from,
        approved_until=approved_until,
        status_changes=[DisposalSiteStatusChange(status=status, effective_on=approved_from)],
    )


def site_by_permit(session, facility_permit_number) -> DisposalSite | None:
    return session.scalar(select(DisposalSite).where(DisposalSite.facility_permit_number == facility_permit_number))


def create_site(session, principal, *, data):
    """A disposal site approved for the admin's city: (site, created, warnings).

    A facility permit number on record already gives the city its own approval of that site
    (not created); a name or address differing from the shared ones is not taken, and a
    warning says so.
    """
    city = _city(session, principal, data.pop("jurisdictions"))
    approval = dict(
        waste_types=data["waste_types"],
        approved_from=data["approved_from"],
        approved_until=data.get("approved_until"),
        status=data["status"],
    )
    number = data["facility_permit_number"]
    site = site_by_permit(session, number)
    if site is None:
        site = DisposalSite(
            name=data["name"],
            address=data["address"],
            facility_permit_number=number,
            owner_jurisdiction_id=city.id,
            approvals=[site_approval(city.id, **approval)],
        )
        session.add(site)
        registry_log.note(session, principal, action="site.created", subject=site, fields=data)
        try:
            session.commit()
            return site, True, []
        except IntegrityError:  # another city approved the same facility meanwhile
            session.rollback()
            site = site_by_permit(session, number)
            if site is None:
                raise Conflict(f"Facility {number!r} could not be approved; retry.") from None
    if approval_of(site, city.id) is not None:
        raise Conflict(f"Facility {number!r} is already approved here.")
    site.approvals.append(site_approval(city.id, **approval))
    registry_log.note(session, principal, action="site.approved", subject=site, fields=data)
    commit_or_conflict(session, f"Facility {number!r} is already approved here.")
    kept = differing(site, data, fields=SHARED_SITE_FIELDS)
    return site, False, [shared_field_kept("disposal site", site, fields=kept)] if kept else []


def update_site(session, principal, *, site_id, data) -> DisposalSite:
    """The owner's change of the shared name or address, and a status change of the city's
    own approval from `effective_on` on."""
    site = get_site(session, principal, site_id=site_id)
    city = _writer(principal)
    _owner_only(site, city, data, SHARED_SITE_FIELDS, "disposal site")
    for name in SHARED_SITE_FIELDS:
        if name in data:
            setattr(site, name, data[name])
    if "status" in data:
        approval_of(site, city).status_changes.append(
            DisposalSiteStatusChange(
                status=data["status"], effective_on=data["effective_on"], reason=data.get("reason")
            )
        )
    registry_log.note(session, principal, action="site.updated", subject=site, fields=data)
    session.commit()
    return site
