"""`/v1/jurisdictions`: the rule parameters of the cities within the caller's reach."""

from flask import Blueprint

from auth.protect import current_principal, require
from auth.scopes import ALL_SCOPES
from schemas.jurisdiction import JurisdictionSchema
from services.registry import jurisdictions
from storage.db import db

bp = Blueprint("jurisdictions", __name__, url_prefix="/v1/jurisdictions")
schema = JurisdictionSchema()


@bp.get("")
@require(*ALL_SCOPES)
def list_jurisdictions():
    rows = jurisdictions.within_reach(db.session, current_principal())
    return {"items": schema.dump(rows, many=True), "next_cursor": None}


@bp.get("/<code>")
@require(*ALL_SCOPES)
def get_jurisdiction(code):
    return schema.dump(jurisdictions.by_code(db.session, current_principal(), code=code))
