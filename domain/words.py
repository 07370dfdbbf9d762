"""Codes as a person reads them: each finding, device status and severity in plain English,
with the rule a finding stands on (the city's table of rules, `domain.presets`)."""

from domain.checks import CODES
from domain.presets import RULES

FINDINGS = {
    "late_submission": "Manifest filed late",
    "permit_not_active": "Serviced without a permit in force",
    "waste_type_mismatch": "Waste type does not match the device",
    "partial_pump_down": "Not fully pumped out",
    "decant_returned": "Water returned to the device (decant)",
    "twenty_five_percent_exceeded": "FOG and solids over the depth limit",
    "outlet_clearance": "Grease too close to the outlet",
    "implausible_service": "Filed too close to another service",
    "hauler_licence_invalid": "Hauler's licence not valid",
    "vehicle_unregistered": "Truck not registered to the hauler",
    "disposal_site_unapproved": "Disposal site not approved",
    "disposal_before_service": "Delivered before the service ended",
    "disposal_unconfirmed": "No disposal record filed",
    "load_shortfall": "Ticket delivered less than was pumped",
    "service_interval_exceeded": "Serviced later than its frequency",
}

# The statuses of a device, as the portal writes them.
STATUSES = {
    "compliant": "Up to date",
    "due_soon": "Due soon",
    "overdue": "Overdue",
    "missed": "Missed",
    "never_serviced": "Never serviced",
    "permit_ended": "Permit ended",
}
SEVERITIES = {"violation": "Violation", "warning": "Warning"}
WASTE_TYPES = {"grease_interceptor_waste": "grease interceptor waste", "grease_trap_waste": "grease trap waste"}
_STATEMENTS = {rule.key: rule.statement for rule in RULES}


def _plain(code):
    """A code no table knows yet, as words rather than a code."""
    return str(code).replace("_", " ").capitalize()


def finding(code):
    return FINDINGS.get(code) or _plain(code)


def status(code):
    return STATUSES.get(code) or _plain(code)


def severity(code):
    return SEVERITIES.get(code) or _plain(code)


def waste_type(code):
    return WASTE_TYPES.get(code) or _plain(code).lower()


def rule_of(code):
    """The key of the rule a finding stands on (`domain.presets.RULES`)."""
    return CODES[code][1] if code in CODES else None


def rule_statement(code):
    """What the rule behind a finding asks, in the exchange's words."""
    return _STATEMENTS.get(rule_of(code), "")
