"""A device's service status on a date, from its last qualifying service."""

from dataclasses import dataclass
from datetime import date, timedelta

from domain.dates import add_months

DUE_SOON_DAYS = 14
# A permit in either status covers no device again: its devices are no longer due.
ENDING_STATUSES = ("revoked", "expired")


@dataclass(frozen=True)
class DeviceStatus:
    status: str  # compliant | due_soon | overdue | missed | never_serviced | permit_ended | retired
    due_on: date | None
    days_overdue: int


def permit_ended_on(*, expires_on: date, changes, day: date) -> date | None:
    """The first day the permit no longer held, as known on `day`: the day after its expiry,
    or the day a revocation (or an expiry recorded as a status) took effect, whichever came
    first; None while it holds. `changes` are `domain.registry.Dated` status changes in the
    order they took effect (and were recorded)."""
    latest = None
    for change in changes:
        if change.effective_on <= day:
            latest = change
    after_expiry = expires_on + timedelta(days=1)
    if latest is not None and latest.value in ENDING_STATUSES:
        return min(latest.effective_on, after_expiry)
    return after_expiry if after_expiry <= day else None


# A permit in any of these statuses gives no right to discharge (Victorville 10.03.320(b)(4)
# for suspension and revocation; an expiry recorded as a status, as a permit past its expiry
# date, is exchange policy): the days it held do not count toward a service interval once the
# device is on a permit in force again.
PAUSING_STATUSES = ("suspended", "revoked", "expired")


def clock_start(*, issued_on: date, in_service_on: date | None) -> date:
    """The day a device's clock starts: its first permit's first day, or the day it was put in
    service where later (a device registered later is not charged for the days before)."""
    return issued_on if in_service_on is None else max(issued_on, in_service_on)


def paused_spans(changes, *, until: date | None = None) -> tuple:
    """((first day, day active again), ...): the spans a permit was suspended or revoked, from
    its status changes (`domain.registry.Dated`, in the order they took effect and were
    recorded: on one day the later recorded holds). A span still open pauses up to `until`, the
    day after the day asked (a revoked permit's devices are due no more anyway); without
    `until`, an open span pauses nothing."""
    by_day = {}
    for change in changes:
        by_day[change.effective_on] = change.value
    spans, since = [], None
    for day, status in sorted(by_day.items()):
        if status in PAUSING_STATUSES and since is None:
            since = day
        elif status not in PAUSING_STATUSES and since is not None:
            spans.append((since, day))
            since = None
    if since is not None and until is not None and since < until:
        spans.append((since, until))
    return tuple(spans)


def out_of_force(changes, *, expires_on: date | None = None, until: date | None = None) -> tuple:
    """((first day, day in force again), ...): the spans a permit gave no right to discharge,
    from its status changes (`paused_spans`: a span still open runs to `until`, none without
    it), each cut at its expiry, and, with `expires_on`, every day after its expiry up to
    `until` (a renewal is a new permit: the days until a device moves onto it are not in force
    either)."""
    after_expiry = expires_on + timedelta(days=1) if expires_on is not None else date.max
    spans = [(begin, min(end, after_expiry)) for begin, end in paused_spans(changes, until=until)]
    if until is not None and after_expiry < until:
        spans.append((after_expiry, until))
    return tuple((begin, end) for begin, end in spans if begin < end)


@dataclass(frozen=True)
class Tenure:
    """The days a device was listed on one permit: from `since` (None: always before) to the
    day before `until` (None: still on it), that permit's status changes, and its first and
    last days (None: not known, only its status changes count)."""

    since: date | None
    until: date | None
    changes: tuple
    issued_on: date | None = None
    expires_on: date | None = None


def device_pauses(tenures, *, until: date | None = None) -> tuple:
    """The spans the permit a device was on was not in force, over every permit it was on (a
    renewal moves it to a new one), each permit's spans cut to the days the device was on it:
    suspended or revoked, after its expiry, and before its first day where the device was
    moved onto it sooner. A span still open pauses up to `until` (none without it), as
    `storage.intervals.device_pauses`."""
    spans = []
    for tenure in tenures:
        own = list(out_of_force(tenure.changes, expires_on=tenure.expires_on, until=until))
        if tenure.since is not None and tenure.issued_on is not None and tenure.since < tenure.issued_on:
            own.append((tenure.since, tenure.issued_on))
        for begin, end in own:
            if tenure.since is not None:
                begin = max(begin, tenure.since)
            if tenure.until is not None:
                end = min(end, tenure.until)
            if begin < end:
                spans.append((begin, end))
    return tuple(sorted(spans))


def tenures_of(*, current, moves, changes_of, dates_of=None) -> tuple:
    """Each permit a device was on (`Tenure`): `current`, its permit now, and each move's
    `from_permit_id` (moves in the order they took effect); `changes_of(permit_id)` gives a
    permit's status changes (`domain.registry.Dated`), `dates_of(permit_id)` its (issued_on,
    expires_on)."""

    def tenure(permit_id, since, until):
        issued_on, expires_on = dates_of(permit_id) if dates_of is not None else (None, None)
        return Tenure(since, until, tuple(changes_of(permit_id)), issued_on, expires_on)

    tenures, since = [], None
    for move in moves:
        tenures.append(tenure(move.from_permit_id, since, move.effective_on))
        since = move.effective_on
    tenures.append(tenure(current, since, None))
    return tuple(tenures)


def effective_frequency(kind: str, frequency_days: int, max_interval_days: int | None) -> int:
    """The device's frequency, capped by the city's longest interval in days for interceptors."""
    if kind == "interceptor" and max_interval_days:
        return min(frequency_days, max_interval_days)
    return frequency_days


def frequency_history(changes) -> tuple:
    """((effective_on, days), ...) of a device's frequency changes in the order they took
    effect (rows with `from_days`, `to_days`, `effective_on`): the first change's `from_days`
    held every day before it; empty where it never changed."""
    changes = list(changes)
    if not changes:
        return ()
    return ((date.min, changes[0].from_days), *((change.effective_on, change.to_days) for change in changes))


@dataclass(frozen=True)
class Interval:
    """How long a device may go between qualifying services: its frequencies, each from the day
    it took effect (the first holds for every day before it too), the city's grace days
    (exchange policy), and for interceptors the city's longest interval, in days or in calendar
    months (Colusa 15A-16(C)(2): "twelve months"; Tracy 5.26 (e)(2): "six (6) months")."""

    frequencies: tuple  # ((effective_on, days), ...) in the order they took effect
    grace_days: int = 0
    longest_days: int | None = None
    longest_months: int | None = None
    # ((first day, day active again), ...): the permit's spans not in force (`paused_spans`).
    pauses: tuple = ()
    # Where set, the first frequency runs in calendar months, not days: the city's "quarterly"
    # default, while no frequency of the device's own was established (`Device.frequency_months`).
    first_months: int | None = None

    @classmethod
    def of(
        cls,
        kind: str,
        frequency_days: int,
        *,
        grace_days: int = 0,
        longest_days: int | None = None,
        longest_months: int | None = None,
        frequencies=(),
        pauses=(),
        first_months: int | None = None,
    ):
        """A device's interval: its frequency history (or one frequency for all time); the
        longest interval binds interceptors only; `pauses`, the spans its permit was not in
        force, which the interval's clock does not count."""
        interceptor = kind == "interceptor"
        return cls(
            tuple(frequencies) or ((date.min, frequency_days),),
            grace_days,
            longest_days if interceptor else None,
            longest_months if interceptor else None,
            tuple(pauses),
            first_months,
        )

    def resumed(self, start: date, day: date) -> date:
        """`day`, a bound counted from a service on `start`, moved later by every day the
        permit was not in force before it (Victorville 10.03.320(b)(4): a revoked permit
        gives no right to discharge, so those days do not count toward the interval)."""
        for begin, end in self.pauses:
            if end > start and max(begin, start) < day:
                day += end - max(begin, start)
        return day

    def frequency_on(self, day: date) -> int:
        """The frequency in force on `day`."""
        days = self.frequencies[0][1]
        for since, value in self.frequencies:
            if since <= day:
                days = value
        return days

    def months_on(self, day: date) -> int | None:
        """The calendar months of the frequency in force on `day`, where it runs in months."""
        if self.first_months and (len(self.frequencies) == 1 or day < self.frequencies[1][0]):
            return self.first_months
        return None

    def cap(self, start: date) -> date | None:
        """The last day the city's longest interval allows after a service on `start`."""
        if self.longest_months:
            return self.resumed(start, add_months(start, self.longest_months))
        if self.longest_days:
            return self.resumed(start, start + timedelta(days=self.longest_days))
        return None

    def by_frequency(self, start: date) -> date:
        """The first day the frequency in force that day has run since `start`: a frequency
        shortened after `start` is due no sooner than the day it took effect, and a gap that
        ended before then stays judged by the frequency it ran under."""
        rows = self.frequencies
        for index, (since, days) in enumerate(rows):
            if index == 0 and self.first_months:
                candidate = add_months(start, self.first_months)
            else:
                candidate = start + timedelta(days=days)
            if index:
                candidate = max(candidate, since)
            if index + 1 == len(rows) or candidate < rows[index + 1][0]:
                return candidate
        raise AssertionError("the last frequency always answers")

    def due_on(self, start: date) -> date:
        cap = self.cap(start)
        due = self.resumed(start, self.by_frequency(start))
        return due if cap is None else min(due, cap)

    def last_day(self, start: date) -> date:
        """The last day a service after one on `start` is still in time: the due day plus the
        grace, never past the longest interval (a policy's grace does not stretch an
        ordinance's "not less than every six (6) months")."""
        cap = self.cap(start)
        last = self.resumed(start, self.by_frequency(start) + timedelta(days=self.grace_days))
        return last if cap is None else min(last, cap)

    def capped(self, start: date) -> bool:
        """Whether the city's longest interval ends the gap (on the day the frequency and grace
        would end it too, the ordinance's own bound is the one cited)."""
        cap = self.cap(start)
        in_time = self.resumed(start, self.by_frequency(start) + timedelta(days=self.grace_days))
        return cap is not None and cap <= in_time


def device_status(
    *,
    as_of: date,
    last_qualifying: date | None,
    counted_from: date,
    interval: Interval,
    permit_ended: date | None = None,
    retired_on: date | None = None,
) -> DeviceStatus:
    """Due by the device's `interval` after the last qualifying service (or after
    `counted_from`, the day its clock started (`clock_start`), for a device never serviced);
    `overdue` within the grace past due, `missed` beyond (each city's own frequency section;
    the grace is exchange policy). From the day its permit ended (`permit_ended`) a device is
    due no more: `permit_ended`, with no due date; nor from the day it was retired: `retired`."""
    if retired_on is not None and retired_on <= as_of:
        return DeviceStatus("retired", None, 0)
    if permit_ended is not None and permit_ended <= as_of:
        return DeviceStatus("permit_ended", None, 0)
    start = last_qualifying or counted_from
    due = interval.due_on(start)
    late = (as_of - due).days
    if last_qualifying is None:
        return DeviceStatus("never_serviced", due, max(late, 0))
    if late <= 0:
        return DeviceStatus("due_soon" if -late <= DUE_SOON_DAYS else "compliant", due, 0)
    return DeviceStatus("overdue" if as_of <= interval.last_day(start) else "missed", due, late)
