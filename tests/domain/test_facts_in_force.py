"""The registry's facts on a day, the sites' receipts against the manifests, a kitchen's own
cleaning log, exact amounts, local days and the revisions' hash chain."""

from datetime import UTC, date, datetime, timedelta
from decimal import Decimal

from domain import amounts, chain, dates, maintenance, reconcile, words
from domain import registry as reg
from domain.facts import CODES
from tests.domain.cities import pacific


def test_the_fact_in_force_on_a_day_is_the_latest_that_took_effect_by_it_the_later_recorded_on_one_day():
    facts = [
        reg.Dated(date(2026, 3, 1), "suspended"),
        reg.Dated(date(2026, 1, 1), "active"),
        reg.Dated(date(2026, 3, 1), "active"),
    ]
    assert reg.value_on(facts, date(2025, 12, 31), default="none") == "none"
    assert reg.value_on(facts, date(2026, 2, 28)) == "active"
    assert reg.value_on(facts, date(2026, 3, 1)) == "active"


def test_a_permit_is_expired_the_day_after_its_expiry_and_a_revoked_one_says_revoked():
    kwargs = dict(issued_on=date(2026, 1, 1), expires_on=date(2026, 6, 30))
    assert reg.permit_status_on(changes=(), day=date(2026, 6, 30), **kwargs) == "active"
    assert reg.permit_status_on(changes=(), day=date(2026, 7, 1), **kwargs) == "expired"
    assert reg.permit_status_on(changes=(), day=date(2025, 12, 31), **kwargs) == "not_issued"
    revoked = [reg.Dated(date(2026, 5, 1), "revoked")]
    assert reg.permit_status_on(changes=revoked, day=date(2026, 7, 1), **kwargs) == "revoked"


def test_a_licence_holds_through_its_expiry_day_and_a_registration_through_its_end_day():
    licences = [reg.Licence(date(2026, 1, 1), "L-1", date(2026, 6, 30), "valid")]
    assert reg.licence_valid_on(licences, date(2026, 6, 30)) and not reg.licence_valid_on(licences, date(2026, 7, 1))
    assert not reg.licence_valid_on(licences, date(2025, 12, 31))
    suspended = [*licences, reg.Licence(date(2026, 3, 1), "L-1", date(2026, 6, 30), "suspended")]
    assert not reg.licence_valid_on(suspended, date(2026, 3, 1))
    registrations = [reg.Registration("vv", date(2026, 1, 1), date(2026, 6, 30))]
    assert reg.registered_on(registrations, "vv", date(2026, 6, 30))
    assert not reg.registered_on(registrations, "vv", date(2026, 7, 1))
    assert not reg.registered_on(registrations, "tracy", date(2026, 3, 1))


def test_a_site_is_approved_within_its_dates_unless_a_change_suspends_it():
    kwargs = dict(approved_from=date(2026, 1, 1), approved_until=date(2026, 6, 30))
    assert reg.site_approved_on(changes=(), day=date(2026, 1, 1), **kwargs)
    assert not reg.site_approved_on(changes=(), day=date(2026, 7, 1), **kwargs)
    closed = [reg.Dated(date(2026, 4, 1), "closed")]
    assert not reg.site_approved_on(changes=closed, day=date(2026, 4, 1), **kwargs)


def test_a_device_was_on_the_permit_it_moved_from_until_the_move_took_effect():
    class Move:
        effective_on, from_permit_id = date(2026, 7, 1), "old"

    assert reg.permit_on(date(2026, 6, 30), current="new", moves=[Move()]) == "old"
    assert reg.permit_on(date(2026, 7, 1), current="new", moves=[Move()]) == "new"


def test_a_sites_receipt_within_5_percent_of_the_manifest_agrees_and_beyond_it_differs():
    """Exchange policy: scales and meters disagree a little; 5% of the larger figure exactly is
    within it."""
    at = datetime(2026, 6, 1, 18, tzinfo=UTC)
    wait = timedelta(hours=72)
    sent = reconcile.Delivered("h", "TRK-7", 1000, at)
    assert not reconcile.gallons_differ(1000, 1050) and reconcile.gallons_differ(1000, 1053)
    assert reconcile.compare(sent, reconcile.Received("h", "trk 7", 1050, at), now=at, wait=wait) == []
    assert reconcile.compare(sent, reconcile.Received("h", "TRK-8", 1053, at), now=at, wait=wait) == [
        reconcile.GALLONS_DIFFER,
        reconcile.VEHICLE_DIFFERS,
    ]
    assert reconcile.compare(sent, reconcile.Received("other", "TRK-7", 1000, at), now=at, wait=wait) == [
        reconcile.HAULER_DIFFERS
    ]
    # A side missing counts only once the other's deadline has passed.
    assert reconcile.compare(sent, None, now=at + wait, wait=wait) == []
    assert reconcile.compare(sent, None, now=at + wait + timedelta(seconds=1), wait=wait) == [reconcile.RECEIPT_MISSING]


def test_one_load_is_one_ticket_of_one_site_on_one_local_day():
    evening, morning = pacific(2026, 6, 30, 23, 30), pacific(2026, 7, 1, 0, 30)
    zone = "America/Los_Angeles"
    assert reconcile.load_key("s", "T-1", evening, zone) == ("s", "T-1", date(2026, 6, 30))
    assert reconcile.load_key("s", "T-1", evening, zone) != reconcile.load_key("s", "T-1", morning, zone)


def test_a_trap_cleaned_daily_misses_each_day_without_an_entry():
    """Placentia 16.24 Facilities Requirements (c)(3): "removing accumulated grease on a daily
    basis"."""
    cleaned = {date(2026, 6, 1), date(2026, 6, 3)}
    assert maintenance.missing_days(cleaned, start=date(2026, 6, 1), end=date(2026, 6, 4), every_days=1) == [
        date(2026, 6, 2),
        date(2026, 6, 4),
    ]
    assert maintenance.missing_days(cleaned, start=date(2026, 6, 1), end=date(2026, 6, 4), every_days=2) == []


def test_amounts_are_exact_as_written():
    assert amounts.exact(8.3) + amounts.exact(4.3) == Decimal("12.6")
    assert amounts.exact(None) is None and amounts.exact(2) == Decimal(2)
    assert (amounts.shown(Decimal("50.40")), amounts.shown(Decimal("5E+1"))) == ("50.4", "50")
    assert amounts.number(Decimal("48.00")) == 48.0 and amounts.number(None) is None


def test_a_time_is_shown_on_the_citys_wall_clock_with_its_offset():
    zone = "America/Los_Angeles"
    assert dates.human(pacific(2026, 6, 30, 23, 30), zone) == "2026-06-30 23:30 -07:00"
    assert dates.human(pacific(2026, 1, 15, 8, 5), zone) == "2026-01-15 08:05 -08:00"
    assert dates.local_date(datetime(2026, 7, 1, 6, 30), zone) == date(2026, 6, 30)  # naive: stored UTC
    assert dates.start_of_day(date(2026, 7, 1), zone) == datetime(2026, 7, 1, 7, tzinfo=UTC)


def test_each_revision_names_the_hash_before_it_and_an_altered_one_breaks_the_chain():
    first = {"revision": 1, "previous_sha256": None, "manifest": {"gallons_removed": 1000}}
    second = {"revision": 2, "previous_sha256": chain.seal(first), "manifest": {"gallons_removed": 900}}
    revisions = [(1, first, chain.seal(first)), (2, second, chain.seal(second))]
    assert chain.verify(revisions) == []
    altered = dict(first, manifest={"gallons_removed": 1001})
    assert chain.verify([(1, altered, revisions[0][2]), revisions[1]]) == ["revision 1 does not match its hash"]
    assert chain.canonical_json({"b": 1, "a": "é"}) == '{"a":"é","b":1}'.encode()


def test_every_finding_code_has_its_words_and_the_rule_it_stands_on():
    for code in CODES:
        assert words.finding(code) != words._plain(code), code
        assert words.rule_statement(code), code
    assert words.finding("no_such_code") == "No such code" and words.rule_of("no_such_code") is None
