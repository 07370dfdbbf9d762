"""The sign-in pages' forms take a POST only with the form token of the person's own session:
one without it, or with another's, is refused with a page saying so, and changes nothing."""

import re
from datetime import UTC, datetime

import pyotp
import pytest
from sqlalchemy import select

from storage.people import Consent, Invitation, Person
from tests import factories
from tests import people_factories as pf
from tests.people_factories import city, invite, link_in, mails  # noqa: F401

FORGERIES = [("missing", None), ("wrong", "not-the-sessions-token")]


def forged(browser, token, **fields):
    """Submit the page's form with its token taken out, or replaced."""
    action, hidden = pf.form_of(browser.page)
    hidden.pop("csrf_token")
    if token is not None:
        hidden["csrf_token"] = token
    return browser.http.post(action or browser.url, data={**hidden, **fields}, headers=browser._headers())


def refused(response):
    # 403: the form is well formed but not the session's to send (a 400 would call it malformed).
    assert response.status_code == 403, response.get_data(as_text=True)[:500]
    assert "This form cannot be taken" in response.get_data(as_text=True)
    return True


@pytest.mark.parametrize(("how", "token"), FORGERIES)
def test_the_sign_in_form_without_its_token_signs_no_one_in(client, city, session, how, token):
    pf.person(
        session,
        email="ivy@v.example",
        organisation="city",
        role="auditor",
        jurisdiction_id=factories.jurisdiction(session).id,
    )
    _, challenge = pf.pkce()
    browser = pf.Browser(client)
    browser.open(pf.authorize_url(city["portal"], challenge, scope="audit:read"))
    assert refused(forged(browser, token, email="ivy@v.example", password=pf.PASSWORD))
    # Not even counted as a failure: a forged form is no sign-in attempt.
    assert session.scalar(select(Person.failed_sign_ins).where(Person.email == "ivy@v.example")) == 0
    # The same form with its token goes through.
    assert pf.code_from(browser.submit(email="ivy@v.example", password=pf.PASSWORD))


def test_a_token_of_another_session_is_refused(client, city, session):
    pf.person(
        session,
        email="ivy@v.example",
        organisation="city",
        role="auditor",
        jurisdiction_id=factories.jurisdiction(session).id,
    )
    _, challenge = pf.pkce()
    url = pf.authorize_url(city["portal"], challenge, scope="audit:read")
    attacker, victim = pf.Browser(client), pf.Browser(client)
    attacker.open(url)
    victim.open(url)
    their_token = pf.form_of(attacker.page)[1]["csrf_token"]
    assert their_token != pf.form_of(victim.page)[1]["csrf_token"]
    assert refused(forged(victim, their_token, email="ivy@v.example", password=pf.PASSWORD))


@pytest.mark.parametrize(("how", "token"), FORGERIES)
def test_the_totp_consent_and_enrolment_steps_need_the_token(client, city, session, frozen_clock, how, token):
    at = datetime(2026, 6, 1, 12, tzinfo=UTC)
    frozen_clock(at)
    membership = pf.person(
        session,
        email="kim@v.example",
        organisation="city",
        role="admin",
        jurisdiction_id=factories.jurisdiction(session).id,
    )
    client.put(
        "/v1/jurisdictions/victorville/sign-in-policy", headers=city["admin"], json={"staff_totp_required": True}
    )
    _, challenge = pf.pkce()
    browser = pf.Browser(client)
    browser.open(pf.authorize_url(city["portal"], challenge, scope="audit:read"))
    browser.submit(email="kim@v.example", password=pf.PASSWORD)
    secret = re.search(r'<code id="secret">([A-Z2-7]+)</code>', browser.page).group(1)
    code = pyotp.TOTP(secret).at(at)
    assert refused(forged(browser, token, code=code))
    session.expire_all()
    assert session.get(Person, membership.person_id).totp_enabled_at is None
    assert browser.submit(code=code).status_code == 200 and "recovery codes" in browser.page
    pf.code_from(browser.submit())

    # The TOTP step of the next sign-in, a minute on.
    frozen_clock(datetime(2026, 6, 1, 12, 1, tzinfo=UTC))
    browser = pf.Browser(client)
    browser.open(pf.authorize_url(city["portal"], challenge, scope="audit:read"))
    browser.submit(email="kim@v.example", password=pf.PASSWORD)
    code = pyotp.TOTP(secret).at(datetime(2026, 6, 1, 12, 1, tzinfo=UTC))
    assert refused(forged(browser, token, code=code))
    assert pf.code_from(browser.submit(code=code))


@pytest.mark.parametrize(("how", "token"), FORGERIES)
def test_consent_without_the_token_grants_nothing(client, session, how, token):
    hauler = factories.hauler(session)
    person = pf.person(session, email="sam@h.example", organisation="hauler", role="dispatcher", hauler_id=hauler.id)
    app_id, _ = pf.app(
        session, public=False, first_party=False, name="Dispatch Pro", redirect_uri="https://dispatch.example/cb"
    )
    _, challenge = pf.pkce()
    browser = pf.Browser(client)
    browser.open(
        pf.authorize_url(app_id, challenge, scope="manifests:read", redirect_uri="https://dispatch.example/cb")
    )
    browser.submit(email="sam@h.example", password=pf.PASSWORD)
    assert "asks to act for you" in browser.page
    assert refused(forged(browser, token, decision="allow"))
    assert session.scalar(select(Consent).where(Consent.person_id == person.person_id)) is None
    assert pf.code_from(browser.submit(decision="allow"))


@pytest.mark.parametrize(("how", "token"), FORGERIES)
def test_accepting_an_invitation_needs_the_token(app, client, city, session, how, token):
    assert (
        invite(
            client,
            city["admin"],
            email="new@v.example",
            organisation="city",
            role="auditor",
            jurisdiction="victorville",
        ).status_code
        == 201
    )
    path = link_in(mails(app)[0])
    browser = pf.Browser(client)
    browser.open(path)
    assert refused(forged(browser, token, name="New Person", password=pf.PASSWORD))
    assert session.scalar(select(Person).where(Person.email == "new@v.example")) is None
    assert session.scalar(select(Invitation.accepted_at)) is None
    assert browser.submit(name="New Person", password=pf.PASSWORD).status_code == 200


@pytest.mark.parametrize(("how", "token"), FORGERIES)
def test_a_password_reset_needs_the_token_to_be_asked_for_and_to_be_set(app, client, session, how, token):
    membership = pf.person(
        session,
        email="olga@r.example",
        organisation="city",
        role="auditor",
        jurisdiction_id=factories.jurisdiction(session).id,
    )
    browser = pf.Browser(client)
    browser.open("/signin/reset")
    assert refused(forged(browser, token, email="olga@r.example"))
    assert mails(app) == []
    assert browser.submit(email="olga@r.example").status_code == 200
    [message] = mails(app)
    browser.open(link_in(message))
    hash_before = session.get(Person, membership.person_id).password_hash
    assert refused(forged(browser, token, password="a whole new passphrase"))
    session.expire_all()
    assert session.get(Person, membership.person_id).password_hash == hash_before
    assert browser.submit(password="a whole new passphrase").status_code == 200
    session.expire_all()
    assert session.get(Person, membership.person_id).password_hash != hash_before


def test_the_session_cookie_is_signed_httponly_lax_and_secure_over_https(client, city):
    _, challenge = pf.pkce()
    response = client.get(pf.authorize_url(city["portal"], challenge))
    [cookie] = [c for c in response.headers.getlist("Set-Cookie") if c.startswith("fogx_session=")]
    assert "HttpOnly" in cookie and "SameSite=Lax" in cookie and "Secure" in cookie
    # The token is not readable in the cookie (it is signed, and the page holds it).
    token = pf.form_of(response.get_data(as_text=True))[1]["csrf_token"]
    forged_cookie = "fogx_session=" + cookie.split(";")[0].split("=", 1)[1][:-4] + "AAAA"
    answer = client.post(
        pf.authorize_url(city["portal"], challenge),
        headers={"Cookie": forged_cookie},
        data={"csrf_token": token, "step": "password", "email": "x@y.example", "password": "x"},
    )
    assert refused(answer)
