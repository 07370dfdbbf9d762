"""The FSE's maintenance log: its people record each cleaning of a grease trap the kitchen
cleans itself, and anyone within reach of the FSE reads the log with the days on which the
city's text asked for a cleaning and the log shows none. Entries are never edited or deleted.
"""

from dataclasses import dataclass, field
from datetime import date, timedelta

from sqlalchemy import select
from sqlalchemy.orm import selectinload

from domain import registry as reg
from domain.clock import now as clock_now
from domain.dates import local_date
from domain.maintenance import missing_days
from domain.presets import POLICY
from domain.status import device_pauses, tenures_of
from services.errors import Invalid, NotFound
from services.registry import fses as registry
from storage.models import Device, Fse, Jurisdiction, Permit, TrapCleaning

# The period a log is read for when none is asked: the last thirty days, today among them.
DEFAULT_DAYS = 30


@dataclass(frozen=True)
class Log:
    fse: Fse
    day_from: date
    day_to: date
    every_days: int | None  # the city's rule, where its text sets one
    citation: str
    entries: list  # (TrapCleaning, device tag)
    missing: list = field(default_factory=list)  # (device, day)


def record(
    session, *, principal, fse_id, device_id, cleaned_on: date, cleaned_by: str, note: str | None = None
) -> tuple[TrapCleaning, Device]:
    """One cleaning of one of the FSE's traps, by the restaurant's own people; no later than
    the city's today."""
    fse = registry.get_fse(session, principal, fse_id=fse_id)
    city = session.get(Jurisdiction, fse.jurisdiction_id)
    device = session.scalar(select(Device).where(Device.id == device_id, Device.fse_id == fse.id))
    errors = {}
    if device is None:
        errors["device_id"] = ["No such device at this FSE."]
    elif device.kind != "trap":
        errors["device_id"] = [
            (
                "The log is of the grease traps the kitchen cleans itself; an interceptor's "
                "pump-out is a hauler's manifest."
            )
        ]
    if cleaned_on > local_date(clock_now(), city.time_zone):
        errors["cleaned_on"] = ["Must not be in the future."]
    if errors:
        raise Invalid("The cleaning cannot be recorded.", errors=errors)
    entry = TrapCleaning(
        fse_id=fse.id,
        jurisdiction_id=fse.jurisdiction_id,
        device_id=device.id,
        cleaned_on=cleaned_on,
        cleaned_by=cleaned_by,
        note=note,
        recorded_by_client_id=principal.client_pk,
        recorded_by_person_id=principal.person_id,
    )
    session.add(entry)
    session.commit()
    return entry, device


def read(
    session, *, principal, fse_id, day_from: date | None = None, day_to: date | None = None, device_id=None
) -> Log:
    """The FSE's log for a period (the last thirty days unless asked), and, where the city's
    text sets how often the kitchen cleans a trap, each day a trap went without (from its
    permit's first day to its last)."""
    fse = registry.get_fse(session, principal, fse_id=fse_id)
    city = session.get(Jurisdiction, fse.jurisdiction_id)
    today = local_date(clock_now(), city.time_zone)
    day_to = min(day_to or today, today)
    day_from = day_from or day_to - timedelta(days=DEFAULT_DAYS - 1)
    traps = (
        select(Device, Permit)
        .join(Permit, Permit.id == Device.permit_id)
        .where(Device.fse_id == fse.id, Device.kind == "trap")
        .order_by(Device.tag)
    )
    if device_id is not None:
        traps = traps.where(Device.id == device_id)
    traps = session.execute(traps).all()
    if device_id is not None and not traps:
        raise NotFound("No such trap at this FSE.")
    tags = {device.id: device.tag for device, _ in traps}
    rows = session.scalars(
        select(TrapCleaning)
        .options(selectinload(TrapCleaning.recorded_by_client), selectinload(TrapCleaning.recorded_by_person))
        .where(
            TrapCleaning.fse_id == fse.id,
            TrapCleaning.device_id.in_(tags),
            TrapCleaning.cleaned_on >= day_from,
            TrapCleaning.cleaned_on <= day_to,
        )
        .order_by(TrapCleaning.cleaned_on, TrapCleaning.recorded_at, TrapCleaning.id)
    ).all()
    every = city.trap_daily_cleaning
    log = Log(
        fse=fse,
        day_from=day_from,
        day_to=day_to,
        every_days=every,
        citation=(city.citations or {}).get("trap_daily_cleaning") or POLICY,
        entries=[(row, tags[row.device_id]) for row in rows],
    )
    if every:
        log.missing.extend(_missing(session, fse, traps, rows, every=every, day_from=day_from, day_to=day_to))
    return log


def missing_in(session, fse: Fse, *, day_from: date, day_to: date) -> list:
    """(device, day) for each day of the period (to the city's today at most) a trap of the
    FSE went without the cleaning its city's text asks for (none where it asks none): the
    record's and the binder's share of the log."""
    city = session.get(Jurisdiction, fse.jurisdiction_id)
    every = city.trap_daily_cleaning
    day_to = min(day_to, local_date(clock_now(), city.time_zone))
    if not every or day_to < day_from:
        return []
    traps = session.execute(
        select(Device, Permit)
        .join(Permit, Permit.id == Device.permit_id)
        .where(Device.fse_id == fse.id, Device.kind == "trap")
        .order_by(Device.tag)
    ).all()
    rows = session.scalars(
        select(TrapCleaning).where(
            TrapCleaning.fse_id == fse.id, TrapCleaning.cleaned_on >= day_from, TrapCleaning.cleaned_on <= day_to
        )
    ).all()
    return list(_missing(session, fse, traps, rows, every=every, day_from=day_from, day_to=day_to))


def _missing(session, fse, traps, rows, *, every, day_from, day_to):
    """(device, day) for each day a trap went without its cleaning while its permit was in
    force: from its first permit's first day (a renewal moves a trap) to its permit's expiry,
    less the spans a permit it was on was suspended or revoked, as the service clock counts
    them (`domain.status.device_pauses`)."""
    permits = {
        permit.id: permit
        for permit in session.scalars(
            select(Permit).options(selectinload(Permit.status_changes)).where(Permit.fse_id == fse.id)
        )
    }

    def changes_of(permit_id):
        return [reg.Dated(c.effective_on, c.status) for c in permits[permit_id].status_changes]

    for device, permit in traps:
        cleaned = {row.cleaned_on for row in rows if row.device_id == device.id}
        issued = min([permit.issued_on, *(permits[move.from_permit_id].issued_on for move in device.permit_moves)])
        tenures = tenures_of(current=device.permit_id, moves=device.permit_moves, changes_of=changes_of)
        paused = device_pauses(tenures, until=day_to + timedelta(days=1))
        start, end = max(day_from, issued), min(day_to, permit.expires_on)
        for day in missing_days(cleaned, start=start, end=end, every_days=every, paused=paused):
            yield device, day
