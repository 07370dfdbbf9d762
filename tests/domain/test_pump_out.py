"""What a pump-out must be: full, nothing returned, the 25% rule, the outlet's clearance, the
right waste, judged in exact decimals so that a value at a limit is at it."""

from datetime import timedelta
from decimal import Decimal

import pytest

from domain import checks
from tests.domain.cities import codes, device, load, pacific, rules

SERVED = pacific(2026, 6, 1, 10)
QUARTER = {
    "placentia": "Placentia 16.24 General Limitations (b)(9)",
    "colusa": "Colusa 15A-16(C)(1)",
    "san-clemente": "San Clemente 13.30.040(C)(6)",
    "victorville": "Victorville 10.03.160(f)(1)",
    "tracy": "Tracy 5.26 prohibitions (g)",
}


@pytest.mark.parametrize("code", sorted(QUARTER))
def test_fog_and_solids_at_exactly_a_quarter_of_the_depth_pass_and_a_hundredth_more_exceeds(code):
    """Victorville 10.03.160(f)(1): "the combined FOG and solids accumulation does not exceed
    twenty-five percent of the total design hydraulic depth" (each city its own section): 8.3 +
    4.3 in of a 50.4-in depth is 25% exactly, not a binary fraction over it."""
    city, interceptor = rules(code), device(depth="50.4")
    at = load(SERVED, fog_depth_in=Decimal("8.3"), solids_depth_in=Decimal("4.3"))
    assert checks.twenty_five_percent_exceeded(at, interceptor, city) == []
    # A float typed by a caller reads as written, too.
    assert (
        checks.twenty_five_percent_exceeded(load(SERVED, fog_depth_in=8.3, solids_depth_in=4.3), interceptor, city)
        == []
    )
    over = load(SERVED, fog_depth_in=Decimal("8.3"), solids_depth_in=Decimal("4.31"))
    [finding] = checks.twenty_five_percent_exceeded(over, interceptor, city)
    assert (finding.code, finding.citation, finding.basis) == (
        "twenty_five_percent_exceeded",
        QUARTER[code],
        "ordinance",
    )
    assert finding.message.startswith("FOG and solids measured 12.61 in, 25.0% of the 50.4-in design depth")


def test_the_25_percent_rule_judges_interceptors_only_and_only_what_was_measured():
    city, deep = rules("victorville"), load(SERVED, fog_depth_in=Decimal(30), solids_depth_in=Decimal(30))
    assert checks.twenty_five_percent_exceeded(deep, device("trap", depth="10"), city) == []
    assert checks.twenty_five_percent_exceeded(load(SERVED, fog_depth_in=Decimal(30)), device(), city) == []


def test_a_service_that_removed_nine_tenths_of_the_capacity_is_full_and_one_gallon_less_is_partial():
    """San Clemente 13.30.040(C)(9): a grease interceptor "that fails to fully pump down the
    contents"; how much is "fully" is the exchange's 0.9 of the capacity (exchange policy)."""
    city, interceptor = rules("san-clemente"), device(capacity=1000)
    assert checks.partial_pump_down([load(SERVED, gallons_removed=900)], interceptor, city) == []
    [short] = checks.partial_pump_down([load(SERVED, gallons_removed=899)], interceptor, city)
    assert (short.code, short.citation) == ("partial_pump_down", "exchange policy")
    assert "899 gallons removed is under 90% of the 1000-gallon capacity" in short.message


@pytest.mark.parametrize(
    ("code", "section"),
    [
        ("san-clemente", "San Clemente 13.30.040(C)(9)"),
        ("colusa", "Colusa 15A-16(A)"),
        ("tracy", "Tracy 5.26 interceptor maintenance (a)"),
        ("victorville", "Victorville 10.03.160(f)(1)"),
        ("placentia", "exchange policy"),
    ],
)
def test_a_pump_down_not_attested_cites_the_citys_own_full_pump_out_section(code, section):
    """Colusa 15A-16(A): "periodic removal of the full content of the interceptor"; Tracy 5.26
    interceptor maintenance (a) likewise; Placentia's text has no such sentence."""
    [finding] = checks.partial_pump_down([load(SERVED, full_pump_down=False)], device(), rules(code))
    assert finding.citation == section and "not attested" in finding.message


def test_a_traps_pump_down_not_attested_is_exchange_policy_everywhere():
    trap = device("trap", capacity=50)
    [finding] = checks.partial_pump_down([load(SERVED, gallons_removed=50, full_pump_down=False)], trap, rules("tracy"))
    assert finding.citation == "exchange policy"


def test_the_truckloads_of_one_service_add_up_and_one_attestation_attests_the_service():
    """A 3,000-gallon interceptor takes two trucks: each load alone is short, together full."""
    city, big = rules("victorville"), device(capacity=3000)
    first = load(SERVED, gallons_removed=1500, full_pump_down=False, vehicle_id="TRK-1")
    second = load(SERVED + timedelta(hours=2), gallons_removed=1200, full_pump_down=True, vehicle_id="TRK-2")
    assert checks.partial_pump_down([first, second], big, city) == []
    [short] = checks.partial_pump_down([first, load(SERVED + timedelta(hours=2), gallons_removed=1199)], big, city)
    assert "2699 gallons removed over 2 loads is under 90%" in short.message


def test_the_loads_of_one_service_are_those_completed_within_24_hours():
    first = load(SERVED)
    within, after = load(SERVED + timedelta(hours=24)), load(SERVED + timedelta(hours=24, seconds=1))
    assert checks.same_service(first, [within, after]) == [first, within]


def test_one_gallon_returned_to_the_device_is_decant_and_return():
    """Tracy 5.26 prohibitions (f): "Discharge of any waste including FOG and solid materials
    removed from a grease control device to the public sewer is prohibited."""
    city = rules("tracy")
    assert checks.decant_returned(load(SERVED, decant_returned_gallons=0), city) == []
    [finding] = checks.decant_returned(load(SERVED, decant_returned_gallons=1), city)
    assert (finding.code, finding.citation) == ("decant_returned", "Tracy 5.26 prohibitions (f)")
    assert (
        checks.decant_returned(load(SERVED, decant_returned_gallons=1), rules("tracy", decant_return_allowed=True))
        == []
    )


def test_grease_at_two_inches_from_the_discharge_elbow_is_within_them_and_a_hundredth_more_is_not():
    """San Clemente 13.30.040(C)(7): "sludge in any chamber that is within two (2) inches of the
    discharge elbow; under such conditions the Operator ... shall have the Grease Interceptor
    serviced immediately"."""
    city, interceptor = rules("san-clemente"), device()
    [finding] = checks.outlet_clearance(load(SERVED, outlet_clearance_in=Decimal("2")), interceptor, city)
    assert (finding.code, finding.citation) == ("outlet_clearance", "San Clemente 13.30.040(C)(7)")
    assert checks.outlet_clearance(load(SERVED, outlet_clearance_in=Decimal("2.01")), interceptor, city) == []
    # Where a city sets no clearance, and for traps, nothing is judged.
    assert checks.outlet_clearance(load(SERVED, outlet_clearance_in=Decimal("0.5")), interceptor, rules("tracy")) == []
    assert checks.outlet_clearance(load(SERVED, outlet_clearance_in=Decimal("0.5")), device("trap"), city) == []


def test_interceptor_waste_comes_from_an_interceptor_and_trap_waste_from_a_trap():
    city = rules("victorville")
    assert checks.waste_type_mismatch(load(SERVED), device(), city) == []
    [finding] = checks.waste_type_mismatch(load(SERVED), device("trap"), city)
    assert (finding.code, finding.citation, finding.severity) == ("waste_type_mismatch", "exchange policy", "warning")


def test_two_filings_of_one_service_are_implausible_and_truckloads_one_after_another_are_not():
    """Exchange policy: one truck pumps one load at a time; two filings starting and ending
    within ten minutes of each other are one service filed twice."""
    city = rules("victorville")
    first = load(SERVED, manifest_id="01")
    same_truck_overlapping = load(SERVED + timedelta(minutes=30), manifest_id="02")
    other_truck_ten_minutes = load(SERVED + timedelta(minutes=10), vehicle_id="TRK-2", manifest_id="03")
    other_truck_later = load(SERVED + timedelta(minutes=10, seconds=1), vehicle_id="TRK-2", manifest_id="04")
    next_load = load(SERVED + timedelta(hours=1), manifest_id="05")  # starts as the first ends
    for second, expected in [
        (same_truck_overlapping, ["implausible_service"]),
        (other_truck_ten_minutes, ["implausible_service"]),
        (other_truck_later, []),
        (next_load, []),
    ]:
        standing = checks.plausible([second, first])
        assert standing[0] is first
        assert codes(checks.implausible_service(second, standing, city)) == expected
        assert checks.implausible_service(first, standing, city) == []
