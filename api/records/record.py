"""`GET /v1/fses/{fse_id}/records`: an FSE's record as JSON, CSV, a PDF binder or a ZIP."""

import shutil

from flask import Blueprint, Response, current_app, request, stream_with_context

from api.downloads import disposition
from api.errors import NotAcceptable
from api.validation import load
from auth.protect import current_principal, require
from auth.ratelimit import per_client
from auth.scopes import RECORDS_READ
from reports import binder, record_csv, record_json, record_zip
from schemas.records import RecordQuery
from services.filing import documents
from services.people import access_log
from services.records import files as record_files
from services.records import record as records
from storage.db import db

bp = Blueprint("records", __name__)
FORMATS = {"json": "application/json", "csv": "text/csv", "pdf": "application/pdf", "zip": "application/zip"}
record_query = RecordQuery()


def _format(requested):
    if requested:
        return requested
    if not request.accept_mimetypes:
        return "json"
    best = request.accept_mimetypes.best_match(list(FORMATS.values()))
    if best is None:
        raise NotAcceptable(f"Records come as {', '.join(FORMATS.values())}.")
    return next((name for name, mime in FORMATS.items() if mime == best), "json")


def _chunks(handle, size=256 * 1024):
    try:
        while chunk := handle.read(size):
            yield chunk
    finally:
        handle.close()


def _attachment(response, record, extension):
    # Named by the restaurant, as people look for it; the parcel number tells two of a name apart.
    name = f"{record.fse.name} - fogx records {record.fse.apn} {record.period_from} to {record.period_to}.{extension}"
    response.headers["Content-Disposition"] = disposition(name)
    response.headers["Cache-Control"] = "no-store"
    return response


@bp.get("/v1/fses/<fse_id>/records")
@require(RECORDS_READ)
@per_client("exports")
def get_records(fse_id):
    args = load(record_query, request.args.to_dict())
    return _record(fse_id, _format(args.pop("format", None)), args)


@bp.get("/v1/fses/<fse_id>/records/<any(csv, pdf, zip):format>")
@require(RECORDS_READ)
@per_client("exports")
def download_records(fse_id, format):  # the path names it as the spec does
    """The record as one kind of file, an operation of its own: a client generated from the
    spec reads one kind of answer an operation. As bytes where `Accept` prefers them."""
    args = load(record_query, request.args.to_dict())
    args.pop("format", None)
    response = _record(fse_id, format, args)
    offered = [FORMATS[format], "application/octet-stream"]
    if request.accept_mimetypes.best_match(offered, default=FORMATS[format]) == "application/octet-stream":
        response.mimetype = "application/octet-stream"
    return response


def _record(fse_id, kind, args):
    record = records.for_caller(db.session, current_principal(), fse_id=fse_id, **args)
    access_log.note_read(
        current_app.extensions["fogx.engine"],
        current_principal(),
        fse_id=record.fse.id,
        format=kind,
        period_from=record.period_from,
        period_to=record.period_to,
    )
    store = current_app.extensions["fogx.store"]
    if kind == "json":
        response = current_app.json.response(record_json.render(record))
        response.headers["Cache-Control"] = "no-store"
        return response
    if kind == "csv":
        response = Response(stream_with_context(record_csv.render(record)), mimetype="text/csv")
        return _attachment(response, record, "csv")
    # Each scan as stored (its version), checked against its SHA-256 before it is used.
    open_scan = documents.opener(store, [d for m in record.manifests for d in m.documents])

    def make_pdf(handle):
        _copy(binder.render(record, open_scan), handle)

    def make_zip(handle):
        pdf, _ = record_files.file_of(store, record, kind="pdf", make=make_pdf)
        with pdf:
            _copy(record_zip.render(record, pdf, open_scan, record_json.render(record)), handle)

    # Made once for each state of the record, and kept (services/records/files.py).
    handle, size = record_files.file_of(store, record, kind=kind, make=make_pdf if kind == "pdf" else make_zip)
    response = Response(_chunks(handle), mimetype=FORMATS[kind])
    if size is not None:
        response.headers["Content-Length"] = str(size)
    return _attachment(response, record, kind)


def _copy(source, handle):
    """A file made elsewhere into `handle`: a file object (closed after) or an iterable of chunks."""
    if hasattr(source, "read"):
        with source:
            shutil.copyfileobj(source, handle, 1024 * 1024)
    else:
        for chunk in source:
            handle.write(chunk)
