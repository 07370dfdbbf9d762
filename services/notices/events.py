"""Events that notices follow: a filing with findings, a disputed delivery, a decided
correction. Each is one row written in the transaction of what happened (a filing's beside
its manifest, in the same statement: `storage.notice_models`); here each becomes a notice per
recipient."""

import uuid
from datetime import timedelta

from sqlalchemy import select, text

from domain.clock import now as clock_now
from domain.dates import local_date
from domain.presets import POLICY
from services.notices import outbox, recipients
from services.notices.words import CORRECTION, DISPUTED, FINDINGS, UNRECORDED, finding_line, word
from storage.corrections import PendingCorrection
from storage.disputes import DeliveryDispute
from storage.models import Device, DisposalSite, Finding, Fse, Jurisdiction, Manifest, ManifestRevision
from storage.notice_models import DECIDED, DISPUTE, FILED, NoticeEvent
from storage.notice_models import UNRECORDED as UNRECORDED_EVENT

# An event older than this is closed without notices: a notice says what happened that day, and
# a backlog (a registry loaded with its history, an outage of days) is not mailed late.
STALE_AFTER = timedelta(days=3)


def _claim(session, limit):
    query = select(NoticeEvent).where(NoticeEvent.done_at.is_(None)).order_by(NoticeEvent.created_at).limit(limit)
    if session.get_bind().dialect.name == "postgresql":
        query = query.with_for_update(skip_locked=True)
    else:
        session.execute(text("UPDATE notice_events SET kind = kind WHERE 1 = 0"))
    return session.scalars(query).all()


def expand(session, config, *, limit=100) -> int:
    """Queue the notices of the events not yet expanded; how many were queued."""
    queued = 0
    events = _claim(session, limit)
    stale = clock_now() - STALE_AFTER
    for event in events:
        handler = {FILED: _filed, DISPUTE: _disputed, DECIDED: _decided, UNRECORDED_EVENT: _unrecorded}.get(event.kind)
        if handler is not None and event.created_at >= stale:
            queued += handler(session, config["PUBLIC_BASE_URL"], event)
        event.done_at = clock_now()
    session.commit()
    return queued


def _queue_each(session, people, *, kind, city_id, key, facts, link, extra=lambda language: ()):
    return sum(
        outbox.tell(
            session,
            person,
            kind=kind,
            facts=facts,
            link=link,
            key=key,
            jurisdiction_id=city_id,
            extra_lines=extra(person.language),
        )
        for person in people
    )


def _filed(session, base, event) -> int:
    """The restaurant's people hear of each finding the day it is found; the hauler's office of
    its manifest with findings."""
    manifest = session.get(Manifest, uuid.UUID(event.payload["manifest_id"]))
    revision = session.scalar(
        select(ManifestRevision).where(
            ManifestRevision.manifest_id == manifest.id, ManifestRevision.revision == event.payload["revision"]
        )
    )
    found = session.scalars(
        select(Finding).where(Finding.revision_id == revision.id, Finding.cleared_at.is_(None)).order_by(Finding.code)
    ).all()
    if not found:
        return 0
    zone = session.scalar(select(Jurisdiction.time_zone).where(Jurisdiction.id == manifest.jurisdiction_id))
    facts = {
        "manifest_number": manifest.manifest_number,
        "fse_name": session.scalar(select(Fse.name).where(Fse.id == manifest.fse_id)),
        "device_tag": session.scalar(select(Device.tag).where(Device.id == manifest.device_id)),
        "service_on": local_date(revision.service_completed_at, zone).isoformat(),
    }

    def lines(language):
        return [finding_line(language, f.code, citation=f.citation, message=f.message) for f in found]

    people = recipients.restaurant(session, manifest.fse_id, kind=FINDINGS) + recipients.hauler_office(
        session, manifest.hauler_id, jurisdiction_id=manifest.jurisdiction_id, kind=FINDINGS
    )
    return _queue_each(
        session,
        people,
        kind=FINDINGS,
        city_id=manifest.jurisdiction_id,
        key=f"{FINDINGS}:{manifest.id}:{revision.revision}",
        facts=facts,
        link=f"{base}/portal/#manifest={manifest.id}",
        extra=lines,
    )


def _unrecorded(session, base, event) -> int:
    """The hauler's office: a manifest's deadline passed and no disposal is on record for it."""
    manifest = session.get(Manifest, uuid.UUID(event.payload["manifest_id"]))
    revision = session.scalar(
        select(ManifestRevision).where(
            ManifestRevision.manifest_id == manifest.id, ManifestRevision.revision == manifest.current_revision
        )
    )
    city = session.get(Jurisdiction, manifest.jurisdiction_id)
    cited = (city.citations or {}).get("disposal_confirmed") or POLICY
    queued = 0
    for person in recipients.hauler_office(
        session, manifest.hauler_id, jurisdiction_id=manifest.jurisdiction_id, kind=UNRECORDED
    ):
        facts = {
            "manifest_number": manifest.manifest_number,
            "fse_name": session.scalar(select(Fse.name).where(Fse.id == manifest.fse_id)),
            "device_tag": session.scalar(select(Device.tag).where(Device.id == manifest.device_id)),
            "service_on": local_date(revision.service_completed_at, city.time_zone).isoformat(),
            "hours": city.manifest_deadline_hours,
            "citation": word(person.language, "policy") if cited == POLICY else cited,
        }
        queued += _queue_each(
            session,
            [person],
            kind=UNRECORDED,
            city_id=manifest.jurisdiction_id,
            key=f"{UNRECORDED}:{manifest.id}:{revision.revision}",
            facts=facts,
            link=f"{base}/portal/#manifest={manifest.id}",
        )
    return queued


def _disputed(session, base, event) -> int:
    dispute = session.get(DeliveryDispute, uuid.UUID(event.payload["dispute_id"]))
    manifest = session.get(Manifest, dispute.manifest_id)
    facts = {
        "manifest_number": manifest.manifest_number,
        "site_name": session.scalar(select(DisposalSite.name).where(DisposalSite.id == dispute.site_id)),
        "reason": dispute.reason,
    }
    people = recipients.hauler_office(
        session, manifest.hauler_id, jurisdiction_id=manifest.jurisdiction_id, kind=DISPUTED
    )
    return _queue_each(
        session,
        people,
        kind=DISPUTED,
        city_id=manifest.jurisdiction_id,
        key=f"{DISPUTED}:{dispute.id}",
        facts=facts,
        link=f"{base}/portal/#manifest={manifest.id}",
    )


def _decided(session, base, event) -> int:
    row = session.get(PendingCorrection, uuid.UUID(event.payload["correction_id"]))
    manifest = session.get(Manifest, row.manifest_id)
    people = recipients.hauler_office(
        session, manifest.hauler_id, jurisdiction_id=manifest.jurisdiction_id, kind=CORRECTION
    )
    queued = 0
    for person in people:
        facts = {
            "manifest_number": manifest.manifest_number,
            "decision": word(person.language, row.status),
            "note": row.decision_reason or "",
        }
        queued += _queue_each(
            session,
            [person],
            kind=CORRECTION,
            city_id=manifest.jurisdiction_id,
            key=f"{CORRECTION}:{row.id}",
            facts=facts,
            link=f"{base}/portal/#manifest={manifest.id}",
        )
    return queued
