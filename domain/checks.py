"""The compliance checks of one manifest revision, as pure functions.

Each check takes the facts as they stood on the service date and an explicit `now`, and
returns the findings it raises, each citing the city's own section for the rule or saying
"exchange policy". Every date a check judges is the city's local date. Nothing here reads a
database or a clock. The checks of a device's services over time (a filing that clashes with
another, the interval since the last qualifying service) are in `domain/servicing.py`.
"""

from datetime import datetime, timedelta

from domain import registry as reg
from domain.amounts import exact, shown
from domain.facts import (
    CITY_DEFAULT as CITY_DEFAULT,
)
from domain.facts import (
    CODES as CODES,
)
from domain.facts import (
    DISQUALIFYING as DISQUALIFYING,
)
from domain.facts import (
    NEAR_IDENTICAL as NEAR_IDENTICAL,
)
from domain.facts import (
    SAME_SERVICE as SAME_SERVICE,
)

# The facts a check reads, named here too for the callers of checks (`checks.Rules`, `checks.CODES`).
from domain.facts import (
    VIOLATION as VIOLATION,
)
from domain.facts import (
    WARNING as WARNING,
)
from domain.facts import (
    WASTE_FOR_KIND as WASTE_FOR_KIND,
)
from domain.facts import (
    DeviceFacts as DeviceFacts,
)
from domain.facts import (
    Finding as Finding,
)
from domain.facts import (
    HaulerFacts as HaulerFacts,
)
from domain.facts import (
    Load as Load,
)
from domain.facts import (
    PermitFacts as PermitFacts,
)
from domain.facts import (
    Rules as Rules,
)
from domain.facts import (
    SiteFacts as SiteFacts,
)
from domain.servicing import (
    clash,
    implausible_service,
    plausible,
    same_service,
    service_interval_exceeded,
)
from domain.servicing import (
    due_by as due_by,
)
from domain.servicing import (
    is_qualifying as is_qualifying,
)

# The checks -------------------------------------------------------------------------------


def late_submission(load: Load, rules: Rules, received_at: datetime):
    """Copies of every manifest within the deadline after service (Victorville 10.03.170(b);
    exchange policy elsewhere)."""
    deadline = load.service_completed_at + timedelta(hours=rules.manifest_deadline_hours)
    if received_at > deadline:
        hours = (received_at - load.service_completed_at).total_seconds() / 3600
        return [
            Finding(
                "late_submission",
                f"Received {hours:.1f} h after service; the deadline is {rules.manifest_deadline_hours} h.",
                rules.cite("manifest_deadline_hours"),
            )
        ]
    return []


def permit_not_active(load: Load, permit: PermitFacts, rules: Rules):
    """A FOG discharge permit in force on the city's date of the service (e.g. Victorville
    10.03.050(a), San Clemente 13.30.050(A))."""
    day = rules.day(load.service_completed_at)
    status = reg.permit_status_on(
        issued_on=permit.issued_on, expires_on=permit.expires_on, changes=permit.changes, day=day
    )
    if status != "active":
        return [
            Finding(
                "permit_not_active",
                f"Permit {permit.permit_number} was {status.replace('_', ' ')} on {day.isoformat()}.",
                rules.cite("permit_required"),
            )
        ]
    return []


def device_retired(load: Load, device: DeviceFacts, permit: PermitFacts, rules: Rules):
    """A device retired on or before the service day is listed on no permit in force that day:
    the service is judged as one without a permit in force, as a revoked permit's device is
    (the city's permit requirement, e.g. Victorville 10.03.050(a); that retirement ends the
    listing is exchange policy), unless its permit's own status already says so."""
    day = rules.day(load.service_completed_at)
    if device.retired_on is None or day < device.retired_on or permit_not_active(load, permit, rules):
        return []
    return [
        Finding(
            "permit_not_active",
            f"Device retired on {device.retired_on.isoformat()}: no permit covered it on {day.isoformat()}.",
            rules.cite("permit_required"),
        )
    ]


def waste_type_mismatch(load: Load, device: DeviceFacts, rules: Rules):
    """Interceptor waste comes from interceptors, trap waste from traps (exchange policy)."""
    expected = WASTE_FOR_KIND[device.kind]
    if load.waste_type != expected:
        return [
            Finding(
                "waste_type_mismatch",
                f"A {device.kind} yields {expected}, not {load.waste_type}.",
                rules.cite("waste_type_matches_device"),
            )
        ]
    return []


def partial_pump_down(service: list[Load], device: DeviceFacts, rules: Rules):
    """Fully pump out the device (San Clemente 13.30.040(C)(9); Colusa 15A-16(A); Tracy 5.26
    interceptor maintenance (a); Victorville 10.03.160(f)(1)); "fully" is judged by the share
    of the capacity removed, an exchange policy.

    `service` is every load of the one service (truckloads within 24 h of each other): their
    gallons add up, and one load attesting the full pump-down attests the service. A missing
    attestation answers to the city's rule; gallons alone short, to the exchange's ratio.
    """
    gallons = sum(load.gallons_removed for load in service)
    attested = any(load.full_pump_down for load in service)
    ratio = exact(rules.full_pump_min_ratio)
    needed = ratio * device.capacity_gallons
    reasons = []
    if not attested:
        reasons.append("the full pump-down was not attested")
    if gallons < needed:
        loads = f" over {len(service)} loads" if len(service) > 1 else ""
        reasons.append(
            f"{gallons} gallons removed{loads} is under {ratio:.0%} of the {device.capacity_gallons}-gallon capacity"
        )
    if not reasons:
        return []
    rule = (
        ("full_pump_down" if device.kind == "interceptor" else "trap_full_pump_down")
        if not attested
        else "full_pump_min_ratio"
    )
    return [Finding("partial_pump_down", "Partial pump-down: " + "; ".join(reasons) + ".", rules.cite(rule))]


def decant_returned(load: Load, rules: Rules):
    """Waste removed from a grease control device may not go back toward the sewer, as
    returned decant does (Victorville 10.03.260(a); Colusa prohibitions F; Tracy 5.26
    prohibitions (f); San Clemente 13.30.040(C)(4); Placentia 16.24 (b)(8))."""
    if load.decant_returned_gallons > 0 and not rules.decant_return_allowed:
        return [
            Finding(
                "decant_returned",
                f"{load.decant_returned_gallons} gallons were returned to the device.",
                rules.cite("decant_return_allowed"),
            )
        ]
    return []


def twenty_five_percent_exceeded(load: Load, device: DeviceFacts, rules: Rules):
    """An interceptor's FOG and solids may not exceed 25% of its design depth; at exactly 25%
    they do not (Victorville 10.03.160(f)(1); Colusa 15A-16(C)(1); San Clemente
    13.30.040(C)(6); Tracy 5.26 prohibitions (g); Placentia 16.24 (b)(9)). No ordinance sets
    the rule for traps."""
    if device.kind != "interceptor" or load.fog_depth_in is None or load.solids_depth_in is None:
        return []
    accumulated = exact(load.fog_depth_in) + exact(load.solids_depth_in)
    depth, share_allowed = exact(device.liquid_depth_in), exact(rules.twenty_five_percent_rule)
    if accumulated > share_allowed * depth:
        share = accumulated / depth
        return [
            Finding(
                "twenty_five_percent_exceeded",
                f"FOG and solids measured {shown(accumulated)} in, {share:.1%} of the "
                f"{shown(depth)}-in design depth (over "
                f"{share_allowed:.0%} is not allowed).",
                rules.cite("twenty_five_percent_rule"),
            )
        ]
    return []


def outlet_clearance(load: Load, device: DeviceFacts, rules: Rules):
    """Grease or sludge within the city's clearance of an interceptor's discharge elbow: service
    immediately (San Clemente 13.30.040(C)(7): two inches). Only where the city sets one."""
    limit, clearance = exact(rules.min_outlet_clearance_in), exact(load.outlet_clearance_in)
    if limit is None or device.kind != "interceptor" or clearance is None:
        return []
    if clearance <= limit:
        return [
            Finding(
                "outlet_clearance",
                f"Grease or sludge measured {shown(clearance)} in from the discharge elbow; "
                f"within {shown(limit)} in the interceptor must be serviced immediately.",
                rules.cite("min_outlet_clearance_in"),
            )
        ]
    return []


def hauler_licence_invalid(load: Load, hauler: HaulerFacts, jurisdiction_id, rules: Rules):
    """A licensed hauler (Victorville 10.03.160(b); San Clemente 13.30.040(C)(5); exchange
    policy elsewhere), registered in the city (exchange policy), on the city's service date."""
    day = rules.day(load.service_completed_at)
    # A city holds a licence on record only for a hauler it registered: registration first.
    if not reg.registered_on(hauler.registrations, jurisdiction_id, day):
        return [
            Finding(
                "hauler_licence_invalid",
                f"The hauler was not registered in this jurisdiction on {day.isoformat()}.",
                rules.cite("hauler_registered"),
            )
        ]
    if not reg.licence_valid_on(hauler.licences, day):
        return [
            Finding(
                "hauler_licence_invalid",
                f"The hauler's licence was not valid on {day.isoformat()}.",
                rules.cite("hauler_licensed"),
            )
        ]
    return []


def vehicle_unregistered(load: Load, hauler: HaulerFacts, rules: Rules):
    """The truck must be the hauler's, and big enough for the load (exchange policy)."""
    tank = hauler.vehicles.get(load.vehicle_id)
    if tank is None:
        message = f"Vehicle {load.vehicle_id} is not registered to the hauler."
    elif load.gallons_removed > tank:
        message = f"{load.gallons_removed} gallons exceed vehicle {load.vehicle_id}'s {tank}-gallon tank."
    else:
        return []
    return [Finding("vehicle_unregistered", message, rules.cite("vehicle_registered"))]


def disposal_checks(load: Load, site: SiteFacts | None, jurisdiction_id, rules: Rules):
    """What was removed from an interceptor goes to an approved site (Colusa 15A-16(G); Tracy
    5.26 prohibitions (f); exchange policy elsewhere); trap waste too, by exchange policy, as
    those sections speak of interceptors only. Approved on the city's date of delivery, after
    the service (exchange policy)."""
    if load.disposal_site_id is None:
        return []
    findings = []
    delivered = load.disposal_delivered_at
    approval = rules.cite(
        "disposal_site_approved" if load.waste_type == "grease_interceptor_waste" else "trap_disposal_site_approved"
    )
    if site is None:
        findings.append(Finding("disposal_site_unapproved", "The disposal site is unknown.", approval))
    else:
        day = rules.day(delivered)
        reasons = []
        if not reg.site_approved_on(
            approved_from=site.approved_from, approved_until=site.approved_until, changes=site.changes, day=day
        ):
            reasons.append(f"was not approved on {day.isoformat()}")
        if load.waste_type not in site.waste_types:
            reasons.append(f"does not accept {load.waste_type}")
        if jurisdiction_id not in site.jurisdiction_ids:
            reasons.append("is not approved for this jurisdiction")
        if reasons:
            findings.append(
                Finding("disposal_site_unapproved", "The disposal site " + "; ".join(reasons) + ".", approval)
            )
    if delivered < load.service_completed_at:
        findings.append(
            Finding(
                "disposal_before_service",
                "The load was delivered before the service was completed.",
                rules.cite("disposal_after_service"),
            )
        )
    return findings


def disposal_unconfirmed(load: Load, rules: Rules, now: datetime):
    """A disposal record within the manifest deadline (exchange policy)."""
    deadline = load.service_completed_at + timedelta(hours=rules.manifest_deadline_hours)
    if load.disposal_site_id is None and now > deadline:
        return [
            Finding(
                "disposal_unconfirmed",
                f"No disposal record {rules.manifest_deadline_hours} h after service.",
                rules.cite("disposal_confirmed"),
            )
        ]
    return []


def load_shortfall(ticket_loads: list[Load], gallons_delivered: int | None, rules: Rules):
    """The loads on one disposal ticket cannot exceed what the ticket delivered (exchange policy)."""
    if gallons_delivered is None or not ticket_loads:
        return []
    removed = sum(load.gallons_removed for load in ticket_loads)
    if removed > gallons_delivered:
        return [
            Finding(
                "load_shortfall",
                f"The {len(ticket_loads)} manifest(s) on this ticket removed {removed} "
                f"gallons; the ticket delivered {gallons_delivered}.",
                rules.cite("ticket_reconciles"),
            )
        ]
    return []


def check(
    *,
    load: Load,
    received_at: datetime,
    now: datetime,
    rules: Rules,
    jurisdiction_id,
    device: DeviceFacts,
    permit: PermitFacts,
    hauler: HaulerFacts,
    site: SiteFacts | None,
    device_loads: list[Load],
    ticket_loads: list[Load],
    previous_qualifying: datetime | None,
) -> list[Finding]:
    """Every finding for one revision.

    `device_loads` are the device's other current loads, `ticket_loads` the other loads on
    the same disposal ticket, `previous_qualifying` the last qualifying service of the
    device completed before this service. A load filed twice counts once in its service.
    """
    standing = plausible([load, *device_loads])
    service = same_service(load, [o for o in standing if o is not load and not clash(o, load)])
    return [
        *late_submission(load, rules, received_at),
        *permit_not_active(load, permit, rules),
        *device_retired(load, device, permit, rules),
        *waste_type_mismatch(load, device, rules),
        *partial_pump_down(service, device, rules),
        *decant_returned(load, rules),
        *twenty_five_percent_exceeded(load, device, rules),
        *outlet_clearance(load, device, rules),
        *implausible_service(load, standing, rules),
        *hauler_licence_invalid(load, hauler, jurisdiction_id, rules),
        *vehicle_unregistered(load, hauler, rules),
        *disposal_checks(load, site, jurisdiction_id, rules),
        *disposal_unconfirmed(load, rules, now),
        *load_shortfall([load, *ticket_loads], load.disposal_gallons_delivered, rules),
        *service_interval_exceeded(load, previous_qualifying, device, rules, permit),
    ]
