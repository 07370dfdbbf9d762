"""A portal sign-in left idle ends on the server too (exchange policy): a refresh token not
renewed within `SESSION_IDLE_SECONDS` is refused and the sign-in ends, whoever presents it; a
sign-in in use, renewed within the limit, goes on; another app's lasts as its refresh token."""

import re
from datetime import timedelta
from pathlib import Path

import pytest
from sqlalchemy import select, update

from storage.people import OAuthApp, SignIn
from tests import factories
from tests import people_factories as pf
from tests.manifest_world import NOW
from tests.people_factories import city  # noqa: F401

IDLE = timedelta(hours=1)


@pytest.fixture
def sam(session):
    hauler = factories.hauler(session, name="Inland Grease")
    return pf.person(session, email="sam@h.example", organisation="hauler", role="dispatcher", hauler_id=hauler.id)


def refresh(client, client_id, token):
    return client.post(
        "/oauth/token", data={"grant_type": "refresh_token", "client_id": client_id, "refresh_token": token}
    )


def test_a_portal_sign_in_renewed_within_the_idle_limit_goes_on_and_one_idle_past_it_ends(
    app, client, city, session, sam, frozen_clock
):
    assert app.config["SESSION_IDLE_SECONDS"] == IDLE.total_seconds()
    start = frozen_clock(NOW)
    token = pf.sign_in(client, city["portal"], email="sam@h.example", scope="manifests:read")
    # In use: renewed a second before the limit, and again within the limit of that renewal.
    frozen_clock(start + IDLE - timedelta(seconds=1))
    renewed = refresh(client, city["portal"], token["refresh_token"])
    assert renewed.status_code == 200, renewed.json
    frozen_clock(start + 2 * IDLE - timedelta(seconds=2))
    again = refresh(client, city["portal"], renewed.json["refresh_token"])
    assert again.status_code == 200, again.json

    # Then nobody uses it for the limit: the refresh token is refused, and the sign-in ends.
    frozen_clock(start + 3 * IDLE - timedelta(seconds=2))
    idle = refresh(client, city["portal"], again.json["refresh_token"])
    assert idle.status_code == 400 and idle.json["error"] == "invalid_grant"
    assert idle.mimetype == "application/problem+json"
    sign_in = session.scalar(select(SignIn).order_by(SignIn.created_at.desc()))
    session.refresh(sign_in)
    assert sign_in.revoked_at is not None and sign_in.revoked_reason == "idle"
    # Its last access token ends with it, before its own time is up.
    frozen_clock(start + 2 * IDLE)
    headers = factories.bearer(again.json["access_token"])
    assert client.get("/v1/manifests", headers=headers).status_code == 401


def test_another_apps_sign_in_is_not_held_to_the_portals_idle_limit(app, client, city, session, sam, frozen_clock):
    start = frozen_clock(NOW)
    token = pf.sign_in(client, city["portal"], email="sam@h.example", scope="manifests:read")
    # The same app, no longer the exchange's own: its refresh token lasts its 30 days.
    session.execute(update(OAuthApp).where(OAuthApp.client_id == city["portal"]).values(first_party=False))
    session.commit()
    frozen_clock(start + 5 * IDLE)
    renewed = refresh(client, city["portal"], token["refresh_token"])
    assert renewed.status_code == 200, renewed.json


def test_the_portal_holds_the_servers_idle_limit():
    """The tab stops renewing at the limit the server refuses at (portal/js/api.js IDLE_MS)."""
    source = (Path(__file__).parents[1] / "portal" / "js" / "api.js").read_text()
    factors = re.search(r"export const IDLE_MS = ([\d\s*_]+);", source).group(1)
    milliseconds = 1
    for factor in factors.split("*"):
        milliseconds *= int(factor.strip().replace("_", ""))
    assert milliseconds == IDLE.total_seconds() * 1000


def test_the_drivers_app_keeps_a_sign_in_through_a_working_day_and_the_portal_keeps_its_hour(
    app, client, session, sam, frozen_clock
):
    """The driver's phone app (`fogx-driver`, made on first use like the portal's) is held to
    `DRIVER_SESSION_IDLE_SECONDS`, 14 hours by default: two hours between stops is nothing,
    a phone left past the limit is signed out."""
    from auth.people import DRIVER_APP

    limit = timedelta(seconds=app.config["DRIVER_SESSION_IDLE_SECONDS"])
    assert limit == timedelta(hours=14)
    driver_page = app.config["PUBLIC_BASE_URL"] + "/portal/driver/"
    start = frozen_clock(NOW)
    token = pf.sign_in(client, DRIVER_APP, email="sam@h.example", scope="manifests:read", redirect_uri=driver_page)
    row = session.scalar(select(OAuthApp).where(OAuthApp.client_id == DRIVER_APP))
    assert (row.first_party, row.secret_sha256, row.redirect_uris[0]) == (True, None, driver_page)
    # Two hours between stops: past the portal's hour, well within the driver's day.
    frozen_clock(start + 2 * IDLE)
    renewed = refresh(client, DRIVER_APP, token["refresh_token"])
    assert renewed.status_code == 200, renewed.json
    # Renewed a second before the limit, it goes on; at the limit, it ends.
    frozen_clock(start + 2 * IDLE + limit - timedelta(seconds=1))
    again = refresh(client, DRIVER_APP, renewed.json["refresh_token"])
    assert again.status_code == 200, again.json
    frozen_clock(start + 2 * IDLE + limit - timedelta(seconds=1) + limit)
    idle = refresh(client, DRIVER_APP, again.json["refresh_token"])
    assert idle.status_code == 400 and idle.json["error"] == "invalid_grant"
    # The portal's app is not the driver's: its redirect is refused for the driver's client
    # and the portal's hour still holds for it (the test above).
    elsewhere = pf.Browser(client).open(
        pf.authorize_url(DRIVER_APP, pf.pkce()[1], redirect_uri=app.config["PUBLIC_BASE_URL"] + "/portal/")
    )
    assert elsewhere.status_code == 403
