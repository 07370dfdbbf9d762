"""Every check of one revision at once (`checks.check`): a clean pump-out raises nothing, and a
load wrong in every way raises each finding once, in the order of the table of codes."""

from datetime import date, timedelta
from decimal import Decimal

from domain import checks
from domain.facts import CODES
from tests.domain.cities import CITY, codes, device, hauler, load, pacific, permit, rules, site

SERVED = pacific(2026, 6, 1, 10)


def _check(this, **facts):
    given = dict(
        load=this,
        received_at=SERVED + timedelta(hours=1),
        now=SERVED + timedelta(hours=1),
        rules=rules("san-clemente"),
        jurisdiction_id=CITY,
        device=device(),
        permit=permit(),
        hauler=hauler(),
        site=site(),
        device_loads=[],
        ticket_loads=[],
        previous_qualifying=SERVED - timedelta(days=80),
    )
    given.update(facts)
    return checks.check(**given)


def test_a_clean_pump_out_raises_nothing_and_qualifies():
    clean = load(
        SERVED,
        disposal_site_id="site",
        disposal_ticket_number="T-1",
        disposal_delivered_at=SERVED + timedelta(hours=1),
        disposal_gallons_delivered=1000,
        fog_depth_in=Decimal("6"),
        solids_depth_in=Decimal("6"),
        outlet_clearance_in=Decimal("10"),
    )
    findings = _check(clean)
    assert findings == [] and checks.is_qualifying(codes(findings))


def test_a_load_wrong_in_every_way_raises_each_finding_in_the_order_of_the_table():
    earlier = load(SERVED, manifest_id="01")
    wrong = load(
        SERVED,
        manifest_id="02",
        waste_type="grease_trap_waste",
        gallons_removed=2600,
        decant_returned_gallons=5,
        full_pump_down=False,
        fog_depth_in=Decimal("10"),
        solids_depth_in=Decimal("10"),
        outlet_clearance_in=Decimal("1"),
        disposal_site_id="site",
        disposal_ticket_number="T-1",
        disposal_delivered_at=SERVED - timedelta(minutes=5),
        disposal_gallons_delivered=100,
    )
    findings = _check(
        wrong,
        received_at=SERVED + timedelta(days=4),
        now=SERVED + timedelta(days=4),
        permit=permit(expires=date(2026, 5, 31)),
        hauler=hauler(licence_expires=date(2026, 5, 31)),
        site=site(approved_until=date(2026, 5, 1), waste_types=("grease_interceptor_waste",)),
        device_loads=[earlier],
        previous_qualifying=SERVED - timedelta(days=200),
    )
    found = codes(findings)
    expected = [code for code in CODES if code != "disposal_unconfirmed"]  # a disposal is on record
    assert found == expected
    assert not checks.is_qualifying(found)
    # Each cites San Clemente's own section or says exchange policy: never another city's.
    assert all(f.citation == "exchange policy" or f.citation.startswith("San Clemente ") for f in findings)
