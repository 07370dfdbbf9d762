"""The registry use cases: create, read, list and update what each city knows (haulers and
disposal sites, shared by the cities, in `services.registry.haulers`).

Writes need an admin of the object's jurisdiction. Status changes add dated rows; nothing
is deleted or overwritten, so any past date can be answered as it stood then.
"""

import base64
import uuid
from datetime import date

from sqlalchemy import and_, func, or_, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import selectinload

from domain import dates
from domain.checks import CITY_DEFAULT
from domain.clock import now
from domain.device_rules import default_frequency, default_months, frequency_refusal
from domain.permit_rules import REFUSED, term_exceeded
from domain.presets import POLICY
from services.errors import Conflict, Invalid, NotFound
from services.registry import log as registry_log
from storage import reach
from storage.models import (
    Device,
    DeviceFrequencyChange,
    DevicePermitMove,
    Fse,
    Jurisdiction,
    Permit,
    PermitStatusChange,
)
from storage.permit_status import permit_status_sql


def city_today(jurisdiction: Jurisdiction) -> date:
    """The city's calendar day now: what "today" is for its rows (at 20:00 Pacific on 30 June,
    30 June, though it is 1 July in UTC)."""
    return dates.local_date(now(), jurisdiction.time_zone)


# Reading ----------------------------------------------------------------------------------


def within_reach(session, model, *, object_id, visible_ids, what):
    """The object if it exists and is within reach; the same 404 whichever it is not."""
    try:
        object_id = uuid.UUID(str(object_id))
    except ValueError:
        object_id = None
    row = object_id and session.scalar(select(model).where(model.id == object_id, model.id.in_(visible_ids)))
    if row is None:
        raise NotFound(f"No such {what} within your reach.")
    return row


def get_fse(session, principal, *, fse_id) -> Fse:
    return within_reach(session, Fse, object_id=fse_id, visible_ids=reach.fse_ids(principal), what="FSE")


def get_permit(session, principal, *, permit_id) -> Permit:
    visible = select(Permit.id).where(Permit.fse_id.in_(reach.fse_ids(principal)))
    return within_reach(session, Permit, object_id=permit_id, visible_ids=visible, what="permit")


def get_device(session, principal, *, fse_id, device_id) -> Device:
    fse = get_fse(session, principal, fse_id=fse_id)
    visible = select(Device.id).where(Device.fse_id == fse.id)
    return within_reach(session, Device, object_id=device_id, visible_ids=visible, what="device")


def jurisdiction_by_code(session, code) -> Jurisdiction | None:
    return session.scalar(select(Jurisdiction).where(Jurisdiction.code == code))


# Paging -----------------------------------------------------------------------------------


def encode_cursor(last_id: uuid.UUID) -> str:
    return base64.urlsafe_b64encode(last_id.bytes).decode().rstrip("=")


def decode_cursor(cursor: str) -> uuid.UUID:
    try:
        return uuid.UUID(bytes=base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)))
    except ValueError:
        raise Invalid("The cursor is not one this API gave out.", errors={"cursor": ["Not a valid cursor."]}) from None


def page(session, query, *, model, cursor=None, limit=50, shown=()):
    """Rows after `cursor` in id order (ids are time-ordered), and the next cursor. `shown`:
    loader options for what the rows' views read, so that a page is read in a statement for
    each, not one for each row."""
    if cursor:
        query = query.where(model.id > decode_cursor(cursor))
    rows = session.scalars(query.options(*shown).order_by(model.id).limit(limit + 1)).all()
    more = len(rows) > limit
    rows = rows[:limit]
    return rows, encode_cursor(rows[-1].id) if more and rows else None


def _search(query, text, *columns):
    if not text:
        return query
    pattern = f"%{text.lower()}%"
    return query.where(or_(*(func.lower(column).like(pattern) for column in columns)))


def _by_jurisdiction(query, column, code):
    if not code:
        return query
    return query.where(column.in_(select(Jurisdiction.id).where(Jurisdiction.code == code)))


def list_fses(session, principal, *, q=None, jurisdiction=None, status=None, cursor=None, limit=50, as_of=None):
    query = select(Fse).where(Fse.id.in_(reach.fse_ids(principal)))
    query = _search(_by_jurisdiction(query, Fse.jurisdiction_id, jurisdiction), q, Fse.name, Fse.address, Fse.apn)
    return page(session, query, model=Fse, cursor=cursor, limit=limit)


def list_permits(session, principal, *, q=None, jurisdiction=None, status=None, cursor=None, limit=50, as_of=None):
    query = select(Permit).where(Permit.fse_id.in_(reach.fse_ids(principal)))
    query = _by_jurisdiction(query, Permit.jurisdiction_id, jurisdiction)
    if q:
        query = query.join(Fse, Fse.id == Permit.fse_id)
        query = _search(query, q, Permit.permit_number, Fse.name, Fse.address)
    if status and as_of:
        query = query.where(permit_status_sql(as_of) == status)
    elif status:
        # Each permit's status on its own city's today: the cities' days, each for its cities.
        cities_by_day = {}
        for city_id, zone in session.execute(select(Jurisdiction.id, Jurisdiction.time_zone)):
            cities_by_day.setdefault(dates.local_date(now(), zone), []).append(city_id)
        query = query.where(
            or_(
                *(
                    and_(Permit.jurisdiction_id.in_(ids), permit_status_sql(day) == status)
                    for day, ids in cities_by_day.items()
                )
            )
        )
    return page(
        session,
        query,
        model=Permit,
        cursor=cursor,
        limit=limit,
        shown=(
            selectinload(Permit.fse).joinedload(Fse.jurisdiction),
            selectinload(Permit.status_changes).options(*made_by_shown(PermitStatusChange)),
        ),
    )


def made_by_shown(model):
    """Loader options for who made each of a page's history rows (`MadeBy`)."""
    return (selectinload(model.by_client), selectinload(model.by_person))


def list_devices(session, principal, *, fse_id, cursor=None, limit=50, **_filters):
    fse = get_fse(session, principal, fse_id=fse_id)
    return page(
        session,
        select(Device).where(Device.fse_id == fse.id),
        model=Device,
        cursor=cursor,
        limit=limit,
        shown=(
            selectinload(Device.permit),
            selectinload(Device.frequency_changes_recorded).options(
                *made_by_shown(DeviceFrequencyChange),
                selectinload(DeviceFrequencyChange.withdrawn_by_client),
                selectinload(DeviceFrequencyChange.withdrawn_by_person),
            ),
            selectinload(Device.permit_moves).options(*made_by_shown(DevicePermitMove)),
        ),
    )


# Writing ----------------------------------------------------------------------------------


def admin_jurisdiction(session, principal, *, code):
    """The jurisdiction `code`, which must be the admin's own; 422 otherwise."""
    jurisdiction = jurisdiction_by_code(session, code)
    if jurisdiction is None or jurisdiction.id != principal.jurisdiction_id:
        raise Invalid(
            f"Jurisdiction {code!r} is not yours to write.",
            errors={"jurisdiction": [f"Unknown or not your jurisdiction: {code!r}."]},
        )
    return jurisdiction


def commit_or_conflict(session, conflict_detail):
    """The use case's commit; a row it collides with is a 409 with `conflict_detail`."""
    try:
        session.commit()
    except IntegrityError:
        session.rollback()
        raise Conflict(conflict_detail) from None


def create_fse(session, principal, *, data) -> Fse:
    jurisdiction = admin_jurisdiction(session, principal, code=data.pop("jurisdiction"))
    fse = Fse(jurisdiction_id=jurisdiction.id, **data)
    session.add(fse)
    registry_log.note(session, principal, action="fse.created", subject=fse, fields=data)
    commit_or_conflict(session, "An FSE with this name and APN exists in the jurisdiction.")
    return fse


def update_fse(session, principal, *, fse_id, data) -> Fse:
    fse = get_fse(session, principal, fse_id=fse_id)
    _own(principal, fse.jurisdiction_id)
    for name, value in data.items():
        setattr(fse, name, value)
    fse.updated_at = now()
    registry_log.note(session, principal, action="fse.updated", subject=fse, fields=data)
    commit_or_conflict(session, "An FSE with this name and APN exists in the jurisdiction.")
    return fse


def _own(principal, jurisdiction_id):
    """Auditors and others may read what admins write; only the admin of the city writes."""
    if principal.role != "admin" or principal.jurisdiction_id != jurisdiction_id:
        raise NotFound("Nothing of yours to change here.")


def judge_permit_term(jurisdiction: Jurisdiction, *, issued_on, expires_on) -> tuple[str | None, list]:
    """(why the permit is refused, or None; its warnings) for a permit running past the city's
    term: refused where its text sets the term (Victorville 10.03.080(a), San Clemente
    13.30.050(E)), a warning where it says permits are issued annually (Placentia (f))."""
    citation = (jurisdiction.citations or {}).get("permit_term") or POLICY
    exceeded = term_exceeded(
        issued_on=issued_on, expires_on=expires_on, term=jurisdiction.permit_term, citation=citation
    )
    if exceeded is None:
        return None, []
    outcome, why = exceeded
    if outcome == REFUSED:
        return why, []
    return None, [{"code": "permit_term_exceeded", "message": why, "citation": citation}]


def create_permit(session, principal, *, data) -> tuple[Permit, list]:
    """A permit for one of the city's FSEs; returns (permit, warnings)."""
    fse = session.scalar(select(Fse).where(Fse.id == data["fse_id"], Fse.jurisdiction_id == principal.jurisdiction_id))
    if fse is None:
        raise Invalid("Unknown FSE.", errors={"fse_id": ["No such FSE in your jurisdiction."]})
    refusal, warnings = judge_permit_term(
        session.get(Jurisdiction, fse.jurisdiction_id), issued_on=data["issued_on"], expires_on=data["expires_on"]
    )
    if refusal:
        raise Invalid("The permit runs past the city's term.", errors={"expires_on": [refusal]})
    if session.scalar(
        select(Permit.id).where(
            Permit.jurisdiction_id == fse.jurisdiction_id, Permit.permit_number == data["permit_number"]
        )
    ):
        raise Conflict(f"Permit number {data['permit_number']!r} exists in this jurisdiction.")
    status = data.pop("status")
    permit = Permit(jurisdiction_id=fse.jurisdiction_id, **data)
    permit.status_changes.append(
        PermitStatusChange(
            status=status, effective_on=permit.issued_on, reason="issued", **registry_log.made_by(principal)
        )
    )
    session.add(permit)
    registry_log.note(session, principal, action="permit.created", subject=permit, fields=[*data, "status"])
    commit_or_conflict(session, f"Permit number {data['permit_number']!r} exists in this jurisdiction.")
    return permit, warnings


def device_warnings(jurisdiction: Jurisdiction, device: Device):
    """Warnings a city wants to see but that do not block registration."""
    warnings = []
    minimum = jurisdiction.min_interceptor_gallons
    if device.kind == "interceptor" and minimum and device.capacity_gallons < minimum:
        warnings.append(
            {
                "code": "below_minimum_size",
                "message": f"{device.capacity_gallons} gallons is below the {minimum}-gallon minimum "
                f"for interceptors in {jurisdiction.name}.",
                "citation": jurisdiction.citations.get("min_interceptor_gallons", ""),
            }
        )
    return warnings


def in_service_refusal(permit: Permit, in_service_on) -> str | None:
    """Why a device cannot be put in service on `in_service_on`, a day given, on `permit` (the
    route's and the import's rule alike): not after the permit's last day. A day before its
    first day is taken as that first day (the clock starts at the later of the two); the
    default, the city's today, is never refused (a device added to an expired permit)."""
    if in_service_on > permit.expires_on:
        return f"Must not be after the permit's last day ({permit.expires_on.isoformat()})."
    return None


def create_device(session, principal, *, fse_id, data):
    """A device on one of the FSE's permits; returns (device, warnings)."""
    fse = get_fse(session, principal, fse_id=fse_id)
    _own(principal, fse.jurisdiction_id)
    jurisdiction = session.get(Jurisdiction, fse.jurisdiction_id)
    permit = session.scalar(
        select(Permit).where(Permit.fse_id == fse.id, Permit.permit_number == data["permit_number"])
    )
    errors = {}
    if permit is None:
        errors["permit_number"] = ["No such permit for this FSE."]
    if data.get("frequency_days") is None:
        data = {
            **data,
            "frequency_days": default_frequency(data["kind"], jurisdiction),
            "frequency_source": CITY_DEFAULT,
            "frequency_months": default_months(data["kind"], jurisdiction),
        }
    else:
        data = {**data, "frequency_source": "assigned"}
    refusal = frequency_refusal(data["kind"], data["frequency_days"], jurisdiction)
    if refusal:
        errors["frequency_days"] = [refusal]
    if permit is not None and data.get("in_service_on") and (why := in_service_refusal(permit, data["in_service_on"])):
        errors["in_service_on"] = [why]
    data = {**data, "in_service_on": data.get("in_service_on") or city_today(jurisdiction)}
    if errors:
        raise Invalid("The device does not fit the permit or the ordinance.", errors=errors)
    if session.scalar(select(Device.id).where(Device.fse_id == fse.id, Device.tag == data["tag"])):
        raise Conflict(f"Device tag {data['tag']!r} exists at this FSE.")
    data = {k: v for k, v in data.items() if k != "permit_number"}
    device = Device(fse_id=fse.id, permit_id=permit.id, **data)
    session.add(device)
    registry_log.note(session, principal, action="device.created", subject=device, fields=[*data, "permit_number"])
    commit_or_conflict(session, f"Device tag {data['tag']!r} exists at this FSE.")
    return device, device_warnings(jurisdiction, device)
