"""A device's service status on a date, from its last qualifying service."""
from dataclasses import dataclass
from datetime import date, timedelta

from domain.dates import add_months

DUE_SOON_DAYS = 14
# A permit in either status covers no device again: its devices are no longer due.
ENDING_STATUSES = ("revoked", "expired")


@dataclass(frozen=True)
class DeviceStatus:
    status: str  # compliant | due_soon | overdue | missed | never_serviced | permit_ended
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

    @classmethod
    def of(cls, kind: str, frequency_days: int, *, grace_days: int = 0, longest_days: int | None = None,
           longest_months: int | None = None, frequencies=()):
        """A device's interval: its frequency history (or one frequency for all time); the
        longest interval binds interceptors only."""
        interceptor = kind == "interceptor"
        return cls(tuple(frequencies) or ((date.min, frequency_days),), grace_days,
                   longest_days if interceptor else None, longest_months if interceptor else None)

    def frequency_on(self, day: date) -> int:
        """The frequency in force on `day`."""
        days = self.frequencies[0][1]
        for since, value in self.frequencies:
            if since <= day:
                days = value
        return days

    def cap(self, start: date) -> date | None:
        """The last day the city's longest interval allows after a service on `start`."""
        if self.longest_months:
            return add_months(start, self.longest_months)
        if self.longest_days:
            return start + timedelta(days=self.longest_days)
        return None

    def by_frequency(self, start: date) -> date:
        """The first day the frequency in force that day has run since `start`: a frequency
        shortened after `start` is due no sooner than the day it took effect, and a gap that
        ended before then stays judged by the frequency it ran under."""
        rows = self.frequencies
        for index, (since, days) in enumerate(rows):
            candidate = start + timedelta(days=days)
            if index:
                candidate = max(candidate, since)
            if index + 1 == len(rows) or candidate < rows[index + 1][0]:
                return candidate
        raise AssertionError("the last frequency always answers")

    def due_on(self, start: date) -> date:
        cap = self.cap(start)
        due = self.by_frequency(start)
        return due if cap is None else min(due, cap)

    def last_day(self, start: date) -> date:
        """The last day a service after one on `start` is still in time: the due day plus the
        grace, never past the longest interval (a policy's grace does not stretch an
        ordinance's "not less than every six (6) months")."""
        cap = self.cap(start)
        last = self.by_frequency(start) + timedelta(days=self.grace_days)
        return last if cap is None else min(last, cap)

    def capped(self, start: date) -> bool:
        """Whether the city's longest interval ends the gap (on the day the frequency and grace
        would end it too, the ordinance's own bound is the one cited)."""
        cap = self.cap(start)
        return cap is not None and cap <= self.by_frequency(start) + timedelta(days=self.grace_days)


def device_status(*, as_of: date, last_qualifying: date | None, counted_from: date, interval: Interval,
                  permit_ended: date | None = None) -> DeviceStatus:
    """Due by the device's `interval` after the last qualifying service (or after
    `counted_from`, the permit's issue date, for a device never serviced); `overdue` within
    the grace past due, `missed` beyond (Victorville 10.03.160(f)(2)). From the day its permit
    ended (`permit_ended`) a device is due no more: `permit_ended`, with no due date."""
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
