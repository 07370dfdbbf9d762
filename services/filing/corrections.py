"""Corrections: a new revision of the hauler's own manifest; earlier revisions stay as they were.

A correction that would move the manifest (to another FSE, permit or device, or its service
by more than the city's `manifest_deadline_hours` from the last service the city accepted) is
not a revision until the city's auditor or admin approves it (exchange policy): it is kept,
hashed, as a pending correction, and the manifest stays as it was. Nobody decides a correction
they submitted.
"""

from dataclasses import dataclass
from datetime import datetime, timedelta
from types import SimpleNamespace

from marshmallow import ValidationError
from sqlalchemy import false, func, select
from sqlalchemy.exc import IntegrityError

from domain import chain
from domain.clock import now as clock_now
from schemas.manifest import ManifestIn, canonical
from services.audit import changes
from services.errors import Conflict, Forbidden, Invalid, NotFound
from services.filing import judging, manifests, resolving
from services.filing.filing_facts import Facts
from services.ids import id_or_none
from services.outbound import outbox
from services.people.accounts import certifier_of
from services.records import retention
from services.registry.fses import decode_cursor, encode_cursor
from storage import filings, notice_models, reach, turns
from storage.corrections import APPROVED, PENDING, REJECTED, PendingCorrection
from storage.models import Jurisdiction, Manifest, ManifestRevision, new_id

FSE, PERMIT, DEVICE, SERVICE_TIME = "fse", "permit", "device", "service_time"


@dataclass(frozen=True)
class Outcome:
    """What a correction did: a new revision (`created`), nothing (the same body again), or a
    proposal that waits for the city (`proposal`)."""

    manifest: Manifest
    created: bool
    proposal: PendingCorrection | None = None


def iso(moment: datetime) -> str:
    return moment.isoformat().replace("+00:00", "Z")


def correct(session, principal, *, manifest_id, data) -> Outcome:
    """Correct the hauler's own manifest: at once where it stays put, else as a proposal."""
    reason = data.pop("reason")
    for attempt in filings.attempts(session):
        with attempt:
            outcome = _correct(session, principal, manifest_id, data, reason)
            filings.commit(session)
    return outcome


def _correct(session, principal, manifest_id, data, reason) -> Outcome:
    now = clock_now()
    manifest = manifests.get(session, principal, manifest_id=manifest_id)
    if principal.role != "hauler" or manifest.hauler_id != principal.hauler_id:
        raise NotFound("No such manifest within your reach.")
    if data["manifest_number"] != manifest.manifest_number:
        raise Invalid(
            "A correction keeps the manifest number.",
            errors={"manifest_number": [f"Must be {manifest.manifest_number}."]},
        )
    manifests.refuse_the_future(data, now)
    # The device it is on and the one it names come in turn with the filings on them.
    turns.hold_permit(session.connection(), manifest.permit_id)
    facts = Facts(session)
    named = resolving.resolve(
        session, data, hauler_id=principal.hauler_id, facts=facts, hold=True, within=reach.city_scope(principal)
    )
    body = canonical(data)
    latest = manifests.current(manifest)
    if latest.body["manifest"] == body:
        return Outcome(manifest, False)
    if named.jurisdiction_id != manifest.jurisdiction_id:
        raise Invalid(
            "A correction cannot move a manifest to another city; file it there.",
            errors={"permit_number": ["A permit of another jurisdiction."]},
        )
    jurisdiction = session.get(Jurisdiction, manifest.jurisdiction_id)
    moves = what_it_moves(
        manifest,
        latest,
        accepted=_accepted(session, manifest),
        data=data,
        named=named,
        deadline=timedelta(hours=jurisdiction.manifest_deadline_hours),
    )
    if moves:
        return Outcome(manifest, *_propose(session, principal, manifest, latest, body, reason, moves, now))
    _revise(
        session,
        manifest,
        latest,
        data,
        named,
        jurisdiction,
        reason=reason,
        received_at=now,
        client_pk=principal.client_pk,
        now=now,
        facts=facts,
        certifier=certifier_of(session, principal),
    )
    return Outcome(manifest, True)


def what_it_moves(manifest, latest, *, accepted, data, named, deadline) -> list[str]:
    """Why a correction needs the city: it names another FSE, permit or device than the
    current revision, or shifts the service start or end by more than `deadline` from the
    revision the city last accepted (the first filing or the last approved correction)."""
    moves = []
    if named.fse_id != manifest.fse_id:
        moves.append(FSE)
    if named.permit_id != manifest.permit_id:
        moves.append(PERMIT)
    if named.device_id != latest.device_id:
        moves.append(DEVICE)
    if (
        abs(data["service_completed_at"] - accepted.service_completed_at) > deadline
        or abs(data["service_started_at"] - accepted.service_started_at) > deadline
    ):
        moves.append(SERVICE_TIME)
    return moves


def _accepted(session, manifest) -> ManifestRevision:
    """The revision the city last accepted: the last one an approval made, else the first."""
    number = (
        session.scalar(
            select(func.max(PendingCorrection.revision)).where(
                PendingCorrection.manifest_id == manifest.id, PendingCorrection.status == APPROVED
            )
        )
        or 1
    )
    return manifest.revisions[number - 1]


def _propose(session, principal, manifest, latest, body, reason, moves, now):
    """The pending correction (a new one, or the same one sent again): (created, row)."""
    for waiting in pending_of(session, manifest):
        if (
            waiting.based_on_revision == latest.revision
            and waiting.document["manifest"] == body
            and waiting.document["reason"] == reason
        ):
            return False, waiting
    document = {
        "manifest_id": str(manifest.id),
        "hauler_id": str(manifest.hauler_id),
        "based_on_revision": latest.revision,
        "based_on_sha256": latest.sha256,
        "submitted_at": iso(now),
        "reason": reason,
        "manifest": body,
    }
    row = PendingCorrection(
        id=new_id(),
        manifest_id=manifest.id,
        jurisdiction_id=manifest.jurisdiction_id,
        hauler_id=manifest.hauler_id,
        based_on_revision=latest.revision,
        document=document,
        sha256=chain.seal(document),
        moves=moves,
        submitted_at=now,
        submitted_by_client_id=principal.client_pk,
        submitted_by_person_id=principal.person_id,
        status=PENDING,
    )
    session.add(row)
    return True, row


def _revise(
    session, manifest, latest, data, named, jurisdiction, *, reason, received_at, client_pk, now, facts, certifier=None
):
    """The new revision, chained to the latest, judged, its neighbours re-judged; the scans'
    locks lengthened where the record is now kept longer. The caller commits."""
    kept_before = retention.record_kept_until(jurisdiction, manifest)
    revision = ManifestRevision(
        findings=[],
        **manifests.revision_columns(
            manifest,
            latest.revision + 1,
            body=canonical(data),
            data=data,
            named=named,
            received_at=received_at,
            reason=reason,
            previous=latest.sha256,
            client_pk=client_pk,
            names=manifests.named_at_filing(facts, manifest.hauler_id, data=data, named=named),
            certifier=certifier,
        ),
    )
    session.add(revision)
    manifest.current_revision = revision.revision
    latest.in_force = False
    manifest.device_id, manifest.permit_id, manifest.fse_id = named.device_id, named.permit_id, named.fse_id
    manifest.jurisdiction_id = named.jurisdiction_id
    try:
        session.flush()
    except IntegrityError:
        session.rollback()
        raise Conflict("Another correction of this manifest arrived at the same time; read it and retry.") from None
    session.refresh(manifest)
    judging.refresh(session, revision, now=now, facts=facts)
    changes.record(
        session,
        manifest,
        kind=changes.CORRECTED,
        at=now,
        revision=revision.revision,
        findings=changes.active_codes(revision),
    )
    judging.refresh_neighbours(session, latest, now=now, facts=facts)
    judging.refresh_neighbours(session, revision, now=now, facts=facts)
    kept_after = retention.record_kept_until(jurisdiction, manifest)
    if kept_after > kept_before:
        for document in manifest.documents:
            outbox.enqueue_lock(session, key=document.object_key, retain_until=kept_after)
    return revision


# Reading ------------------------------------------------------------------------------------


def pending_of(session, manifest) -> list[PendingCorrection]:
    return session.scalars(
        select(PendingCorrection)
        .where(PendingCorrection.manifest_id == manifest.id, PendingCorrection.status == PENDING)
        .order_by(PendingCorrection.id)
    ).all()


def of_manifest(session, principal, *, manifest_id, correction_id) -> tuple[Manifest, PendingCorrection]:
    """A correction of a manifest within the caller's reach."""
    manifest = manifests.get(session, principal, manifest_id=manifest_id)
    row = session.get(PendingCorrection, found) if (found := id_or_none(correction_id)) else None
    if row is None or row.manifest_id != manifest.id:
        raise NotFound("No such correction within your reach.")
    return manifest, row


def for_review(session, principal, *, correction_id) -> PendingCorrection:
    """A correction of the reviewer's city; 404 for any other."""
    row = session.get(PendingCorrection, found) if (found := id_or_none(correction_id)) else None
    if row is None or principal.role not in ("auditor", "admin") or row.jurisdiction_id != principal.jurisdiction_id:
        raise NotFound("No such correction within your reach.")
    return row


def review_list(session, principal, *, status=PENDING, cursor=None, limit=50):
    """The city's corrections of one status, oldest first: [(correction, manifest)], next cursor."""
    query = (
        select(PendingCorrection, Manifest)
        .join(Manifest, Manifest.id == PendingCorrection.manifest_id)
        .where(PendingCorrection.jurisdiction_id == principal.jurisdiction_id, PendingCorrection.status == status)
    )
    if principal.role not in ("auditor", "admin"):
        query = query.where(false())
    if cursor:
        query = query.where(PendingCorrection.id > decode_cursor(cursor))
    rows = session.execute(query.order_by(PendingCorrection.id).limit(limit + 1)).all()
    more = len(rows) > limit
    rows = [tuple(row) for row in rows[:limit]]
    return rows, encode_cursor(rows[-1][0].id) if more and rows else None


def sent_list(session, principal, *, status=None, cursor=None, limit=50):
    """The corrections the caller's hauler sent, within its city scope, newest first, of one
    status or all: [(correction, manifest)], next cursor. Nobody else's: empty for other roles."""
    query = (
        select(PendingCorrection, Manifest)
        .join(Manifest, Manifest.id == PendingCorrection.manifest_id)
        .where(
            PendingCorrection.hauler_id == principal.hauler_id,
            reach.in_scope(principal, PendingCorrection.jurisdiction_id),
        )
    )
    if principal.role != "hauler" or principal.hauler_id is None:
        query = query.where(false())
    if status:
        query = query.where(PendingCorrection.status == status)
    if cursor:
        query = query.where(PendingCorrection.id < decode_cursor(cursor))
    rows = session.execute(query.order_by(PendingCorrection.id.desc()).limit(limit + 1)).all()
    more = len(rows) > limit
    rows = [tuple(row) for row in rows[:limit]]
    return rows, encode_cursor(rows[-1][0].id) if more and rows else None


# Deciding -----------------------------------------------------------------------------------


def _undecided(row: PendingCorrection):
    if row.status != PENDING:
        raise Conflict(f"This correction was {row.status} already.")


def _not_their_own(row: PendingCorrection, principal):
    """Nobody decides what they submitted (exchange policy): not the client that sent it, nor the
    person who sent it, through whichever of their memberships they act."""
    if principal.client_pk == row.submitted_by_client_id or (
        principal.person_id is not None and principal.person_id == row.submitted_by_person_id
    ):
        raise Forbidden("You submitted this correction; another of the city's reviewers decides it.")


def approve(session, principal, *, row: PendingCorrection, note=None) -> tuple[Manifest, PendingCorrection]:
    """The city accepts the correction: it becomes the manifest's next revision, judged as
    any correction is, as received when the hauler sent it."""
    for attempt in filings.attempts(session):
        with attempt:
            decided = _approve(session, principal, row, note)
            filings.commit(session)
    return decided


def _approve(session, principal, row: PendingCorrection, note) -> tuple[Manifest, PendingCorrection]:
    now = clock_now()
    _not_their_own(row, principal)
    _undecided(row)
    if chain.seal(row.document) != row.sha256:
        raise Conflict("This correction does not match its hash; it cannot be approved.")
    manifest = session.get(Manifest, row.manifest_id)
    latest = manifests.current(manifest)
    if latest.revision != row.based_on_revision:
        raise Conflict(
            f"The manifest has changed since (revision {latest.revision}); "
            "reject this correction and ask the hauler for a new one."
        )
    try:
        data = ManifestIn().load(row.document["manifest"])
    except ValidationError:
        raise Conflict("This correction no longer reads as a manifest; reject it.") from None
    turns.hold_permit(session.connection(), manifest.permit_id)
    facts = Facts(session)
    named = resolving.resolve(session, data, hauler_id=manifest.hauler_id, facts=facts, hold=True)
    if named.jurisdiction_id != manifest.jurisdiction_id:
        raise Conflict("The permit it names is now another city's; reject it.")
    jurisdiction = session.get(Jurisdiction, manifest.jurisdiction_id)
    revision = _revise(
        session,
        manifest,
        latest,
        data,
        named,
        jurisdiction,
        reason=row.document["reason"],
        received_at=row.submitted_at,
        client_pk=row.submitted_by_client_id,
        now=now,
        facts=facts,
        certifier=certifier_of(
            session, SimpleNamespace(person_id=row.submitted_by_person_id, client_pk=row.submitted_by_client_id)
        ),
    )
    _decide(row, principal, APPROVED, note, now)
    row.revision = revision.revision
    notice_models.add_event(session, notice_models.DECIDED, now, correction_id=row.id)
    return manifest, row


def reject(session, principal, *, row: PendingCorrection, reason) -> tuple[Manifest, PendingCorrection]:
    """The city refuses the correction; the manifest stays as it is, and the reason is kept."""
    now = clock_now()
    _not_their_own(row, principal)
    _undecided(row)
    _decide(row, principal, REJECTED, reason, now)
    notice_models.add_event(session, notice_models.DECIDED, now, correction_id=row.id)
    session.commit()
    return session.get(Manifest, row.manifest_id), row


def _decide(row, principal, status, reason, now):
    row.status, row.decided_at, row.decided_by_client_id, row.decision_reason = (
        status,
        now,
        principal.client_pk,
        reason,
    )
    row.decided_by_person_id = principal.person_id
