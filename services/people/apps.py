"""Apps people sign in through (the authorization code grant): registered with their exact
redirect URIs, public (PKCE alone) or confidential (a secret, shown once and kept hashed)."""

import secrets
from urllib.parse import urlsplit

from sqlalchemy import select

from auth.credentials import sha256_hex
from auth.people import OIDC_SCOPES
from auth.scopes import ALL_SCOPES
from auth.signins import revoke
from domain.clock import now
from services.people.clients import ClientError
from storage.models import OAuthClient, OAuthToken
from storage.people import AuthorizationCode, Consent, Membership, OAuthApp, Person, SignIn


def _checked_uri(uri: str) -> str:
    """RFC 6749 3.1.2 and RFC 8252: absolute, no fragment; https, or http on loopback only."""
    parts = urlsplit(uri)
    loopback = parts.hostname in ("127.0.0.1", "localhost", "::1")
    if parts.fragment or not parts.netloc or not (parts.scheme == "https" or parts.scheme == "http" and loopback):
        raise ClientError(f"redirect URI {uri!r} must be absolute https (http only on loopback), without a fragment")
    return uri


def create_app(
    session, *, name, redirect_uris, public=False, first_party=False, scopes=None, client_id=None, client_secret=None
):
    """A new app; returns (row, plain secret or None for a public app)."""
    uris = [_checked_uri(uri) for uri in redirect_uris]
    if not uris:
        raise ClientError("an app needs at least one redirect URI")
    allowed = (*OIDC_SCOPES, *ALL_SCOPES)
    scopes = list(scopes or allowed)
    unknown = [s for s in scopes if s not in allowed]
    if unknown:
        raise ClientError(f"no such scope: {' '.join(unknown)}")
    client_id = client_id or f"app-{secrets.token_urlsafe(12)}"
    if session.scalar(select(OAuthApp.id).where(OAuthApp.client_id == client_id)) or session.scalar(
        select(OAuthClient.id).where(OAuthClient.client_id == client_id)
    ):
        raise ClientError(f"client {client_id!r} exists")
    secret = None if public else (client_secret or secrets.token_urlsafe(32))
    row = OAuthApp(
        client_id=client_id,
        secret_sha256=sha256_hex(secret) if secret else None,
        name=name or client_id,
        redirect_uris=uris,
        first_party=first_party,
        scope=" ".join(scopes),
        created_at=now(),
    )
    session.add(row)
    session.commit()
    return row, secret


def describe(row: OAuthApp) -> dict:
    return {
        "client_id": row.client_id,
        "name": row.name,
        "type": "public" if row.secret_sha256 is None else "confidential",
        "first_party": row.first_party,
        "redirect_uris": list(row.redirect_uris),
        "scope": row.scope,
        "created_at": row.created_at.isoformat(),
    }


def has_consented(session, *, person_id, app_id, membership_id, scope: str) -> bool:
    """The person let this app act for them in this organisation, with these scopes."""
    consent = session.get(Consent, (person_id, app_id, membership_id))
    return consent is not None and set(scope.split()) <= set(consent.scope.split())


def remember_consent(session, *, person_id, app_id, membership_id, scope: str) -> None:
    """The person's consent to the app in this organisation, widened to `scope`; committed."""
    consent = session.get(Consent, (person_id, app_id, membership_id)) or Consent(
        person_id=person_id, app_id=app_id, membership_id=membership_id
    )
    consent.scope = " ".join(sorted(set(scope.split()) | set((consent.scope or "").split())))
    consent.granted_at = now()
    session.add(consent)
    session.commit()


def sign_out(session, sign_in_id) -> None:
    """End a sign-in and every token it issued; committed. An unknown sign-in is no error."""
    sign_in = session.get(SignIn, sign_in_id)
    if sign_in is not None:
        revoke(session, [sign_in.id], reason="signed_out")
        session.commit()


def nonce_used(session, *, nonce, app_id) -> bool:
    """Whether an authorization code of the app already carried `nonce` (OpenID Connect replay)."""
    found = select(AuthorizationCode.id).where(AuthorizationCode.nonce == nonce, AuthorizationCode.app_id == app_id)
    return session.scalar(found) is not None


def signed_in(session, principal) -> tuple[Person, Membership]:
    """The person a person's token was issued to, and the membership they act through."""
    person = session.get(Person, principal.person_id)
    return person, session.scalar(select(Membership).where(Membership.principal_id == principal.client_pk))


def sign_in_of_token(session, token: str):
    """The sign-in an access or refresh token belongs to, or None (a client's, or no token of ours)."""
    row = session.scalar(select(OAuthToken).where(OAuthToken.token_sha256 == sha256_hex(token)))
    return row.sign_in_id if row is not None else None
