"""A city acts only within its own rows: no city grants, shows or ends access to what was filed in
another city, not through a hauler or a disposal site both cities registered (exchange policy).

Victorville registered a hauler and approved a disposal site; the hauler filed a manifest at a
Victorville restaurant, delivered to that site. Placentia then registers the same hauler by its
licence number and approves the same site (each joins the shared record). Each attack is what
Placentia's admin could do with that, and what comes of it now.
"""

import io
import uuid
from datetime import timedelta

import pytest
from sqlalchemy import select

from storage.models import OAuthClient
from storage.people import Invitation, Membership, Person
from tests import factories
from tests import people_factories as pf
from tests.manifest_world import NOW, iso
from tests.people_factories import link_in, mails
from tests.registry_calls import HAULER, SITE

V, P = "victorville", "placentia"  # V registered the hauler and the site; P joined them later
HAULER_SCOPES = "openid manifests:write manifests:read"


class Cities:
    def __init__(self, app, client, session):
        self.app, self.client, self.session = app, client, session
        self.portal = pf.app(session)[0]
        self.headers = {}
        self.filed = 0

    def call(self, who, method, path, **kwargs):
        return self.client.open(path, method=method, headers=self.headers[who], **kwargs)

    def invite(self, who, **body):
        response = self.call(who, "POST", "/v1/invitations", json=body)
        assert response.status_code == 201, response.json
        return response.json

    def join(self, email, scope, *, name="Pat Doe"):
        """The person accepts the newest invitation mailed to them and signs in."""
        [message] = [m for m in mails(self.app) if m["To"] == email][-1:]
        browser = pf.Browser(self.client)
        assert browser.open(link_in(message)).status_code == 200, browser.page
        accepted = browser.submit(name=name, password=pf.PASSWORD)
        assert accepted.status_code == 200, browser.page
        self.headers[email] = factories.bearer(
            pf.sign_in(self.client, self.portal, email=email, scope=scope)["access_token"]
        )
        return self.headers[email]

    def add_truck(self, city):
        response = self.call(
            city,
            "POST",
            f"/v1/haulers/{self.hauler_id}/vehicles",
            json={"vehicle_id": "TRK-1", "tank_capacity_gallons": 3000},
        )
        assert response.status_code == 201, response.json

    def body(self, permit, device, site_id, *, at=NOW, **overrides):
        self.filed += 1
        return {
            "manifest_number": f"M-{self.filed}",
            "permit_number": permit.permit_number,
            "device_tag": device.tag,
            "vehicle_id": "TRK-1",
            "driver_name": "Sam Ortiz",
            "fse_signer_name": "Ana Ruiz",
            "service_started_at": iso(at - timedelta(hours=3)),
            "service_completed_at": iso(at - timedelta(hours=2)),
            "waste_type": "grease_interceptor_waste",
            "gallons_removed": 1450,
            "decant_returned_gallons": 0,
            "full_pump_down": True,
            "disposal": {
                "site_id": site_id,
                "ticket_number": f"T-{self.filed}",
                "delivered_at": iso(at - timedelta(hours=1)),
                "gallons_delivered": 1450,
            },
            **overrides,
        }


@pytest.fixture
def cities(app, client, session, frozen_clock):
    frozen_clock(NOW)
    world = Cities(app, client, session)
    for code in (V, P):
        factories.jurisdiction(session, code)
        world.headers[code] = factories.bearer(
            factories.token(client, *factories.oauth_client(session, role="admin", subject=[code]))
        )
    hauler = world.call(V, "POST", "/v1/haulers", json={**HAULER, "jurisdictions": [V]})
    site = world.call(V, "POST", "/v1/disposal-sites", json={**SITE, "jurisdictions": [V]})
    assert hauler.status_code == site.status_code == 201
    world.hauler_id, world.site_id = hauler.json["id"], site.json["id"]
    world.add_truck(V)
    world.permits = {
        code: factories.permit(
            session, fse_row=factories.fse(session, city=code, name=f"{code} diner"), number=f"{code[:2].upper()}-FOG-1"
        )
        for code in (V, P)
    }
    world.devices = {code: factories.device(session, permit_row=world.permits[code]) for code in (V, P)}
    # The hauler's own dispatch software files a Victorville pump-out delivered to the site.
    world.headers["program"] = factories.bearer(
        factories.token(client, *factories.oauth_client(session, role="hauler", subject=[world.hauler_id]))
    )
    filed = world.call(
        "program", "POST", "/v1/manifests", json=world.body(world.permits[V], world.devices[V], world.site_id)
    )
    assert filed.status_code == 201, filed.json
    world.victorville_manifest = filed.json["id"]
    # Victorville's admin made the hauler a dispatcher of its own.
    world.invite(V, email="vic@desert.example", organisation="hauler", role="dispatcher", hauler_id=world.hauler_id)
    world.join("vic@desert.example", HAULER_SCOPES)
    # Placentia joins the shared hauler and site by their numbers.
    joined = world.call(P, "POST", "/v1/haulers", json={**HAULER, "jurisdictions": [P]})
    approved = world.call(P, "POST", "/v1/disposal-sites", json={**SITE, "jurisdictions": [P]})
    assert joined.json["id"] == world.hauler_id and approved.json["id"] == world.site_id
    world.add_truck(P)
    return world


def manifest_ids(cities, who):
    listed = cities.call(who, "GET", "/v1/manifests")
    assert listed.status_code == 200, listed.json
    return {m["id"] for m in listed.json["items"]}


def test_a_hauler_admin_made_by_another_city_reads_and_files_nothing_of_the_first(cities):
    """The issue's attack: Placentia's admin makes a person the shared hauler's admin; that
    person neither reads the hauler's Victorville manifests nor files at Victorville permits."""
    invited = cities.invite(
        P, email="mallory@evil.example", organisation="hauler", role="admin", hauler_id=cities.hauler_id
    )
    mallory = "mallory@evil.example"
    cities.join(mallory, HAULER_SCOPES)
    assert cities.victorville_manifest not in manifest_ids(cities, mallory)
    assert invited["jurisdiction_id"] == str(factories.jurisdiction(cities.session, P).id)
    assert cities.call(mallory, "GET", f"/v1/manifests/{cities.victorville_manifest}").status_code == 404
    for path in (
        f"/v1/manifests/{cities.victorville_manifest}/revisions",
        "/v1/changes",
        "/v1/haulers/me/due",
        "/v1/fses",
        "/v1/permits",
        "/v1/jurisdictions",
    ):
        response = cities.call(mallory, "GET", path)
        assert response.status_code in (200, 404), path
        text = response.get_data(as_text=True)
        assert cities.victorville_manifest not in text and "victorville" not in text.lower(), path
    # Filing at a Victorville permit is refused as an unknown permit would be.
    elsewhere = cities.call(
        mallory, "POST", "/v1/manifests", json=cities.body(cities.permits[V], cities.devices[V], cities.site_id)
    )
    unknown = cities.call(
        mallory,
        "POST",
        "/v1/manifests",
        json=cities.body(cities.permits[V], cities.devices[V], cities.site_id, permit_number="NO-SUCH-1"),
    )
    assert elsewhere.status_code == unknown.status_code == 422
    assert elsewhere.json["errors"] == unknown.json["errors"]
    # A correction of the Victorville manifest, or a scan sent to it, finds nothing.
    filed = cities.call("program", "GET", f"/v1/manifests/{cities.victorville_manifest}").json["manifest"]
    corrected = cities.call(
        mallory,
        "POST",
        f"/v1/manifests/{cities.victorville_manifest}/corrections",
        json={**filed, "driver_name": "Mallory", "reason": "Mine now"},
    )
    assert corrected.status_code == 404
    scan = factories.pdf_bytes("forged")
    sent = cities.call(
        mallory,
        "POST",
        f"/v1/manifests/{cities.victorville_manifest}/documents",
        data={"documents": [(io.BytesIO(scan), "f.pdf")]},
        content_type="multipart/form-data",
    )
    assert sent.status_code == 404
    # In Placentia it works for the hauler: the filing is Placentia's, and only that is seen.
    own = cities.call(
        mallory, "POST", "/v1/manifests", json=cities.body(cities.permits[P], cities.devices[P], cities.site_id)
    )
    assert own.status_code == 201, own.json
    assert manifest_ids(cities, mallory) == {own.json["id"]}
    # The hauler's numbers are one series: Victorville's is taken, and nothing of its filing is shown.
    taken = cities.call(
        mallory,
        "POST",
        "/v1/manifests",
        json=cities.body(cities.permits[P], cities.devices[P], cities.site_id, manifest_number="M-1"),
    )
    assert taken.status_code == 409 and cities.victorville_manifest not in taken.get_data(as_text=True)
    # Its staff inherit the scope.
    driver = cities.invite(mallory, email="dan@evil.example", organisation="hauler", role="driver")
    assert driver["jurisdiction_id"] == invited["jurisdiction_id"]
    cities.join("dan@evil.example", HAULER_SCOPES)
    assert manifest_ids(cities, "dan@evil.example") == {own.json["id"]}
    # Victorville's dispatcher, scoped to Victorville, sees Victorville's filing alone.
    assert manifest_ids(cities, "vic@desert.example") == {cities.victorville_manifest}


def test_a_clerk_made_by_another_city_sees_and_disputes_no_delivery_of_the_first(cities):
    cities.invite(P, email="clerk@evil.example", organisation="site", role="clerk", site_id=cities.site_id)
    clerk = "clerk@evil.example"
    cities.join(clerk, "openid receipts:write")
    listed = cities.call(clerk, "GET", "/v1/deliveries")
    assert listed.status_code == 200, listed.json
    assert cities.victorville_manifest not in listed.get_data(as_text=True)
    disputed = cities.call(
        clerk, "POST", f"/v1/deliveries/{cities.victorville_manifest}/disputes", json={"reason": "Never arrived"}
    )
    missing = cities.call(
        clerk, "POST", "/v1/deliveries/0190d5c4-7f7b-7c4e-9b1a-2f3e4d5c6b7a/disputes", json={"reason": "Never arrived"}
    )
    assert disputed.status_code == missing.status_code == 404
    assert disputed.json["detail"] == missing.json["detail"]
    assert [j["code"] for j in cities.call(clerk, "GET", "/v1/jurisdictions").json["items"]] == [P]


def test_a_clerk_made_by_another_city_is_not_handed_the_sites_other_receipts(cities):
    """A receipt is found again by its ticket and day: the clerk Placentia made, sending the
    body the site's own gate sent, is refused without being shown the site's receipt."""
    gate = factories.bearer(
        factories.token(cities.client, *factories.oauth_client(cities.session, role="site", subject=[cities.site_id]))
    )
    body = {
        "ticket_number": "T-77",
        "hauler_licence_number": HAULER["licence_number"],
        "vehicle_id": "TRK-1",
        "waste_type": "grease_interceptor_waste",
        "gallons_received": 1400,
        "received_at": iso(NOW),
    }
    sent = cities.client.post("/v1/receipts", headers=gate, json=body)
    assert sent.status_code == 201, sent.json
    cities.invite(P, email="clerk@evil.example", organisation="site", role="clerk", site_id=cities.site_id)
    cities.join("clerk@evil.example", "openid receipts:write")
    again = cities.call("clerk@evil.example", "POST", "/v1/receipts", json=body)
    assert again.status_code == 409, again.json
    assert sent.json["id"] not in again.get_data(as_text=True)
    assert cities.call("clerk@evil.example", "GET", f"/v1/receipts/{sent.json['id']}").status_code == 404
    # The site's own gate still finds its receipt again.
    assert cities.client.post("/v1/receipts", headers=gate, json=body).json["id"] == sent.json["id"]


def test_a_clerk_made_by_another_city_changes_nothing_in_the_first_citys_reconciliation(cities, frozen_clock):
    """What a Placentia-made clerk reports of the shared site is Placentia's: it neither makes
    the site a reporting one for Victorville (whose deliveries would then wait for receipts) nor
    puts its receipts among Victorville's loads."""
    cities.invite(P, email="clerk@evil.example", organisation="site", role="clerk", site_id=cities.site_id)
    cities.join("clerk@evil.example", "openid receipts:write")
    received = cities.call(
        "clerk@evil.example",
        "POST",
        "/v1/receipts",
        json={
            "ticket_number": "T-FORGED",
            "hauler_licence_number": HAULER["licence_number"],
            "vehicle_id": "TRK-1",
            "waste_type": "grease_interceptor_waste",
            "gallons_received": 900,
            "received_at": iso(NOW),
        },
    )
    assert received.status_code == 201, received.json
    later = frozen_clock(NOW + timedelta(days=1))
    cities.headers["program"] = factories.bearer(
        factories.token(
            cities.client, *factories.oauth_client(cities.session, role="hauler", subject=[cities.hauler_id])
        )
    )
    filed = cities.call(
        "program",
        "POST",
        "/v1/manifests",
        json=cities.body(cities.permits[V], cities.devices[V], cities.site_id, at=later),
    )
    assert filed.status_code == 201, filed.json
    frozen_clock(NOW + timedelta(days=5))
    auditor = factories.bearer(
        factories.token(cities.client, *factories.oauth_client(cities.session, role="auditor", subject=[V]))
    )
    listed = cities.client.get("/v1/audit/disposal-reconciliation", headers=auditor)
    assert listed.status_code == 200, listed.json
    assert listed.json["items"] == []


def test_a_city_admin_neither_lists_nor_removes_the_staff_another_city_made(cities):
    listed = cities.call(P, "GET", "/v1/memberships").json["items"]
    assert "vic@desert.example" not in [m["person"]["email"] for m in listed]
    vic = cities.session.scalar(select(Membership).join(Person).where(Person.email == "vic@desert.example"))
    removed = cities.call(P, "POST", f"/v1/memberships/{vic.id}/removal")
    missing = cities.call(P, "POST", "/v1/memberships/0190d5c4-7f7b-7c4e-9b1a-2f3e4d5c6b7a/removal")
    assert removed.status_code == missing.status_code == 404
    assert removed.json["detail"] == missing.json["detail"]
    cities.session.expire_all()
    assert vic.removed_at is None
    assert cities.call("vic@desert.example", "GET", "/v1/manifests").status_code == 200
    # Victorville's own admin lists and removes it.
    managed = cities.call(V, "GET", "/v1/memberships").json["items"]
    assert "vic@desert.example" in [m["person"]["email"] for m in managed]
    assert cities.call(V, "POST", f"/v1/memberships/{vic.id}/removal").status_code == 200


def test_the_exchange_makes_a_whole_company_admin_who_reaches_every_city(cities):
    """Only the exchange's operator (the command line) makes a hauler's admin with no city's
    scope: it reads the hauler's filings in every city and manages all its staff."""
    result = cities.app.test_cli_runner().invoke(
        args=["people", "invite", "--email", "owner@desert.example", "--hauler", cities.hauler_id, "--role", "admin"]
    )
    assert result.exit_code == 0, result.output
    owner = "owner@desert.example"
    cities.join(owner, HAULER_SCOPES)
    cities.invite(P, email="pla@desert.example", organisation="hauler", role="driver", hauler_id=cities.hauler_id)
    cities.join("pla@desert.example", HAULER_SCOPES)
    assert cities.victorville_manifest in manifest_ids(cities, owner)
    staff = {m["person"]["email"]: m for m in cities.call(owner, "GET", "/v1/memberships").json["items"]}
    assert {"owner@desert.example", "vic@desert.example", "pla@desert.example"} <= set(staff)
    assert staff[owner]["jurisdiction_id"] is None
    # Its own staff: unscoped unless the admin is.
    invited = cities.invite(owner, email="any@desert.example", organisation="hauler", role="dispatcher")
    assert invited["jurisdiction_id"] is None
    # Removing a city-scoped member is the company's to do as well.
    assert cities.call(owner, "POST", f"/v1/memberships/{staff['pla@desert.example']['id']}/removal").status_code == 200
    # No one but the operator makes an unscoped one: a city's admin always scopes to its city.
    made = cities.invite(V, email="x@desert.example", organisation="hauler", role="admin", hauler_id=cities.hauler_id)
    assert made["jurisdiction_id"] is not None
    principals = cities.session.scalars(
        select(OAuthClient.jurisdiction_id).where(
            OAuthClient.role == "hauler", OAuthClient.name.like("pla@desert.example%")
        )
    ).all()
    assert principals == [factories.jurisdiction(cities.session, P).id]


def test_the_exchange_makes_a_clerk_of_the_whole_site(cities):
    runner = cities.app.test_cli_runner()
    for args in (
        ["--site", cities.site_id, "--role", "driver"],  # a hauler's role, not a site's
        ["--site", "not-an-id", "--role", "clerk"],
        ["--role", "clerk"],
        ["--site", cities.site_id, "--hauler", cities.hauler_id, "--role", "clerk"],
    ):
        refused = runner.invoke(args=["people", "invite", "--email", "x@site.example", *args])
        assert refused.exit_code == 2, (args, refused.output)
    made = runner.invoke(
        args=["people", "invite", "--email", "gate@site.example", "--site", cities.site_id, "--role", "clerk"]
    )
    assert made.exit_code == 0, made.output
    cities.join("gate@site.example", "openid receipts:write")
    filed = cities.call(
        "program", "POST", "/v1/manifests", json=cities.body(cities.permits[P], cities.devices[P], cities.site_id)
    )
    listed = cities.call("gate@site.example", "GET", "/v1/deliveries").json["items"]
    assert {d["manifest_id"] for d in listed} == {cities.victorville_manifest, filed.json["id"]}
    # Neither city lists or ends it; the operator does.
    gate = cities.session.scalar(select(Membership).join(Person).where(Person.email == "gate@site.example"))
    for city in (V, P):
        assert str(gate.id) not in [m["id"] for m in cities.call(city, "GET", "/v1/memberships").json["items"]]
        assert cities.call(city, "POST", f"/v1/memberships/{gate.id}/removal").status_code == 404
    assert runner.invoke(args=["people", "remove", "0190d5c4-7f7b-7c4e-9b1a-2f3e4d5c6b7a"]).exit_code == 2
    removed = runner.invoke(args=["people", "remove", str(gate.id)])
    assert removed.exit_code == 0, removed.output
    assert cities.call("gate@site.example", "GET", "/v1/deliveries").status_code == 401


def test_the_exchange_withdraws_its_own_invitation(cities):
    runner = cities.app.test_cli_runner()
    made = runner.invoke(
        args=["people", "invite", "--email", "late@site.example", "--site", cities.site_id, "--role", "clerk"]
    )
    assert made.exit_code == 0, made.output
    invitation_id = made.output.rsplit("invitation ", 1)[1].strip(" )\n")
    link = pending_link(cities, "late@site.example")
    assert cities.client.get(link).status_code == 200
    withdrawn = runner.invoke(args=["people", "withdraw", invitation_id])
    assert withdrawn.exit_code == 0, withdrawn.output
    assert cities.client.get(link).status_code == 410


def test_a_person_with_the_hauler_in_two_cities_tells_the_memberships_apart(cities):
    """Each city made the same person the hauler's driver: two memberships, each reaching its
    own city, named with it wherever the person picks one (sign-in, the token's claims)."""
    names = {city: factories.jurisdiction(cities.session, city).name for city in (V, P)}
    for city in (V, P):
        cities.invite(
            city, email="two@desert.example", organisation="hauler", role="driver", hauler_id=cities.hauler_id
        )
    for message in (m for m in mails(cities.app) if m["To"] == "two@desert.example"):
        browser = pf.Browser(cities.client)
        browser.open(link_in(message))
        assert browser.submit(name="Two Cities", password=pf.PASSWORD).status_code == 200, browser.page
    _, challenge = pf.pkce()
    browser = pf.Browser(cities.client)
    browser.open(pf.authorize_url(cities.portal, challenge, scope="openid manifests:read"))
    page = browser.submit(email="two@desert.example", password=pf.PASSWORD).get_data(as_text=True)
    for city in (V, P):
        assert f"driver of Desert Pumping ({names[city]})" in page


# Invitations ---------------------------------------------------------------------------------


def pending_link(cities, email):
    return link_in([m for m in mails(cities.app) if m["To"] == email][-1])


def test_a_removed_admins_pending_invitations_no_longer_work(cities):
    cities.invite(V, email="boss@desert.example", organisation="hauler", role="admin", hauler_id=cities.hauler_id)
    boss = cities.join("boss@desert.example", HAULER_SCOPES)
    cities.invite("boss@desert.example", email="late@desert.example", organisation="hauler", role="admin")
    link = pending_link(cities, "late@desert.example")
    assert cities.client.get(link).status_code == 200
    boss_id = cities.session.scalar(select(Membership.id).join(Person).where(Person.email == "boss@desert.example"))
    assert cities.call(V, "POST", f"/v1/memberships/{boss_id}/removal").status_code == 200
    assert cities.client.get(link).status_code == 410
    assert pf.post_form(cities.client, link, name="Late", password=pf.PASSWORD).status_code == 410
    # The removed admin's own token is refused too.
    assert cities.client.get("/v1/manifests", headers=boss).status_code == 401


def test_a_revoked_clients_pending_invitations_no_longer_work(cities):
    client_id, secret = factories.oauth_client(cities.session, role="admin", subject=[V])
    cities.headers["temp"] = factories.bearer(factories.token(cities.client, client_id, secret))
    cities.invite("temp", email="aud@v.example", organisation="city", role="auditor", jurisdiction=V)
    link = pending_link(cities, "aud@v.example")
    result = cities.app.test_cli_runner().invoke(args=["clients", "revoke", client_id])
    assert result.exit_code == 0, result.output
    assert cities.client.get(link).status_code == 410


def test_an_admin_lists_and_withdraws_its_pending_invitations_and_no_other_citys(cities):
    made = cities.invite(V, email="new@v.example", organisation="city", role="auditor", jurisdiction=V)
    theirs = cities.invite(P, email="new@p.example", organisation="city", role="auditor", jurisdiction=P)
    listed = cities.call(V, "GET", "/v1/invitations")
    assert listed.status_code == 200, listed.json
    assert made["id"] in [i["id"] for i in listed.json["items"]]
    assert theirs["id"] not in [i["id"] for i in listed.json["items"]]
    # Another city's invitation is answered as a missing one, and stays.
    foreign = cities.call(V, "POST", f"/v1/invitations/{theirs['id']}/withdrawal")
    missing = cities.call(V, "POST", "/v1/invitations/0190d5c4-7f7b-7c4e-9b1a-2f3e4d5c6b7a/withdrawal")
    assert foreign.status_code == missing.status_code == 404
    assert foreign.json["detail"] == missing.json["detail"]
    assert cities.client.get(pending_link(cities, "new@p.example")).status_code == 200
    withdrawn = cities.call(V, "POST", f"/v1/invitations/{made['id']}/withdrawal")
    assert withdrawn.status_code == 200 and withdrawn.json["withdrawn_at"]
    assert cities.client.get(pending_link(cities, "new@v.example")).status_code == 410
    assert made["id"] not in [i["id"] for i in cities.call(V, "GET", "/v1/invitations").json["items"]]
    row = cities.session.get(Invitation, uuid.UUID(made["id"]))
    cities.session.refresh(row)
    assert row.withdrawn_at is not None and row.accepted_at is None


def test_a_city_admin_does_not_end_a_restaurant_membership_that_spans_another_city(cities):
    """A restaurant's admin holding a Placentia and a Victorville restaurant is not Placentia's
    to list or remove: ending it would end access to what was filed in Victorville."""
    fse_ids = [cities.permits[city].fse_id for city in (V, P)]
    both = pf.person(
        cities.session, email="chain@diner.example", organisation="restaurant", role="admin", fse_ids=fse_ids
    )
    only_placentia = pf.person(
        cities.session, email="one@diner.example", organisation="restaurant", role="operator", fse_ids=fse_ids[1:]
    )
    listed = [m["id"] for m in cities.call(P, "GET", "/v1/memberships").json["items"]]
    assert str(only_placentia.id) in listed and str(both.id) not in listed
    assert cities.call(P, "POST", f"/v1/memberships/{both.id}/removal").status_code == 404


def test_memberships_a_city_granted_before_are_scoped_to_it(app, session):
    """The upgrade scopes what a city granted under the old rule (and what those admins granted
    in turn); the operator's whole-company memberships stay whole."""
    placentia = factories.jurisdiction(session, P)
    hauler = factories.hauler(session, cities=(V, P))
    admin_client_id, _ = factories.oauth_client(session, role="admin", subject=[P])
    admin = session.scalar(select(OAuthClient).where(OAuthClient.client_id == admin_client_id))
    boss = pf.person(
        session,
        email="boss@old.example",
        organisation="hauler",
        role="admin",
        hauler_id=hauler.id,
        invited_by_client_id=admin.id,
    )
    driver = pf.person(
        session,
        email="driver@old.example",
        organisation="hauler",
        role="driver",
        hauler_id=hauler.id,
        invited_by_client_id=boss.principal_id,
    )
    owner = pf.person(session, email="owner@old.example", organisation="hauler", role="admin", hauler_id=hauler.id)
    ids = {"boss": boss.id, "driver": driver.id, "owner": owner.id}
    factories.migrated_again(app, session, down_to="0026")
    scoped = {name: session.scalar(select(Membership).where(Membership.id == row_id)) for name, row_id in ids.items()}
    assert {name: m.jurisdiction_id for name, m in scoped.items()} == {
        "boss": placentia.id,
        "driver": placentia.id,
        "owner": None,
    }
    assert {name: m.principal.jurisdiction_id for name, m in scoped.items()} == {
        "boss": placentia.id,
        "driver": placentia.id,
        "owner": None,
    }


def test_going_back_before_scopes_revokes_a_scoped_membership_rather_than_widening_it(app, session):
    placentia = factories.jurisdiction(session, P)
    hauler = factories.hauler(session, cities=(V, P))
    scoped = pf.person(
        session,
        email="scoped@old.example",
        organisation="hauler",
        role="driver",
        hauler_id=hauler.id,
        jurisdiction_id=placentia.id,
    )
    principal_id = scoped.principal_id
    factories.migrated_again(app, session, down_to="0026")
    principal = session.get(OAuthClient, principal_id)
    assert principal.revoked_at is not None and principal.jurisdiction_id == placentia.id
