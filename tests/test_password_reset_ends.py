"""A new password ends what the old one began (exchange policy): the other reset links, the
sign-in pages left open, codes not yet exchanged, refresh and access tokens, sign-ins, and the
webhooks made through the person's memberships."""

import re
from datetime import timedelta

import pyotp
import pytest
from sqlalchemy import select

from storage.models import Webhook
from storage.people import Consent, Person, SignIn
from tests import factories
from tests import people_factories as pf
from tests.manifest_world import NOW
from tests.people_factories import city, link_in, mails  # noqa: F401

NEW_PASSWORD = "a whole new passphrase"
APP_CALLBACK = "https://dispatch.example/cb"


@pytest.fixture
def sam(session):
    """A hauler's dispatcher, whose password a thief has."""
    hauler = factories.hauler(session, name="Inland Grease")
    return pf.person(session, email="sam@h.example", organisation="hauler", role="dispatcher", hauler_id=hauler.id)


def reset_link(app, client, email):
    """Ask for a reset link by mail, as the owner would; the link's path."""
    assert pf.post_form(client, "/signin/reset", email=email).status_code == 200
    return link_in(mails(app)[-1])


def reset(app, client, email, password=NEW_PASSWORD):
    response = pf.post_form(client, reset_link(app, client, email), password=password)
    assert response.status_code == 200, response.get_data(as_text=True)[:500]


def exchange(client, client_id, code, verifier, redirect_uri=pf.PORTAL_REDIRECT):
    return client.post(
        "/oauth/token",
        data={
            "grant_type": "authorization_code",
            "code": code,
            "redirect_uri": redirect_uri,
            "code_verifier": verifier,
            "client_id": client_id,
        },
    )


def test_using_one_reset_link_ends_every_other(app, client, city, session, sam, frozen_clock):
    start = frozen_clock(NOW)
    older = reset_link(app, client, "sam@h.example")
    frozen_clock(start + timedelta(minutes=30))
    newer = reset_link(app, client, "sam@h.example")
    assert older != newer
    assert pf.post_form(client, newer, password=NEW_PASSWORD).status_code == 200
    # The older link, still within its two hours, sets nothing now.
    frozen_clock(start + timedelta(minutes=31))
    assert client.get(older).status_code == 410
    assert pf.post_form(client, older, password="the thief's own passphrase").status_code == 410
    assert pf.sign_in(client, city["portal"], email="sam@h.example", password=NEW_PASSWORD, scope="manifests:read")[
        "access_token"
    ]
    with pytest.raises(AssertionError):
        pf.sign_in(
            client, city["portal"], email="sam@h.example", password="the thief's own passphrase", scope="manifests:read"
        )


def test_a_consent_page_reached_before_a_reset_yields_no_code_after_it(app, client, city, session, sam):
    app_id, _ = pf.app(session, redirect_uri=APP_CALLBACK, public=True, first_party=False, name="Dispatch Pro")
    _, challenge = pf.pkce()
    thief = pf.Browser(client)
    thief.open(pf.authorize_url(app_id, challenge, scope="manifests:read", redirect_uri=APP_CALLBACK))
    thief.submit(email="sam@h.example", password=pf.PASSWORD)
    assert "asks to act for you" in thief.page
    reset(app, client, "sam@h.example")
    answer = thief.submit(decision="allow")
    assert answer.status_code == 400 and "Location" not in answer.headers
    assert "sign in again" in thief.page
    assert session.scalar(select(Consent).where(Consent.person_id == sam.person_id)) is None


def test_a_code_or_token_issued_before_a_reset_stops_working_after_it(app, client, city, session, sam):
    signed_in = pf.sign_in(client, city["portal"], email="sam@h.example", scope="manifests:read")
    verifier, challenge = pf.pkce()
    thief = pf.Browser(client)
    thief.open(pf.authorize_url(city["portal"], challenge, scope="manifests:read"))
    code = pf.code_from(thief.submit(email="sam@h.example", password=pf.PASSWORD))
    reset(app, client, "sam@h.example")

    exchanged = exchange(client, city["portal"], code, verifier)
    assert exchanged.status_code == 400 and exchanged.json["error"] == "invalid_grant"
    refreshed = client.post(
        "/oauth/token",
        data={"grant_type": "refresh_token", "client_id": city["portal"], "refresh_token": signed_in["refresh_token"]},
    )
    assert refreshed.status_code == 400 and refreshed.json["error"] == "invalid_grant"
    assert client.get("/v1/manifests", headers=factories.bearer(signed_in["access_token"])).status_code == 401
    session.expire_all()
    assert session.scalars(select(SignIn.revoked_reason).where(SignIn.person_id == sam.person_id)).all() == [
        "password_changed"
    ]


def test_webhooks_made_through_a_persons_memberships_stop_at_a_reset(app, client, city, session, sam):
    """A thief's session made a webhook for the hauler's change feed: the owner's reset ends it,
    and the hauler's program's own webhook goes on."""
    stolen = factories.bearer(
        pf.sign_in(client, city["portal"], email="sam@h.example", scope="manifests:read")["access_token"]
    )
    made = client.post("/v1/webhooks", json={"url": "https://93.184.216.34/thief"}, headers=stolen)
    assert made.status_code == 201, made.json
    program = factories.bearer(
        factories.token(client, *factories.oauth_client(session, role="hauler", subject=[sam.hauler_id]))
    )
    theirs = client.post("/v1/webhooks", json={"url": "https://93.184.216.34/dispatch"}, headers=program)
    assert theirs.status_code == 201, theirs.json

    reset(app, client, "sam@h.example")
    own = factories.bearer(
        pf.sign_in(client, city["portal"], email="sam@h.example", password=NEW_PASSWORD, scope="manifests:read")[
            "access_token"
        ]
    )
    [seen] = client.get("/v1/webhooks", headers=own).json["items"]
    assert (seen["id"], seen["status"]) == (made.json["id"], "disabled")
    assert "password" in seen["disabled_reason"]
    assert client.get(f"/v1/webhooks/{theirs.json['id']}", headers=program).json["status"] == "active"
    session.expire_all()
    assert sorted(session.scalars(select(Webhook.status)).all()) == ["active", "disabled"]


def test_a_second_factor_enrolment_begun_before_a_reset_is_refused_after_it(
    app, client, city, session, sam, frozen_clock
):
    """The thief's authenticator would otherwise guard the owner's account from the owner."""
    frozen_clock(NOW)
    thief = pf.Browser(client)
    thief.open("/signin/second-factor")
    assert thief.submit(email="sam@h.example", password=pf.PASSWORD).status_code == 200
    secret = re.search(r'<code id="secret">([A-Z2-7]+)</code>', thief.page).group(1)
    reset(app, client, "sam@h.example")
    refused = thief.submit(code=pyotp.TOTP(secret).at(NOW))
    assert refused.status_code == 400 and "start again" in thief.page
    session.expire_all()
    assert session.get(Person, sam.person_id).totp_enabled_at is None


def test_a_second_factor_key_shown_before_a_reset_is_not_the_one_the_owner_enrols(app, client, city, session, sam):
    """An enrolment shows its key until it is confirmed: one a thief saw must not become the owner's."""
    thief = pf.Browser(client)
    thief.open("/signin/second-factor")
    thief.submit(email="sam@h.example", password=pf.PASSWORD)
    seen = re.search(r'<code id="secret">([A-Z2-7]+)</code>', thief.page).group(1)
    reset(app, client, "sam@h.example")
    owner = pf.Browser(client)
    owner.open("/signin/second-factor")
    assert owner.submit(email="sam@h.example", password=NEW_PASSWORD).status_code == 200
    shown = re.search(r'<code id="secret">([A-Z2-7]+)</code>', owner.page).group(1)
    assert shown != seen
    session.expire_all()
    assert session.get(Person, sam.person_id).totp_secret == shown
