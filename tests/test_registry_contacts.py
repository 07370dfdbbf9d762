"""The contact address on a restaurant's and a hauler's record (where their notices go while
they have no people): set, shown, cleared and checked through the registry API; a hauler's is
the shared record's, changed by the city that registered it alone."""

from datetime import UTC, datetime

import pytest
from sqlalchemy import select

from services.demo import data as demo
from storage.models import Fse, Hauler
from tests import factories
from tests.registry_calls import FSE, HAULER

CASA = {**FSE, "name": "Casa Lupita", "apn": "3093-381-14"}


@pytest.fixture
def tokens(app, client, session, frozen_clock):
    frozen_clock(datetime(2026, 6, 1, 12, tzinfo=UTC))
    demo.load(session, base_url="https://fogx.test")
    made = {
        name: factories.bearer(factories.token(client, name, f"{name}-secret"))
        for name in ("demo-admin", "demo-auditor", "demo-hauler")
    }
    made["tracy-admin"] = factories.bearer(
        factories.token(client, *factories.oauth_client(session, role="admin", subject=["tracy"]))
    )
    return made


def refused(response, field):
    assert response.status_code == 422 and response.content_type == "application/problem+json", response.json
    assert list(response.json["errors"]) == [field], response.json
    return response


def test_a_restaurants_contact_address_is_set_shown_cleared_and_hidden_from_haulers(client, session, tokens):
    admin, auditor, hauler = tokens["demo-admin"], tokens["demo-auditor"], tokens["demo-hauler"]
    created = client.post("/v1/fses", headers=admin, json={**CASA, "contact_email": "kitchen@casa.example"})
    assert created.status_code == 201 and created.json["contact_email"] == "kitchen@casa.example"
    plain = client.post("/v1/fses", headers=admin, json={**CASA, "name": "Casa Lupita II"})
    assert plain.status_code == 201 and plain.json["contact_email"] is None
    refused(
        client.post("/v1/fses", headers=admin, json={**CASA, "name": "X", "contact_email": "kitchen"}), "contact_email"
    )
    path = f"/v1/fses/{created.json['id']}"
    refused(client.patch(path, headers=admin, json={"contact_email": "a@b@c"}), "contact_email")
    assert client.get(path, headers=auditor).json["contact_email"] == "kitchen@casa.example"
    cleared = client.patch(path, headers=admin, json={"contact_email": None})
    assert cleared.status_code == 200 and cleared.json["contact_email"] is None
    session.expire_all()
    assert session.scalar(select(Fse.contact_email).where(Fse.name == "Casa Lupita")) is None
    # A hauler reads the restaurants it serviced (the demo's Mesa Grill), never their addresses.
    mesa = session.scalar(select(Fse.id).where(Fse.name == "Mesa Grill"))
    client.patch(f"/v1/fses/{mesa}", headers=admin, json={"contact_email": "owner@mesagrill.example"})
    served = client.get(f"/v1/fses/{mesa}", headers=hauler)
    assert served.status_code == 200 and "contact_email" not in served.json
    assert b"owner@mesagrill.example" not in served.data
    listed = client.get("/v1/fses", headers=hauler)
    assert b"owner@mesagrill.example" not in listed.data and b"manager@example.com" not in listed.data
    # The demo gives a restaurant with no people yet its address.
    el_sol = session.scalar(select(Fse).where(Fse.name == "Taqueria El Sol"))
    assert el_sol.contact_email == "contacto@elsol.example"


def test_a_haulers_contact_address_is_the_registering_citys_to_change(client, tokens):
    admin, tracy = tokens["demo-admin"], tokens["tracy-admin"]
    body = {**HAULER, "contact_email": "office@desertpumping.example", "jurisdictions": ["victorville"]}
    refused(client.post("/v1/haulers", headers=admin, json={**body, "contact_email": "office"}), "contact_email")
    created = client.post("/v1/haulers", headers=admin, json=body)
    assert created.status_code == 201 and created.json["contact_email"] == "office@desertpumping.example"
    path = f"/v1/haulers/{created.json['id']}"
    # Tracy registers the same licence: its different address is not taken, and a warning says so.
    second = client.post(
        "/v1/haulers", headers=tracy, json={**body, "contact_email": "other@example.com", "jurisdictions": ["tracy"]}
    )
    assert second.status_code == 200 and second.json["contact_email"] == "office@desertpumping.example"
    assert [w["code"] for w in second.json["warnings"]] == ["shared_field_kept"]
    assert "contact_email" in second.json["warnings"][0]["message"]
    taken = client.patch(path, headers=tracy, json={"contact_email": "other@example.com"})
    assert taken.status_code == 409 and taken.content_type == "application/problem+json"
    assert list(taken.json["errors"]) == ["contact_email"]
    refused(client.patch(path, headers=admin, json={"contact_email": "not an address"}), "contact_email")
    changed = client.patch(path, headers=admin, json={"contact_email": "dispatch@desertpumping.example"})
    assert changed.status_code == 200 and changed.json["contact_email"] == "dispatch@desertpumping.example"
    assert client.get(path, headers=tracy).json["contact_email"] == "dispatch@desertpumping.example"
    cleared = client.patch(path, headers=admin, json={"contact_email": None})
    assert cleared.status_code == 200 and cleared.json["contact_email"] is None


def test_the_demo_hauler_has_its_office_address_on_record(client, session, tokens):
    igs = session.scalar(select(Hauler).where(Hauler.licence_number == "IGS-44812"))
    shown = client.get(f"/v1/haulers/{igs.id}", headers=tokens["demo-hauler"])
    assert shown.status_code == 200 and shown.json["contact_email"] == "office@inlandgrease.example"
