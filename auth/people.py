"""People sign in through apps: the authorization code grant with PKCE (RFC 7636, S256 only),
short-lived access tokens and rotating refresh tokens (a used one presented again ends the
whole sign-in), for apps registered with their redirect URIs, public or confidential.

A person's access token belongs to their membership's principal (`storage.people`), so the
bearer check, every scope and every reach rule apply to it as to a client's token.
"""

import hmac
from dataclasses import dataclass
from datetime import datetime, timedelta

from authlib.integrations.flask_oauth2.authorization_server import create_token_generator
from authlib.oauth2.rfc6749 import InvalidGrantError, InvalidRequestError, InvalidScopeError, grants
from authlib.oauth2.rfc6749.util import scope_to_list
from authlib.oauth2.rfc6750 import BearerTokenGenerator
from authlib.oauth2.rfc7636 import CodeChallenge
from flask import current_app
from sqlalchemy import select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from auth.credentials import AUTH_METHODS, HOLDER_METHOD, SCOPE_TOKEN, sha256_hex
from auth.scopes import ALL_SCOPES
from auth.signins import revoke
from domain.clock import now
from storage.db import db
from storage.models import OAuthToken
from storage.people import AuthorizationCode, Membership, OAuthApp, Person, RefreshToken, SignIn

OIDC_SCOPES = ("openid", "profile", "email")
CODE_TTL = timedelta(minutes=10)
GRANT_TYPES = ("authorization_code", "refresh_token")


class AppClient:
    """Authlib's view of an `oauth_apps` row: redirect URIs matched exactly; a public app
    authenticates with its client id alone (`none`), and PKCE proves the code is its own."""

    id_token_signed_response_alg = None

    def __init__(self, row: OAuthApp):
        self.row = row
        self.client_id = row.client_id

    @property
    def public(self):
        return self.row.secret_sha256 is None

    def get_client_id(self):
        return self.row.client_id

    def get_default_redirect_uri(self):
        return self.row.redirect_uris[0] if len(self.row.redirect_uris) == 1 else None

    def get_allowed_scope(self, scope):
        held = set(self.row.scope.split())
        return " ".join(s for s in scope_to_list(scope) or [] if s in held)  # no scope asked: none

    def check_redirect_uri(self, redirect_uri):
        return redirect_uri in self.row.redirect_uris

    def check_client_secret(self, client_secret):
        return not self.public and hmac.compare_digest(sha256_hex(client_secret), self.row.secret_sha256)

    def check_endpoint_auth_method(self, method, endpoint):
        if method == HOLDER_METHOD:
            return endpoint == "revocation"
        return method == "none" if self.public else method in AUTH_METHODS

    def check_response_type(self, response_type):
        return response_type == "code"

    def check_grant_type(self, grant_type):
        return grant_type in GRANT_TYPES


# The exchange's own apps, public and first-party: the portal, and the driver's phone app, whose
# sign-in lasts a working day between uses (`DRIVER_SESSION_IDLE_SECONDS`).
PORTAL_APP = "fogx-portal"
DRIVER_APP = "fogx-driver"
OWN_APPS = {
    PORTAL_APP: ("fogx portal", ("/portal/", "/portal/driver/")),
    DRIVER_APP: ("fogx driver", ("/portal/driver/",)),
}


def portal_redirects(base_url: str, client_id: str = PORTAL_APP) -> list[str]:
    """Where one of the exchange's own apps may send people back to, at the instance's public
    address (and, on loopback, under `localhost` too): the portal's app to the portal and the
    driver's page, the driver's app to the driver's page."""
    bases = [base_url]
    if base_url.startswith("http://127.0.0.1:"):
        bases.append(base_url.replace("127.0.0.1", "localhost", 1))
    return [f"{base}{page}" for base in bases for page in OWN_APPS[client_id][1]]


def query_app(client_id):
    row = db.session.scalar(select(OAuthApp).where(OAuthApp.client_id == client_id))
    if row is None and client_id in OWN_APPS:
        row = _own_app(client_id)
    return AppClient(row) if row is not None and row.revoked_at is None else None


def _own_app(client_id: str) -> OAuthApp:
    """One of the exchange's own apps, made the first time it is asked for: a fresh install signs
    people in to its portal with no step at the command line. Made in a session of its own, as
    the sign-in page that asks for it is a read."""
    with Session(bind=current_app.extensions["fogx.engine"], expire_on_commit=False) as writing:
        row = OAuthApp(
            client_id=client_id,
            secret_sha256=None,
            name=OWN_APPS[client_id][0],
            redirect_uris=portal_redirects(current_app.config["PUBLIC_BASE_URL"], client_id),
            first_party=True,
            scope=" ".join((*OIDC_SCOPES, *ALL_SCOPES)),
            created_at=now(),
        )
        writing.add(row)
        try:
            writing.commit()
        except IntegrityError:  # made by another request meanwhile
            writing.rollback()
            row = writing.scalar(select(OAuthApp).where(OAuthApp.client_id == client_id))
        writing.expunge_all()
    return row


@dataclass
class SignedIn:
    """The person an authorization is for: who, in which membership, with what scope, and how
    they proved it (`amr`: pwd, otp)."""

    person: Person
    membership: Membership
    scope: str
    auth_time: datetime
    amr: list
    sign_in_id: object = None


class CodeView:
    """Authlib's (and OpenID Connect's) view of an `authorization_codes` row."""

    def __init__(self, row: AuthorizationCode):
        self.row = row
        self.code_challenge = row.code_challenge
        self.code_challenge_method = row.code_challenge_method

    def get_redirect_uri(self):
        return self.row.redirect_uri

    def get_scope(self):
        return self.row.scope

    def get_nonce(self):
        return self.row.nonce

    def get_auth_time(self):
        return int(self.row.auth_time.timestamp())

    def get_acr(self):
        return None

    def get_amr(self):
        return list(self.row.amr)


def granted_scope(requested: str, membership: Membership, app: OAuthApp) -> str:
    """What a sign-in may carry: the scopes asked for (all the role holds, when none are),
    within what the person's role holds and what the app may ask."""
    held = set(membership.principal.scope.split()) | set(OIDC_SCOPES)
    allowed = set(app.scope.split())
    asked = scope_to_list(requested) or [s for s in (*OIDC_SCOPES, *ALL_SCOPES) if s in held]
    return " ".join(s for s in dict.fromkeys(asked) if s in held and s in allowed)


def _signed_in(person, membership, sign_in_or_code, sign_in_id=None) -> SignedIn | None:
    if person.status != "active" or membership.removed_at is not None:
        return None
    return SignedIn(
        person, membership, sign_in_or_code.scope, sign_in_or_code.auth_time, list(sign_in_or_code.amr), sign_in_id
    )


def _store_tokens(token, sign_in: SignIn):
    """The access token, owned by the membership's principal, and the refresh token."""
    issued = now()
    membership = db.session.get(Membership, sign_in.membership_id)
    db.session.add(
        OAuthToken(
            client_id=membership.principal_id,
            token_sha256=sha256_hex(token["access_token"]),
            scope=token.get("scope") or "",
            issued_at=issued,
            person_id=sign_in.person_id,
            sign_in_id=sign_in.id,
            expires_at=issued + timedelta(seconds=token["expires_in"]),
        )
    )
    if token.get("refresh_token"):
        db.session.add(
            RefreshToken(
                sign_in_id=sign_in.id,
                token_sha256=sha256_hex(token["refresh_token"]),
                issued_at=issued,
                expires_at=issued + timedelta(seconds=current_app.config["REFRESH_TOKEN_TTL_SECONDS"]),
            )
        )


class PersonCodeGrant(grants.AuthorizationCodeGrant):
    """RFC 6749 section 4.1 for people, with PKCE S256 required of every app."""

    TOKEN_ENDPOINT_AUTH_METHODS = [*AUTH_METHODS, "none"]

    def validate_authorization_request(self):
        redirect_uri = super().validate_authorization_request()
        data = self.request.payload.data
        if not data.get("code_challenge") or data.get("code_challenge_method") != "S256":
            raise InvalidRequestError(
                "A code_challenge with code_challenge_method=S256 is required (RFC 7636).", redirect_uri=redirect_uri
            )
        return redirect_uri

    @staticmethod
    def validate_authorization_redirect_uri(request, client):
        # Authlib's own refusal quotes the URI, and refuses to quote one outside ASCII (a 500).
        asked = request.payload.redirect_uri
        if asked and not client.check_redirect_uri(asked):
            raise InvalidRequestError("The redirect URI is not one the app registered.")
        return grants.AuthorizationCodeGrant.validate_authorization_redirect_uri(request, client)

    def validate_requested_scope(self):
        requested = scope_to_list(self.request.payload.scope) or []
        known = set(ALL_SCOPES) | set(OIDC_SCOPES)
        unknown = [s for s in requested if s not in known]
        if unknown:
            if all(SCOPE_TOKEN.fullmatch(s) for s in unknown):
                raise InvalidScopeError(f"No such scope: {' '.join(unknown)}")
            raise InvalidScopeError("A scope may hold only printable ASCII, without quotes or backslashes.")

    def save_authorization_code(self, code, request):
        user = request.user
        at = now()
        db.session.add(
            AuthorizationCode(
                code_sha256=sha256_hex(code),
                app_id=request.client.row.id,
                person_id=user.person.id,
                membership_id=user.membership.id,
                redirect_uri=request.payload.redirect_uri or "",
                scope=user.scope,
                nonce=request.payload.data.get("nonce"),
                code_challenge=request.payload.data["code_challenge"],
                code_challenge_method="S256",
                auth_time=user.auth_time,
                amr=user.amr,
                created_at=at,
                expires_at=at + CODE_TTL,
            )
        )
        db.session.commit()

    def query_authorization_code(self, code, client):
        row = db.session.scalar(select(AuthorizationCode).where(AuthorizationCode.code_sha256 == sha256_hex(code)))
        if row is None or row.app_id != client.row.id:
            return None
        if row.used_at is not None:
            # RFC 6749 section 4.1.2: a code used twice revokes what it was exchanged for.
            revoke(db.session, [row.sign_in_id] if row.sign_in_id else [], reason="code_reused")
            db.session.commit()
            return None
        return CodeView(row) if row.expires_at > now() else None

    def authenticate_user(self, authorization_code):
        row = authorization_code.row
        return _signed_in(db.session.get(Person, row.person_id), db.session.get(Membership, row.membership_id), row)

    def save_token(self, token):
        code = self.request.authorization_code.row
        user = self.request.user
        sign_in = SignIn(
            person_id=user.person.id,
            membership_id=user.membership.id,
            app_id=code.app_id,
            scope=code.scope,
            auth_time=code.auth_time,
            amr=list(code.amr),
            created_at=now(),
        )
        db.session.add(sign_in)
        db.session.flush()
        user.sign_in_id = sign_in.id  # the `sid` of the ID token
        taken = db.session.execute(
            update(AuthorizationCode)
            .where(AuthorizationCode.id == code.id, AuthorizationCode.used_at.is_(None))
            .values(used_at=now(), sign_in_id=sign_in.id)
        )
        if taken.rowcount != 1:
            db.session.rollback()
            raise InvalidGrantError("The code has been used.")
        _store_tokens(token, sign_in)
        db.session.commit()

    def delete_authorization_code(self, authorization_code):
        """Kept, marked used (`save_token`): a second use must find it to revoke the tokens."""


class RefreshView:
    def __init__(self, row: RefreshToken):
        self.row = row

    def check_client(self, client):
        return isinstance(client, AppClient) and self.row.sign_in.app_id == client.row.id

    def get_scope(self):
        return self.row.sign_in.scope


def find_refresh_token(token_string):
    """A person's refresh token presented for revocation, or None."""
    row = db.session.scalar(select(RefreshToken).where(RefreshToken.token_sha256 == sha256_hex(token_string)))
    return RevokedRefresh(row) if row else None


class RevokedRefresh(RefreshView):
    """A refresh token being revoked: its whole sign-in ends (not committed)."""

    def revoke(self):
        revoke(db.session, [self.row.sign_in_id], reason="revoked")


def _idle(row: RefreshToken) -> bool:
    """A sign-in through the exchange's own apps whose refresh token has waited past the app's
    idle limit: the portal's `SESSION_IDLE_SECONDS` (it renews a tab in use well before), the
    driver's app's `DRIVER_SESSION_IDLE_SECONDS` (a phone between stops through a working day).
    Another app's sign-in lasts as its refresh token does."""
    driver = row.sign_in.app.client_id == DRIVER_APP
    limit = timedelta(seconds=current_app.config["DRIVER_SESSION_IDLE_SECONDS" if driver else "SESSION_IDLE_SECONDS"])
    return row.sign_in.app.first_party and row.issued_at + limit <= now()


class PersonRefreshGrant(grants.RefreshTokenGrant):
    """RFC 6749 section 6, rotating: each refresh token is used once, and one presented again
    (stolen, or replayed) revokes its sign-in with every token in it (RFC 9700 4.14.2)."""

    INCLUDE_NEW_REFRESH_TOKEN = True
    TOKEN_ENDPOINT_AUTH_METHODS = [*AUTH_METHODS, "none"]

    def authenticate_refresh_token(self, refresh_token):
        row = db.session.scalar(select(RefreshToken).where(RefreshToken.token_sha256 == sha256_hex(refresh_token)))
        if row is None:
            return None
        if row.used_at is not None:
            revoke(db.session, [row.sign_in_id], reason="refresh_token_reused")
            db.session.commit()
            return None
        if row.sign_in.revoked_at is not None or row.expires_at <= now():
            return None
        if _idle(row):
            revoke(db.session, [row.sign_in_id], reason="idle")
            db.session.commit()
            return None
        return RefreshView(row)

    def authenticate_user(self, refresh_token):
        sign_in = refresh_token.row.sign_in
        return _signed_in(sign_in.person, sign_in.membership, sign_in, sign_in.id)

    def save_token(self, token):
        row = self.request.refresh_token.row
        used = db.session.execute(
            update(RefreshToken).where(RefreshToken.id == row.id, RefreshToken.used_at.is_(None)).values(used_at=now())
        )
        if used.rowcount != 1:
            db.session.rollback()
            revoke(db.session, [row.sign_in_id], reason="refresh_token_reused")
            db.session.commit()
            raise InvalidGrantError()
        _store_tokens(token, row.sign_in)
        db.session.commit()

    def revoke_old_credential(self, refresh_token):
        """Marked used as the new one is saved (`save_token`)."""


class S256Challenge(CodeChallenge):
    SUPPORTED_CODE_CHALLENGE_METHOD = ["S256"]


def _person_ttl(client, grant_type):
    return current_app.config["PERSON_TOKEN_TTL_SECONDS"]


def register(authorization, openid_extension):
    """The grants people sign in with, on the one authorization server: their tokens live
    `PERSON_TOKEN_TTL_SECONDS` and come with a refresh token."""
    generator = BearerTokenGenerator(create_token_generator(True, 42), create_token_generator(True, 48), _person_ttl)
    for grant_type in GRANT_TYPES:
        authorization.register_token_generator(grant_type, generator)
    if any(cls is PersonCodeGrant for cls, _ in authorization._token_grants):
        return
    authorization.register_grant(PersonCodeGrant, [S256Challenge(required=True), openid_extension])
    authorization.register_grant(PersonRefreshGrant)
