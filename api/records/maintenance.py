"""`/v1/fses/{fse_id}/maintenance-log`: the restaurant's own log of the grease traps its kitchen
cleans itself (`services.records.maintenance`)."""

from flask import Blueprint, request

from api.idempotency import idempotent
from api.validation import load, load_json
from auth.protect import current_principal, require
from auth.scopes import MAINTENANCE_WRITE, RECORDS_READ
from schemas.maintenance import CleaningIn, LogQuery, cleaning_view, log_view
from services.records import maintenance
from storage.db import db

bp = Blueprint("maintenance", __name__, url_prefix="/v1/fses/<fse_id>/maintenance-log")
cleaning_in, log_query = CleaningIn(), LogQuery()


@bp.post("")
@require(MAINTENANCE_WRITE)
@idempotent
def record_cleaning(fse_id):
    entry, device = maintenance.record(
        db.session, principal=current_principal(), fse_id=fse_id, **load_json(cleaning_in)
    )
    return cleaning_view(entry, device.tag), 201


@bp.get("")
@require(RECORDS_READ)
def read_log(fse_id):
    args = load(log_query, request.args.to_dict())
    return log_view(maintenance.read(db.session, principal=current_principal(), fse_id=fse_id, **args))
