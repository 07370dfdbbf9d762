"""`/v1/manifests`: haulers file pump-out manifests and corrections; others read them."""

import logging

from flask import Blueprint, Response, after_this_request, current_app, request, stream_with_context, url_for
from werkzeug.http import parse_options_header

from api import worker
from api.downloads import disposition
from api.errors import UnsupportedMediaType
from api.idempotency import idempotent
from api.validation import load, load_json, parse_json
from auth.protect import current_principal, require
from auth.ratelimit import per_client
from auth.scopes import AUDIT_READ, MANIFESTS_READ, MANIFESTS_WRITE, RECORDS_READ
from schemas.actors import actor_view
from schemas.corrections import correction_view
from schemas.manifest import CorrectionIn, ManifestIn, ManifestQuery
from schemas.manifest_views import document_view, receipt, revision_view
from services.errors import Invalid
from services.filing import corrections, documents, manifests
from services.outbound import outbox
from services.people import access_log
from storage.db import db

log = logging.getLogger("fogx.manifests")

bp = Blueprint("manifests", __name__, url_prefix="/v1/manifests")

READ = (MANIFESTS_READ, MANIFESTS_WRITE, RECORDS_READ, AUDIT_READ)
manifest_in, correction_in, manifest_query = ManifestIn(), CorrectionIn(), ManifestQuery()


def _receipt(manifest, due_by_device=None):
    """The receipt; `due_by_device`: the due days a list read for all its devices at once."""
    due_by_device = {} if due_by_device is None else due_by_device
    if manifest.device_id not in due_by_device:
        due_by_device[manifest.device_id] = manifests.due_of(db.session, manifest.device_id)
    device, due_by, time_zone = due_by_device[manifest.device_id]
    return receipt(manifest, manifests.current(manifest), device=device, due_by=due_by, time_zone=time_zone)


def _store():
    return current_app.extensions["fogx.store"]


def _noted(manifests_read, kind):
    """The read goes in the FSEs' access logs before the answer is sent."""
    access_log.note_manifest_reads(
        current_app.extensions["fogx.engine"], current_principal(), manifests=manifests_read, format=kind
    )


def _uploads():
    if "documents" in request.form:
        # A scan sent as text (a client that took the part for a string) would be lost unseen.
        raise Invalid(
            "Each of `documents` must be a file part (a Content-Disposition with a filename), not a text field.",
            errors={"documents": ["Send each scan as a file part, not a text field."]},
        )
    files = request.files.getlist("documents")
    declared = request.form.getlist("documents_sha256")
    if declared and len(declared) != len(files):
        raise Invalid(
            "Send one documents_sha256 per document, in order.",
            errors={"documents_sha256": [f"{len(declared)} hashes for {len(files)} documents."]},
        )
    return [
        documents.Upload(spool=f.stream, filename=f.filename, declared_sha256=declared[i] if declared else None)
        for i, f in enumerate(files)
    ]


def _manifest_body():
    """The manifest JSON: the whole body, or the `manifest` part of a multipart body."""
    if request.mimetype != "multipart/form-data":
        return load_json(manifest_in), []
    part = request.form.get("manifest")
    if part is None and "manifest" in request.files:
        part = request.files["manifest"].read(current_app.config["MAX_JSON_BYTES"] + 1)
    if part is None:
        raise Invalid("The multipart body has no `manifest` part.", errors={"manifest": ["Missing."]})
    raw = part.encode() if isinstance(part, str) else part
    data = parse_json(raw)
    if not isinstance(data, dict):
        raise Invalid("The manifest must be a JSON object.", errors={"manifest": ["Must be an object."]})
    return load(manifest_in, data), _uploads()


def _drain_soon():
    """Lock what was just committed, once the receipt has been sent: the lock is the outbox's
    job, not the hauler's wait. The process's outbox thread is woken then (woken earlier, it
    would take the interpreter from the request at its first socket write and hold the
    receipt back behind its own S3 requests); where no thread runs, the request drains after
    its response. Whatever fails here the worker and `outbox run` retry."""
    app = current_app._get_current_object()

    def drain():
        if worker.wake(app):
            return
        with app.app_context():
            try:
                outbox.drain(db.session, app.extensions["fogx.store"], limit=20)
            except Exception:  # the 201 stands
                db.session.rollback()
                log.warning("outbox drain after upload failed", exc_info=True)

    @after_this_request
    def _after_sending(response):
        response.call_on_close(drain)
        return response


@bp.post("")
@require(MANIFESTS_WRITE)
@per_client("submissions")
@idempotent
def submit():
    data, uploads = _manifest_body()
    filed = manifests.submit(db.session, current_principal(), data=data, store=_store(), uploads=uploads)
    if uploads:
        _drain_soon()
    answer = receipt(
        filed.manifest, filed.revision, device=filed.device, due_by=filed.due_by, time_zone=filed.time_zone
    )
    if not filed.created:
        return answer, 200
    return answer, 201, {"Location": url_for("manifests.get_manifest", manifest_id=filed.manifest.id)}


@bp.get("")
@require(*READ)
def list_manifests():
    args = load(manifest_query, request.args.to_dict())
    rows, cursor = manifests.listing(db.session, current_principal(), **args)
    _noted(rows, "manifests")
    due_by_device = manifests.dues(db.session, {row.device_id for row in rows})
    return {"items": [_receipt(row, due_by_device) for row in rows], "next_cursor": cursor}


@bp.get("/<manifest_id>")
@require(*READ)
def get_manifest(manifest_id):
    manifest = manifests.get(db.session, current_principal(), manifest_id=manifest_id)
    _noted([manifest], "manifest")
    waiting = corrections.pending_of(db.session, manifest)
    return {**_receipt(manifest), "pending_corrections": [correction_view(row, manifest) for row in waiting]}


@bp.post("/<manifest_id>/corrections")
@require(MANIFESTS_WRITE)
@per_client("submissions")
@idempotent
def correct(manifest_id):
    outcome = corrections.correct(
        db.session, current_principal(), manifest_id=manifest_id, data=load_json(correction_in)
    )
    if outcome.proposal is not None:
        location = url_for(
            "manifests.get_correction", manifest_id=outcome.manifest.id, correction_id=outcome.proposal.id
        )
        return correction_view(outcome.proposal, outcome.manifest), 202, {"Location": location}
    if outcome.created and outcome.manifest.documents:
        _drain_soon()  # a later service lengthens the scans' locks
    return _receipt(outcome.manifest), 201 if outcome.created else 200


@bp.get("/<manifest_id>/corrections/<correction_id>")
@require(*READ)
def get_correction(manifest_id, correction_id):
    manifest, row = corrections.of_manifest(
        db.session, current_principal(), manifest_id=manifest_id, correction_id=correction_id
    )
    _noted([manifest], "correction")
    return correction_view(row, manifest)


@bp.post("/<manifest_id>/documents")
@require(MANIFESTS_WRITE)
@per_client("submissions")
@idempotent
def add_documents(manifest_id):
    if request.mimetype != "multipart/form-data":
        raise UnsupportedMediaType("Send documents as multipart/form-data `documents` parts.")
    manifest = manifests.get(db.session, current_principal(), manifest_id=manifest_id)
    documents.add(db.session, current_principal(), store=_store(), manifest=manifest, uploads=_uploads())
    _drain_soon()
    return _receipt(manifest), 201


@bp.put("/<manifest_id>/documents/<document_id>")
@require(MANIFESTS_WRITE)
@per_client("submissions")
def put_document(manifest_id, document_id):
    """One scan as the raw body, sent to its SHA-256 (which names the document as well as its
    id does): stored while it arrives, then checked."""
    _, options = parse_options_header(request.headers.get("Content-Disposition", ""))
    principal = current_principal()
    document, created = documents.receive(
        db.session,
        principal,
        store=_store(),
        manifest_id=manifest_id,
        key=document_id,
        body=_scan_body(),
        length=request.content_length,
        filename=options.get("filename"),
        limit=current_app.config["MAX_UPLOAD_BYTES"],
    )
    if created:
        _drain_soon()
    view = document_view(document)
    if created and principal.person_id is None:
        view["uploaded_by"] = actor_view(principal, None)  # a program sent it: the caller itself
    location = url_for("manifests.get_document", manifest_id=document.manifest_id, document_id=document.id)
    return view, 201 if created else 200, {"Location": location}


def _scan_body():
    """The body of a scan PUT. With its length declared, `documents.receive` reads exactly that
    many bytes, so they come straight from the server's stream: werkzeug's wrapper, which
    stops at the length, would copy every block twice more on the way."""
    stream = request.stream  # a declared length over MAX_CONTENT_LENGTH is refused here (413)
    return stream if request.content_length is None else request.environ["wsgi.input"]


@bp.get("/<manifest_id>/documents/<document_id>")
@require(*READ)
def get_document(manifest_id, document_id):
    manifest = manifests.get(db.session, current_principal(), manifest_id=manifest_id)
    document = documents.find(db.session, manifest, document_id=document_id)
    body = documents.open_scan(_store(), document)  # checked whole before a byte is sent
    _noted([manifest], "scan")
    # A client that reads any scan as bytes may ask for them as such rather than by their type.
    offered = [document.content_type, "application/octet-stream"]
    mimetype = request.accept_mimetypes.best_match(offered, default=document.content_type)
    response = Response(stream_with_context(_chunks(body)), mimetype=mimetype)
    response.headers["Content-Length"] = str(document.size_bytes)
    response.headers["ETag"] = f'"{document.sha256}"'
    response.headers["Cache-Control"] = "no-store"
    response.headers["Content-Disposition"] = disposition(document.sha256[:12], "inline")
    return response


def _chunks(body, size=256 * 1024):
    try:
        while chunk := body.read(size):
            yield chunk
    finally:
        body.close()


@bp.get("/<manifest_id>/revisions")
@require(*READ)
def revisions(manifest_id):
    manifest = manifests.get(db.session, current_principal(), manifest_id=manifest_id)
    _noted([manifest], "revisions")
    return {"items": [revision_view(r) for r in manifest.revisions]}
