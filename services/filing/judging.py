"""Judging a revision against its neighbours and keeping their findings current as later loads arrive."""

from datetime import datetime

from sqlalchemy import select

from domain import checks
from services.audit import changes
from services.filing.filing_facts import Facts
from storage import filings
from storage.filings import Surroundings
from storage.models import Finding, Manifest, ManifestRevision, new_id


def load_of(revision: ManifestRevision) -> checks.Load:
    return checks.Load.of(revision)


def current_revisions():
    """Revisions now in force (the latest of each manifest), beside their manifests."""
    return (
        select(ManifestRevision)
        .join(Manifest, Manifest.id == ManifestRevision.manifest_id)
        .where(ManifestRevision.in_force)
    )


def surroundings(session, revision: ManifestRevision, *, facts: Facts) -> Surroundings:
    """What `revision` is judged against (`storage.filings.neighbours`)."""
    return filings.neighbours(
        session, revision, zone=facts.zone(revision.manifest.jurisdiction_id), same_service=checks.SAME_SERVICE
    )


def evaluate(
    session, revision: ManifestRevision, *, now, around: Surroundings | None = None, facts: Facts
) -> list[checks.Finding]:
    """Every finding the revision raises today, with the facts as they stood on its dates."""
    manifest = revision.manifest
    city = manifest.jurisdiction_id
    device, _ = facts.device(revision.device_id)
    # The permit the manifest is on: the one the device was listed on on its service day.
    permit = facts.permit(manifest.permit_id)
    rules = facts.rules(city)
    hauler = facts.hauler(manifest.hauler_id, city)
    site = facts.site(revision.disposal_site_id, city) if revision.disposal_site_id else None
    around = around or surroundings(session, revision, facts=facts)
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


def refresh(
    session, revision: ManifestRevision, *, now, around: Surroundings | None = None, facts: Facts
) -> tuple[list, list]:
    """Bring the revision's stored findings in line with what it raises now: the codes
    (raised, cleared).

    New findings are added; findings no longer raised (a second truckload completing the
    pump-down, say) are cleared with a date, never deleted.
    """
    raised = {finding.code: finding for finding in evaluate(session, revision, now=now, around=around, facts=facts)}
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


def refresh_told(session, revision: ManifestRevision, *, now, facts: Facts):
    """`refresh` a stored revision; what changed goes in the change feed."""
    raised, cleared = refresh(session, revision, now=now, facts=facts)
    if raised or cleared:
        changes.record(
            session,
            revision.manifest,
            kind=changes.FINDINGS_CHANGED,
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


def refresh_neighbours(session, revision: ManifestRevision, *, now, around: Surroundings | None = None, facts: Facts):
    """Bring the findings of the revision's `neighbours` in line with it."""
    around = around or surroundings(session, revision, facts=facts)
    for neighbour in sorted(neighbours(revision, around), key=lambda r: r.service_completed_at):
        refresh_told(session, neighbour, now=now, facts=facts)
