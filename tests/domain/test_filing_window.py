"""The filing deadline, the permit in force and the disposal record, each judged at its edge and
on California's evening (a local day, not a UTC one)."""

from datetime import date, timedelta

import pytest

from domain import checks
from domain.registry import Dated
from tests.domain.cities import codes, load, pacific, permit, rules

SERVED = pacific(2026, 6, 1, 10)


def test_a_manifest_received_exactly_72_hours_after_service_is_in_time_and_a_second_later_is_late():
    """Victorville 10.03.170(b): "copies of all service manifests ... not later than
    seventy-two hours after GCDs are serviced"."""
    city = rules("victorville")
    assert checks.late_submission(load(SERVED), city, SERVED + timedelta(hours=72)) == []
    [late] = checks.late_submission(load(SERVED), city, SERVED + timedelta(hours=72, seconds=1))
    assert (late.code, late.citation, late.basis) == ("late_submission", "Victorville 10.03.170(b)", "ordinance")
    assert late.severity == "violation" and "72.0 h after service; the deadline is 72 h" in late.message


@pytest.mark.parametrize("code", ["placentia", "colusa", "san-clemente", "tracy"])
def test_where_the_ordinance_sets_no_deadline_the_exchanges_72_hours_is_cited_as_policy(code):
    [late] = checks.late_submission(load(SERVED), rules(code), SERVED + timedelta(hours=73))
    assert (late.citation, late.basis) == ("exchange policy", "exchange_policy")


def test_a_city_that_changes_its_deadline_is_judged_by_its_own_value():
    city = rules("placentia", manifest_deadline_hours=24)
    assert checks.late_submission(load(SERVED), city, SERVED + timedelta(hours=24)) == []
    assert codes(checks.late_submission(load(SERVED), city, SERVED + timedelta(hours=25))) == ["late_submission"]


def test_a_permit_valid_through_june_30_covers_a_service_at_2330_pacific_that_day_and_not_0030_the_next():
    """Victorville 10.03.050(a): "All FSE operators shall obtain a FOG permit"; the day is the
    city's: 23:30 Pacific on June 30 is 06:30 UTC on July 1."""
    city, through_june = rules("victorville"), permit(expires=date(2026, 6, 30))
    evening = pacific(2026, 6, 30, 23, 30)
    assert evening.date() == date(2026, 7, 1)  # the UTC day would have judged it expired
    assert checks.permit_not_active(load(evening), through_june, city) == []
    [expired] = checks.permit_not_active(load(pacific(2026, 7, 1, 0, 30)), through_june, city)
    assert expired.citation == "Victorville 10.03.050(a)"
    assert expired.message == "Permit FOG-1 was expired on 2026-07-01."


def test_a_permit_is_not_in_force_before_its_issue_day_nor_while_suspended():
    """San Clemente 13.30.050(A): each operator "shall be required to apply for and obtain a City
    Discharge Permit"."""
    city = rules("san-clemente")
    issued_june = permit(issued=date(2026, 6, 2))
    [early] = checks.permit_not_active(load(pacific(2026, 6, 1, 23, 59)), issued_june, city)
    assert early.message.endswith("was not issued on 2026-06-01.") and early.citation == "San Clemente 13.30.050(A)"
    assert checks.permit_not_active(load(pacific(2026, 6, 2, 0, 1)), issued_june, city) == []
    suspended = permit(changes=[Dated(date(2026, 5, 1), "suspended"), Dated(date(2026, 6, 1), "active")])
    assert codes(checks.permit_not_active(load(pacific(2026, 5, 31, 23, 30)), suspended, city)) == ["permit_not_active"]
    assert checks.permit_not_active(load(pacific(2026, 6, 1, 0, 30)), suspended, city) == []


def test_no_disposal_record_counts_only_once_the_deadline_has_passed():
    """Exchange policy: a disposal record within the manifest deadline."""
    city = rules("victorville")
    assert checks.disposal_unconfirmed(load(SERVED), city, SERVED + timedelta(hours=72)) == []
    [missing] = checks.disposal_unconfirmed(load(SERVED), city, SERVED + timedelta(hours=72, seconds=1))
    assert (missing.code, missing.citation, missing.severity) == ("disposal_unconfirmed", "exchange policy", "warning")
    recorded = load(SERVED, disposal_site_id="site", disposal_delivered_at=SERVED + timedelta(hours=2))
    assert checks.disposal_unconfirmed(recorded, city, SERVED + timedelta(days=30)) == []
