"""Judging a revision against its neighbours and keeping their findings current as later loads arrive."""

from collections import deque
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import Uuid, bindparam, cast, literal, null, select, union_all
from sqlalchemy.orm import joinedload, selectinload
from sqlalchemy.orm.util import identity_key

from domain import checks
from domain.dates import local_date, start_of_day
from services import changes
from services.filing_facts import (
    cached,
    load_device_facts,
    load_hauler_facts,
    load_permit_facts,
    load_site_facts,
    rules_of,
    zone_of,
)
from storage import turns
from storage.models import Finding, Jurisdiction, Manifest, ManifestRevision, new_id
from storage.prebuilt import Prebuilt


def load_of(revision: ManifestRevision) -> checks.Load:
    return checks.Load.of(revision)


def current_revisions():
    """Revisions now in force (the latest of each manifest), beside their manifests."""
    return (
        select(ManifestRevision)
        .join(Manifest, Manifest.id == ManifestRevision.manifest_id)
        .where(ManifestRevision.in_force)
    )


@dataclass(frozen=True)
class Surroundings:
    """What one revision is checked against, and whose findings it can change."""

    same_service: list  # the device's other loads within a day of it
    same_ticket: list  # the other loads on its disposal ticket
    previous_qualifying: datetime | None  # the device's qualifying service before this one
    following: ManifestRevision | None  # the device's next service after this one
    latest_qualifying: datetime | None  # the device's latest qualifying service of another manifest


def _surroundings_statement():
    """One statement for every neighbour of a revision, built once: each filing only binds it."""
    # Revisions in force only (each manifest's current one), read without the manifests.
    here = select(ManifestRevision.id, ManifestRevision.service_completed_at).where(ManifestRevision.in_force)
    # Only the moment of the previous and latest qualifying services is needed: those probes
    # stay inside the partial index of the services that count, off the revisions' heap.
    when = select(cast(null(), Uuid).label("id"), ManifestRevision.service_completed_at).where(
        ManifestRevision.in_force
    )
    completed = ManifestRevision.service_completed_at
    device = ManifestRevision.device_id == bindparam("device_id")
    others = ManifestRevision.manifest_id != bindparam("manifest_id")
    parts = [
        ("service", here.where(device, others, completed.between(bindparam("lo"), bindparam("hi")))),
        (
            "previous",
            when.where(device, others, ManifestRevision.qualifying, completed < bindparam("lo"))
            .order_by(completed.desc())
            .limit(1),
        ),
        ("following", here.where(device, completed > bindparam("hi")).order_by(completed).limit(1)),
        ("latest", when.where(device, others, ManifestRevision.qualifying).order_by(completed.desc()).limit(1)),
        # One load: a site's ticket on one local day (a site may use a number again another
        # day). No ticket binds NULL, which matches nothing.
        (
            "ticket",
            here.where(
                others,
                ManifestRevision.disposal_site_id == bindparam("site_id"),
                ManifestRevision.disposal_ticket_number == bindparam("ticket"),
                ManifestRevision.disposal_delivered_at >= bindparam("delivered_from"),
                ManifestRevision.disposal_delivered_at < bindparam("delivered_to"),
            ),
        ),
    ]
    return union_all(*(select(literal(role).label("role"), part.subquery()) for role, part in parts))


SURROUNDINGS = Prebuilt(_surroundings_statement())


def surroundings(session, revision: ManifestRevision) -> Surroundings:
    """Every neighbour of `revision` in one round trip (ids), then the rows, if any."""
    completed, window = revision.service_completed_at, checks.SAME_SERVICE
    delivered_from = delivered_to = None
    if revision.disposal_delivered_at is not None:
        zone = zone_of(session, revision.manifest.jurisdiction_id)
        day = local_date(revision.disposal_delivered_at, zone)
        delivered_from, delivered_to = start_of_day(day, zone), start_of_day(day + timedelta(days=1), zone)
    session.flush()  # what this request changed is part of the neighbourhood
    connection = session.connection()
    # The other loads on its ticket are read once every filing on the ticket before it committed.
    ahead = turns.ticket_holds(connection, revision.disposal_site_id, revision.disposal_ticket_number)
    found = SURROUNDINGS.all(
        connection,
        {
            "device_id": revision.device_id,
            "manifest_id": revision.manifest_id,
            "lo": completed - window,
            "hi": completed + window,
            "site_id": revision.disposal_site_id,
            "ticket": revision.disposal_ticket_number,
            "delivered_from": delivered_from,
            "delivered_to": delivered_to,
        },
        ahead=ahead,
    )
    rows = _revisions(session, {row.id for row in found if row.role in ("service", "ticket", "following")})

    def moment(role):
        return next((row.service_completed_at for row in found if row.role == role), None)

    return Surroundings(
        same_service=[rows[row.id] for row in found if row.role == "service"],
        same_ticket=[rows[row.id] for row in found if row.role == "ticket"],
        previous_qualifying=moment("previous"),
        following=next((rows[row.id] for row in found if row.role == "following"), None),
        latest_qualifying=moment("latest"),
    )


_HELD_REVISIONS = 1_000


def _revisions(session, ids) -> dict:
    """The revisions of `ids` by id: those the session holds already as they are, the rest in
    one query with their manifests and findings (what refreshing them reads). Refreshing the
    loads of one service asks for the same neighbours again for each of them, so the last
    revisions loaded are kept referenced (the session's identity map alone would let them go)."""
    rows, missing = {}, []
    for revision_id in ids:
        held = session.identity_map.get(identity_key(ManifestRevision, revision_id))
        if held is None:
            missing.append(revision_id)
        else:
            rows[revision_id] = held
    if missing:
        loaded = (
            session.scalars(
                select(ManifestRevision)
                .where(ManifestRevision.id.in_(missing))
                .options(joinedload(ManifestRevision.manifest), selectinload(ManifestRevision.findings))
            )
            .unique()
            .all()
        )
        session.info.setdefault("fogx.held_revisions", deque(maxlen=_HELD_REVISIONS)).extend(loaded)
        rows.update((r.id, r) for r in loaded)
    return rows


def evaluate(session, revision: ManifestRevision, now, around: Surroundings | None = None) -> list[checks.Finding]:
    """Every finding the revision raises today, with the facts as they stood on its dates."""
    manifest = revision.manifest
    device, _ = cached(session, "device", revision.device_id, lambda: load_device_facts(session, revision.device_id))
    # The permit the manifest is on: the one the device was listed on on its service day.
    permit = cached(session, "permit", manifest.permit_id, lambda: load_permit_facts(session, manifest.permit_id))
    rules = cached(
        session,
        "rules",
        manifest.jurisdiction_id,
        lambda: rules_of(session.get(Jurisdiction, manifest.jurisdiction_id)),
    )
    city = manifest.jurisdiction_id
    hauler = cached(
        session, "hauler", (manifest.hauler_id, city), lambda: load_hauler_facts(session, manifest.hauler_id, city)
    )
    site = None
    if revision.disposal_site_id:
        site = cached(
            session,
            "site",
            (revision.disposal_site_id, city),
            lambda: load_site_facts(session, revision.disposal_site_id, city),
        )
    around = around or surroundings(session, revision)
    return checks.check(
        load=load_of(revision),
        received_at=first_received(manifest),
        now=now,
        rules=rules,
        jurisdiction_id=manifest.jurisdiction_id,
        device=device,
        permit=permit,
        hauler=hauler,
        site=site,
        device_loads=[load_of(o) for o in around.same_service],
        ticket_loads=[load_of(t) for t in around.same_ticket],
        previous_qualifying=around.previous_qualifying,
    )


def first_received(manifest: Manifest) -> datetime:
    """When the manifest number was first received: a manifest is made with its first
    revision, at that moment. The filing deadline runs to it; a correction never moves it
    (Victorville 10.03.170(b))."""
    return manifest.created_at


def refresh(session, revision: ManifestRevision, now, around: Surroundings | None = None) -> tuple[list, list]:
    """Bring the revision's stored findings in line with what it raises now: the codes
    (raised, cleared).

    New findings are added; findings no longer raised (a second truckload completing the
    pump-down, say) are cleared with a date, never deleted.
    """
    raised = {finding.code: finding for finding in evaluate(session, revision, now, around)}
    active = {f.code: f for f in revision.findings if f.cleared_at is None}
    for code, finding in raised.items():
        if code not in active:
            revision.findings.append(
                Finding(
                    id=new_id(),
                    revision_id=revision.id,
                    code=code,
                    severity=finding.severity,
                    message=finding.message,
                    citation=finding.citation,
                    raised_at=now,
                    cleared_at=None,
                )
            )
    for code, stored in active.items():
        if code not in raised:
            stored.cleared_at = now
    revision.qualifying = checks.is_qualifying(raised)
    return sorted(raised.keys() - active.keys()), sorted(active.keys() - raised.keys())


def refresh_told(session, revision: ManifestRevision, now):
    """`refresh` a stored revision; what changed goes in the change feed."""
    raised, cleared = refresh(session, revision, now)
    if raised or cleared:
        changes.record(
            session,
            revision.manifest,
            changes.FINDINGS_CHANGED,
            at=now,
            revision=revision.revision,
            raised=raised,
            cleared=cleared,
        )


def neighbours(revision: ManifestRevision, around: Surroundings) -> set:
    """The other manifests' revisions whose findings this revision can change: the same
    service's other loads, the loads on the same disposal ticket, and the device's next service."""
    found = {*around.same_service, *around.same_ticket}
    if around.following is not None:
        found.add(around.following)
    found.discard(revision)
    return found


def refresh_neighbours(session, revision: ManifestRevision, now, around: Surroundings | None = None):
    """Bring the findings of the revision's `neighbours` in line with it."""
    around = around or surroundings(session, revision)
    for neighbour in sorted(neighbours(revision, around), key=lambda r: r.service_completed_at):
        refresh_told(session, neighbour, now)
