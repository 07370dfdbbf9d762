"""Every `/v1` route x every role x someone else's object: nothing leaks, nothing changes.

The routes are read from the app itself, so a new route without a case here fails.
"""

import uuid
from datetime import UTC, datetime

import pytest
from sqlalchemy import select

from storage.models import Fse
from tests import factories, people_factories
from tests.access_requests import (
    NOT_OBJECTS,
    answer_like_missing,
    file_manifest,
    fill,
    propose_correction,
    schedule_frequency_change,
    v1_routes,
)

ROLES = ("admin", "auditor", "hauler", "fse", "site")
# People signed in through the portal, one per role of an organisation: the same rules hold.
PEOPLE = ("person:city-admin", "person:auditor", "person:dispatcher", "person:operator", "person:clerk")


@pytest.fixture
def world(client, session):
    """Two cities. The callers all belong to Victorville; Tracy's objects are foreign."""
    mine, theirs = {}, {}
    for side, city, store in (("mine", "victorville", mine), ("theirs", "tracy", theirs)):
        permit = factories.permit(session, fse_row=factories.fse(session, city=city, name=f"{side} restaurant"))
        device = factories.device(session, permit_row=permit)
        hauler = factories.hauler(session, name=f"{side} hauler", cities=(city,))
        site = factories.disposal_site(session, cities=(city,))
        store.update(
            fse_id=permit.fse_id,
            permit_id=permit.id,
            device_id=device.id,
            hauler_id=hauler.id,
            site_id=site.id,
            code=city,
            format="csv",
        )
        filer = factories.token(client, *factories.oauth_client(session, role="hauler", subject=[hauler.id]))
        store["manifest_id"], store["document_id"] = file_manifest(client, filer, permit, device, site)
        store["correction_id"] = propose_correction(client, filer, store["manifest_id"])
        hook = client.post("/v1/webhooks", json={"url": "https://93.184.216.34/hook"}, headers=factories.bearer(filer))
        assert hook.status_code == 201, hook.json
        store["webhook_id"] = uuid.UUID(hook.json["id"])
        gate = factories.token(client, *factories.oauth_client(session, role="site", subject=[site.id]))
        received = client.post(
            "/v1/receipts",
            headers=factories.bearer(gate),
            json={
                "ticket_number": "T-1",
                "hauler_licence_number": hauler.licences[0].licence_number,
                "vehicle_id": "TRK-1",
                "waste_type": "grease_interceptor_waste",
                "gallons_received": 1400,
                "received_at": datetime.now(UTC).isoformat(),
            },
        )
        assert received.status_code == 201, received.json
        store["receipt_id"] = uuid.UUID(received.json["id"])
        store["membership_id"] = people_factories.person(
            session, email=f"driver@{side}.test", organisation="hauler", role="driver", hauler_id=hauler.id
        ).id
        inviter = factories.token(client, *factories.oauth_client(session, role="admin", subject=[city]))
        invited = client.post(
            "/v1/invitations",
            headers=factories.bearer(inviter),
            json={"email": f"auditor@{side}.test", "organisation": "city", "role": "auditor", "jurisdiction": city},
        )
        assert invited.status_code == 201, invited.json
        store["invitation_id"] = uuid.UUID(invited.json["id"])
        store["change_id"] = schedule_frequency_change(client, inviter, permit, device)
    # A restaurant of the hauler's own city that it has never serviced.
    unserved = factories.permit(session, fse_row=factories.fse(session, city="victorville", name="unserved restaurant"))
    mine["unserved_fse_id"] = unserved.fse_id
    subjects = {
        "admin": ["victorville"],
        "auditor": ["victorville"],
        "hauler": [mine["hauler_id"]],
        "fse": [mine["fse_id"]],
        "site": [mine["site_id"]],
    }
    tokens = {
        role: factories.token(client, *factories.oauth_client(session, role=role, subject=subjects[role]))
        for role in ROLES
    }
    jurisdiction_id = factories.jurisdiction(session, "victorville").id
    for person, organisation, role, subject in (
        ("person:city-admin", "city", "admin", {"jurisdiction_id": jurisdiction_id}),
        ("person:auditor", "city", "auditor", {"jurisdiction_id": jurisdiction_id}),
        ("person:dispatcher", "hauler", "dispatcher", {"hauler_id": mine["hauler_id"]}),
        ("person:operator", "restaurant", "operator", {"fse_ids": [mine["fse_id"]]}),
        ("person:clerk", "site", "clerk", {"site_id": mine["site_id"]}),
    ):
        tokens[person] = people_factories.person_token(
            client, session, email=f"{person[7:]}@mine.test", organisation=organisation, role=role, **subject
        )
    return {"mine": mine, "theirs": theirs, "tokens": tokens}


def test_every_route_has_a_foreign_object_case(app, world):
    for _, rule, arguments in v1_routes(app):
        unknown = set(arguments) - set(world["theirs"]) - NOT_OBJECTS
        assert not unknown, f"{rule}: no foreign object for {unknown}; extend the world fixture"


@pytest.mark.parametrize("role", ROLES + PEOPLE)
def test_foreign_objects_answer_exactly_like_missing_ones(app, client, world, role, session):
    assert answer_like_missing(app, client, world["tokens"][role], world["theirs"], role) >= 10
    session.expire_all()
    names = set(session.scalars(select(Fse.name)))
    assert "Taken Over" not in names


@pytest.mark.parametrize("role", ROLES + PEOPLE)
def test_lists_never_show_foreign_objects(app, client, world, role):
    token = world["tokens"][role]
    foreign_ids = {str(v) for v in world["theirs"].values() if not isinstance(v, str)}
    for method, rule, arguments in v1_routes(app):
        if method != "GET" or set(arguments) & NOT_OBJECTS:
            continue
        values = world["mine"]
        response = client.get(fill(rule, values), headers=factories.bearer(token))
        assert response.status_code in (200, 403, 404), f"{role} {rule}"
        body = response.data
        assert not any(i.encode() in body for i in foreign_ids), f"{role} GET {rule} shows a foreign object"
        if rule == "/v1/jurisdictions":
            assert b"tracy" not in body


def test_own_objects_are_reachable_where_the_role_allows(client, world):
    mine, tokens = world["mine"], world["tokens"]
    expectations = {
        "admin": {"fse": 200, "hauler": 200, "site": 200},
        "auditor": {"fse": 200, "hauler": 200, "site": 200},
        "hauler": {"fse": 200, "hauler": 200, "site": 200},
        "fse": {"fse": 200, "hauler": 404, "site": 404},
    }
    for role, expected in expectations.items():
        headers = factories.bearer(tokens[role])
        got = {
            "fse": client.get(f"/v1/fses/{mine['fse_id']}", headers=headers).status_code,
            "hauler": client.get(f"/v1/haulers/{mine['hauler_id']}", headers=headers).status_code,
            "site": client.get(f"/v1/disposal-sites/{mine['site_id']}", headers=headers).status_code,
        }
        assert got == expected, role


def test_a_hauler_reads_only_the_restaurants_it_serviced_and_no_operator_email(app, client, world):
    """A hauler files by permit number and tag: of its city's restaurants it reads those it
    has serviced (their permits and devices, for the next visit), never an operator's e-mail."""
    mine, headers = world["mine"], factories.bearer(world["tokens"]["hauler"])
    unserved = {**mine, "fse_id": mine["unserved_fse_id"]}
    missing = {**mine, "fse_id": uuid.uuid4()}
    for method, rule, arguments in v1_routes(app):
        if method != "GET":
            continue
        body = client.get(fill(rule, mine), headers=headers).data
        assert b"operator@example.com" not in body and b"operator_email" not in body, rule
        if "fse_id" in arguments:
            refused = client.get(fill(rule, unserved), headers=headers)
            absent = client.get(fill(rule, missing), headers=headers)
            assert (refused.status_code, refused.json["detail"]) == (absent.status_code, absent.json["detail"]), rule
    listed = client.get("/v1/fses", headers=headers).json["items"]
    assert [f["id"] for f in listed] == [str(mine["fse_id"])]
    auditor = factories.bearer(world["tokens"]["auditor"])
    assert (
        client.get(f"/v1/fses/{mine['unserved_fse_id']}", headers=auditor).json["operator_email"]
        == "operator@example.com"
    )


@pytest.mark.parametrize("role", ROLES + PEOPLE)
def test_only_a_city_admin_reads_notices_and_only_its_own_citys(client, world, role):
    """Each city invited an auditor (a notice each); the admin of one lists its own alone."""
    listed = client.get("/v1/notices", headers=factories.bearer(world["tokens"][role]))
    if role not in ("admin", "person:city-admin"):
        assert listed.status_code == 403, role
        return
    recipients = {n["recipient"] for n in listed.json["items"]}
    assert "auditor@mine.test" in recipients and "auditor@theirs.test" not in recipients
