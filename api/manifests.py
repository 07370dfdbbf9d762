"""`/v1/manifests`: haulers file pump-out manifests and corrections; others read them."""
from flask import Blueprint, request, url_for

from api.idempotency import idempotent
from api.validation import load, load_json
from auth.protect import current_principal, require
from auth.scopes import AUDIT_READ, MANIFESTS_READ, MANIFESTS_WRITE, RECORDS_READ
from domain import checks
from schemas.manifest import CorrectionIn, ManifestIn, ManifestQuery
from schemas.manifest_views import receipt, revision_view
from services import manifests
from storage.db import db
from storage.models import Device

bp = Blueprint("manifests", __name__, url_prefix="/v1/manifests")

READ = (MANIFESTS_READ, MANIFESTS_WRITE, RECORDS_READ, AUDIT_READ)
manifest_in, correction_in, manifest_query = ManifestIn(), CorrectionIn(), ManifestQuery()


def _receipt(manifest):
    revision = manifests.current(manifest)
    device = db.session.get(Device, manifest.device_id)
    last = manifests.last_qualifying(db.session, device.id)
    return receipt(manifest, revision, device=device,
                   due_by=checks.due_by(last, manifests.device_facts(device)))


@bp.post("")
@require(MANIFESTS_WRITE)
@idempotent
def submit():
    manifest, created = manifests.submit(db.session, current_principal(), load_json(manifest_in))
    if not created:
        return _receipt(manifest), 200
    return _receipt(manifest), 201, {"Location": url_for("manifests.get_manifest", manifest_id=manifest.id)}


@bp.get("")
@require(*READ)
def list_manifests():
    args = load(manifest_query, request.args.to_dict())
    rows, cursor = manifests.listing(db.session, current_principal(), **args)
    return {"items": [_receipt(row) for row in rows], "next_cursor": cursor}


@bp.get("/<manifest_id>")
@require(*READ)
def get_manifest(manifest_id):
    manifest = manifests.get(db.session, current_principal(), manifest_id)
    return _receipt(manifest)


@bp.post("/<manifest_id>/corrections")
@require(MANIFESTS_WRITE)
@idempotent
def correct(manifest_id):
    manifest, created = manifests.correct(db.session, current_principal(), manifest_id,
                                          load_json(correction_in))
    return _receipt(manifest), 201 if created else 200


@bp.get("/<manifest_id>/revisions")
@require(*READ)
def revisions(manifest_id):
    manifest = manifests.get(db.session, current_principal(), manifest_id)
    return {"items": [revision_view(r) for r in manifest.revisions]}
