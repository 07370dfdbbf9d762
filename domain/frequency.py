"""Service frequencies from the measured accumulation rate.

The ordinances set an interceptor's frequency by the 25% rule (FOG and solids under a
quarter of the design depth) and let the city adjust it "when sufficient data has been
obtained to establish an average frequency" (Colusa 15A-16(C)(3), Victorville
10.03.160(f)(3), Tracy 5.26 (e)(3)); San Clemente revises a schedule where the change will
not cause non-compliance (13.30.050(H)(1)(b)). The data are the depths a hauler measures
before pumping, each the accumulation since the device's last full pump-down.
"""

import math
from dataclasses import dataclass
from decimal import Decimal

from domain.amounts import exact
from domain.presets import POLICY, PRESETS

# Where each city lets the frequency follow the data, from its preset (Placentia's ordinance
# holds the 25% rule alone, cited with it).
ADJUSTMENT = {code: preset["adjustment"].citation for code, preset in PRESETS.items() if preset["adjustment"]}


@dataclass(frozen=True)
class Accumulation:
    """A device's measured intervals: each from a full pump-down to the next service, whose
    hauler measured the FOG and solids depths before pumping."""

    intervals: int
    inches: Decimal  # FOG and solids measured at the end of each interval, summed (exact)
    days: int  # the intervals' lengths, summed (each at least a day)

    @property
    def inches_per_day(self) -> float:
        return float(exact(self.inches) / self.days)

    def days_to(self, share, liquid_depth_in) -> int | None:
        """Whole days until FOG and solids fill `share` of the design depth, in exact
        arithmetic (0.1 in a day reaches a quarter of 50.4 in on day 126, not 125); None where
        nothing accumulated."""
        inches = exact(self.inches)
        if inches <= 0:
            return None
        return math.floor(exact(share) * exact(liquid_depth_in) * self.days / inches)

    def share_after(self, days: int, liquid_depth_in) -> float:
        """The share of the design depth FOG and solids fill in `days`."""
        return float(exact(self.inches) * days / (self.days * exact(liquid_depth_in)))


# Measured intervals that make "sufficient data" unless the caller says otherwise.
ENOUGH_INTERVALS = 3


def measured(services) -> Accumulation | None:
    """One device's measured intervals from its services in the order they were done, each
    (day, qualifying, FOG and solids inches or None): an interval runs from a qualifying
    service (a full pump-down, Victorville 10.03.160(f)(1)) to the next service, if it was
    measured and on a later day. The rule of `storage.audit.measured_accumulation`, for the
    services already in hand."""
    intervals, inches, days, previous = 0, Decimal(0), 0, None
    for day, qualifying, depth in services:
        if previous is not None and previous[1] and depth is not None and day > previous[0]:
            intervals, inches, days = intervals + 1, inches + exact(depth), days + (day - previous[0]).days
        previous = (day, qualifying)
    return Accumulation(intervals=intervals, inches=inches, days=days) if intervals else None


@dataclass(frozen=True)
class Recommendation:
    frequency_days: int
    change: str  # shorten | lengthen | keep


def recommend(
    measured: Accumulation,
    *,
    liquid_depth_in: float,
    limit_share: float,
    current_days: int,
    allowed: list[int],
    max_interval_days: int | None,
) -> Recommendation:
    """The longest allowed frequency at which the average accumulation stays within the 25%
    rule, no longer than the city's longest interval; the shortest allowed one where even
    that would exceed it (Victorville 10.03.160(f)(1), (f)(3); Colusa 15A-16(C)(1), (C)(3);
    Tracy 5.26 (e)(1), (e)(3))."""
    if not allowed:
        return _any_days(
            measured,
            liquid_depth_in=liquid_depth_in,
            limit_share=limit_share,
            current_days=current_days,
            max_interval_days=max_interval_days,
        )
    # A city whose longest interval is shorter than every frequency it allows: that interval.
    choices = sorted(days for days in allowed if max_interval_days is None or days <= max_interval_days) or [
        max_interval_days or current_days
    ]
    days_to_limit = measured.days_to(limit_share, liquid_depth_in)
    if days_to_limit is None:
        frequency = choices[-1]
    else:
        within = [days for days in choices if days <= days_to_limit]
        frequency = within[-1] if within else choices[0]
    return _recommendation(frequency, current_days)


# Where a city sets no longest interval, the exchange recommends none longer than a year.
LONGEST_RECOMMENDED_DAYS = 365


def _any_days(measured: Accumulation, *, liquid_depth_in, limit_share, current_days, max_interval_days):
    """For a city that assigns any number of days: the whole days until the 25% rule's limit,
    at least daily, no longer than its longest interval."""
    longest = max_interval_days or LONGEST_RECOMMENDED_DAYS
    days_to_limit = measured.days_to(limit_share, liquid_depth_in)
    frequency = longest if days_to_limit is None else max(1, min(days_to_limit, longest))
    return _recommendation(frequency, current_days)


def _recommendation(frequency, current_days):
    change = "keep" if frequency == current_days else "shorten" if frequency < current_days else "lengthen"
    return Recommendation(frequency_days=frequency, change=change)


def citation(jurisdiction_code: str, citations: dict) -> str:
    """The sections a recommendation rests on: the city's 25% rule (from its `citations`), and
    its adjustment clause; never another city's."""
    rule = citations.get("twenty_five_percent_rule") or POLICY
    clause = ADJUSTMENT.get(jurisdiction_code)
    return f"{rule}; {clause}" if clause else rule
