"""Every `/v1` route x every person's role x an object filed in another city: nothing leaks,
nothing changes, even through a hauler and a disposal site both cities registered.

The people sign in through the portal (authorization code with PKCE) as a browser does. They
all act in Placentia: its staff, a restaurant's people, and the memberships Placentia granted
of a hauler and a site that Victorville registered as well. What the shared hauler filed in
Victorville, delivered to the shared site, is as foreign to them as Victorville's own rows.
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

MINE, THEIRS = "placentia", "victorville"
# person: (organisation, role, whose subject, scoped to the city)
PEOPLE = {
    "city-admin": ("city", "admin", "city", False),
    "auditor": ("city", "auditor", "city", False),
    "operator": ("restaurant", "operator", "fse", False),
    "restaurant-admin": ("restaurant", "admin", "fse", False),
    "hauler-admin": ("hauler", "admin", "shared_hauler", True),
    "dispatcher": ("hauler", "dispatcher", "shared_hauler", True),
    "driver": ("hauler", "driver", "shared_hauler", True),
    "clerk": ("site", "clerk", "shared_site", True),
    "site-admin": ("site", "admin", "shared_site", True),
}


def city_objects(client, session, city, *, hauler, site, program, admin):
    """What was filed in `city`: its restaurant, a hauler and a site of its own, and what the
    shared hauler and site did there (a manifest with its scan and a pending correction, a
    receipt), with a webhook, a membership and an invitation its own people made."""
    permit = factories.permit(session, fse_row=factories.fse(session, city=city, name=f"{city} restaurant"))
    device = factories.device(session, permit_row=permit)
    store = {
        "code": city,
        "format": "csv",
        "fse_id": permit.fse_id,
        "permit_id": permit.id,
        "device_id": device.id,
        "hauler_id": factories.hauler(session, name=f"{city} hauler", cities=(city,)).id,
        "site_id": factories.disposal_site(session, cities=(city,)).id,
    }
    store["manifest_id"], store["document_id"] = file_manifest(client, program, permit, device, site)
    store["correction_id"] = propose_correction(client, program, store["manifest_id"])
    city_admin = factories.token(client, *factories.oauth_client(session, role="admin", subject=[city]))
    store["change_id"] = schedule_frequency_change(client, city_admin, permit, device)
    city_id = factories.jurisdiction(session, city).id
    staff = people_factories.person_token(
        client,
        session,
        email=f"hooks@{city}.test",
        organisation="hauler",
        role="dispatcher",
        hauler_id=hauler.id,
        jurisdiction_id=city_id,
    )
    hook = client.post("/v1/webhooks", json={"url": "https://93.184.216.34/hook"}, headers=factories.bearer(staff))
    assert hook.status_code == 201, hook.json
    store["webhook_id"] = uuid.UUID(hook.json["id"])
    clerk = people_factories.person_token(
        client,
        session,
        email=f"gate@{city}.test",
        organisation="site",
        role="clerk",
        site_id=site.id,
        jurisdiction_id=city_id,
    )
    received = client.post(
        "/v1/receipts",
        headers=factories.bearer(clerk),
        json={
            "ticket_number": f"T-{city}",
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
        session,
        email=f"driver@{city}.test",
        organisation="hauler",
        role="driver",
        hauler_id=hauler.id,
        jurisdiction_id=city_id,
    ).id
    invited = client.post(
        "/v1/invitations",
        headers=factories.bearer(admin),
        json={"email": f"new@{city}.test", "organisation": "hauler", "role": "driver", "hauler_id": str(hauler.id)},
    )
    assert invited.status_code == 201 and invited.json["jurisdiction_id"] == str(city_id), invited.json
    store["invitation_id"] = uuid.UUID(invited.json["id"])
    return store


@pytest.fixture
def world(client, session):
    """Victorville registered a hauler and a site; Placentia registered them too. The people
    are Placentia's; Victorville's objects are foreign."""
    hauler = factories.hauler(session, name="Desert Pumping", cities=(THEIRS, MINE))
    site = factories.disposal_site(session, cities=(THEIRS, MINE))
    # The hauler's own dispatch program (the whole company) files in both cities.
    program = factories.token(client, *factories.oauth_client(session, role="hauler", subject=[hauler.id]))
    stores = {}
    for city in (THEIRS, MINE):
        admin = factories.token(client, *factories.oauth_client(session, role="admin", subject=[city]))
        stores[city] = city_objects(client, session, city, hauler=hauler, site=site, program=program, admin=admin)
    mine = {**stores[MINE], "hauler_id": hauler.id, "site_id": site.id}
    subjects = {
        "city": {"jurisdiction_id": factories.jurisdiction(session, MINE).id},
        "fse": {"fse_ids": [mine["fse_id"]]},
        "shared_hauler": {"hauler_id": hauler.id},
        "shared_site": {"site_id": site.id},
    }
    tokens = {}
    for name, (organisation, role, subject, scoped) in PEOPLE.items():
        scope = {"jurisdiction_id": subjects["city"]["jurisdiction_id"]} if scoped else {}
        tokens[name] = people_factories.person_token(
            client,
            session,
            email=f"{name}@people.{MINE}.test",
            organisation=organisation,
            role=role,
            **subjects[subject],
            **scope,
        )
    return {"mine": mine, "theirs": stores[THEIRS], "tokens": tokens}


def test_every_route_has_a_foreign_object_case(app, world):
    for _, rule, arguments in v1_routes(app):
        unknown = set(arguments) - set(world["theirs"]) - NOT_OBJECTS
        assert not unknown, f"{rule}: no foreign object for {unknown}; extend the world fixture"


@pytest.mark.parametrize("person", PEOPLE)
def test_another_citys_objects_answer_exactly_like_missing_ones(app, client, world, person, session):
    assert answer_like_missing(app, client, world["tokens"][person], world["theirs"], person) >= 10
    session.expire_all()
    assert "Taken Over" not in set(session.scalars(select(Fse.name)))


@pytest.mark.parametrize("person", PEOPLE)
def test_lists_never_show_another_citys_objects(app, client, world, person):
    token = world["tokens"][person]
    foreign_ids = {str(v) for v in world["theirs"].values() if not isinstance(v, str)}
    for method, rule, arguments in v1_routes(app):
        if method != "GET" or set(arguments) & NOT_OBJECTS:
            continue
        response = client.get(fill(rule, world["mine"]), headers=factories.bearer(token))
        assert response.status_code in (200, 403, 404), f"{person} {rule}"
        assert not any(i.encode() in response.data for i in foreign_ids), f"{person} GET {rule} shows a foreign object"
        if rule == "/v1/jurisdictions":
            assert THEIRS.encode() not in response.data


def test_the_same_people_reach_their_own_citys_objects(client, world):
    """The matrix is not empty-handed: each reaches what was filed in its own city."""
    mine, tokens = world["mine"], world["tokens"]

    def status(person, path):
        return client.get(path, headers=factories.bearer(tokens[person])).status_code

    for person in ("city-admin", "auditor", "hauler-admin", "dispatcher", "driver"):
        assert status(person, f"/v1/manifests/{mine['manifest_id']}") == 200, person
    assert status("operator", f"/v1/fses/{mine['fse_id']}/records") == 200
    assert status("city-admin", f"/v1/jurisdictions/{MINE}/sign-in-policy") == 200
    sent = client.get("/v1/corrections", headers=factories.bearer(tokens["dispatcher"])).json["items"]
    assert [c["id"] for c in sent] == [str(mine["correction_id"])]
    delivered = client.get("/v1/deliveries", headers=factories.bearer(tokens["clerk"])).json["items"]
    assert [d["manifest_id"] for d in delivered] == [str(mine["manifest_id"])]
    assert status("clerk", f"/v1/receipts/{mine['receipt_id']}") == 200
    managed = client.get("/v1/memberships", headers=factories.bearer(tokens["city-admin"])).json["items"]
    assert str(mine["membership_id"]) in [m["id"] for m in managed]
    pending = client.get("/v1/invitations", headers=factories.bearer(tokens["hauler-admin"])).json["items"]
    assert [i["id"] for i in pending] == [str(mine["invitation_id"])]


@pytest.mark.parametrize("person", PEOPLE)
def test_only_a_city_admin_reads_notices_and_only_its_own_citys(client, world, person):
    """Each city's admin invited a hauler's driver (a notice each); one city's admin lists its own alone."""
    listed = client.get("/v1/notices", headers=factories.bearer(world["tokens"][person]))
    if person != "city-admin":
        assert listed.status_code == 403, person
        return
    recipients = {n["recipient"] for n in listed.json["items"]}
    assert f"new@{MINE}.test" in recipients and f"new@{THEIRS}.test" not in recipients
