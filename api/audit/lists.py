"""Audit routes: missed services, findings, scorecards, frequency recommendations, due lists."""

import uuid

from flask import Blueprint, Response, request, stream_with_context

from api.downloads import disposition
from api.validation import load
from auth.protect import current_principal, require
from auth.scopes import AUDIT_READ, MANIFESTS_READ, MANIFESTS_WRITE, RECORDS_READ
from schemas import audit as schemas
from services.audit import lists as audit
from services.disposal import receipts
from services.errors import NotFound
from services.registry import fses as registry
from storage.db import db

bp = Blueprint("audit", __name__)


def _wants_csv(args):
    requested = args.pop("format", None)
    if requested:
        return requested == "csv"
    return request.accept_mimetypes.best == "text/csv"


def _sheet(body, name):
    response = Response(stream_with_context(body), mimetype="text/csv")
    response.headers["Content-Disposition"] = disposition(f"{name}.csv")
    response.headers["Cache-Control"] = "no-store"
    return response


def _answer(listing, paging):
    """The list as CSV, or a page of it."""
    if _wants_csv(paging):
        return _sheet(listing.sheet(), listing.name)
    return listing.page(cursor=paging.get("cursor"), limit=paging["limit"])


def _arguments(query_schema):
    """The query's arguments for the use case, and those that page the answer."""
    arguments = load(query_schema, request.args.to_dict())
    return arguments, {k: arguments.pop(k) for k in ("cursor", "limit", "format") if k in arguments}


def _listed(query_schema, use_case):
    """The list `use_case` answers for the query's arguments, paged or as CSV."""
    arguments, paging = _arguments(query_schema)
    return _answer(use_case(db.session, current_principal(), **arguments), paging)


@bp.get("/v1/audit/missed-services")
@require(AUDIT_READ)
def missed_services():
    return _listed(schemas.MissedQuery(), audit.missed_services)


@bp.get("/v1/audit/findings")
@require(AUDIT_READ)
def findings():
    return _listed(schemas.FindingsQuery(), audit.findings)


@bp.get("/v1/audit/haulers/<hauler_id>/scorecard")
@require(AUDIT_READ)
def scorecard(hauler_id):
    args = load(schemas.ScorecardQuery(), request.args.to_dict())
    if _wants_csv(args):
        listing = audit.scorecard_sheet(db.session, current_principal(), hauler_id=_uuid(hauler_id), **args)
        return _sheet(listing.sheet(), listing.name)
    return audit.scorecard(db.session, current_principal(), hauler_id=_uuid(hauler_id), **args)


@bp.get("/v1/audit/frequency-recommendations")
@require(AUDIT_READ)
def frequency_recommendations():
    return _listed(schemas.RecommendationQuery(), audit.frequency_recommendations)


@bp.get("/v1/audit/disposal-reconciliation")
@require(AUDIT_READ)
def disposal_reconciliation():
    return _listed(schemas.ReconciliationQuery(), receipts.reconciliation)


@bp.get("/v1/haulers/me/due")
@require(MANIFESTS_READ, MANIFESTS_WRITE)
def due():
    arguments, paging = _arguments(schemas.DueQuery())
    if current_principal().role != "hauler":
        raise NotFound("Only haulers have a due list.")
    return _answer(audit.due_for_hauler(db.session, current_principal(), **arguments), paging)


@bp.get("/v1/fses/<fse_id>/service-status")
@require(RECORDS_READ, AUDIT_READ)
def service_status(fse_id):
    args = load(schemas.StatusQuery(), request.args.to_dict())
    fse = registry.get_fse(db.session, current_principal(), fse_id=fse_id)
    listing = audit.fse_status(db.session, current_principal(), fse=fse, as_of=args.get("as_of"))
    if _wants_csv(args):
        return _sheet(listing.sheet(), listing.name)
    page = listing.page()
    return {k: page[k] for k in ("fse_id", "as_of", "items")}


def _uuid(value):
    try:
        return uuid.UUID(str(value))
    except ValueError:
        raise NotFound("No such hauler within your reach.") from None
