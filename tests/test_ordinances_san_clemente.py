"""San Clemente Municipal Code ch. 13.30, rule by rule, from the ordinance's own sentences."""

import uuid
from datetime import date

from sqlalchemy import select

from storage.models import ManifestRevision
from tests import factories
from tests.ordinance_cases import (
    admin_of,
    at_and_over_a_quarter,
    evening_of_the_permits_last_day,
    findings_of,
    register_device,
    trap_body,
    world_in,
)

CITY = "san-clemente"
CLEARANCE = "San Clemente 13.30.040(C)(7)"


def measured(clearance):
    return {"fog_depth_in": 4, "solids_depth_in": 3, "outlet_clearance_in": clearance}


def test_grease_within_two_inches_of_the_discharge_elbow(client, session, frozen_clock):
    """13.30.040(C)(7): no Operator shall "operate a Grease Interceptor that at any time contains
    floating oil/grease in the final chamber or sludge in any chamber that is within two (2)
    inches of the discharge elbow; under such conditions the Operator of the Food Service
    Establishment shall have the Grease Interceptor serviced immediately"."""
    world = world_in(client, session, frozen_clock, CITY)
    at_two = world.post(world.body(measurements=measured(2.0)))
    finding = findings_of(at_two)["outlet_clearance"]
    assert (finding["severity"], finding["basis"], finding["citation"]) == ("violation", "ordinance", CLEARANCE)
    assert "2 in from the discharge elbow" in finding["message"]
    assert "outlet_clearance" not in findings_of(world.post(world.body(measurements=measured(2.1))))
    assert "outlet_clearance" not in findings_of(world.post(world.body(measurements=measured(7))))
    assert findings_of(world.post(world.body(measurements=None))) == {}
    # The measurement is kept with the revision, as filed.
    stored = session.scalar(
        select(ManifestRevision.outlet_clearance_in).where(ManifestRevision.manifest_id == uuid.UUID(at_two.json["id"]))
    )
    assert stored == 2.0
    assert at_two.json["manifest"]["measurements"]["outlet_clearance_in"] == 2.0


def test_the_clearance_is_an_interceptors(client, session, frozen_clock):
    """The clause speaks of a Grease Interceptor: a trap measured close to its outlet raises
    nothing under it."""
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
    assert "outlet_clearance" not in findings_of(world.post(trap_body(world, "GT-1", None, measurements=measured(1))))


def test_only_san_clemente_has_the_clearance_rule(client, session, frozen_clock):
    """No other city's ordinance sets a clearance: the same measurement in Victorville is kept
    and raises nothing."""
    world = world_in(client, session, frozen_clock, "victorville")
    assert findings_of(world.post(world.body(measurements=measured(1.0)))) == {}


def test_twenty_five_percent_is_exceeded_only_past_a_quarter(client, session, frozen_clock):
    """13.30.040(C)(6): "operate a Grease Interceptor with Fats, Oils, and Grease and solids
    accumulation exceeding 25% of the design hydraulic depth (total operating depth) of the
    Grease Interceptor"."""
    at, over = at_and_over_a_quarter(client, session, frozen_clock, CITY)
    assert "twenty_five_percent_exceeded" not in at
    assert over["twenty_five_percent_exceeded"]["citation"] == "San Clemente 13.30.040(C)(6)"


def test_the_evening_of_a_permits_last_day_is_still_that_day(client, session, frozen_clock):
    """13.30.050(A): each Operator "shall be required to apply for and obtain a City Discharge
    Permit"; one valid through June 30 covers 23:30 Pacific that day."""
    evening, next_day = evening_of_the_permits_last_day(client, session, frozen_clock, CITY)
    assert "permit_not_active" not in evening
    assert next_day["permit_not_active"]["citation"] == "San Clemente 13.30.050(A)"


def test_a_licensed_hauler_and_a_full_pump_down(client, session, frozen_clock):
    """13.30.040(C)(5): FOG "periodically hauled by a licensed hauler"; (C)(9): no Operator shall
    "maintain a Grease Interceptor in a manner that fails to fully pump down the contents". A
    hauler not registered in the city, and gallons under 90% of the capacity, are exchange
    policy."""
    world = world_in(client, session, frozen_clock, CITY)
    lapsed = factories.hauler(session, cities=(CITY,), licence_expires_on=date(2026, 5, 1), vehicles=(("TRK-1", 3000),))
    token = factories.token(client, *factories.oauth_client(session, role="hauler", subject=[lapsed.id]))
    licence = findings_of(world.post(world.body(), token=token))["hauler_licence_invalid"]
    assert licence["citation"] == "San Clemente 13.30.040(C)(5)"
    stranger = factories.hauler(session, cities=("tracy",), vehicles=(("TRK-1", 3000),))
    token = factories.token(client, *factories.oauth_client(session, role="hauler", subject=[stranger.id]))
    registration = findings_of(world.post(world.body(), token=token))["hauler_licence_invalid"]
    assert (registration["basis"], registration["citation"]) == ("exchange_policy", "exchange policy")
    assert findings_of(world.post(world.body(full_pump_down=False)))["partial_pump_down"]["citation"] == (
        "San Clemente 13.30.040(C)(9)"
    )


def test_the_minimum_interceptor_is_san_clementes(client, session, frozen_clock):
    """13.30.030(K): Grease Interceptors "are large (a minimum of 750 gallons)"."""
    world = world_in(client, session, frozen_clock, CITY)
    response = register_device(client, admin_of(client, session, CITY), world, capacity_gallons=500, frequency_days=45)
    assert response.status_code == 201
    assert response.json["warnings"][0]["citation"] == "San Clemente 13.30.030(K)"
