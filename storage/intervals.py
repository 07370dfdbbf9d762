"""The SQL of a device's service interval (`domain.status.Interval`): day numbers, calendar
months, the frequency in force from its changes, and the days a permit was not in force, on
SQLite and PostgreSQL alike."""

from sqlalchemy import Integer, case, func, null, or_, select
from sqlalchemy.ext.compiler import compiles
from sqlalchemy.orm import aliased
from sqlalchemy.sql.expression import FunctionElement

from domain.status import PAUSING_STATUSES
from storage.models import Device, DeviceFrequencyChange, DevicePermitMove, Jurisdiction, Permit, PermitStatusChange


class day_of(FunctionElement):
    """Whole days since 2000-01-01 of a date column (an instant's day is its city's:
    `storage.localtime.local_day`)."""

    type = Integer()
    inherit_cache = True
    name = "day_of"


@compiles(day_of, "sqlite")
def _day_of_sqlite(element, compiler, **kw):
    (arg,) = list(element.clauses)
    return f"CAST(julianday(date({compiler.process(arg, **kw)})) - 2451544.5 AS INTEGER)"


@compiles(day_of, "postgresql")
def _day_of_postgresql(element, compiler, **kw):
    (arg,) = list(element.clauses)
    return f"(({compiler.process(arg, **kw)}) - DATE '2000-01-01')"


class months_after(FunctionElement):
    """The day number `months` calendar months after the day number `day`: a month without
    that day gives its last (`domain.dates.add_months`); NULL where `months` is NULL."""

    type = Integer()
    inherit_cache = True
    name = "months_after"


@compiles(months_after, "sqlite")
def _months_after_sqlite(element, compiler, **kw):
    day, months = (compiler.process(clause, **kw) for clause in element.clauses)
    # SQLite's month arithmetic runs over into the next month: the earlier of that and the
    # target month's last day.
    on = f"date(2451544.5 + ({day}))"
    return (
        f"CAST(julianday(min(date({on}, '+' || ({months}) || ' months'), date({on}, 'start of month', "
        f"'+' || (({months}) + 1) || ' months', '-1 day'))) - 2451544.5 AS INTEGER)"
    )


@compiles(months_after, "postgresql")
def _months_after_postgresql(element, compiler, **kw):
    day, months = (compiler.process(clause, **kw) for clause in element.clauses)
    return f"(CAST((DATE '2000-01-01' + ({day})) + make_interval(months => ({months})) AS DATE) - DATE '2000-01-01')"


def longest_columns():
    """The city's longest interval in days and in months, for interceptors only."""
    interceptor = Device.kind == "interceptor"
    return (
        case((interceptor, Jurisdiction.interceptor_max_interval_days), else_=null()),
        case((interceptor, Jurisdiction.interceptor_max_interval_months), else_=null()),
    )


def frequency_changed(device_id):
    """Whether the device's frequency ever changed (else `Device.frequency_days` held always)."""
    return select(DeviceFrequencyChange.id).where(DeviceFrequencyChange.device_id == device_id).exists()


def by_frequency(start, device_id, frequency_days, changed):
    """The day number the frequency in force has run since the day number `start`
    (`domain.status.Interval.by_frequency`): the device's own frequency where it never
    changed (`changed`); else the first of its frequencies, each from its day, whose day
    falls before the next change."""
    change, following, earlier = (aliased(DeviceFrequencyChange) for _ in range(3))
    next_on = (
        select(func.min(day_of(following.effective_on)))
        .where(following.device_id == change.device_id, following.effective_on > change.effective_on)
        .scalar_subquery()
    )
    candidate = case(
        (start + change.to_days < day_of(change.effective_on), day_of(change.effective_on)),
        else_=start + change.to_days,
    )
    within_change = (
        select(func.min(candidate))
        .where(change.device_id == device_id, or_(next_on.is_(None), candidate < next_on))
        .scalar_subquery()
    )
    # Before the first change, the frequency it changed from.
    first = aliased(DeviceFrequencyChange)
    before_first = (
        select(start + first.from_days)
        .where(
            first.device_id == device_id,
            start + first.from_days < day_of(first.effective_on),
            ~select(earlier.id)
            .where(earlier.device_id == device_id, earlier.effective_on < first.effective_on)
            .exists(),
        )
        .scalar_subquery()
    )
    return case((changed, func.coalesce(before_first, within_change)), else_=start + frequency_days)


def fenced(query, name: str):
    """`query` as a subquery the planner keeps whole (OFFSET 0): each column is worked out once a
    row and read by name above it, where an inlined expression would be copied into every
    expression that reads it, and its subqueries run again for each copy."""
    return query.offset(0).subquery(name)


def with_frequency(rows, name: str):
    """`rows` (a subquery with `start`, `device_id`, `frequency` and `changed`) with `ran`, the
    day number the frequency in force has run from `start` (`by_frequency`)."""
    ran = by_frequency(rows.c.start, rows.c.device_id, rows.c.frequency, rows.c.changed)
    return fenced(select(rows, ran.label("ran")), name)


def with_bounds(rows, name: str):
    """`rows` (a subquery with `start`, `ran`, `grace`, `longest_days`, `longest_months`,
    `permit_id` and `paused`, whether that permit was ever suspended or revoked) with `due`
    and `in_time` (`domain.status.Interval`): the day the frequency has run and that plus the
    grace, neither past the longest interval (in months where the city counts months), each
    moved later by the days the permit was not in force where it ever was paused."""
    cap = func.coalesce(months_after(rows.c.start, rows.c.longest_months), rows.c.start + rows.c.longest_days)
    plain = fenced(select(rows, cap.label("cap"), (rows.c.ran + rows.c.grace).label("ran_grace")), f"{name}_plain")
    moved = fenced(
        select(
            plain,
            *(
                case(
                    (plain.c.paused, resumed(plain.c.start, plain.c[bound], plain.c.permit_id)), else_=plain.c[bound]
                ).label(f"{bound}_moved")
                for bound in ("ran", "ran_grace", "cap")
            ),
        ),
        f"{name}_moved",
    )
    cap, ran, ran_grace = moved.c.cap_moved, moved.c.ran_moved, moved.c.ran_grace_moved
    return fenced(
        select(
            moved,
            case((cap < ran, cap), else_=ran).label("due"),
            case((cap < ran_grace, cap), else_=ran_grace).label("in_time"),
        ),
        name,
    )


def _later(a, b):
    return case((a < b, b), else_=a)


def permit_pauses(name: str):
    """Each span a permit was suspended or revoked and then changed again
    (`domain.status.paused_spans`): its permit, first day and the day of the next change, as
    day numbers; on one day the change recorded last holds."""
    change, following, same_day = (aliased(PermitStatusChange) for _ in range(3))
    next_on = (
        select(func.min(following.effective_on))
        .where(following.permit_id == change.permit_id, following.effective_on > change.effective_on)
        .scalar_subquery()
    )
    return (
        select(
            change.permit_id.label("permit_id"),
            day_of(change.effective_on).label("begin_day"),
            day_of(next_on).label("end_day"),
        )
        .where(
            change.status.in_(PAUSING_STATUSES),
            next_on.is_not(None),
            ~select(same_day.id)
            .where(
                same_day.permit_id == change.permit_id,
                same_day.effective_on == change.effective_on,
                same_day.recorded_at > change.recorded_at,
            )
            .exists(),
        )
        .subquery(name)
    )


def ever_paused(permit_id):
    """Whether the permit was ever suspended or revoked (else no span of it pauses a gap)."""
    return (
        select(PermitStatusChange.id)
        .where(PermitStatusChange.permit_id == permit_id, PermitStatusChange.status.in_(PAUSING_STATUSES))
        .exists()
    )


def resumed(start, day, permit_id):
    """The day number `day`, a bound counted from the day number `start`, moved later by every
    day the permit was not in force before it (`domain.status.Interval.resumed`): the spans
    after `start` count in order while each begins, less the spans before it, before `day`."""
    span, earlier = permit_pauses("pause_spans"), permit_pauses("earlier_spans")
    begin = _later(span.c.begin_day, start)
    # Each reads only its own spans; the span, the gap and the permit are the enclosing ones.
    before = (
        select(func.coalesce(func.sum(earlier.c.end_day - _later(earlier.c.begin_day, start)), 0))
        .where(earlier.c.permit_id == permit_id, earlier.c.end_day > start, earlier.c.begin_day < span.c.begin_day)
        .correlate_except(earlier)
        .scalar_subquery()
    )
    moved = (
        select(func.coalesce(func.sum(span.c.end_day - begin), 0))
        .where(span.c.permit_id == permit_id, span.c.end_day > start, begin - before < day)
        .correlate_except(span)
        .scalar_subquery()
    )
    return day + moved


def first_issued():
    """Each device that ever moved to another permit (a renewal), with the first day of the
    earliest permit it was on: its clock runs from there, not from its latest permit's issue.
    Joined beside the devices, so that the devices that never moved read no more than before."""
    permit = aliased(Permit)
    return (
        select(DevicePermitMove.device_id.label("device_id"), func.min(day_of(permit.issued_on)).label("issued_day"))
        .join(permit, permit.id == DevicePermitMove.from_permit_id)
        .group_by(DevicePermitMove.device_id)
        .subquery("first_issued")
    )
