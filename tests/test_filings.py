"""The filing use case from the service down: `submit` answers what the receipt shows, and its
unit of work (`storage.filings.run`) commits once or leaves nothing."""

from datetime import timedelta

import pytest
from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from auth.principal import principal_of
from schemas.manifest import ManifestIn
from services.filing import manifests
from storage import filings
from storage.models import Fse, Jurisdiction, ManifestRevision, OAuthClient
from tests import factories
from tests.manifest_world import NOW, build


@pytest.fixture
def world(client, session, frozen_clock):
    frozen_clock(NOW)
    return build(client, session)


def _hauler(session, world):
    return principal_of(session.scalars(select(OAuthClient).filter_by(client_id=world.credentials[0])).one())


def _stored(app, model, row_id):
    with Session(bind=app.extensions["fogx.engine"]) as elsewhere:
        return elsewhere.get(model, row_id)


def test_a_filing_answers_with_what_its_receipt_shows_committed(app, world, session):
    body = world.body()
    filed = manifests.submit(session, _hauler(session, world), data=ManifestIn().load(body))
    assert filed.created and filed.revision.revision == 1 and filed.revision.findings == []
    assert filed.due_by == NOW.date() + timedelta(days=90) and filed.device.frequency_days == 90
    # One unit of work, committed: nothing is left open, and another connection reads the rows.
    assert not session.in_transaction()
    assert _stored(app, ManifestRevision, filed.revision.id).sha256 == filed.revision.sha256
    read = world.client.get(f"/v1/manifests/{filed.manifest.id}", headers=factories.bearer(world.hauler_token))
    assert read.json["due_by"] == filed.due_by.isoformat() and read.json["sha256"] == filed.revision.sha256

    again = manifests.submit(session, _hauler(session, world), data=ManifestIn().load(body))
    assert not again.created and again.manifest.id == filed.manifest.id
    assert (again.revision.sha256, again.due_by) == (filed.revision.sha256, filed.due_by)


def test_a_filing_beside_a_load_of_its_service_answers_the_due_day_of_both(app, world, session):
    """Two half loads of one service: the second completes the pump-down, so the service counts
    from the second's receipt on, read from what the filing already judged."""
    first = world.body(completed=NOW - timedelta(hours=5), gallons_removed=700)
    second = world.body(completed=NOW - timedelta(hours=3), gallons_removed=750)
    hauler = _hauler(session, world)
    alone = manifests.submit(session, hauler, data=ManifestIn().load(first))
    assert [f.code for f in alone.revision.findings] == ["partial_pump_down"] and alone.due_by is None
    both = manifests.submit(session, hauler, data=ManifestIn().load(second))
    assert both.revision.qualifying and both.due_by == (NOW - timedelta(hours=3)).date() + timedelta(days=90)
    assert not session.in_transaction()
    read = world.client.get(f"/v1/manifests/{alone.manifest.id}", headers=factories.bearer(world.hauler_token))
    assert read.json["findings"] == [] and read.json["due_by"] == both.due_by.isoformat()


def _unit_of_work(session, work):
    """`work()` as a use case runs it: in its attempts, committed once."""
    for attempt in filings.attempts(session):
        with attempt:
            result = work()
            filings.commit(session)
    return result


def test_a_unit_of_work_commits_its_new_rows_with_its_other_changes(app, session):
    jurisdiction = factories.jurisdiction(session)
    session.commit()
    fse = factories.unflushed_fse(jurisdiction, "Alone")

    def alone():
        filings.insert(session, fse, [fse])
        return fse.id

    assert _unit_of_work(session, alone) == fse.id
    assert not session.in_transaction() and _stored(app, Fse, fse.id).name == "Alone"

    beside = factories.unflushed_fse(jurisdiction, "Beside")

    def with_a_change():
        session.get(Jurisdiction, jurisdiction.id).name = "Renamed"
        filings.insert(session, beside, [beside])

    _unit_of_work(session, with_a_change)
    assert _stored(app, Fse, beside.id).name == "Beside"
    assert _stored(app, Jurisdiction, jurisdiction.id).name == "Renamed"


def test_a_unit_of_work_that_fails_leaves_nothing_and_is_not_made_again(app, session):
    jurisdiction = factories.jurisdiction(session)
    session.commit()
    fse = factories.unflushed_fse(jurisdiction, "Never")
    tries = []

    def fails():
        tries.append(1)
        session.get(Jurisdiction, jurisdiction.id).name = "Never renamed"
        filings.insert(session, fse, [fse])
        raise RuntimeError("a check failed")

    with pytest.raises(RuntimeError):
        _unit_of_work(session, fails)
    assert len(tries) == 1 and not session.in_transaction()
    # The rows it staged are gone with it: the next unit of work writes none of them.
    _unit_of_work(session, lambda: None)
    assert _stored(app, Fse, fse.id) is None
    assert _stored(app, Jurisdiction, jurisdiction.id).name != "Never renamed"


def test_a_unit_of_work_whose_rows_collide_rolls_back_all_it_did(app, session):
    """New rows that break a constraint, sent with the COMMIT, leave nothing of the unit of work."""
    jurisdiction = factories.jurisdiction(session)
    session.commit()
    first = factories.unflushed_fse(jurisdiction, "First")
    _unit_of_work(session, lambda: filings.insert(session, first, [first]))
    again = factories.unflushed_fse(jurisdiction, "Again")
    again.id = first.id

    def collides():
        filings.insert(session, again, [again])

    with pytest.raises(IntegrityError):
        _unit_of_work(session, collides)
    assert not session.in_transaction() and _stored(app, Fse, first.id).name == "First"
