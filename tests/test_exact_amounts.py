"""Depths and gallons judged as exact decimals, from the request body to the stored row to the
rule: a value exactly at an ordinance's limit is at it, not a rounding error past it."""

import io
from datetime import UTC, timedelta
from decimal import Decimal

import pytest
from sqlalchemy import select

from domain.presets import table
from storage.models import Device, ManifestRevision
from tests import factories
from tests.manifest_world import NOW
from tests.ordinance_cases import admin_of, findings_of, register_device, world_in

# Each city's 25% sentence, in its own words and section: 8.3 + 4.3 = 12.6 inches of a
# 50.4-inch design depth is exactly 25%, which does not exceed it; 12.61 does.
QUARTER = {
    "placentia": (
        "Placentia 16.24 General Limitations (b)(9)",
        (
            "No person shall allow the accumulation of FOG and/or solids in a grease interceptor which "
            "accumulation exceeds 25% of the total operating hydraulic depth of the grease interceptor."
        ),
    ),
    "colusa": (
        "Colusa 15A-16(C)(1)",
        (
            "the combined FOG and solids accumulation in the grease interceptor does not exceed twenty-five "
            "percent of the total designed hydraulic depth of the grease interceptor"
        ),
    ),
    "san-clemente": (
        "San Clemente 13.30.040(C)(6)",
        (
            "operate a Grease Interceptor with Fats, Oils, and Grease and solids accumulation exceeding "
            "25% of the design hydraulic depth (total operating depth) of the Grease Interceptor"
        ),
    ),
    "victorville": (
        "Victorville 10.03.160(f)(1)",
        (
            "the combined FOG and solids accumulation does not exceed twenty-five percent of the total "
            "design hydraulic depth of the grease interceptor"
        ),
    ),
    "tracy": (
        "Tracy 5.26 prohibitions (g)",
        (
            "Operation of grease interceptors with FOG and solids accumulation exceeding twenty-five (25) "
            "percent of the design hydraulic depth of the grease interceptor is prohibited."
        ),
    ),
}


@pytest.mark.parametrize("city", sorted(QUARTER))
def test_twelve_point_six_of_fifty_point_four_inches_is_exactly_a_quarter(client, session, frozen_clock, city):
    """Each city's 25% sentence (QUARTER): 12.6 of 50.4 inches is at 25% and stands; 12.61 is
    past it and is flagged with the city's section."""
    citation, quote = QUARTER[city]
    assert {row["rule"]: row for row in table(city)}["twenty_five_percent_rule"]["quote"] == quote
    world = world_in(client, session, frozen_clock, city)
    registered = register_device(client, admin_of(client, session, city), world, liquid_depth_in=50.4)
    assert registered.status_code == 201, registered.json
    assert registered.json["liquid_depth_in"] == 50.4
    at = findings_of(
        world.post(world.body(device_tag="GI-2", measurements={"fog_depth_in": 8.3, "solids_depth_in": 4.3}))
    )
    past = findings_of(
        world.post(world.body(device_tag="GI-2", measurements={"fog_depth_in": 8.3, "solids_depth_in": 4.31}))
    )
    assert "twenty_five_percent_exceeded" not in at
    assert past["twenty_five_percent_exceeded"]["citation"] == citation
    assert "12.61 in" in past["twenty_five_percent_exceeded"]["message"]
    # The stored depths are the ones sent, to the hundredth.
    stored = session.scalars(
        select(ManifestRevision.solids_depth_in)
        .join(Device)
        .where(Device.tag == "GI-2", Device.fse_id == world.device.fse_id)
    ).all()
    assert sorted(stored) == [Decimal("4.3"), Decimal("4.31")]


def test_depths_finer_than_a_hundredth_are_refused_not_rounded(client, session, frozen_clock):
    """Exchange policy: depths are kept to the hundredth of an inch; a finer one is a 422 naming
    the field, never a silent rounding that could move a value across a limit."""
    world = world_in(client, session, frozen_clock, "victorville")
    refused = world.post(world.body(measurements={"fog_depth_in": 8.333, "solids_depth_in": 4}))
    assert refused.status_code == 422 and refused.mimetype == "application/problem+json"
    assert list(refused.json["errors"]) == ["measurements.fog_depth_in"]
    device = register_device(client, admin_of(client, session, "victorville"), world, liquid_depth_in=50.405)
    assert device.status_code == 422 and list(device.json["errors"]) == ["liquid_depth_in"]
    # Trailing zeros are no finer: 8.30 is 8.3.
    assert world.post(world.body(measurements={"fog_depth_in": 8.30, "solids_depth_in": 4})).status_code == 201


def test_a_device_imported_from_csv_keeps_its_depth_exactly(client, session, frozen_clock):
    """The CSV import reads a depth cell as the decimal it spells: 50.4, judged at 12.6 in."""
    world = world_in(client, session, frozen_clock, "colusa")
    admin = admin_of(client, session, "colusa")
    rows = (
        f"permit_number,tag,kind,capacity_gallons,liquid_depth_in,frequency_days\n"
        f"{world.permit.permit_number},GI-9,interceptor,1500,50.4,90\n"
    ).encode()
    imported = client.post(
        "/v1/imports/devices",
        headers=factories.bearer(admin),
        data={"file": (io.BytesIO(rows), "devices.csv")},
        content_type="multipart/form-data",
    )
    assert imported.status_code == 200 and imported.json["created"] == 1, imported.json
    assert session.scalar(select(Device.liquid_depth_in).where(Device.tag == "GI-9")) == Decimal("50.4")
    at = findings_of(
        world.post(world.body(device_tag="GI-9", measurements={"fog_depth_in": 8.3, "solids_depth_in": 4.3}))
    )
    assert "twenty_five_percent_exceeded" not in at


def test_the_two_inch_clearance_and_the_full_pump_down_at_their_edges(client, session, frozen_clock):
    """San Clemente 13.30.040(C)(7): "sludge in any chamber that is within two (2) inches of the
    discharge elbow; under such conditions the Operator of the Food Service Establishment shall
    have the Grease Interceptor serviced immediately": 2.00 in is within, 2.01 is not. And the
    exchange's 0.9 of the capacity for "fully pump down" (13.30.040(C)(9)): 1,350 of 1,500
    gallons is enough, 1,349 is not."""
    world = world_in(client, session, frozen_clock, "san-clemente")

    def measured(clearance):
        return {"fog_depth_in": 4.1, "solids_depth_in": 3.2, "outlet_clearance_in": clearance}

    assert "outlet_clearance" in findings_of(world.post(world.body(measurements=measured(2.00))))
    assert "outlet_clearance" not in findings_of(world.post(world.body(measurements=measured(2.01))))
    # Days apart, so that neither load is another's second truckload.
    enough = world.body(gallons_removed=1350, completed=NOW - timedelta(days=10))
    assert "partial_pump_down" not in findings_of(world.post(enough))
    short = findings_of(world.post(world.body(gallons_removed=1349, completed=NOW - timedelta(days=20))))[
        "partial_pump_down"
    ]
    assert (short["citation"], "1349 gallons removed is under 90%" in short["message"]) == ("exchange policy", True)


def test_depths_stored_before_as_binary_floats_come_back_as_the_decimals_sent(app, client, session, frozen_clock):
    """Migration 0031: a depth kept as a double (8.3 as 8.2999...) is the hundredth it was sent
    as, and the 25% rule reads the stored row as it reads a new one."""
    world = world_in(client, session, frozen_clock, "colusa")
    register_device(client, admin_of(client, session, "colusa"), world, liquid_depth_in=50.4)
    world.post(world.body(device_tag="GI-2", measurements={"fog_depth_in": 8.3, "solids_depth_in": 4.3}))
    factories.migrated_again(app, session, down_to="0026")
    fog, solids, depth = session.execute(
        select(ManifestRevision.fog_depth_in, ManifestRevision.solids_depth_in, Device.liquid_depth_in)
        .join(Device, Device.id == ManifestRevision.device_id)
        .where(Device.tag == "GI-2")
    ).one()
    assert (fog, solids, depth) == (Decimal("8.3"), Decimal("4.3"), Decimal("50.4"))
    assert fog + solids == depth / 4


def test_a_load_and_its_receipt_exactly_five_percent_apart_agree():
    """Exchange policy: a site's scale and a truck's meter may differ by 5% of the larger
    figure; 950 delivered against 1,000 received is exactly 5% and within it, 949 is not, and a
    ticket whose manifests removed exactly what it delivered reconciles."""
    from datetime import datetime

    from domain import checks, reconcile

    assert not reconcile.gallons_differ(950, 1000)
    assert reconcile.gallons_differ(949, 1000)
    rules = checks.Rules(
        manifest_deadline_hours=72,
        twenty_five_percent_rule=Decimal("0.25"),
        full_pump_min_ratio=Decimal("0.9"),
        grace_days=0,
        decant_return_allowed=False,
    )
    at = datetime(2026, 6, 1, 12, tzinfo=UTC)

    def load(gallons):
        return checks.Load(
            service_started_at=at,
            service_completed_at=at,
            waste_type="grease_interceptor_waste",
            gallons_removed=gallons,
            decant_returned_gallons=0,
            full_pump_down=True,
            vehicle_id="T",
        )

    assert checks.load_shortfall([load(700), load(800)], 1500, rules) == []
    assert [f.code for f in checks.load_shortfall([load(700), load(801)], 1500, rules)] == ["load_shortfall"]
