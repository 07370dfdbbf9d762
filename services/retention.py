"""Retention: records leave only through a purge an admin runs, past `retention_years`,
never under a legal hold (Colusa 15A-16(I); San Clemente 13.30.050(H)(1)(c); Victorville
10.03.170(c))."""
import uuid

from sqlalchemy import and_, delete, or_, select

from domain.clock import now as clock_now
from services import changes
from domain.dates import add_years
from storage.models import (
    Change,
    Document,
    Finding,
    Fse,
    Jurisdiction,
    LegalHold,
    Manifest,
    ManifestRevision,
)
from storage.objects import StoreUnavailable


class HoldError(ValueError):
    pass


def _target(session, target_id):
    try:
        target_id = uuid.UUID(str(target_id))
    except ValueError:
        raise HoldError(f"{target_id!r} is not an id")
    if session.get(Fse, target_id):
        return {"fse_id": target_id}
    if session.get(Manifest, target_id):
        return {"manifest_id": target_id}
    raise HoldError(f"no FSE or manifest {target_id}")


def hold(session, target_id, *, reason) -> LegalHold:
    row = LegalHold(reason=reason, placed_at=clock_now(), **_target(session, target_id))
    session.add(row)
    session.commit()
    return row


def release(session, target_id) -> int:
    target = _target(session, target_id)
    column = LegalHold.fse_id if "fse_id" in target else LegalHold.manifest_id
    holds = session.scalars(select(LegalHold).where(column == next(iter(target.values())),
                                                    LegalHold.released_at.is_(None))).all()
    for row in holds:
        row.released_at = clock_now()
    session.commit()
    return len(holds)


def active_holds(session):
    return session.scalars(select(LegalHold).where(LegalHold.released_at.is_(None))
                           .order_by(LegalHold.placed_at)).all()


def expired(session, today):
    """(manifest, held) for every manifest whose latest service is past its city's retention."""
    held_fses = select(LegalHold.fse_id).where(LegalHold.released_at.is_(None), LegalHold.fse_id.is_not(None))
    held_manifests = select(LegalHold.manifest_id).where(LegalHold.released_at.is_(None),
                                                         LegalHold.manifest_id.is_not(None))
    rows = session.execute(
        select(Manifest, ManifestRevision.service_completed_at, Jurisdiction.retention_years,
               or_(Manifest.fse_id.in_(held_fses), Manifest.id.in_(held_manifests)))
        .join(ManifestRevision, and_(ManifestRevision.manifest_id == Manifest.id,
                                     ManifestRevision.revision == Manifest.current_revision))
        .join(Jurisdiction, Jurisdiction.id == Manifest.jurisdiction_id)
        .order_by(ManifestRevision.service_completed_at)
    ).all()
    for manifest, completed, years, held in rows:
        if add_years(completed.date(), years) < today:
            yield manifest, bool(held)


def purge(session, store, *, dry_run=False, progress=None) -> dict:
    """Remove expired, unheld manifests with their revisions, findings, documents and scans."""
    today = clock_now().date()
    summary = {"expired": 0, "held": 0, "purged": 0, "objects_removed": 0, "objects_refused": 0}
    candidates = list(expired(session, today))
    for manifest, held in candidates:
        summary["expired"] += 1
        if held:
            summary["held"] += 1
        elif not dry_run:
            _remove(session, store, manifest, summary)
            summary["purged"] += 1
        if progress:
            progress(1)
    if dry_run:
        summary["purged"] = summary["expired"] - summary["held"]
    return summary


def _remove(session, store, manifest, summary):
    keys = set(session.scalars(select(Document.object_key).where(Document.manifest_id == manifest.id)))
    revision_ids = select(ManifestRevision.id).where(ManifestRevision.manifest_id == manifest.id)
    session.execute(delete(Finding).where(Finding.revision_id.in_(revision_ids)))
    session.execute(delete(Document).where(Document.manifest_id == manifest.id))
    session.execute(delete(ManifestRevision).where(ManifestRevision.manifest_id == manifest.id))
    session.execute(delete(LegalHold).where(LegalHold.manifest_id == manifest.id))
    # What the feed said of it goes with it; that it was purged stays, for those who copied it.
    session.execute(delete(Change).where(Change.manifest_id == manifest.id))
    changes.record(session, manifest, changes.PURGED, at=clock_now())
    session.execute(delete(Manifest).where(Manifest.id == manifest.id))
    session.commit()
    still_used = set(session.scalars(select(Document.object_key).where(Document.object_key.in_(keys))))
    for key in keys - still_used:
        try:
            store.delete(key)
            summary["objects_removed"] += 1
        except StoreUnavailable:
            summary["objects_refused"] += 1  # still locked, or the store is down: the sweeper retries


