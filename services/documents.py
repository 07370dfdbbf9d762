"""Scans: checked by their bytes, stored content-addressed, attached, locked via the outbox."""
from dataclasses import dataclass
from datetime import date

from api.errors import NotFound, ServiceUnavailable, UnsupportedMediaType, ValidationFailed
from domain.clock import now as clock_now
from domain.dates import add_years
from services import outbox
from storage.models import Document, Jurisdiction, Manifest
from storage.objects import StoreUnavailable
from storage.uploads import HashingSpool


@dataclass
class Upload:
    spool: HashingSpool
    filename: str | None
    declared_sha256: str | None = None
    content_type: str | None = None

    @property
    def key(self):
        return self.spool.sha256


def check(uploads: list[Upload]):
    """Every upload is a PDF, JPEG, PNG or TIFF by its bytes, and matches its declared hash."""
    mismatched = {}
    for index, upload in enumerate(uploads):
        upload.content_type = upload.spool.sniff()
        if upload.content_type is None:
            raise UnsupportedMediaType(
                f"documents[{index}] ({upload.filename or 'unnamed'}) is not a PDF, JPEG, PNG or "
                "TIFF file.")
        defect = upload.spool.defect(upload.content_type)
        if defect:
            raise ValidationFailed(f"documents[{index}] is not a sound scan: {defect}.",
                                   errors={f"documents.{index}": [defect]})
        if upload.declared_sha256 and upload.declared_sha256.lower() != upload.spool.sha256:
            mismatched[f"documents.{index}"] = [
                f"The SHA-256 is {upload.spool.sha256}, not {upload.declared_sha256}."]
    if mismatched:
        raise ValidationFailed("A document does not match the SHA-256 declared for it.",
                               errors=mismatched)


def put_objects(store, uploads: list[Upload]):
    """Write the objects, unlocked; an unreachable store is a 503 and nothing is committed."""
    try:
        for upload in uploads:
            store.put_file(upload.key, upload.spool.path, upload.content_type)
    except StoreUnavailable:
        raise ServiceUnavailable("The document store is unavailable; nothing was stored. Retry.",
                                 headers={"Retry-After": "30"})


def attach(session, manifest: Manifest, uploads: list[Upload], *, service_day: date):
    """Document rows and their lock entries, in the caller's transaction."""
    jurisdiction = session.get(Jurisdiction, manifest.jurisdiction_id)
    until = add_years(service_day, jurisdiction.retention_years)
    have = {d.sha256 for d in manifest.documents}
    for upload in uploads:
        if upload.key in have:
            continue
        have.add(upload.key)
        manifest.documents.append(Document(
            manifest_id=manifest.id, sha256=upload.key, size_bytes=upload.spool.size,
            content_type=upload.content_type, object_key=upload.key,
            filename=(upload.filename or None) and upload.filename[:255], uploaded_at=clock_now()))
        outbox.enqueue_lock(session, key=upload.key, retain_until=until)


def add(session, principal, store, manifest, uploads: list[Upload]):
    """Attach scans to the hauler's own manifest."""
    if principal.role != "hauler" or manifest.hauler_id != principal.hauler_id:
        raise NotFound("No such manifest within your reach.")
    if not uploads:
        raise ValidationFailed("No documents were sent.", errors={"documents": ["Send one or more files."]})
    check(uploads)
    put_objects(store, uploads)
    service_day = manifest.revisions[manifest.current_revision - 1].service_completed_at.date()
    attach(session, manifest, uploads, service_day=service_day)
    session.commit()


def find(session, manifest, document_id) -> Document:
    document = next((d for d in manifest.documents if str(d.id) == str(document_id)), None)
    if document is None:
        raise NotFound("No such document within your reach.")
    return document
