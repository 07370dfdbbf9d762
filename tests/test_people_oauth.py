"""People sign in through apps, as third-party client libraries meet it over HTTP: the
authorization code grant with PKCE, consent, rotating refresh tokens, OpenID Connect."""

import base64
import hashlib
import re
from urllib.parse import urljoin

import pytest
import requests
from authlib.integrations.requests_client import OAuth2Session
from joserfc import jwt
from joserfc.errors import BadSignatureError
from joserfc.jwk import KeySet

from tests import factories
from tests import people_factories as pf
from tests.conftest import serve

CALLBACK = "http://127.0.0.1:9/callback"


@pytest.fixture
def served(app, session):
    """The app on a loopback port, its issuer that address; a hauler with a dispatcher."""
    hauler = factories.hauler(session, name="Inland Grease")
    pf.person(
        session,
        email="sam@inland.example",
        name="Sam Ortiz",
        organisation="hauler",
        role="dispatcher",
        hauler_id=hauler.id,
    )
    with serve(app) as base:
        app.config["OAUTH_ISSUER"] = base
        yield base, hauler


def walk(base, authorize_url, *, email="sam@inland.example", password=pf.PASSWORD, decision=None):
    """A person in a browser: the sign-in page, then consent where asked; where it ends."""
    browser = requests.Session()
    page = browser.get(authorize_url)
    assert page.status_code == 200, page.text
    action, hidden = pf.form_of(page.text)
    answer = browser.post(
        urljoin(base, action), data={**hidden, "email": email, "password": password}, allow_redirects=False
    )
    if decision is not None:
        assert "asks to act for you" in answer.text, answer.text
        action, hidden = pf.form_of(answer.text)
        answer = browser.post(urljoin(base, action), data={**hidden, "decision": decision}, allow_redirects=False)
    assert answer.status_code == 302, answer.text
    return answer.headers["Location"]


def test_a_public_app_signs_a_person_in_with_pkce_and_calls_the_api(served, session):
    base, hauler = served
    client_id, _ = pf.app(session, redirect_uri=CALLBACK)
    oauth = OAuth2Session(
        client_id,
        redirect_uri=CALLBACK,
        scope="openid manifests:read",
        code_challenge_method="S256",
        token_endpoint_auth_method="none",
    )
    verifier = pf.pkce()[0]
    url, state = oauth.create_authorization_url(f"{base}/oauth/authorize", code_verifier=verifier)
    callback = walk(base, url)
    assert f"state={state}" in callback
    token = oauth.fetch_token(f"{base}/oauth/token", authorization_response=callback, code_verifier=verifier)
    assert token["scope"] == "openid manifests:read" and token["expires_in"] == 900
    assert oauth.get(f"{base}/v1/manifests").status_code == 200
    # manifests:write was not asked for: the token does not carry it.
    assert oauth.post(f"{base}/v1/manifests", json={}).status_code == 403
    # A code is used once; a second exchange fails and ends what the first one gave.
    again = requests.post(
        f"{base}/oauth/token",
        data={
            "grant_type": "authorization_code",
            "code": re.search(r"code=([^&]+)", callback).group(1),
            "redirect_uri": CALLBACK,
            "code_verifier": verifier,
            "client_id": client_id,
        },
    )
    assert again.status_code == 400 and again.json()["error"] == "invalid_grant"
    assert oauth.get(f"{base}/v1/manifests").status_code == 401


def test_pkce_is_required_and_checked(served, session):
    base, _ = served
    client_id, _ = pf.app(session, redirect_uri=CALLBACK)
    verifier, challenge = pf.pkce()
    for method in ("plain", None):
        url = base + pf.authorize_url(
            client_id, verifier if method == "plain" else "", redirect_uri=CALLBACK, method=method or ""
        )
        answer = requests.get(url, allow_redirects=False)
        assert answer.status_code == 302 and "error=invalid_request" in answer.headers["Location"]
        assert "state=st4te" in answer.headers["Location"]
    # A redirect URI the app did not register gets a page, never a redirect: 403, fogx will not
    # send the person there; an app fogx does not know is a 404. Neither is a malformed request.
    stray = requests.get(
        base + pf.authorize_url(client_id, challenge, redirect_uri="https://evil.example/cb"), allow_redirects=False
    )
    assert stray.status_code == 403 and "Location" not in stray.headers
    assert stray.headers["Content-Type"].startswith("text/html")
    # Outside ASCII too (the error's text once quoted it, which Authlib refuses: a 500).
    accented = requests.get(
        base + pf.authorize_url(client_id, challenge, redirect_uri="https://evil.example/cõb"), allow_redirects=False
    )
    assert accented.status_code == 403 and "Location" not in accented.headers
    unknown = requests.get(
        base + pf.authorize_url("no-such-app", challenge, redirect_uri=CALLBACK), allow_redirects=False
    )
    assert unknown.status_code == 404 and "Location" not in unknown.headers
    assert "This sign-in link is not right" in unknown.text
    # A request that asks for no scope (`scope` is optional, RFC 6749 3.3) is shown the sign-in
    # page, not a server error.
    bare = requests.get(
        base + pf.authorize_url(client_id, challenge, redirect_uri=CALLBACK).replace("scope=openid+profile+email&", ""),
        allow_redirects=False,
    )
    assert "scope=" not in bare.url
    assert bare.status_code == 200 and 'name="password"' in bare.text
    callback = walk(base, base + pf.authorize_url(client_id, challenge, redirect_uri=CALLBACK))
    code = re.search(r"code=([^&]+)", callback).group(1)
    wrong = requests.post(
        f"{base}/oauth/token",
        data={
            "grant_type": "authorization_code",
            "code": code,
            "redirect_uri": CALLBACK,
            "code_verifier": pf.pkce()[0],
            "client_id": client_id,
        },
    )
    assert wrong.status_code == 400 and wrong.json()["error"] == "invalid_grant"


def test_a_third_party_app_asks_consent_and_rotates_refresh_tokens(served, session):
    base, hauler = served
    client_id, secret = pf.app(session, redirect_uri=CALLBACK, public=False, first_party=False, name="RouteMaster")
    oauth = OAuth2Session(
        client_id, secret, redirect_uri=CALLBACK, scope="manifests:write manifests:read", code_challenge_method="S256"
    )
    verifier = pf.pkce()[0]
    url, _ = oauth.create_authorization_url(f"{base}/oauth/authorize", code_verifier=verifier)
    denied = walk(base, url, decision="deny")
    assert "error=access_denied" in denied
    url, _ = oauth.create_authorization_url(f"{base}/oauth/authorize", code_verifier=verifier)
    first = oauth.fetch_token(
        f"{base}/oauth/token", authorization_response=walk(base, url, decision="allow"), code_verifier=verifier
    )
    # Consent is remembered for those scopes.
    url, _ = oauth.create_authorization_url(f"{base}/oauth/authorize", code_verifier=verifier)
    assert "code=" in walk(base, url)

    second = oauth.refresh_token(f"{base}/oauth/token", refresh_token=first["refresh_token"])
    assert second["refresh_token"] != first["refresh_token"]
    assert oauth.get(f"{base}/v1/haulers/me/due").status_code == 200
    # The old refresh token presented again: the whole sign-in ends, the new tokens with it.
    replay = requests.post(
        f"{base}/oauth/token",
        auth=(client_id, secret),
        data={"grant_type": "refresh_token", "refresh_token": first["refresh_token"]},
    )
    assert replay.status_code == 400 and replay.json()["error"] == "invalid_grant"
    assert oauth.get(f"{base}/v1/haulers/me/due").status_code == 401
    introspected = requests.post(
        f"{base}/oauth/introspect", auth=(client_id, secret), data={"token": second["access_token"]}
    )
    assert introspected.json() == {"active": False}
    after = requests.post(
        f"{base}/oauth/token",
        auth=(client_id, secret),
        data={"grant_type": "refresh_token", "refresh_token": second["refresh_token"]},
    )
    assert after.status_code == 400


def test_openid_connect_discovery_id_token_userinfo_and_sign_out(served, session):
    base, _ = served
    client_id, secret = pf.app(session, redirect_uri=CALLBACK, public=False, first_party=True, name="Portal")
    discovery = requests.get(f"{base}/.well-known/openid-configuration").json()
    assert discovery["issuer"] == base and "S256" in discovery["code_challenge_methods_supported"]
    oauth = OAuth2Session(
        client_id,
        secret,
        redirect_uri=CALLBACK,
        scope="openid profile email manifests:read",
        code_challenge_method="S256",
    )
    verifier = pf.pkce()[0]
    url, _ = oauth.create_authorization_url(
        discovery["authorization_endpoint"], code_verifier=verifier, nonce="n-0S6_WzA2Mj"
    )
    token = oauth.fetch_token(
        discovery["token_endpoint"], authorization_response=walk(base, url), code_verifier=verifier
    )
    keys = KeySet.import_key_set(requests.get(discovery["jwks_uri"]).json())
    claims = jwt.decode(token["id_token"], keys).claims
    jwt.JWTClaimsRegistry(
        iss={"essential": True, "value": discovery["issuer"]},
        aud={"essential": True, "value": client_id},
        nonce={"essential": True, "value": "n-0S6_WzA2Mj"},
        exp={"essential": True},
        iat={"essential": True},
        sub={"essential": True},
    ).validate(claims)
    # OpenID Connect Core 3.1.3.6: the left half of the access token's SHA-256, base64url.
    digest = hashlib.sha256(token["access_token"].encode()).digest()[:16]
    assert claims["at_hash"] == base64.urlsafe_b64encode(digest).rstrip(b"=").decode()
    assert claims["aud"] == [client_id] or claims["aud"] == client_id
    assert claims["name"] == "Sam Ortiz" and claims["email"] == "sam@inland.example"
    assert claims["fogx_organisation"] == "hauler" and claims["amr"] == ["pwd"]
    info = oauth.get(discovery["userinfo_endpoint"]).json()
    assert info["sub"] == claims["sub"] and info["fogx_organisation_name"] == "Inland Grease"
    # A token that was tampered with does not verify.
    with pytest.raises(BadSignatureError):
        jwt.decode(token["id_token"][:-4] + "AAAA", keys)

    out = requests.get(
        discovery["end_session_endpoint"],
        allow_redirects=False,
        params={"id_token_hint": token["id_token"], "post_logout_redirect_uri": CALLBACK, "state": "bye"},
    )
    assert out.status_code == 302 and out.headers["Location"] == f"{CALLBACK}?state=bye"
    assert oauth.get(discovery["userinfo_endpoint"]).status_code == 401
    assert (
        requests.post(
            discovery["token_endpoint"],
            auth=(client_id, secret),
            data={"grant_type": "refresh_token", "refresh_token": token["refresh_token"]},
        ).status_code
        == 400
    )


def test_a_public_app_revokes_a_refresh_token_and_the_sign_in_ends(served, session):
    """RFC 7009 from Authlib's client: the portal-like public app sends its client id alone."""
    base, _ = served
    client_id, _ = pf.app(session, redirect_uri=CALLBACK)
    other_id, other_secret = pf.app(session, redirect_uri=CALLBACK, public=False, name="Other")
    oauth = OAuth2Session(
        client_id,
        redirect_uri=CALLBACK,
        scope="openid manifests:read",
        code_challenge_method="S256",
        token_endpoint_auth_method="none",
        revocation_endpoint_auth_method="none",
    )
    verifier = pf.pkce()[0]
    url, _ = oauth.create_authorization_url(f"{base}/oauth/authorize", code_verifier=verifier)
    token = oauth.fetch_token(f"{base}/oauth/token", authorization_response=walk(base, url), code_verifier=verifier)
    # Another app cannot revoke it: answered as an unknown token, and nothing ends.
    assert (
        requests.post(
            f"{base}/oauth/revoke", auth=(other_id, other_secret), data={"token": token["refresh_token"]}
        ).status_code
        == 200
    )
    assert oauth.get(f"{base}/v1/manifests").status_code == 200
    revoked = oauth.revoke_token(f"{base}/oauth/revoke", token=token["refresh_token"], token_type_hint="refresh_token")
    assert revoked.status_code == 200, revoked.text
    # Every token of the sign-in is dead: the access token, and the refresh token itself.
    assert oauth.get(f"{base}/v1/manifests").status_code == 401
    refreshed = requests.post(
        f"{base}/oauth/token",
        data={"grant_type": "refresh_token", "refresh_token": token["refresh_token"], "client_id": client_id},
    )
    assert refreshed.status_code == 400 and refreshed.json()["error"] == "invalid_grant"
    # Revoking again, or with no hint, or an unknown token: 200, as RFC 7009 asks.
    for data in ({"token": token["refresh_token"]}, {"token": "never-issued", "token_type_hint": "refresh_token"}):
        assert requests.post(f"{base}/oauth/revoke", data={**data, "client_id": client_id}).status_code == 200
    assert (
        requests.post(
            f"{base}/oauth/revoke", data={"token": "x", "token_type_hint": "id_token", "client_id": client_id}
        ).status_code
        == 400
    )


def test_a_public_app_revokes_an_access_token_alone(served, session):
    base, _ = served
    client_id, _ = pf.app(session, redirect_uri=CALLBACK)
    oauth = OAuth2Session(
        client_id,
        redirect_uri=CALLBACK,
        scope="manifests:read",
        code_challenge_method="S256",
        token_endpoint_auth_method="none",
        revocation_endpoint_auth_method="none",
    )
    verifier = pf.pkce()[0]
    url, _ = oauth.create_authorization_url(f"{base}/oauth/authorize", code_verifier=verifier)
    token = oauth.fetch_token(f"{base}/oauth/token", authorization_response=walk(base, url), code_verifier=verifier)
    assert oauth.revoke_token(f"{base}/oauth/revoke", token=token["access_token"]).status_code == 200
    assert oauth.get(f"{base}/v1/manifests").status_code == 401
    # The refresh token still gives a new access token: only the access token was revoked.
    fresh = oauth.refresh_token(f"{base}/oauth/token", refresh_token=token["refresh_token"])
    assert oauth.get(f"{base}/v1/manifests").status_code == 200 and fresh["access_token"] != token["access_token"]


def test_a_fresh_install_signs_people_in_to_its_portal_with_no_command_line_step(app, client, session):
    """No `clients create` and no demo: the portal's app is made the first time it is asked for,
    public and first-party, sending people back to the portal at the public address."""
    from sqlalchemy import select

    from storage.people import OAuthApp

    hauler = factories.hauler(session, name="Inland Grease")
    pf.person(session, email="sam@inland.example", organisation="hauler", role="dispatcher", hauler_id=hauler.id)
    assert session.scalar(select(OAuthApp).where(OAuthApp.client_id == "fogx-portal")) is None
    verifier, challenge = pf.pkce()
    browser = pf.Browser(client)
    asked = browser.open(
        pf.authorize_url("fogx-portal", challenge, redirect_uri="https://fogx.test/portal/", scope="manifests:read")
    )
    assert asked.status_code == 200 and 'id="email"' in browser.page
    code = pf.code_from(browser.submit(email="sam@inland.example", password=pf.PASSWORD))
    token = client.post(
        "/oauth/token",
        data={
            "grant_type": "authorization_code",
            "code": code,
            "redirect_uri": "https://fogx.test/portal/",
            "code_verifier": verifier,
            "client_id": "fogx-portal",
        },
    )
    assert token.status_code == 200 and token.json["refresh_token"], token.json
    session.expire_all()
    row = session.scalar(select(OAuthApp).where(OAuthApp.client_id == "fogx-portal"))
    assert (row.secret_sha256, row.first_party, row.redirect_uris) == (
        None,
        True,
        ["https://fogx.test/portal/", "https://fogx.test/portal/driver/"],
    )
    # Elsewhere than the portal's address, it sends nobody.
    elsewhere = pf.Browser(client).open(
        pf.authorize_url("fogx-portal", challenge, redirect_uri="https://evil.example/portal/")
    )
    assert elsewhere.status_code == 403 and "Location" not in elsewhere.headers
    # The demo, loaded later, finds it and keeps it.
    assert app.test_cli_runner().invoke(args=["demo", "load"]).exit_code == 0
    session.expire_all()
    assert len(session.scalars(select(OAuthApp).where(OAuthApp.client_id == "fogx-portal")).all()) == 1
