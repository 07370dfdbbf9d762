"""The rules the exchange knows, each with what it says and the exchange's own value where no
city's text sets it; how a rule is cited, by a section or as exchange policy."""

from dataclasses import dataclass

ORDINANCE, EXCHANGE_POLICY = "ordinance", "exchange_policy"
# How a rule no ordinance states is cited, wherever it is shown.
POLICY = "exchange policy"


def basis_of(citation: str | None) -> str:
    """`ordinance` where a section is cited, else `exchange_policy`."""
    return EXCHANGE_POLICY if not citation or citation == POLICY else ORDINANCE


@dataclass(frozen=True)
class Rule:
    key: str
    statement: str
    value: object  # the exchange's own, where no ordinance of the city sets it


RULES = (
    Rule("manifest_deadline_hours", "A manifest reaches the city within this many hours of the service.", 72),
    Rule("retention_years", "Records are kept at least this many years.", 3),
    Rule("permit_required", "A device is serviced under a FOG discharge permit in force on the service date.", True),
    Rule(
        "permit_term",
        "A permit runs at most this many years from its issue date; a longer one is refused or "
        "warned, as the city's text says (none: no limit).",
        None,
    ),
    Rule("waste_type_matches_device", "Interceptor waste is filed for an interceptor, trap waste for a trap.", True),
    Rule("full_pump_down", "An interceptor's service removes its whole content, as the hauler attests.", True),
    Rule("trap_full_pump_down", "A trap's service removes its whole content, as the hauler attests.", True),
    Rule(
        "full_pump_min_ratio",
        "A service counts as fully pumped when it removed at least this share of the device's capacity.",
        0.9,
    ),
    Rule("decant_return_allowed", "Whether separated water may be returned to the device (decant and return).", False),
    Rule(
        "twenty_five_percent_rule",
        "An interceptor's FOG and solids must not exceed this share of its design depth.",
        0.25,
    ),
    Rule(
        "min_outlet_clearance_in",
        "Grease or sludge this many inches or less from an interceptor's discharge elbow: service immediately.",
        None,
    ),
    Rule("interceptor_frequency", "An interceptor is serviced at the frequency the city set for it.", True),
    Rule("interceptor_default_frequency_days", "An interceptor's frequency (days) where the city set none.", 90),
    Rule(
        "interceptor_max_interval_days",
        "An interceptor is serviced at least this often (days), whatever its frequency.",
        None,
    ),
    Rule(
        "interceptor_max_interval_months",
        "An interceptor is serviced at least this often (calendar months), whatever its frequency.",
        None,
    ),
    Rule("trap_frequency", "A trap is serviced at the frequency the city set for it.", True),
    Rule("trap_default_frequency_days", "A trap's frequency (days) where the city set none.", 30),
    Rule(
        "trap_daily_cleaning",
        "The FSE cleans each grease trap it keeps itself at least this often (days), "
        "as its maintenance log shows; a day without an entry is listed (none: the city sets no such rule).",
        None,
    ),
    Rule(
        "allowed_frequencies",
        "The frequencies (days) the city assigns; none listed: any number of days within its bounds.",
        [],
    ),
    Rule(
        "min_interceptor_gallons",
        "The smallest interceptor (gallons); a smaller one is registered with a warning.",
        None,
    ),
    Rule("grace_days", "Days past due before a device counts as missed.", 0),
    Rule(
        "frequency_change_notice_days",
        "A device's frequency changes no sooner than this many days after the "
        "permittee is told, unless the city records why sooner.",
        30,
    ),
    Rule(
        "frequency_change_notice_inspection_days",
        "A change that follows an inspector's evaluation for permit non-compliance takes effect no "
        "sooner than this many days after the permittee is told (none: the notice above).",
        None,
    ),
    Rule(
        "reminder_days",
        "A restaurant and its hauler are reminded of a device this many days before it comes due.",
        14,
    ),
    Rule("hauler_licensed", "The hauler's licence is valid on the service date.", True),
    Rule("hauler_registered", "The hauler is registered in the city on the service date.", True),
    Rule("vehicle_registered", "The truck is one of the hauler's, and the load fits its tank.", True),
    Rule(
        "disposal_site_approved",
        "The load goes to a disposal site approved, on the delivery date, for the city and the waste type.",
        True,
    ),
    Rule(
        "trap_disposal_site_approved",
        "Trap waste goes to a disposal site approved, on the delivery date, for the city and the waste type.",
        True,
    ),
    Rule("disposal_after_service", "The load is delivered after the service is completed.", True),
    Rule("disposal_confirmed", "A disposal record is filed within the manifest deadline.", True),
    Rule("ticket_reconciles", "The manifests on one disposal ticket removed no more than the ticket delivered.", True),
    Rule("plausible_service", "Filings for one device are no closer together than a truck can do them.", True),
)
RULE_KEYS = tuple(rule.key for rule in RULES)

# The rules a jurisdiction row holds a value for (a city may change a policy value there).
PARAMETERS = (
    "manifest_deadline_hours",
    "retention_years",
    "interceptor_default_frequency_days",
    "interceptor_max_interval_days",
    "interceptor_max_interval_months",
    "trap_default_frequency_days",
    "trap_daily_cleaning",
    "permit_term",
    "allowed_frequencies",
    "twenty_five_percent_rule",
    "full_pump_min_ratio",
    "min_interceptor_gallons",
    "min_outlet_clearance_in",
    "grace_days",
    "frequency_change_notice_days",
    "frequency_change_notice_inspection_days",
    "decant_return_allowed",
    "reminder_days",
)
