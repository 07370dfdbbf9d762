"""Each qualifying service in force knows when its device's service before it was completed
(`previous_service_at`): the missed services of a period read their gaps from it. Whatever
changes which services count, and two filings on one device at the same moment, leave every
link what the services in force say it is."""

import threading
import uuid
from collections import defaultdict
from datetime import timedelta

import pytest
from sqlalchemy import select

from storage import migrate
from storage.models import ManifestRevision
from tests import factories
from tests.manifest_world import NOW, build, correct, decide, shifted

DAY = timedelta(days=1)


@pytest.fixture
def world(client, session, frozen_clock):
    frozen_clock(NOW)
    return build(client, session)


def links(session) -> dict:
    """For every qualifying revision in force: (stored link, the one its device's services say)."""
    session.expire_all()
    rows = session.execute(
        select(
            ManifestRevision.id,
            ManifestRevision.device_id,
            ManifestRevision.service_completed_at,
            ManifestRevision.manifest_id,
            ManifestRevision.previous_service_at,
        ).where(ManifestRevision.in_force, ManifestRevision.qualifying)
    ).all()
    by_device = defaultdict(list)
    for row in rows:
        by_device[row.device_id].append(row)
    found = {}
    for services in by_device.values():
        services.sort(key=lambda row: (row.service_completed_at, row.manifest_id))
        before = None
        for row in services:
            found[row.id] = (row.previous_service_at, before)
            before = row.service_completed_at
    return found


def assert_linked(session, count):
    found = links(session)
    assert len(found) == count
    assert [stored for stored, expected in found.values() if stored != expected] == []


def test_late_filings_loads_of_one_service_and_corrections_keep_every_link(world, session):
    auditor = factories.token(world.client, *factories.oauth_client(session, role="auditor", subject=["victorville"]))
    second_device = factories.device(session, permit_row=world.permit, tag="GI-2")

    # In time order: each service links to the one before.
    bodies = [world.body(completed=NOW - days * DAY) for days in (40, 30, 20)]
    for body in bodies:
        assert world.post(body).status_code == 201
    assert_linked(session, 3)
    oldest, middle, newest = (
        session.scalar(
            select(ManifestRevision.previous_service_at).where(
                ManifestRevision.service_completed_at == NOW - days * DAY
            )
        )
        for days in (40, 30, 20)
    )
    assert (oldest, middle, newest) == (None, NOW - 40 * DAY, NOW - 30 * DAY)

    # A late filing between two services: the later one now links to it.
    late = world.body(completed=NOW - 25 * DAY)
    late_filed = world.post(late)
    assert late_filed.status_code == 201
    assert_linked(session, 4)

    # A first load that pumped half: it does not count until a second load of the service
    # completes it, and then both do.
    half = world.post(world.body(completed=NOW - 10 * DAY, gallons_removed=1000))
    assert "partial_pump_down" in [f["code"] for f in half.json["findings"]]
    assert_linked(session, 4)
    rest = world.body(completed=NOW - 10 * DAY + timedelta(hours=1), gallons_removed=450, vehicle_id="TRK-2")
    rest_filed = world.post(rest)
    assert rest_filed.status_code == 201
    assert_linked(session, 6)

    # Corrected to less, the second load no longer completes the service: neither counts.
    smaller = correct(
        world, rest_filed.json, rest, gallons_removed=100, disposal={**rest["disposal"], "gallons_delivered": 100}
    )
    assert smaller.status_code == 201, smaller.json
    assert_linked(session, 4)

    # A correction that moves a service earlier, past another one, and one to another device:
    # both past the filing deadline, so each waits for the city and takes effect on approval.
    moved = correct(world, late_filed.json, shifted(late, -24 * 12))
    assert moved.status_code == 202, moved.json
    assert decide(world.client, auditor, moved.json["id"], "approve").status_code == 200
    assert_linked(session, 4)
    elsewhere = correct(world, late_filed.json, {**shifted(late, -24 * 12), "device_tag": second_device.tag})
    assert elsewhere.status_code == 202, elsewhere.json
    assert decide(world.client, auditor, elsewhere.json["id"], "approve").status_code == 200
    now_on = select(ManifestRevision.device_id).where(
        ManifestRevision.in_force, ManifestRevision.manifest_id == uuid.UUID(late_filed.json["id"])
    )
    assert session.scalar(now_on) == second_device.id
    assert_linked(session, 4)


def test_filings_on_one_device_at_the_same_moment_each_link_to_the_one_before(world, session):
    """Eight dispatch systems file eight services of one interceptor at once, in an order no
    one chose: each filing reads its neighbours only after the one before it committed."""
    bodies = [world.body(completed=NOW - (40 - 3 * k) * DAY) for k in range(8)]
    start = threading.Barrier(len(bodies))
    answers = []

    def file(body):
        start.wait()
        answers.append(world.post(body).status_code)

    threads = [threading.Thread(target=file, args=(body,)) for body in reversed(bodies)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert answers == [201] * len(bodies)
    assert_linked(session, len(bodies))


def test_two_loads_of_one_service_filed_at_the_same_moment_each_count_the_other(world, session):
    """Two trucks pump one interceptor together and their dispatch systems file at once: the
    second filing to commit reads the first, and the pump-down the two loads make up counts."""
    first = world.body(completed=NOW - DAY, gallons_removed=1000)
    second = world.body(completed=NOW - DAY + timedelta(minutes=30), gallons_removed=450, vehicle_id="TRK-2")
    start = threading.Barrier(2)
    answers = []

    def file(body):
        start.wait()
        answers.append(world.post(body).json)

    threads = [threading.Thread(target=file, args=(body,)) for body in (first, second)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(answer["manifest_number"] for answer in answers) == [
        first["manifest_number"],
        second["manifest_number"],
    ]
    session.expire_all()
    counted = session.scalars(select(ManifestRevision.qualifying).where(ManifestRevision.in_force)).all()
    assert counted == [True, True]
    assert_linked(session, 2)


def test_a_correction_and_a_filing_of_one_service_at_the_same_moment_each_read_the_other(world, session):
    """The first truck's dispatcher corrects its load while the second truck's files the rest of
    the pump-down: whichever commits second judges the service with the other's load, and the
    pump-down the two loads make up counts."""
    for day in (3, 6, 9):  # services apart
        first = world.body(completed=NOW - day * DAY, gallons_removed=1000)
        filed = world.post(first)
        assert "partial_pump_down" in [f["code"] for f in filed.json["findings"]]
        second = world.body(completed=NOW - day * DAY + timedelta(minutes=30), gallons_removed=450, vehicle_id="TRK-2")
        start, answers = threading.Barrier(2), []

        def send(call):
            start.wait()
            answers.append(call().status_code)

        calls = [
            lambda: correct(
                world,
                filed.json,
                first,
                gallons_removed=1050,
                disposal={**first["disposal"], "gallons_delivered": 1050},
            ),
            lambda: world.post(second),
        ]
        threads = [threading.Thread(target=send, args=(call,)) for call in calls]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert answers == [201, 201], day
        session.expire_all()
        counted = session.scalars(
            select(ManifestRevision.qualifying).where(
                ManifestRevision.in_force,
                ManifestRevision.service_completed_at >= NOW - day * DAY,
                ManifestRevision.service_completed_at < NOW - (day - 1) * DAY,
            )
        ).all()
        assert counted == [True, True], day
    assert_linked(session, 6)


def test_the_migration_links_the_services_filed_before_it(app, world, session):
    """Migration 0026 finds every qualifying service in force the one before it on its device."""
    for days in (40, 20, 30, 10):  # the third filed late, between the first two
        assert world.post(world.body(completed=NOW - days * DAY)).status_code == 201
    assert world.post(world.body(completed=NOW - 5 * DAY, gallons_removed=700)).status_code == 201  # partial
    session.close()
    engine = app.extensions["fogx.engine"]
    engine.dispose()
    migrate.downgrade(engine, "0025")
    try:
        migrate.upgrade(engine)
    finally:
        engine.dispose()
    assert_linked(session, 4)
    assert (
        session.scalar(
            select(ManifestRevision.previous_service_at).where(ManifestRevision.service_completed_at == NOW - 20 * DAY)
        )
        == NOW - 30 * DAY
    )
