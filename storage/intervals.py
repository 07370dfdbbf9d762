"""The SQL of a device's service interval (`domain.status.Interval`): day numbers, calendar
months, the frequency in force from its changes, and the days a permit was not in force, on
SQLite and PostgreSQL alike."""

from sqlalchemy import Integer, and_, case, func, literal, null, or_, select, true, union_all
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
    return (
        select(DeviceFrequencyChange.id)
        .where(DeviceFrequencyChange.device_id == device_id, DeviceFrequencyChange.withdrawn_at.is_(None))
        .exists()
    )


def first_run(start, days, months):
    """The day number the device's first frequency has run since the day number `start`:
    `months` calendar months where set (a city's "quarterly", `Device.frequency_months`), else
    `days` days."""
    return func.coalesce(months_after(start, months), start + days)


def by_frequency(start, device_id, frequency_days, changed, months=None):
    """The day number the frequency in force has run since the day number `start`
    (`domain.status.Interval.by_frequency`): the device's own frequency where it never
    changed (`changed`); else the first of its frequencies, each from its day, whose day
    falls before the next change. The first frequency runs in `months` where set."""
    months = null() if months is None else months
    change, following, earlier = (aliased(DeviceFrequencyChange) for _ in range(3))
    next_on = (
        select(func.min(day_of(following.effective_on)))
        .where(
            following.device_id == change.device_id,
            following.effective_on > change.effective_on,
            following.withdrawn_at.is_(None),
        )
        .scalar_subquery()
    )
    candidate = case(
        (start + change.to_days < day_of(change.effective_on), day_of(change.effective_on)),
        else_=start + change.to_days,
    )
    within_change = (
        select(func.min(candidate))
        .where(
            change.device_id == device_id, change.withdrawn_at.is_(None), or_(next_on.is_(None), candidate < next_on)
        )
        .scalar_subquery()
    )
    # Before the first change, the frequency it changed from.
    first = aliased(DeviceFrequencyChange)
    first_ran = first_run(start, first.from_days, months)
    before_first = (
        select(first_ran)
        .where(
            first.device_id == device_id,
            first.withdrawn_at.is_(None),
            first_ran < day_of(first.effective_on),
            ~select(earlier.id)
            .where(
                earlier.device_id == device_id,
                earlier.effective_on < first.effective_on,
                earlier.withdrawn_at.is_(None),
            )
            .exists(),
        )
        .scalar_subquery()
    )
    return case((changed, func.coalesce(before_first, within_change)), else_=first_run(start, frequency_days, months))


def fenced(query, name: str):
    """`query` as a subquery the planner keeps whole (OFFSET 0): each column is worked out once a
    row and read by name above it, where an inlined expression would be copied into every
    expression that reads it, and its subqueries run again for each copy."""
    return query.offset(0).subquery(name)


def with_frequency(rows, name: str):
    """`rows` (a subquery with `start`, `device_id`, `frequency`, `months` and `changed`) with
    `ran`, the day number the frequency in force has run from `start` (`by_frequency`)."""
    ran = by_frequency(rows.c.start, rows.c.device_id, rows.c.frequency, rows.c.changed, rows.c.months)
    return fenced(select(rows, ran.label("ran")), name)


def with_bounds(rows, name: str, *, until):
    """`rows` (a subquery with `start`, `ran`, `grace`, `longest_days`, `longest_months`,
    `device_id` and `paused`, whether a permit the device was on was ever suspended or revoked)
    with `due` and `in_time` (`domain.status.Interval`): the day the frequency has run and that
    plus the grace, neither past the longest interval (in months where the city counts months),
    each moved later, where `paused`, by the days the device was on a permit not in force, a
    span still open counting up to the day number `until`."""
    # Every device's spans, worked out once for the statement; each row reads its device's.
    pauses = device_pauses(until).cte(f"{name}_pauses")
    cap = func.coalesce(months_after(rows.c.start, rows.c.longest_months), rows.c.start + rows.c.longest_days)
    plain = fenced(select(rows, cap.label("cap"), (rows.c.ran + rows.c.grace).label("ran_grace")), f"{name}_plain")
    moved = fenced(
        select(
            plain,
            *(
                case(
                    (plain.c.paused, resumed(plain.c.start, plain.c[bound], plain.c.device_id, pauses)),
                    else_=plain.c[bound],
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


class _later(FunctionElement):
    """The later of two day numbers, neither NULL (each written once, not twice as a CASE)."""

    type = Integer()
    inherit_cache = True
    name = "later"


class _earlier(FunctionElement):
    """The earlier of two day numbers, neither NULL."""

    type = Integer()
    inherit_cache = True
    name = "earlier"


@compiles(_later, "sqlite")
def _later_sqlite(element, compiler, **kw):
    return f"max({compiler.process(element.clauses, **kw)})"


@compiles(_later, "postgresql")
def _later_postgresql(element, compiler, **kw):
    return f"greatest({compiler.process(element.clauses, **kw)})"


@compiles(_earlier, "sqlite")
def _earlier_sqlite(element, compiler, **kw):
    return f"min({compiler.process(element.clauses, **kw)})"


@compiles(_earlier, "postgresql")
def _earlier_postgresql(element, compiler, **kw):
    return f"least({compiler.process(element.clauses, **kw)})"


def device_pauses(until):
    """Each span a device was on a permit not in force (`domain.status.device_pauses`): the
    device, first day and the day the permit was in force again, as day numbers. A permit is
    not in force while suspended, revoked or expired by a status change (each such span cut at
    its expiry), from the day after its expiry, and, for a device moved onto it sooner, before
    its first day; a span still open ends at the day number `until`. Each permit's spans are
    cut to the days the device was on it (its current one from its last move, each one it left
    from its move before to the move away); on one day the change recorded last holds."""
    change, following, same_day = (aliased(PermitStatusChange) for _ in range(3))
    next_on = (
        select(func.min(following.effective_on))
        .where(following.permit_id == change.permit_id, following.effective_on > change.effective_on)
        .scalar_subquery()
    )
    after_expiry = day_of(Permit.expires_on) + 1
    by_status = (
        select(
            change.permit_id.label("permit_id"),
            day_of(change.effective_on).label("begin_day"),
            _earlier(func.coalesce(day_of(next_on), until), after_expiry).label("end_day"),
        )
        .join(Permit, Permit.id == change.permit_id)
        .where(
            change.status.in_(PAUSING_STATUSES),
            # Without a day asked, a span still open pauses nothing.
            next_on.is_not(None) if until is None else true(),
            ~select(same_day.id)
            .where(
                same_day.permit_id == change.permit_id,
                same_day.effective_on == change.effective_on,
                same_day.recorded_at > change.recorded_at,
            )
            .exists(),
        )
    )
    branches = [by_status]
    if until is not None:
        # Every day after its expiry, up to the day asked (the device's move away ends it).
        branches.append(
            select(
                Permit.id.label("permit_id"), after_expiry.label("begin_day"), literal(until).label("end_day")
            ).where(after_expiry < until)
        )
    spans = union_all(*branches).subquery("paused_spans")
    # A run of pausing changes (suspended, then revoked) is one span a change: each ends at the
    # next change, and the days after expiry begin where they end, so the spans of one permit
    # never overlap.
    move, other = aliased(DevicePermitMove), aliased(DevicePermitMove)
    since_moved = select(func.max(day_of(other.effective_on))).where(other.device_id == Device.id).scalar_subquery()
    on_current = select(
        Device.id.label("device_id"),
        _later(spans.c.begin_day, func.coalesce(since_moved, spans.c.begin_day)).label("begin_day"),
        spans.c.end_day.label("end_day"),
    ).join(Device, Device.permit_id == spans.c.permit_id)
    moved_before = (
        select(func.max(day_of(other.effective_on)))
        .where(other.device_id == move.device_id, other.effective_on < move.effective_on)
        .scalar_subquery()
    )
    on_left = select(
        move.device_id.label("device_id"),
        _later(spans.c.begin_day, func.coalesce(moved_before, spans.c.begin_day)).label("begin_day"),
        _earlier(spans.c.end_day, day_of(move.effective_on)).label("end_day"),
    ).join(move, move.from_permit_id == spans.c.permit_id)
    # A device moved onto a permit before its first day: the days until then, up to its next move.
    onto, issued = aliased(DevicePermitMove), aliased(Permit)
    moved_after = (
        select(func.min(day_of(other.effective_on)))
        .where(other.device_id == onto.device_id, other.effective_on > onto.effective_on)
        .scalar_subquery()
    )
    before_issue = (
        select(
            onto.device_id.label("device_id"),
            day_of(onto.effective_on).label("begin_day"),
            _earlier(day_of(issued.issued_on), func.coalesce(moved_after, day_of(issued.issued_on))).label("end_day"),
        )
        .join(issued, issued.id == onto.to_permit_id)
        .where(issued.issued_on > onto.effective_on)
    )
    every = union_all(on_current, on_left, before_issue).subquery("every_span")
    return select(every).where(every.c.begin_day < every.c.end_day)


def ever_paused(permit_id):
    """Whether the permit was ever suspended, revoked or expired by a status change (else no
    span of its status pauses a gap)."""
    return (
        select(PermitStatusChange.id)
        .where(PermitStatusChange.permit_id == permit_id, PermitStatusChange.status.in_(PAUSING_STATUSES))
        .exists()
    )


def expired_before(permit_id, until):
    """Whether the permit's expiry passed before the day number `until` (its days after then
    are not in force)."""
    permit = aliased(Permit)
    expired = permit.id == permit_id
    if until is not None:
        expired = and_(expired, day_of(permit.expires_on) + 1 < until)
    return select(permit.id).where(expired).exists()


def left_paused(device_id):
    """Whether a permit the device moved away from was ever suspended, revoked or expired by a
    status change, or the device moved away after its expiry or onto a permit before its first
    day (days a permit it was on was not in force)."""
    left, onto = aliased(Permit), aliased(Permit)
    by_status = (
        select(DevicePermitMove.id)
        .join(PermitStatusChange, PermitStatusChange.permit_id == DevicePermitMove.from_permit_id)
        .where(DevicePermitMove.device_id == device_id, PermitStatusChange.status.in_(PAUSING_STATUSES))
        .exists()
    )
    by_dates = (
        select(DevicePermitMove.id)
        .join(left, left.id == DevicePermitMove.from_permit_id)
        .join(onto, onto.id == DevicePermitMove.to_permit_id)
        .where(
            DevicePermitMove.device_id == device_id,
            or_(
                day_of(left.expires_on) + 1 < day_of(DevicePermitMove.effective_on),
                onto.issued_on > DevicePermitMove.effective_on,
            ),
        )
        .exists()
    )
    return or_(by_status, by_dates)


def device_ever_paused(device, until=None):
    """Whether any permit the device (the `Device` entity or an alias) was on was ever not in
    force while it was on it: its permit now (suspended, revoked, or expired before the day
    number `until`, or ever where None), or one a renewal moved it from."""
    return or_(ever_paused(device.permit_id), expired_before(device.permit_id, until), left_paused(device.id))


def ever_paused_moved(device, moved, until):
    """`device_ever_paused` beside `first_issued` (`moved`, outer-joined): the permits a device
    left are probed for the devices that moved alone."""
    return or_(
        ever_paused(device.permit_id),
        expired_before(device.permit_id, until),
        and_(moved.c.device_id.is_not(None), left_paused(device.id)),
    )


def clock_started(device, first_issued_day, issued_on):
    """The day number a device's clock starts (`domain.status.clock_start`): its first permit's
    first day (`first_issued_day` where it moved, else the date `issued_on`), or the day it was
    put in service where later."""
    issued = func.coalesce(first_issued_day, day_of(issued_on))
    return _later(issued, func.coalesce(day_of(device.in_service_on), issued))


def resumed(start, day, device_id, pauses):
    """The day number `day`, a bound counted from the day number `start`, moved later by every
    day the device was on a permit not in force before it (`domain.status.Interval.resumed`):
    the spans after `start` (`pauses`, of `device_pauses`) count in order while each begins,
    less the spans before it, before `day`."""
    span, earlier = pauses.alias(), pauses.alias()
    begin = _later(span.c.begin_day, start)
    # Each reads only its own spans; the span, the gap and the device are the enclosing ones.
    before = (
        select(func.coalesce(func.sum(earlier.c.end_day - _later(earlier.c.begin_day, start)), 0))
        .where(earlier.c.device_id == device_id, earlier.c.end_day > start, earlier.c.begin_day < span.c.begin_day)
        .correlate_except(earlier)
        .scalar_subquery()
    )
    moved = (
        select(func.coalesce(func.sum(span.c.end_day - begin), 0))
        .where(span.c.device_id == device_id, span.c.end_day > start, begin - before < day)
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


def permit_then(day):
    """Each device a move after `day` took off a permit, with the permit it was on on `day`
    (the earliest such move's `from_permit_id`); a device not listed is on its permit now."""
    ranked = (
        select(
            DevicePermitMove.device_id,
            DevicePermitMove.from_permit_id,
            func.row_number()
            .over(partition_by=DevicePermitMove.device_id, order_by=DevicePermitMove.effective_on)
            .label("rank"),
        )
        .where(DevicePermitMove.effective_on > day)
        .subquery("later_moves")
    )
    return (
        select(ranked.c.device_id, ranked.c.from_permit_id.label("permit_id"))
        .where(ranked.c.rank == 1)
        .subquery("permit_then")
    )


def permit_on_day(device_id, current_permit_id, day_number):
    """The permit the device was on on the day number `day_number` (an SQL expression): the
    permit the first move after it took it off, else its permit now. One probe of the device's
    moves, for the rows it is asked of."""
    move = aliased(DevicePermitMove)
    then = (
        select(move.from_permit_id)
        .where(move.device_id == device_id, day_of(move.effective_on) > day_number)
        .order_by(move.effective_on)
        .limit(1)
        .scalar_subquery()
    )
    return func.coalesce(then, current_permit_id)
