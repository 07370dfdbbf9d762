"""Every interval a device went unserviced past its frequency and grace within a period: the
auditor's missed services by period."""

from datetime import date

from sqlalchemy import Date, and_, case, func, literal, null, or_, select, union_all

from domain import words
from storage.audit import _last_service, _permit_ending, city_zone, day_number, in_words, permit_ended_day
from storage.intervals import (
    clock_started,
    day_of,
    ever_paused_moved,
    fenced,
    first_issued,
    frequency_changed,
    longest_columns,
    permit_on_day,
    with_bounds,
    with_frequency,
)
from storage.localtime import day_start, local_day, more_than_days_apart
from storage.models import Device, Fse, Jurisdiction, Manifest, ManifestRevision, Permit


def missed_intervals(
    period_from: date,
    period_to: date,
    jurisdiction_id,
    *,
    dialect="sqlite",
    fse_id=None,
    hauler_id=None,
    area=None,
    zone=None,
):
    """Every gap between qualifying services longer than the frequency plus grace that was
    missed (past due beyond the grace, not yet serviced) on some day of the period while the
    device's permit held: a gap ends at the next service, or the permit's last day.

    Only the city's services from the period's first day on are read, each with the service
    before it; the gap each device's last service opens is found by one probe a device.
    """
    zone = city_zone(jurisdiction_id, zone)
    last, on = _last_service(None, dialect, manifest=False)
    # The city's devices, each with what its gaps are judged by and its last service (the gap
    # it opens): read once, beside every gap of the device.
    longest_days, longest_months = longest_columns()
    # A device renewed onto a new permit counts from its first permit's issue (or from the day
    # it was put in service, where later).
    first = first_issued()
    until = day_number(period_to) + 1
    city = (
        select(
            Device.id.label("device_id"),
            Device.permit_id.label("permit_id"),
            Device.frequency_days.label("frequency"),
            Device.frequency_months.label("months"),
            frequency_changed(Device.id).label("changed"),
            Jurisdiction.grace_days.label("grace"),
            longest_days.label("longest_days"),
            longest_months.label("longest_months"),
            clock_started(Device, first.c.issued_day, Permit.issued_on).label("issued_day"),
            last.c.day.label("last_day"),
            ever_paused_moved(Device, first, until).label("paused"),
            day_of(Device.retired_on).label("retired_day"),
        )
        .select_from(Device)
        .join(Fse, Fse.id == Device.fse_id)
        .join(Permit, Permit.id == Device.permit_id)
        .join(Jurisdiction, Jurisdiction.id == Fse.jurisdiction_id)
        .outerjoin(last, on)
        .outerjoin(first, first.c.device_id == Device.id)
        .where(Fse.jurisdiction_id == jurisdiction_id)
    ).cte("city")
    # The gaps the city's services of the period close, each from the service before it
    # (`previous_service_at`, the first service's from the permit's issue), read from the devices
    # themselves: device by device, each from the index of counted services alone. A gap of more
    # than `allowed` local days spans more than `allowed` - 1 days of elapsed time (a clock
    # change moves an hour), so only the gaps that do are given their local days.
    completed, previous = ManifestRevision.service_completed_at, ManifestRevision.previous_service_at
    # Each device's bound, worked out once beside it, not for every service: the frequency and
    # grace, or fewer days where the longest interval is shorter (no month has under 28 days).
    # A device whose frequency changed keeps every gap: its frequency differs from day to day.
    # A frequency in calendar months spans no fewer than 28 days a month either.
    by_plan = case(
        (city.c.changed, 0),
        (city.c.months.is_not(None), city.c.months * 28 + city.c.grace),
        else_=city.c.frequency + city.c.grace,
    )
    shortest = func.coalesce(city.c.longest_months * 28, city.c.longest_days)
    allowed = case((shortest < by_plan, shortest), else_=by_plan)
    closed = (
        select(
            ManifestRevision.device_id.label("device_id"),
            local_day(previous, zone).label("start_day"),
            local_day(completed, zone).label("end_day"),
            ManifestRevision.manifest_id.label("end_manifest_id"),
        )
        .select_from(city)
        .join(ManifestRevision, ManifestRevision.device_id == city.c.device_id)
        .where(
            ManifestRevision.in_force,
            ManifestRevision.qualifying,
            completed >= day_start(literal(period_from, Date), zone),
            or_(
                previous.is_(None),
                and_(
                    more_than_days_apart(completed, previous, allowed - 1),
                    local_day(completed, zone) - local_day(previous, zone) > allowed,
                ),
            ),
        )
    )
    open_ = select(
        city.c.device_id, city.c.last_day.label("start_day"), null().label("end_day"), null().label("end_manifest_id")
    )
    every_gap = union_all(closed, open_).subquery("every_gap")
    # Each gap beside what it is judged by, its frequency's run and its bounds, each worked out
    # once a gap (`storage.intervals.fenced`).
    judged = fenced(
        select(
            every_gap.c.device_id,
            every_gap.c.end_day,
            every_gap.c.end_manifest_id,
            every_gap.c.start_day.label("served_from"),
            func.coalesce(every_gap.c.start_day, city.c.issued_day).label("start"),
            city.c.permit_id,
            city.c.frequency,
            city.c.months,
            city.c.changed,
            city.c.grace,
            city.c.longest_days,
            city.c.longest_months,
            city.c.paused,
            city.c.retired_day,
        ).join(city, city.c.device_id == every_gap.c.device_id),
        "gap_inputs",
    )
    bounded = with_bounds(with_frequency(judged, "gap_run"), "gap_run_bounds", until=until)
    # Worked out apart (a materialised CTE on PostgreSQL): the planner's guess at the cost of
    # the bounds' subqueries, however rarely they run, would otherwise dwarf every join after it
    # and leave it choosing among them blind.
    bounded = select(bounded).cte("gap_bounds")
    if dialect == "postgresql":
        bounded = bounded.prefix_with("MATERIALIZED")
    reached = func.coalesce(bounded.c.end_day, day_number(period_to))
    # A retired device is missed no more from its retirement's day: its gap ends the day before.
    reached = case((bounded.c.retired_day <= reached, bounded.c.retired_day - 1), else_=reached)
    missed_on = bounded.c.in_time + 1
    # The gaps that reach past their due day and the grace, due to be missed by the period's
    # end: only these are read beside the registry and their permit's ending (which may end
    # them sooner).
    gaps = (
        select(
            bounded.c.device_id,
            bounded.c.end_day,
            bounded.c.end_manifest_id,
            # The permit the device was on on the gap's last day in the period (after a
            # renewal, the old permit for its days): its number, and its ending cuts the gap.
            permit_on_day(bounded.c.device_id, bounded.c.permit_id, reached).label("permit_id"),
            bounded.c.served_from,
            bounded.c.start,
            bounded.c.due,
            bounded.c.in_time,
            reached.label("reached"),
            missed_on.label("missed_on"),
        ).where(reached > bounded.c.in_time, missed_on <= day_number(period_to))
    ).subquery("gaps")
    ending, ending_on = _permit_ending(period_to, dialect)
    last_day_in_force = permit_ended_day(ending) - 1
    end = case((last_day_in_force < gaps.c.reached, last_day_in_force), else_=gaps.c.reached)
    counted_from = case((gaps.c.served_from.is_(None), "permit_issued"), else_="service")
    query = (
        select(
            Fse.id.label("fse_id"),
            Fse.name.label("fse_name"),
            Fse.address.label("address"),
            Permit.permit_number.label("permit_number"),
            gaps.c.device_id.label("device_id"),
            Device.tag.label("device_tag"),
            (gaps.c.due - gaps.c.start).label("frequency_days"),
            gaps.c.start.label("from_day"),
            gaps.c.due.label("due_day"),
            gaps.c.missed_on.label("missed_day"),
            gaps.c.end_day.label("serviced_day"),
            gaps.c.end_manifest_id.label("serviced_manifest_id"),
            (end - gaps.c.due).label("days_late"),
            counted_from.label("counted_from"),
            in_words(counted_from, words.COUNTED_FROM).label("counted_from_words"),
        )
        .select_from(gaps)
        .join(Permit, Permit.id == gaps.c.permit_id)
        .outerjoin(ending, ending_on)
        # Outer joins on the keys of rows that are always there: a count of the gaps (the
        # dashboard's) reads neither table, as PostgreSQL leaves such a join out.
        .outerjoin(Device, Device.id == gaps.c.device_id)
        .outerjoin(Fse, Fse.id == Device.fse_id)
        .where(end > gaps.c.in_time, end >= day_number(period_from))
    ).subquery("intervals")
    result = select(query)
    if fse_id:
        result = result.where(query.c.fse_id == fse_id)
    if area:
        result = result.where(func.lower(query.c.address).like(f"%{area.lower()}%"))
    if hauler_id:
        result = result.where(query.c.device_id.in_(select(Manifest.device_id).where(Manifest.hauler_id == hauler_id)))
    return result.order_by(query.c.missed_day, query.c.device_id)
