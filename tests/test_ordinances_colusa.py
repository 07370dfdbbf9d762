"""Colusa Municipal Code ch. 15A, rule by rule, from the ordinance's own sentences."""

from datetime import date, timedelta

from sqlalchemy import update

from storage.models import Jurisdiction
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

CITY = "colusa"


def test_a_device_without_a_frequency_takes_colusas_default(client, session, frozen_clock):
    """15A-16(C)(3): "Grease interceptors shall be fully pumped out and cleaned quarterly when
    the frequency described in Section 15A-16(C)(1) has not been established." Grease traps B:
    "Existing grease traps shall be maintained in efficient operating condition by daily removal
    of the accumulated grease." That daily removal is the kitchen's own (its maintenance log),
    not a hauler's frequency: a trap given none takes the exchange's 30 days.\""""
    world = world_in(client, session, frozen_clock, CITY)
    admin = admin_of(client, session, CITY)
    interceptor = register_device(client, admin, world, capacity_gallons=1500)
    assert interceptor.status_code == 201, interceptor.json
    assert (interceptor.json["frequency_days"], interceptor.json["frequency_source"]) == (90, "city_default")
    trap = register_device(
        client, admin, world, tag="GT-1", kind="trap", capacity_gallons=50, liquid_depth_in=12, frequency_days=None
    )
    assert (trap.json["frequency_days"], trap.json["frequency_source"]) == (30, "city_default")
    # A quarter is three calendar months (`test_quarterly.py`): 1 March to 1 June is in time,
    # 28 February to 1 June is not.
    world.post(world.body(device_tag="GI-2", completed=NOW - timedelta(days=92, hours=2), disposal=None))
    on_time = findings_of(world.post(world.body(device_tag="GI-2", completed=NOW - timedelta(hours=2))))
    assert "service_interval_exceeded" not in on_time
    assert register_device(client, admin, world, tag="GI-3").json["frequency_source"] == "city_default"
    world.post(world.body(device_tag="GI-3", completed=NOW - timedelta(days=93, hours=2), disposal=None))
    late = findings_of(world.post(world.body(device_tag="GI-3", completed=NOW - timedelta(hours=2))))
    assert late["service_interval_exceeded"]["citation"] == "Colusa 15A-16(C)(3)"
    # The trap: a hauler two days apart is on time; 31 days apart is late by exchange policy.
    world.post(trap_body(world, "GT-1", NOW - timedelta(days=33, hours=2), disposal=None))
    on_time = findings_of(world.post(trap_body(world, "GT-1", NOW - timedelta(days=31, hours=2))))
    assert "service_interval_exceeded" not in on_time
    trap_late = findings_of(world.post(trap_body(world, "GT-1", NOW - timedelta(hours=2))))
    assert trap_late["service_interval_exceeded"]["citation"] == "exchange policy"


def test_an_interceptor_at_least_once_every_twelve_months(client, session, frozen_clock):
    """15A-16(C)(2): "Every FSE with a grease interceptor shall fully pump out and clean its
    grease interceptor not less than once every twelve months." Up to that, any frequency (not
    Victorville's list of five)."""
    world = world_in(client, session, frozen_clock, CITY)
    admin = admin_of(client, session, CITY)
    refused = register_device(client, admin, world, frequency_days=367)
    assert refused.status_code == 422
    assert refused.json["errors"]["frequency_days"] == [
        "An interceptor must be serviced at least every 12 months: no frequency over 366 days (Colusa 15A-16(C)(2))."
    ]
    assert register_device(client, admin, world, frequency_days=366).status_code == 201
    assert register_device(client, admin, world, tag="GI-3", frequency_days=45).status_code == 201
    session.execute(update(Jurisdiction).where(Jurisdiction.code == CITY).values(grace_days=30))
    session.commit()
    world.post(world.body(device_tag="GI-2", completed=NOW - timedelta(days=367, hours=2), disposal=None))
    finding = findings_of(world.post(world.body(device_tag="GI-2", completed=NOW - timedelta(hours=2))))[
        "service_interval_exceeded"
    ]
    assert (finding["basis"], finding["citation"]) == ("ordinance", "Colusa 15A-16(C)(2)")


def test_twelve_months_are_calendar_months(client, session, frozen_clock):
    """15A-16(C)(2): "Every FSE with a grease interceptor shall fully pump out and clean its
    grease interceptor not less than once every twelve months." Twelve calendar months from 1
    March 2023 end on 1 March 2024, 366 days on, past 29 February: a pump-out that day is in
    time, and the day after is late."""
    world = world_in(client, session, frozen_clock, CITY, now=pacific(2024, 3, 3, 18))
    world.permit.issued_on = date(2023, 1, 1)
    session.commit()
    admin = admin_of(client, session, CITY)
    for tag in ("GI-2", "GI-3"):
        assert register_device(client, admin, world, tag=tag, frequency_days=366).status_code == 201
        world.post(world.body(device_tag=tag, completed=pacific(2023, 3, 1, 9), disposal=None))
    on_time = findings_of(world.post(world.body(device_tag="GI-2", completed=pacific(2024, 3, 1, 23, 30))))
    assert "service_interval_exceeded" not in on_time
    late = findings_of(world.post(world.body(device_tag="GI-3", completed=pacific(2024, 3, 2, 9))))
    assert late["service_interval_exceeded"]["citation"] == "Colusa 15A-16(C)(2)"
    assert late["service_interval_exceeded"]["message"].startswith(
        "367 days since the previous qualifying service; at most 366 allowed"
    )


def test_twenty_five_percent_is_exceeded_only_past_a_quarter(client, session, frozen_clock):
    """15A-16(C)(1): "the combined FOG and solids accumulation in the grease interceptor does not
    exceed twenty-five percent of the total designed hydraulic depth of the grease
    interceptor"."""
    at, over = at_and_over_a_quarter(client, session, frozen_clock, CITY)
    assert "twenty_five_percent_exceeded" not in at
    assert over["twenty_five_percent_exceeded"]["citation"] == "Colusa 15A-16(C)(1)"


def test_the_evening_of_a_permits_last_day_is_still_that_day(client, session, frozen_clock):
    """Art. II: "No person shall discharge ... without first obtaining a FOG WDP pursuant to this
    chapter." A permit valid through June 30 covers 23:30 Pacific that day."""
    evening, next_day = evening_of_the_permits_last_day(client, session, frozen_clock, CITY)
    assert "permit_not_active" not in evening
    assert next_day["permit_not_active"]["citation"] == "Colusa 15A Art. II FOG WDP required"


def test_an_approved_disposal_site_and_a_full_pump_out(client, session, frozen_clock):
    """15A-16(G): removed materials "shall be disposed of by waste haulers at an approved
    disposal site"; 15A-16(A): "periodic removal of the full content of the interceptor"."""
    world = world_in(client, session, frozen_clock, CITY)
    closed = factories.disposal_site(session, cities=(CITY,), status="closed")
    body = world.body(full_pump_down=False)
    body["disposal"]["site_id"] = str(closed.id)
    found = findings_of(world.post(body))
    assert found["disposal_site_unapproved"]["citation"] == "Colusa 15A-16(G)"
    assert found["partial_pump_down"]["citation"] == "Colusa 15A-16(A)"


def test_a_small_interceptor_is_registered_with_colusas_warning(client, session, frozen_clock):
    """Grease interceptor requirements B: "not be less than one thousand gallons in size unless
    otherwise waived by the city manager"."""
    world = world_in(client, session, frozen_clock, CITY)
    response = register_device(client, admin_of(client, session, CITY), world, capacity_gallons=999)
    assert response.status_code == 201
    assert response.json["warnings"][0]["citation"] == "Colusa 15A Art. II grease interceptor requirements B"
