"""Victorville Municipal Code ch. 10.03, rule by rule, from the ordinance's own sentences."""

from datetime import date, timedelta

from tests import factories
from tests.manifest_world import NOW
from tests.ordinance_cases import (
    admin_of,
    at_and_over_a_quarter,
    evening_of_the_permits_last_day,
    findings_of,
    pacific,
    register_device,
    trap_body,
    world_in,
)

CITY = "victorville"


def test_a_permit_valid_through_june_30_covers_23_30_pacific_that_day(client, session, frozen_clock):
    """10.03.050(a): "All FSE operators shall obtain a FOG permit" ... "(4) Permit expiration
    date". 23:30 Pacific on June 30 is July 1 in UTC; the city's date is June 30."""
    evening, next_day = evening_of_the_permits_last_day(client, session, frozen_clock, CITY)
    assert "permit_not_active" not in evening
    finding = next_day["permit_not_active"]
    assert finding["message"].endswith("was expired on 2026-07-01.")
    assert (finding["basis"], finding["citation"]) == ("ordinance", "Victorville 10.03.050(a)")


def test_the_receipt_is_due_from_the_citys_date_of_an_evening_service(client, session, frozen_clock):
    """10.03.160(f)(2): "maintained not less than once every ninety days": 90 days from the
    local date of a service at 23:30 Pacific, not from its UTC date."""
    world = world_in(client, session, frozen_clock, CITY, now=pacific(2026, 7, 1, 9))
    receipt = world.post(world.body(completed=pacific(2026, 6, 30, 23, 30)))
    assert receipt.json["due_by"] == (date(2026, 6, 30) + timedelta(days=90)).isoformat()


def test_the_interval_is_counted_in_the_citys_days(client, session, frozen_clock):
    """10.03.160(c): interceptors "shall be maintained in a manner consistent with a
    maintenance frequency approved by the FOG manager". From 23:30 Pacific on March 1 to the
    morning of May 31 is 91 days in Victorville (90 by UTC dates)."""
    world = world_in(client, session, frozen_clock, CITY, now=pacific(2026, 5, 31, 12))
    world.post(world.body(completed=pacific(2026, 3, 1, 23, 30)))
    late = findings_of(world.post(world.body(completed=pacific(2026, 5, 31, 10))))
    finding = late["service_interval_exceeded"]
    assert finding["message"].startswith("91 days since the previous qualifying service")
    assert finding["citation"] == "Victorville 10.03.160(c)"
    on_time = world_in(client, session, frozen_clock, CITY, now=pacific(2026, 5, 31, 12))
    on_time.post(on_time.body(completed=pacific(2026, 3, 2, 0, 30)))
    assert "service_interval_exceeded" not in findings_of(
        on_time.post(on_time.body(completed=pacific(2026, 5, 31, 10)))
    )


def test_a_licence_is_judged_on_the_citys_date(client, session, frozen_clock):
    """10.03.160(b): "contract with a licensed waste hauler": a licence valid through June 30
    covers a service at 23:30 Pacific that day, not one at 00:30 the next."""
    world = world_in(client, session, frozen_clock, CITY, now=pacific(2026, 7, 1, 9))
    hauler = factories.hauler(session, licence_expires_on=date(2026, 6, 30), vehicles=(("TRK-1", 3000),))
    token = factories.token(client, *factories.oauth_client(session, role="hauler", subject=[hauler.id]))
    evening = findings_of(world.post(world.body(completed=pacific(2026, 6, 30, 23, 30)), token=token))
    assert "hauler_licence_invalid" not in evening
    finding = findings_of(world.post(world.body(completed=pacific(2026, 7, 1, 0, 30)), token=token))[
        "hauler_licence_invalid"
    ]
    assert (finding["basis"], finding["citation"]) == ("ordinance", "Victorville 10.03.160(b)")


def test_a_site_is_judged_approved_on_the_citys_date_of_delivery(client, session, frozen_clock):
    """A site approved through June 30 takes a load at 23:45 Pacific that day (exchange
    policy in Victorville: 10.03.160(f)(6) asks only proper disposal "in accordance with
    federal, state and/or local laws")."""
    world = world_in(client, session, frozen_clock, CITY, now=pacific(2026, 7, 1, 9))
    site = factories.disposal_site(session, approved_until=date(2026, 6, 30))
    body = world.body(completed=pacific(2026, 6, 30, 22))
    body["disposal"].update(site_id=str(site.id), delivered_at=pacific(2026, 6, 30, 23, 45).isoformat())
    assert "disposal_site_unapproved" not in findings_of(world.post(body))
    body = world.body(completed=pacific(2026, 6, 30, 23, 50))
    body["disposal"].update(site_id=str(site.id), delivered_at=pacific(2026, 7, 1, 0, 15).isoformat())
    finding = findings_of(world.post(body))["disposal_site_unapproved"]
    assert finding["message"] == "The disposal site was not approved on 2026-07-01."
    assert (finding["basis"], finding["citation"]) == ("exchange_policy", "exchange policy")


def test_twenty_five_percent_is_exceeded_only_past_a_quarter(client, session, frozen_clock):
    """10.03.160(f)(1): "the combined FOG and solids accumulation does not exceed twenty-five
    percent of the total design hydraulic depth of the grease interceptor"."""
    at, over = at_and_over_a_quarter(client, session, frozen_clock, CITY)
    assert "twenty_five_percent_exceeded" not in at
    assert over["twenty_five_percent_exceeded"]["citation"] == "Victorville 10.03.160(f)(1)"


def test_a_trap_answers_to_the_trap_clause(client, session, frozen_clock):
    """10.03.160(g)(1): "The maintenance frequency for grease trap shall be established by the
    FOG manager, but at a minimum, grease traps shall be serviced every thirty days." The
    interceptors' 25% rule is not the traps'."""
    world = world_in(client, session, frozen_clock, CITY)
    factories.device(
        session,
        permit_row=world.permit,
        tag="GT-1",
        kind="trap",
        capacity_gallons=50,
        liquid_depth_in=12,
        frequency_days=30,
    )
    world.post(trap_body(world, "GT-1", NOW - timedelta(days=33), disposal=None))
    late = findings_of(
        world.post(
            trap_body(world, "GT-1", NOW - timedelta(hours=2), measurements={"fog_depth_in": 6, "solids_depth_in": 3})
        )
    )
    finding = late["service_interval_exceeded"]
    assert (finding["basis"], finding["citation"]) == ("ordinance", "Victorville 10.03.160(g)(1)")
    assert "twenty_five_percent_exceeded" not in late  # 9 of 12 in: a trap
    # "fully pumped out" is said of interceptors (10.03.160(f)(1)): a trap's is exchange policy.
    partial = findings_of(world.post(trap_body(world, "GT-1", NOW - timedelta(hours=30), full_pump_down=False)))
    assert partial["partial_pump_down"]["citation"] == "exchange policy"


def test_only_victorvilles_list_of_frequencies(client, session, frozen_clock):
    """10.03.160(b): "The FOG manager shall assign each FSE one of the following
    collection/maintenance frequencies: thirty days, sixty days, ninety days, one hundred
    twenty days, or one hundred eighty days"."""
    world = world_in(client, session, frozen_clock, CITY)
    admin = admin_of(client, session, CITY)
    for days in (45, 1, 365):
        refused = register_device(client, admin, world, frequency_days=days)
        assert refused.status_code == 422, days
        assert "(Victorville 10.03.160(b))" in refused.json["errors"]["frequency_days"][0]
    assert (
        register_device(
            client, admin, world, tag="GT-2", kind="trap", capacity_gallons=50, liquid_depth_in=12, frequency_days=1
        ).status_code
        == 422
    )
    accepted = register_device(client, admin, world, frequency_days=120)
    assert accepted.status_code == 201 and accepted.json["frequency_source"] == "assigned"


def test_a_device_without_a_frequency_takes_the_citys_default(client, session, frozen_clock):
    """10.03.160(f)(2): "Unless another frequency has been specified ... not less than once every
    ninety days"; (g)(1): traps "every thirty days"."""
    world = world_in(client, session, frozen_clock, CITY)
    admin = admin_of(client, session, CITY)
    interceptor = register_device(client, admin, world)
    assert interceptor.status_code == 201, interceptor.json
    assert (interceptor.json["frequency_days"], interceptor.json["frequency_source"]) == (90, "city_default")
    trap = register_device(client, admin, world, tag="GT-2", kind="trap", capacity_gallons=50, liquid_depth_in=12)
    assert (trap.json["frequency_days"], trap.json["frequency_source"]) == (30, "city_default")
    world.post(world.body(device_tag="GI-2", completed=NOW - timedelta(days=93), disposal=None))
    finding = findings_of(world.post(world.body(device_tag="GI-2")))["service_interval_exceeded"]
    assert finding["citation"] == "Victorville 10.03.160(f)(2)"


def test_the_deadline_is_victorvilles_and_the_rest_exchange_policy(client, session, frozen_clock):
    """10.03.170(b): "not later than seventy-two hours after GCDs are serviced"; no section of
    10.03 speaks of the hauler's truck."""
    world = world_in(client, session, frozen_clock, CITY)
    found = findings_of(world.post(world.body(completed=NOW - timedelta(hours=73), vehicle_id="NOT-OURS")))
    assert (found["late_submission"]["basis"], found["late_submission"]["citation"]) == (
        "ordinance",
        "Victorville 10.03.170(b)",
    )
    assert (found["vehicle_unregistered"]["basis"], found["vehicle_unregistered"]["citation"]) == (
        "exchange_policy",
        "exchange policy",
    )
