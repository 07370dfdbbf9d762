"""Resolving the permit and device a filing names, with the facts the checks then need."""

import uuid
from dataclasses import dataclass

from sqlalchemy import and_, bindparam, select
from sqlalchemy.orm import selectinload

from domain import checks
from domain import registry as reg
from domain.dates import local_date
from services.errors import Invalid
from services.filing.filing_facts import (
    RULE_COLUMNS,
    Facts,
    device_facts,
    load_tenures,
    permit_facts,
    registry_generation,
    rules_of,
)
from storage import turns
from storage.audit import frequency_changed
from storage.models import Device, DeviceFrequencyChange, DevicePermitMove, Jurisdiction, Permit, PermitStatusChange
from storage.prebuilt import Prebuilt


@dataclass(frozen=True)
class Named:
    """The permit and device a manifest names, resolved."""

    permit_id: uuid.UUID
    permit_number: str
    jurisdiction_id: uuid.UUID
    device_id: uuid.UUID
    fse_id: uuid.UUID


def _resolve_statement(*, ordered=True):
    """Permits by number with the FSE's device of the named tag (whether it is on the permit,
    and whether it ever moved from one permit to another), their status history and their
    city's rules, and the registry generation: built once, bound per filing."""
    rules = [getattr(Jurisdiction, name) for name in RULE_COLUMNS]
    statement = (
        select(
            Permit.id.label("permit_id"),
            Permit.permit_number,
            Permit.jurisdiction_id,
            Permit.issued_on,
            Permit.expires_on,
            Device.id.label("device_id"),
            Device.fse_id,
            Device.kind,
            Device.capacity_gallons,
            Device.liquid_depth_in,
            Device.frequency_days,
            Device.frequency_source,
            Device.retired_on,
            Device.frequency_months,
            Device.permit_id.label("device_permit_id"),
            frequency_changed(Device.id).label("frequency_changed"),
            select(DevicePermitMove.id).where(DevicePermitMove.device_id == Device.id).exists().label("moved"),
            PermitStatusChange.effective_on,
            PermitStatusChange.status,
            PermitStatusChange.recorded_at,
            *rules,
            registry_generation().label("generation"),
        )
        .join(Jurisdiction, Jurisdiction.id == Permit.jurisdiction_id)
        .outerjoin(Device, and_(Device.fse_id == Permit.fse_id, Device.tag == bindparam("tag")))
        .outerjoin(PermitStatusChange, PermitStatusChange.permit_id == Permit.id)
        .where(Permit.permit_number == bindparam("number"))
    )
    if not ordered:
        return statement
    return statement.order_by(*(statement.selected_columns[name] for name in _RESOLVE_ORDER))


# A permit's rows, its status changes in the order they took effect (and were recorded).
_RESOLVE_ORDER = ("permit_id", "effective_on", "recorded_at")
RESOLVE = Prebuilt(_resolve_statement())
# The same, holding the permits found (FOR NO KEY UPDATE) until the transaction it opens ends.
RESOLVE_HOLDING = Prebuilt(_resolve_statement().with_for_update(of=Permit, key_share=True))


def resolve_params(permit_number, device_tag) -> dict:
    return {"number": permit_number, "tag": device_tag}


def resolve(session, data, *, hauler_id, facts: Facts, hold=False, within=None) -> Named:
    """The permit and device a manifest names, or a 422 naming the field.

    Permit numbers are unique within a jurisdiction. A number is read in the cities the hauler
    is registered in; a permit of another city is found only together with the named device
    (its filing is kept and flagged), so a 422 tells nothing of other cities' permits. One
    query brings the permit with its status history, its city's rules and the device; the
    facts the checks need go to `facts`. `hold`: the permits read stay locked until
    the transaction ends (a filing's, so that filings on one device come one after the other;
    on SQLite, the database's one write lock). `within`: the one city a person's membership is
    kept to (`storage.reach.city_scope`); another city's permit is then unknown.
    """
    params = resolve_params(data["permit_number"], data["device_tag"])
    connection = session.connection()
    if hold:
        turns.hold_database(connection)
    rows = (RESOLVE_HOLDING if hold else RESOLVE).all(connection, params)
    permits = {}
    for row in rows:
        if within is None or row.jurisdiction_id == within:
            permits.setdefault(row.permit_id, []).append(row)
    if rows:
        facts.saw_generation(rows[0].generation)
        registered = facts.registered(hauler_id)
        own = {k: v for k, v in permits.items() if v[0].jurisdiction_id in registered}
        # Another city's permit only with the named device, and only where one city has both.
        elsewhere = {k: v for k, v in permits.items() if _listed(v[0])}
        permits = own or (elsewhere if len(elsewhere) == 1 else {})
    if not permits:
        raise Invalid("The manifest names an unknown permit.", errors={"permit_number": ["No such permit."]})
    if len(permits) > 1:
        raise Invalid("The permit number is ambiguous.", errors={"permit_number": ["Used in several jurisdictions."]})
    (history,) = permits.values()
    first = history[0]
    # A device that moved (a renewal) was on each of its permits for its own days.
    moves = (
        session.scalars(
            select(DevicePermitMove)
            .where(DevicePermitMove.device_id == first.device_id)
            .order_by(DevicePermitMove.effective_on)
        ).all()
        if _listed(first) and first.moved
        else ()
    )
    if not _listed(first) or (
        moves and first.permit_id not in {first.device_permit_id, *(m.from_permit_id for m in moves)}
    ):
        raise Invalid(
            "The manifest names a device the permit does not list.",
            errors={"device_tag": [f"No device {data['device_tag']!r} on permit {first.permit_number}."]},
        )
    # A device whose frequency changed is judged by its history, read only then.
    changes = (
        session.scalars(
            select(DeviceFrequencyChange)
            .where(DeviceFrequencyChange.device_id == first.device_id, DeviceFrequencyChange.withdrawn_at.is_(None))
            .order_by(DeviceFrequencyChange.effective_on)
        ).all()
        if first.frequency_changed
        else ()
    )
    permit = checks.PermitFacts(
        permit_number=first.permit_number,
        issued_on=first.issued_on,
        expires_on=first.expires_on,
        changes=tuple(reg.Dated(r.effective_on, r.status) for r in history if r.effective_on is not None),
    )
    named = Named(
        permit_id=first.permit_id,
        permit_number=first.permit_number,
        jurisdiction_id=first.jurisdiction_id,
        device_id=first.device_id,
        fse_id=first.fse_id,
    )
    tenures = ()
    if moves:
        named, permit = _in_force(session, data, first, moves, named, permit, hold=hold)
        tenures = load_tenures(session, [(first.device_id, first.device_permit_id)])[first.device_id]
    facts.know(
        rules=(first.jurisdiction_id, rules_of(first)),
        zone=(first.jurisdiction_id, first.time_zone),
        device=(first.device_id, (device_facts(first, changes, tenures=tenures), permit)),
        permits=[(named.permit_id, permit)],
    )
    return named


def _listed(row) -> bool:
    """Whether the FSE's device of the tag is on the row's permit, or was on some permit
    before (which, is read then)."""
    return row.device_id is not None and bool(row.device_permit_id == row.permit_id or row.moved)


def _in_force(session, data, first, moves, named, permit, *, hold):
    """The permit the moved device was on on the service day, and its facts: a filing for a
    day on the old permit names either permit and is judged against the one in force then."""
    day = local_date(data["service_completed_at"], first.time_zone)
    in_force = reg.permit_on(day, current=first.device_permit_id, moves=moves)
    if hold:
        # Every filing on a moved device takes its turn on the device's permit now, whichever
        # permit it names (the one it names is held already).
        turns.hold_permit(session.connection(), first.device_permit_id)
    if in_force == first.permit_id:
        return named, permit
    row = session.scalars(
        select(Permit).where(Permit.id == in_force).options(selectinload(Permit.status_changes))
    ).one()
    return (
        Named(
            permit_id=row.id,
            permit_number=row.permit_number,
            jurisdiction_id=row.jurisdiction_id,
            device_id=first.device_id,
            fse_id=first.fse_id,
        ),
        permit_facts(row),
    )
