"""Each city's rules as one table (API, command line, stored rows), and every finding saying
whether its city's ordinance or exchange policy is behind it."""

import json
import re
from datetime import timedelta

import pytest
from sqlalchemy import select, text

from domain.presets import PRESETS, preset_rows
from storage import migrate
from storage.models import Jurisdiction
from tests import factories
from tests.manifest_world import NOW
from tests.ordinance_cases import CITY_NAMES, findings_of, world_in
from tests.spec import load_spec, schema_errors

CITIES = tuple(CITY_NAMES)


def test_every_city_states_each_rule_with_its_own_section_or_exchange_policy(client, session):
    """GET /v1/jurisdictions: every rule of every city, its value, its basis, and for an
    ordinance the city's own section and words; exchange policy cites no section."""
    hauler = factories.hauler(session, cities=CITIES)
    token = factories.token(client, *factories.oauth_client(session, role="hauler", subject=[hauler.id]))
    listed = client.get("/v1/jurisdictions", headers=factories.bearer(token))
    assert listed.status_code == 200
    spec = load_spec()
    schema = spec["paths"]["/v1/jurisdictions"]["get"]["responses"]["200"]["content"]["application/json"]["schema"]
    assert schema_errors(spec, schema, listed.json) == []
    cities = {item["code"]: item for item in listed.json["items"]}
    assert sorted(cities) == sorted(CITIES)
    for code, city in cities.items():
        assert city["time_zone"] == "America/Los_Angeles"
        rules = {row["rule"]: row for row in city["rules"]}
        assert len(rules) == 33
        for row in city["rules"]:
            assert row["citation"] == city["citations"][row["rule"]]
            if row["basis"] == "ordinance":
                assert row["citation"].startswith(CITY_NAMES[code] + " "), (code, row)
                assert row["quote"], (code, row)
                assert not any(other in row["citation"] for other in CITY_NAMES.values() if other != CITY_NAMES[code])
            else:
                assert (row["citation"], row["quote"]) == ("exchange policy", None), (code, row)
        for name, value in city["parameters"].items():
            assert rules[name]["value"] == value
        # Exchange policy in every city, whatever the texts: no ordinance says these.
        for rule in (
            "waste_type_matches_device",
            "full_pump_min_ratio",
            "hauler_registered",
            "vehicle_registered",
            "disposal_after_service",
            "disposal_confirmed",
            "ticket_reconciles",
            "plausible_service",
        ):
            assert rules[rule]["basis"] == "exchange_policy", (code, rule)
    victorville = {row["rule"]: row for row in cities["victorville"]["rules"]}
    # 10.03.170(c) keeps records "for no less than two years": the exchange keeps three.
    assert (victorville["retention_years"]["value"], victorville["retention_years"]["basis"]) == (3, "exchange_policy")
    assert victorville["manifest_deadline_hours"]["quote"].endswith(
        "not later than seventy-two hours after GCDs are serviced."
    )
    assert victorville["allowed_frequencies"]["value"] == [30, 60, 90, 120, 180]
    assert all(
        city["parameters"]["allowed_frequencies"] == [] for code, city in cities.items() if code != "victorville"
    )
    assert [code for code, city in cities.items() if city["parameters"]["min_outlet_clearance_in"]] == ["san-clemente"]


def test_a_preset_cites_only_its_own_city():
    for code, preset in PRESETS.items():
        for rule, source in preset["sources"].items():
            assert source.citation.startswith(CITY_NAMES[code] + " "), (code, rule)
            assert source.quote and '"' not in source.quote


def test_the_command_line_shows_the_same_table(app):
    output = app.test_cli_runner().invoke(args=["jurisdictions", "presets"]).output
    tracy = output[output.index("tracy: City of Tracy") :]
    assert (
        "  interceptor_max_interval_months = 6  [ordinance: Tracy 5.26 interceptor maintenance (e)(2)]\n"
        '      "All FSEs with a grease interceptor shall maintain their grease interceptor not less than every '
        'six (6) months."\n' in tracy
    )
    assert "  manifest_deadline_hours = 72  [exchange policy]\n  retention_years" in tracy


def test_a_finding_says_its_basis_in_the_receipt_and_in_the_audit(client, session, frozen_clock):
    world = world_in(client, session, frozen_clock, "victorville")
    receipt = world.post(world.body(completed=NOW - timedelta(hours=73), vehicle_id="NOT-OURS"))
    spec = load_spec()
    assert schema_errors(spec, {"$ref": "#/components/schemas/Receipt"}, receipt.json) == []
    assert {f["code"]: f["basis"] for f in receipt.json["findings"]} == {
        "late_submission": "ordinance",
        "vehicle_unregistered": "exchange_policy",
    }
    auditor = factories.token(client, *factories.oauth_client(session, role="auditor", subject=["victorville"]))
    listed = client.get("/v1/audit/findings", headers=factories.bearer(auditor))
    schema = spec["paths"]["/v1/audit/findings"]["get"]["responses"]["200"]["content"]["application/json"]["schema"]
    assert schema_errors(spec, schema, listed.json) == []
    assert {(f["code"], f["basis"], f["citation"]) for f in listed.json["items"]} == {
        ("late_submission", "ordinance", "Victorville 10.03.170(b)"),
        ("vehicle_unregistered", "exchange_policy", "exchange policy"),
    }
    csv = client.get("/v1/audit/findings", query_string={"format": "csv"}, headers=factories.bearer(auditor))
    assert "exchange_policy" in csv.get_data(as_text=True)


def test_cities_created_from_the_earlier_presets_are_brought_to_their_ordinances(app, session):
    """Migration 0013: rows made before it (Victorville's list of frequencies everywhere, Tracy
    citing Victorville, two years of records in Victorville) read as the table says."""
    for code in CITIES:
        factories.jurisdiction(session, code)
    session.close()
    engine = app.extensions["fogx.engine"]
    engine.dispose()
    migrate.downgrade(engine, "0012")
    old = {
        "manifest_deadline_hours": "Victorville 10.03.170(b), program default",
        "allowed_frequencies": "Victorville 10.03.160(b), program default",
    }
    with engine.begin() as connection:
        connection.execute(
            text(
                "UPDATE jurisdictions SET citations = :old, allowed_frequencies = :days, "
                "trap_default_frequency_days = 30"
            ),
            {"old": json.dumps(old), "days": json.dumps([30, 60, 90, 120, 180])},
        )
        connection.execute(text("UPDATE jurisdictions SET retention_years = 2 WHERE code = 'victorville'"))
    migrate.upgrade(engine)
    engine.dispose()
    expected = {row["code"]: row for row in preset_rows()}
    for row in session.scalars(select(Jurisdiction)):
        preset = expected[row.code]
        assert row.citations == preset["citations"], row.code
        for name in (
            "allowed_frequencies",
            "trap_default_frequency_days",
            "retention_years",
            "min_outlet_clearance_in",
            "interceptor_max_interval_days",
            "interceptor_max_interval_months",
            "interceptor_default_frequency_days",
        ):
            assert getattr(row, name) == preset[name], (row.code, name)


def test_no_source_file_speaks_of_a_design_document():
    """The project cites its own files and the ordinances, nothing else."""
    from api.config import ROOT

    mentions = [
        str(path.relative_to(ROOT))
        for path in ROOT.rglob("*")
        if path.is_file()
        and path.suffix in {".py", ".md", ".yaml", ".html", ".js"}
        and ".venv" not in path.parts
        and "instance" not in path.parts
        and re.search(r"DESIGN\.md", path.read_text(errors="ignore"))
    ]
    assert mentions == [], mentions


# Each city's words for holding a device to its frequency: (interceptor set, interceptor default,
# trap set, trap default; the default's days).
FREQUENCY_CLAUSES = {
    # "may contain ... (3) Grease interceptor maintenance schedule"; a trap's daily removal is the
    # kitchen's own cleaning (its maintenance log), so a hauler's trap frequency is exchange policy.
    "placentia": (
        "Placentia 16.24 FOG Wastewater Discharge Permits (c)(3)",
        "exchange policy",
        "exchange policy",
        "exchange policy",
        90,
        30,
    ),
    # 15A-16(D) "consistent with the maintenance frequency approved"; (C)(3) "quarterly"; traps B
    # "daily removal" is the kitchen's own, as in Placentia.
    "colusa": ("Colusa 15A-16(D)", "Colusa 15A-16(C)(3)", "exchange policy", "exchange policy", 90, 30),
    # 13.30.050(H)(1)(b) "clean and pump required Grease Control Devices on a specified schedule".
    "san-clemente": (
        "San Clemente 13.30.050(H)(1)(b)",
        "exchange policy",
        "San Clemente 13.30.050(H)(1)(b)",
        "exchange policy",
        90,
        30,
    ),
    # 10.03.160(c) "consistent with a maintenance frequency approved"; (f)(2) "every ninety days";
    # (g)(1) "grease traps shall be serviced every thirty days".
    "victorville": (
        "Victorville 10.03.160(c)",
        "Victorville 10.03.160(f)(2)",
        "Victorville 10.03.160(g)(1)",
        "Victorville 10.03.160(g)(1)",
        90,
        30,
    ),
    # interceptor maintenance (b) "consistent with a maintenance frequency approved"; (e)(3) "quarterly".
    "tracy": (
        "Tracy 5.26 interceptor maintenance (b)",
        "Tracy 5.26 interceptor maintenance (e)(3)",
        "exchange policy",
        "exchange policy",
        90,
        30,
    ),
}


@pytest.mark.parametrize("city", CITIES)
def test_each_city_holds_a_device_to_its_frequency_in_its_own_words(client, session, frozen_clock, city):
    """A device serviced a day later than its frequency answers to the city's clause for that
    kind of device, and for a frequency the city's default gave it, to the default's clause;
    where the city is silent, to exchange policy."""
    from tests.ordinance_cases import admin_of, register_device, trap_body

    set_interceptor, default_interceptor, set_trap, default_trap, interceptor_days, trap_days = FREQUENCY_CLAUSES[city]
    world = world_in(client, session, frozen_clock, city)
    admin = admin_of(client, session, city)
    devices = {
        "GI-2": ({"frequency_days": 60}, 60, set_interceptor),
        "GI-3": ({}, interceptor_days, default_interceptor),
        "GT-2": ({"kind": "trap", "capacity_gallons": 50, "liquid_depth_in": 12, "frequency_days": 30}, 30, set_trap),
        "GT-3": ({"kind": "trap", "capacity_gallons": 50, "liquid_depth_in": 12}, trap_days, default_trap),
    }
    for tag, (fields, days, citation) in devices.items():
        created = register_device(client, admin, world, tag=tag, **fields)
        assert created.status_code == 201, created.json
        assert created.json["frequency_days"] == days
        filed = world.body if tag.startswith("GI") else (lambda **kw: trap_body(world, tag, kw.pop("completed"), **kw))
        # A quarter (three calendar months) from 28 February ends on 28 May: 1 June is past it.
        gap = 93 if created.json["frequency_months"] == 3 else days + 1
        world.post(filed(device_tag=tag, completed=NOW - timedelta(days=gap, hours=2), disposal=None))
        finding = findings_of(world.post(filed(device_tag=tag, completed=NOW - timedelta(hours=2))))[
            "service_interval_exceeded"
        ]
        assert finding["citation"] == citation, tag
        assert finding["basis"] == ("exchange_policy" if citation == "exchange policy" else "ordinance")


# Each city's prohibition on discharging what was removed from a grease control device.
DECANT = {
    "placentia": "Placentia 16.24 General Limitations (b)(8)",  # "No waste removed from a grease control device may be discharged to the sewer system."
    "colusa": "Colusa 15A Art. II prohibitions F",  # "Discharging a FOG and solid materials removed from a grease control device to the public sewer."
    "san-clemente": "San Clemente 13.30.040(C)(4)",  # "discharge any waste ... removed from a Grease Control Device to the Sewer Lateral"
    "victorville": "Victorville 10.03.260(a)",  # "Discharging any waste, including FOG and solid materials removed from GCDs into the sewer system is prohibited"
    "tracy": "Tracy 5.26 prohibitions (f)",  # "Discharge of any waste including FOG and solid materials removed from a grease control device to the public sewer is prohibited."
}


@pytest.mark.parametrize("city", CITIES)
def test_returned_decant_answers_to_each_citys_prohibition(client, session, frozen_clock, city):
    """Decant returned to the device goes on to the sewer: each of the five forbids discharging
    what was removed from a grease control device."""
    world = world_in(client, session, frozen_clock, city)
    assert (
        findings_of(world.post(world.body(decant_returned_gallons=200)))["decant_returned"]["citation"]
        == (DECANT[city])
    )


def test_the_documented_tables_are_the_rules_and_name_tests_that_exist():
    """docs/ordinances.md: each city's table says what `domain.presets` says, and each rule
    names a test that exists."""
    from api.config import ROOT
    from domain.presets import table

    document = (ROOT / "docs" / "ordinances.md").read_text()
    sections = dict(re.findall(r"^## (City of [^\n]+)\n\n((?:\|[^\n]*\n)+)", document, re.M))
    for code, preset in PRESETS.items():
        lines = sections[preset["name"]].splitlines()[2:]
        rows = table(code)
        assert len(lines) == len(rows), code
        for line, row in zip(lines, rows):
            cells = [cell.strip() for cell in line.strip("|").split(" | ")]
            assert cells[0].startswith(f"`{row['rule']}`:"), (code, cells[0])
            assert cells[2] == ("ordinance" if row["basis"] == "ordinance" else "exchange policy"), (code, row["rule"])
            if row["basis"] == "ordinance":
                assert (cells[3], cells[4]) == (row["citation"], f'"{row["quote"]}"'), (code, row["rule"])
            named_tests = re.findall(r"`([\w.]+)::(\w+)`", cells[5])
            assert named_tests, (code, row["rule"])
            for named in named_tests:
                source = (ROOT / "tests" / named[0]).read_text()
                assert f"def {named[1]}(" in source, named


# Each city's words on where removed grease goes: both speak of interceptors alone.
INTERCEPTOR_DISPOSAL = {
    # 15A-16(G): "materials removed from the grease interceptor shall be disposed of by waste
    # haulers at an approved disposal site".
    "colusa": "Colusa 15A-16(G)",
    # Prohibitions (f): "Grease removed from grease interceptors shall be transported to an
    # approved disposal or recycling facility."
    "tracy": "Tracy 5.26 prohibitions (f)",
}


@pytest.mark.parametrize("city", CITIES)
def test_trap_waste_to_an_approved_site_is_exchange_policy(client, session, frozen_clock, city):
    """An interceptor's load delivered to a closed site answers to the city's section where its
    text has one (INTERCEPTOR_DISPOSAL); a trap's load to the same site answers to exchange
    policy, as those sections speak of grease interceptor waste only."""
    from tests.ordinance_cases import admin_of, register_device, trap_body

    world = world_in(client, session, frozen_clock, city)
    register_device(
        client,
        admin_of(client, session, city),
        world,
        tag="GT-1",
        kind="trap",
        capacity_gallons=50,
        liquid_depth_in=12,
        frequency_days=30,
    )
    closed = str(factories.disposal_site(session, cities=(city,), status="closed").id)
    interceptor = world.body()
    interceptor["disposal"]["site_id"] = closed
    trap = trap_body(world, "GT-1", NOW - timedelta(days=3))
    trap["disposal"]["site_id"] = closed
    found = findings_of(world.post(interceptor))["disposal_site_unapproved"]
    assert found["citation"] == INTERCEPTOR_DISPOSAL.get(city, "exchange policy")
    trapped = findings_of(world.post(trap))["disposal_site_unapproved"]
    assert (trapped["basis"], trapped["citation"]) == ("exchange_policy", "exchange policy")
