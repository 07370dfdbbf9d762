"""How long a device may go between qualifying services: its frequency, the grace, the city's
longest interval in days or calendar months, the days its permit was not in force; counted in
the city's calendar days."""

from datetime import date, timedelta

import pytest

from domain import checks, dates
from domain.registry import Dated
from domain.status import Interval, device_status, frequency_history, paused_spans, permit_ended_on
from tests.domain.cities import codes, device, load, pacific, permit, rules

LAST = pacific(2026, 1, 1, 23, 30)  # 07:30 UTC on January 2: the city's day is January 1


def _after(days, hour=12):
    """The instant at `hour`:30 Pacific, `days` local days after January 1, 2026 (across the
    change to summer time: a day is the city's, not 24 hours of UTC)."""
    day = date(2026, 1, 1) + timedelta(days=days)
    return pacific(day.year, day.month, day.day, hour, 30)


def _gap(days, *, city="victorville", kind="interceptor", frequency=90, at_hour=23, **device_kwargs):
    """The findings of a service `days` local days after the last one."""
    served = _after(days, at_hour)
    device_facts = device(kind, frequency=frequency, **device_kwargs)
    return checks.service_interval_exceeded(load(served), LAST, device_facts, rules(city), permit())


def test_a_90_day_frequency_is_met_on_the_90th_local_day_and_missed_on_the_91st():
    """Victorville 10.03.160(c): grease interceptors "shall be maintained in a manner consistent
    with a maintenance frequency approved by the FOG manager"; both services at 23:30 Pacific,
    whose UTC days are a day later."""
    assert _gap(90) == []
    [finding] = _gap(91)
    assert (finding.code, finding.citation) == ("service_interval_exceeded", "Victorville 10.03.160(c)")
    assert finding.message == (
        "91 days since the previous qualifying service; at most 90 allowed (90-day frequency, 0 grace)."
    )
    assert _gap(90, at_hour=0) == []  # early on the 90th day, too


def test_a_frequency_the_city_gave_by_default_cites_the_default():
    """Victorville 10.03.160(f)(2): "Unless another frequency has been specified ... maintained
    not less than once every ninety days"."""
    [finding] = _gap(91, frequency_source="city_default")
    assert finding.citation == "Victorville 10.03.160(f)(2)"


def test_a_traps_thirty_days():
    """Victorville 10.03.160(g)(1): "at a minimum, grease traps shall be serviced every thirty days"."""
    assert _gap(30, kind="trap", frequency=30) == []
    [finding] = _gap(31, kind="trap", frequency=30)
    assert finding.citation == "Victorville 10.03.160(g)(1)"


def test_the_grace_days_are_exchange_policy_that_a_city_may_set():
    city = rules("victorville", grace_days=14)
    assert checks.service_interval_exceeded(load(_after(104)), LAST, device(), city) == []
    assert codes(checks.service_interval_exceeded(load(_after(105)), LAST, device(), city)) == [
        "service_interval_exceeded"
    ]


def test_six_calendar_months_from_august_31_end_on_the_last_day_of_february():
    """Tracy 5.26 interceptor maintenance (e)(2): "maintain their grease interceptor not less
    than every six (6) months", in calendar months (exchange policy: a month without the day
    counts its last day). A 184-day frequency would run to March 3; the six months bind first,
    and the grace does not stretch them."""
    last = pacific(2026, 8, 31, 23, 30)
    city, slow = rules("tracy", grace_days=14), device(frequency=184)
    assert dates.add_months(date(2026, 8, 31), 6) == date(2027, 2, 28)
    assert checks.service_interval_exceeded(load(pacific(2027, 2, 28, 23, 30)), last, slow, city) == []
    [finding] = checks.service_interval_exceeded(load(pacific(2027, 3, 1, 0, 30)), last, slow, city)
    assert finding.citation == "Tracy 5.26 interceptor maintenance (e)(2)"
    assert finding.message.endswith("(184-day frequency, 14 grace, 6-month longest interval).")


def test_months_count_the_calendar():
    """Colusa 15A-16(C)(2): "not less than once every twelve months"."""
    assert dates.add_months(date(2027, 8, 31), 6) == date(2028, 2, 29)
    assert dates.add_months(date(2028, 2, 29), 12) == date(2029, 2, 28)
    assert dates.add_months(date(2026, 1, 31), 1) == date(2026, 2, 28)
    assert dates.add_months(date(2026, 12, 15), 1) == date(2027, 1, 15)
    assert dates.months_span_days(6) == (181, 184)
    assert dates.months_span_days(12) == (365, 366)
    assert dates.add_years(date(2028, 2, 29), 1) == date(2029, 3, 1)


def test_colusas_twelve_months_bind_an_interceptor_and_never_a_trap():
    interval = Interval.of("interceptor", 400, longest_months=12)
    assert interval.due_on(date(2026, 3, 15)) == date(2027, 3, 15) and interval.capped(date(2026, 3, 15))
    trap = Interval.of("trap", 400, longest_months=12)
    assert trap.due_on(date(2026, 3, 15)) == date(2026, 3, 15) + timedelta(days=400)


def test_the_days_a_permit_was_suspended_do_not_count_toward_the_interval():
    """Victorville 10.03.320(b)(4): under a suspension the permittee "shall have no right to
    discharge"; the interval's clock stops until the permit is active again."""
    changes = [Dated(date(2026, 2, 1), "suspended"), Dated(date(2026, 3, 1), "active")]
    assert paused_spans(changes) == ((date(2026, 2, 1), date(2026, 3, 1)),)
    suspended = permit(changes=changes)
    city, interceptor = rules("victorville"), device()
    assert checks.due_by(LAST, interceptor, city, suspended) == date(2026, 4, 1) + timedelta(days=28)
    assert checks.service_interval_exceeded(load(pacific(2026, 4, 29, 12)), LAST, interceptor, city, suspended) == []
    assert codes(
        checks.service_interval_exceeded(load(pacific(2026, 4, 30, 12)), LAST, interceptor, city, suspended)
    ) == ["service_interval_exceeded"]
    # A suspension not yet lifted pauses nothing: the device stays due.
    assert paused_spans([Dated(date(2026, 2, 1), "suspended")]) == ()


def test_a_frequency_shortened_after_a_service_is_due_no_sooner_than_the_day_it_took_effect():
    class Change:
        def __init__(self, effective_on, from_days, to_days):
            self.effective_on, self.from_days, self.to_days = effective_on, from_days, to_days

    history = frequency_history([Change(date(2026, 3, 1), 90, 30)])
    interval = Interval.of("interceptor", 30, frequencies=history)
    assert interval.frequency_on(date(2026, 1, 1)) == 90 and interval.frequency_on(date(2026, 3, 1)) == 30
    # Thirty days from January 1 had passed before March 1: due that day, not on January 31.
    assert interval.due_on(date(2026, 1, 1)) == date(2026, 3, 1)
    assert interval.due_on(date(2026, 3, 10)) == date(2026, 4, 9)


def test_a_device_is_due_soon_14_days_ahead_overdue_within_the_grace_and_missed_beyond():
    interval = Interval.of("interceptor", 90, grace_days=14)
    last = date(2026, 1, 1)
    due = date(2026, 4, 1)
    status = lambda day: device_status(as_of=day, last_qualifying=last, counted_from=last, interval=interval)  # noqa: E731
    assert status(due - timedelta(days=15)).status == "compliant"
    assert status(due - timedelta(days=14)).status == "due_soon"
    assert (status(due).status, status(due).due_on) == ("due_soon", due)
    assert (status(due + timedelta(days=1)).status, status(due + timedelta(days=1)).days_overdue) == ("overdue", 1)
    assert status(due + timedelta(days=14)).status == "overdue"
    assert (status(due + timedelta(days=15)).status, status(due + timedelta(days=15)).days_overdue) == ("missed", 15)


def test_a_device_never_serviced_counts_from_its_permit_and_one_whose_permit_ended_is_due_no_more():
    interval = Interval.of("interceptor", 90)
    never = device_status(
        as_of=date(2026, 5, 1), last_qualifying=None, counted_from=date(2026, 1, 1), interval=interval
    )
    assert (never.status, never.due_on, never.days_overdue) == ("never_serviced", date(2026, 4, 1), 30)
    ended = permit_ended_on(expires_on=date(2026, 6, 30), changes=(), day=date(2026, 7, 1))
    assert ended == date(2026, 7, 1)
    assert permit_ended_on(expires_on=date(2026, 6, 30), changes=(), day=date(2026, 6, 30)) is None
    revoked = permit_ended_on(
        expires_on=date(2026, 12, 31), changes=[Dated(date(2026, 5, 1), "revoked")], day=date(2026, 6, 1)
    )
    assert revoked == date(2026, 5, 1)
    gone = device_status(
        as_of=date(2026, 7, 1),
        last_qualifying=date(2026, 1, 1),
        counted_from=date(2026, 1, 1),
        interval=interval,
        permit_ended=ended,
    )
    assert (gone.status, gone.due_on) == ("permit_ended", None)


@pytest.mark.parametrize("hour", [0, 12, 23])
def test_the_due_day_is_counted_from_the_citys_day_of_the_last_service(hour):
    served = pacific(2026, 1, 1, hour, 30)
    assert checks.due_by(served, device(), rules("victorville")) == date(2026, 4, 1)
    assert checks.due_by(None, device(), rules("victorville")) is None
