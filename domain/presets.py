"""Rule parameters of the five ordinance cities, each with the section it comes from."""

# The defaults of DESIGN.md section 4; a preset states every parameter, cited where its
# ordinance speaks and marked "program default" where it is silent.
ALLOWED_FREQUENCIES = [30, 60, 90, 120, 180]

PARAMETERS = (
    "manifest_deadline_hours",
    "retention_years",
    "interceptor_default_frequency_days",
    "interceptor_max_interval_days",
    "trap_default_frequency_days",
    "allowed_frequencies",
    "twenty_five_percent_rule",
    "full_pump_min_ratio",
    "min_interceptor_gallons",
    "grace_days",
    "decant_return_allowed",
)

DEFAULT = "program default (DESIGN.md section 4)"


def _preset(name, **values):
    """A preset: `values` maps a parameter to (value, citation)."""
    defaults = {
        "manifest_deadline_hours": (72, "Victorville 10.03.170(b), program default"),
        "retention_years": (3, DEFAULT),
        "interceptor_default_frequency_days": (90, "Victorville 10.03.160(f)(2), program default"),
        "interceptor_max_interval_days": (None, DEFAULT),
        "trap_default_frequency_days": (30, "Victorville 10.03.160(g)(1), program default"),
        "allowed_frequencies": (ALLOWED_FREQUENCIES, "Victorville 10.03.160(b), program default"),
        "twenty_five_percent_rule": (0.25, DEFAULT),
        "full_pump_min_ratio": (0.9, DEFAULT),
        "min_interceptor_gallons": (None, DEFAULT),
        "grace_days": (0, DEFAULT),
        "decant_return_allowed": (False, DEFAULT),
    }
    defaults.update(values)
    return {"name": name, "time_zone": "America/Los_Angeles", "parameters": defaults}


PRESETS = {
    "placentia": _preset(
        "City of Placentia",
        twenty_five_percent_rule=(
            0.25,
            "Placentia 16.24 (definition of Twenty-five percent (25%) Rule; prohibition (9))",
        ),
    ),
    "colusa": _preset(
        "City of Colusa",
        retention_years=(3, "Colusa 15A-16(I)"),
        interceptor_default_frequency_days=(90, "Colusa 15A-16(C)(3): quarterly when not established"),
        interceptor_max_interval_days=(365, "Colusa 15A-16(C)(2): at least once every twelve months"),
        twenty_five_percent_rule=(0.25, "Colusa 15A-16(C)(1)"),
        full_pump_min_ratio=(0.9, "Colusa 15A-16(A): fully pumped out and cleaned"),
        min_interceptor_gallons=(1000, "Colusa 15A, compliance A (new construction): minimum size of one thousand gallons"),
    ),
    "san-clemente": _preset(
        "City of San Clemente",
        retention_years=(3, "San Clemente 13.30.050(H)(1)(c)"),
        twenty_five_percent_rule=(0.25, "San Clemente 13.30.040(C)(6)"),
        full_pump_min_ratio=(0.9, "San Clemente 13.30.040(C)(9): fully pump down the contents"),
        min_interceptor_gallons=(750, "San Clemente 13.30 definitions K (Grease Interceptor): a minimum of 750 gallons"),
    ),
    "victorville": _preset(
        "City of Victorville",
        manifest_deadline_hours=(72, "Victorville 10.03.170(b)"),
        retention_years=(2, "Victorville 10.03.170(c)"),
        interceptor_default_frequency_days=(90, "Victorville 10.03.160(f)(2)"),
        trap_default_frequency_days=(30, "Victorville 10.03.160(g)(1)"),
        allowed_frequencies=(ALLOWED_FREQUENCIES, "Victorville 10.03.160(b)"),
        twenty_five_percent_rule=(0.25, "Victorville 10.03.160(f)(1)"),
    ),
    "tracy": _preset(
        "City of Tracy",
        retention_years=(3, "Tracy 5.26, Art. 2 records: a minimum of three (3) years"),
        interceptor_default_frequency_days=(90, "Tracy 5.26 (e)(3): quarterly when not established"),
        interceptor_max_interval_days=(183, "Tracy 5.26 (e)(2): not less than every six (6) months"),
        twenty_five_percent_rule=(0.25, "Tracy 5.26 (e)(1)"),
        full_pump_min_ratio=(0.9, "Tracy 5.26 (a): fully pumped out and cleaned"),
    ),
}


def preset_rows():
    """Each preset as the column values of a `jurisdictions` row."""
    for code, preset in PRESETS.items():
        row = {"code": code, "name": preset["name"], "time_zone": preset["time_zone"], "citations": {}}
        for parameter, (value, citation) in preset["parameters"].items():
            row[parameter] = value
            row["citations"][parameter] = citation
        yield row
