"""People: invitations by mail, accepting them, resets, a second factor, removal,
who filed a manifest and who read a record (failed sign-ins: `test_signin_attempts.py`)."""

import re
from datetime import UTC, datetime, timedelta

import pyotp
import pytest
from sqlalchemy import select

from storage.models import ManifestRevision
from storage.people import Membership, Person
from tests import factories
from tests import people_factories as pf
from tests.people_factories import city, invite, link_in, mails  # noqa: F401


def accept(client, path, **form):
    browser = pf.Browser(client)
    page = browser.open(path)
    assert page.status_code == 200, browser.page
    return browser.submit(**form)


def test_a_city_admin_invites_an_auditor_who_signs_in_and_reads_the_city(app, client, city, session):
    invited = invite(
        client,
        city["admin"],
        email="Ana.Ruiz@Victorville.example",
        organisation="city",
        role="auditor",
        jurisdiction="victorville",
    )
    assert invited.status_code == 201, invited.json
    assert invited.json["email"] == "ana.ruiz@victorville.example"
    assert "token" not in invited.json
    # The 72 hours the link lasts
    created = datetime.fromisoformat(invited.json["created_at"])
    assert datetime.fromisoformat(invited.json["expires_at"]) - created == timedelta(hours=72)
    [message] = mails(app)
    assert message["To"] == "ana.ruiz@victorville.example" and "City of Victorville" in message["Subject"]
    accepted = accept(client, link_in(message), name="Ana Ruiz", password=pf.PASSWORD)
    assert accepted.status_code == 200 and "You are now auditor of City of Victorville" in accepted.get_data(
        as_text=True
    )
    # The link is used up.
    assert pf.post_form(client, link_in(message), **{"name": "X", "password": pf.PASSWORD}).status_code == 410

    token = pf.sign_in(
        client,
        city["portal"],
        email="ana.ruiz@victorville.example",
        scope="openid audit:read records:read manifests:read",
    )
    assert token["expires_in"] == 900 and token["refresh_token"]
    assert token["scope"] == "openid audit:read records:read manifests:read"
    headers = factories.bearer(token["access_token"])
    assert [j["code"] for j in client.get("/v1/jurisdictions", headers=headers).json["items"]] == ["victorville"]
    # An auditor's scopes, no more: the registry is not theirs to change.
    assert client.post("/v1/invitations", headers=headers, json={}).status_code == 403


@pytest.mark.parametrize("path", ["/signin/invitations/", "/signin/reset/"])
def test_a_link_fogx_never_sent_is_not_found_and_a_used_one_is_gone(client, city, path):
    """A token no invitation or reset was made with is a 404; one used up or expired a 410."""
    never = path + "Jm0ZqT5Kx8vN2pL7rW4yB1cD6fH9gS3aQw8eR2tY6uI"
    page = client.get(never)
    assert page.status_code == 404 and page.mimetype == "text/html"
    assert "This link does not work" in page.get_data(as_text=True)
    assert pf.post_form(client, never, **{"name": "X", "password": pf.PASSWORD}).status_code == 404


def test_an_invitation_link_expires_at_72_hours(app, client, city, frozen_clock):
    start = frozen_clock(datetime(2026, 6, 1, 23, 30, tzinfo=UTC))
    assert (
        invite(
            client, city["admin"], email="a@x.example", organisation="city", role="auditor", jurisdiction="victorville"
        ).status_code
        == 201
    )
    assert (
        invite(
            client, city["admin"], email="b@x.example", organisation="city", role="auditor", jurisdiction="victorville"
        ).status_code
        == 201
    )
    first, second = (link_in(m) for m in mails(app))
    frozen_clock(start + timedelta(hours=72) - timedelta(seconds=1))
    assert accept(client, first, name="A", password=pf.PASSWORD).status_code == 200
    frozen_clock(start + timedelta(hours=72))
    assert client.get(second).status_code == 410


def test_a_hauler_admin_invites_its_own_staff_and_no_one_elses(app, client, city, session):
    mine, theirs = factories.hauler(session, name="Mine"), factories.hauler(session, name="Theirs")
    boss = factories.bearer(
        pf.person_token(
            client, session, email="boss@mine.example", organisation="hauler", role="admin", hauler_id=mine.id
        )
    )
    driver = invite(client, boss, email="driver@mine.example", organisation="hauler", role="driver")
    assert driver.status_code == 201 and driver.json["hauler_id"] == str(mine.id)
    foreign = invite(
        client, boss, email="x@mine.example", organisation="hauler", role="driver", hauler_id=str(theirs.id)
    )
    missing = invite(
        client,
        boss,
        email="x@mine.example",
        organisation="hauler",
        role="driver",
        hauler_id="0190d5c4-7f7b-7c4e-9b1a-2f3e4d5c6b7a",
    )
    assert foreign.status_code == missing.status_code == 422
    assert foreign.json["errors"] == missing.json["errors"]
    assert (
        invite(
            client, boss, email="x@mine.example", organisation="city", role="auditor", jurisdiction="victorville"
        ).status_code
        == 403
    )
    dispatcher = factories.bearer(
        pf.person_token(
            client, session, email="d@mine.example", organisation="hauler", role="dispatcher", hauler_id=mine.id
        )
    )
    assert invite(client, dispatcher, email="y@mine.example", organisation="hauler", role="driver").status_code == 403
    listed = client.get("/v1/memberships", headers=boss).json["items"]
    assert sorted(m["person"]["email"] for m in listed) == ["boss@mine.example", "d@mine.example"]


def test_a_removed_person_loses_access_at_once(app, client, city, session):
    hauler = factories.hauler(session)
    app_id, app_secret = pf.app(session, redirect_uri="https://dispatch.example/cb", public=False, name="Dispatch")
    # The city's admin granted it, so it reaches the city alone and is the city's to end.
    pf.person(
        session,
        email="sam@h.example",
        organisation="hauler",
        role="dispatcher",
        hauler_id=hauler.id,
        jurisdiction_id=factories.jurisdiction(session).id,
    )
    token = pf.sign_in(
        client,
        app_id,
        secret=app_secret,
        email="sam@h.example",
        scope="manifests:read",
        redirect_uri="https://dispatch.example/cb",
    )
    headers = factories.bearer(token["access_token"])
    assert client.get("/v1/manifests", headers=headers).status_code == 200
    person = session.scalar(select(Person).where(Person.email == "sam@h.example"))
    introspected = client.post("/oauth/introspect", data={"token": token["access_token"]}, auth=(app_id, app_secret))
    assert introspected.json["active"] is True and introspected.json["client_id"] == app_id
    assert introspected.json["person_id"] == introspected.json["sub"] == str(person.id)
    assert introspected.json["role"] == "hauler" and introspected.json["scope"] == "manifests:read"

    membership = session.scalar(select(Membership).where(Membership.person_id == person.id))
    removed = client.post(f"/v1/memberships/{membership.id}/removal", headers=city["admin"])
    assert removed.status_code == 200 and removed.json["removed_at"]
    assert client.get("/v1/manifests", headers=headers).status_code == 401
    assert client.post("/oauth/introspect", data={"token": token["access_token"]}, auth=(app_id, app_secret)).json == {
        "active": False
    }
    refreshed = client.post(
        "/oauth/token",
        auth=(app_id, app_secret),
        data={"grant_type": "refresh_token", "refresh_token": token["refresh_token"]},
    )
    assert refreshed.status_code == 400 and refreshed.json["error"] == "invalid_grant"
    # Signing in again: the account belongs to no organisation now.
    _, challenge = pf.pkce()
    page = pf.Browser(client)
    page.open(pf.authorize_url(city["portal"], challenge, scope="manifests:read"))
    assert page.submit(email="sam@h.example", password=pf.PASSWORD).status_code == 403


def test_password_reset_by_mail_ends_every_sign_in(app, client, city, session):
    pf.person(
        session,
        email="olga@r.example",
        organisation="city",
        role="auditor",
        jurisdiction_id=factories.jurisdiction(session).id,
    )
    token = pf.sign_in(client, city["portal"], email="olga@r.example", scope="audit:read")
    asked = pf.post_form(client, "/signin/reset", **{"email": "OLGA@r.example"})
    unknown = pf.post_form(client, "/signin/reset", **{"email": "nobody@r.example"})
    assert asked.get_data() == unknown.get_data() or asked.status_code == unknown.status_code == 200
    [message] = mails(app)
    path = link_in(message)
    assert pf.post_form(client, path, **{"password": "short"}).status_code == 422
    assert pf.post_form(client, path, **{"password": "a whole new passphrase"}).status_code == 200
    assert pf.post_form(client, path, **{"password": "another new passphrase"}).status_code == 410
    assert client.get("/v1/audit/findings", headers=factories.bearer(token["access_token"])).status_code == 401
    with pytest.raises(AssertionError):
        pf.sign_in(client, city["portal"], email="olga@r.example", scope="audit:read")
    assert pf.sign_in(
        client, city["portal"], email="olga@r.example", password="a whole new passphrase", scope="audit:read"
    )["access_token"]


def test_a_city_requires_a_second_factor_of_its_staff(app, client, city, session, frozen_clock):
    frozen_clock(datetime(2026, 6, 1, 12, tzinfo=UTC))
    assert (
        client.put(
            "/v1/jurisdictions/victorville/sign-in-policy", headers=city["admin"], json={"staff_totp_required": "yes"}
        ).status_code
        == 422
    )
    assert (
        client.put(
            "/v1/jurisdictions/victorville/sign-in-policy", headers=city["admin"], json={"staff_totp_required": True}
        ).json["staff_totp_required"]
        is True
    )
    pf.person(
        session,
        email="kim@v.example",
        organisation="city",
        role="admin",
        jurisdiction_id=factories.jurisdiction(session).id,
    )
    verifier, challenge = pf.pkce()
    url = pf.authorize_url(city["portal"], challenge, scope="openid audit:read")
    page = pf.Browser(client)
    page.open(url)
    enrol = page.submit(email="kim@v.example", password=pf.PASSWORD)
    assert enrol.status_code == 200 and "Set up a second factor" in page.page
    secret = re.search(r'<code id="secret">([A-Z2-7]+)</code>', page.page).group(1)
    assert page.submit(code="000000").status_code == 400
    codes_page = page.submit(code=pyotp.TOTP(secret).at(datetime(2026, 6, 1, 12, tzinfo=UTC)))
    codes = re.findall(r"<li><code>([0-9a-f]{5}-[0-9a-f]{5})</code></li>", page.page)
    assert codes_page.status_code == 200 and len(codes) == 10
    assert pf.code_from(page.submit())
    # From now on a code is asked every time; a recovery code works once.
    for code, expected in ((None, 401), (codes[0], 302), (codes[0], 401)):
        page = pf.Browser(client)
        page.open(url)
        asked = page.submit(email="kim@v.example", password=pf.PASSWORD)
        assert asked.status_code == 200 and "second factor" in page.page
        assert page.submit(code=code or "123456").status_code == expected
    frozen_clock(datetime(2026, 6, 1, 12, 5, tzinfo=UTC))
    token = pf.sign_in(
        client,
        city["portal"],
        email="kim@v.example",
        scope="openid audit:read",
        totp=pyotp.TOTP(secret).at(datetime(2026, 6, 1, 12, 5, tzinfo=UTC)),
    )
    assert token["access_token"]


def test_invitations_go_through_an_smtp_server(make_app, session):
    from aiosmtpd.controller import Controller

    received = []

    class Inbox:
        async def handle_DATA(self, server, smtp_session, envelope):
            received.append(envelope)
            return "250 OK"

    from tests.conftest import _free_port, https_client

    controller = Controller(Inbox(), hostname="127.0.0.1", port=_free_port())
    controller.start()
    try:
        app = make_app(SMTP_URL=f"smtp://127.0.0.1:{controller.port}")
        client = https_client(app)
        with app.app_context():
            from storage.db import db

            factories.jurisdiction(db.session)
            admin = factories.bearer(
                factories.token(client, *factories.oauth_client(db.session, role="admin", subject=["victorville"]))
            )
        assert (
            invite(
                client, admin, email="pat@v.example", organisation="city", role="auditor", jurisdiction="victorville"
            ).status_code
            == 201
        )
    finally:
        controller.stop()
    [envelope] = received
    assert envelope.rcpt_tos == ["pat@v.example"]
    assert b"/signin/invitations/" in envelope.content
    assert mails(app) == []


def test_an_smtp_server_that_is_down_delays_the_invitation_mail_and_fails_no_request(make_app, session):
    """The invitation and its mail commit together; the mail waits in the outbox for a retry."""
    from tests.conftest import _free_port, https_client

    app = make_app(SMTP_URL=f"smtp://127.0.0.1:{_free_port()}")
    client = https_client(app)
    with app.app_context():
        from storage.db import db

        factories.jurisdiction(db.session)
        admin = factories.bearer(
            factories.token(client, *factories.oauth_client(db.session, role="admin", subject=["victorville"]))
        )
    answer = invite(
        client, admin, email="pat@v.example", organisation="city", role="auditor", jurisdiction="victorville"
    )
    assert answer.status_code == 201
    from storage.notice_models import Notice
    from storage.people import Invitation

    assert [i.email for i in session.scalars(select(Invitation))] == ["pat@v.example"]
    [notice] = session.scalars(select(Notice)).all()
    assert (notice.recipient, notice.kind, notice.state, notice.attempts) == (
        "pat@v.example",
        "invitation",
        "queued",
        1,
    )
    assert notice.last_error


def test_a_persons_filing_carries_their_certification_and_the_record_read_is_logged(app, client, city, session):
    permit = factories.permit(session)
    device = factories.device(session, permit_row=permit)
    hauler = factories.hauler(session, name="Inland Grease")
    pf.person(
        session, email="sam@inland.example", name="Sam Ortiz", organisation="hauler", role="driver", hauler_id=hauler.id
    )
    token = factories.bearer(
        pf.sign_in(client, city["portal"], email="sam@inland.example", scope="manifests:write")["access_token"]
    )
    completed = datetime.now(UTC) - timedelta(hours=2)
    body = {
        "manifest_number": "M-1",
        "permit_number": permit.permit_number,
        "device_tag": device.tag,
        "vehicle_id": "TRK-1",
        "driver_name": "Sam Ortiz",
        "fse_signer_name": "S",
        "service_started_at": (completed - timedelta(hours=1)).isoformat(),
        "service_completed_at": completed.isoformat(),
        "waste_type": "grease_interceptor_waste",
        "gallons_removed": 1400,
        "full_pump_down": True,
    }
    filed = client.post("/v1/manifests", headers=token, json=body)
    assert filed.status_code == 201, filed.json
    # A correction by a program of the same hauler carries no one's certification.
    program = factories.bearer(
        factories.token(client, *factories.oauth_client(session, role="hauler", subject=[hauler.id]))
    )
    corrected = client.post(
        f"/v1/manifests/{filed.json['id']}/corrections",
        headers=program,
        json={**body, "gallons_removed": 1450, "reason": "meter misread"},
    )
    assert corrected.status_code == 201, corrected.json
    sam = session.scalar(select(Person).where(Person.email == "sam@inland.example"))
    assert [
        (r.revision, r.submitted_by_person_id)
        for r in session.scalars(select(ManifestRevision).order_by(ManifestRevision.revision))
    ] == [(1, sam.id), (2, None)]

    operator = factories.bearer(
        pf.person_token(
            client,
            session,
            email="owner@r.example",
            organisation="restaurant",
            role="operator",
            fse_ids=[permit.fse_id],
        )
    )
    record = client.get(f"/v1/fses/{permit.fse_id}/records", headers=operator)
    assert record.status_code == 200
    certification, program_filing = [r["certification"] for m in record.json["manifests"] for r in m["revisions"]]
    assert program_filing is None
    assert certification == {
        "name": "Sam Ortiz",
        "organisation": "Inland Grease",
        "certified_at": filed.json["received_at"],
        "sha256": filed.json["sha256"],
    }
    assert client.get(f"/v1/fses/{permit.fse_id}/records?format=csv", headers=city["admin"]).status_code == 200
    log = client.get(f"/v1/fses/{permit.fse_id}/access-log", headers=city["admin"])
    assert [(r["format"], r["person_email"], r["role"]) for r in log.json["items"]] == [
        ("csv", None, "admin"),
        ("json", "owner@r.example", "fse"),
    ]
    csv = client.get(f"/v1/fses/{permit.fse_id}/access-log?format=csv", headers=city["admin"])
    assert csv.mimetype == "text/csv" and "owner@r.example" in csv.get_data(as_text=True)
    assert csv.get_data(as_text=True).splitlines()[0].startswith("read_at,format,format_words,")
    # The log is the city admin's: the operator who read may not see who else did.
    assert client.get(f"/v1/fses/{permit.fse_id}/access-log", headers=operator).status_code == 403


def test_the_demo_people_sign_in_through_the_demo_app(app, client):
    from services.demo.people import DEMO_APP, DEMO_PASSWORD, DEMO_PEOPLE

    assert app.test_cli_runner().invoke(args=["demo", "load"]).exit_code == 0
    reads = {
        "hauler": "/v1/haulers/me/due",
        "restaurant": "/v1/fses",
        "city": "/v1/audit/findings",
        "site": "/v1/receipts",
    }
    for address, (_name, organisation, _role) in DEMO_PEOPLE.items():
        token = pf.sign_in(
            client,
            DEMO_APP,
            email=address,
            password=DEMO_PASSWORD,
            redirect_uri=f"{app.config['PUBLIC_BASE_URL']}/portal/",
            scope="openid",
        )
        info = client.get("/oauth/userinfo", headers=factories.bearer(token["access_token"]))
        assert info.status_code == 200 and info.json["sub"]
        full = pf.sign_in(
            client,
            DEMO_APP,
            email=address,
            password=DEMO_PASSWORD,
            redirect_uri=f"{app.config['PUBLIC_BASE_URL']}/portal/",
            scope="",
        )
        answer = client.get(reads[organisation], headers=factories.bearer(full["access_token"]))
        assert answer.status_code == 200, (address, answer.json)


def test_control_characters_in_the_sign_in_forms_are_refused_not_a_500(app, client, city, session):
    _, challenge = pf.pkce()
    page = pf.Browser(client)
    page.open(pf.authorize_url(city["portal"], challenge))
    assert page.submit(email="a\x00b@x.example", password="whatever").status_code == 401
    assert pf.post_form(client, "/signin/reset", **{"email": "a\x00b@x.example"}).status_code == 200
    assert (
        invite(
            client,
            city["admin"],
            email="nul@x.example",
            organisation="city",
            role="auditor",
            jurisdiction="victorville",
        ).status_code
        == 201
    )
    path = link_in(mails(app)[0])
    assert pf.post_form(client, path, **{"name": "Nul\x00Name", "password": pf.PASSWORD}).status_code == 422


def test_no_password_code_or_token_of_a_person_is_stored_in_plain_text(app, client, city, session):
    from sqlalchemy import inspect, text

    assert (
        invite(
            client,
            city["admin"],
            email="kept@x.example",
            organisation="city",
            role="auditor",
            jurisdiction="victorville",
        ).status_code
        == 201
    )
    invitation_token = link_in(mails(app)[0]).rsplit("/", 1)[1]
    assert accept(client, link_in(mails(app)[0]), name="Kept", password=pf.PASSWORD).status_code == 200
    verifier, challenge = pf.pkce()
    page = pf.Browser(client)
    page.open(pf.authorize_url(city["portal"], challenge, scope="openid audit:read"))
    code = pf.code_from(page.submit(email="kept@x.example", password=pf.PASSWORD))
    token = client.post(
        "/oauth/token",
        data={
            "grant_type": "authorization_code",
            "code": code,
            "client_id": city["portal"],
            "redirect_uri": pf.PORTAL_REDIRECT,
            "code_verifier": verifier,
        },
    ).json
    refreshed = client.post(
        "/oauth/token",
        data={"grant_type": "refresh_token", "client_id": city["portal"], "refresh_token": token["refresh_token"]},
    ).json
    engine = app.extensions["fogx.engine"]
    with engine.connect() as connection:
        everything = "\n".join(
            " ".join(str(value) for value in row)
            for table in inspect(engine).get_table_names()
            for row in connection.execute(text(f"SELECT * FROM {table}"))
        )
    assert "kept@x.example" in everything and "$argon2id$" in everything
    for value in (
        pf.PASSWORD,
        invitation_token,
        code,
        token["access_token"],
        token["refresh_token"],
        refreshed["access_token"],
        refreshed["refresh_token"],
    ):
        assert value not in everything
