"""An FSE's access log: its manifests read one by one, listed or their scans fetched by a city or
another organisation are noted as its record's downloads are."""

import hashlib

import pytest

from domain import words
from tests import factories
from tests.manifest_world import NOW, build


@pytest.fixture
def world(client, session, frozen_clock):
    frozen_clock(NOW)
    return build(client, session)


@pytest.fixture
def city_admin(client, session):
    return factories.bearer(
        factories.token(client, *factories.oauth_client(session, role="admin", subject=["victorville"]))
    )


def log_of(client, world, admin):
    response = client.get(f"/v1/fses/{world.permit.fse_id}/access-log", headers=admin)
    assert response.status_code == 200, response.json
    items = list(reversed(response.json["items"]))
    assert all(r["format_words"] == words.READ_FORMATS[r["format"]] for r in items)  # the code in words beside
    return [(r["format"], r["role"], r["period_from"], r["period_to"]) for r in items]


def test_an_auditor_reading_an_fses_manifests_and_scan_is_in_its_access_log(client, session, world, city_admin):
    filed = world.post(world.body())
    assert filed.status_code == 201, filed.json
    manifest_id = filed.json["id"]
    scan = factories.pdf_bytes("Manifest M-00001, signed")
    put = client.put(
        f"/v1/manifests/{manifest_id}/documents/{hashlib.sha256(scan).hexdigest()}",
        data=scan,
        headers={**factories.bearer(world.hauler_token), "Content-Type": "application/pdf"},
    )
    assert put.status_code == 201, put.json
    day = "2026-06-01"  # serviced at 10:00 UTC, the morning of June 1 in Victorville
    assert log_of(client, world, city_admin) == []

    auditor = factories.bearer(
        factories.token(client, *factories.oauth_client(session, role="auditor", subject=["victorville"]))
    )
    assert client.get("/v1/manifests", headers=auditor).status_code == 200
    assert client.get(f"/v1/manifests/{manifest_id}", headers=auditor).status_code == 200
    assert client.get(f"/v1/manifests/{manifest_id}/documents/{put.json['id']}", headers=auditor).status_code == 200
    assert log_of(client, world, city_admin) == [
        ("manifests", "auditor", day, day),
        ("manifest", "auditor", day, day),
        ("scan", "auditor", day, day),
    ]


def test_the_hauler_reading_what_it_filed_is_noted_and_the_restaurant_reading_its_own_is_not(
    client, session, world, city_admin
):
    filed = world.post(world.body())
    assert filed.status_code == 201, filed.json
    assert (
        client.get(f"/v1/manifests/{filed.json['id']}", headers=factories.bearer(world.hauler_token)).status_code == 200
    )
    operator = factories.bearer(
        factories.token(client, *factories.oauth_client(session, role="fse", subject=[world.permit.fse_id]))
    )
    assert client.get(f"/v1/manifests/{filed.json['id']}", headers=operator).status_code == 200
    assert client.get("/v1/manifests", headers=operator).status_code == 200
    assert log_of(client, world, city_admin) == [("manifest", "hauler", "2026-06-01", "2026-06-01")]


def test_a_page_of_many_fses_notes_a_read_for_each_with_the_days_it_showed(client, session, world, city_admin):
    other = build(client, session)
    first, second = world.body(), world.body()
    for body in (first, second):
        assert world.post(body).status_code == 201
    assert other.post(other.body(manifest_number="OTHER-1")).status_code == 201
    auditor = factories.bearer(
        factories.token(client, *factories.oauth_client(session, role="auditor", subject=["victorville"]))
    )
    assert len(client.get("/v1/manifests", headers=auditor).json["items"]) == 3
    # Serviced 2 and 27 hours before noon UTC on June 1: May 31 and June 1 in Victorville.
    assert log_of(client, world, city_admin) == [("manifests", "auditor", "2026-05-31", "2026-06-01")]
    assert log_of(client, other, city_admin) == [("manifests", "auditor", "2026-06-01", "2026-06-01")]


def test_a_page_with_nothing_on_it_notes_nothing(client, session, world, city_admin):
    assert world.post(world.body()).status_code == 201
    auditor = factories.bearer(
        factories.token(client, *factories.oauth_client(session, role="auditor", subject=["victorville"]))
    )
    assert client.get("/v1/manifests?permit_number=NO-SUCH", headers=auditor).json["items"] == []
    assert log_of(client, world, city_admin) == []
