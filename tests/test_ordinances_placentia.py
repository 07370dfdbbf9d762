"""Placentia Municipal Code ch. 16.24, rule by rule, from the ordinance's own sentences."""

from datetime import timedelta

from tests.manifest_world import NOW
from tests.ordinance_cases import (
    admin_of,
    at_and_over_a_quarter,
    evening_of_the_permits_last_day,
    findings_of,
    register_device,
    trap_body,
    world_in,
)

CITY = "placentia"
DAILY = "Placentia 16.24 Facilities Requirements (c)(3)"


def test_a_traps_daily_cleaning_is_the_kitchens_not_a_haulers(client, session, frozen_clock):
    """Facilities Requirements (c)(3): "Grease traps shall be maintained in efficient operating
    conditions by removing accumulated grease on a daily basis." That is the restaurant's own
    cleaning, kept in its maintenance log (`trap_daily_cleaning`), not a hauler's frequency: a
    trap given none takes the exchange's 30 days, so a hauler's pump-outs two days apart are not
    late, and a gap past 30 days answers to exchange policy, not to (c)(3)."""
    world = world_in(client, session, frozen_clock, CITY)
    admin = admin_of(client, session, CITY)
    unset = register_device(client, admin, world, tag="GT-2", kind="trap", capacity_gallons=50, liquid_depth_in=12)
    assert (unset.json["frequency_days"], unset.json["frequency_source"]) == (30, "city_default")
    world.post(trap_body(world, "GT-2", NOW - timedelta(days=33, hours=2)))
    assert "service_interval_exceeded" not in findings_of(
        world.post(trap_body(world, "GT-2", NOW - timedelta(days=31, hours=2)))
    )
    late = findings_of(world.post(trap_body(world, "GT-2", NOW - timedelta(hours=2))))["service_interval_exceeded"]
    assert late["message"].startswith("31 days since the previous qualifying service; at most 30 allowed")
    assert (late["basis"], late["citation"]) == ("exchange_policy", "exchange policy")
    rules = {
        row["rule"]: row
        for row in client.get("/v1/jurisdictions", headers={"Authorization": f"Bearer {admin}"}).json["items"][0][
            "rules"
        ]
    }
    assert (rules["trap_daily_cleaning"]["value"], rules["trap_daily_cleaning"]["citation"]) == (1, DAILY)


def test_an_interceptor_takes_any_frequency_and_the_exchanges_default(client, session, frozen_clock):
    """Placentia 16.24 lists no frequencies (Victorville's list is Victorville's): a permit may
    carry a "Grease interceptor maintenance schedule" (FOG Wastewater Discharge Permits (c)(3)).
    With none given, the exchange's 90 days apply, said plainly."""
    world = world_in(client, session, frozen_clock, CITY)
    admin = admin_of(client, session, CITY)
    assert register_device(client, admin, world, frequency_days=45).status_code == 201
    unset = register_device(client, admin, world, tag="GI-3")
    assert (unset.json["frequency_days"], unset.json["frequency_source"]) == (90, "city_default")
    world.post(world.body(device_tag="GI-2", completed=NOW - timedelta(days=46, hours=2), disposal=None))
    assigned = findings_of(world.post(world.body(device_tag="GI-2", completed=NOW - timedelta(hours=2))))
    assert (
        assigned["service_interval_exceeded"]["citation"] == "Placentia 16.24 FOG Wastewater Discharge Permits (c)(3)"
    )
    world.post(world.body(device_tag="GI-3", completed=NOW - timedelta(days=91, hours=2), disposal=None))
    defaulted = findings_of(world.post(world.body(device_tag="GI-3", completed=NOW - timedelta(hours=3))))
    assert (defaulted["service_interval_exceeded"]["basis"], defaulted["service_interval_exceeded"]["citation"]) == (
        "exchange_policy",
        "exchange policy",
    )


def test_twenty_five_percent_is_exceeded_only_past_a_quarter(client, session, frozen_clock):
    """General Limitations (b)(9): "No person shall allow the accumulation of FOG and/or solids in a
    grease interceptor which accumulation exceeds 25% of the total operating hydraulic depth of
    the grease interceptor.\""""
    at, over = at_and_over_a_quarter(client, session, frozen_clock, CITY)
    assert "twenty_five_percent_exceeded" not in at
    assert over["twenty_five_percent_exceeded"]["citation"] == "Placentia 16.24 General Limitations (b)(9)"


def test_the_evening_of_a_permits_last_day_is_still_that_day(client, session, frozen_clock):
    """General Limitations (c): "No person shall discharge ... without first obtaining a FOG
    wastewater discharge permit"; one valid through June 30 covers 23:30 Pacific that day."""
    evening, next_day = evening_of_the_permits_last_day(client, session, frozen_clock, CITY)
    assert "permit_not_active" not in evening
    assert next_day["permit_not_active"]["citation"] == "Placentia 16.24 General Limitations (c)"


def test_returned_decant_and_the_silences(client, session, frozen_clock):
    """General Limitations (b)(8): "No waste removed from a grease control device may be
    discharged to the sewer system." The transcript sets no filing deadline and no full
    pump-down: those findings are exchange policy."""
    world = world_in(client, session, frozen_clock, CITY)
    found = findings_of(
        world.post(world.body(decant_returned_gallons=200, full_pump_down=False, completed=NOW - timedelta(hours=80)))
    )
    assert found["decant_returned"]["citation"] == "Placentia 16.24 General Limitations (b)(8)"
    assert found["late_submission"]["citation"] == "exchange policy"
    assert found["partial_pump_down"]["citation"] == "exchange policy"
