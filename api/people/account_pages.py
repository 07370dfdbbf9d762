"""Pages reached from a mailed link (accepting an invitation, resetting a password) and the
page where a person turns a second factor on of their own accord."""

import logging

from flask import Blueprint, after_this_request, current_app, request
from itsdangerous import BadSignature, URLSafeTimedSerializer

from api.errors import status_of
from api.pages import page
from api.people import csrf
from api.people.signin import PENDING_SECONDS, attempts, password_checked, refused_form, waited
from api.worker import send_soon
from auth.keys import secret_key
from services.errors import ServiceError
from services.people import accounts, passwords, twofactor
from services.people.passwords import LinkInvalid, LinkUnknown
from storage.db import db

bp = Blueprint("account_pages", __name__, url_prefix="/signin")
log = logging.getLogger("fogx.signin")
csrf.guard(bp, refused_form)


def _link_gone(error: LinkInvalid | LinkUnknown):
    """410 for a link used up or expired; 404 for one fogx never sent."""
    if isinstance(error, LinkUnknown):
        return page("signin/message.html", 404, title="This link does not work", detail=error.message)
    return page("signin/message.html", 410, title="This link no longer works", detail=error.message)


@bp.route("/invitations/<token>", methods=["GET", "POST"])
def invitation(token):
    try:
        invited = accounts.invitation_of(db.session, token)
    except (LinkInvalid, LinkUnknown) as error:
        return _link_gone(error)
    person = passwords.find_person(db.session, invited.email)
    existing = person is not None and person.password_hash is not None
    organisation = accounts.name_of_invitation(db.session, invited)
    if request.method == "GET":
        return page("signin/invitation.html", invitation=invited, organisation=organisation, existing=existing)

    def refuse(message, status, _=None):
        return page(
            "signin/invitation.html",
            status,
            invitation=invited,
            organisation=organisation,
            existing=existing,
            message=message,
        )

    # An account's password is counted here as at sign-in: the link is no way around the limits.
    tries = attempts(invited.email) if existing else None
    wait = tries.take() if tries else 0
    if wait:
        return waited(refuse, wait)
    try:
        accounts.accept(
            db.session,
            token,
            name=request.form.get("name"),
            password=request.form.get("password"),
            config=current_app.config,
        )
    except (LinkInvalid, LinkUnknown) as error:
        return _link_gone(error)
    except ServiceError as error:
        db.session.rollback()
        if tries and isinstance(error, passwords.SignInRefused):
            tries.password_failed()
        elif tries:
            tries.password_right()
        return refuse(_said(error), status_of(error))
    if tries:
        tries.password_right()
    return page(
        "signin/message.html",
        title="Welcome to fogx",
        detail=f"You are now {invited.role} of {organisation}. Sign in from the portal or your app.",
    )


@bp.route("/reset", methods=["GET", "POST"])
def reset_request():
    if request.method == "GET":
        return page("signin/reset_request.html")
    _mail_reset_after_answering(request.form.get("email", ""))
    return page("signin/reset_request.html", sent=True)


def _mail_reset_after_answering(email):
    """Look the address up, and mail its link, once the answer has been sent: the answer costs
    the same work and time whether or not the address has an account, and a mail server that
    is down tells no one either (it is logged)."""
    app = current_app._get_current_object()

    def mail():
        with app.app_context():
            try:
                passwords.request_reset(db.session, email, config=app.config)
                send_soon(app)
            except Exception:  # the answer has been sent
                db.session.rollback()
                log.warning("a password reset mail failed", exc_info=True)

    @after_this_request
    def _after_sending(response):
        response.call_on_close(mail)
        return response


@bp.route("/reset/<token>", methods=["GET", "POST"])
def reset(token):
    try:
        passwords.reset_of(db.session, token)
    except (LinkInvalid, LinkUnknown) as error:
        return _link_gone(error)
    if request.method == "GET":
        return page("signin/reset.html")
    try:
        person = passwords.reset_password(db.session, token, password=request.form.get("password"))
    except (LinkInvalid, LinkUnknown) as error:
        return _link_gone(error)
    except ServiceError as error:
        db.session.rollback()
        return page("signin/reset.html", status_of(error), message=_said(error))
    # The owner back with a new password does not wait out their own failures from here.
    attempts(person.email).password_right()
    return page(
        "signin/message.html",
        title="Password changed",
        detail="Your new password is set, and every app signed in with the old one is signed out.",
    )


def _enrolment_signer():
    return URLSafeTimedSerializer(secret_key(current_app.config), salt="fogx.second-factor")


@bp.route("/second-factor", methods=["GET", "POST"])
def second_factor():
    """Any person turns on TOTP: their password first, then the key, a code from the app, and
    the recovery codes, shown once. Who is enrolling travels signed in `pending`."""

    def ask(message=None, status=200, email=""):
        return page("signin/second_factor.html", status, message=message, email=email)

    step = request.form.get("step") if request.method == "POST" else None
    if step == "password":
        person, refusal = password_checked(ask)
        if person is None:
            return refusal
        if person.totp_enabled_at is not None:
            return page(
                "signin/message.html",
                title="Your second factor is on already",
                detail="Signing in asks for a code from your authenticator app, or a recovery code.",
            )
        twofactor.enrolling(db.session, person)
        return _enrol_page(person)
    if step == "enrol":
        try:
            person_id, stamp = _enrolment_signer().loads(request.form.get("pending", ""), max_age=PENDING_SECONDS)
        except (BadSignature, ValueError):
            return ask("That took too long, or the page was changed: start again.", 400)
        person = passwords.person_of(db.session, person_id)
        if stamp != passwords.password_stamp(person):
            return ask("Your password has changed since: start again.", 400)
        try:
            codes = twofactor.confirm(db.session, person, code=request.form.get("code"))
        except ServiceError as error:
            return _enrol_page(person, error.message, 400)
        return page("signin/recovery_codes.html", codes=codes, done=True)
    return ask()


def _enrol_page(person, message=None, status=200):
    return page(
        "signin/enrol.html",
        status,
        message=message,
        action="/signin/second-factor",
        pending=_enrolment_signer().dumps([str(person.id), passwords.password_stamp(person)]),
        secret=person.totp_secret,
        uri=twofactor.provisioning_uri(person),
    )


def _said(error: ServiceError) -> str:
    return " ".join([error.message, *(m for messages in (error.errors or {}).values() for m in messages)])
