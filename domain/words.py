"""Codes as a person reads them: each finding, device status and severity in plain English,
with the rule a finding stands on (the city's table of rules, `domain.presets`); a finding's
words are its row of `domain.facts.CODES`."""

from domain import presets, reconcile, rules
from domain.facts import CODES

# Each finding in words, as `domain.facts.CODES` writes it.
FINDINGS = {code: entry.words for code, entry in CODES.items()}

# The statuses of a device, as the portal writes them.
STATUSES = {
    "compliant": "Up to date",
    "due_soon": "Due soon",
    "overdue": "Overdue",
    "missed": "Missed",
    "never_serviced": "Never serviced",
    "permit_ended": "Permit ended",
    "retired": "Retired",
}
SEVERITIES = {"violation": "Violation", "warning": "Warning"}
WASTE_TYPES = {"grease_interceptor_waste": "grease interceptor waste", "grease_trap_waste": "grease trap waste"}
# What a finding stands on: a city's ordinance, or the exchange's own policy (`domain.rules`).
BASES = {rules.ORDINANCE: "Ordinance", rules.EXCHANGE_POLICY: "Exchange policy"}
# What differs between a load's manifest and its site's receipt (`domain.reconcile.CODES`), in
# short, as the portal's reconciliation list writes it.
DIFFERENCES = {
    reconcile.RECEIPT_MISSING: "No receipt from the site",
    reconcile.MANIFEST_MISSING: "No manifest for the load",
    reconcile.GALLONS_DIFFER: "Gallons differ",
    reconcile.HAULER_DIFFERS: "Another hauler",
    reconcile.VEHICLE_DIFFERS: "Another truck",
    reconcile.DISPUTED: "Disputed by the site",
}
# A frequency recommendation's change (`domain.frequency.Recommendation.change`).
CHANGES = {"shorten": "Pump more often", "lengthen": "Could be pumped less often", "keep": "Frequency is right"}
# A permit's status and a device's kind, as the device lists carry them.
PERMIT_STATUSES = {
    "active": "Active",
    "suspended": "Suspended",
    "revoked": "Revoked",
    "expired": "Expired",
    "not_issued": "Not issued",
}
DEVICE_KINDS = {"interceptor": "Interceptor", "trap": "Trap"}
# Where a missed interval was counted from: the last full service, or the permit's issue.
COUNTED_FROM = {"service": "Last service", "permit_issued": "Permit issued (never serviced)"}
# What of an FSE's record a read took (its access log): a download of the record, or its manifests.
READ_FORMATS = {
    "json": "Record as JSON",
    "csv": "Record as CSV",
    "pdf": "Binder (PDF)",
    "zip": "Records ZIP with scans",
    "manifests": "A page of manifests",
    "manifest": "A manifest",
    "revisions": "A manifest's revisions",
    "correction": "A correction",
    "scan": "A scan",
}
# What a change of a city's registry did (`services.registry.log.note`), an import by its kind.
ACTIONS = {
    "fse.created": "Restaurant added",
    "fse.updated": "Restaurant changed",
    "permit.created": "Permit added",
    "permit.status_changed": "Permit status changed",
    "device.created": "Device added",
    "device.frequency_changed": "Service frequency changed",
    "device.frequency_change_withdrawn": "Scheduled frequency change withdrawn",
    "device.permit_moved": "Device moved to another permit",
    "device.retired": "Device retired",
    "hauler.created": "Hauler added",
    "hauler.registered": "Hauler registered in the city",
    "hauler.updated": "Hauler changed",
    "vehicle.created": "Vehicle added",
    "site.created": "Disposal site added",
    "site.approved": "Disposal site approved",
    "site.updated": "Disposal site changed",
    "import.fses": "Restaurants imported",
    "import.permits": "Permits imported",
    "import.devices": "Devices imported",
    "import.haulers": "Haulers imported",
    "import.vehicles": "Vehicles imported",
    "import.disposal-sites": "Disposal sites imported",
}


def _plain(code):
    """A code no table knows yet, as words rather than a code."""
    return str(code).replace("_", " ").capitalize()


def finding(code):
    return CODES[code].words if code in CODES else _plain(code)


def status(code):
    return STATUSES.get(code) or _plain(code)


def severity(code):
    return SEVERITIES.get(code) or _plain(code)


def difference(code):
    return DIFFERENCES.get(code) or _plain(code)


def change(code):
    return CHANGES.get(code) or _plain(code)


def action(code):
    return ACTIONS.get(code) or _plain(code)


def waste_type(code):
    return WASTE_TYPES.get(code) or _plain(code).lower()


def rule_of(code):
    """The key of the rule a finding stands on (`domain.presets.RULES`)."""
    return CODES[code].rule if code in CODES else None


def rule_statement(code):
    """What the rule behind a finding asks, in the exchange's words."""
    rule = rule_of(code)
    return next((entry.statement for entry in presets.RULES if entry.key == rule), "")
