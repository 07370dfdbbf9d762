"""Pages reached from a mailed link: accepting an invitation, resetting a password."""
from flask import Blueprint, current_app, request

from api import csrf
from api.errors import status_of
from api.signin import page, refused_form
from services import accounts, passwords
from services.errors import ServiceError
from services.passwords import LinkInvalid
from storage.db import db

bp = Blueprint("account_pages", __name__, url_prefix="/signin")
csrf.guard(bp, refused_form)


def _link_gone(error: LinkInvalid):
    return page("signin/message.html", 410, title="This link no longer works", detail=error.message)


@bp.route("/invitations/<token>", methods=["GET", "POST"])
def invitation(token):
    try:
        invited = accounts.invitation_of(db.session, token)
    except LinkInvalid as error:
        return _link_gone(error)
    person = passwords.find_person(db.session, invited.email)
    existing = person is not None and person.password_hash is not None
    organisation = accounts.name_of_invitation(db.session, invited)
    if request.method == "GET":
        return page("signin/invitation.html", invitation=invited, organisation=organisation, existing=existing)
    try:
        accounts.accept(db.session, token, name=request.form.get("name"), password=request.form.get("password"),
                        config=current_app.config)
    except LinkInvalid as error:
        return _link_gone(error)
    except ServiceError as error:
        db.session.rollback()
        return page("signin/invitation.html", status_of(error), invitation=invited, organisation=organisation,
                    existing=existing, message=_said(error))
    return page("signin/message.html", title="Welcome to fogx",
                detail=f"You are now {invited.role} of {organisation}. Sign in from the portal or your app.")


@bp.route("/reset", methods=["GET", "POST"])
def reset_request():
    if request.method == "GET":
        return page("signin/reset_request.html")
    passwords.request_reset(db.session, request.form.get("email", ""), config=current_app.config)
    # The same answer whether or not the address has an account.
    return page("signin/reset_request.html", sent=True)


@bp.route("/reset/<token>", methods=["GET", "POST"])
def reset(token):
    try:
        passwords.reset_of(db.session, token)
    except LinkInvalid as error:
        return _link_gone(error)
    if request.method == "GET":
        return page("signin/reset.html")
    try:
        passwords.reset_password(db.session, token, request.form.get("password"))
    except LinkInvalid as error:
        return _link_gone(error)
    except ServiceError as error:
        db.session.rollback()
        return page("signin/reset.html", status_of(error), message=_said(error))
    return page("signin/message.html", title="Password changed",
                detail="Your new password is set, and every app signed in with the old one is signed out.")


def _said(error: ServiceError) -> str:
    return " ".join([error.message, *(m for messages in (error.errors or {}).values() for m in messages)])
