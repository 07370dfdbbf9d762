"""One service filed twice is one service: filings of one device closer together than a truck
could do them (exchange policy), told apart from one service's several truckloads."""

from datetime import timedelta

from sqlalchemy import func, select

from storage.models import ManifestRevision
from tests import factories
from tests.manifest_world import NOW, iso
from tests.ordinance_cases import findings_of, world_in


def window(world, start, minutes, **overrides):
    """A body serviced from `start` for `minutes`."""
    body = world.body(completed=start + timedelta(minutes=minutes), **overrides)
    body["service_started_at"] = iso(start)
    return body


def qualifying(session):
    return session.scalar(select(func.count()).select_from(ManifestRevision).where(ManifestRevision.qualifying))


def test_the_same_device_filed_four_times_within_a_minute_is_one_service(client, session, frozen_clock):
    """Four 990-gallon filings of a 1,000-gallon interceptor, a truck's hour each, started within
    a minute: the first filed stands; the other three are not services."""
    world = world_in(client, session, frozen_clock, "victorville", capacity=1000)
    start = NOW - timedelta(hours=3)
    receipts = [world.post(window(world, start + timedelta(seconds=20 * n), 60, gallons_removed=990)) for n in range(4)]
    first, *again = receipts
    assert first.json["findings"] == [] and first.json["qualifying"]
    for receipt in again:
        finding = findings_of(receipt)["implausible_service"]
        assert (finding["basis"], finding["citation"]) == ("exchange_policy", "exchange policy")
        assert "2026-06-01 02:00 -07:00" in finding["message"]  # the earlier filing's start, local
        assert receipt.json["qualifying"] is False
    assert qualifying(session) == 1
    # The first filing's gallons are its own: the copies do not make a partial service whole.
    small = world_in(client, session, frozen_clock, "victorville", capacity=1500)
    partial = small.post(window(small, start, 60, gallons_removed=990))
    small.post(window(small, start + timedelta(seconds=30), 60, gallons_removed=990))
    reread = client.get(f"/v1/manifests/{partial.json['id']}", headers=factories.bearer(small.hauler_token))
    assert [f["code"] for f in reread.json["findings"]] == ["partial_pump_down"]


def test_truckloads_one_after_another_are_one_service(client, session, frozen_clock):
    """A 3,000-gallon interceptor, one 2,500-gallon truck: it pumps, delivers, comes back for the
    rest. Both loads stand, and together they are a full pump-down."""
    world = world_in(client, session, frozen_clock, "victorville", capacity=3000)
    start = NOW - timedelta(hours=8)
    first = world.post(window(world, start, 60, gallons_removed=2500, full_pump_down=False))
    second = world.post(window(world, start + timedelta(hours=3), 30, gallons_removed=500))
    assert second.json["findings"] == [] and second.json["qualifying"]
    reread = client.get(f"/v1/manifests/{first.json['id']}", headers=factories.bearer(world.hauler_token))
    assert reread.json["findings"] == []
    # Back to back is one after another too.
    world.post(window(world, start + timedelta(hours=3, minutes=30), 20, gallons_removed=100))
    assert qualifying(session) == 3


def test_two_trucks_at_once_stand_unless_their_times_are_the_same(client, session, frozen_clock):
    """Two trucks may pump one interceptor at once; they do not arrive and leave within the
    same minutes, and one truck cannot do two pump-outs at once."""
    world = world_in(client, session, frozen_clock, "victorville", capacity=3000)
    start = NOW - timedelta(hours=8)
    world.post(window(world, start, 60, gallons_removed=2000))
    beside = world.post(window(world, start + timedelta(minutes=20), 30, gallons_removed=900, vehicle_id="TRK-2"))
    assert "implausible_service" not in findings_of(beside)
    copy = world.post(window(world, start + timedelta(minutes=5), 58, gallons_removed=900, vehicle_id="TRK-2"))
    assert "implausible_service" in findings_of(copy)
    same_truck = world.post(window(world, start + timedelta(minutes=40), 60, gallons_removed=900))
    assert "implausible_service" in findings_of(same_truck)


def test_the_earlier_filing_stands_whatever_its_times(client, session, frozen_clock):
    """Which of two clashing filings stands is the order they were filed in; a correction of a
    manifest is never its own copy."""
    world = world_in(client, session, frozen_clock, "victorville")
    start = NOW - timedelta(hours=5)
    standing = world.post(window(world, start, 60))
    later = world.post(window(world, start - timedelta(minutes=30), 60))
    assert "implausible_service" in findings_of(later)
    body = dict(
        window(world, start + timedelta(minutes=5), 60),
        manifest_number=standing.json["manifest_number"],
        reason="times from the truck's log",
    )
    corrected = client.post(
        f"/v1/manifests/{standing.json['id']}/corrections", json=body, headers=factories.bearer(world.hauler_token)
    )
    assert corrected.status_code == 201 and "implausible_service" not in findings_of(corrected)
