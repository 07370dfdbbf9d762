"""A permit's term, the frequencies a city allows, a change's notice, and the frequency the
measured depths support."""

from datetime import date
from decimal import Decimal

import pytest

from domain import device_rules, frequency, permit_rules
from tests.domain.cities import citations, city, parameters


def _term(code):
    return parameters(code)["permit_term"], citations(code)["permit_term"]


def test_a_victorville_permit_runs_one_year_and_a_day_longer_is_refused():
    """Victorville 10.03.080(a): "The FOG permit shall be issued for a one-year period"."""
    term, cited = _term("victorville")
    issued = date(2026, 1, 1)
    assert (
        permit_rules.term_exceeded(issued_on=issued, expires_on=date(2026, 12, 31), term=term, citation=cited) is None
    )
    longer, why = permit_rules.term_exceeded(issued_on=issued, expires_on=date(2027, 1, 1), term=term, citation=cited)
    assert longer == "refused"
    assert why == "A permit issued on 2026-01-01 runs at most one year, through 2026-12-31 (Victorville 10.03.080(a))."


def test_a_placentia_permit_longer_than_a_year_is_only_warned():
    """Placentia 16.24 FOG Wastewater Discharge Permits (f): "FOG Wastewater Discharge Permits
    shall be issued annually."; the text refuses nothing, so a longer one is warned."""
    term, cited = _term("placentia")
    longer, _ = permit_rules.term_exceeded(
        issued_on=date(2026, 3, 1), expires_on=date(2027, 3, 1), term=term, citation=cited
    )
    assert longer == "warned"


def test_a_san_clemente_permit_runs_at_most_five_years_from_a_leap_day():
    """San Clemente 13.30.050(E): "Discharge Permits shall be valid for a maximum period of five
    (5) years"; five years from February 29 end on February 28."""
    term, cited = _term("san-clemente")
    issued = date(2028, 2, 29)
    assert permit_rules.last_day_of_term(issued, 5) == date(2033, 2, 28)
    assert permit_rules.term_exceeded(issued_on=issued, expires_on=date(2033, 2, 28), term=term, citation=cited) is None
    assert permit_rules.term_exceeded(issued_on=issued, expires_on=date(2033, 3, 1), term=term, citation=cited)[0] == (
        "refused"
    )


@pytest.mark.parametrize("code", ["colusa", "tracy"])
def test_a_city_whose_text_sets_no_term_limits_none(code):
    term, cited = _term(code)
    assert term is None
    assert (
        permit_rules.term_exceeded(issued_on=date(2026, 1, 1), expires_on=date(2036, 1, 1), term=term, citation=cited)
        is None
    )


def test_victorville_assigns_only_the_frequencies_its_text_lists():
    """Victorville 10.03.160(b): "one of the following collection/maintenance frequencies:
    thirty days, sixty days, ninety days, one hundred twenty days, or one hundred eighty days"."""
    victorville = city("victorville")
    assert all(
        device_rules.frequency_refusal("interceptor", days, victorville) is None for days in (30, 60, 90, 120, 180)
    )
    assert device_rules.frequency_refusal("interceptor", 45, victorville) == (
        "Must be one of 30, 60, 90, 120, 180 (Victorville 10.03.160(b))."
    )


def test_tracys_six_months_refuse_a_frequency_only_past_the_most_days_they_can_span():
    """Tracy 5.26 interceptor maintenance (e)(2): "not less than every six (6) months": six months
    span 181 to 184 days, so 184 is allowed (the months still end every gap) and 185 is not."""
    tracy = city("tracy")
    assert device_rules.frequency_refusal("interceptor", 184, tracy) is None
    refusal = device_rules.frequency_refusal("interceptor", 185, tracy)
    assert refusal == (
        "An interceptor must be serviced at least every 6 months: no frequency over 184 days "
        "(Tracy 5.26 interceptor maintenance (e)(2))."
    )
    assert device_rules.frequency_refusal("trap", 400, tracy) is None  # the months bind interceptors
    assert device_rules.longest_interval_days(tracy) == 181


def test_a_city_default_frequency_fills_a_device_given_none():
    """Colusa 15A-16(C)(3): "fully pumped out and cleaned quarterly when the frequency ... has
    not been established"."""
    colusa = city("colusa")
    assert device_rules.default_frequency("interceptor", colusa) == 90
    assert citations("colusa")["interceptor_default_frequency_days"] == "Colusa 15A-16(C)(3)"
    assert device_rules.default_frequency("trap", city("victorville")) == 30


@pytest.mark.parametrize(("code", "notice"), [("victorville", 30), ("placentia", 45), ("san-clemente", 45)])
def test_a_frequency_changes_no_sooner_than_the_citys_notice_after_the_permittee_was_told(code, notice):
    """Victorville 10.03.080(c): "at least thirty days prior to the effective date of the
    change"; Placentia 16.24 FOG Wastewater Discharge Permits (e)(3) and San Clemente
    13.30.050(J): forty-five (45) days."""
    assert parameters(code)["frequency_change_notice_days"] == notice
    told, today = date(2026, 6, 1), date(2026, 6, 1)
    cited = citations(code)["frequency_change_notice_days"]

    def refusal(days_after, sooner_because=None):
        return device_rules.frequency_change_refusal(
            today=today,
            effective_on=date.fromordinal(told.toordinal() + days_after),
            noticed_on=told,
            notice_days=notice,
            sooner_because=sooner_because,
            last_change_on=None,
            citation=cited,
        )

    assert refusal(notice) == {}
    assert refusal(notice - 1) == {
        "effective_on": [
            f"Must be at least {notice} days after the permittee was told ({cited}), or say why sooner in sooner_because."
        ]
    }
    assert refusal(notice - 1, sooner_because="grease in the street") == {}
    assert refusal(-1)["effective_on"][0].startswith("A frequency changes from today on")


def test_the_recommended_frequency_is_the_longest_allowed_that_keeps_within_the_quarter():
    """Victorville 10.03.160(f)(3): the frequency adjusted "when sufficient data has been
    obtained"; 0.1 in a day reaches a quarter of 50.4 in on day 126 exactly (not 125)."""
    measured = frequency.Accumulation(intervals=3, inches=Decimal("9"), days=90)
    assert measured.days_to(Decimal("0.25"), Decimal("50.4")) == 126
    advice = frequency.recommend(
        measured,
        liquid_depth_in=50.4,
        limit_share=0.25,
        current_days=90,
        allowed=[30, 60, 90, 120, 180],
        max_interval_days=None,
    )
    assert (advice.frequency_days, advice.change) == (120, "lengthen")
    fast = frequency.Accumulation(intervals=3, inches=Decimal("90"), days=90)
    assert (
        frequency.recommend(
            fast,
            liquid_depth_in=48,
            limit_share=0.25,
            current_days=90,
            allowed=[30, 60, 90, 120, 180],
            max_interval_days=None,
        ).change
        == "shorten"
    )


def test_a_city_that_assigns_any_days_is_recommended_the_days_to_the_limit_within_its_longest_interval():
    measured = frequency.Accumulation(intervals=3, inches=Decimal("3"), days=90)
    tracy = frequency.recommend(
        measured, liquid_depth_in=48, limit_share=0.25, current_days=90, allowed=[], max_interval_days=181
    )
    assert (tracy.frequency_days, tracy.change) == (181, "lengthen")
    nothing = frequency.Accumulation(intervals=3, inches=Decimal(0), days=90)
    assert (
        frequency.recommend(
            nothing, liquid_depth_in=48, limit_share=0.25, current_days=90, allowed=[], max_interval_days=None
        ).frequency_days
        == frequency.LONGEST_RECOMMENDED_DAYS
    )


def test_an_interval_is_measured_from_a_full_pump_down_to_the_next_measured_service():
    services = [
        (date(2026, 1, 1), True, None),
        (date(2026, 3, 1), False, Decimal("6")),  # measured after a full pump-down: counts
        (date(2026, 5, 1), True, Decimal("7")),  # after a partial one: does not
        (date(2026, 5, 1), True, Decimal("1")),  # the same day: no interval
    ]
    assert frequency.measured(services) == frequency.Accumulation(intervals=1, inches=Decimal("6"), days=59)
    assert frequency.measured(services[:1]) is None


@pytest.mark.parametrize(
    ("code", "cited"),
    [
        ("placentia", "Placentia 16.24 General Limitations (b)(9)"),
        ("victorville", "Victorville 10.03.160(f)(1); Victorville 10.03.160(f)(3)"),
        ("tracy", "Tracy 5.26 prohibitions (g); Tracy 5.26 interceptor maintenance (e)(3)"),
    ],
)
def test_a_recommendation_cites_the_citys_own_rule_and_adjustment_clause_and_no_other_citys(code, cited):
    assert frequency.citation(code, citations(code)) == cited
