"""Scans: checked by their bytes, stored content-addressed, attached, locked via the outbox,
and read back as the version stored, checked against their SHA-256."""

import logging
import re
import uuid
from dataclasses import dataclass
from datetime import date

from sqlalchemy import bindparam, func, select
from sqlalchemy.exc import IntegrityError

from domain.clock import now as clock_now
from domain.dates import add_years, local_date
from services.audit import changes
from services.errors import Altered, Incomplete, Invalid, NotFound, Unavailable, Unsupported
from services.outbound import outbox
from services.records import retention
from storage import reach
from storage.db import threads
from storage.models import Document, Jurisdiction, Manifest, ManifestRevision, new_id, unflushed
from storage.objects import CHUNK, MULTIPART_THRESHOLD, StoreUnavailable
from storage.prebuilt import Prebuilt, insert_rows
from storage.uploads import HashingSpool, Passing, ShortBody, sniff
from storage.verified import ScanAltered, read_verified

log = logging.getLogger("fogx.documents")
SHA256 = re.compile(r"[0-9a-f]{64}")
# Enough of a body to tell a PDF, JPEG, PNG or TIFF by its first bytes.
HEAD = 64 * 1024


@dataclass
class Upload:
    spool: HashingSpool
    filename: str | None
    declared_sha256: str | None = None
    content_type: str | None = None
    version_id: str | None = None  # the store's version that holds the bytes, once stored

    @property
    def key(self):
        return self.spool.sha256


def check(uploads: list[Upload]):
    """Every upload is a PDF, JPEG, PNG or TIFF by its bytes, and matches its declared hash."""
    mismatched = {}
    for index, upload in enumerate(uploads):
        upload.content_type = upload.spool.sniff()
        if upload.content_type is None:
            raise Unsupported(
                f"documents[{index}] ({upload.filename or 'unnamed'}) is not a PDF, JPEG, PNG or TIFF file."
            )
        defect = upload.spool.defect(upload.content_type)
        if defect:
            raise Invalid(f"documents[{index}] is not a sound scan: {defect}.", errors={f"documents.{index}": [defect]})
        if upload.declared_sha256 and upload.declared_sha256.lower() != upload.spool.sha256:
            mismatched[f"documents.{index}"] = [f"The SHA-256 is {upload.spool.sha256}, not {upload.declared_sha256}."]
    if mismatched:
        raise Invalid("A document does not match the SHA-256 declared for it.", errors=mismatched)


def put_objects(store, uploads: list[Upload]):
    """Write the objects, unlocked; an unreachable store is a 503 and nothing is committed."""
    try:
        for upload in uploads:
            upload.version_id = store.put_file(upload.key, upload.spool.path, upload.content_type).version_id
    except StoreUnavailable:
        raise _store_down() from None


def _store_down():
    return Unavailable("The document store is unavailable; nothing was stored. Retry.", retry_after=30)


def _document_columns(manifest_id, *, key, size, content_type, filename, version_id, by) -> dict:
    """A document's row; `by`, the principal who sent it (its client, and person if any)."""
    return dict(
        id=new_id(),
        manifest_id=manifest_id,
        sha256=key,
        size_bytes=size,
        content_type=content_type,
        object_key=key,
        object_version_id=version_id,
        filename=(filename or None) and filename[:255],
        uploaded_at=clock_now(),
        uploaded_by_client_id=by.client_pk,
        uploaded_by_person_id=by.person_id,
    )


def attach(session, manifest: Manifest, *, uploads: list[Upload], service_day: date, by):
    """Document rows and their lock entries, in the caller's transaction."""
    jurisdiction = session.get(Jurisdiction, manifest.jurisdiction_id)
    # Never shorter than the record is kept: a correction may have dated the service earlier.
    until = add_years(
        max(service_day, retention.record_kept_from(jurisdiction, manifest)), jurisdiction.retention_years
    )
    have = {d.sha256 for d in manifest.documents}
    attached = []
    for upload in uploads:
        if upload.key in have:
            continue
        have.add(upload.key)
        attached.append(upload.key)
        manifest.documents.append(
            Document(
                **_document_columns(
                    manifest.id,
                    key=upload.key,
                    size=upload.spool.size,
                    content_type=upload.content_type,
                    filename=upload.filename,
                    version_id=upload.version_id,
                    by=by,
                )
            )
        )
        outbox.enqueue_lock(session, key=upload.key, retain_until=until)
    if attached:
        changes.record(
            session,
            manifest,
            kind=changes.DOCUMENTS_ATTACHED,
            at=clock_now(),
            revision=manifest.current_revision,
            documents=attached,
        )


def add(session, principal, *, store, manifest, uploads: list[Upload]):
    """Attach scans to the hauler's own manifest."""
    if principal.role != "hauler" or manifest.hauler_id != principal.hauler_id:
        raise NotFound("No such manifest within your reach.")
    if not uploads:
        raise Invalid("No documents were sent.", errors={"documents": ["Send one or more files."]})
    check(uploads)
    put_objects(store, uploads)
    zone = session.get(Jurisdiction, manifest.jurisdiction_id).time_zone
    service_day = local_date(manifest.revisions[manifest.current_revision - 1].service_completed_at, zone)
    try:
        attach(session, manifest, uploads=uploads, service_day=service_day, by=principal)
        session.commit()
    except IntegrityError:  # a scan attached by another request meanwhile: attach the rest
        session.rollback()
        session.refresh(manifest, ["documents"])
        attach(session, manifest, uploads=uploads, service_day=service_day, by=principal)
        session.commit()


def receive(session, principal, *, store, manifest_id, key, body, length, filename, limit):
    """One scan sent as the whole body of a PUT to its SHA-256: `(document, created)`.

    Where the store can take a body while it arrives (S3) and its length is declared, the
    bytes go up in one PUT as they are read, spooled and hashed on the way; the checks run
    on the spool once the store has the bytes, and only then are the rows written. An object
    this request wrote and that fails them is removed at once (it is unlocked and nothing
    references it); S3 itself refuses bytes that do not hash to the key. Otherwise the body
    is spooled first, checked, then stored.
    """
    target = _own_manifest(session, principal, manifest_id, key)
    if target.document_id is not None:
        return session.get(Document, target.document_id), False
    spool = HashingSpool(limit, memory=HashingSpool.ONE_SCAN_MEMORY)
    try:
        upload = Upload(spool=spool, filename=filename, declared_sha256=key)
        head = body.read(HEAD if length is None else min(HEAD, length))
        if not head:
            raise Invalid("The body is empty: send the scan's bytes.", errors={"body": ["Empty."]})
        upload.content_type = sniff(head)
        if upload.content_type is None:
            raise Unsupported("The body is not a PDF, JPEG, PNG or TIFF file.")
        if store.streams and length is not None and length <= MULTIPART_THRESHOLD:
            document = _stream(session, store, target, upload, Passing(body, spool, length, head=head), length)
        else:
            _spool_then_put(store, upload, body, head, length)
            document = _add_rows(session.connection(), target, upload, size=spool.size)
        session.commit()
        if principal.person_id is not None:  # the person's name, read back with the row just written
            document = session.get(Document, document.id) or document
        return document, True
    except IntegrityError:  # the same scan, attached by another request meanwhile
        session.rollback()
        existing = session.scalar(select(Document).where(Document.manifest_id == target.id, Document.sha256 == key))
        if existing is None:
            raise
        return existing, False
    except Exception:
        session.rollback()
        raise
    finally:
        spool.close()


def _stream(session, store, target, upload: Upload, passing: Passing, length) -> Document:
    """The request's thread sends the PUT (the upload's critical path, with no hand-over to
    another thread at either end) while a helper hashes, spools and checks the blocks as the
    PUT reads them. The rows are written once the store holds bytes that passed, naming the
    version that holds them: one statement, which commits by itself where nothing else is open.
    The helper builds them while S3 takes the bytes in; only the version is left for after."""
    key = upload.declared_sha256
    connection = session.connection()
    beside = threads("fogx-put", 8).submit(_spool_as_read, target, upload, passing, length)
    try:
        try:
            stored = store.put_stream(key, passing, length, upload.content_type)
        except StoreUnavailable:
            stored = None
        finally:
            passing.stop_handing()
            # The helper uses the spool: it is done before the spool is used again.
            verdict, rows = beside.result()
        # The rest of the body: none of it if the store answered first (the key is there), all
        # of it after a failure, to tell a refused checksum from a store that is down.
        passing.drain()
    except ShortBody:
        raise Incomplete(f"The body ended after {upload.spool.size} of the {length} bytes declared.") from None
    if verdict is None:
        verdict = _verdict(upload)
    if stored is None:
        raise verdict or _store_down()
    if verdict:
        if stored.wrote:
            store.delete(key)
        raise verdict
    upload.version_id = stored.version_id
    rows = rows or _rows(target, upload, size=length)
    document = rows[0]
    document.__dict__["object_version_id"] = stored.version_id  # as `unflushed` sets it
    insert_rows(connection, rows, alone=True)
    return document


def _spool_as_read(target, upload: Upload, passing: Passing, length):
    """`(verdict, rows)`: the body hashed and spooled as the PUT reads it, then checked if it
    came whole, and the rows of a scan that passed; the verdict is None (and the rows too)
    when it did not come whole: the caller checks it once it has drained it."""
    passing.spool_as_read()
    if not passing.complete:
        return None, None
    verdict = _verdict(upload)
    return verdict, None if verdict else _rows(target, upload, size=length)


def _add_rows(connection, target, upload: Upload, *, size) -> Document:
    """The document, its lock entry and its change, written without the unit of work: all that
    the transaction writes (`alone`, see `storage.prebuilt.insert_rows`)."""
    rows = _rows(target, upload, size=size)
    insert_rows(connection, rows, alone=True)
    return rows[0]


def _rows(target, upload: Upload, *, size) -> tuple:
    """`(document, lock entry, change)` of a scan, unflushed."""
    document = unflushed(
        Document,
        retained_until=None,
        **_document_columns(
            target.id,
            key=upload.declared_sha256,
            size=size,
            content_type=upload.content_type,
            filename=upload.filename,
            version_id=upload.version_id,
            by=target.by,
        ),
    )
    lock = outbox.lock_row(key=document.sha256, retain_until=add_years(target.service_day, target.retention_years))
    change = changes.entry(
        target,
        changes.DOCUMENTS_ATTACHED,
        at=document.uploaded_at,
        revision=target.current_revision,
        documents=[document.sha256],
    )
    return document, lock, change


def _spool_then_put(store, upload: Upload, body, head, length):
    """Spool the body (exactly `length` bytes where declared, the rest after `head`), check
    it, then store it."""
    spool = upload.spool
    spool.write(head)
    left = None if length is None else length - len(head)
    while left is None or left > 0:
        chunk = body.read(CHUNK if left is None else min(CHUNK, left))
        if not chunk:
            break
        spool.write(chunk)
        if left is not None:
            left -= len(chunk)
    if left:
        raise Incomplete(f"The body ended after {spool.size} of the {length} bytes declared.")
    if verdict := _verdict(upload):
        raise verdict
    put_objects(store, [upload])


def _verdict(upload: Upload) -> Invalid | None:
    """Why the spooled body is refused (no sound scan, or not the bytes of its SHA-256), or None."""
    defect = upload.spool.defect(upload.content_type)
    if defect:
        return Invalid(f"The body is not a sound scan: {defect}.", errors={"body": [defect]})
    if upload.declared_sha256 != upload.spool.sha256:
        return Invalid(
            "The body does not match the SHA-256 it was sent to.",
            errors={"sha256": [f"The body's SHA-256 is {upload.spool.sha256}."]},
        )
    return None


def _latest_service():
    """The latest service any revision of the manifest had: a scan is locked at least as long
    as its record is kept."""
    return (
        select(func.max(ManifestRevision.service_completed_at))
        .where(ManifestRevision.manifest_id == Manifest.id)
        .correlate(Manifest)
        .scalar_subquery()
    )


# The hauler's own manifest, what a new scan's lock needs, and the scan if it is attached.
def _target(hauler_id):
    """The manifest a scan is sent to, if it is the hauler's, and its document of that key."""
    return (
        select(
            Manifest.id,
            Manifest.manifest_number,
            Manifest.current_revision,
            Manifest.hauler_id,
            Manifest.fse_id,
            Manifest.jurisdiction_id,
            Jurisdiction.retention_years,
            ManifestRevision.service_completed_at,
            Document.id.label("document_id"),
            Manifest.created_at,
            Jurisdiction.time_zone,
            _latest_service().label("latest_service_at"),
        )
        .join(Jurisdiction, Jurisdiction.id == Manifest.jurisdiction_id)
        .join(
            ManifestRevision,
            (ManifestRevision.manifest_id == Manifest.id) & (ManifestRevision.revision == Manifest.current_revision),
        )
        .outerjoin(Document, (Document.manifest_id == Manifest.id) & (Document.sha256 == bindparam("key")))
        .where(Manifest.id == bindparam("manifest_id"), Manifest.hauler_id == hauler_id)
        .limit(1)
    )


def _target_params(manifest_id, document_id):
    try:
        return {"manifest_id": uuid.UUID(str(manifest_id)), "key": document_id}
    except ValueError:
        return None


_TARGET = Prebuilt(_target(bindparam("hauler_id")))


@dataclass
class _Target:
    """The manifest a scan is sent to: what its rows and its change name."""

    id: uuid.UUID
    manifest_number: str
    current_revision: int
    hauler_id: uuid.UUID
    fse_id: uuid.UUID
    jurisdiction_id: uuid.UUID
    retention_years: int
    service_day: date
    document_id: uuid.UUID | None
    by: object = None  # the principal sending the scan


def _own_manifest(session, principal, manifest_id, key) -> _Target:
    """The hauler's own manifest; 404 for anything else, then 422 for a malformed key."""
    params = _target_params(manifest_id, key)
    row = None
    if params is not None and principal.role == "hauler":
        row = _TARGET.first(session.connection(), {**params, "hauler_id": principal.hauler_id})
    if row is not None and reach.city_scope(principal) not in (None, row.jurisdiction_id):
        row = None  # the hauler's filing in a city this person's membership does not reach
    if row is None:
        raise NotFound("No such manifest within your reach.")
    if not SHA256.fullmatch(key):
        raise Invalid(
            "The document is named by its SHA-256: 64 lowercase hex digits.",
            errors={"sha256": ["Must be 64 lowercase hex digits."]},
        )
    # The city's days: the latest service it ever had is on or after the current one's.
    service_day = retention.kept_from(row.created_at, row.latest_service_at, time_zone=row.time_zone)
    return _Target(
        row.id,
        row.manifest_number,
        row.current_revision,
        row.hauler_id,
        row.fse_id,
        row.jurisdiction_id,
        row.retention_years,
        service_day,
        row.document_id,
        principal,
    )


def open_scan(store, document: Document):
    """The scan's bytes as stored (its version, where the store keeps versions), read whole and
    checked against its SHA-256 before any is served: a readable, rewound file to close. Bytes
    that are not the scan's are never given out: a 502, and an error in the log."""
    try:
        return read_verified(
            store,
            document.object_key,
            sha256=document.sha256,
            size=document.size_bytes,
            version_id=document.object_version_id,
        )
    except ScanAltered as altered:
        log.error(
            "STORED SCAN FAILED ITS INTEGRITY CHECK: document %s of manifest %s: %s",
            document.id,
            document.manifest_id,
            altered,
        )
        raise Altered(
            f"The stored scan {document.id} failed its integrity check: the store holds other bytes than "
            "those received, and they are not served."
        ) from None
    except (StoreUnavailable, KeyError, FileNotFoundError):
        raise Unavailable("The document store is unavailable.", retry_after=30) from None


def opener(store, documents):
    """`open_scan` by object key, for the renderers that name a scan by its key."""
    by_key = {document.object_key: document for document in documents}
    return lambda key: open_scan(store, by_key[key])


def find(session, manifest, *, document_id) -> Document:
    """The manifest's document named by its id or by its SHA-256."""
    document = next((d for d in manifest.documents if document_id in (str(d.id), d.sha256)), None)
    if document is None:
        raise NotFound("No such document within your reach.")
    return document
