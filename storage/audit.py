"""Set-based audit queries: devices due and overdue, missed intervals, findings, scorecards.

Every question is one SQL statement over the current revisions, portable between SQLite and
PostgreSQL. Days are counted as whole days since 2000-01-01, each service on the local date of
its city (`storage.localtime`), on both.
"""

from datetime import date, timedelta

from sqlalchemy import Date, String, and_, case, func, literal, null, select, true
from sqlalchemy.orm import aliased

from domain import words
from domain.presets import EXCHANGE_POLICY, ORDINANCE, POLICY
from domain.status import ENDING_STATUSES

# The interval's SQL, read by the lists from here too.
from storage.intervals import (
    clock_started,
    day_of,
    ever_paused_moved,
    fenced,
    first_issued,
    frequency_changed,
    longest_columns,
    permit_then,
    with_bounds,
    with_frequency,
)
from storage.localtime import day_start, local_day
from storage.models import (
    Device,
    Finding,
    Fse,
    Hauler,
    Jurisdiction,
    Manifest,
    ManifestRevision,
    Permit,
    PermitStatusChange,
)
from storage.permit_status import permit_status_sql

EPOCH = date(2000, 1, 1)


def day_number(day: date) -> int:
    return (day - EPOCH).days


def from_day_number(number: int) -> date:
    return date.fromordinal(EPOCH.toordinal() + int(number))


def city_zone(jurisdiction_id, zone: str | None = None):
    """The city's time zone: `zone` where the caller has read it (a literal lets the planner
    estimate a period's rows), else a value the database reads once per statement."""
    if zone is not None:
        return literal(zone, String)
    return select(Jurisdiction.time_zone).where(Jurisdiction.id == jurisdiction_id).scalar_subquery()


def counted_services(zone):
    """The services that count: revisions in force that qualify, each on the local day of the
    time zone `zone` (an SQL expression), read from their partial index without the manifests."""
    return select(
        ManifestRevision.device_id.label("device_id"),
        local_day(ManifestRevision.service_completed_at, zone).label("day"),
        ManifestRevision.manifest_id.label("manifest_id"),
    ).where(ManifestRevision.in_force, ManifestRevision.qualifying)


def _permit_ending(day: date, dialect: str):
    """Each permit's latest status change up to `day`, where that change ended it (revoked,
    or expiry recorded as a status): its `ending_on`, as a FROM element to outer-join.
    PostgreSQL probes each permit's changes (LATERAL ... LIMIT 1); SQLite ranks them."""
    ending = case(
        (PermitStatusChange.status.in_(ENDING_STATUSES), PermitStatusChange.effective_on), else_=null()
    ).label("ending_on")
    order = (PermitStatusChange.effective_on.desc(), PermitStatusChange.recorded_at.desc())
    if dialect == "postgresql":
        latest = (
            select(ending)
            .where(PermitStatusChange.permit_id == Permit.id, PermitStatusChange.effective_on <= day)
            .order_by(*order)
            .limit(1)
            .lateral("ending")
        )
        return latest, true()
    ranked = (
        select(
            PermitStatusChange.permit_id,
            ending,
            func.row_number().over(partition_by=PermitStatusChange.permit_id, order_by=order).label("rank"),
        )
        .where(PermitStatusChange.effective_on <= day)
        .subquery("ranked_changes")
    )
    latest = select(ranked.c.permit_id, ranked.c.ending_on).where(ranked.c.rank == 1).subquery("ending")
    return latest, latest.c.permit_id == Permit.id


def permit_ended_day(ending):
    """The day number from which the permit no longer holds, as known on the day `ending` was
    read for (`_permit_ending`): its revocation's, or the day after its expiry, whichever comes
    first. A permit has ended on a day on or after it (as `domain.status.permit_ended_on`)."""
    after_expiry = day_of(Permit.expires_on) + 1
    ended = day_of(ending.c.ending_on)
    return case((ending.c.ending_on.is_(None), after_expiry), (ended < after_expiry, ended), else_=after_expiry)


def _last_service(as_of: date | None, dialect: str, *, manifest: bool = True):
    """Each device's last qualifying service up to the end of its city's day `as_of` (None: its
    last of all), as a FROM element to outer-join (beside `Jurisdiction`, the device's city):
    its day, and with `manifest` its manifest's id, number and hauler.

    PostgreSQL probes the partial index of counted services once per device (LATERAL ...
    LIMIT 1); SQLite, which has no LATERAL, ranks the services with a window function.
    """
    if dialect == "postgresql":
        zone = Jurisdiction.time_zone
        last = _last_columns(zone, manifest).where(ManifestRevision.device_id == Device.id)
        if as_of is not None:
            last = last.where(ManifestRevision.service_completed_at < _day_after(as_of, zone))
        last = last.order_by(ManifestRevision.service_completed_at.desc()).limit(1).lateral("last")
        return last, true()
    city = aliased(Jurisdiction)
    services = _last_columns(city.time_zone, manifest)
    ranked = (
        services.add_columns(
            func.row_number()
            .over(
                partition_by=ManifestRevision.device_id,
                order_by=(ManifestRevision.service_completed_at.desc(), ManifestRevision.manifest_id.desc()),
            )
            .label("rank")
        )
        .join(Device, Device.id == ManifestRevision.device_id)
        .join(Fse, Fse.id == Device.fse_id)
        .join(city, city.id == Fse.jurisdiction_id)
    )
    if as_of is not None:
        ranked = ranked.where(ManifestRevision.service_completed_at < _day_after(as_of, city.time_zone))
    ranked = ranked.subquery("ranked")
    last = select(ranked).where(ranked.c.rank == 1).subquery("last")
    return last, last.c.device_id == Device.id


def _day_after(day: date, zone):
    """The first moment after the city's day `day`."""
    return day_start(literal(day + timedelta(days=1), Date), zone)


def _last_columns(zone, manifest):
    services = counted_services(zone)
    if not manifest:
        return services
    return services.add_columns(
        Manifest.manifest_number.label("manifest_number"), Manifest.hauler_id.label("hauler_id")
    ).join(Manifest, Manifest.id == ManifestRevision.manifest_id)


def device_due(as_of: date, dialect: str = "sqlite", *, manifest: bool = True, where=()):
    """One row per device (of those `where` selects, conditions on the registry's tables): its
    last qualifying service up to `as_of`, due day and lateness. A device whose permit has
    ended by `as_of` is due no more: `permit_ended`, no due day; nor one retired by then
    (`retired`). Without `manifest`, the last
    service's manifest number and hauler are left out (a count of statuses reads no manifest).

    Worked out in layers, each column once a row (`storage.intervals.fenced`): the device with
    its last service and what its interval is judged by, the frequency's run, the bounds, and
    then the status from those."""
    last, on = _last_service(as_of, dialect, manifest=manifest)
    ending, ending_on = _permit_ending(as_of, dialect)
    first = first_issued()
    # The permit the device was on on `as_of`: after a renewal, the days before it stay on the
    # old permit (its number, status and ending).
    then = permit_then(as_of)
    longest_days, longest_months = longest_columns()
    inputs = fenced(
        select(
            Fse.id.label("fse_id"),
            Fse.name.label("fse_name"),
            Fse.address.label("address"),
            Jurisdiction.code.label("jurisdiction"),
            Permit.permit_number.label("permit_number"),
            permit_status_sql(as_of).label("permit_status"),
            Device.id.label("device_id"),
            Device.tag.label("device_tag"),
            Device.kind.label("device_kind"),
            last.c.day.label("last_service_day"),
            last.c.manifest_id.label("last_manifest_id"),
            *((last.c.manifest_number, last.c.hauler_id) if manifest else ()),
            func.coalesce(last.c.day, clock_started(Device, first.c.issued_day, Permit.issued_on)).label("start"),
            Device.frequency_days.label("frequency"),
            Device.frequency_months.label("months"),
            frequency_changed(Device.id).label("changed"),
            Jurisdiction.grace_days.label("grace"),
            longest_days.label("longest_days"),
            longest_months.label("longest_months"),
            Permit.id.label("permit_id"),
            ever_paused_moved(Device, first, day_number(as_of) + 1).label("paused"),
            (permit_ended_day(ending) <= day_number(as_of)).label("ended"),
            func.coalesce(Device.retired_on <= as_of, False).label("retired"),
        )
        .select_from(Device)
        .join(Fse, Fse.id == Device.fse_id)
        .outerjoin(then, then.c.device_id == Device.id)
        .join(Permit, Permit.id == func.coalesce(then.c.permit_id, Device.permit_id))
        .join(Jurisdiction, Jurisdiction.id == Fse.jurisdiction_id)
        .outerjoin(last, on)
        .outerjoin(ending, ending_on)
        .outerjoin(first, first.c.device_id == Device.id)
        .where(Permit.issued_on <= as_of, *where),
        "due_inputs",
    )
    rows = with_bounds(with_frequency(inputs, "due_run"), "due_bounds", until=day_number(as_of) + 1)
    today = literal(day_number(as_of))
    days_overdue = today - rows.c.due
    status = case(
        (rows.c.retired, "retired"),
        (rows.c.ended, "permit_ended"),
        (rows.c.last_manifest_id.is_(None), "never_serviced"),
        (days_overdue <= 0, case((days_overdue >= -14, "due_soon"), else_="compliant")),
        (today <= rows.c.in_time, "overdue"),
        else_="missed",
    )
    return select(
        rows.c.fse_id,
        rows.c.fse_name,
        rows.c.address,
        rows.c.jurisdiction,
        rows.c.permit_number,
        rows.c.permit_status,
        in_words(rows.c.permit_status, words.PERMIT_STATUSES).label("permit_status_words"),
        rows.c.device_id,
        rows.c.device_tag,
        rows.c.device_kind,
        in_words(rows.c.device_kind, words.DEVICE_KINDS).label("device_kind_words"),
        # The days the gap may run to its due day, and the grace after it.
        (rows.c.due - rows.c.start).label("frequency_days"),
        (rows.c.in_time - rows.c.due).label("grace_days"),
        rows.c.last_service_day,
        rows.c.last_manifest_id,
        *(_last_manifest(rows) if manifest else ()),
        # Not yet due is 0 days overdue, as in a record's summary (domain.status).
        case((rows.c.ended | rows.c.retired, null()), else_=rows.c.due).label("due_day"),
        case((rows.c.ended | rows.c.retired, 0), (days_overdue > 0, days_overdue), else_=0).label("days_overdue"),
        status.label("status"),
        # The status in words beside its code, for the people who read the sheet.
        in_words(status, words.STATUSES).label("status_words"),
    )


def in_words(code, table: dict):
    """A code's words (`domain.words`) beside it in a list, so that its sheet reads without a
    key; a code the table does not know yet stays as it is."""
    return case(*((code == known, text) for known, text in table.items()), else_=code)


def _last_manifest(rows):
    return (
        rows.c.manifest_number.label("last_manifest_number"),
        rows.c.hauler_id.label("last_hauler_id"),
        # A scalar subquery, not a join: it is evaluated for the rows returned only, after
        # the sort and the page, not inside the probe of every device.
        select(Hauler.name).where(Hauler.id == rows.c.hauler_id).scalar_subquery().label("last_hauler_name"),
    )


def missed_as_of(as_of: date, jurisdiction_id, *, dialect, fse_id=None, hauler_id=None, status=None, area=None):
    """Devices past due on `as_of` (overdue within the grace, missed beyond, never serviced), or
    with `status="due_soon"` those coming due within 14 days."""
    rows = device_due(as_of, dialect, where=[Fse.jurisdiction_id == jurisdiction_id]).subquery("due")
    query = select(rows).where(rows.c.days_overdue > 0 if status != "due_soon" else rows.c.status == "due_soon")
    return _filters(query, rows, fse_id=fse_id, hauler_id=hauler_id, status=status, area=area).order_by(
        rows.c.days_overdue.desc(), rows.c.due_day, rows.c.device_id
    )


def due_for_hauler(as_of: date, hauler_id, within_days: int, *, dialect, jurisdiction_id=None):
    """Devices the hauler has serviced that come due within `within_days` (or are past due);
    with `jurisdiction_id`, those of that city alone."""
    served = (
        select(ManifestRevision.device_id)
        .join(
            Manifest,
            and_(Manifest.id == ManifestRevision.manifest_id, Manifest.current_revision == ManifestRevision.revision),
        )
        .where(Manifest.hauler_id == hauler_id)
    )
    if jurisdiction_id is not None:
        served = served.where(Manifest.jurisdiction_id == jurisdiction_id)
    rows = device_due(as_of, dialect, where=[Device.id.in_(served)]).subquery("due")
    return (
        select(rows).where(rows.c.due_day <= day_number(as_of) + within_days).order_by(rows.c.due_day, rows.c.device_id)
    )


def fse_status(as_of: date, fse_id, *, dialect):
    rows = device_due(as_of, dialect, where=[Fse.id == fse_id]).subquery("due")
    return select(rows).order_by(rows.c.device_tag)


def _filters(query, rows, *, fse_id, hauler_id, status, area):
    if fse_id:
        query = query.where(rows.c.fse_id == fse_id)
    if hauler_id:
        query = query.where(rows.c.last_hauler_id == hauler_id)
    if status:
        query = query.where(rows.c.status == status)
    if area:
        query = query.where(func.lower(rows.c.address).like(f"%{area.lower()}%"))
    return query


def serviced_within(period_from: date | None, period_to: date | None, zone) -> list:
    """Conditions on a service's completion: within the local days `period_from` to
    `period_to` (either may be open) of the time zone `zone` (an SQL expression)."""
    completed = ManifestRevision.service_completed_at
    conditions = []
    if period_from:
        conditions.append(completed >= day_start(literal(period_from, Date), zone))
    if period_to:
        conditions.append(completed < day_start(literal(period_to + timedelta(days=1), Date), zone))
    return conditions


def _basis(citation):
    """`ordinance` or `exchange_policy`, as `domain.presets.basis_of` reads a citation."""
    return case((citation == POLICY, EXCHANGE_POLICY), else_=ORDINANCE)


def findings(
    jurisdiction_id,
    *,
    code=None,
    severity=None,
    hauler_id=None,
    fse_id=None,
    period_from=None,
    period_to=None,
    zone=None,
):
    """Open findings on current revisions of the jurisdiction's manifests (a period of the
    city's local days)."""
    query = (
        select(
            Finding.id.label("finding_id"),
            Finding.code,
            in_words(Finding.code, words.FINDINGS).label("code_words"),
            Finding.severity,
            in_words(Finding.severity, words.SEVERITIES).label("severity_words"),
            Finding.message,
            Finding.citation,
            _basis(Finding.citation).label("basis"),
            in_words(_basis(Finding.citation), words.BASES).label("basis_words"),
            Finding.raised_at,
            Manifest.id.label("manifest_id"),
            Manifest.manifest_number,
            Manifest.hauler_id,
            Hauler.name.label("hauler_name"),
            Manifest.fse_id,
            Fse.name.label("fse_name"),
            Device.tag.label("device_tag"),
            ManifestRevision.service_completed_at,
        )
        .join(ManifestRevision, ManifestRevision.id == Finding.revision_id)
        .join(Manifest, Manifest.id == ManifestRevision.manifest_id)
        .join(Hauler, Hauler.id == Manifest.hauler_id)
        .join(Fse, Fse.id == Manifest.fse_id)
        .join(Device, Device.id == Manifest.device_id)
        .where(Manifest.jurisdiction_id == jurisdiction_id, ManifestRevision.in_force, Finding.cleared_at.is_(None))
    )
    for column, value in (
        (Finding.code, code),
        (Finding.severity, severity),
        (Manifest.hauler_id, hauler_id),
        (Manifest.fse_id, fse_id),
    ):
        if value:
            query = query.where(column == value)
    return query.where(*serviced_within(period_from, period_to, city_zone(jurisdiction_id, zone)))


def findings_by_service(jurisdiction_id, period_from: date, period_to: date, zone):
    """The code and the service's completion of each of `findings`' rows for a period, read
    without the manifests: the revisions in force of the city's devices (a manifest is its
    device's city's), the findings on them."""
    return (
        select(Finding.code, ManifestRevision.service_completed_at)
        .join(ManifestRevision, ManifestRevision.id == Finding.revision_id)
        .join(Device, Device.id == ManifestRevision.device_id)
        .join(Fse, Fse.id == Device.fse_id)
        .where(
            Fse.jurisdiction_id == jurisdiction_id,
            ManifestRevision.in_force,
            Finding.cleared_at.is_(None),
            *serviced_within(period_from, period_to, city_zone(jurisdiction_id, zone)),
        )
    )


def counts_by_code(findings_query):
    rows = findings_query.subquery("f")
    return select(rows.c.code, func.count().label("count")).group_by(rows.c.code).order_by(rows.c.code)


def scorecard(jurisdiction_id, hauler_id, period_from: date, period_to: date, zone=None):
    """One row: a hauler's manifests in the jurisdiction and period (its local days), and what
    they raised."""

    def open_code(code):
        return func.count(func.distinct(case((and_(Finding.code == code, Finding.cleared_at.is_(None)), Manifest.id))))

    return (
        select(
            func.count(func.distinct(Manifest.id)).label("manifests"),
            open_code("late_submission").label("late_submissions"),
            open_code("partial_pump_down").label("partial_pump_downs"),
            open_code("disposal_site_unapproved").label("unapproved_disposal_sites"),
            open_code("load_shortfall").label("load_shortfalls"),
            open_code("disposal_unconfirmed").label("late_disposals"),
            open_code("decant_returned").label("decants_returned"),
            open_code("vehicle_unregistered").label("unregistered_vehicles"),
            func.count(func.distinct(case((ManifestRevision.qualifying, Manifest.id)))).label("qualifying"),
        )
        .select_from(Manifest)
        .join(
            ManifestRevision,
            and_(ManifestRevision.manifest_id == Manifest.id, ManifestRevision.revision == Manifest.current_revision),
        )
        .outerjoin(Finding, Finding.revision_id == ManifestRevision.id)
        .where(
            Manifest.jurisdiction_id == jurisdiction_id,
            Manifest.hauler_id == hauler_id,
            *serviced_within(period_from, period_to, city_zone(jurisdiction_id, zone)),
        )
    )
