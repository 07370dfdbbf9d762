"""Invitations and password resets through a real SMTP server: text with an HTML alternative,
in Spanish where the inviter chose it or the person did, else in English; the link in both parts,
and gone from the database once sent."""

import json
import re

import pytest
from sqlalchemy import select

from storage.notice_models import Notice, NoticePreference
from tests import factories
from tests import people_factories as pf
from tests.conftest import https_client
from tests.notice_mail import LOADED, Inbox, smtp  # noqa: F401


@pytest.fixture
def mailed(make_app, smtp, session, frozen_clock):
    """Victorville and its admin (a client), the app's mail going to a real SMTP server."""
    frozen_clock(LOADED)
    inbox = Inbox()
    app = make_app(SMTP_URL=f"smtp://127.0.0.1:{smtp(inbox)}")
    http = https_client(app)
    factories.jurisdiction(session)
    admin = factories.bearer(
        factories.token(http, *factories.oauth_client(session, role="admin", subject=["victorville"]))
    )
    return http, inbox, admin


def parts(mail):
    return mail.get_body(("plain",)).get_content(), mail.get_body(("html",)).get_content()


def test_an_invitation_in_the_language_the_inviter_chose_with_its_link_in_both_parts(mailed, session):
    http, inbox, admin = mailed
    body = {"email": "rosa@v.example", "organisation": "city", "role": "admin", "jurisdiction": "victorville"}
    assert http.post("/v1/invitations", headers=admin, json={**body, "language": "es"}).status_code == 201
    [mail] = inbox.to("rosa@v.example")
    assert mail["Subject"] == "Invitación a fogx: City of Victorville"
    assert mail["Content-Language"] == "es" and mail["List-Unsubscribe"] is None
    text, html = parts(mail)
    assert "como administrador de City of Victorville" in text and "dentro de 72 horas" in text
    link = re.search(r"Aceptar la invitación: (https://fogx\.test/signin/invitations/\S+)", text).group(1)
    assert '<html lang="es">' in html and f'<a href="{link}">Aceptar la invitación</a>' in html
    [notice] = session.scalars(select(Notice)).all()
    assert (notice.state, notice.language) == ("sent", "es") and "signin" not in json.dumps(notice.body)
    # The person's notices are in Spanish too, once they accept, until they choose otherwise.
    browser = pf.Browser(http)
    assert browser.open(link.removeprefix("https://fogx.test")).status_code == 200
    assert browser.submit(name="Rosa Díaz", password=pf.PASSWORD).status_code == 200
    portal = pf.app(session)[0]
    token = pf.sign_in(http, portal, email="rosa@v.example", scope="audit:read")["access_token"]
    assert http.get("/v1/me/notice-choices", headers=factories.bearer(token)).json["language"] == "es"


def test_an_invitation_without_a_language_is_in_the_addresss_own_or_english(mailed, session):
    http, inbox, admin = mailed
    body = {"organisation": "city", "role": "auditor", "jurisdiction": "victorville"}
    assert http.post("/v1/invitations", headers=admin, json={**body, "email": "lee@v.example"}).status_code == 201
    [mail] = inbox.to("lee@v.example")
    text, html = parts(mail)
    assert mail["Subject"] == "You are invited to fogx: City of Victorville" and mail["Content-Language"] == "en"
    assert "as auditor of City of Victorville" in text and "within 72 hours" in text
    link = re.search(r"Accept the invitation: (https://fogx\.test/signin/invitations/\S+)", text).group(1)
    assert '<html lang="en">' in html and f'<a href="{link}">Accept the invitation</a>' in html
    assert session.get(NoticePreference, "lee@v.example") is None
    # An address that chose Spanish already (a person of another organisation) is invited in it.
    session.add(NoticePreference(address="ines@v.example", language="es", muted=[], updated_at=LOADED))
    session.commit()
    assert http.post("/v1/invitations", headers=admin, json={**body, "email": "ines@v.example"}).status_code == 201
    assert [m["Subject"] for m in inbox.to("ines@v.example")] == ["Invitación a fogx: City of Victorville"]
    refused = http.post("/v1/invitations", headers=admin, json={**body, "email": "fr@v.example", "language": "fr"})
    assert refused.status_code == 422 and refused.content_type == "application/problem+json"
    assert list(refused.json["errors"]) == ["language"] and inbox.to("fr@v.example") == []


def test_a_reset_link_is_in_the_language_the_person_chose(mailed, session):
    http, inbox, _ = mailed
    hauler = factories.hauler(session)
    for email in ("sam@h.example", "dana@h.example"):
        pf.person(session, email=email, organisation="hauler", role="dispatcher", name="Sam Ortiz", hauler_id=hauler.id)
    portal = pf.app(session)[0]
    token = pf.sign_in(http, portal, email="sam@h.example", scope="manifests:read")["access_token"]
    chosen = http.patch("/v1/me/notice-choices", headers=factories.bearer(token), json={"language": "es"})
    assert chosen.status_code == 200
    for email in ("sam@h.example", "dana@h.example"):
        assert pf.post_form(http, "/signin/reset", email=email).status_code == 200
    [spanish] = inbox.to("sam@h.example")
    text, html = parts(spanish)
    assert spanish["Subject"] == "Restablezca su contraseña de fogx" and spanish["Content-Language"] == "es"
    assert text.startswith("Hola, Sam Ortiz:") and "dentro de 2 horas" in text
    sams = re.search(r"Elegir una contraseña nueva: (https://fogx\.test/signin/reset/\S+)", text).group(1)
    assert '<html lang="es">' in html and f'<a href="{sams}">Elegir una contraseña nueva</a>' in html
    [english] = inbox.to("dana@h.example")
    text, html = parts(english)
    assert english["Subject"] == "Reset your fogx password" and english["Content-Language"] == "en"
    link = re.search(r"Choose a new password: (https://fogx\.test/signin/reset/\S+)", text).group(1)
    assert f'<a href="{link}">Choose a new password</a>' in html
    # The Spanish mail's link works as the English one's does.
    for path in (sams, link):
        assert (
            pf.post_form(http, path.removeprefix("https://fogx.test"), password="a new passphrase").status_code == 200
        )
