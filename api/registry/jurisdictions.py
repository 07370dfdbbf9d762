"""`/v1/jurisdictions`: the rule parameters of the cities within the caller's reach."""

from flask import Blueprint

from auth.protect import current_principal, require
from auth.scopes import ALL_SCOPES
from schemas.jurisdiction import JurisdictionSchema
from services.errors import NotFound
from storage import reach
from storage.db import db

bp = Blueprint("jurisdictions", __name__, url_prefix="/v1/jurisdictions")
schema = JurisdictionSchema()


@bp.get("")
@require(*ALL_SCOPES)
def list_jurisdictions():
    rows = db.session.scalars(reach.jurisdictions(current_principal()).order_by("code")).all()
    return {"items": schema.dump(rows, many=True), "next_cursor": None}


@bp.get("/<code>")
@require(*ALL_SCOPES)
def get_jurisdiction(code):
    row = db.session.scalar(reach.jurisdiction_by_code(current_principal(), code))
    if row is None:
        raise NotFound("No such jurisdiction within your reach.")
    return schema.dump(row)
