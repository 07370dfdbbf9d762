"""Audit routes: missed services, findings, scorecards, frequency recommendations, due lists."""

import uuid

from flask import Blueprint, Response, request, stream_with_context

from api.downloads import disposition
from api.validation import load
from auth.protect import current_principal, require
from auth.scopes import AUDIT_READ, MANIFESTS_READ, MANIFESTS_WRITE, RECORDS_READ
from reports import table_csv
from schemas import audit as schemas
from services import audit, receipts, registry
from services.errors import NotFound
from storage.db import db

bp = Blueprint("audit", __name__)


def _wants_csv(args):
    requested = args.pop("format", None)
    if requested:
        return requested == "csv"
    return request.accept_mimetypes.best == "text/csv"


def _zone():
    """The caller's city's time zone (a hauler's: its first city's): a sheet's times are in it."""
    principal = current_principal()
    return (
        audit.zone_of(db.session, principal.jurisdiction_id)
        if principal.jurisdiction_id
        else audit.hauler_zone(db.session, principal.hauler_id)
    )


def _csv(rows, name):
    """Rows worked out here as a sheet."""
    return _sheet(table_csv.render(rows, zone=_zone()), name)


def _sheet(body, name):
    response = Response(stream_with_context(body), mimetype="text/csv")
    response.headers["Content-Disposition"] = disposition(f"{name}.csv")
    response.headers["Cache-Control"] = "no-store"
    return response


def _listing(query, args, name, **extra):
    if _wants_csv(args):
        return _sheet(audit.sheet(db.session, query, zone=_zone()), name)
    rows, cursor = audit.run_page(db.session, query, cursor=args.get("cursor"), limit=args["limit"])
    return {**extra, "items": rows, "next_cursor": cursor}


@bp.get("/v1/audit/missed-services")
@require(AUDIT_READ)
def missed_services():
    args = load(schemas.MissedQuery(), request.args.to_dict())
    paging = {k: args.pop(k) for k in ("cursor", "limit", "format") if k in args}
    mode, period, query = audit.missed_services(db.session, current_principal(), **args)
    return _listing(query, paging, f"missed-services-{mode}", mode=mode, **period)


@bp.get("/v1/audit/findings")
@require(AUDIT_READ)
def findings():
    args = load(schemas.FindingsQuery(), request.args.to_dict())
    paging = {k: args.pop(k) for k in ("cursor", "limit", "format") if k in args}
    query = audit.findings(db.session, current_principal(), **args)
    ordered = query.order_by("service_completed_at", "finding_id")
    if _wants_csv(paging):
        return _sheet(audit.sheet(db.session, ordered, zone=_zone()), "findings")
    counts = {code: count for code, count in db.session.execute(audit.queries.counts_by_code(query))}
    return _listing(ordered, paging, "findings", counts=counts)


@bp.get("/v1/audit/haulers/<hauler_id>/scorecard")
@require(AUDIT_READ)
def scorecard(hauler_id):
    args = load(schemas.ScorecardQuery(), request.args.to_dict())
    wants_csv = _wants_csv(args)
    card = audit.scorecard(db.session, current_principal(), _uuid(hauler_id), **args)
    if wants_csv:
        flat = {k: v for k, v in card.items() if k != "period"}
        return _csv([{**flat, "from": card["period"]["from"], "to": card["period"]["to"]}], "scorecard")
    return card


def _computed(query_schema, answer, name):
    """A list the service works out whole (`answer(**arguments)`: its basis and rows): as CSV,
    or a page of it."""
    args = load(query_schema, request.args.to_dict())
    paging = {k: args.pop(k) for k in ("cursor", "limit", "format") if k in args}
    basis, rows = answer(db.session, current_principal(), **args)
    if _wants_csv(paging):
        return _csv(rows, name)
    items, cursor = audit.page_of(rows, cursor=paging.get("cursor"), limit=paging["limit"])
    return {**basis, "items": items, "next_cursor": cursor}


@bp.get("/v1/audit/frequency-recommendations")
@require(AUDIT_READ)
def frequency_recommendations():
    return _computed(schemas.RecommendationQuery(), audit.frequency_recommendations, "frequency-recommendations")


@bp.get("/v1/audit/disposal-reconciliation")
@require(AUDIT_READ)
def disposal_reconciliation():
    return _computed(schemas.ReconciliationQuery(), receipts.reconciliation, "disposal-reconciliation")


@bp.get("/v1/haulers/me/due")
@require(MANIFESTS_READ, MANIFESTS_WRITE)
def due():
    principal = current_principal()
    args = load(schemas.DueQuery(), request.args.to_dict())
    if principal.role != "hauler":
        raise NotFound("Only haulers have a due list.")
    paging = {k: args.pop(k) for k in ("cursor", "limit", "format") if k in args}
    query = audit.due_for_hauler(db.session, principal, **args)
    return _listing(query, paging, "due", within_days=args["within_days"])


@bp.get("/v1/fses/<fse_id>/service-status")
@require(RECORDS_READ, AUDIT_READ)
def service_status(fse_id):
    args = load(schemas.StatusQuery(), request.args.to_dict())
    fse = registry.get_fse(db.session, current_principal(), fse_id)
    as_of, query = audit.fse_status(db.session, fse, as_of=args.get("as_of"))
    if _wants_csv(args):
        return _csv(audit.run_page(db.session, query)[0], "service-status")
    rows, _ = audit.run_page(db.session, query)
    return {"fse_id": str(fse.id), "as_of": as_of.isoformat(), "items": rows}


def _uuid(value):
    try:
        return uuid.UUID(str(value))
    except ValueError:
        raise NotFound("No such hauler within your reach.") from None
