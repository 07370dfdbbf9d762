"""Manifest submission: every finding code fires when it should and only then; never lost."""

import json
import threading
from datetime import UTC, date, datetime, timedelta

import pytest
import requests
from sqlalchemy import func, select, text, update

from domain import chain
from storage.models import DisposalSiteJurisdiction, Manifest, ManifestRevision, PermitStatusChange
from tests import factories
from tests.manifest_world import NOW, build, iso, post_multipart
from tests.statements import counted


@pytest.fixture
def world(client, session, frozen_clock):
    frozen_clock(NOW)
    return build(client, session)


def test_a_clean_manifest_is_accepted_with_a_receipt(world):
    response = world.post(world.body())
    assert response.status_code == 201
    receipt = response.json
    assert receipt["status"] == "accepted" and receipt["findings"] == []
    assert receipt["revision"] == 1
    assert receipt["received_at"] == "2026-06-01T12:00:00Z"
    assert len(receipt["sha256"]) == 64
    assert receipt["due_by"] == (NOW.date() + timedelta(days=90)).isoformat()
    assert response.headers["Location"].endswith(receipt["id"])
    fetched = world.client.get(response.headers["Location"], headers=factories.bearer(world.hauler_token))
    assert fetched.json["sha256"] == receipt["sha256"]


def test_late_submission_is_stored_and_flagged_never_rejected(world):
    body = world.body(completed=NOW - timedelta(hours=73))
    response = world.post(body)
    assert response.status_code == 201
    assert [f["code"] for f in response.json["findings"]] == ["late_submission"]
    finding = response.json["findings"][0]
    assert finding["severity"] == "violation" and finding["citation"] == "Victorville 10.03.170(b)"
    assert world.session.scalar(select(func.count()).select_from(Manifest)) == 1
    assert world.codes(world.body(completed=NOW - timedelta(hours=71))) == []


def test_the_deadline_comes_from_the_jurisdiction(world):
    world.set_rules(manifest_deadline_hours=24)
    assert world.codes(world.body(completed=NOW - timedelta(hours=30))) == ["late_submission"]
    world.set_rules(manifest_deadline_hours=72)
    assert world.codes(world.body(completed=NOW - timedelta(hours=32))) == []


def test_permit_not_active(world):
    world.session.add(PermitStatusChange(permit_id=world.permit.id, status="suspended", effective_on=date(2026, 5, 1)))
    world.session.commit()
    assert "permit_not_active" in world.codes(world.body())
    february = world.body(completed=NOW.replace(month=2), disposal=None)
    assert "permit_not_active" not in world.codes(february)


def test_of_two_permit_changes_on_one_day_the_later_recorded_stands(world):
    """A suspension lifted the same day: the reinstatement, recorded later, is what a filing
    reads, whichever row the database happens to hold first (here the reinstatement)."""
    day, morning = date(2026, 5, 1), NOW.replace(month=5, day=1, hour=8)
    world.session.add(
        PermitStatusChange(
            permit_id=world.permit.id, status="active", effective_on=day, recorded_at=morning + timedelta(hours=4)
        )
    )
    world.session.commit()
    world.session.add(
        PermitStatusChange(permit_id=world.permit.id, status="suspended", effective_on=day, recorded_at=morning)
    )
    world.session.commit()
    assert "permit_not_active" not in world.codes(world.body())


def test_waste_type_mismatch(world):
    assert world.codes(world.body(waste_type="grease_trap_waste")) == ["waste_type_mismatch"]
    assert world.codes(world.body(waste_type="grease_interceptor_waste")) == []


def test_partial_pump_down_by_gallons_or_attestation(world):
    assert world.codes(world.body(gallons_removed=1000)) == ["partial_pump_down"]
    assert world.codes(world.body(full_pump_down=False)) == ["partial_pump_down"]
    assert world.codes(world.body(gallons_removed=1350)) == []  # 90% of 1,500


def test_the_full_pump_ratio_comes_from_the_jurisdiction(world):
    world.set_rules(full_pump_min_ratio=0.95)
    assert world.codes(world.body(gallons_removed=1400)) == ["partial_pump_down"]
    world.set_rules(full_pump_min_ratio=0.9)
    assert world.codes(world.body(gallons_removed=1400)) == []


def test_two_truckloads_within_a_day_are_one_service(client, session, frozen_clock):
    frozen_clock(NOW)
    world = build(client, session, capacity=3000)
    first = world.post(world.body(completed=NOW - timedelta(hours=6), gallons_removed=2500, full_pump_down=False))
    assert [f["code"] for f in first.json["findings"]] == ["partial_pump_down"]
    assert first.json["due_by"] is None  # nothing qualifying yet
    second = world.post(world.body(completed=NOW - timedelta(hours=3), gallons_removed=500))
    assert second.json["findings"] == []
    # The second load makes the service whole: its receipt is due from the later load, and a
    # fresh read of either manifest agrees.
    due = ((NOW - timedelta(hours=3)).date() + timedelta(days=90)).isoformat()
    assert second.json["due_by"] == due
    again = world.client.get(f"/v1/manifests/{first.json['id']}", headers=factories.bearer(world.hauler_token))
    assert again.json["findings"] == []
    assert again.json["due_by"] == due
    history = world.client.get(
        f"/v1/manifests/{first.json['id']}/revisions", headers=factories.bearer(world.hauler_token)
    ).json["items"][0]["findings"]
    assert history[0]["code"] == "partial_pump_down" and history[0]["cleared_at"]


def test_decant_returned_unless_the_jurisdiction_allows_it(world):
    assert world.codes(world.body(decant_returned_gallons=200)) == ["decant_returned"]
    world.set_rules(decant_return_allowed=True)
    assert world.codes(world.body(decant_returned_gallons=200)) == []


def test_twenty_five_percent_rule(world):
    """Victorville 10.03.160(f)(1): the accumulation "does not exceed twenty-five percent": at
    exactly 25% the interceptor complies; over it, it does not."""
    at_limit = {"fog_depth_in": 8, "solids_depth_in": 4, "liquid_depth_in": 48}  # 12 of 48 in
    assert world.codes(world.body(measurements=at_limit)) == []
    over = {"fog_depth_in": 8, "solids_depth_in": 4.1, "liquid_depth_in": 48}
    assert world.codes(world.body(measurements=over)) == ["twenty_five_percent_exceeded"]
    under = {"fog_depth_in": 7, "solids_depth_in": 4.9, "liquid_depth_in": 48}
    assert world.codes(world.body(measurements=under)) == []
    assert world.codes(world.body(measurements=None)) == []


def test_hauler_registered_only_in_victorville_filing_for_tracy(client, session, frozen_clock):
    frozen_clock(NOW)
    tracy = build(client, session, city="tracy")
    victorville_hauler = factories.hauler(session, cities=("victorville",), vehicles=(("TRK-1", 3000),))
    token = factories.token(client, *factories.oauth_client(session, role="hauler", subject=[victorville_hauler.id]))
    body = tracy.body(disposal=None, completed=NOW - timedelta(hours=1))
    response = tracy.post(body, token=token)
    assert response.status_code == 201
    # Tracy is judged by Tracy's rows alone, and it has none of the hauler's: no registration,
    # no licence on record, no truck it accepts.
    assert [f["code"] for f in response.json["findings"]] == ["hauler_licence_invalid", "vehicle_unregistered"]
    assert "not registered" in response.json["findings"][0]["message"]


def test_expired_licence_is_hauler_licence_invalid(client, session, frozen_clock):
    frozen_clock(NOW)
    world = build(client, session)
    lapsed = factories.hauler(session, licence_expires_on=date(2026, 5, 1), vehicles=(("TRK-1", 3000),))
    token = factories.token(client, *factories.oauth_client(session, role="hauler", subject=[lapsed.id]))
    assert world.codes(world.body(), token=token) == ["hauler_licence_invalid"]


def test_vehicle_unregistered_or_overloaded(world):
    assert world.codes(world.body(vehicle_id="NOT-OURS")) == ["vehicle_unregistered"]
    overloaded = world.body(vehicle_id="TRK-2", gallons_removed=1450)  # a 1,000-gallon truck
    assert world.codes(overloaded) == ["vehicle_unregistered"]
    assert world.codes(world.body(vehicle_id="TRK-1")) == []


def test_registry_changes_reach_the_very_next_filing(world, client, session):
    """Hauler and site facts outlive a request, but any write to their tables, through the
    API or straight in SQL, is seen by the next filing."""
    assert world.codes(world.body(vehicle_id="TRK-9")) == ["vehicle_unregistered"]
    admin = factories.token(client, *factories.oauth_client(session, role="admin", subject=["victorville"]))
    added = client.post(
        f"/v1/haulers/{world.hauler.id}/vehicles",
        headers=factories.bearer(admin),
        json={"vehicle_id": "TRK-9", "tank_capacity_gallons": 3000},
    )
    assert added.status_code == 201, added.json
    assert world.codes(world.body(vehicle_id="TRK-9")) == []
    session.execute(text("UPDATE vehicles SET tank_capacity_gallons = 500 WHERE vehicle_id = 'TRK-9'"))
    session.commit()
    assert world.codes(world.body(vehicle_id="TRK-9")) == ["vehicle_unregistered"]
    session.execute(
        update(DisposalSiteJurisdiction)
        .where(DisposalSiteJurisdiction.site_id == world.site.id)
        .values(approved_until=date(2026, 1, 1))
    )
    session.commit()
    assert world.codes(world.body(vehicle_id="TRK-1")) == ["disposal_site_unapproved"]
    session.execute(text("DELETE FROM registry_generation"))  # even the counter's row lost
    session.commit()
    session.execute(
        update(DisposalSiteJurisdiction)
        .where(DisposalSiteJurisdiction.site_id == world.site.id)
        .values(approved_until=None)
    )
    session.commit()
    assert world.codes(world.body(vehicle_id="TRK-1")) == []


def test_disposal_site_unapproved(world, session):
    closed = factories.disposal_site(session, status="closed")
    body = world.body()
    body["disposal"]["site_id"] = str(closed.id)
    assert world.codes(body) == ["disposal_site_unapproved"]
    trap_only = factories.disposal_site(session, waste_types=("grease_trap_waste",))
    body = world.body()
    body["disposal"]["site_id"] = str(trap_only.id)
    assert world.codes(body) == ["disposal_site_unapproved"]
    body = world.body()
    body["disposal"]["site_id"] = "00000000-0000-0000-0000-000000000001"
    assert world.codes(body) == ["disposal_site_unapproved"]


def test_disposal_before_service(world):
    body = world.body()
    body["disposal"]["delivered_at"] = iso(NOW - timedelta(hours=5))
    assert world.codes(body) == ["disposal_before_service"]


def test_disposal_unconfirmed_once_the_deadline_passes(world, app, frozen_clock):
    young = world.post(world.body(disposal=None, completed=NOW - timedelta(hours=10)))
    assert young.json["findings"] == []
    old = world.codes(world.body(disposal=None, completed=NOW - timedelta(hours=80)))
    assert old == ["disposal_unconfirmed", "late_submission"]
    frozen_clock(NOW + timedelta(hours=63))
    result = app.test_cli_runner().invoke(args=["manifests", "reevaluate"])
    assert result.exit_code == 0 and "1 manifest" in result.output
    world.reauthenticate()
    later = world.client.get(f"/v1/manifests/{young.json['id']}", headers=factories.bearer(world.hauler_token))
    assert [f["code"] for f in later.json["findings"]] == ["disposal_unconfirmed"]


def test_load_shortfall_across_a_ticket(world):
    first = world.body(gallons_removed=1400)
    first["disposal"].update(ticket_number="T-SHARED", gallons_delivered=2000)
    one = world.post(first)
    assert one.json["findings"] == []
    second = world.body(gallons_removed=1400, completed=NOW - timedelta(hours=1))
    second["disposal"].update(ticket_number="T-SHARED", gallons_delivered=2000)
    second["manifest_number"] = "M-OTHER"
    two = world.post(second)
    assert [f["code"] for f in two.json["findings"]] == ["load_shortfall"]
    again = world.client.get(f"/v1/manifests/{one.json['id']}", headers=factories.bearer(world.hauler_token))
    assert [f["code"] for f in again.json["findings"]] == ["load_shortfall"]


def another_restaurant(session):
    """A second restaurant in the world's city: its permit and interceptor."""
    permit = factories.permit(
        session, fse_row=factories.fse(session), issued_on=date(2025, 1, 1), expires_on=date(2027, 12, 31)
    )
    device = factories.device(session, permit_row=permit, capacity_gallons=1500)
    session.commit()
    return permit, device


def at_once(world, bodies, post=None):
    """`bodies` posted (by `post`, else as JSON) by as many dispatch clients at the same
    moment: their responses."""
    start, filed = threading.Barrier(len(bodies)), []

    def file(body):
        start.wait()
        filed.append((post or world.post)(body))

    threads = [threading.Thread(target=file, args=(body,)) for body in bodies]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return filed


def test_loads_on_one_ticket_filed_at_the_same_moment_each_count_the_other(world, session):
    """A truck's route: two restaurants pumped, one disposal ticket, both manifests filed at
    once by two dispatch clients. Each filing must read the other's load, whichever commits
    first: 1,400 + 1,400 gallons on a ticket that delivered 2,000 is a shortfall on both."""
    other_permit, other_device = another_restaurant(session)
    for route in range(3):
        bodies = [world.body(gallons_removed=1400, completed=NOW - timedelta(hours=3 + route)) for _ in range(2)]
        bodies[1].update(permit_number=other_permit.permit_number, device_tag=other_device.tag)
        for body in bodies:
            body["disposal"].update(ticket_number=f"T-ROUTE-{route}", gallons_delivered=2000)
        filed = at_once(world, bodies)
        assert sorted(response.status_code for response in filed) == [201, 201]
        for response in filed:
            now = world.client.get(f"/v1/manifests/{response.json['id']}", headers=factories.bearer(world.hauler_token))
            assert [f["code"] for f in now.json["findings"]] == ["load_shortfall"], route


@pytest.mark.postgresql_only  # SQLite's writers take turns
@pytest.mark.parametrize("scans", [False, True])
def test_filings_whose_neighbours_cross_tickets_both_land(world, session, scans):
    """Two restaurants, two tickets, and each new load's neighbours on the other's ticket: each
    filing holds its own ticket and then waits for the other's. The database breaks the
    deadlock by ending one; that filing is made again once the other committed, and both
    dispatch clients get their receipt, each judged with the loads on its ticket (and with
    `scans`, each with its scan attached once)."""
    other_permit, other_device = another_restaurant(session)
    on_other = {"permit_number": other_permit.permit_number, "device_tag": other_device.tag}
    for day in (3, 6, 9):  # services apart
        at = NOW - timedelta(days=day)
        tickets = [f"T-{day}-ONE", f"T-{day}-TWO"]
        # Already filed: a later load of each service, each on the other restaurant's new ticket.
        for moment, ticket, device in (
            (at + timedelta(hours=2), tickets[1], {}),
            (at + timedelta(hours=3), tickets[0], on_other),
        ):
            body = world.body(completed=moment, gallons_removed=700, **device)
            body["disposal"].update(ticket_number=ticket, gallons_delivered=1400)
            assert world.post(body).status_code == 201
        bodies = [
            world.body(completed=at, gallons_removed=700),
            world.body(completed=at, gallons_removed=700, **on_other),
        ]
        for body, ticket in zip(bodies, tickets):
            body["disposal"].update(ticket_number=ticket, gallons_delivered=1000)
        scan = factories.pdf_bytes()
        filed = at_once(
            world, bodies, post=(lambda body: post_multipart(world, body, [("scan.pdf", scan)])) if scans else None
        )
        assert sorted(response.status_code for response in filed) == [201, 201], day
        if scans:
            assert [len(response.json["documents"]) for response in filed] == [1, 1]
        # 700 + 700 on each ticket that delivered 1,000: a shortfall on all four loads.
        for response in filed:
            now = world.client.get(f"/v1/manifests/{response.json['id']}", headers=factories.bearer(world.hauler_token))
            assert "load_shortfall" in [f["code"] for f in now.json["findings"]], day


def test_service_interval_exceeded_and_grace(world):
    assert world.codes(world.body(completed=NOW - timedelta(days=100), disposal=None, measurements=None)) == [
        "disposal_unconfirmed",
        "late_submission",
    ]
    # 98 days after the previous qualifying service, on a 90-day device.
    assert "service_interval_exceeded" in world.codes(world.body(completed=NOW - timedelta(days=2)))
    world.set_rules(grace_days=14)
    assert "service_interval_exceeded" not in world.codes(world.body(completed=NOW - timedelta(days=1)))


def test_a_partial_service_does_not_count_as_the_previous_service(world):
    world.codes(world.body(completed=NOW - timedelta(days=120)))
    world.codes(world.body(completed=NOW - timedelta(days=60), gallons_removed=500))
    assert "service_interval_exceeded" in world.codes(world.body())


# Rejected: cannot be filed ------------------------------------------------------------------


def test_schema_errors_are_422_with_every_field(world):
    body = world.body(
        gallons_removed=-5,
        waste_type="soup",
        service_completed_at="yesterday",
        measurements={"fog_depth_in": "deep"},
        colour="red",
    )
    del body["driver_name"]
    response = world.post(body)
    assert response.status_code == 422
    assert set(response.json["errors"]) >= {
        "gallons_removed",
        "waste_type",
        "service_completed_at",
        "measurements.fog_depth_in",
        "measurements.solids_depth_in",
        "driver_name",
        "colour",
    }
    assert world.session.scalar(select(func.count()).select_from(Manifest)) == 0


def test_naive_times_and_future_services_are_refused(world):
    naive = world.post(world.body(service_completed_at="2026-06-01T10:00:00"))
    assert naive.status_code == 422 and "service_completed_at" in naive.json["errors"]
    future = world.post(world.body(completed=NOW + timedelta(days=1)))
    assert future.status_code == 422 and "service_completed_at" in future.json["errors"]


@pytest.mark.parametrize(
    "written",
    [
        "2026-05-30T05:00:00-07:00",  # an offset: kept in UTC
        "2026-05-30 12:00:00Z",  # a space for the T (RFC 3339 section 5.6, note)
        "2026-05-30T12:00:00.0000000001Z",  # a fraction finer than a microsecond
    ],
)
def test_every_rfc_3339_form_of_a_moment_is_read_as_that_moment(world, written):
    body = world.body(completed=datetime(2026, 5, 30, 12, tzinfo=UTC))
    body["service_completed_at"] = written
    filed = world.post(body)
    assert filed.status_code == 201, filed.json
    assert filed.json["manifest"]["service_completed_at"] == "2026-05-30T12:00:00Z"


def test_unknown_permit_or_device_is_422_naming_the_field(world):
    assert set(world.post(world.body(permit_number="NOPE")).json["errors"]) == {"permit_number"}
    assert set(world.post(world.body(device_tag="GT-9")).json["errors"]) == {"device_tag"}


def test_a_permit_number_used_in_two_cities_is_read_in_the_haulers_city(client, session, frozen_clock):
    frozen_clock(NOW)
    tracy = build(client, session, city="tracy")
    twin = factories.permit(
        session, fse_row=factories.fse(session, city="victorville"), number=tracy.permit.permit_number
    )
    factories.device(session, permit_row=twin)
    filed = tracy.post(tracy.body())  # the hauler is registered in Tracy only
    assert filed.status_code == 201, filed.json
    assert filed.json["device_id"] == str(tracy.device.id)
    both = factories.hauler(session, cities=("tracy", "victorville"), vehicles=(("TRK-1", 3000),))
    token = factories.token(client, *factories.oauth_client(session, role="hauler", subject=[both.id]))
    ambiguous = tracy.post(tracy.body(), token=token)
    assert ambiguous.status_code == 422
    assert ambiguous.json["errors"] == {"permit_number": ["Used in several jurisdictions."]}


def test_a_filing_answers_for_its_token_before_its_body(world, client, frozen_clock):
    """The token is checked first, whatever the body names: the filing, 422 naming an unknown
    permit or device, the schema's 422 where the body does not name them plainly, and 401 for an
    unknown, expired or revoked token (from the moment the revocation is answered)."""
    filed = world.post(world.body())
    assert filed.status_code == 201 and filed.json["device_id"] == str(world.device.id)
    assert set(world.post(world.body(permit_number="NOPE")).json["errors"]) == {"permit_number"}
    assert set(world.post(world.body(device_tag="GT-9")).json["errors"]) == {"device_tag"}
    assert world.post(world.body(), token="never-issued").status_code == 401
    assert world.post(world.body(permit_number="NOPE"), token="never-issued").status_code == 401
    not_plain = world.post(world.body(permit_number=7))
    assert not_plain.status_code == 422 and set(not_plain.json["errors"]) == {"permit_number"}
    frozen_clock(NOW + timedelta(hours=2))  # the token has expired
    assert world.post(world.body()).status_code == 401
    frozen_clock(NOW)
    assert world.post(world.body()).status_code == 201
    assert client.post("/oauth/revoke", data={"token": world.hauler_token}, auth=world.credentials).status_code == 200
    assert world.post(world.body()).status_code == 401
    assert world.session.scalar(select(func.count()).select_from(Manifest)) == 2


def test_a_422_tells_nothing_of_another_citys_permits(client, session, frozen_clock):
    """A permit number of a city the hauler is not registered in answers as one that exists
    nowhere, unless the filing names its device too (then it is filed and flagged)."""
    frozen_clock(NOW)
    tracy = build(client, session, city="tracy")  # the hauler is registered in Tracy only
    elsewhere = factories.permit(session, fse_row=factories.fse(session, city="victorville"), number="VV-ONLY")
    factories.device(session, permit_row=elsewhere, tag="GI-7")
    unknown = tracy.post(tracy.body(permit_number="NO-SUCH", device_tag="GI-7"))
    wrong_device = tracy.post(tracy.body(permit_number="VV-ONLY", device_tag="GI-8"))
    assert unknown.status_code == wrong_device.status_code == 422
    assert unknown.json["detail"] == wrong_device.json["detail"]
    assert unknown.json["errors"] == wrong_device.json["errors"] == {"permit_number": ["No such permit."]}
    # The same number and device in two other cities: still no permit of the hauler's.
    twin = factories.permit(session, fse_row=factories.fse(session, city="colusa"), number="VV-ONLY")
    factories.device(session, permit_row=twin, tag="GI-7")
    two_cities = tracy.post(tracy.body(permit_number="VV-ONLY", device_tag="GI-7"))
    assert two_cities.status_code == 422
    assert two_cities.json["errors"] == {"permit_number": ["No such permit."]}


def test_only_hauler_clients_file(world, client, session):
    auditor = factories.token(client, *factories.oauth_client(session, role="auditor", subject=["victorville"]))
    response = world.post(world.body(), token=auditor)
    assert response.status_code == 403


# Retries ------------------------------------------------------------------------------------


def test_the_same_manifest_twice_is_stored_once(world):
    body = world.body()
    first, second = world.post(body), world.post(body)
    assert (first.status_code, second.status_code) == (201, 200)
    assert first.json["id"] == second.json["id"] and first.json["sha256"] == second.json["sha256"]
    changed = dict(body, gallons_removed=1400)
    conflict = world.post(changed)
    assert conflict.status_code == 409 and conflict.mimetype == "application/problem+json"
    assert world.session.scalar(select(func.count()).select_from(ManifestRevision)) == 1


def test_idempotency_key(world):
    body = world.body()
    first = world.post(body, headers={"Idempotency-Key": "k-1"})
    replay = world.post(body, headers={"Idempotency-Key": "k-1"})
    assert first.status_code == replay.status_code == 201
    assert replay.json == first.json and replay.headers["Idempotent-Replayed"] == "true"
    other = world.post(world.body(), headers={"Idempotency-Key": "k-1"})
    assert other.status_code == 422 and "Idempotency-Key" in other.json["errors"]


def test_idempotency_key_in_flight_is_409_until_its_holder_dies(app, world, session):
    """A key whose request is still working answers 409; once that worker is gone, a retry
    is served instead of waiting for a timeout."""
    import hashlib

    from api.idempotency import lease
    from storage.models import IdempotencyRecord, OAuthClient

    body = world.body()
    raw = json.dumps(body).encode()
    client_pk = session.scalar(select(OAuthClient.id).where(OAuthClient.role == "hauler"))
    fingerprint = hashlib.sha256(b"POST /v1/manifests\n" + raw).hexdigest()
    session.add(IdempotencyRecord(client_id=client_pk, key="busy", request_sha256=fingerprint))
    session.commit()

    def send():
        return world.client.post(
            "/v1/manifests",
            data=raw,
            content_type="application/json",
            headers={**factories.bearer(world.hauler_token), "Idempotency-Key": "busy"},
        )

    with app.app_context():
        holder = lease(client_pk, "busy")
        assert holder.try_acquire()  # the first request, still working
        try:
            busy = send()
        finally:
            holder.release()  # ... until its worker dies
    assert busy.status_code == 409 and busy.headers["Retry-After"] == "1"
    assert send().status_code == 201
    assert send().headers["Idempotent-Replayed"] == "true"


def test_fifty_concurrent_identical_posts_store_one_manifest(app, world):
    from tests.conftest import serve

    body = world.body()
    statuses = []
    with serve(app) as base:

        def post():
            response = requests.post(
                f"{base}/v1/manifests", json=body, timeout=60, headers=factories.bearer(world.hauler_token)
            )
            statuses.append(response.status_code)

        threads = [threading.Thread(target=post) for _ in range(50)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    assert sorted(set(statuses)) <= [200, 201] and statuses.count(201) == 1, statuses
    world.session.expire_all()
    assert world.session.scalar(select(func.count()).select_from(Manifest)) == 1
    assert world.session.scalar(select(func.count()).select_from(ManifestRevision)) == 1


# Corrections --------------------------------------------------------------------------------


def test_a_correction_keeps_revision_one_and_chains_the_hash(world):
    body = world.body(disposal=None)
    first = world.post(body).json
    correction = dict(
        body,
        reason="disposal ticket at the end of the day",
        disposal={
            "site_id": str(world.site.id),
            "ticket_number": "T-END",
            "delivered_at": iso(NOW - timedelta(minutes=30)),
            "gallons_delivered": 1450,
        },
    )
    path = f"/v1/manifests/{first['id']}"
    headers = factories.bearer(world.hauler_token)
    corrected = world.client.post(f"{path}/corrections", json=correction, headers=headers)
    assert corrected.status_code == 201
    assert corrected.json["revision"] == 2 and corrected.json["sha256"] != first["sha256"]
    revisions = world.client.get(f"{path}/revisions", headers=headers).json["items"]
    assert [r["revision"] for r in revisions] == [1, 2]
    assert revisions[0]["sha256"] == first["sha256"]
    assert revisions[0]["document"]["manifest"]["disposal"] is None
    assert revisions[1]["previous_sha256"] == first["sha256"]
    assert chain.verify([(r["revision"], r["document"], r["sha256"]) for r in revisions]) == []
    tampered = [dict(r) for r in revisions]
    tampered[0]["document"] = {**tampered[0]["document"], "reason": "edited"}
    assert chain.verify([(r["revision"], r["document"], r["sha256"]) for r in tampered])
    same_again = world.client.post(f"{path}/corrections", json=correction, headers=headers)
    assert same_again.status_code == 200 and same_again.json["revision"] == 2


def test_a_correction_needs_a_reason_and_the_same_number(world):
    first = world.post(world.body()).json
    path = f"/v1/manifests/{first['id']}/corrections"
    headers = factories.bearer(world.hauler_token)
    no_reason = world.client.post(path, json=world.body(), headers=headers)
    assert no_reason.status_code == 422 and "reason" in no_reason.json["errors"]
    other_number = world.client.post(path, json=dict(world.body(), reason="x"), headers=headers)
    assert other_number.status_code == 422 and "manifest_number" in other_number.json["errors"]


def test_another_hauler_cannot_see_or_correct(world, client, session):
    first = world.post(world.body()).json
    rival = factories.hauler(session)
    token = factories.token(client, *factories.oauth_client(session, role="hauler", subject=[rival.id]))
    headers = factories.bearer(token)
    assert client.get(f"/v1/manifests/{first['id']}", headers=headers).status_code == 404
    correction = dict(world.body(), manifest_number=first["manifest_number"], reason="mine now")
    assert client.post(f"/v1/manifests/{first['id']}/corrections", json=correction, headers=headers).status_code == 404
    assert client.get("/v1/manifests", headers=headers).json["items"] == []


def test_listing_filters(world, client, session):
    world.post(world.body())
    late = world.post(world.body(completed=NOW - timedelta(hours=100), disposal=None)).json
    headers = factories.bearer(world.hauler_token)
    flagged = client.get("/v1/manifests", query_string={"finding": "late_submission"}, headers=headers).json
    assert [m["id"] for m in flagged["items"]] == [late["id"]]
    clean = client.get("/v1/manifests", query_string={"status": "accepted"}, headers=headers).json
    assert len(clean["items"]) == 1
    dated = client.get("/v1/manifests", query_string={"from": "2026-05-28", "to": "2026-05-28"}, headers=headers).json
    assert [m["id"] for m in dated["items"]] == [late["id"]]
    for written in ("20260528", "2026-W22-4"):
        refused = client.get("/v1/manifests", query_string={"from": written}, headers=headers)
        assert refused.status_code == 422 and "from" in refused.json["errors"], written
    auditor = factories.token(client, *factories.oauth_client(session, role="auditor", subject=["victorville"]))
    assert len(client.get("/v1/manifests", headers=factories.bearer(auditor)).json["items"]) == 2


def test_a_page_of_manifests_is_read_in_a_few_statements_however_long(app, world, client, session):
    """A listing reads its page, the revisions, findings and scans of all of it, and the due
    day of all its devices, each in one statement: not two more for each manifest (which
    made a page of 50 a hundred round trips). Each item says what reading it alone says."""
    devices = [world.device] + [
        factories.device(session, permit_row=world.permit, tag=f"GI-{n}", frequency_days=30 * n) for n in range(2, 7)
    ]
    for n, device in enumerate(devices):
        body = world.body(device_tag=device.tag, completed=NOW - timedelta(days=n, hours=2))
        assert world.post(body).status_code == 201
    headers = factories.bearer(world.hauler_token)
    # Counted as sent: on PostgreSQL off the wire, the prebuilt statements included.
    with counted(app.extensions["fogx.engine"]) as sent:
        page = client.get("/v1/manifests", query_string={"limit": 50}, headers=headers)
    assert page.status_code == 200 and len(page.json["items"]) == len(devices)
    # The token's too, and the note in the FSEs' access log (the cities' time zones, one insert).
    assert len(sent.statements) <= 8, sent.statements
    for item in page.json["items"]:
        alone = client.get(f"/v1/manifests/{item['id']}", headers=headers).json
        # Read alone, a manifest also lists the corrections of it waiting for the city.
        assert alone.pop("pending_corrections") == []
        assert item == alone
    assert len({item["due_by"] for item in page.json["items"]}) == len(devices)


def test_the_loads_of_one_service_are_read_once_a_filing_as_their_findings_are_refreshed(app, world):
    """A load refreshes the findings of every other load of its service, and each of those is
    checked against the whole service again: the service's revisions are read once for the
    filing, not once for each of them (which made a crowded service quadratic). The fourth
    load completes the pump-down, and the partial findings of the first three clear."""
    bodies = [
        world.body(completed=NOW - timedelta(hours=6 + 2 * n), gallons_removed=375, full_pump_down=False)
        for n in range(4)
    ]
    for body in bodies[:3]:
        assert world.codes(body) == ["partial_pump_down"]
    with counted(app.extensions["fogx.engine"]) as sent:
        last = world.post(dict(bodies[3], full_pump_down=True))
    assert last.status_code == 201 and last.json["findings"] == []
    reads = sent.containing("WHERE manifest_revisions.id IN (")  # revisions read whole, by id
    assert len(reads) <= 2, reads
    headers = factories.bearer(world.hauler_token)
    listed = world.client.get("/v1/manifests", headers=headers).json["items"]
    assert [item["findings"] for item in listed] == [[]] * 4
