"""A device's service status on a date, from its last qualifying service."""
from dataclasses import dataclass
from datetime import date, timedelta

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
    """The device's frequency, capped by the city's longest interval for interceptors
    (Colusa 15A-16(C)(2): twelve months; Tracy 5.26 (e)(2): six months)."""
    if kind == "interceptor" and max_interval_days:
        return min(frequency_days, max_interval_days)
    return frequency_days


def effective_grace(kind: str, frequency_days: int, grace_days: int, max_interval_days: int | None) -> int:
    """The city's grace days (exchange policy), cut where the frequency and the grace together
    would pass the city's longest interval for interceptors: a policy's grace does not stretch
    an ordinance's "not less than once every twelve months"."""
    if kind == "interceptor" and max_interval_days:
        return max(0, min(grace_days, max_interval_days - effective_frequency(kind, frequency_days, max_interval_days)))
    return grace_days


def device_status(*, as_of: date, last_qualifying: date | None, counted_from: date,
                  frequency_days: int, grace_days: int, permit_ended: date | None = None) -> DeviceStatus:
    """Due `frequency_days` after the last qualifying service (or after `counted_from`, the
    permit's issue date, for a device never serviced); `overdue` within `grace_days` past
    due, `missed` beyond (each city's own frequency section; the grace is exchange policy).
    From the day its permit ended (`permit_ended`) a device is due no more: `permit_ended`,
    with no due date."""
    if permit_ended is not None and permit_ended <= as_of:
        return DeviceStatus("permit_ended", None, 0)
    start = last_qualifying or counted_from
    due = start + timedelta(days=frequency_days)
    late = (as_of - due).days
    if last_qualifying is None:
        return DeviceStatus("never_serviced", due, max(late, 0))
    if late <= 0:
        return DeviceStatus("due_soon" if -late <= DUE_SOON_DAYS else "compliant", due, 0)
    return DeviceStatus("overdue" if late <= grace_days else "missed", due, late)


def missed_intervals(services: list[date], *, counted_from: date, until: date, frequency_days: int,
                     grace_days: int):
    """Every gap between qualifying services longer than the frequency plus grace, up to `until`.

    Yields (from, due, next service or None, days late). The first gap runs from
    `counted_from` (the permit's issue date) to the first service.
    """
    starts = [counted_from, *sorted(services)]
    for index, start in enumerate(starts):
        following = starts[index + 1] if index + 1 < len(starts) else None
        due = start + timedelta(days=frequency_days)
        end = following or until
        if (end - due).days > grace_days:
            yield start, due, following, (end - due).days
