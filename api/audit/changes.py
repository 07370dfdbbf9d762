"""`GET /v1/changes`: the change feed of the manifests within the caller's reach."""

from flask import Blueprint, request

from api.validation import load
from auth.protect import current_principal, require
from auth.scopes import AUDIT_READ, MANIFESTS_READ, MANIFESTS_WRITE, RECORDS_READ
from schemas.changes import ChangesQuery, change_view
from services.audit import changes
from storage.db import db

bp = Blueprint("changes", __name__)
changes_query = ChangesQuery()


@bp.get("/v1/changes")
@require(MANIFESTS_READ, MANIFESTS_WRITE, RECORDS_READ, AUDIT_READ)
def change_feed():
    args = load(changes_query, request.args.to_dict())
    rows, next_cursor = changes.feed(db.session, current_principal(), **args)
    return {"items": [change_view(row, changes.cursor_of(row)) for row in rows], "next_cursor": next_cursor}
