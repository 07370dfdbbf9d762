"""The OAuth2 authorization server (client credentials, RFC 7009, RFC 7662, RFC 8414)."""

import hmac
import ipaddress
from datetime import timedelta

from authlib.integrations.flask_oauth2 import AuthorizationServer as _AuthorizationServer
from authlib.oauth2.rfc6749 import InsecureTransportError, InvalidScopeError, grants
from authlib.oauth2.rfc6749.util import scope_to_list
from authlib.oauth2.rfc7009 import RevocationEndpoint
from authlib.oauth2.rfc7662 import IntrospectionEndpoint
from flask import Blueprint, current_app, request
from sqlalchemy import bindparam, select
from sqlalchemy.orm import joinedload

from auth import ratelimit
from auth.credentials import AUTH_METHODS, HOLDER_METHOD, SCOPE_TOKEN, sha256_hex
from auth.errors import InsecureTransport, OAuthRefused
from auth.ratelimit import failed_auth_limiter
from auth.scopes import ALL_SCOPES
from domain.clock import now
from storage.db import db
from storage.models import OAuthClient, OAuthClientFse, OAuthToken
from storage.prebuilt import Prebuilt

REALM = "fogx"


class Client:
    """Authlib's view of an `oauth_clients` row; the secret is compared by its hash."""

    def __init__(self, row: OAuthClient):
        self.row = row
        self.client_id = row.client_id

    def get_client_id(self):
        return self.row.client_id

    def get_default_redirect_uri(self):
        return None

    def get_allowed_scope(self, scope):
        held = set(self.row.scope.split())
        return " ".join(s for s in scope_to_list(scope) if s in held)

    def check_redirect_uri(self, redirect_uri):
        return False

    def check_client_secret(self, client_secret):
        return hmac.compare_digest(sha256_hex(client_secret), self.row.secret_sha256)

    def check_endpoint_auth_method(self, method, endpoint):
        return method in AUTH_METHODS or (method == HOLDER_METHOD and endpoint == Revocation.ENDPOINT_NAME)

    def check_response_type(self, response_type):
        return False

    def check_grant_type(self, grant_type):
        return grant_type == "client_credentials"


class Token:
    """Authlib's view of an `oauth_tokens` row."""

    def __init__(self, row: OAuthToken):
        self.row = row

    def check_client(self, client):
        # A person's token is also the app's it was issued through (`auth.people`).
        return client.row.id == self.row.client_id or (
            self.row.sign_in_id is not None and client.row.id == self.row.sign_in.app_id
        )

    def get_scope(self):
        return self.row.scope

    def get_expires_in(self):
        return int((self.row.expires_at - self.row.issued_at).total_seconds())

    def is_expired(self):
        return self.row.expires_at <= now()

    def is_revoked(self):
        return self.row.revoked_at is not None or self.row.client.revoked_at is not None

    def get_client(self):
        return Client(self.row.client)

    def get_user(self):
        return None


def query_client(client_id):
    if not client_id or "\x00" in client_id:  # no client has one; PostgreSQL's text cannot hold it
        return None
    row = db.session.scalar(select(OAuthClient).where(OAuthClient.client_id == client_id))
    if row is None:
        from auth.people import query_app  # an app people sign in through

        return query_app(client_id)
    if row.revoked_at is not None:
        return None
    return Client(row)


def find_token(token_string):
    """The token row and its client, for revoking and introspecting it."""
    row = db.session.scalar(
        select(OAuthToken)
        .where(OAuthToken.token_sha256 == sha256_hex(token_string))
        .options(joinedload(OAuthToken.client, innerjoin=True))
    )
    return Token(row) if row else None


# A bearer token and its client in one row: what protecting a route needs, built once.
_BEARER = Prebuilt(
    select(
        OAuthToken.scope,
        OAuthToken.expires_at,
        OAuthToken.revoked_at,
        OAuthClient.id.label("client_pk"),
        OAuthClient.client_id,
        OAuthClient.role,
        OAuthClient.hauler_id,
        OAuthClient.jurisdiction_id,
        OAuthClient.site_id,
        OAuthClient.revoked_at.label("client_revoked_at"),
        OAuthToken.person_id,
    )
    .join(OAuthClient, OAuthClient.id == OAuthToken.client_id)
    .where(OAuthToken.token_sha256 == bindparam("digest"))
)
_CLIENT_FSES = select(OAuthClientFse.fse_id).where(OAuthClientFse.client_id == bindparam("client_pk"))


class BearerToken:
    """Authlib's view of a token presented to a protected route (read-only, no ORM objects)."""

    def __init__(self, row):
        self.row = row

    def get_scope(self):
        return self.row.scope

    def is_expired(self):
        return self.row.expires_at <= now()

    def is_revoked(self):
        return self.row.revoked_at is not None or self.row.client_revoked_at is not None

    def fse_ids(self):
        """The FSEs an operator's client is bound to; other roles have none."""
        if self.row.role != "fse":
            return frozenset()
        return frozenset(db.session.connection().execute(_CLIENT_FSES, {"client_pk": self.row.client_pk}).scalars())


def find_bearer(token_string):
    """The token presented to a protected route, or None where there is no such token."""
    row = _BEARER.first(db.session.connection(), {"digest": sha256_hex(token_string)})
    return BearerToken(row) if row else None


def save_token(token, oauth_request):
    issued = now()
    db.session.add(
        OAuthToken(
            client_id=oauth_request.client.row.id,
            token_sha256=sha256_hex(token["access_token"]),
            scope=token.get("scope") or "",
            issued_at=issued,
            expires_at=issued + timedelta(seconds=token["expires_in"]),
        )
    )
    db.session.commit()


class ClientCredentialsGrant(grants.ClientCredentialsGrant):
    """Both secret methods; a scope the client does not hold is refused, not trimmed.

    Asking for no scope grants every scope the client holds, and the response always names
    the granted scope.
    """

    TOKEN_ENDPOINT_AUTH_METHODS = AUTH_METHODS

    def validate_requested_scope(self):
        requested = scope_to_list(self.request.payload.scope) or []
        held = set(self.client.row.scope.split())
        unknown = [s for s in requested if s not in held]
        if not unknown:
            return
        # RFC 6749 section 3.3: a scope token is printable ASCII but for `"` and `\`, the
        # characters an error's description may carry; any other is refused without an echo.
        if all(SCOPE_TOKEN.fullmatch(s) for s in unknown):
            raise InvalidScopeError(f"The client does not hold: {' '.join(unknown)}")
        raise InvalidScopeError("A scope may hold only printable ASCII, without quotes or backslashes.")

    def create_token_response(self):
        scope = self.request.payload.scope or self.client.row.scope
        token = self.generate_token(scope=scope, include_refresh_token=False)
        token["scope"] = scope
        self.save_token(token)
        return 200, token, self.TOKEN_RESPONSE_HEADER


def authenticate_token_holder(query_client, request):
    client_id = request.payload.client_id
    if client_id and not request.payload.data.get("client_secret"):
        return query_client(client_id)
    return None


class Revocation(RevocationEndpoint):
    """RFC 7009. Another client's token is left alone and answered like an unknown one.

    A person's refresh token, revoked by the app it was issued through (a public app with its
    client id alone), ends its whole sign-in: every access and refresh token it issued
    (RFC 7009 section 2.1)."""

    CLIENT_AUTH_METHODS = [*AUTH_METHODS, HOLDER_METHOD]
    SUPPORTED_TOKEN_TYPES = ("access_token", "refresh_token")

    def authenticate_token(self, request, client):
        from auth.people import find_refresh_token

        self.check_params(request, client)
        token_string = request.form["token"]
        # The hint only orders the look-ups (RFC 7009 section 2.1): both kinds are tried.
        finders = [find_token, find_refresh_token]
        if request.form.get("token_type_hint") == "refresh_token":
            finders.reverse()
        for find in finders:
            token = find(token_string)
            if token is not None:
                return token if token.check_client(client) else None
        return None

    def revoke_token(self, token, request):
        if hasattr(token, "revoke"):
            token.revoke()
        elif token.row.revoked_at is None:
            token.row.revoked_at = now()
        db.session.commit()


class Introspection(IntrospectionEndpoint):
    """RFC 7662; a client may introspect only its own tokens."""

    CLIENT_AUTH_METHODS = AUTH_METHODS
    SUPPORTED_TOKEN_TYPES = ("access_token",)

    def query_token(self, token_string, token_type_hint):
        return find_token(token_string)

    def check_permission(self, token, client, request):
        return token.check_client(client)

    def introspect_token(self, token):
        row = token.row
        person = (
            {}
            if row.sign_in_id is None
            else {
                # A person's token: issued to the app they signed in through, for them.
                "client_id": row.sign_in.app.client_id,
                "sub": str(row.person_id),
                "person_id": str(row.person_id),
            }
        )
        return {
            "active": True,
            "client_id": row.client.client_id,
            "scope": row.scope,
            "token_type": "Bearer",
            "exp": int(row.expires_at.timestamp()),
            "iat": int(row.issued_at.timestamp()),
            "iss": current_app.config["OAUTH_ISSUER"],
            "sub": str(row.client.id),
            "role": row.client.role,
            **person,
        }


def require_secure_transport():
    """OAuth over HTTPS, or plain HTTP over loopback: judged by the connection's peer (as
    `TRUSTED_PROXIES` resolves it), never by the Host header a client names. A request an
    uncounted proxy forwarded is no local one, whatever address the proxy has."""
    if request.scheme == "https":
        return
    forwarded = not current_app.config["TRUSTED_PROXIES"] and (
        "X-Forwarded-For" in request.headers or "Forwarded" in request.headers
    )
    try:
        local = ipaddress.ip_address((request.remote_addr or "").split("%")[0]).is_loopback
    except ValueError:
        local = False
    if forwarded or not local:
        raise InsecureTransport("OAuth requests must use HTTPS.", error="insecure_transport")


class AuthorizationServer(_AuthorizationServer):
    """Errors raised as `OAuthRefused`, rendered as problem+json that keeps RFC 6749's `error`
    and `error_description` members."""

    def create_oauth2_request(self, request):
        require_secure_transport()
        try:
            return super().create_oauth2_request(request)
        except InsecureTransportError:
            raise InsecureTransport("OAuth requests must use HTTPS.", error="insecure_transport") from None

    def create_json_request(self, request):
        require_secure_transport()
        try:
            return super().create_json_request(request)
        except InsecureTransportError:
            raise InsecureTransport("OAuth requests must use HTTPS.", error="insecure_transport") from None

    def handle_error_response(self, request, error):
        status, body, headers = error(self.get_error_uri(request, error))
        body = dict(body)
        code = body.get("error", "invalid_request")
        if code == "invalid_client" and status == 400:
            # Authlib answers 400 when the credentials came in the form (client_secret_post).
            # A failed client authentication is 401 on every endpoint here, however the
            # credentials were sent: RFC 6749 section 5.2 allows it for the token endpoint, and
            # RFC 7662 section 2.3 asks it of introspection.
            status = 401
            headers = [*headers, ("WWW-Authenticate", f'Basic realm="{REALM}"')]
        elif code == "unsupported_token_type":
            # Authlib answers it 401 (as a ForbiddenError); the client authenticated, and
            # RFC 7009 section 2.2.1 answers it as RFC 6749 section 5.2 does its errors: 400.
            status = 400
        raise OAuthRefused(
            status, code, body.get("error_description") or error.description or code, body=body, headers=dict(headers)
        )


def token_ttl(client, grant_type):
    return current_app.config["TOKEN_TTL_SECONDS"]


authorization = AuthorizationServer()
bp = Blueprint("oauth", __name__)


@bp.post("/oauth/token")
@failed_auth_limiter
def issue_token():
    return authorization.create_token_response()


@bp.post("/oauth/revoke")
@failed_auth_limiter
def revoke_token():
    return authorization.create_endpoint_response(Revocation.ENDPOINT_NAME)


@bp.post("/oauth/introspect")
@failed_auth_limiter
def introspect_token():
    return authorization.create_endpoint_response(Introspection.ENDPOINT_NAME)


@bp.get("/.well-known/oauth-authorization-server")
def metadata():
    issuer = current_app.config["OAUTH_ISSUER"].rstrip("/")
    return {
        "issuer": issuer,
        "authorization_endpoint": f"{issuer}/oauth/authorize",
        "token_endpoint": f"{issuer}/oauth/token",
        "revocation_endpoint": f"{issuer}/oauth/revoke",
        "introspection_endpoint": f"{issuer}/oauth/introspect",
        "grant_types_supported": ["client_credentials", "authorization_code", "refresh_token"],
        "response_types_supported": ["code"],
        "code_challenge_methods_supported": ["S256"],
        "token_endpoint_auth_methods_supported": [*AUTH_METHODS, "none"],
        "revocation_endpoint_auth_methods_supported": [*AUTH_METHODS, "none"],
        "introspection_endpoint_auth_methods_supported": AUTH_METHODS,
        "scopes_supported": list(ALL_SCOPES),
        "service_documentation": f"{issuer}/docs/",
    }


def init_app(app):
    app.config["OAUTH2_TOKEN_EXPIRES_IN"] = "auth.server.token_ttl"
    app.config["OAUTH2_SCOPES_SUPPORTED"] = list(ALL_SCOPES)
    authorization.init_app(app, query_client=query_client, save_token=save_token)
    if not authorization._token_grants:
        authorization.register_grant(ClientCredentialsGrant)
        authorization.register_client_auth_method(HOLDER_METHOD, authenticate_token_holder)
        authorization.register_endpoint(Revocation)
        authorization.register_endpoint(Introspection)
    app.register_blueprint(bp)
    ratelimit.init_app(app)
