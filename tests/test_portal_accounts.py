"""People's accounts in a real browser (Chromium): a city admin invites someone by email (read
from a real SMTP server in the test process), who accepts, sets a password and the second
factor the city requires, signs in to the portal (authorization code with PKCE), sees only
what the role allows and signs out for good; a password reset by the mailed link; the wait
after repeated failures, which a new password ends."""

import email
import email.policy
import re
from datetime import UTC, datetime, timedelta

import pyotp
import pytest
import requests
from sqlalchemy import update

from services.demo.people import DEMO_PASSWORD
from storage.people import OAuthApp
from tests.browser import by_css, chromium, fill, message, portal_sign_in, rows, sign_out, text_of, waiting_for  # noqa: F401
from tests.conftest import _free_port, serve

NEW_PASSWORD = "a long new passphrase of mine"
FAILURE_LIMIT = 3


@pytest.fixture
def inbox():
    """A real SMTP server on a loopback port; the messages it took, parsed."""
    from aiosmtpd.controller import Controller

    received = []

    class Inbox:
        async def handle_DATA(self, server, smtp_session, envelope):
            received.append(email.message_from_bytes(envelope.content, policy=email.policy.default))
            return "250 OK"

    controller = Controller(Inbox(), hostname="127.0.0.1", port=_free_port())
    controller.start()
    yield controller.port, received
    controller.stop()


@pytest.fixture
def site(make_app, chromium, inbox, frozen_clock):
    """The demo served over HTTP, mailing through the SMTP server, its issuer and portal app at
    the served address; (browser, base URL, mails, move the clock)."""
    clock = {"at": frozen_clock(datetime.now(UTC).replace(microsecond=0))}

    def later(seconds):
        clock["at"] = frozen_clock(clock["at"] + timedelta(seconds=seconds))
        return clock["at"]

    port, received = inbox
    app = make_app(SMTP_URL=f"smtp://127.0.0.1:{port}", SIGN_IN_FAILURE_LIMIT=FAILURE_LIMIT, AUTH_FAILURE_LIMIT=50)
    assert app.test_cli_runner().invoke(args=["demo", "load"]).exit_code == 0
    with serve(app) as base:
        app.config["OAUTH_ISSUER"] = app.config["PUBLIC_BASE_URL"] = base
        with app.app_context():
            from storage.db import db

            db.session.execute(
                update(OAuthApp).where(OAuthApp.client_id == "fogx-portal").values(redirect_uris=[f"{base}/portal/"])
            )
            db.session.commit()
        chromium.get(f"{base}/portal/")
        chromium.execute_script("sessionStorage.clear()")
        yield chromium, base, received, later
        chromium.get("about:blank")
        chromium.delete_all_cookies()


def link_in(mail, base) -> str:
    return re.search(re.escape(base) + r"/signin/\S+", mail.get_body(("plain",)).get_content()).group(0)


def heading(browser):
    return text_of(browser, "h1")


def kept_session(browser):
    return browser.execute_script("return JSON.parse(sessionStorage.getItem('fogx.portal.session'))")


def test_an_invited_auditor_sets_a_password_and_totp_signs_in_sees_their_share_and_signs_out(site):
    browser, base, mails, later = site
    # The city's admin (a demo person) signs in to the portal and, with that token, invites.
    portal_sign_in(browser, "admin@demo.fogx.test", DEMO_PASSWORD)
    waiting_for(browser, lambda b: rows(b), "the admin's lists")
    admin = {"Authorization": f"Bearer {kept_session(browser)['token']}"}
    assert (
        requests.put(
            f"{base}/v1/jurisdictions/victorville/sign-in-policy",
            headers=admin,
            timeout=10,
            json={"staff_totp_required": True},
        ).status_code
        == 200
    )
    invited = requests.post(
        f"{base}/v1/invitations",
        headers=admin,
        timeout=10,
        json={
            "email": "Rosa.Diaz@Victorville.example",
            "organisation": "city",
            "role": "auditor",
            "jurisdiction": "victorville",
        },
    )
    assert invited.status_code == 201, invited.text
    sign_out(browser)

    [mail] = mails
    assert mail["To"] == "rosa.diaz@victorville.example"
    browser.get(link_in(mail, base))
    assert "Join City of Victorville" in heading(browser)
    fill(browser, name="Rosa Diaz", password=NEW_PASSWORD)
    waiting_for(browser, lambda b: heading(b) == "Welcome to fogx", "the welcome")
    # The link works once.
    browser.get(link_in(mail, base))
    assert heading(browser) == "This link no longer works"

    # First sign-in: the city requires a second factor of its staff, so it is set up now.
    browser.get(f"{base}/portal/")
    portal_sign_in(browser, "rosa.diaz@victorville.example", NEW_PASSWORD)
    waiting_for(browser, lambda b: heading(b) == "Set up a second factor", "the enrolment")
    secret = text_of(browser, "#secret")
    assert text_of(browser, "#uri").startswith("otpauth://totp/fogx:rosa.diaz%40victorville.example?secret=")
    fill(browser, code=pyotp.TOTP(secret).at(later(0)))
    waiting_for(browser, lambda b: heading(b) == "Your recovery codes", "the recovery codes")
    assert len(by_css(browser, "#codes li")) == 10
    by_css(browser, "#submit")[0].click()
    waiting_for(browser, lambda b: rows(b), "the auditor's missed services")
    assert browser.current_url == f"{base}/portal/"
    assert text_of(browser, "#who-name") == "Rosa Diaz · city auditor"
    assert by_css(browser, "#second-factor")[0].is_displayed()

    # What an auditor may do, and no more; another city's records are not there.
    session = kept_session(browser)
    headers = {"Authorization": f"Bearer {session['token']}"}
    assert set(session["scopes"]) >= {"audit:read", "records:read"} and "registry:write" not in session["scopes"]
    assert requests.get(f"{base}/v1/audit/findings", headers=headers, timeout=10).status_code == 200
    assert requests.post(f"{base}/v1/fses", headers=headers, json={}, timeout=10).status_code == 403
    assert requests.get(f"{base}/v1/jurisdictions/tracy", headers=headers, timeout=10).status_code == 404
    assert (
        requests.get(f"{base}/v1/jurisdictions/victorville/registry-changes", headers=headers, timeout=10).status_code
        == 200
    )
    assert (
        requests.post(
            f"{base}/v1/invitations",
            headers=headers,
            timeout=10,
            json={"email": "x@y.example", "organisation": "city", "role": "admin", "jurisdiction": "victorville"},
        ).status_code
        == 403
    )

    sign_out(browser)
    # The revocation is sent as the page says so: the token stops working within moments.
    waiting_for(
        browser,
        lambda _: requests.get(f"{base}/v1/audit/findings", headers=headers, timeout=10).status_code == 401,
        "the token revoked",
    )
    refreshed = requests.post(
        f"{base}/oauth/token",
        timeout=10,
        data={"grant_type": "refresh_token", "refresh_token": session["refreshToken"], "client_id": "fogx-portal"},
    )
    assert refreshed.status_code == 400 and refreshed.json()["error"] == "invalid_grant"

    # Next time the code is asked for; the code of the step already used is not taken again.
    portal_sign_in(browser, "rosa.diaz@victorville.example", NEW_PASSWORD)
    waiting_for(browser, lambda b: heading(b) == "Your second factor", "the code step")
    fill(browser, code=pyotp.TOTP(secret).at(later(0)))
    waiting_for(browser, lambda b: "not right" in text_of(b, "#message"), "the replayed code refused")
    fill(browser, code=pyotp.TOTP(secret).at(later(30)))
    waiting_for(browser, lambda b: rows(b), "the auditor signed in again")


def test_a_password_reset_by_the_mailed_link_then_the_lock_after_failures(site):
    browser, base, mails, _ = site
    browser.get(f"{base}/portal/")
    portal_sign_in(browser, "operator@demo.fogx.test", "not the password at all")
    waiting_for(browser, lambda b: "not right" in text_of(b, "#message"), "the refusal")
    by_css(browser, "a[href='/signin/reset']")[0].click()
    waiting_for(browser, lambda b: heading(b) == "Reset your password", "the reset page")
    fill(browser, email="operator@demo.fogx.test")
    waiting_for(browser, lambda b: by_css(b, "#sent"), "the answer")
    waiting_for(browser, lambda _: mails, "the link mailed once the answer was sent")
    [mail] = mails
    assert mail["Subject"] == "Reset your fogx password"
    browser.get(link_in(mail, base))
    fill(browser, password=NEW_PASSWORD)
    waiting_for(browser, lambda b: heading(b) == "Password changed", "the new password set")

    # The old password no longer signs in; the new one does, to the operator's restaurants.
    browser.get(f"{base}/portal/")
    portal_sign_in(browser, "operator@demo.fogx.test", DEMO_PASSWORD)
    waiting_for(browser, lambda b: "not right" in text_of(b, "#message"), "the old password refused")
    browser.get(f"{base}/portal/")
    portal_sign_in(browser, "operator@demo.fogx.test", NEW_PASSWORD)
    waiting_for(browser, lambda b: "restaurant operator" in text_of(b, "#who-name"), "the operator signed in")
    headers = {"Authorization": f"Bearer {kept_session(browser)['token']}"}
    assert requests.get(f"{base}/v1/audit/findings", headers=headers, timeout=10).status_code == 403
    names = {f["name"] for f in requests.get(f"{base}/v1/fses", headers=headers, timeout=10).json()["items"]}
    assert len(names) == 2  # the two Victorville restaurants the operator runs, not Tracy's
    sign_out(browser)

    # Failures from here keep this address out of the account: even the right password is
    # refused, and told for how long.
    for _ in range(FAILURE_LIMIT):
        browser.get(f"{base}/portal/")
        portal_sign_in(browser, "operator@demo.fogx.test", "a wrong guess again")
        waiting_for(browser, lambda b: "not right" in text_of(b, "#message"), "a refusal")
    browser.get(f"{base}/portal/")
    portal_sign_in(browser, "operator@demo.fogx.test", NEW_PASSWORD)
    waiting_for(browser, lambda b: "try again in 15 minutes" in text_of(b, "#message"), "the wait")
    assert kept_session(browser) is None
    # A new password by the mailed link lets its owner in from here at once.
    browser.get(f"{base}/signin/reset")
    fill(browser, email="operator@demo.fogx.test")
    waiting_for(browser, lambda _: len(mails) == 2, "the second link mailed")
    browser.get(link_in(mails[1], base))
    fill(browser, password=NEW_PASSWORD + " again")
    waiting_for(browser, lambda b: heading(b) == "Password changed", "the newer password set")
    browser.get(f"{base}/portal/")
    portal_sign_in(browser, "operator@demo.fogx.test", NEW_PASSWORD + " again")
    waiting_for(browser, lambda b: "restaurant operator" in text_of(b, "#who-name"), "signed in after the reset")
