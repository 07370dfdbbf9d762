"""Builders for people and the apps they sign in through, and a person walking the sign-in
pages as a browser would (forms read from the page, posted back)."""

import base64
import email
import email.policy
import hashlib
import html
import re
import secrets
from pathlib import Path
from urllib.parse import parse_qs, urlencode, urlsplit

import pytest

from services.people import apps
from services.people.accounts import make_membership
from services.people.passwords import checked
from storage.people import Person
from tests import factories

PASSWORD = "correct horse battery staple"
PORTAL_REDIRECT = "https://fogx.test/portal/"


def person(session, *, email, organisation, role, name="Pat Doe", password=PASSWORD, **subject):
    """A person with one membership (committed); `subject`: hauler_id, jurisdiction_id, site_id or fse_ids."""
    row = session.query(Person).filter_by(email=email).one_or_none()
    if row is None:
        row = Person(email=email, name=name, password_hash=checked(password, email), status="active", failed_sign_ins=0)
        session.add(row)
    membership = make_membership(session, row, organisation=organisation, role=role, **subject)
    session.commit()
    return membership


def app(session, *, redirect_uri=PORTAL_REDIRECT, public=True, first_party=True, name="Portal", scopes=None):
    """An app people sign in through; (client_id, secret or None)."""
    row, secret = apps.create_app(
        session, name=name, redirect_uris=[redirect_uri], public=public, first_party=first_party, scopes=scopes
    )
    return row.client_id, secret


def pkce():
    verifier = secrets.token_urlsafe(48)
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
    return verifier, challenge


def form_of(page: str) -> tuple[str, dict]:
    """The page's first form: its action and its hidden fields."""
    action = re.search(r'<form method="post"(?: action="([^"]*)")?', page)
    hidden = dict(re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)">', page))
    return html.unescape(action.group(1) or "") if action else "", {k: html.unescape(v) for k, v in hidden.items()}


class Browser:
    """A person at the sign-in pages, through the Flask test client (HTTPS), keeping the
    session cookie the pages set as a browser does."""

    def __init__(self, http):
        self.http = http
        self.page = None
        self.url = None
        self.cookie = None

    def _keep(self, response):
        for header in response.headers.getlist("Set-Cookie"):
            if header.startswith("fogx_session="):
                self.cookie = header.split(";", 1)[0]
        self.page = response.get_data(as_text=True)
        return response

    def _headers(self):
        return {"Cookie": self.cookie} if self.cookie else {}

    def open(self, url):
        self.url = url
        return self._keep(self.http.get(url, headers=self._headers()))

    def submit(self, **fields):
        action, hidden = form_of(self.page)
        target = action or self.url
        return self._keep(self.http.post(target, data={**hidden, **fields}, headers=self._headers()))

    def post(self, path, **fields):
        """POST to a page the browser holds no form of, with the session's form token."""
        return self._keep(self.http.post(path, data=fields, headers=self._headers()))


def post_form(http, path, **fields):
    """POST a page's form as a browser would: the page is opened first, for its form token
    (a page that shows no form, a gone link's, leaves the session's token from another)."""
    browser = Browser(http)
    browser.open(path)
    hidden = form_of(browser.page)[1]
    if "csrf_token" not in hidden:
        browser.open("/signin/reset")
        hidden = {"csrf_token": form_of(browser.page)[1]["csrf_token"]}
    return browser.post(path, **hidden, **fields)


def authorize_url(
    client_id,
    challenge,
    *,
    redirect_uri=PORTAL_REDIRECT,
    scope="openid profile email",
    state="st4te",
    nonce=None,
    method="S256",
):
    query = {
        "response_type": "code",
        "client_id": client_id,
        "redirect_uri": redirect_uri,
        "scope": scope,
        "state": state,
        "code_challenge": challenge,
        "code_challenge_method": method,
    }
    if nonce:
        query["nonce"] = nonce
    return "/oauth/authorize?" + urlencode(query)


def code_from(response) -> str:
    assert response.status_code == 302, response.get_data(as_text=True)[:2000]
    query = parse_qs(urlsplit(response.headers["Location"]).query)
    assert "code" in query, query
    return query["code"][0]


def sign_in(
    http,
    client_id,
    *,
    email,
    password=PASSWORD,
    scope="openid profile email",
    redirect_uri=PORTAL_REDIRECT,
    secret=None,
    totp=None,
    membership=None,
):
    """The whole authorization code grant with PKCE, as the portal does it; the token response.
    `membership`: the one to act for, where the person has several."""
    verifier, challenge = pkce()
    browser = Browser(http)
    browser.open(authorize_url(client_id, challenge, redirect_uri=redirect_uri, scope=scope))
    response = browser.submit(email=email, password=password)
    if totp is not None:
        response = browser.submit(code=totp)
    if membership is not None:
        response = browser.submit(membership=str(membership))
    code = code_from(response)
    data = {"grant_type": "authorization_code", "code": code, "redirect_uri": redirect_uri, "code_verifier": verifier}
    if secret:
        token = http.post("/oauth/token", data=data, auth=(client_id, secret))
    else:
        token = http.post("/oauth/token", data={**data, "client_id": client_id})
    assert token.status_code == 200, token.json
    return token.json


def person_token(http, session, *, email, organisation, role, scope=None, **subject) -> str:
    """An access token of a new person in `role` of the organisation, got through the portal
    (for `scope` where given, else the organisation's usual)."""
    from storage.people import OAuthApp

    portal = session.query(OAuthApp).filter_by(client_id="test-portal").one_or_none()
    if portal is None:
        row, _ = apps.create_app(
            session,
            name="Portal",
            redirect_uris=[PORTAL_REDIRECT],
            public=True,
            first_party=True,
            client_id="test-portal",
        )
    person(session, email=email, organisation=organisation, role=role, **subject)
    scope = scope or {
        "hauler": "manifests:write manifests:read",
        "restaurant": "records:read",
        "site": "receipts:write",
    }.get(organisation, "audit:read records:read manifests:read" + (" registry:write" if role == "admin" else ""))
    return sign_in(http, "test-portal", email=email, scope=scope)["access_token"]


def mails(app) -> list:
    folder = Path(app.config["MAIL_DIR"])
    return (
        [email.message_from_bytes(p.read_bytes(), policy=email.policy.default) for p in sorted(folder.glob("*.eml"))]
        if folder.exists()
        else []
    )


def link_in(message) -> str:
    return re.search(r"https://fogx\.test(/signin/\S+)", message.get_body(("plain",)).get_content()).group(1)


@pytest.fixture
def city(client, session):
    factories.jurisdiction(session, "victorville")
    admin = factories.token(client, *factories.oauth_client(session, role="admin", subject=["victorville"]))
    portal = app(session)
    return {"admin": factories.bearer(admin), "portal": portal[0]}


def invite(client, headers, **body):
    return client.post("/v1/invitations", headers=headers, json=body)
