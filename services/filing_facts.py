"""The registry's facts a filing is judged by, and their cache for the request and the process."""

import weakref
from datetime import date

from sqlalchemy import select
from sqlalchemy.orm import joinedload, selectinload

from domain import checks
from domain import registry as reg
from domain.registry_rows import approval_of, licences_of, registrations_of
from domain.status import frequency_history, tenures_of
from storage.models import (
    Device,
    DevicePermitMove,
    DisposalSite,
    DisposalSiteJurisdiction,
    Hauler,
    HaulerRegistration,
    Jurisdiction,
    Permit,
    PermitStatusChange,
    RegistryGeneration,
)

# The jurisdiction's columns the checks read: a column for each field of `checks.Rules`.
RULE_COLUMNS = checks.Rules.columns()


def rules_of(jurisdiction: Jurisdiction) -> checks.Rules:
    return checks.Rules.of(jurisdiction)


def device_facts(device: Device, changes=None, tenures=()) -> checks.DeviceFacts:
    """The device as the checks see it; `changes`, its frequency changes in the order they
    took effect, where `device` is a row of columns (a stored device brings its own);
    `tenures`, the permits it was on where a renewal moved it (`load_tenures`)."""
    if changes is None:
        changes = getattr(device, "frequency_changes", ())
    return checks.DeviceFacts(
        kind=device.kind,
        capacity_gallons=device.capacity_gallons,
        liquid_depth_in=device.liquid_depth_in,
        frequency_days=device.frequency_days,
        frequency_source=device.frequency_source,
        frequencies=frequency_history(changes),
        tenures=tuple(tenures),
    )


def load_tenures(session, devices) -> dict:
    """Each permit each device was on (`domain.status.Tenure`), by device id, for `devices`
    given as (device id, its permit now): its moves and those permits' status changes, read in
    two statements whatever their number."""
    devices = dict(devices)
    if not devices:
        return {}
    moves = {}
    for move in session.scalars(
        select(DevicePermitMove)
        .where(DevicePermitMove.device_id.in_(devices))
        .order_by(DevicePermitMove.device_id, DevicePermitMove.effective_on)
    ):
        moves.setdefault(move.device_id, []).append(move)
    permit_ids = set(devices.values()) | {m.from_permit_id for listed in moves.values() for m in listed}
    changes = {}
    for permit_id, effective_on, status in session.execute(
        select(PermitStatusChange.permit_id, PermitStatusChange.effective_on, PermitStatusChange.status)
        .where(PermitStatusChange.permit_id.in_(permit_ids))
        .order_by(PermitStatusChange.effective_on, PermitStatusChange.recorded_at)
    ):
        changes.setdefault(permit_id, []).append(reg.Dated(effective_on, status))
    return {
        device_id: tenures_of(current=current, moves=moves.get(device_id, ()), changes_of=lambda p: changes.get(p, ()))
        for device_id, current in devices.items()
    }


def permit_facts(permit: Permit) -> checks.PermitFacts:
    return checks.PermitFacts(
        permit_number=permit.permit_number,
        issued_on=permit.issued_on,
        expires_on=permit.expires_on,
        changes=tuple(reg.Dated(c.effective_on, c.status) for c in permit.status_changes),
    )


def hauler_facts(hauler: Hauler, jurisdiction_id) -> checks.HaulerFacts:
    """The hauler as the filing's city records it: no other city's rows count."""
    return checks.HaulerFacts(
        licences=tuple(licences_of(hauler, jurisdiction_id)),
        registrations=tuple(registrations_of(hauler, jurisdiction_id)),
        vehicles={
            v.vehicle_id: v.tank_capacity_gallons for v in hauler.vehicles if v.jurisdiction_id == jurisdiction_id
        },
    )


def site_facts(site: DisposalSite | None, jurisdiction_id) -> checks.SiteFacts | None:
    """The site as the filing's city approved it; a site the city never approved is approved
    on no day, for no waste and not for the city."""
    if site is None:
        return None
    approval = approval_of(site, jurisdiction_id)
    if approval is None:
        return checks.SiteFacts(
            approved_from=date.max, approved_until=None, changes=(), waste_types=(), jurisdiction_ids=frozenset()
        )
    return checks.SiteFacts(
        approved_from=approval.approved_from,
        approved_until=approval.approved_until,
        changes=tuple(reg.Dated(c.effective_on, c.status) for c in approval.status_changes),
        waste_types=tuple(approval.waste_types),
        jurisdiction_ids=frozenset({jurisdiction_id}),
    )


def cached(session, kind, key, build):
    """Registry facts are loaded once per session (one request, one transaction); a hauler's
    and a disposal site's are kept by the process while the registry generation stands."""
    cache = session.info.setdefault("fogx.facts", {})
    if (kind, key) not in cache:
        shared = _shared(session) if kind in SHARED_FACTS else None
        if shared is None:
            cache[(kind, key)] = build()
        else:
            if (kind, key) not in shared:
                shared[(kind, key)] = build()
            cache[(kind, key)] = shared[(kind, key)]
    return cache[(kind, key)]


SHARED_FACTS = {"hauler", "site", "registered", "hauler_name", "site_named"}
_SHARED_LIMIT = 10_000
_shared_by_engine = weakref.WeakKeyDictionary()  # engine -> (generation, {(kind, key): facts})


def _shared(session):
    """This process's facts for the generation the session read, or None when it read none."""
    generation = session.info.get("fogx.facts", {}).get(("generation", None))
    if generation is None:
        return None
    engine = session.get_bind()
    seen, facts = _shared_by_engine.get(engine, (None, None))
    if seen != generation or len(facts) >= _SHARED_LIMIT:
        facts = {}
        _shared_by_engine[engine] = (generation, facts)
    return facts


def registry_generation():
    return select(RegistryGeneration.generation).where(RegistryGeneration.id == 1).scalar_subquery()


def load_hauler_facts(session, hauler_id, jurisdiction_id):
    # Each collection by a query of its own: joined together, a hauler working in forty cities
    # would come back as the product of its licences, registrations and vehicles.
    hauler = session.scalars(
        select(Hauler)
        .where(Hauler.id == hauler_id)
        .options(selectinload(Hauler.licences), selectinload(Hauler.registrations), selectinload(Hauler.vehicles))
    ).one()
    return hauler_facts(hauler, jurisdiction_id)


def registered_in(session, hauler_id):
    return frozenset(
        session.scalars(select(HaulerRegistration.jurisdiction_id).where(HaulerRegistration.hauler_id == hauler_id))
    )


def load_device_facts(session, device_id):
    device = (
        session.scalars(
            select(Device)
            .where(Device.id == device_id)
            .options(joinedload(Device.permit).joinedload(Permit.status_changes), joinedload(Device.permit_moves))
        )
        .unique()
        .one()
    )
    facts = permit_facts(device.permit)
    session.info.setdefault("fogx.facts", {}).setdefault(("permit", device.permit_id), facts)
    # A device a renewal moved is judged over every permit it was on.
    tenures = load_tenures(session, [(device.id, device.permit_id)])[device.id] if device.permit_moves else ()
    return device_facts(device, tenures=tenures), facts


def load_permit_facts(session, permit_id):
    permit = session.scalars(
        select(Permit).where(Permit.id == permit_id).options(selectinload(Permit.status_changes))
    ).one()
    return permit_facts(permit)


def zone_of(session, jurisdiction_id) -> str:
    """The city's time zone: its local dates are the ones its rules speak of."""
    return cached(
        session,
        "zone",
        jurisdiction_id,
        lambda: session.scalar(select(Jurisdiction.time_zone).where(Jurisdiction.id == jurisdiction_id)),
    )


def load_site_facts(session, site_id, jurisdiction_id):
    site = (
        session.scalars(
            select(DisposalSite)
            .where(DisposalSite.id == site_id)
            .options(joinedload(DisposalSite.approvals).joinedload(DisposalSiteJurisdiction.status_changes))
        )
        .unique()
        .one_or_none()
    )
    return site_facts(site, jurisdiction_id)
