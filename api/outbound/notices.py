"""Notices: a person's choices of what they are sent, a city admin's list of its city's notices,
and the one-click unsubscribe link (RFC 8058) every notice carries; no sign-in for that link,
whose signature is its authority."""

from flask import Blueprint, current_app, request

from api.pages import page
from api.validation import load, load_json
from auth.protect import current_principal, require
from auth.scopes import ALL_SCOPES, REGISTRY_WRITE
from schemas.notices import NoticeChoicesIn, NoticeQuery, notice_view
from services.notices import choices
from storage.db import db

bp = Blueprint("notices", __name__)
choices_in, notice_query = NoticeChoicesIn(), NoticeQuery()

KIND_WORDS = {
    "device_due_soon": "reminders of devices coming due",
    "device_overdue": "notices of overdue devices",
    "manifest_findings": "notices of findings",
    "delivery_disputed": "notices of disputed deliveries",
    "disposal_unrecorded": "notices of manifests with no disposal on record",
    "delivery_unreceived": "notices of deliveries a site has no record of",
    "correction_decided": "notices of decided corrections",
    "deliveries_awaiting": "notices of deliveries awaiting confirmation",
    "auditor_digest": "the daily digest",
}


@bp.get("/v1/me/notice-choices")
@require(*ALL_SCOPES)
def my_choices():
    return choices.of_person(db.session, current_principal())


@bp.patch("/v1/me/notice-choices")
@require(*ALL_SCOPES)
def choose():
    return choices.choose(db.session, current_principal(), data=load_json(choices_in))


@bp.get("/v1/notices")
@require(REGISTRY_WRITE)
def city_notices():
    args = load(notice_query, request.args.to_dict())
    rows, cursor = choices.city_notices(db.session, current_principal(), **args)
    return {"items": [notice_view(n) for n in rows], "next_cursor": cursor}


@bp.route("/notices/unsubscribe/<token>", methods=["GET", "POST"])
def unsubscribe(token):
    """GET asks (a mail scanner that follows links turns nothing off); POST, the mail program's
    one-click request or the page's button, turns the notice's kind off for its address."""
    if request.method == "GET":
        choices.unsubscribe_target(current_app.config, token)
        return page(
            "notices/unsubscribe.html",
            title="Unsubscribe",
            detail="Stop this kind of notice from fogx for your address?",
            button="Unsubscribe",
            done=False,
        )
    address, kind = choices.unsubscribe(db.session, current_app.config, token=token)
    return page(
        "notices/unsubscribe.html",
        title="Unsubscribed",
        detail=f"{address} will no longer get {KIND_WORDS.get(kind, kind)} from fogx.",
        done=True,
    )
