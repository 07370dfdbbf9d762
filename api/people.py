"""People in organisations: invitations by email, memberships and their removal, a city's
sign-in policy for its staff, and who read an FSE's record."""
from flask import Blueprint, Response, current_app, request, stream_with_context

from api.downloads import disposition
from services.errors import Invalid, NotFound
from api.validation import load_json
from auth.protect import current_principal, require
from auth.scopes import MANIFESTS_WRITE, RECORDS_READ, REGISTRY_WRITE
from reports import table_csv
from schemas.manifest_views import iso
from schemas.people import InvitationIn, SignInPolicyIn, invitation_view, membership_view, policy_view
from services import access_log, accounts, twofactor
from storage import reach
from storage.db import db

bp = Blueprint("people", __name__)
# Admins of a city, a hauler or a restaurant; whose admin the caller is, the service decides.
MANAGERS = (REGISTRY_WRITE, MANIFESTS_WRITE, RECORDS_READ)
ACCESS_COLUMNS = ["read_at", "format", "period_from", "period_to", "client_id", "role", "person_id", "person_name",
                  "person_email"]
invitation_in = InvitationIn()
policy_in = SignInPolicyIn()


@bp.post("/v1/invitations")
@require(*MANAGERS)
def invite():
    accounts.standing(db.session, current_principal())  # a caller who manages no one learns no more
    invitation = accounts.invite(db.session, current_principal(), load_json(invitation_in), config=current_app.config)
    return invitation_view(invitation), 201


@bp.get("/v1/memberships")
@require(*MANAGERS)
def memberships():
    return {"items": [membership_view(m) for m in accounts.listing(db.session, current_principal())]}


@bp.post("/v1/memberships/<membership_id>/removal")
@require(*MANAGERS)
def remove_membership(membership_id):
    return membership_view(accounts.remove(db.session, current_principal(), membership_id))


@bp.put("/v1/jurisdictions/<code>/sign-in-policy")
@require(REGISTRY_WRITE)
def set_sign_in_policy(code):
    jurisdiction = db.session.scalar(reach.jurisdiction_by_code(current_principal(), code))
    if jurisdiction is None:
        raise NotFound("No such jurisdiction within your reach.")
    data = load_json(policy_in)
    return policy_view(twofactor.set_policy(db.session, jurisdiction.id, **data))


@bp.get("/v1/fses/<fse_id>/access-log")
@require(REGISTRY_WRITE)
def record_access_log(fse_id):
    rows = [{
        "read_at": iso(read.read_at), "format": read.format,
        "period_from": read.period_from.isoformat(), "period_to": read.period_to.isoformat(),
        "client_id": client.client_id if person is None else None, "role": client.role,
        "person_id": str(person.id) if person else None, "person_name": person.name if person else None,
        "person_email": person.email if person else None,
    } for read, client, person in access_log.reads(db.session, current_principal(), fse_id)]
    asked = request.args.get("format")
    if asked not in (None, "json", "csv"):
        raise Invalid("No such format.", errors={"format": ["One of json, csv."]})
    if asked == "csv" or (asked is None and request.accept_mimetypes.best == "text/csv"):
        response = Response(stream_with_context(table_csv.render(rows, ACCESS_COLUMNS)), mimetype="text/csv")
        response.headers["Content-Disposition"] = disposition("record-access-log.csv")
        return response
    return {"items": rows}
