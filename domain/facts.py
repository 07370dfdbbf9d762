"""The facts a manifest revision is judged by, and what a check answers: the finding codes,
the city's rule parameters, a load, and the device, permit, hauler and site as they stood on
the service day. Data only; `domain/checks.py` holds the rules."""

from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from decimal import Decimal

from domain import dates
from domain.presets import POLICY, basis_of

VIOLATION, WARNING = "violation", "warning"

# code: (severity, the rule of the city's table behind it)
CODES = {
    "late_submission": (VIOLATION, "manifest_deadline_hours"),
    "permit_not_active": (VIOLATION, "permit_required"),
    "waste_type_mismatch": (WARNING, "waste_type_matches_device"),
    "partial_pump_down": (VIOLATION, "full_pump_down"),
    "decant_returned": (VIOLATION, "decant_return_allowed"),
    "twenty_five_percent_exceeded": (VIOLATION, "twenty_five_percent_rule"),
    "outlet_clearance": (VIOLATION, "min_outlet_clearance_in"),
    "implausible_service": (WARNING, "plausible_service"),
    "hauler_licence_invalid": (VIOLATION, "hauler_licensed"),
    "vehicle_unregistered": (WARNING, "vehicle_registered"),
    "disposal_site_unapproved": (VIOLATION, "disposal_site_approved"),
    "disposal_before_service": (WARNING, "disposal_after_service"),
    "disposal_unconfirmed": (WARNING, "disposal_confirmed"),
    "load_shortfall": (VIOLATION, "ticket_reconciles"),
    "service_interval_exceeded": (VIOLATION, "interceptor_frequency"),
}
# Findings that keep a service from counting as a qualifying service.
DISQUALIFYING = {"partial_pump_down", "decant_returned", "implausible_service"}
# One service may take several truckloads: loads of one device this close are one service.
SAME_SERVICE = timedelta(hours=24)
# Two filings of one device whose start and end are each this close are one service filed twice.
NEAR_IDENTICAL = timedelta(minutes=10)
WASTE_FOR_KIND = {"interceptor": "grease_interceptor_waste", "trap": "grease_trap_waste"}
CITY_DEFAULT = "city_default"  # a device's frequency the city's default gave it


@dataclass(frozen=True)
class Finding:
    code: str
    message: str
    citation: str

    @property
    def severity(self):
        return CODES[self.code][0]

    @property
    def basis(self):
        return basis_of(self.citation)


@dataclass(frozen=True)
class Rules:
    """A jurisdiction's parameters, its time zone, and its citation of each rule."""

    manifest_deadline_hours: int
    twenty_five_percent_rule: Decimal
    full_pump_min_ratio: Decimal
    grace_days: int
    decant_return_allowed: bool
    interceptor_max_interval_days: int | None = None
    interceptor_max_interval_months: int | None = None
    min_outlet_clearance_in: Decimal | None = None
    time_zone: str = dates.DEFAULT_ZONE
    citations: dict = field(default_factory=dict)

    def cite(self, rule):
        """The city's section for `rule`, or "exchange policy" where its ordinance is silent."""
        return self.citations.get(rule) or POLICY

    def day(self, instant: datetime) -> date:
        """The city's calendar day of `instant`."""
        return dates.local_date(instant, self.time_zone)


@dataclass(frozen=True)
class Load:
    """One manifest revision's pump-out, as the checks see it."""

    service_started_at: datetime
    service_completed_at: datetime
    waste_type: str
    gallons_removed: int
    decant_returned_gallons: int
    full_pump_down: bool
    vehicle_id: str
    # Depths in inches, exact decimals (domain.amounts): a value at a limit is at it.
    fog_depth_in: Decimal | None = None
    solids_depth_in: Decimal | None = None
    disposal_site_id: object = None
    disposal_ticket_number: str | None = None
    disposal_delivered_at: datetime | None = None
    disposal_gallons_delivered: int | None = None
    outlet_clearance_in: Decimal | None = None
    manifest_id: object = None  # time-ordered: the order in which manifests were first filed


@dataclass(frozen=True)
class DeviceFacts:
    kind: str
    capacity_gallons: int
    liquid_depth_in: Decimal
    frequency_days: int
    frequency_source: str = "assigned"  # or CITY_DEFAULT
    # ((effective_on, days), ...): the frequency's history; empty, `frequency_days` for all time.
    frequencies: tuple = ()
    # `domain.status.Tenure` of each permit it was on, where a renewal moved it; empty, the
    # permit a check is given is the only one.
    tenures: tuple = ()


@dataclass(frozen=True)
class PermitFacts:
    permit_number: str
    issued_on: date
    expires_on: date
    changes: tuple


@dataclass(frozen=True)
class HaulerFacts:
    licences: tuple
    registrations: tuple
    vehicles: dict  # vehicle_id -> tank capacity in gallons


@dataclass(frozen=True)
class SiteFacts:
    approved_from: date
    approved_until: date | None
    changes: tuple
    waste_types: tuple
    jurisdiction_ids: frozenset
