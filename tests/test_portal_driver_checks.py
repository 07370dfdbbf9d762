"""The phone's checks before filing flag what domain/checks.py flags of the same load, citing the
same rule, in Chromium (the app's own module, on each city's parameters as the API gives them)."""

import json
from datetime import UTC, datetime

from tests.browser import chromium  # noqa: F401
from tests.driver_phone import HOME, phone  # noqa: F401

PHONE_CHECKS = {
    "check.capacity": "vehicle_unregistered",
    "check.twentyFive": "twenty_five_percent_exceeded",
    "check.clearance": "outlet_clearance",
    "check.full": "partial_pump_down",
    "check.decant": "decant_returned",
}
INTERCEPTOR = {"kind": "interceptor", "capacity_gallons": 1000, "liquid_depth_in": 48}
TRAP = {"kind": "trap", "capacity_gallons": 50, "liquid_depth_in": 12}
FULL = {"gallons": 900, "decant": 0, "full": True, "fog": 7.2, "solids": 4.8}
CASES = [
    ("victorville", INTERCEPTOR, FULL),  # 12 in of 48 is at the quarter, 900 of 1000 at 0.9
    ("victorville", INTERCEPTOR, {**FULL, "fog": 7.21}),
    ("victorville", INTERCEPTOR, {**FULL, "gallons": 899}),
    ("victorville", INTERCEPTOR, {**FULL, "full": False}),
    ("victorville", INTERCEPTOR, {**FULL, "gallons": 3001}),
    ("victorville", INTERCEPTOR, {**FULL, "decant": 5}),
    ("victorville", INTERCEPTOR, {**FULL, "clearance": 1}),  # Victorville sets no clearance
    ("san-clemente", INTERCEPTOR, {**FULL, "clearance": 2}),
    ("san-clemente", INTERCEPTOR, {**FULL, "clearance": 2.01}),
    ("san-clemente", TRAP, {**FULL, "gallons": 44, "clearance": 1, "fog": 9, "solids": 9}),
    ("tracy", TRAP, {**FULL, "gallons": 45}),
]


def exchange_flags(city, device, values, app):
    """What domain/checks.py flags of the same load, and the rule each cites."""
    from decimal import Decimal

    from domain import checks as rules
    from services.filing.filing_facts import rules_of
    from storage.db import db
    from storage.models import Jurisdiction

    with app.app_context():
        city_rules = rules_of(db.session.query(Jurisdiction).filter_by(code=city).one())
    depth = lambda name: None if values.get(name) is None else Decimal(str(values[name]))  # noqa: E731
    now = datetime.now(UTC)
    load = rules.Load(
        service_started_at=now,
        service_completed_at=now,
        waste_type=f"grease_{device['kind']}_waste",
        gallons_removed=values["gallons"],
        decant_returned_gallons=values["decant"],
        full_pump_down=values["full"],
        vehicle_id="TRK-7",
        fog_depth_in=depth("fog"),
        solids_depth_in=depth("solids"),
        outlet_clearance_in=depth("clearance"),
    )
    facts = rules.DeviceFacts(device["kind"], device["capacity_gallons"], Decimal(device["liquid_depth_in"]), 90)
    hauler = rules.HaulerFacts(licences=(), registrations=(), vehicles={"TRK-7": 3000})
    found = [
        *rules.vehicle_unregistered(load, hauler, city_rules),
        *rules.twenty_five_percent_exceeded(load, facts, city_rules),
        *rules.outlet_clearance(load, facts, city_rules),
        *rules.partial_pump_down([load], facts, city_rules),
        *rules.decant_returned(load, city_rules),
    ]
    return sorted((f.code, f.citation) for f in found)


def test_the_phone_flags_what_the_exchange_flags_citing_the_same_rule(phone, app):
    browser, base, _, _ = phone
    browser.get(base + HOME)
    from schemas.jurisdiction import JurisdictionSchema
    from storage.db import db
    from storage.models import Jurisdiction

    with app.app_context():  # each city as /v1/jurisdictions gives it to its haulers
        cities = {
            row.code: json.loads(app.json.dumps(JurisdictionSchema().dump(row)))
            for row in db.session.query(Jurisdiction).filter(
                Jurisdiction.code.in_(["victorville", "san-clemente", "tracy"])
            )
        }
    phone_flags = browser.execute_async_script(
        "const [cases, cities, done] = arguments;"
        "import('/portal/driver/checks.js').then(({ preflight }) => done(cases.map(([city, device, values]) =>"
        " preflight({ city: cities[city], device, vehicles: [{ vehicle_id: 'TRK-7', tank: 3000 }],"
        "   values: { ...values, vehicle: 'TRK-7' } }).filter((c) => c.state === 'flag').map((c) => [c.key, c.citation]))),"
        " (error) => done(String(error)))",
        [list(case) for case in CASES],
        cities,
    )
    for (city, device, values), flagged in zip(CASES, phone_flags, strict=True):
        mine = sorted((PHONE_CHECKS[key], citation) for key, citation in flagged)
        assert mine == exchange_flags(city, device, values, app), (city, device, values)
    assert any(flagged for flagged in phone_flags) and not phone_flags[0]


# What the phone tells beside a field before filing, and what the manifest's schema refuses of
# the same body (schemas/manifest.py: gallons are integers; a service lasts at most 48 hours and
# ends no earlier than it starts; a disposal record names its ticket, delivery time and gallons).
COMPLETED = "2026-07-04T23:30:00-07:00"  # a service completed at 23:30 Pacific
FIELD_CASES = [
    ({"started": "2026-07-02T23:30:00-07:00"}, []),  # exactly 48 hours
    ({"started": "2026-07-02T23:29:00-07:00"}, ["started"]),  # a minute more
    ({"started": COMPLETED}, []),  # no time at all
    ({"started": "2026-07-04T23:31:00-07:00"}, ["started"]),  # a minute after it was completed
    ({"gallons": "900.5"}, ["gallons"]),
    ({"decant": "0.1"}, ["decant"]),
    ({"site": True}, []),
    ({"site": True, "ticket": ""}, ["ticket"]),
    ({"site": True, "delivered": ""}, ["delivered"]),
    ({"site": True, "delivered-gallons": ""}, ["delivered-gallons"]),
    ({"site": True, "delivered-gallons": "900.25"}, ["delivered-gallons"]),
]
SCHEMA_FIELDS = {
    "service_completed_at": "started",
    "gallons_removed": "gallons",
    "decant_returned_gallons": "decant",
    "disposal.ticket_number": "ticket",
    "disposal.delivered_at": "delivered",
    "disposal.gallons_delivered": "delivered-gallons",
}


def schema_refuses(case):
    """The fields the manifest's schema refuses of the body with the case's values."""
    from marshmallow import ValidationError

    from schemas.manifest import ManifestIn

    number = lambda text: json.loads(text) if text else None  # noqa: E731  a JSON number, as the phone sends it
    values = {"gallons": "900", "decant": "0", "ticket": "T-1", "delivered": COMPLETED, "delivered-gallons": "900"}
    values.update(case)
    body = {
        "manifest_number": "D-1",
        "permit_number": "VV-FOG-0001",
        "device_tag": "GI-1",
        "vehicle_id": "TRK-7",
        "driver_name": "Sam",
        "service_started_at": values.get("started", COMPLETED),
        "service_completed_at": COMPLETED,
        "waste_type": "grease_interceptor_waste",
        "gallons_removed": number(values["gallons"]),
        "decant_returned_gallons": number(values["decant"]),
        "full_pump_down": True,
        "fse_signer_name": "Ana",
    }
    if values.get("site"):
        body["disposal"] = {
            "site_id": "01a24516-eda0-eaee-fb36-bbe461673c2a",
            "ticket_number": values["ticket"],
            "delivered_at": values["delivered"] or None,
            "gallons_delivered": number(values["delivered-gallons"]),
        }
    try:
        ManifestIn().load(body)
    except ValidationError as error:
        flat = {}
        for name, messages in error.messages.items():
            if isinstance(messages, dict):
                flat.update({f"{name}.{inner}": m for inner, m in messages.items()})
            else:
                flat[name] = messages
        return sorted(SCHEMA_FIELDS[name] for name in flat)
    return []


def test_the_phone_tells_beside_a_field_what_the_schema_would_refuse(phone):
    browser, base, _, _ = phone
    browser.get(base + HOME)
    told = browser.execute_async_script(
        "const [cases, completed, done] = arguments;"
        "import('/portal/driver/checks.js').then(({ fieldProblems }) => done(cases.map((c) => {"
        " const values = { gallons: '900', decant: '0', site: '', ticket: 'T-1', delivered: 'x',"
        "  'delivered-gallons': '900', ...c, site: c.site ? 'a-site' : '' };"
        " const at = (text) => new Date(text).getTime();"
        " return fieldProblems({ values, started: at(c.started || completed), completed: at(completed),"
        "  completedWords: 'then' }).map(([key]) => key).sort(); })), (error) => done(String(error)))",
        [case for case, _ in FIELD_CASES],
        COMPLETED,
    )
    for (case, expected), phone_told in zip(FIELD_CASES, told, strict=True):
        assert phone_told == expected, (case, phone_told)
        assert schema_refuses(case) == expected, case
