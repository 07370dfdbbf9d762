"""The portal signs a person in with the authorization code grant and PKCE, in Chromium."""

import requests
from sqlalchemy import update

from services.demo.people import DEMO_PASSWORD
from storage.people import OAuthApp
from tests.browser import by_css, chromium, message, portal, rows, text_of, waiting_for  # noqa: F401


def test_a_person_signs_in_to_the_portal_without_a_client_secret_and_out_again(portal, session):
    browser, base = portal
    # The demo's portal app, registered for the address the test serves it at.
    session.execute(
        update(OAuthApp).where(OAuthApp.client_id == "fogx-portal").values(redirect_uris=[f"{base}/portal/"])
    )
    session.commit()
    by_css(browser, "#person-sign-in")[0].click()
    waiting_for(browser, lambda b: by_css(b, "#email"), "the sign-in page")
    assert (
        browser.current_url.startswith(f"{base}/oauth/authorize?")
        and "code_challenge_method=S256" in browser.current_url
    )
    by_css(browser, "#email")[0].send_keys("auditor@demo.fogx.test")
    by_css(browser, "#password")[0].send_keys(DEMO_PASSWORD)
    by_css(browser, "#submit")[0].click()
    waiting_for(browser, lambda b: rows(b), "the missed services")
    assert browser.current_url == f"{base}/portal/"
    assert text_of(browser, "#who-name").startswith("Avery Audit · ")
    kept = browser.execute_script("return JSON.parse(sessionStorage.getItem('fogx.portal.session'))")
    headers = {"Authorization": f"Bearer {kept['token']}"}
    assert requests.get(f"{base}/v1/audit/findings", headers=headers, timeout=10).status_code == 200
    assert kept["refreshToken"]

    by_css(browser, "#sign-out")[0].click()
    waiting_for(browser, lambda b: message(b) == "You are signed out.", "the sign-out")
    waiting_for(
        browser,
        lambda _: requests.get(f"{base}/v1/audit/findings", headers=headers, timeout=10).status_code == 401,
        "the token revoked",
    )
    # The portal revoked the refresh token (RFC 7009): it refreshes nothing.
    refreshed = requests.post(
        f"{base}/oauth/token",
        timeout=10,
        data={"grant_type": "refresh_token", "refresh_token": kept["refreshToken"], "client_id": "fogx-portal"},
    )
    assert refreshed.status_code == 400 and refreshed.json()["error"] == "invalid_grant"


def test_a_wrong_password_keeps_the_person_on_the_sign_in_page(portal, session):
    browser, base = portal
    session.execute(
        update(OAuthApp).where(OAuthApp.client_id == "fogx-portal").values(redirect_uris=[f"{base}/portal/"])
    )
    session.commit()
    by_css(browser, "#person-sign-in")[0].click()
    waiting_for(browser, lambda b: by_css(b, "#email"), "the sign-in page")
    by_css(browser, "#email")[0].send_keys("auditor@demo.fogx.test")
    by_css(browser, "#password")[0].send_keys("not the password")
    by_css(browser, "#submit")[0].click()
    waiting_for(browser, lambda b: "not right" in text_of(b, "#message"), "the refusal")
    assert browser.execute_script("return sessionStorage.getItem('fogx.portal.session')") is None
