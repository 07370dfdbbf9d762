"""People in organisations: invitations by email, memberships and their removal, a city's
sign-in policy for its staff, and who read an FSE's record."""

import json

from flask import Blueprint, Response, current_app, request, stream_with_context

from api.downloads import disposition
from api.validation import load, load_json
from api.worker import send_soon
from auth.protect import current_principal, require
from auth.scopes import AUDIT_READ, MANIFESTS_WRITE, RECEIPTS_WRITE, RECORDS_READ, REGISTRY_WRITE
from domain import words
from reports import table_csv
from schemas.actors import RegistryChangesQuery, registry_change_view
from schemas.manifest_views import iso
from schemas.people import InvitationIn, SignInPolicyIn, invitation_view, membership_view, policy_view
from services.errors import Invalid
from services.people import access_log, accounts, invitations, twofactor
from services.registry import changes as registry_changes
from services.registry import jurisdictions
from storage.db import db

bp = Blueprint("people", __name__)
# Admins of a city, a hauler, a restaurant or a disposal site; whose admin the caller is, the
# service decides.
MANAGERS = (REGISTRY_WRITE, MANIFESTS_WRITE, RECORDS_READ, RECEIPTS_WRITE)
ACCESS_COLUMNS = [
    "read_at",
    "format",
    "format_words",
    "period_from",
    "period_to",
    "client_id",
    "role",
    "person_id",
    "person_name",
    "person_email",
]
REGISTRY_COLUMNS = [
    "at",
    "action",
    "action_words",
    "subject_id",
    "by_person_name",
    "by_person_id",
    "by_client_id",
    "by_role",
    "detail",
    "id",
]
invitation_in = InvitationIn()
policy_in = SignInPolicyIn()


@bp.post("/v1/invitations")
@require(*MANAGERS)
def invite():
    accounts.standing(db.session, current_principal())  # a caller who manages no one learns no more
    invitation = accounts.invite(
        db.session, current_principal(), data=load_json(invitation_in), config=current_app.config
    )
    send_soon(current_app)
    return invitation_view(invitation), 201


@bp.get("/v1/invitations")
@require(*MANAGERS)
def pending_invitations():
    return {"items": [invitation_view(i) for i in invitations.pending(db.session, current_principal())]}


@bp.post("/v1/invitations/<invitation_id>/withdrawal")
@require(*MANAGERS)
def withdraw_invitation(invitation_id):
    return invitation_view(invitations.withdraw(db.session, current_principal(), invitation_id=invitation_id))


@bp.get("/v1/memberships")
@require(*MANAGERS)
def memberships():
    return {"items": [membership_view(m) for m in accounts.listing(db.session, current_principal())]}


@bp.post("/v1/memberships/<membership_id>/removal")
@require(*MANAGERS)
def remove_membership(membership_id):
    return membership_view(accounts.remove(db.session, current_principal(), membership_id=membership_id))


@bp.get("/v1/jurisdictions/<code>/sign-in-policy")
@require(REGISTRY_WRITE)
def sign_in_policy(code):
    return policy_view(twofactor.policy_of(db.session, _administered(code).id))


@bp.put("/v1/jurisdictions/<code>/sign-in-policy")
@require(REGISTRY_WRITE)
def set_sign_in_policy(code):
    jurisdiction = _administered(code)
    data = load_json(policy_in)
    return policy_view(twofactor.set_policy(db.session, jurisdiction.id, **data))


def _administered(code):
    """The admin's own city by its code; any other answers as one that does not exist."""
    return jurisdictions.by_code(db.session, current_principal(), code=code)


@bp.get("/v1/fses/<fse_id>/access-log")
@require(REGISTRY_WRITE)
def record_access_log(fse_id):
    rows = [
        {
            "read_at": iso(read.read_at),
            "format": read.format,
            "format_words": words.READ_FORMATS.get(read.format, read.format),
            "period_from": read.period_from.isoformat(),
            "period_to": read.period_to.isoformat(),
            "client_id": client.client_id if person is None else None,
            "role": client.role,
            "person_id": str(person.id) if person else None,
            "person_name": person.name if person else None,
            "person_email": person.email if person else None,
        }
        for read, client, person in access_log.reads(db.session, current_principal(), fse_id=fse_id)
    ]
    asked = request.args.get("format")
    if asked not in (None, "json", "csv"):
        raise Invalid("No such format.", errors={"format": ["One of json, csv."]})
    if _wants_csv(asked):
        return _sheet(table_csv.render(rows, ACCESS_COLUMNS), "record-access-log.csv")
    return {"items": rows}


@bp.get("/v1/jurisdictions/<code>/registry-changes")
@require(AUDIT_READ)
def registry_change_list(code):
    """Who changed the city's registry, and when: a page of changes in JSON, or all as CSV."""
    args = load(RegistryChangesQuery(), request.args.to_dict())
    principal = current_principal()
    if _wants_csv(args.get("format")):
        jurisdiction, rows = registry_changes.every(db.session, principal, code=code)
        zone = jurisdiction.time_zone
        flat = [{**registry_change_view(row, zone), "detail": json.dumps(row.detail, sort_keys=True)} for row in rows]
        return _sheet(table_csv.render(flat, REGISTRY_COLUMNS, zone=zone), f"registry-changes-{jurisdiction.code}.csv")
    jurisdiction, rows, cursor = registry_changes.listing(
        db.session, principal, code=code, cursor=args.get("cursor"), limit=args["limit"]
    )
    return {"items": [registry_change_view(row, jurisdiction.time_zone) for row in rows], "next_cursor": cursor}


def _wants_csv(asked):
    return asked == "csv" or (asked is None and request.accept_mimetypes.best == "text/csv")


def _sheet(lines, name):
    response = Response(stream_with_context(lines), mimetype="text/csv")
    response.headers["Content-Disposition"] = disposition(name)
    return response
