"""One list per fact: the rules a check reads, the judged fields of a manifest and the finding
codes are each defined once (`domain/facts.py`: the fields of `Rules` and `Load`, the table
`CODES`); what the service, the spec and the portal hold of them is derived from it or held
to it here."""

import re
from dataclasses import field, fields, make_dataclass
from datetime import UTC, datetime
from decimal import Decimal
from types import SimpleNamespace

import pytest

from api.config import ROOT
from domain import checks, frequency, presets, reconcile, words
from domain.facts import CODES, VIOLATION, Code, Finding, Load, Rules
from services.filing.filing_facts import RULE_COLUMNS, rules_of
from services.filing.judging import load_of
from services.registry import import_rows
from storage import people as _people  # noqa: F401  (the people the registry's models name)
from storage.models import Jurisdiction, ManifestRevision
from tests.domain.cities import rules as preset_rules
from tests.spec import load_spec

PORTAL = ROOT / "portal" / "js"


def _spec_codes(spec) -> tuple[list, set]:
    """The spec's finding code enum, and the codes its description lists."""
    schema = spec["components"]["schemas"]["FindingCode"]
    return schema["enum"], set(re.findall(r"^- `([a-z_0-9]+)`:", schema["description"], re.M))


def _portal_words() -> dict:
    """{language: {code: words}} of the portal's findings (`portal/js/i18n.js` FINDINGS)."""
    source = (PORTAL / "i18n.js").read_text()
    block = source[source.index("const FINDINGS = {") : source.index("\n};", source.index("const FINDINGS = {"))]
    languages = re.findall(r"^  (\w+): \{\n(.*?)^  \},", block, re.M | re.S)
    return {language: dict(re.findall(r'(\w+): "([^"]*)"', body)) for language, body in languages}


def disagreements(codes: dict) -> dict:
    """Where the spec and the portal disagree with the table `codes`, by place."""
    enum, described = _spec_codes(load_spec())
    portal = _portal_words()
    found = {
        "openapi.yaml FindingCode enum": enum != list(codes),
        "openapi.yaml FindingCode description": described != set(codes),
        "portal/js/i18n.js FINDINGS.en": portal["en"] != {code: entry.words for code, entry in codes.items()},
        "portal/js/i18n.js FINDINGS.es": list(portal["es"]) != list(codes),
    }
    return {place for place, differs in found.items() if differs}


def test_the_spec_and_the_portal_name_exactly_the_tables_codes_in_its_words():
    assert disagreements(CODES) == set()
    assert _portal_words().keys() == {"en", "es"}
    # The auditor's filter lists the codes as i18n.js holds them, not a list of its own.
    auditor = (PORTAL / "auditor.js").read_text()
    imported = re.search(r'^import \{ ([^}]*) \} from "./i18n.js";$', auditor, re.M).group(1)
    assert {"FINDING_CODES", "findingWords"} <= set(imported.split(", "))
    assert not any(f'"{code}"' in auditor for code in CODES)
    assert "export const FINDING_CODES = Object.keys(FINDINGS.en);" in (PORTAL / "i18n.js").read_text()


def test_the_portal_and_the_sheets_name_the_same_differences_and_changes_in_the_same_words():
    """A load's differences (`domain.reconcile.CODES`) and a recommendation's changes, as the
    sheets' words columns write them (`domain.words`) and as the city audit shows them."""
    english = (PORTAL / "audit-words.js").read_text().split("  es: {")[0]
    portal = dict(re.findall(r'"difference\.(\w+)": "([^"]*)"', english))
    assert portal == words.DIFFERENCES and list(words.DIFFERENCES) == list(reconcile.CODES)
    i18n = (PORTAL / "i18n.js").read_text().split("  es: {")[0]
    measure = dict(re.findall(r'"measure\.(shorten|lengthen|keep)": "([^"]*)"', i18n))
    assert {code: text.capitalize() for code, text in measure.items()} == words.CHANGES


def test_the_portal_and_the_device_sheets_name_statuses_kinds_and_counting_in_the_same_words():
    """A permit's status, a device's kind and where a missed interval was counted from, as the
    sheets' words columns write them (`domain.words`) and as the portal shows them."""
    i18n = (PORTAL / "i18n.js").read_text().split("  es: {")[0]
    permits = dict(re.findall(r'"permit\.(\w+)": "([^"]*)"', i18n))
    kinds = dict(re.findall(r'"kind\.(\w+)": "([^"]*)"', i18n))
    assert {code: text.capitalize() for code, text in permits.items()} == words.PERMIT_STATUSES
    assert {code: text.capitalize() for code, text in kinds.items()} == words.DEVICE_KINDS
    audit = (PORTAL / "audit-words.js").read_text()
    english, spanish = audit.split("  es: {")
    assert dict(re.findall(r'"counted\.(\w+)": "([^"]*)"', english)) == words.COUNTED_FROM
    assert set(dict(re.findall(r'"counted\.(\w+)": "([^"]*)"', spanish))) == set(words.COUNTED_FROM)
    spec = load_spec()["components"]["schemas"]
    assert spec["MissedInterval"]["properties"]["counted_from"]["enum"] == list(words.COUNTED_FROM)
    assert spec["DeviceDue"]["properties"]["permit_status"]["enum"] == list(words.PERMIT_STATUSES)
    assert spec["DeviceDue"]["properties"]["device_kind"]["enum"] == list(words.DEVICE_KINDS)


def test_an_access_logs_formats_are_the_specs_and_each_has_words():
    spec = load_spec()["components"]["schemas"]["RecordRead"]["properties"]["format"]["enum"]
    assert spec == list(words.READ_FORMATS) and all(words.READ_FORMATS.values())


def test_every_registry_change_the_services_note_is_in_the_spec_and_in_words():
    """The actions `services.registry.log.note` is called with (an import's by its kind) are
    the spec's enum and `domain.words.ACTIONS`, in the same order."""
    noted = set()
    for module in (ROOT / "services").rglob("*.py"):
        source = module.read_text()
        noted |= set(re.findall(r'registry_log\.note\(\s*session,\s*principal,\s*(?:action=)?"([a-z_.-]+)"', source))
    noted |= {f"import.{kind}" for kind in import_rows.KINDS}
    assert noted == set(words.ACTIONS)
    assert load_spec()["components"]["schemas"]["RegistryChange"]["properties"]["action"]["enum"] == list(words.ACTIONS)


def test_every_code_stands_on_a_rule_of_the_citys_table_and_reads_in_its_words():
    keys = {rule.key for rule in presets.RULES}
    for code, entry in CODES.items():
        assert entry.severity in ("violation", "warning") and entry.rule in keys, code
        assert words.finding(code) == entry.words and words.rule_statement(code), code
    assert set(words.FINDINGS) == set(CODES)


def test_the_columns_a_check_reads_are_the_fields_of_rules_and_read_back_as_they_were_typed():
    assert RULE_COLUMNS == tuple(f.name for f in fields(Rules))
    assert all(hasattr(Jurisdiction, name) for name in RULE_COLUMNS)
    for row in presets.preset_rows():
        city = Jurisdiction(**row)
        assert rules_of(city) == preset_rules(row["code"]), row["code"]
    san_clemente = rules_of(Jurisdiction(**next(r for r in presets.preset_rows() if r["code"] == "san-clemente")))
    assert san_clemente.min_outlet_clearance_in == Decimal("2.0")
    assert isinstance(san_clemente.twenty_five_percent_rule, Decimal)


def test_a_judged_field_goes_from_the_body_to_its_column_to_the_load_by_its_name():
    at = datetime(2026, 6, 1, 10, tzinfo=UTC)
    body = {
        "service_started_at": at,
        "service_completed_at": at,
        "waste_type": "grease_interceptor_waste",
        "gallons_removed": 1000,
        "decant_returned_gallons": 0,
        "full_pump_down": True,
        "vehicle_id": "TRK-1",
        "measurements": {"fog_depth_in": Decimal("6"), "solids_depth_in": Decimal("4"), "outlet_clearance_in": None},
        "disposal": {"site_id": "site", "ticket_number": "T-1", "delivered_at": at, "gallons_delivered": 990},
    }
    columns = Load.filed(body)
    assert set(columns) == {f.name for f in fields(Load)} - {"manifest_id"}
    assert (columns["fog_depth_in"], columns["disposal_ticket_number"]) == (Decimal("6"), "T-1")
    assert all(hasattr(ManifestRevision, name) for name in [*columns, "manifest_id"])
    revision = ManifestRevision(**columns, manifest_id="m-1")
    assert load_of(revision) == Load(**columns, manifest_id="m-1")
    # A manifest filed without its optional parts has none of their fields.
    bare = Load.filed({key: value for key, value in body.items() if key not in ("measurements", "disposal")})
    assert bare["disposal_site_id"] is None and bare["outlet_clearance_in"] is None


def test_each_citys_adjustment_clause_is_its_own_preset():
    """Colusa 15A-16(C)(3), Victorville 10.03.160(f)(3), Tracy 5.26 (e)(3): "The maintenance
    frequency shall be adjusted when sufficient data has been obtained"; San Clemente
    13.30.050(H)(1)(b) revises a schedule on request; Placentia's text has no such clause."""
    assert frequency.ADJUSTMENT == {
        code: preset["adjustment"].citation for code, preset in presets.PRESETS.items() if preset["adjustment"]
    }
    assert set(frequency.ADJUSTMENT) == {"colusa", "victorville", "tracy", "san-clemente"}
    for code, preset in presets.PRESETS.items():
        adjustment = preset["adjustment"]
        if adjustment is not None:
            assert adjustment.citation.startswith(preset["name"].removeprefix("City of ") + " "), code
            assert adjustment.quote and '"' not in adjustment.quote, code


# A new rule, added as a test would add it --------------------------------------------------


@pytest.fixture
def max_fog_rule(monkeypatch):
    """A rule no city has yet, "FOG no deeper than N inches", added where it must be written:
    a field of `Rules`, its statement in `presets.RULES`, its row of `CODES`, and its check."""
    extended = make_dataclass(
        "Rules", [("max_fog_depth_in", Decimal | None, field(default=None))], bases=(Rules,), frozen=True
    )
    monkeypatch.setattr(
        presets, "RULES", (*presets.RULES, presets.Rule("max_fog_depth_in", "FOG no deeper than this (inches).", None))
    )
    monkeypatch.setitem(CODES, "fog_too_deep", Code(VIOLATION, "max_fog_depth_in", "FOG deeper than allowed"))

    def fog_too_deep(load: Load, rules) -> list[Finding]:
        limit = rules.max_fog_depth_in
        if limit is None or load.fog_depth_in is None or load.fog_depth_in <= limit:
            return []
        return [Finding("fog_too_deep", f"FOG {load.fog_depth_in} in deep.", rules.cite("max_fog_depth_in"))]

    return extended, fog_too_deep


def test_a_new_rule_is_written_in_four_places_and_the_rest_follows_or_is_held_to_them(max_fog_rule):
    """A rule added in the fixture touches (1) a field of `Rules`, (2) its statement in
    `presets.RULES` (and each city's `Source` where its text states it), (3) a row of `CODES`
    (severity, rule, words), (4) its check in `domain/checks.py`. Derived from those, with no
    edit: the columns the filing reads (`Rules.columns`, `services.filing.filing_facts.RULE_COLUMNS`),
    the rules read from a jurisdiction (`Rules.of`, `rules_of`), the finding's severity, words,
    basis and rule statement, the city's table of rules. Outside Python, three more the tests
    hold to the table: the jurisdictions column with its migration, openapi.yaml's
    `FindingCode`, the portal's words (`portal/js/i18n.js`, which `auditor.js` follows)."""
    extended, fog_too_deep = max_fog_rule
    assert extended.columns() == (*Rules.columns(), "max_fog_depth_in")
    city = SimpleNamespace(**{name: getattr(preset_rules("victorville"), name) for name in Rules.columns()})
    rules = extended.of(SimpleNamespace(**vars(city), max_fog_depth_in=3.3))
    assert rules.max_fog_depth_in == Decimal("3.3")  # typed as a decimal, read back as that decimal
    load = checks.Load(
        service_started_at=datetime(2026, 6, 1, 9, tzinfo=UTC),
        service_completed_at=datetime(2026, 6, 1, 10, tzinfo=UTC),
        waste_type="grease_interceptor_waste",
        gallons_removed=1000,
        decant_returned_gallons=0,
        full_pump_down=True,
        vehicle_id="TRK-1",
        fog_depth_in=Decimal("3.31"),
    )
    [finding] = fog_too_deep(load, rules)
    assert (finding.severity, finding.basis, finding.citation) == ("violation", "exchange_policy", "exchange policy")
    assert words.finding("fog_too_deep") == "FOG deeper than allowed"
    assert words.rule_statement("fog_too_deep") == "FOG no deeper than this (inches)."
    row = next(r for r in presets.table("victorville") if r["rule"] == "max_fog_depth_in")
    assert (row["basis"], row["citation"], row["value"]) == ("exchange_policy", "exchange policy", None)
    # The spec and the portal do not know the code until they are written: the tests say where.
    assert disagreements(CODES) == {
        "openapi.yaml FindingCode enum",
        "openapi.yaml FindingCode description",
        "portal/js/i18n.js FINDINGS.en",
        "portal/js/i18n.js FINDINGS.es",
    }
