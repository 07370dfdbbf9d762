"""Who the caller is: bearer-token protection for every `/v1` route, and the caller's reach."""

import functools

from authlib.integrations.flask_oauth2 import ResourceProtector
from authlib.oauth2.rfc6749 import OAuth2Error
from authlib.oauth2.rfc6750 import BearerTokenValidator
from flask import g

from auth.errors import InsufficientScope, Unauthenticated
from auth.principal import Principal, current_principal  # noqa: F401  views import both from here
from auth.server import REALM, find_bearer


class _Validator(BearerTokenValidator):
    def authenticate_token(self, token_string):
        return find_bearer(token_string)


class _Protector(ResourceProtector):
    def raise_error_response(self, error: OAuth2Error):
        if error.error == "insufficient_scope":
            raise InsufficientScope(
                "The access token does not carry a scope this route needs.",
                challenge=f'Bearer realm="{REALM}", error="insufficient_scope", '
                f'scope="{" ".join(g.get("required_scopes", ()))}"',
                error="insufficient_scope",
            )
        if error.error == "invalid_token":
            detail = "The access token is expired, revoked, malformed or unknown."
            challenge = f'Bearer realm="{REALM}", error="invalid_token"'
        else:
            detail = "A bearer access token is required (Authorization: Bearer ...)."
            challenge = f'Bearer realm="{REALM}"'
        raise Unauthenticated(
            detail, challenge=challenge, error="invalid_token" if error.error == "invalid_token" else "invalid_request"
        )


protector = _Protector()
protector.register_token_validator(_Validator(realm=REALM))


def require(*scopes):
    """Protect a view: a valid bearer token holding any one of `scopes`."""

    def decorator(view):
        @functools.wraps(view)
        def protected(*args, **kwargs):
            g.required_scopes = scopes
            try:
                token = protector.acquire_token(list(scopes))
            except OAuth2Error as error:
                protector.raise_error_response(error)
            g.principal = principal_of(token)
            return view(*args, **kwargs)

        protected.required_scopes = scopes
        return protected

    return decorator


def principal_of(token) -> Principal:
    row = token.row
    return Principal(
        client_pk=row.client_pk,
        client_id=row.client_id,
        role=row.role,
        scopes=frozenset(row.scope.split()),
        hauler_id=row.hauler_id,
        jurisdiction_id=row.jurisdiction_id,
        fse_ids=token.fse_ids(),
        site_id=row.site_id,
        person_id=row.person_id,
    )
