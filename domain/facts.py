"""The facts a manifest revision is judged by, and what a check answers: the finding codes,
the city's rule parameters, a load, and the device, permit, hauler and site as they stood on
the service day. Data only; `domain/checks.py` holds the rules."""

import functools
from dataclasses import dataclass, field, fields
from datetime import date, datetime, timedelta
from decimal import Decimal
from typing import NamedTuple

from domain import dates
from domain.amounts import exact
from domain.presets import POLICY, basis_of

VIOLATION, WARNING = "violation", "warning"


class Code(NamedTuple):
    """A finding code's severity, the rule of the city's table behind it, and its words."""

    severity: str
    rule: str
    words: str


# Every finding a manifest can raise: the one table the spec's enum and the portal's words follow.
CODES = {
    "late_submission": Code(VIOLATION, "manifest_deadline_hours", "Manifest filed late"),
    "permit_not_active": Code(VIOLATION, "permit_required", "Serviced without a permit in force"),
    "waste_type_mismatch": Code(WARNING, "waste_type_matches_device", "Waste type does not match the device"),
    "partial_pump_down": Code(VIOLATION, "full_pump_down", "Not fully pumped out"),
    "decant_returned": Code(VIOLATION, "decant_return_allowed", "Water returned to the device (decant)"),
    "twenty_five_percent_exceeded": Code(VIOLATION, "twenty_five_percent_rule", "FOG and solids over the depth limit"),
    "outlet_clearance": Code(VIOLATION, "min_outlet_clearance_in", "Grease too close to the outlet"),
    "implausible_service": Code(WARNING, "plausible_service", "Filed too close to another service"),
    "hauler_licence_invalid": Code(VIOLATION, "hauler_licensed", "Hauler's licence not valid"),
    "vehicle_unregistered": Code(WARNING, "vehicle_registered", "Truck not registered to the hauler"),
    "disposal_site_unapproved": Code(VIOLATION, "disposal_site_approved", "Disposal site not approved"),
    "disposal_before_service": Code(WARNING, "disposal_after_service", "Delivered before the service ended"),
    "disposal_unconfirmed": Code(WARNING, "disposal_confirmed", "No disposal record filed"),
    "load_shortfall": Code(VIOLATION, "ticket_reconciles", "Ticket delivered less than was pumped"),
    "service_interval_exceeded": Code(VIOLATION, "interceptor_frequency", "Serviced later than its frequency"),
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
        return CODES[self.code].severity

    @property
    def basis(self):
        return basis_of(self.citation)


@functools.cache
def _names(cls) -> tuple:
    return tuple(f.name for f in fields(cls))


def _is_decimal(annotation) -> bool:
    return annotation is Decimal or Decimal in getattr(annotation, "__args__", ())


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

    @classmethod
    def columns(cls) -> tuple:
        """The jurisdiction's columns the checks read: one for each field."""
        return _names(cls)

    @classmethod
    def of(cls, jurisdiction) -> "Rules":
        """The rules of `jurisdiction` (anything with an attribute for each field): a share or a
        clearance typed as a decimal (0.25, 2) read back as that decimal, the citations copied."""
        values = {f.name: getattr(jurisdiction, f.name) for f in fields(cls)}
        for f in fields(cls):
            if _is_decimal(f.type):
                values[f.name] = exact(values[f.name])
            elif isinstance(values[f.name], dict):
                values[f.name] = dict(values[f.name])
        return cls(**values)

    def cite(self, rule):
        """The city's section for `rule`, or "exchange policy" where its ordinance is silent."""
        return self.citations.get(rule) or POLICY

    def day(self, instant: datetime) -> date:
        """The city's calendar day of `instant`."""
        return dates.local_date(instant, self.time_zone)


def _filed_in(part: str, key: str | None = None):
    """A field filed inside the manifest's `part` object (`disposal`, `measurements`), as `key`."""
    return field(default=None, metadata={"part": part, "key": key})


@dataclass(frozen=True)
class Load:
    """One manifest revision's pump-out, as the checks see it: each field a column of the
    revision, filed at the manifest's top level or inside the part its metadata names."""

    service_started_at: datetime
    service_completed_at: datetime
    waste_type: str
    gallons_removed: int
    decant_returned_gallons: int
    full_pump_down: bool
    vehicle_id: str
    # Depths in inches, exact decimals (domain.amounts): a value at a limit is at it.
    fog_depth_in: Decimal | None = _filed_in("measurements")
    solids_depth_in: Decimal | None = _filed_in("measurements")
    disposal_site_id: object = _filed_in("disposal", "site_id")
    disposal_ticket_number: str | None = _filed_in("disposal", "ticket_number")
    disposal_delivered_at: datetime | None = _filed_in("disposal", "delivered_at")
    disposal_gallons_delivered: int | None = _filed_in("disposal", "gallons_delivered")
    outlet_clearance_in: Decimal | None = _filed_in("measurements")
    # Time-ordered: the order in which manifests were first filed. Not filed: the manifest's id.
    manifest_id: object = field(default=None, metadata={"filed": False})

    @classmethod
    def filed(cls, data: dict) -> dict:
        """The judged fields of a filed manifest body (`schemas.manifest.ManifestIn` loaded),
        by column: each read where the manifest carries it."""
        values = {}
        for f in fields(cls):
            if not f.metadata.get("filed", True):
                continue
            part = f.metadata.get("part")
            if part is None:
                values[f.name] = data[f.name]
            else:
                values[f.name] = (data.get(part) or {}).get(f.metadata["key"] or f.name)
        return values

    @classmethod
    def of(cls, revision) -> "Load":
        """The load of a stored revision (anything with an attribute for each field)."""
        return cls(**{name: getattr(revision, name) for name in _names(cls)})


@dataclass(frozen=True)
class DeviceFacts:
    kind: str
    capacity_gallons: int
    liquid_depth_in: Decimal
    frequency_days: int
    frequency_source: str = "assigned"  # or CITY_DEFAULT
    # Where set, its frequency before any change runs in calendar months (a city's "quarterly").
    frequency_months: int | None = None
    # ((effective_on, days), ...): the frequency's history; empty, `frequency_days` for all time.
    frequencies: tuple = ()
    # `domain.status.Tenure` of each permit it was on, where a renewal moved it; empty, the
    # permit a check is given is the only one.
    tenures: tuple = ()
    # The first day it is out of service (retired), if it is: never due from then on.
    retired_on: date | None = None

    def frequency_on(self, day: date) -> int:
        """The frequency in force on `day` (the first of `frequencies` before its day too)."""
        if not self.frequencies:
            return self.frequency_days
        days = self.frequencies[0][1]
        for since, value in self.frequencies:
            if since <= day:
                days = value
        return days


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
