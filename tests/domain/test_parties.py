"""The hauler, its truck, the disposal site and the ticket, each judged on the city's local day."""

from datetime import date, timedelta

import pytest

from domain import checks
from tests.domain.cities import CITY, OTHER_CITY, codes, hauler, load, pacific, rules, site

SERVED = pacific(2026, 6, 1, 10)


def test_a_licence_through_june_30_covers_a_service_at_2330_pacific_that_day_and_not_the_next_morning():
    """San Clemente 13.30.040(C)(5): grease "periodically hauled by a licensed hauler"."""
    city, licensed = rules("san-clemente"), hauler(licence_expires=date(2026, 6, 30))
    assert checks.hauler_licence_invalid(load(pacific(2026, 6, 30, 23, 30)), licensed, CITY, city) == []
    [finding] = checks.hauler_licence_invalid(load(pacific(2026, 7, 1, 0, 30)), licensed, CITY, city)
    assert (finding.code, finding.citation) == ("hauler_licence_invalid", "San Clemente 13.30.040(C)(5)")
    assert finding.message == "The hauler's licence was not valid on 2026-07-01."


@pytest.mark.parametrize(
    ("code", "section"), [("victorville", "Victorville 10.03.160(b)"), ("tracy", "exchange policy")]
)
def test_the_licence_cites_the_citys_own_section_or_policy(code, section):
    """Victorville 10.03.160(b): "Each permittee shall be required to contract with a licensed
    waste hauler"; Tracy's text says nothing of the hauler's licence."""
    [finding] = checks.hauler_licence_invalid(
        load(SERVED), hauler(licence_expires=date(2026, 5, 31)), CITY, rules(code)
    )
    assert finding.citation == section


def test_a_hauler_not_registered_in_the_city_on_the_service_day_is_refused_as_policy():
    city = rules("victorville")
    ended = hauler(ended=date(2026, 6, 1))  # registered through June 1, inclusive
    assert checks.hauler_licence_invalid(load(pacific(2026, 6, 1, 23, 30)), ended, CITY, city) == []
    [finding] = checks.hauler_licence_invalid(load(pacific(2026, 6, 2, 0, 30)), ended, CITY, city)
    assert (
        finding.citation == "exchange policy" and "not registered in this jurisdiction on 2026-06-02" in finding.message
    )
    assert codes(checks.hauler_licence_invalid(load(SERVED), hauler(), OTHER_CITY, city)) == ["hauler_licence_invalid"]


def test_a_load_that_fills_the_tank_fits_and_one_gallon_more_does_not():
    city, tank = rules("victorville"), hauler(tank=2500)
    assert checks.vehicle_unregistered(load(SERVED, gallons_removed=2500), tank, city) == []
    [over] = checks.vehicle_unregistered(load(SERVED, gallons_removed=2501), tank, city)
    assert (over.code, over.citation) == ("vehicle_unregistered", "exchange policy")
    assert over.message == "2501 gallons exceed vehicle TRK-1's 2500-gallon tank."
    [unknown] = checks.vehicle_unregistered(load(SERVED, vehicle_id="TRK-9"), tank, city)
    assert unknown.message == "Vehicle TRK-9 is not registered to the hauler."


def _delivered(at, **kwargs):
    return load(SERVED, disposal_site_id="site", disposal_delivered_at=at, **kwargs)


def test_a_site_approved_through_june_30_takes_a_load_at_2330_pacific_and_not_at_0030():
    """Colusa 15A-16(G): "materials removed from the grease interceptor shall be disposed of by
    waste haulers at an approved disposal site"."""
    city, through_june = rules("colusa"), site(approved_until=date(2026, 6, 30))
    assert checks.disposal_checks(_delivered(pacific(2026, 6, 30, 23, 30)), through_june, CITY, city) == []
    [finding] = checks.disposal_checks(_delivered(pacific(2026, 7, 1, 0, 30)), through_june, CITY, city)
    assert (finding.code, finding.citation) == ("disposal_site_unapproved", "Colusa 15A-16(G)")
    assert finding.message == "The disposal site was not approved on 2026-07-01."


def test_trap_waste_at_an_unapproved_site_is_exchange_policy_as_the_sections_speak_of_interceptors():
    """Tracy 5.26 prohibitions (f): "Grease removed from grease interceptors shall be transported
    to an approved disposal or recycling facility" (interceptors only)."""
    trap_waste = _delivered(SERVED + timedelta(hours=1), waste_type="grease_trap_waste")
    [finding] = checks.disposal_checks(trap_waste, None, CITY, rules("tracy"))
    assert (finding.message, finding.citation) == ("The disposal site is unknown.", "exchange policy")
    [interceptor] = checks.disposal_checks(_delivered(SERVED + timedelta(hours=1)), None, CITY, rules("tracy"))
    assert interceptor.citation == "Tracy 5.26 prohibitions (f)"


def test_a_site_must_take_the_waste_and_be_approved_for_the_city():
    city, grease_only = rules("victorville"), site(waste_types=("grease_interceptor_waste",))
    trap_waste = _delivered(SERVED + timedelta(hours=1), waste_type="grease_trap_waste")
    [finding] = checks.disposal_checks(trap_waste, grease_only, CITY, city)
    assert finding.message == "The disposal site does not accept grease_trap_waste."
    [elsewhere] = checks.disposal_checks(_delivered(SERVED + timedelta(hours=1)), site(), OTHER_CITY, city)
    assert elsewhere.message == "The disposal site is not approved for this jurisdiction."


def test_a_load_delivered_before_the_service_ended_is_flagged_and_one_delivered_as_it_ended_is_not():
    city = rules("victorville")
    assert checks.disposal_checks(_delivered(SERVED), site(), CITY, city) == []
    [finding] = checks.disposal_checks(_delivered(SERVED - timedelta(seconds=1)), site(), CITY, city)
    assert (finding.code, finding.severity) == ("disposal_before_service", "warning")


def test_the_manifests_on_one_ticket_may_remove_what_it_delivered_and_not_a_gallon_more():
    """Exchange policy: the loads on one disposal ticket cannot exceed what the ticket delivered."""
    city = rules("victorville")
    two = [load(SERVED, gallons_removed=600), load(SERVED, gallons_removed=400)]
    assert checks.load_shortfall(two, 1000, city) == []
    [finding] = checks.load_shortfall(two, 999, city)
    assert finding.message == "The 2 manifest(s) on this ticket removed 1000 gallons; the ticket delivered 999."
    assert checks.load_shortfall(two, None, city) == []
