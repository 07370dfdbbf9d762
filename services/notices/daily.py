"""The daily pass of one city and local day: devices coming due and those overdue since today
(from the due list of `storage.audit`), deliveries awaiting each site's confirmation, and the
auditors' digest of what is new. It runs at the city's local 06:00, once across instances: the
pass claims its (city, day) row in the transaction that queues its notices."""

from datetime import time, timedelta
from types import SimpleNamespace

from sqlalchemy import func, select
from sqlalchemy.exc import IntegrityError

from domain.clock import now as clock_now
from domain.dates import local, start_of_day
from domain.presets import POLICY
from domain.reconcile import AWAITING as AWAITING_STATE
from reports import table_csv
from services.audit.lists import plain_rows
from services.disposal import deliveries
from services.notices import messages, outbox, recipients
from services.notices.words import AWAITING, DIGEST, DUE_SOON, OVERDUE, word, written
from storage import missed
from storage.audit import day_number, device_due, from_day_number
from storage.corrections import PendingCorrection
from storage.disputes import DeliveryDispute
from storage.models import (
    DisposalSite,
    DisposalSiteJurisdiction,
    Finding,
    Fse,
    Jurisdiction,
    Manifest,
    ManifestRevision,
)
from storage.notice_models import NoticeDay

# The city's local time of day its pass runs.
RUN_AT = time(6, 0)


def run_due(session, config, *, at=None) -> list[tuple[str, str, int]]:
    """Each city's pass for its local day, where its 06:00 has come and no instance has run
    it yet; [(city code, day, notices queued)] of those run here."""
    at = at or clock_now()
    done = []
    cities = session.execute(select(Jurisdiction.id, Jurisdiction.code, Jurisdiction.time_zone)).all()
    for city_id, code, zone in cities:
        moment = local(at, zone)
        if moment.time() < RUN_AT:
            continue
        day = moment.date()
        if session.scalar(select(NoticeDay.day).where(NoticeDay.jurisdiction_id == city_id, NoticeDay.day == day)):
            continue
        queued = run_day(session, config, city_id, day)
        if queued is not None:
            done.append((code, day.isoformat(), queued))
    session.rollback()
    return done


def run_day(session, config, city_id, day) -> int | None:
    """The city's pass for `day`, committed with its claim; None where another ran it."""
    session.rollback()
    session.add(NoticeDay(jurisdiction_id=city_id, day=day, claimed_at=clock_now(), queued=0))
    try:
        session.flush()
    except IntegrityError:
        session.rollback()
        return None
    city = session.get(Jurisdiction, city_id)
    base = config["PUBLIC_BASE_URL"]
    queued = (
        _devices(session, city, day, base) + _awaiting(session, city, day, base) + _digest(session, city, day, base)
    )
    claim = session.get(NoticeDay, (city_id, day))
    claim.queued = queued
    session.commit()
    return queued


def _citation(city, kind, language):
    cited = (city.citations or {}).get(f"{kind}_frequency") or POLICY
    return word(language, "policy") if cited == POLICY else cited


def _devices(session, city, day, base) -> int:
    """A reminder once for each due day that comes within the city's window, and a notice the
    day after a due day passes unserviced; each to the restaurant and its last hauler."""
    today = day_number(day)
    due = device_due(day, session.get_bind().dialect.name, where=[Fse.jurisdiction_id == city.id]).subquery("due")
    rows = session.execute(
        select(due).where(due.c.due_day.is_not(None), due.c.due_day.between(today - 1, today + city.reminder_days))
    ).all()
    queued = 0
    for row in rows:
        kind = OVERDUE if row.due_day == today - 1 else DUE_SOON if row.due_day >= today else None
        if kind is None:
            continue
        due_on = from_day_number(row.due_day)
        people = recipients.restaurant(session, row.fse_id, kind) + recipients.hauler_office(
            session, row.last_hauler_id, city.id, kind
        )
        for person in people:
            facts = {
                "device_tag": row.device_tag,
                "fse_name": row.fse_name,
                "address": row.address,
                "due_on": due_on.isoformat(),
                "days": row.due_day - today,
                "citation": _citation(city, row.device_kind, person.language),
            }
            subject, paragraphs = written(kind, person.language, facts)
            queued += outbox.queue(
                session,
                kind=kind,
                recipient=person.address,
                language=person.language,
                subject=subject,
                body=messages.body(
                    language=person.language, paragraphs=paragraphs, link=f"{base}/portal/#fse={row.fse_id}"
                ),
                jurisdiction_id=city.id,
                person_id=person.person_id,
                dedupe_key=f"{kind}:{row.device_id}:{due_on}:{person.address}",
            )
    return queued


def _awaiting(session, city, day, base) -> int:
    """Each site approved for the city: its deliveries of the city's manifests awaiting it."""
    queued = 0
    sites = session.scalars(
        select(DisposalSiteJurisdiction.site_id).where(DisposalSiteJurisdiction.jurisdiction_id == city.id).distinct()
    ).all()
    for site_id in sites:
        scope = SimpleNamespace(role="site", site_id=site_id, jurisdiction_id=city.id)
        items, more = deliveries.listing(session, scope, state=AWAITING_STATE, limit=500)
        if not items:
            continue
        count = f"{len(items)}+" if more else str(len(items))
        site_name = _site_name(session, site_id)
        for person in recipients.site_clerks(session, site_id, city.id, AWAITING):
            subject, paragraphs = written(AWAITING, person.language, {"count": count, "site_name": site_name})
            queued += outbox.queue(
                session,
                kind=AWAITING,
                recipient=person.address,
                language=person.language,
                subject=subject,
                body=messages.body(language=person.language, paragraphs=paragraphs, link=f"{base}/portal/"),
                jurisdiction_id=city.id,
                person_id=person.person_id,
                dedupe_key=f"{AWAITING}:{site_id}:{city.id}:{day}:{person.address}",
            )
    return queued


def _site_name(session, site_id):
    return session.scalar(select(DisposalSite.name).where(DisposalSite.id == site_id))


def _digest(session, city, day, base) -> int:
    """What is new since the day before: the services missed as of today, the late manifests,
    disputes and corrections received yesterday; nothing is sent when nothing is new."""
    zone = city.time_zone
    since, until = start_of_day(day - timedelta(days=1), zone), start_of_day(day, zone)
    newly_missed = [
        row
        for row in plain_rows(
            session.execute(
                missed.missed_intervals(day, day, city.id, dialect=session.get_bind().dialect.name, zone=zone)
            )
        )
        if row["missed_on"] == day.isoformat()
    ]
    late = session.scalar(
        select(func.count(func.distinct(Manifest.id)))
        .select_from(Manifest)
        .join(ManifestRevision, ManifestRevision.manifest_id == Manifest.id)
        .join(Finding, Finding.revision_id == ManifestRevision.id)
        .where(
            Manifest.jurisdiction_id == city.id,
            Finding.code == "late_submission",
            Finding.cleared_at.is_(None),
            ManifestRevision.revision == 1,
            ManifestRevision.received_at >= since,
            ManifestRevision.received_at < until,
        )
    )
    disputes = session.scalar(
        select(func.count())
        .select_from(DeliveryDispute)
        .join(Manifest, Manifest.id == DeliveryDispute.manifest_id)
        .where(
            Manifest.jurisdiction_id == city.id,
            DeliveryDispute.created_at >= since,
            DeliveryDispute.created_at < until,
        )
    )
    corrections = session.scalar(
        select(func.count())
        .select_from(PendingCorrection)
        .where(
            PendingCorrection.jurisdiction_id == city.id,
            PendingCorrection.status == "pending",
            PendingCorrection.submitted_at >= since,
            PendingCorrection.submitted_at < until,
        )
    )
    if not (newly_missed or late or disputes or corrections):
        return 0
    sheet = "".join(table_csv.render(newly_missed, zone=zone)).encode()
    facts = {
        "city_name": city.name,
        "day": day.isoformat(),
        "missed": len(newly_missed),
        "late": late,
        "disputes": disputes,
        "corrections": corrections,
    }
    queued = 0
    for person in recipients.auditors(session, city.id, DIGEST):
        subject, paragraphs = written(DIGEST, person.language, facts)
        queued += outbox.queue(
            session,
            kind=DIGEST,
            recipient=person.address,
            language=person.language,
            subject=subject,
            body=messages.body(
                language=person.language,
                paragraphs=paragraphs,
                link=f"{base}/portal/",
                attachments=[
                    {"filename": f"missed-services-{day}.csv", "content_type": "text/csv", "data": sheet},
                ],
            ),
            jurisdiction_id=city.id,
            person_id=person.person_id,
            dedupe_key=f"{DIGEST}:{city.id}:{day}:{person.address}",
        )
    return queued


def today_in(zone, at=None):
    """The city's local day now."""
    return local(at or clock_now(), zone).date()
