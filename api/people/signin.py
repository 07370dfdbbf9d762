"""The authorization endpoint's pages: a person signs in (email and password, then a TOTP code
where they have one), chooses the organisation to act for where they have several, enrols a
second factor where their city requires one, and consents to a third-party app's scopes."""

import hashlib
from datetime import UTC, datetime
from urllib.parse import urlsplit

from authlib.common.urls import add_params_to_uri
from authlib.oauth2.rfc6749 import AccessDeniedError, OAuth2Error, UnsupportedResponseTypeError
from flask import Blueprint, current_app, redirect, request
from itsdangerous import BadSignature, URLSafeTimedSerializer
from markupsafe import Markup

from api.errors import status_of
from api.pages import page
from api.people import csrf, signin_words
from auth.keys import secret_key
from auth.people import SignedIn, granted_scope
from auth.ratelimit import SignInAttempts, current_limits
from auth.server import authorization
from domain.clock import now
from services.errors import ServiceError
from services.people import apps, passwords, twofactor
from services.people.accounts import organisation_name
from storage.db import db
from storage.people import Person

bp = Blueprint("signin", __name__)
PENDING_SECONDS = 600
SCOPE_TEXT = {
    "openid": "Know who you are (your fogx account's id)",
    "profile": "Your name, organisation and role",
    "email": "Your email address",
    "manifests:write": "File and correct pump-out manifests for your hauler",
    "manifests:read": "Read the manifests you can see",
    "records:read": "Read and download restaurants' records",
    "audit:read": "Read the city's audit lists",
    "registry:write": "Change the city's registry (permits, haulers, sites)",
    "receipts:write": "Report the loads your disposal site received",
}


@bp.app_template_filter("qr")
def qr(uri):
    """An address as a QR code, inline SVG drawn by fogx (markup of its own, not the caller's)."""
    return Markup(twofactor.provisioning_qr(uri))


def _signer():
    return URLSafeTimedSerializer(secret_key(current_app.config), salt="fogx.sign-in")


def _query_digest():
    """The authorization request a step belongs to: its state is refused for any other."""
    return hashlib.sha256(request.query_string).hexdigest()


def _origin(uri):
    parts = urlsplit(uri)
    return f"{parts.scheme}://{parts.netloc}"


def refused_form():
    """A POST without the session's form token: nothing it asked is done."""
    return page(
        "signin/message.html",
        403,
        title="This form cannot be taken",
        detail="The page was open too long, or it did not come from fogx. Go back, reload it and try again.",
    )


csrf.guard(bp, refused_form)


def _error_redirect(error, redirect_uri):
    return redirect(add_params_to_uri(redirect_uri, error.get_body()))


@bp.route("/oauth/authorize", methods=["GET", "POST"])
def authorize():
    try:
        grant = authorization.get_consent_grant(end_user=None)
    except UnsupportedResponseTypeError as error:
        return page("signin/message.html", 400, title="This sign-in link is not right", detail=error.description)
    except OAuth2Error as error:
        if error.redirect_uri:  # only once the app's redirect URI is known to be its own
            return _error_redirect(error, error.redirect_uri)
        # No app of that id (404), or a redirect URI it did not register (403): the request is
        # well formed, and the person is sent nowhere.
        return page(
            "signin/message.html",
            404 if error.error == "invalid_client" else 403,
            title="This sign-in link is not right",
            detail=error.description or error.error,
        )
    flow = Flow(grant)
    step = request.form.get("step") if request.method == "POST" else None
    if step is None:
        return flow.sign_in_page()
    if step == "password":
        return flow.password()
    try:
        state = _signer().loads(request.form.get("pending", ""), max_age=PENDING_SECONDS)
    except BadSignature:
        return flow.sign_in_page(message="That took too long, or the page was changed: sign in again.", status=400)
    if state.get("q") != _query_digest():
        return flow.sign_in_page(message="Sign in again.", status=400)
    flow.state = state
    return flow.advance(step)


def attempts(email="") -> SignInAttempts:
    return SignInAttempts(current_limits(), address=request.remote_addr or "", email=email)


def waited(refuse, wait, email=""):
    """The page `refuse` makes for an address that must wait: the same whichever account it named."""
    response = refuse(f"Too many failed sign-ins from here: try again in {passwords.for_how_long(wait)}.", 429, email)
    response.headers["Retry-After"] = str(wait)
    return response


def password_checked(refuse):
    """(the person, None) for the form's right email and password; else (None, the page
    `refuse(message, status, email)` makes). Failures are counted by the address they come
    from and the account named (`SignInAttempts`), and past their limits nothing is tried (429)."""
    email = passwords.normal_email(request.form.get("email"))
    tries = attempts(email)
    wait = tries.take()
    if wait:
        return None, waited(refuse, wait, email)
    try:
        person = passwords.verify_password(
            db.session, email, password=request.form.get("password"), config=current_app.config
        )
    except passwords.SignInRefused as error:
        tries.password_failed()
        return None, refuse(error.message, status_of(error), email)
    except ServiceError as error:  # the right password of a locked account
        tries.password_right()
        return None, refuse(error.message, status_of(error), email)
    tries.password_right()
    return person, None


class Flow:
    """One authorization request's steps; what is proved so far travels signed in `pending`."""

    def __init__(self, grant):
        self.grant = grant
        self.app = grant.client.row
        self.state = {}

    def render(self, template, status=200, **context):
        return page(
            template,
            status,
            form_targets=_origin(self.grant.redirect_uri),
            app=self.app,
            action=request.full_path.rstrip("?"),
            pending=_signer().dumps(self.state) if self.state else "",
            **context,
        )

    def sign_in_page(self, message=None, status=200, email=""):
        self.state = {}
        lang, words = signin_words.words(self.app.name)
        return self.render(
            "signin/signin.html", status, message=signin_words.said(message), email=email, lang=lang, words=words
        )

    def password(self):
        person, refusal = password_checked(lambda message, status, email: self.sign_in_page(message, status, email))
        if person is None:
            return refusal
        self.state = {
            "p": str(person.id),
            "amr": ["pwd"],
            "t": int(now().timestamp()),
            "q": _query_digest(),
            "pw": passwords.password_stamp(person),
        }
        return self.next()

    @property
    def person(self) -> Person:
        return passwords.person_of(db.session, self.state["p"])

    def memberships(self, person):
        return [m for m in person.memberships if m.removed_at is None]

    def advance(self, step):
        person = self.person
        if self.state.get("pw") != passwords.password_stamp(person):
            # The password changed since this page was given: what the old one proved is spent.
            return self.sign_in_page("Your password has changed since: sign in again.", status=400)
        if step == "totp":
            tries = attempts()
            wait = tries.address_wait()
            if wait:
                return waited(lambda message, status, _: self.render("signin/totp.html", status, message=message), wait)
            try:
                twofactor.verify(db.session, person, code=request.form.get("code"), config=current_app.config)
            except passwords.AccountLocked as error:
                return self.sign_in_page(error.message, status_of(error), person.email)
            except twofactor.CodeRefused as error:
                tries.code_failed()
                return self.render("signin/totp.html", status_of(error), message=error.message)
            self.state["amr"] = [*self.state["amr"], "otp"]
        elif step == "choose":
            chosen = request.form.get("membership")
            if chosen not in {str(m.id) for m in self.memberships(person)}:
                return self.next()
            self.state["m"] = chosen
        elif step == "enrol":
            try:
                codes = twofactor.confirm(db.session, person, code=request.form.get("code"))
            except ServiceError as error:
                return self.render(
                    "signin/enrol.html",
                    400,
                    message=error.message,
                    secret=person.totp_secret,
                    uri=twofactor.provisioning_uri(person),
                )
            self.state["amr"] = [*self.state["amr"], "otp"]
            return self.render("signin/recovery_codes.html", codes=codes)
        elif step == "consent":
            if request.form.get("decision") != "allow":
                return self.deny()
            # The consent is for the organisation its page named.
            self.state["consented"] = self.state.get("m")
        return self.next()

    def next(self):
        """The next step this person owes, or the code for the app."""
        person = self.person
        try:
            passwords.refuse_if_locked(person)
        except passwords.AccountLocked as error:
            return self.sign_in_page(error.message, status_of(error), person.email)
        memberships = self.memberships(person)
        if not memberships:
            return page(
                "signin/message.html",
                403,
                title="No organisation",
                detail="Your account belongs to no organisation now; ask your admin to invite you.",
            )
        if person.totp_enabled_at is not None and "otp" not in self.state["amr"]:
            return self.render("signin/totp.html")
        chosen = [m for m in memberships if str(m.id) == self.state.get("m")]
        if not chosen and len(memberships) > 1:
            return self.render(
                "signin/choose.html", memberships=[(m, organisation_name(db.session, m)) for m in memberships]
            )
        membership = (chosen or memberships)[0]
        self.state["m"] = str(membership.id)
        if person.totp_enabled_at is None and twofactor.required_for(db.session, membership):
            twofactor.enrolling(db.session, person)
            return self.render(
                "signin/enrol.html",
                secret=person.totp_secret,
                uri=twofactor.provisioning_uri(person),
                organisation=organisation_name(db.session, membership),
            )
        scope = granted_scope(self.grant.request.payload.scope, membership, self.app)
        consented = self.state.get("consented") == str(membership.id)
        if not self.app.first_party and not consented and not self._consented(person, membership, scope):
            return self.render(
                "signin/consent.html",
                scopes=[(s, SCOPE_TEXT.get(s, s)) for s in scope.split()],
                organisation=organisation_name(db.session, membership),
                membership=membership,
            )
        if consented:
            self._remember_consent(person, membership, scope)
        return self.issue(SignedIn(person, membership, scope, _at(self.state["t"]), self.state["amr"]))

    def _consented(self, person, membership, scope):
        return apps.has_consented(
            db.session, person_id=person.id, app_id=self.app.id, membership_id=membership.id, scope=scope
        )

    def _remember_consent(self, person, membership, scope):
        apps.remember_consent(
            db.session, person_id=person.id, app_id=self.app.id, membership_id=membership.id, scope=scope
        )

    def issue(self, user):
        try:
            status, _, headers = self.grant.create_authorization_response(self.grant.redirect_uri, user)
        except OAuth2Error as error:
            error.state = self.grant.request.payload.state
            return _error_redirect(error, self.grant.redirect_uri)
        return redirect(dict(headers)["Location"], status)

    def deny(self):
        error = AccessDeniedError()
        error.state = self.grant.request.payload.state
        return _error_redirect(error, self.grant.redirect_uri)


def _at(timestamp):
    return datetime.fromtimestamp(timestamp, UTC)


def init_app(app):
    csrf.init_app(app)
    app.register_blueprint(bp)
