"""Each city's rules in one table: what its ordinance says, in its own words and section, or
what the exchange applies where the text is silent (exchange policy, no section)."""

from dataclasses import dataclass

from domain.rules import (
    EXCHANGE_POLICY as EXCHANGE_POLICY,
)
from domain.rules import (
    ORDINANCE as ORDINANCE,
)
from domain.rules import (
    PARAMETERS as PARAMETERS,
)
from domain.rules import (
    POLICY as POLICY,
)
from domain.rules import (
    RULE_KEYS as RULE_KEYS,
)
from domain.rules import (
    RULES as RULES,
)
from domain.rules import (
    Rule as Rule,
)
from domain.rules import (
    basis_of as basis_of,
)

VICTORVILLE_FREQUENCIES = [30, 60, 90, 120, 180]


@dataclass(frozen=True)
class Source:
    """A rule as a city's ordinance states it: the value, the section, the words."""

    value: object
    citation: str
    quote: str


def _city(name, *, adjustment: Source | None = None, **sources):
    """A city's preset: its rules' `sources`, and `adjustment`, where its text lets the city
    adjust a device's frequency to the accumulation measured (`domain.frequency`)."""
    assert set(sources) <= set(RULE_KEYS), set(sources) - set(RULE_KEYS)
    return {"name": name, "time_zone": "America/Los_Angeles", "sources": sources, "adjustment": adjustment}


# Quotes are the ordinances' own words; " ... " joins two passages of one section.
PRESETS = {
    "placentia": _city(
        "City of Placentia",
        frequency_change_notice_days=Source(
            45,
            "Placentia 16.24 FOG Wastewater Discharge Permits (e)(3)",
            "The permittee shall be informed of any change in the permit limits, conditions, or requirements at "
            "least forty-five (45) days prior to the effective date of the change.",
        ),
        permit_required=Source(
            True,
            "Placentia 16.24 General Limitations (c)",
            "No person shall discharge, or cause to be discharged, any wastewater from a Food Service "
            "Establishment directly or indirectly into the sewer system without first obtaining a FOG "
            "wastewater discharge permit",
        ),
        decant_return_allowed=Source(
            False,
            "Placentia 16.24 General Limitations (b)(8)",
            "No waste removed from a grease control device may be discharged to the sewer system.",
        ),
        twenty_five_percent_rule=Source(
            0.25,
            "Placentia 16.24 General Limitations (b)(9)",
            "No person shall allow the accumulation of FOG and/or solids in a grease interceptor which "
            "accumulation exceeds 25% of the total operating hydraulic depth of the grease interceptor.",
        ),
        interceptor_frequency=Source(
            True,
            "Placentia 16.24 FOG Wastewater Discharge Permits (c)(3)",
            "The issuance of a FOG Wastewater Discharge Permit may contain any of the following conditions or "
            "limits: ... (3) Grease interceptor maintenance schedule.",
        ),
        trap_daily_cleaning=Source(
            1,
            "Placentia 16.24 Facilities Requirements (c)(3)",
            "Grease traps shall be maintained in efficient operating conditions by removing accumulated grease "
            "on a daily basis.",
        ),
        permit_term=Source(
            {"years": 1, "longer": "warned"},
            "Placentia 16.24 FOG Wastewater Discharge Permits (f)",
            "FOG Wastewater Discharge Permits shall be issued annually.",
        ),
    ),
    "colusa": _city(
        "City of Colusa",
        adjustment=Source(
            True,
            "Colusa 15A-16(C)(3)",
            "The maintenance frequency shall be adjusted when sufficient data has been obtained to establish an "
            "average frequency based on the requirements described in Section 15A-16(C)(1)",
        ),
        retention_years=Source(
            3, "Colusa 15A-16(I)", "Pumping records shall be kept and maintained onsite for a minimum of three years"
        ),
        permit_required=Source(
            True,
            "Colusa 15A Art. II FOG WDP required",
            "No person shall discharge, or cause to be discharged, any wastewater from FSEs directly or "
            "indirectly into the public sewer without first obtaining a FOG WDP pursuant to this chapter.",
        ),
        full_pump_down=Source(
            True,
            "Colusa 15A-16(A)",
            "FSEs/permittees shall maintain grease interceptors in efficient operating condition by periodic "
            "removal of the full content of the interceptor",
        ),
        decant_return_allowed=Source(
            False,
            "Colusa 15A Art. II prohibitions F",
            "Discharging a FOG and solid materials removed from a grease control device to the public sewer.",
        ),
        twenty_five_percent_rule=Source(
            0.25,
            "Colusa 15A-16(C)(1)",
            "the combined FOG and solids accumulation in the grease interceptor does not exceed twenty-five "
            "percent of the total designed hydraulic depth of the grease interceptor",
        ),
        interceptor_frequency=Source(
            True,
            "Colusa 15A-16(D)",
            "All grease interceptors shall be maintained in a manner consistent with the maintenance frequency "
            "approved by the city manager.",
        ),
        interceptor_default_frequency_days=Source(
            90,
            "Colusa 15A-16(C)(3)",
            "Grease interceptors shall be fully pumped out and cleaned quarterly when the frequency described "
            "in Section 15A-16(C)(1) has not been established.",
        ),
        interceptor_max_interval_months=Source(
            12,
            "Colusa 15A-16(C)(2)",
            "Every FSE with a grease interceptor shall fully pump out and clean its grease interceptor not less "
            "than once every twelve months.",
        ),
        trap_daily_cleaning=Source(
            1,
            "Colusa 15A Art. II grease traps B",
            "Existing grease traps shall be maintained in efficient operating condition by daily removal of the "
            "accumulated grease.",
        ),
        min_interceptor_gallons=Source(
            1000,
            "Colusa 15A Art. II grease interceptor requirements B",
            "Grease interceptor sizing shall conform to the then current edition of the Uniform Plumbing Code, "
            "but not be less than one thousand gallons in size unless otherwise waived by the city manager.",
        ),
        disposal_site_approved=Source(
            True,
            "Colusa 15A-16(G)",
            "materials removed from the grease interceptor shall be disposed of by waste haulers at an approved "
            "disposal site",
        ),
    ),
    "san-clemente": _city(
        "City of San Clemente",
        adjustment=Source(
            True,
            "San Clemente 13.30.050(H)(1)(b)",
            "The Operator of a Food Service Establishment may request that the Utilities Manager or Authorized "
            "Inspector issue a revised cleaning or pumping schedule for Grease Interceptors where it can be shown "
            "that the change in frequency will not cause or contribute to non compliance",
        ),
        frequency_change_notice_days=Source(
            45,
            "San Clemente 13.30.050(J)",
            "The Operator of each Food Service Establishment holding an existing Discharge Permit shall receive "
            "at least forty-five (45) days prior written notice of any changes in the requirements or form of "
            "the general Discharge Permit that affects such Operator's Food Service Establishment.",
        ),
        frequency_change_notice_inspection_days=Source(
            14,
            "San Clemente 13.30.050(J)",
            "If the change to an existing Discharge Permit is the result of an Authorized Inspector's "
            "evaluation of the Food Service Establishment for permit non-compliance, then the Operator shall be "
            "given at least fourteen (14) days prior written notice of the Discharge Permit revision.",
        ),
        retention_years=Source(
            3,
            "San Clemente 13.30.050(H)(1)(c)",
            "shall retain Fats, Oils, and Grease disposal logs and supporting manifests and invoices on-site for "
            "a period of not less than three (3) years",
        ),
        permit_required=Source(
            True,
            "San Clemente 13.30.050(A)",
            "Each Operator of a Food Service Establishment in the City's service area connected or connecting "
            "via private lines or Sewer Lateral to the Public Sewer shall be required to apply for and obtain a "
            "City Discharge Permit.",
        ),
        full_pump_down=Source(
            True,
            "San Clemente 13.30.040(C)(9)",
            "maintain a Grease Interceptor in a manner that fails to fully pump down the contents of the Grease "
            "Interceptor",
        ),
        decant_return_allowed=Source(
            False,
            "San Clemente 13.30.040(C)(4)",
            "discharge any waste containing Fats, Oils, or Grease or any solid materials removed from a Grease "
            "Control Device to the Sewer Lateral or lines leading to the Public Sewer System",
        ),
        twenty_five_percent_rule=Source(
            0.25,
            "San Clemente 13.30.040(C)(6)",
            "operate a Grease Interceptor with Fats, Oils, and Grease and solids accumulation exceeding 25% of "
            "the design hydraulic depth (total operating depth) of the Grease Interceptor",
        ),
        min_outlet_clearance_in=Source(
            2.0,
            "San Clemente 13.30.040(C)(7)",
            "operate a Grease Interceptor that at any time contains floating oil/grease in the final chamber or "
            "sludge in any chamber that is within two (2) inches of the discharge elbow; under such conditions "
            "the Operator of the Food Service Establishment shall have the Grease Interceptor serviced "
            "immediately",
        ),
        interceptor_frequency=Source(
            True,
            "San Clemente 13.30.050(H)(1)(b)",
            "to clean and pump required Grease Control Devices on a specified schedule or at appropriate intervals",
        ),
        trap_frequency=Source(
            True,
            "San Clemente 13.30.050(H)(1)(b)",
            "to clean and pump required Grease Control Devices on a specified schedule or at appropriate intervals",
        ),
        min_interceptor_gallons=Source(
            750, "San Clemente 13.30.030(K)", "These devices are large (a minimum of 750 gallons)"
        ),
        permit_term=Source(
            {"years": 5, "longer": "refused"},
            "San Clemente 13.30.050(E)",
            "Discharge Permits shall be valid for a maximum period of five (5) years or until a new Operator "
            "commences operation of the Food Service Establishment, whichever occurs first.",
        ),
        hauler_licensed=Source(
            True,
            "San Clemente 13.30.040(C)(5)",
            "fail to cause all Fats, Oils, and Grease removed from a Grease Trap or Grease Interceptors to be "
            "periodically hauled by a licensed hauler",
        ),
    ),
    "victorville": _city(
        "City of Victorville",
        adjustment=Source(
            True,
            "Victorville 10.03.160(f)(3)",
            "The maintenance frequency shall be adjusted when sufficient data has been obtained to establish an "
            "average frequency based on the requirements described in Subsection 10.03.160(f)(1)",
        ),
        frequency_change_notice_days=Source(
            30,
            "Victorville 10.03.080(c)",
            "The permittee shall be informed by the city of any proposed modifications in the FOG permit terms "
            "or conditions at least thirty days prior to the effective date of the change.",
        ),
        manifest_deadline_hours=Source(
            72,
            "Victorville 10.03.170(b)",
            "Each permittee shall be responsible to provide copies of all service manifests directly to the FOG "
            "manager not later than seventy-two hours after GCDs are serviced.",
        ),
        permit_required=Source(True, "Victorville 10.03.050(a)", "All FSE operators shall obtain a FOG permit"),
        permit_term=Source(
            {"years": 1, "longer": "refused"},
            "Victorville 10.03.080(a)",
            "The FOG permit shall be issued for a one-year period and shall be renewed annually.",
        ),
        full_pump_down=Source(
            True,
            "Victorville 10.03.160(f)(1)",
            "Grease interceptors shall be fully pumped out and cleaned (maintained)",
        ),
        decant_return_allowed=Source(
            False,
            "Victorville 10.03.260(a)",
            "Discharging any waste, including FOG and solid materials removed from GCDs into the sewer system is "
            "prohibited",
        ),
        twenty_five_percent_rule=Source(
            0.25,
            "Victorville 10.03.160(f)(1)",
            "the combined FOG and solids accumulation does not exceed twenty-five percent of the total design "
            "hydraulic depth of the grease interceptor",
        ),
        interceptor_frequency=Source(
            True,
            "Victorville 10.03.160(c)",
            "All existing and newly installed grease interceptors and grease traps shall be maintained in a "
            "manner consistent with a maintenance frequency approved by the FOG manager",
        ),
        interceptor_default_frequency_days=Source(
            90,
            "Victorville 10.03.160(f)(2)",
            "Unless another frequency has been specified by the FOG manager or in the FOG permit, all FSEs with "
            "grease interceptors shall ensure they are maintained not less than once every ninety days.",
        ),
        trap_frequency=Source(
            True,
            "Victorville 10.03.160(g)(1)",
            "The maintenance frequency for grease trap shall be established by the FOG manager, but at a "
            "minimum, grease traps shall be serviced every thirty days.",
        ),
        trap_default_frequency_days=Source(
            30, "Victorville 10.03.160(g)(1)", "at a minimum, grease traps shall be serviced every thirty days"
        ),
        allowed_frequencies=Source(
            VICTORVILLE_FREQUENCIES,
            "Victorville 10.03.160(b)",
            "The FOG manager shall assign each FSE one of the following collection/maintenance frequencies: "
            "thirty days, sixty days, ninety days, one hundred twenty days, or one hundred eighty days",
        ),
        hauler_licensed=Source(
            True,
            "Victorville 10.03.160(b)",
            "Each permittee shall be required to contract with a licensed waste hauler",
        ),
    ),
    "tracy": _city(
        "City of Tracy",
        adjustment=Source(
            True,
            "Tracy 5.26 interceptor maintenance (e)(3)",
            "The maintenance frequency shall be adjusted when sufficient data have been obtained to establish an "
            "average frequency based on the requirements described in subsection (e)(1)",
        ),
        retention_years=Source(
            3,
            "Tracy 5.26 records",
            "copies of all manifests, receipts and invoices of all cleaning, maintenance, grease removal of/from "
            "the grease control device, disposal carrier and disposal site location for no less than three (3) "
            "years",
        ),
        full_pump_down=Source(
            True,
            "Tracy 5.26 interceptor maintenance (a)",
            "Grease interceptors shall be maintained in efficient operating condition by periodic inspection "
            "and removal of the full content of the interceptor",
        ),
        decant_return_allowed=Source(
            False,
            "Tracy 5.26 prohibitions (f)",
            "Discharge of any waste including FOG and solid materials removed from a grease control device to "
            "the public sewer is prohibited.",
        ),
        twenty_five_percent_rule=Source(
            0.25,
            "Tracy 5.26 prohibitions (g)",
            "Operation of grease interceptors with FOG and solids accumulation exceeding twenty-five (25) "
            "percent of the design hydraulic depth of the grease interceptor is prohibited.",
        ),
        interceptor_frequency=Source(
            True,
            "Tracy 5.26 interceptor maintenance (b)",
            "All existing and newly installed grease interceptors shall be maintained in a manner consistent "
            "with a maintenance frequency approved by the Director",
        ),
        interceptor_default_frequency_days=Source(
            90,
            "Tracy 5.26 interceptor maintenance (e)(3)",
            "Grease interceptors shall be fully pumped out and cleaned quarterly when the frequency described in "
            "subsection (e)(1) has not been established.",
        ),
        interceptor_max_interval_months=Source(
            6,
            "Tracy 5.26 interceptor maintenance (e)(2)",
            "All FSEs with a grease interceptor shall maintain their grease interceptor not less than every six "
            "(6) months.",
        ),
        disposal_site_approved=Source(
            True,
            "Tracy 5.26 prohibitions (f)",
            "Grease removed from grease interceptors shall be transported to an approved disposal or recycling "
            "facility.",
        ),
    ),
}


def table(code: str | None, values: dict | None = None, citations: dict | None = None) -> list[dict]:
    """The city's rules, each with its value, basis, citation and (for an ordinance) the words it
    stands on. `values` and `citations`, a stored jurisdiction's own, win over its preset's."""
    sources = PRESETS.get(code, {}).get("sources", {})
    values, citations = values or {}, citations or {}
    rows = []
    for rule in RULES:
        source = sources.get(rule.key)
        citation = citations.get(rule.key) or (source.citation if source else POLICY)
        value = values[rule.key] if rule.key in values else (source.value if source else rule.value)
        quoted = source is not None and citation == source.citation
        rows.append(
            {
                "rule": rule.key,
                "statement": rule.statement,
                "value": value,
                "basis": basis_of(citation),
                "citation": citation,
                "quote": source.quote if quoted else None,
            }
        )
    return rows


def preset_rows():
    """Each preset as the column values of a `jurisdictions` row, its citation of every rule
    among them."""
    for code, preset in PRESETS.items():
        rows = table(code)
        row = {
            "code": code,
            "name": preset["name"],
            "time_zone": preset["time_zone"],
            "citations": {r["rule"]: r["citation"] for r in rows},
        }
        row.update({r["rule"]: r["value"] for r in rows if r["rule"] in PARAMETERS})
        yield row
