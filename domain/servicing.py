"""A device's services over time, as pure functions: which filings are one service and which
clash, whether the interval since the previous qualifying service ran over, and when the next
is due. Every date judged is the city's local date."""

from datetime import date, datetime, timedelta

from domain import dates
from domain.facts import (
    CITY_DEFAULT,
    DISQUALIFYING,
    NEAR_IDENTICAL,
    SAME_SERVICE,
    DeviceFacts,
    Finding,
    Load,
    PermitFacts,
    Rules,
)
from domain.status import Interval, Tenure, device_pauses


def clash(one: Load, other: Load) -> bool:
    """A truck pumps one load at a time and two trucks never start and end within minutes of each other, so windows overlapping on one truck, or nearly equal, are one service filed twice; loads one after another are one service's truckloads."""
    overlap = (
        one.service_started_at < other.service_completed_at and other.service_started_at < one.service_completed_at
    )
    same_window = (
        abs(one.service_started_at - other.service_started_at) <= NEAR_IDENTICAL
        and abs(one.service_completed_at - other.service_completed_at) <= NEAR_IDENTICAL
    )
    return (overlap and one.vehicle_id == other.vehicle_id) or same_window


def plausible(loads: list[Load]) -> list[Load]:
    """The loads that stand, in the order their manifests were first filed: each that clashes
    with an earlier standing one does not."""
    standing = []
    for load in sorted(loads, key=lambda item: (item.manifest_id is None, str(item.manifest_id or ""))):
        if not any(clash(load, kept) for kept in standing):
            standing.append(load)
    return standing


def implausible_service(load: Load, standing: list[Load], rules: Rules):
    """A filing for the device closer to an earlier one than a truck could do it (exchange
    policy); it is not a qualifying service."""
    if any(kept is load for kept in standing):
        return []
    other = next(kept for kept in standing if clash(load, kept))
    return [
        Finding(
            "implausible_service",
            f"Another manifest of this device, filed earlier, covers the same service "
            f"({dates.human(other.service_started_at, rules.time_zone)} to "
            f"{dates.human(other.service_completed_at, rules.time_zone)}); one truck could not do both.",
            rules.cite("plausible_service"),
        )
    ]


def interval_of(device: DeviceFacts, rules: Rules, permit: PermitFacts | None = None, *, until=None) -> Interval:
    """The device's frequencies with the city's grace and longest interval, not counting the
    days the permit it was on was not in force: suspended, revoked or past its expiry (over
    every permit it was on, where a renewal moved it: `device.tenures`); a span still open
    counts up to `until`."""
    tenures = device.tenures
    if not tenures and permit is not None:
        tenures = (Tenure(None, None, permit.changes, permit.issued_on, permit.expires_on),)
    pauses = device_pauses(tenures, until=until)
    return Interval.of(
        device.kind,
        device.frequency_days,
        grace_days=rules.grace_days,
        longest_days=rules.interceptor_max_interval_days,
        longest_months=rules.interceptor_max_interval_months,
        frequencies=device.frequencies,
        pauses=pauses,
        first_months=device.frequency_months,
    )


def service_interval_exceeded(
    load: Load,
    previous_qualifying: datetime | None,
    device: DeviceFacts,
    rules: Rules,
    permit: PermitFacts | None = None,
):
    """Service at the device's frequency (e.g. Victorville 10.03.160(c), (f)(2) and, for traps,
    (g)(1)), and never past the city's longest interval for interceptors (Colusa 15A-16(C)(2):
    twelve months; Tracy 5.26 interceptor maintenance (e)(2): six months, in calendar months).

    The gap, in the city's calendar days, may run to the frequency in force plus the city's
    grace days. The finding cites what set the bound: the longest interval, the city's default
    frequency, or the frequency the city set for the device.
    """
    if previous_qualifying is None:
        return []
    start, served = rules.day(previous_qualifying), rules.day(load.service_completed_at)
    if device.retired_on is not None and device.retired_on <= served:
        # A retired device's interval runs no more (exchange policy): `device_retired` says so.
        return []
    interval = interval_of(device, rules, permit, until=served + timedelta(days=1))
    last = interval.last_day(start)
    if served <= last:
        return []
    kind = "interceptor" if device.kind == "interceptor" else "trap"
    rule = f"{kind}_default_frequency_days" if device.frequency_source == CITY_DEFAULT else f"{kind}_frequency"
    longest = ""
    if interval.longest_months:
        longest = f", {interval.longest_months}-month longest interval"
    elif interval.longest_days:
        longest = f", {interval.longest_days}-day longest interval"
    if interval.capped(start):
        rule = "interceptor_max_interval_months" if interval.longest_months else "interceptor_max_interval_days"
    gap, allowed = (served - start).days, (last - start).days
    months = interval.months_on(start)
    frequency = f"{months}-month" if months else f"{interval.frequency_on(start)}-day"
    return [
        Finding(
            "service_interval_exceeded",
            f"{gap} days since the previous qualifying service; at most {allowed} allowed "
            f"({frequency} frequency, {rules.grace_days} grace{longest}).",
            rules.cite(rule),
        )
    ]


def same_service(load: Load, others: list[Load]) -> list[Load]:
    """The loads of `load`'s service: those of the device completed within 24 h of it."""
    return [load] + [o for o in others if abs(o.service_completed_at - load.service_completed_at) <= SAME_SERVICE]


def is_qualifying(codes) -> bool:
    return not (set(codes) & DISQUALIFYING)


def due_by(
    last_qualifying: datetime | None,
    device: DeviceFacts,
    rules: Rules,
    permit: PermitFacts | None = None,
    *,
    today: date | None = None,
) -> date | None:
    """When the device must next be serviced: the city's date of its last qualifying service,
    plus its frequency in force (no later than the city's longest interval for interceptors),
    not counting the days its permit was not in force (a span still open, up to `today`)."""
    if last_qualifying is None:
        return None
    until = today + timedelta(days=1) if today is not None else None
    return interval_of(device, rules, permit, until=until).due_on(rules.day(last_qualifying))
