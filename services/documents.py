"""Scans: checked by their bytes, stored content-addressed, attached, locked via the outbox."""
import re
import uuid
from dataclasses import dataclass
from datetime import date

from sqlalchemy import select

from api.errors import BadRequest, NotFound, ServiceUnavailable, UnsupportedMediaType, ValidationFailed
from domain.clock import now as clock_now
from domain.dates import add_years
from services import outbox
from storage.models import Document, Jurisdiction, Manifest, ManifestRevision
from storage.objects import MULTIPART_THRESHOLD, StoreUnavailable
from storage.uploads import HashingSpool, Passing, ShortBody, sniff

SHA256 = re.compile(r"[0-9a-f]{64}")
# Enough of a body to tell a PDF, JPEG, PNG or TIFF by its first bytes.
HEAD = 64 * 1024


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
        raise _store_down()


def _store_down():
    return ServiceUnavailable("The document store is unavailable; nothing was stored. Retry.",
                              headers={"Retry-After": "30"})


def _document(manifest_id, upload: Upload) -> Document:
    return Document(id=uuid.uuid4(), manifest_id=manifest_id, sha256=upload.key, size_bytes=upload.spool.size,
                    content_type=upload.content_type, object_key=upload.key,
                    filename=(upload.filename or None) and upload.filename[:255], uploaded_at=clock_now())


def attach(session, manifest: Manifest, uploads: list[Upload], *, service_day: date):
    """Document rows and their lock entries, in the caller's transaction."""
    jurisdiction = session.get(Jurisdiction, manifest.jurisdiction_id)
    until = add_years(service_day, jurisdiction.retention_years)
    have = {d.sha256 for d in manifest.documents}
    for upload in uploads:
        if upload.key in have:
            continue
        have.add(upload.key)
        manifest.documents.append(_document(manifest.id, upload))
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


def receive(session, principal, store, manifest_id, key, body, *, length, filename, limit):
    """One scan sent as the whole body of a PUT to its SHA-256: `(document, created)`.

    Where the store can take a body while it arrives (S3) and its length is declared, the
    bytes go up in one PUT as they are read, spooled and hashed on the way; the checks run on
    the spool once the store has them. An object this request wrote and that fails them is
    removed at once (it is unlocked and nothing references it); S3 itself refuses bytes that
    do not hash to the key. Otherwise the body is spooled first, checked, then stored.
    """
    target = _own_manifest(session, principal, manifest_id)
    if not SHA256.fullmatch(key):
        raise ValidationFailed("The document is named by its SHA-256: 64 lowercase hex digits.",
                               errors={"sha256": ["Must be 64 lowercase hex digits."]})
    existing = session.scalar(select(Document).where(Document.manifest_id == target.id,
                                                     Document.sha256 == key).limit(1))
    if existing is not None:
        return existing, False
    spool = HashingSpool(limit)
    try:
        upload = Upload(spool=spool, filename=filename, declared_sha256=key)
        head = body.read(HEAD if length is None else min(HEAD, length))
        if not head:
            raise ValidationFailed("The body is empty: send the scan's bytes.",
                                   errors={"body": ["Empty."]})
        upload.content_type = sniff(head)
        if upload.content_type is None:
            raise UnsupportedMediaType("The body is not a PDF, JPEG, PNG or TIFF file.")
        if store.streams and length is not None and length <= MULTIPART_THRESHOLD:
            _stream(store, upload, Passing(body, spool, length, head=head), length)
        else:
            _spool_then_put(store, upload, body, head)
        document = _document(target.id, upload)
        session.add(document)
        outbox.enqueue_lock(session, key=key, retain_until=add_years(target.service_day, target.retention_years))
        session.commit()
        return document, True
    finally:
        spool.close()


def _stream(store, upload: Upload, passing: Passing, length):
    spool, key = upload.spool, upload.declared_sha256  # the bytes are hashed only as they go
    try:
        try:
            wrote = store.put_stream(key, passing, length, upload.content_type)
        except StoreUnavailable:
            passing.drain()  # the whole body, to tell a refused checksum from a store that is down
            _check_one(upload)
            raise _store_down()
    except ShortBody:
        raise BadRequest(f"The body ended after {spool.size} of the {length} bytes declared.")
    try:
        _check_one(upload)
    except Exception:
        if wrote:
            store.delete(key)
        raise


def _spool_then_put(store, upload: Upload, body, head):
    spool = upload.spool
    spool.write(head)
    while chunk := body.read(1024 * 1024):
        spool.write(chunk)
    _check_one(upload)
    put_objects(store, [upload])


def _check_one(upload: Upload):
    defect = upload.spool.defect(upload.content_type)
    if defect:
        raise ValidationFailed(f"The body is not a sound scan: {defect}.", errors={"body": [defect]})
    if upload.declared_sha256 != upload.spool.sha256:
        raise ValidationFailed("The body does not match the SHA-256 it was sent to.",
                               errors={"sha256": [f"The body's SHA-256 is {upload.spool.sha256}."]})


@dataclass
class _Target:
    id: uuid.UUID
    retention_years: int
    service_day: date


def _own_manifest(session, principal, manifest_id) -> _Target:
    """The hauler's own manifest, with what a new scan's lock needs; 404 for anything else."""
    try:
        manifest_id = uuid.UUID(str(manifest_id))
    except ValueError:
        manifest_id = None
    row = manifest_id and principal.role == "hauler" and session.execute(
        select(Manifest.id, Jurisdiction.retention_years, ManifestRevision.service_completed_at)
        .join(Jurisdiction, Jurisdiction.id == Manifest.jurisdiction_id)
        .join(ManifestRevision, (ManifestRevision.manifest_id == Manifest.id)
              & (ManifestRevision.revision == Manifest.current_revision))
        .where(Manifest.id == manifest_id, Manifest.hauler_id == principal.hauler_id)).one_or_none()
    if not row:
        raise NotFound("No such manifest within your reach.")
    return _Target(row.id, row.retention_years, row.service_completed_at.date())


def find(session, manifest, document_id) -> Document:
    """The manifest's document named by its id or by its SHA-256."""
    document = next((d for d in manifest.documents if document_id in (str(d.id), d.sha256)), None)
    if document is None:
        raise NotFound("No such document within your reach.")
    return document
