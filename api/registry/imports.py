"""`POST /v1/imports/<kind>`: a registry CSV uploaded by a city admin."""

import hashlib

from flask import Blueprint, request

from api.errors import UnsupportedMediaType
from api.idempotency import idempotent
from auth.protect import current_principal, require
from auth.scopes import REGISTRY_WRITE
from services.errors import Invalid, NotFound
from services.registry.import_rows import KINDS, ImportError_, read_rows
from services.registry.imports import import_as
from storage.db import db

bp = Blueprint("imports", __name__, url_prefix="/v1/imports")


def _file_fingerprint():
    """The kind and the file's bytes: a retry of the same file replays its report, another
    file under the same key is refused."""
    digest = hashlib.sha256(f"{request.method} {request.path}\n".encode())
    upload = request.files.get("file") if request.mimetype == "multipart/form-data" else None
    if upload is not None:
        for chunk in iter(lambda: upload.stream.read(1 << 16), b""):
            digest.update(chunk)
        upload.stream.seek(0)
    return digest.hexdigest()


@bp.post("/<kind>")
@require(REGISTRY_WRITE)
@idempotent(fingerprint=_file_fingerprint)
def import_csv(kind):
    if kind not in KINDS:
        raise NotFound(f"No import of that kind; one of {', '.join(KINDS)}.")
    if request.mimetype != "multipart/form-data":
        raise UnsupportedMediaType("Send the CSV as multipart/form-data in a `file` part.")
    upload = request.files.get("file")
    if upload is None:
        raise Invalid("The CSV is missing.", errors={"file": ["Missing a `file` part."]})
    try:
        rows = read_rows(upload.stream, kind)
    except ImportError_ as error:
        raise Invalid(str(error), errors={"file": [str(error)]}) from error
    report = import_as(db.session, current_principal(), kind=kind, rows=rows)
    return report.as_dict()
