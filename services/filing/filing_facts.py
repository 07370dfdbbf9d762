"""The registry's facts a filing is judged by: their loaders, and `Facts`, which reads each once."""

import weakref
from dataclasses import dataclass
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


def device_facts(device: Device, changes=None, *, tenures=()) -> checks.DeviceFacts:
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
        frequency_months=device.frequency_months,
        frequencies=frequency_history(changes),
        tenures=tuple(tenures),
        retired_on=getattr(device, "retired_on", None),
    )


def load_tenures(session, devices) -> dict:
    """Each permit each device was on (`domain.status.Tenure`), by device id, for `devices`
    given as (device id, its permit now): its moves, those permits' days and status changes,
    read in three statements whatever their number."""
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
    dates = {
        permit_id: (issued_on, expires_on)
        for permit_id, issued_on, expires_on in session.execute(
            select(Permit.id, Permit.issued_on, Permit.expires_on).where(Permit.id.in_(permit_ids))
        )
    }
    changes = {}
    for permit_id, effective_on, status in session.execute(
        select(PermitStatusChange.permit_id, PermitStatusChange.effective_on, PermitStatusChange.status)
        .where(PermitStatusChange.permit_id.in_(permit_ids))
        .order_by(PermitStatusChange.effective_on, PermitStatusChange.recorded_at)
    ):
        changes.setdefault(permit_id, []).append(reg.Dated(effective_on, status))
    return {
        device_id: tenures_of(
            current=current,
            moves=moves.get(device_id, ()),
            changes_of=lambda p: changes.get(p, ()),
            dates_of=dates.__getitem__,
        )
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


class Facts:
    """The registry's facts one use case judges by, each read once by its loader below: a
    device and its permit, a permit, a city's rules and time zone, a hauler and a disposal
    site as a city records them, and the names a revision keeps. A hauler's and a site's are
    kept by the process as well, while the registry generation the use case read stands."""

    def __init__(self, session):
        self._session = session
        self._known = {}
        self._shared = None

    def saw_generation(self, generation):
        """The registry generation the use case read: from then on the process's facts of that
        generation serve it, and what it reads serves the next."""
        engine = self._session.get_bind()
        seen, facts = _shared_by_engine.get(engine, (None, None))
        if seen != generation or len(facts) >= _SHARED_LIMIT:
            facts = {}
            _shared_by_engine[engine] = (generation, facts)
        self._shared = facts

    def know(self, *, rules=None, zone=None, device=None, permits=()):
        """Facts read together with what a filing names (`services.filing.resolving`): `rules` and
        `zone` as (city id, value), `device` as (device id, (device facts, permit facts)),
        `permits` as (permit id, facts) pairs."""
        for kind, pair in (("rules", rules), ("zone", zone), ("device", device)):
            if pair is not None:
                self._known.setdefault((kind, pair[0]), pair[1])
        for permit_id, facts in permits:
            self._known[("permit", permit_id)] = facts

    def rules(self, jurisdiction_id) -> checks.Rules:
        return self._read("rules", jurisdiction_id, lambda: rules_of(self._session.get(Jurisdiction, jurisdiction_id)))

    def zone(self, jurisdiction_id) -> str:
        """The city's time zone: its local dates are the ones its rules speak of."""
        return self._read(
            "zone",
            jurisdiction_id,
            lambda: self._session.scalar(select(Jurisdiction.time_zone).where(Jurisdiction.id == jurisdiction_id)),
        )

    def device(self, device_id) -> tuple[checks.DeviceFacts, checks.PermitFacts]:
        """The device, and the facts of the permit it is listed on now."""
        return self._read("device", device_id, lambda: self._device(device_id))

    def permit(self, permit_id) -> checks.PermitFacts:
        return self._read("permit", permit_id, lambda: load_permit_facts(self._session, permit_id))

    def hauler(self, hauler_id, jurisdiction_id) -> checks.HaulerFacts:
        return self._read(
            "hauler",
            (hauler_id, jurisdiction_id),
            lambda: load_hauler_facts(self._session, hauler_id, jurisdiction_id=jurisdiction_id),
            shared=True,
        )

    def site(self, site_id, jurisdiction_id) -> checks.SiteFacts | None:
        return self._read(
            "site",
            (site_id, jurisdiction_id),
            lambda: load_site_facts(self._session, site_id, jurisdiction_id=jurisdiction_id),
            shared=True,
        )

    def registered(self, hauler_id) -> frozenset:
        """The cities the hauler is registered in."""
        return self._read("registered", hauler_id, lambda: registered_in(self._session, hauler_id), shared=True)

    def hauler_name(self, hauler_id) -> str:
        return self._read(
            "hauler_name",
            hauler_id,
            lambda: self._session.scalar(select(Hauler.name).where(Hauler.id == hauler_id)),
            shared=True,
        )

    def site_named(self, site_id):
        """The site's name and address (None for an unknown site)."""
        return self._read(
            "site_named",
            site_id,
            lambda: self._session.execute(
                select(DisposalSite.name, DisposalSite.address).where(DisposalSite.id == site_id)
            ).one_or_none(),
            shared=True,
        )

    def _device(self, device_id):
        device, permit = load_device_facts(self._session, device_id)
        self._known.setdefault(("permit", permit.permit_id), permit.facts)
        return device, permit.facts

    def _read(self, kind, key, load, *, shared=False):
        known = self._known.get((kind, key), _MISSING)
        if known is not _MISSING:
            return known
        pool = self._shared if shared else None
        if pool is None:
            value = load()
        else:
            value = pool.get((kind, key), _MISSING)
            if value is _MISSING:
                value = pool[(kind, key)] = load()
        self._known[(kind, key)] = value
        return value


_MISSING = object()
_SHARED_LIMIT = 10_000
_shared_by_engine = weakref.WeakKeyDictionary()  # engine -> (generation, {(kind, key): facts})


def registry_generation():
    return select(RegistryGeneration.generation).where(RegistryGeneration.id == 1).scalar_subquery()


def load_hauler_facts(session, hauler_id, *, jurisdiction_id):
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
    """The device's facts, and its permit's (`.permit_id`, `.facts`)."""
    device = (
        session.scalars(
            select(Device)
            .where(Device.id == device_id)
            .options(joinedload(Device.permit).joinedload(Permit.status_changes), joinedload(Device.permit_moves))
        )
        .unique()
        .one()
    )
    # A device a renewal moved is judged over every permit it was on.
    tenures = load_tenures(session, [(device.id, device.permit_id)])[device.id] if device.permit_moves else ()
    return device_facts(device, tenures=tenures), ListedOn(device.permit_id, permit_facts(device.permit))


@dataclass(frozen=True)
class ListedOn:
    """The permit a device is listed on now."""

    permit_id: object
    facts: checks.PermitFacts


def load_permit_facts(session, permit_id):
    permit = session.scalars(
        select(Permit).where(Permit.id == permit_id).options(selectinload(Permit.status_changes))
    ).one()
    return permit_facts(permit)


def load_site_facts(session, site_id, *, jurisdiction_id):
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
