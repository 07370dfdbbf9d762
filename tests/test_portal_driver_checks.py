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
