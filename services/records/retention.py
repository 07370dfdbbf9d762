"""Retention: records leave only through a purge an admin runs, past `retention_years`,
never under a legal hold (three years: Colusa 15A-16(I), San Clemente 13.30.050(H)(1)(c),
Tracy 5.26 records; exchange policy elsewhere, Victorville 10.03.170(c) asking only two).

A record is judged by everything it ever was, not by its latest revision: it is kept for
`retention_years` past its first filing or the latest service any revision gave it, whichever
is later, and a hold on any FSE or permit any revision named keeps it (exchange policy:
nothing a hauler sends can shorten how long a record is kept).
"""

import uuid
from dataclasses import dataclass
from datetime import date, timedelta

from sqlalchemy import delete, func, select

from domain.clock import now as clock_now
from domain.dates import add_years, local_date, start_of_day
from services.audit import changes
from storage.corrections import PENDING, PendingCorrection
from storage.models import (
    Change,
    Device,
    Document,
    Finding,
    Fse,
    Jurisdiction,
    LegalHold,
    Manifest,
    ManifestRevision,
    Permit,
)
from storage.objects import StoreUnavailable

_CHUNK = 500


class HoldError(ValueError):
    pass


# How long a record is kept ------------------------------------------------------------------


def kept_from(first_received_at, latest_service_at, *, time_zone) -> date:
    """The day a record's retention counts from: its first filing or the latest service it
    ever had, whichever is later, read as the city's local date."""
    return max(local_date(first_received_at, time_zone), local_date(latest_service_at, time_zone))


def kept_until(first_received_at, latest_service_at, *, years, time_zone) -> date:
    """The last day a record must be kept."""
    return add_years(kept_from(first_received_at, latest_service_at, time_zone=time_zone), years)


def record_kept_from(jurisdiction: Jurisdiction, manifest: Manifest) -> date:
    """`kept_from` of a manifest whose revisions are loaded."""
    revisions = manifest.revisions
    return kept_from(
        revisions[0].received_at, max(r.service_completed_at for r in revisions), time_zone=jurisdiction.time_zone
    )


def record_kept_until(jurisdiction: Jurisdiction, manifest: Manifest) -> date:
    return add_years(record_kept_from(jurisdiction, manifest), jurisdiction.retention_years)


# Holds --------------------------------------------------------------------------------------


_KINDS = (("fse_id", Fse, "FSE"), ("permit_id", Permit, "permit"), ("manifest_id", Manifest, "manifest"))


def _target(session, target_id):
    try:
        target_id = uuid.UUID(str(target_id))
    except ValueError:
        raise HoldError(f"{target_id!r} is not an id") from None
    for column, model, _ in _KINDS:
        if session.get(model, target_id):
            return column, target_id
    raise HoldError(f"no FSE, permit or manifest {target_id}")


def target_kind(hold: LegalHold) -> tuple[str, uuid.UUID]:
    """What a hold is placed on: ("FSE" | "permit" | "manifest", its id)."""
    for column, _, kind in _KINDS:
        if getattr(hold, column) is not None:
            return kind, getattr(hold, column)
    raise ValueError("a hold with no target")


def hold(session, target_id, *, reason) -> LegalHold:
    column, target = _target(session, target_id)
    row = LegalHold(reason=reason, placed_at=clock_now(), **{column: target})
    session.add(row)
    session.commit()
    return row


def release(session, target_id) -> int:
    column, target = _target(session, target_id)
    holds = session.scalars(
        select(LegalHold).where(getattr(LegalHold, column) == target, LegalHold.released_at.is_(None))
    ).all()
    for row in holds:
        row.released_at = clock_now()
    session.commit()
    return len(holds)


def active_holds(session):
    return session.scalars(select(LegalHold).where(LegalHold.released_at.is_(None)).order_by(LegalHold.placed_at)).all()


@dataclass(frozen=True)
class Named:
    """Every FSE and permit a manifest's revisions ever named."""

    fse_ids: frozenset
    permit_ids: frozenset


def named_by(session, manifest_ids) -> dict:
    """`Named` of each manifest: its own FSE and permit, each revision's device's, and the
    permits each revision's hashed body names by number in the manifest's city."""
    manifest_ids = list(manifest_ids)
    fses, permits, numbers, cities = {}, {}, {}, {}
    for start in range(0, len(manifest_ids), _CHUNK):
        chunk = manifest_ids[start : start + _CHUNK]
        for manifest_id, fse_id, permit_id, city in session.execute(
            select(Manifest.id, Manifest.fse_id, Manifest.permit_id, Manifest.jurisdiction_id).where(
                Manifest.id.in_(chunk)
            )
        ):
            fses.setdefault(manifest_id, set()).add(fse_id)
            permits.setdefault(manifest_id, set()).add(permit_id)
            cities.setdefault(manifest_id, set()).add(city)
        for manifest_id, fse_id, permit_id, number in session.execute(
            select(
                ManifestRevision.manifest_id,
                Device.fse_id,
                Device.permit_id,
                ManifestRevision.body[("manifest", "permit_number")].as_string(),
            )
            .join(Device, Device.id == ManifestRevision.device_id)
            .where(ManifestRevision.manifest_id.in_(chunk))
        ):
            fses[manifest_id].add(fse_id)
            permits[manifest_id].add(permit_id)
            if number is not None:
                numbers.setdefault(number, set()).add(manifest_id)
    by_number = (
        session.execute(
            select(Permit.id, Permit.fse_id, Permit.permit_number, Permit.jurisdiction_id).where(
                Permit.permit_number.in_(list(numbers))
            )
        ).all()
        if numbers
        else []
    )
    for permit_id, fse_id, number, city in by_number:
        for manifest_id in numbers[number]:
            if city in cities[manifest_id]:
                fses[manifest_id].add(fse_id)
                permits[manifest_id].add(permit_id)
    return {m: Named(frozenset(fses[m]), frozenset(permits[m])) for m in fses}


def held(session, manifest_ids) -> set:
    """The manifests among `manifest_ids` that a legal hold in force keeps."""
    holds = active_holds(session)
    if not holds:
        return set()
    on = {column: {getattr(h, column) for h in holds if getattr(h, column) is not None} for column, _, _ in _KINDS}
    kept = set(manifest_ids) & on["manifest_id"]
    for manifest_id, named in named_by(session, set(manifest_ids) - kept).items():
        if named.fse_ids & on["fse_id"] or named.permit_ids & on["permit_id"]:
            kept.add(manifest_id)
    return kept


# Purging ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Expired:
    manifest_id: uuid.UUID
    kept_until: date
    held: bool  # under a legal hold
    in_review: bool  # a correction of it waits for the city's decision


def expired(session, now) -> list[Expired]:
    """Every manifest past its city's retention on the city's date of `now`."""
    found = []
    for jurisdiction in session.scalars(select(Jurisdiction).order_by(Jurisdiction.code)):
        today = local_date(now, jurisdiction.time_zone)
        # A bound with room for any local day: the exact day is judged below.
        bound = start_of_day(
            add_years(today, -jurisdiction.retention_years) + timedelta(days=2), jurisdiction.time_zone
        )
        first, latest = func.min(ManifestRevision.received_at), func.max(ManifestRevision.service_completed_at)
        rows = session.execute(
            select(ManifestRevision.manifest_id, first, latest)
            .join(Manifest, Manifest.id == ManifestRevision.manifest_id)
            .where(Manifest.jurisdiction_id == jurisdiction.id)
            .group_by(ManifestRevision.manifest_id)
            .having(first < bound, latest < bound)
        ).all()
        for manifest_id, first_received_at, latest_service_at in rows:
            until = kept_until(
                first_received_at,
                latest_service_at,
                years=jurisdiction.retention_years,
                time_zone=jurisdiction.time_zone,
            )
            if until < today:
                found.append((manifest_id, until))
    ids = [manifest_id for manifest_id, _ in found]
    kept = held(session, ids)
    reviewing = _in_review(session, ids)
    return [
        Expired(manifest_id, until, manifest_id in kept, manifest_id in reviewing)
        for manifest_id, until in sorted(found, key=lambda row: (row[1], row[0]))
    ]


def _in_review(session, manifest_ids) -> set:
    manifest_ids = list(manifest_ids)
    found = set()
    for start in range(0, len(manifest_ids), _CHUNK):
        found.update(
            session.scalars(
                select(PendingCorrection.manifest_id).where(
                    PendingCorrection.manifest_id.in_(manifest_ids[start : start + _CHUNK]),
                    PendingCorrection.status == PENDING,
                )
            )
        )
    return found


def purge(session, store, *, candidates=None, dry_run=False, progress=None) -> dict:
    """Remove expired manifests that no hold keeps and no correction awaits a decision on,
    with their revisions, findings, documents and scans."""
    if candidates is None:
        candidates = expired(session, clock_now())
    summary = {"expired": 0, "held": 0, "in_review": 0, "purged": 0, "objects_removed": 0, "objects_refused": 0}
    for candidate in candidates:
        summary["expired"] += 1
        if candidate.held:
            summary["held"] += 1
        elif candidate.in_review:
            summary["in_review"] += 1
        elif dry_run:
            summary["purged"] += 1
        else:
            _remove(session, store, session.get(Manifest, candidate.manifest_id), summary)
            summary["purged"] += 1
        if progress:
            progress(1)
    return summary


def _remove(session, store, manifest, summary):
    keys = set(session.scalars(select(Document.object_key).where(Document.manifest_id == manifest.id)))
    revision_ids = select(ManifestRevision.id).where(ManifestRevision.manifest_id == manifest.id)
    session.execute(delete(Finding).where(Finding.revision_id.in_(revision_ids)))
    session.execute(delete(Document).where(Document.manifest_id == manifest.id))
    session.execute(delete(ManifestRevision).where(ManifestRevision.manifest_id == manifest.id))
    session.execute(delete(PendingCorrection).where(PendingCorrection.manifest_id == manifest.id))
    session.execute(delete(LegalHold).where(LegalHold.manifest_id == manifest.id))
    # What the feed said of it goes with it; that it was purged stays, for those who copied it.
    session.execute(delete(Change).where(Change.manifest_id == manifest.id))
    changes.record(session, manifest, kind=changes.PURGED, at=clock_now())
    session.execute(delete(Manifest).where(Manifest.id == manifest.id))
    session.commit()
    still_used = set(session.scalars(select(Document.object_key).where(Document.object_key.in_(keys))))
    for key in keys - still_used:
        try:
            store.delete(key)
            summary["objects_removed"] += 1
        except StoreUnavailable:
            summary["objects_refused"] += 1  # still locked, or the store is down: the sweeper retries
