"""`/v1/audit/trends`: the city at a glance, month by month (`services.audit.trends`)."""

from flask import Blueprint, request

from api.validation import load
from auth.protect import current_principal, require
from auth.scopes import AUDIT_READ
from schemas.trends import TrendsQuery
from services.audit import trends
from storage.db import db

bp = Blueprint("trends", __name__)


@bp.get("/v1/audit/trends")
@require(AUDIT_READ)
def audit_trends():
    args = load(TrendsQuery(), request.args.to_dict())
    return trends.trends(db.session, current_principal(), **args)
