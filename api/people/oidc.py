"""OpenID Connect on the authorization code grant: ID tokens (RS256), the JWKS, discovery,
`userinfo`, and sign-out (RP-initiated logout) that ends the sign-in's tokens."""

import functools
import time
import uuid

from authlib.common.urls import add_params_to_uri
from authlib.oidc.core import UserInfo
from authlib.oidc.core.grants import OpenIDCode
from flask import Blueprint, current_app, redirect, render_template, request
from joserfc import jwt
from joserfc.errors import JoseError
from joserfc.jwk import RSAKey
from sqlalchemy.orm import Session

from auth.credentials import AUTH_METHODS
from auth.errors import Malformed
from auth.keys import oidc_signing_pem
from auth.people import OIDC_SCOPES, query_app
from auth.protect import current_principal, require
from auth.scopes import ALL_SCOPES
from services.people import apps
from services.people.accounts import organisation_name
from storage.db import db
from storage.people import Membership, Person

ID_TOKEN_SECONDS = 3600
bp = Blueprint("oidc", __name__)


@functools.cache
def _keys(pem: str):
    private = RSAKey.import_key(pem)
    kid = private.thumbprint()
    public = {**private.as_dict(private=False), "kid": kid, "use": "sig", "alg": "RS256"}
    return private, kid, public


def signing_key():
    """(private key, kid, public JWK) of the key ID tokens are signed with."""
    return _keys(oidc_signing_pem(current_app.config))


def issuer():
    return current_app.config["OAUTH_ISSUER"].rstrip("/")


def claims_of(person: Person, membership: Membership, scope: str, sign_in_id=None) -> UserInfo:
    """The standard claims the scope allows, and the person's role in fogx."""
    scopes = set(scope.split())
    info = UserInfo(sub=str(person.id))
    if "profile" in scopes:
        info.update(
            name=person.name,
            fogx_organisation=membership.organisation,
            fogx_role=membership.role,
            fogx_organisation_name=organisation_name(db.session, membership),
        )
    if "email" in scopes:
        # The address took an emailed link to make the account: it is verified.
        info.update(email=person.email, email_verified=True)
    if sign_in_id is not None:
        info["sid"] = str(sign_in_id)
    return info


class FogxOpenIDCode(OpenIDCode):
    def exists_nonce(self, nonce, request):
        return apps.nonce_used(db.session, nonce=nonce, app_id=request.client.row.id)

    def resolve_client_private_key(self, client):
        return signing_key()[0]

    def get_client_algorithm(self, client):
        return "RS256"

    def get_client_claims(self, client):
        return {"iss": issuer(), "exp": int(time.time()) + ID_TOKEN_SECONDS}

    def get_encode_header(self, client):
        return {"alg": "RS256", "kid": signing_key()[1]}

    def generate_user_info(self, user, scope):
        return claims_of(user.person, user.membership, scope, user.sign_in_id)


@bp.get("/.well-known/openid-configuration")
def discovery():
    base = issuer()
    return {
        "issuer": base,
        "authorization_endpoint": f"{base}/oauth/authorize",
        "token_endpoint": f"{base}/oauth/token",
        "userinfo_endpoint": f"{base}/oauth/userinfo",
        "jwks_uri": f"{base}/oauth/jwks",
        "end_session_endpoint": f"{base}/oauth/sign-out",
        "revocation_endpoint": f"{base}/oauth/revoke",
        "introspection_endpoint": f"{base}/oauth/introspect",
        "scopes_supported": [*OIDC_SCOPES, *ALL_SCOPES],
        "response_types_supported": ["code"],
        "response_modes_supported": ["query"],
        "grant_types_supported": ["authorization_code", "refresh_token", "client_credentials"],
        "subject_types_supported": ["public"],
        "id_token_signing_alg_values_supported": ["RS256"],
        "token_endpoint_auth_methods_supported": [*AUTH_METHODS, "none"],
        "code_challenge_methods_supported": ["S256"],
        "claims_supported": [
            "sub",
            "iss",
            "aud",
            "exp",
            "iat",
            "auth_time",
            "nonce",
            "amr",
            "sid",
            "name",
            "email",
            "email_verified",
            "fogx_organisation",
            "fogx_organisation_name",
            "fogx_role",
        ],
        "service_documentation": f"{base}/docs/",
    }


@bp.get("/oauth/jwks")
def jwks():
    return {"keys": [signing_key()[2]]}


@bp.get("/oauth/userinfo")
@require("openid")
def userinfo():
    principal = current_principal()
    person, membership = apps.signed_in(db.session, principal)
    return dict(claims_of(person, membership, " ".join(principal.scopes)))


def _sign_in_of_hint(hint):
    """The sign-in an ID token we signed names (expired or not: it only says whom to sign out)."""
    try:
        claims = jwt.decode(hint, signing_key()[0], algorithms=["RS256"]).claims
    except (JoseError, ValueError):
        raise Malformed("id_token_hint is not an ID token this server issued.") from None
    if claims.get("iss") != issuer() or not claims.get("sid"):
        raise Malformed("id_token_hint is not an ID token this server issued.")
    return claims["sid"], claims.get("aud")


@bp.route("/oauth/sign-out", methods=["GET", "POST"])
def sign_out():
    """End a sign-in: named by `id_token_hint`, or by the bearer access token presented. Every
    access and refresh token it issued is revoked; then back to `post_logout_redirect_uri` (one
    of the app's redirect URIs), or a page that says so."""
    values = request.values
    sign_in_id, audience = None, None
    if values.get("id_token_hint"):
        sign_in_id, audience = _sign_in_of_hint(values["id_token_hint"])
    elif request.headers.get("Authorization", "")[:7].lower() == "bearer ":
        sign_in_id = apps.sign_in_of_token(db.session, request.headers["Authorization"][7:].strip())
    if sign_in_id is not None:
        # A session of its own: a GET's session only reads.
        with Session(bind=current_app.extensions["fogx.engine"]) as session:
            apps.sign_out(session, _as_uuid(sign_in_id))
    target = values.get("post_logout_redirect_uri")
    if target:
        app = query_app(values.get("client_id") or (audience[0] if isinstance(audience, list) else audience) or "")
        if app is None or not app.check_redirect_uri(target):
            raise Malformed("post_logout_redirect_uri is not a redirect URI of the app.")
        state = values.get("state")
        return redirect(add_params_to_uri(target, [("state", state)]) if state else target)
    if request.method == "POST" and not request.accept_mimetypes.accept_html:
        return "", 204
    return render_template("signin/signed_out.html"), 200


def _as_uuid(value):
    try:
        return uuid.UUID(str(value))
    except ValueError:
        return None


def init_app(app):
    """People's grants and OpenID Connect, on the one authorization server."""
    from auth.people import register
    from auth.server import authorization

    register(authorization, FogxOpenIDCode(require_nonce=False))
    app.register_blueprint(bp)
