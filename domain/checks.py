"""The compliance checks of one manifest revision (DESIGN.md section 5), as pure functions.

Each check takes the facts as they stood on the service date and an explicit `now`, and
returns the findings it raises. Nothing here reads a database or a clock.
"""
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta

from domain import registry as reg

VIOLATION, WARNING = "violation", "warning"

# code: (severity, the ordinance the rule comes from when the jurisdiction names none)
CODES = {
    "late_submission": (VIOLATION, "Victorville 10.03.170(b)"),
    "permit_not_active": (VIOLATION, "Colusa 15A Art. II (no discharge without a FOG WDP); Victorville 10.03.160(a)"),
    "waste_type_mismatch": (WARNING, "Victorville 10.03.160(f)(6); Colusa 15A-16(G)"),
    "partial_pump_down": (VIOLATION, "San Clemente 13.30.040(C)(9); Colusa 15A-16(A); Tracy 5.26 (a)"),
    "decant_returned": (VIOLATION, "Colusa 15A-16(F); Victorville 10.03.160(d)"),
    "twenty_five_percent_exceeded": (VIOLATION, "Victorville 10.03.160(f)(1); Colusa 15A-16(C)(1)"),
    "hauler_licence_invalid": (VIOLATION, "Victorville 10.03.160(b): a licensed waste hauler"),
    "vehicle_unregistered": (WARNING, "Victorville 10.03.170(c): records of waste haulers"),
    "disposal_site_unapproved": (VIOLATION, "Victorville 10.03.160(f)(6); Colusa 15A-16(G)"),
    "disposal_before_service": (WARNING, "Victorville 10.03.020(v): proof of service and disposal"),
    "disposal_unconfirmed": (WARNING, "Victorville 10.03.020(v): proof of service and disposal"),
    "load_shortfall": (VIOLATION, "Victorville 10.03.160(f)(6); Colusa 15A-16(G)"),
    "service_interval_exceeded": (VIOLATION, "Victorville 10.03.160(f)(2); Colusa 15A-16(C)(2)"),
}
# Findings that keep a service from counting as a qualifying service (DESIGN.md section 5).
DISQUALIFYING = {"partial_pump_down", "decant_returned"}
# One service may take several truckloads: loads of one device this close are one service.
SAME_SERVICE = timedelta(hours=24)
WASTE_FOR_KIND = {"interceptor": "grease_interceptor_waste", "trap": "grease_trap_waste"}


@dataclass(frozen=True)
class Finding:
    code: str
    message: str
    citation: str

    @property
    def severity(self):
        return CODES[self.code][0]


@dataclass(frozen=True)
class Rules:
    """A jurisdiction's parameters (DESIGN.md section 4) and their citations."""

    manifest_deadline_hours: int
    twenty_five_percent_rule: float
    full_pump_min_ratio: float
    grace_days: int
    decant_return_allowed: bool
    interceptor_max_interval_days: int | None = None
    citations: dict = field(default_factory=dict)

    def cite(self, code, parameter):
        """The jurisdiction's citation for `parameter`, else the rule's own."""
        return self.citations.get(parameter) or CODES[code][1]


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
    fog_depth_in: float | None = None
    solids_depth_in: float | None = None
    disposal_site_id: object = None
    disposal_ticket_number: str | None = None
    disposal_delivered_at: datetime | None = None
    disposal_gallons_delivered: int | None = None

    @property
    def service_date(self) -> date:
        return self.service_completed_at.date()


@dataclass(frozen=True)
class DeviceFacts:
    kind: str
    capacity_gallons: int
    liquid_depth_in: float
    frequency_days: int


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


# The checks -------------------------------------------------------------------------------


def late_submission(load: Load, rules: Rules, received_at: datetime):
    """Copies of every manifest within the deadline after service (Victorville 10.03.170(b))."""
    deadline = load.service_completed_at + timedelta(hours=rules.manifest_deadline_hours)
    if received_at > deadline:
        hours = (received_at - load.service_completed_at).total_seconds() / 3600
        return [Finding("late_submission",
                        f"Received {hours:.1f} h after service; the deadline is "
                        f"{rules.manifest_deadline_hours} h.",
                        rules.cite("late_submission", "manifest_deadline_hours"))]
    return []


def permit_not_active(load: Load, permit: PermitFacts):
    """A FOG discharge permit must be in force (Colusa 15A Art. II; Victorville 10.03.160(a))."""
    status = reg.permit_status_on(issued_on=permit.issued_on, expires_on=permit.expires_on,
                                  changes=permit.changes, day=load.service_date)
    if status != "active":
        return [Finding("permit_not_active",
                        f"Permit {permit.permit_number} was {status.replace('_', ' ')} on "
                        f"{load.service_date.isoformat()}.", CODES["permit_not_active"][1])]
    return []


def waste_type_mismatch(load: Load, device: DeviceFacts):
    """Interceptor waste comes from interceptors, trap waste from traps (10.03.160(f)(6))."""
    expected = WASTE_FOR_KIND[device.kind]
    if load.waste_type != expected:
        return [Finding("waste_type_mismatch",
                        f"A {device.kind} yields {expected}, not {load.waste_type}.",
                        CODES["waste_type_mismatch"][1])]
    return []


def partial_pump_down(service: list[Load], device: DeviceFacts, rules: Rules):
    """Fully pump out the device (San Clemente 13.30.040(C)(9); Colusa 15A-16(A); Tracy 5.26 (a)).

    `service` is every load of the one service (truckloads within 24 h of each other): their
    gallons add up, and one load attesting the full pump-down attests the service.
    """
    gallons = sum(load.gallons_removed for load in service)
    attested = any(load.full_pump_down for load in service)
    needed = rules.full_pump_min_ratio * device.capacity_gallons
    reasons = []
    if not attested:
        reasons.append("the full pump-down was not attested")
    if gallons < needed:
        loads = f" over {len(service)} loads" if len(service) > 1 else ""
        reasons.append(f"{gallons} gallons removed{loads} is under {rules.full_pump_min_ratio:.0%} "
                       f"of the {device.capacity_gallons}-gallon capacity")
    if reasons:
        return [Finding("partial_pump_down", "Partial pump-down: " + "; ".join(reasons) + ".",
                        rules.cite("partial_pump_down", "full_pump_min_ratio"))]
    return []


def decant_returned(load: Load, rules: Rules):
    """No accumulated FOG may pass on; decant-and-return is no pump-out (Colusa 15A-16(F))."""
    if load.decant_returned_gallons > 0 and not rules.decant_return_allowed:
        return [Finding("decant_returned",
                        f"{load.decant_returned_gallons} gallons were returned to the device.",
                        CODES["decant_returned"][1])]
    return []


def twenty_five_percent_exceeded(load: Load, device: DeviceFacts, rules: Rules):
    """FOG and solids under 25% of the design liquid depth (Victorville 10.03.160(f)(1))."""
    if load.fog_depth_in is None or load.solids_depth_in is None:
        return []
    accumulated = load.fog_depth_in + load.solids_depth_in
    limit = rules.twenty_five_percent_rule * device.liquid_depth_in
    if accumulated >= limit:
        share = accumulated / device.liquid_depth_in
        return [Finding("twenty_five_percent_exceeded",
                        f"FOG and solids measured {accumulated:g} in, {share:.0%} of the "
                        f"{device.liquid_depth_in:g}-in design depth (limit "
                        f"{rules.twenty_five_percent_rule:.0%}).",
                        rules.cite("twenty_five_percent_exceeded", "twenty_five_percent_rule"))]
    return []


def hauler_licence_invalid(load: Load, hauler: HaulerFacts, jurisdiction_id):
    """Only a licensed hauler registered in the city may service (Victorville 10.03.160(b))."""
    day = load.service_date
    reasons = []
    if not reg.licence_valid_on(hauler.licences, day):
        reasons.append(f"the hauler's licence was not valid on {day.isoformat()}")
    if not reg.registered_on(hauler.registrations, jurisdiction_id, day):
        reasons.append(f"the hauler was not registered in this jurisdiction on {day.isoformat()}")
    if reasons:
        return [Finding("hauler_licence_invalid", "; ".join(reasons).capitalize() + ".",
                        CODES["hauler_licence_invalid"][1])]
    return []


def vehicle_unregistered(load: Load, hauler: HaulerFacts):
    """The truck must be the hauler's, and big enough for the load (10.03.170(c))."""
    tank = hauler.vehicles.get(load.vehicle_id)
    if tank is None:
        message = f"Vehicle {load.vehicle_id} is not registered to the hauler."
    elif load.gallons_removed > tank:
        message = (f"{load.gallons_removed} gallons exceed vehicle {load.vehicle_id}'s "
                   f"{tank}-gallon tank.")
    else:
        return []
    return [Finding("vehicle_unregistered", message, CODES["vehicle_unregistered"][1])]


def disposal_checks(load: Load, site: SiteFacts | None, jurisdiction_id):
    """Removed FOG goes to an approved facility, after the service (10.03.160(f)(6))."""
    if load.disposal_site_id is None:
        return []
    findings = []
    delivered = load.disposal_delivered_at
    if site is None:
        findings.append(Finding("disposal_site_unapproved", "The disposal site is unknown.",
                                CODES["disposal_site_unapproved"][1]))
    else:
        reasons = []
        if not reg.site_approved_on(approved_from=site.approved_from, approved_until=site.approved_until,
                                    changes=site.changes, day=delivered.date()):
            reasons.append(f"was not approved on {delivered.date().isoformat()}")
        if load.waste_type not in site.waste_types:
            reasons.append(f"does not accept {load.waste_type}")
        if jurisdiction_id not in site.jurisdiction_ids:
            reasons.append("is not approved for this jurisdiction")
        if reasons:
            findings.append(Finding("disposal_site_unapproved",
                                    "The disposal site " + "; ".join(reasons) + ".",
                                    CODES["disposal_site_unapproved"][1]))
    if delivered < load.service_completed_at:
        findings.append(Finding("disposal_before_service",
                                "The load was delivered before the service was completed.",
                                CODES["disposal_before_service"][1]))
    return findings


def disposal_unconfirmed(load: Load, rules: Rules, now: datetime):
    """Proof of disposal is due with the manifest (Victorville 10.03.020(v), 10.03.170(b))."""
    deadline = load.service_completed_at + timedelta(hours=rules.manifest_deadline_hours)
    if load.disposal_site_id is None and now > deadline:
        return [Finding("disposal_unconfirmed",
                        f"No disposal record {rules.manifest_deadline_hours} h after service.",
                        CODES["disposal_unconfirmed"][1])]
    return []


def load_shortfall(ticket_loads: list[Load], gallons_delivered: int | None):
    """The loads on one disposal ticket cannot exceed what the ticket delivered (15A-16(G))."""
    if gallons_delivered is None or not ticket_loads:
        return []
    removed = sum(load.gallons_removed for load in ticket_loads)
    if removed > gallons_delivered:
        return [Finding("load_shortfall",
                        f"The {len(ticket_loads)} manifest(s) on this ticket removed {removed} "
                        f"gallons; the ticket delivered {gallons_delivered}.",
                        CODES["load_shortfall"][1])]
    return []


def service_interval_exceeded(load: Load, previous_qualifying: datetime | None,
                              device: DeviceFacts, rules: Rules):
    """Service at the required frequency (Victorville 10.03.160(f)(2); Colusa 15A-16(C)(2)).

    The gap since the previous qualifying service may run to the frequency plus the
    jurisdiction's grace days, and never past its longest interval for interceptors.
    """
    if previous_qualifying is None:
        return []
    gap = (load.service_completed_at.date() - previous_qualifying.date()).days
    allowed = device.frequency_days + rules.grace_days
    if device.kind == "interceptor" and rules.interceptor_max_interval_days:
        allowed = min(allowed, rules.interceptor_max_interval_days)
    if gap > allowed:
        return [Finding("service_interval_exceeded",
                        f"{gap} days since the previous qualifying service; at most {allowed} "
                        f"allowed ({device.frequency_days}-day frequency, {rules.grace_days} grace).",
                        CODES["service_interval_exceeded"][1])]
    return []


def same_service(load: Load, others: list[Load]) -> list[Load]:
    """The loads of `load`'s service: those of the device completed within 24 h of it."""
    return [load] + [o for o in others
                     if abs(o.service_completed_at - load.service_completed_at) <= SAME_SERVICE]


def check(*, load: Load, received_at: datetime, now: datetime, rules: Rules, jurisdiction_id,
          device: DeviceFacts, permit: PermitFacts, hauler: HaulerFacts, site: SiteFacts | None,
          device_loads: list[Load], ticket_loads: list[Load],
          previous_qualifying: datetime | None) -> list[Finding]:
    """Every finding for one revision.

    `device_loads` are the device's other current loads, `ticket_loads` the other loads on
    the same disposal ticket, `previous_qualifying` the last qualifying service of the
    device completed before this service.
    """
    service = same_service(load, device_loads)
    return [
        *late_submission(load, rules, received_at),
        *permit_not_active(load, permit),
        *waste_type_mismatch(load, device),
        *partial_pump_down(service, device, rules),
        *decant_returned(load, rules),
        *twenty_five_percent_exceeded(load, device, rules),
        *hauler_licence_invalid(load, hauler, jurisdiction_id),
        *vehicle_unregistered(load, hauler),
        *disposal_checks(load, site, jurisdiction_id),
        *disposal_unconfirmed(load, rules, now),
        *load_shortfall([load, *ticket_loads], load.disposal_gallons_delivered),
        *service_interval_exceeded(load, previous_qualifying, device, rules),
    ]


def is_qualifying(codes) -> bool:
    return not (set(codes) & DISQUALIFYING)


def due_by(last_qualifying: datetime | None, device: DeviceFacts) -> date | None:
    """When the device must next be serviced: the frequency after its last qualifying service."""
    if last_qualifying is None:
        return None
    return last_qualifying.date() + timedelta(days=device.frequency_days)
