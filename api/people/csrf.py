"""Cross-site request forgery: every form fogx serves carries a token kept in the person's
signed session cookie (a synchronizer token), and a POST to a page whose token is missing or
not the session's is refused before it changes anything."""

import hmac
import secrets

from flask import request, session
from flask.sessions import SecureCookieSessionInterface

from auth.keys import secret_key

FIELD = "csrf_token"
SESSION_KEY = "csrf"


def token() -> str:
    """The session's token, made at the first form it shows."""
    if SESSION_KEY not in session:
        session[SESSION_KEY] = secrets.token_urlsafe(32)
    return session[SESSION_KEY]


def valid() -> bool:
    """Whether this POST's form carries the session's token."""
    kept, sent = session.get(SESSION_KEY), request.form.get(FIELD, "")
    return bool(kept) and hmac.compare_digest(kept.encode(), sent.encode())


def guard(blueprint, refuse):
    """Refuse (with `refuse()`) every POST to the blueprint's pages that lacks the token."""

    @blueprint.before_request
    def _check():
        if request.method == "POST" and not valid():
            return refuse()


class SessionCookies(SecureCookieSessionInterface):
    """The session cookie is `Secure` whenever the page came over HTTPS (or a trusted proxy's)."""

    def get_cookie_secure(self, app):
        return request.is_secure


def init_app(app):
    # The session cookie holds the token alone; signed with the app's key, sent to fogx only.
    app.secret_key = secret_key(app.config)
    app.config["SESSION_COOKIE_SAMESITE"] = "Lax"
    app.config["SESSION_COOKIE_NAME"] = "fogx_session"
    app.session_interface = SessionCookies()
    app.jinja_env.globals["csrf_token"] = token
