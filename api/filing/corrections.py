"""`/v1/audit/corrections`: the city reviews the corrections that would move a manifest;
`/v1/corrections`: the hauler follows the ones it sent."""

from flask import Blueprint, request, url_for

from api.idempotency import idempotent
from api.validation import load, load_json
from auth.protect import current_principal, require
from auth.scopes import AUDIT_READ, CORRECTIONS_REVIEW, MANIFESTS_WRITE
from schemas.corrections import ApprovalIn, RejectionIn, ReviewQuery, SentQuery, correction_view
from services.filing import corrections
from storage.db import db

bp = Blueprint("corrections", __name__, url_prefix="/v1/audit/corrections")
sent_bp = Blueprint("sent_corrections", __name__, url_prefix="/v1/corrections")


def _decided(row, manifest):
    location = url_for("manifests.get_correction", manifest_id=row.manifest_id, correction_id=row.id)
    return correction_view(row, manifest), 200, {"Location": location}


@bp.get("")
@require(AUDIT_READ, CORRECTIONS_REVIEW)
def review_list():
    args = load(ReviewQuery(), request.args.to_dict())
    rows, cursor = corrections.review_list(db.session, current_principal(), **args)
    return {"items": [correction_view(row, manifest) for row, manifest in rows], "next_cursor": cursor}


@bp.post("/<correction_id>/approve")
@require(CORRECTIONS_REVIEW)
@idempotent
def approve(correction_id):
    row = corrections.for_review(db.session, current_principal(), correction_id=correction_id)
    data = load_json(ApprovalIn()) if request.get_data(cache=True) else {}
    manifest, row = corrections.approve(db.session, current_principal(), row=row, note=data.get("reason"))
    return _decided(row, manifest)


@bp.post("/<correction_id>/reject")
@require(CORRECTIONS_REVIEW)
@idempotent
def reject(correction_id):
    row = corrections.for_review(db.session, current_principal(), correction_id=correction_id)
    data = load_json(RejectionIn())
    manifest, row = corrections.reject(db.session, current_principal(), row=row, reason=data["reason"])
    return _decided(row, manifest)


@sent_bp.get("")
@require(MANIFESTS_WRITE)
def sent_list():
    args = load(SentQuery(), request.args.to_dict())
    rows, cursor = corrections.sent_list(db.session, current_principal(), **args)
    return {"items": [correction_view(row, manifest) for row, manifest in rows], "next_cursor": cursor}
