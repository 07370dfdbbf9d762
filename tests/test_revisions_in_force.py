"""The revision in force: written in force, turned off by the correction that supersedes it, in
the same transaction; the lists count the revisions in force that qualify, as re-judging
leaves them."""

import uuid
from datetime import timedelta

import pytest
from sqlalchemy import select

from services.records import integrity
from storage.models import Manifest, ManifestRevision
from tests import factories
from tests.manifest_world import NOW, build, correct, decide, shifted

FIRST = NOW - timedelta(hours=50)  # 10:00 UTC on 30 May, 03:00 in Victorville


@pytest.fixture
def world(client, session, frozen_clock):
    frozen_clock(NOW)
    return build(client, session)


@pytest.fixture
def auditor(client, session, world):
    return factories.token(client, *factories.oauth_client(session, role="auditor", subject=["victorville"]))


def in_force(session, manifest_id) -> dict:
    session.expire_all()
    return dict(
        session.execute(
            select(ManifestRevision.revision, ManifestRevision.in_force).where(
                ManifestRevision.manifest_id == uuid.UUID(manifest_id)
            )
        ).all()
    )


def qualifying(session, manifest_id) -> bool:
    session.expire_all()
    return session.scalar(
        select(ManifestRevision.qualifying).where(
            ManifestRevision.manifest_id == uuid.UUID(manifest_id), ManifestRevision.in_force
        )
    )


def last_service_on(world, token):
    response = world.client.get(f"/v1/fses/{world.device.fse_id}/service-status", headers=factories.bearer(token))
    assert response.status_code == 200, response.json
    (device,) = response.json["items"]
    return device["last_service_on"]


def serviced_on(world, token):
    """The day the device's gap since its permit's issue closed, in May's missed services."""
    response = world.client.get(
        "/v1/audit/missed-services",
        query_string={"from": "2026-05-01", "to": "2026-06-01"},
        headers=factories.bearer(token),
    )
    assert response.status_code == 200, response.json
    (gap,) = [row for row in response.json["items"] if row["device_id"] == str(world.device.id)]
    return gap["serviced_on"]


def test_a_correction_puts_its_revision_in_force_and_the_lists_count_that_one_alone(world, session, auditor):
    body = world.body(completed=FIRST)
    filed = world.post(body)
    assert filed.status_code == 201, filed.json
    manifest = filed.json
    assert in_force(session, manifest["id"]) == {1: True}
    assert last_service_on(world, auditor) == "2026-05-30"

    # Two days earlier: the first filing's service, later than this one, no longer counts.
    earlier = correct(world, manifest, shifted(body, -48))
    assert earlier.status_code == 201 and earlier.json["revision"] == 2, earlier.json
    assert in_force(session, manifest["id"]) == {1: False, 2: True}
    assert last_service_on(world, auditor) == "2026-05-28"
    assert serviced_on(world, auditor) == "2026-05-28"

    # A day later than filed: the 28th, earlier in May, no longer closes the gap.
    later = correct(world, manifest, shifted(body, 24))
    assert later.status_code == 201 and later.json["revision"] == 3, later.json
    assert in_force(session, manifest["id"]) == {1: False, 2: False, 3: True}
    assert serviced_on(world, auditor) == "2026-05-31"
    assert last_service_on(world, auditor) == "2026-05-31"

    # A move past the deadline waits, the revision in force stays; approved, it takes its place.
    waiting = correct(world, manifest, shifted(body, -96))
    assert waiting.status_code == 202, waiting.json
    assert in_force(session, manifest["id"]) == {1: False, 2: False, 3: True}
    assert decide(world.client, auditor, waiting.json["id"], "approve").status_code == 200
    assert in_force(session, manifest["id"]) == {1: False, 2: False, 3: False, 4: True}
    assert serviced_on(world, auditor) == last_service_on(world, auditor) == "2026-05-26"
    assert integrity.problems(session, session.get(Manifest, uuid.UUID(manifest["id"]))) == []


def test_re_judging_a_load_turns_its_service_on_and_off_in_the_lists(world, session, auditor):
    """A partial pump-down counts once a second load of the same service completes it, and stops
    counting when that load is corrected to less."""
    first = world.post(world.body(completed=FIRST, gallons_removed=1000))
    assert first.status_code == 201 and [f["code"] for f in first.json["findings"]] == ["partial_pump_down"]
    assert qualifying(session, first.json["id"]) is False
    assert last_service_on(world, auditor) is None

    second_body = world.body(completed=FIRST + timedelta(hours=1), gallons_removed=450, vehicle_id="TRK-2")
    second = world.post(second_body)
    assert second.status_code == 201, second.json
    assert qualifying(session, first.json["id"]) is True
    assert last_service_on(world, auditor) == serviced_on(world, auditor) == "2026-05-30"

    smaller = correct(
        world,
        second.json,
        second_body,
        gallons_removed=100,
        disposal={**second_body["disposal"], "gallons_delivered": 100},
    )
    assert smaller.status_code == 201, smaller.json
    assert qualifying(session, first.json["id"]) is False
    assert in_force(session, second.json["id"]) == {1: False, 2: True}
    assert last_service_on(world, auditor) is None


def test_the_integrity_check_finds_a_revision_in_force_that_is_not_the_current_one(world, session):
    body = world.body()
    filed = world.post(body)
    manifest_id = uuid.UUID(filed.json["id"])
    assert correct(world, filed.json, body, driver_name="Sam Ortiz").status_code == 201
    row = session.scalar(
        select(ManifestRevision).where(ManifestRevision.manifest_id == manifest_id, ManifestRevision.revision == 1)
    )
    row.in_force = True
    session.commit()
    found = integrity.problems(session, session.get(Manifest, manifest_id))
    assert found == ["the revisions in force are [1, 2], not the current revision 2"]
