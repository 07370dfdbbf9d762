"""The daily pass of one city and local day: devices coming due and those overdue since today
(from the due list of `storage.audit`), deliveries awaiting each site's confirmation, the
deliveries a site has no record of, and the auditors' digest of what is new. It runs at the
city's local 06:00, once across instances: the pass claims its (city, day) row in the
transaction that queues its notices. Days missed while the service was down are run by the next
round, oldest first, as far back as `CATCH_UP_DAYS`."""

import uuid
from datetime import UTC, datetime, time, timedelta
from types import SimpleNamespace

from sqlalchemy import func, select
from sqlalchemy.exc import IntegrityError

from domain import reconcile
from domain.clock import now as clock_now
from domain.dates import local, local_date, start_of_day
from domain.dates import zone as zone_of
from domain.presets import POLICY
from domain.reconcile import AWAITING as AWAITING_STATE
from reports import table_csv
from services.audit.lists import plain_rows
from services.disposal import deliveries, receipts
from services.notices import outbox, recipients
from services.notices.words import AWAITING, DIGEST, DUE_SOON, OVERDUE, UNRECEIVED, word
from storage import missed
from storage.audit import day_number, device_due, from_day_number
from storage.corrections import PendingCorrection
from storage.disputes import DeliveryDispute
from storage.models import (
    Device,
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
# How many local days, today's included, a round runs where the service was down over the city's
# 06:00: a week of missed reminders and digests is still worth mailing, an older one is not
# (`notices run --as-of DAY` runs an older day by hand).
CATCH_UP_DAYS = 7
# How far back the pass looks for deliveries with no receipt: a manifest filed late is judged as
# soon as it is filed, and noticed once by the first pass after.
UNRECEIVED_WITHIN = timedelta(days=7)


def run_due(session, config, *, at=None) -> list[tuple[str, str, int]]:
    """Each city's passes due: its local day's, where its 06:00 has come, and those of the days
    before it missed since its last pass, oldest first; [(city code, day, notices queued)] of
    those run here (another instance runs each of the others once)."""
    at = at or clock_now()
    done = []
    cities = session.execute(select(Jurisdiction.id, Jurisdiction.code, Jurisdiction.time_zone)).all()
    session.rollback()
    for city_id, code, zone in cities:
        moment = local(at, zone)
        days = days_to_run(session, city_id, today=moment.date(), after_six=moment.time() >= RUN_AT)
        for day in days:
            queued = run_day(session, config, city_id=city_id, day=day, current=day == days[-1])
            if queued is not None:
                done.append((code, day.isoformat(), queued))
    session.rollback()
    return done


def days_to_run(session, city_id, *, today, after_six=True) -> list:
    """The city's days no pass has run yet, oldest first: the days since its last pass up to
    today (before its 06:00, up to yesterday), no more than `CATCH_UP_DAYS`. A city never run
    before runs today's alone: nothing was missed before the service had it."""
    latest = today if after_six else today - timedelta(days=1)
    last = session.scalar(
        select(func.max(NoticeDay.day)).where(NoticeDay.jurisdiction_id == city_id, NoticeDay.day <= latest)
    )
    session.rollback()
    if last is None:
        return [today] if after_six else []
    first = max(last + timedelta(days=1), latest - timedelta(days=CATCH_UP_DAYS - 1))
    return [first + timedelta(days=n) for n in range((latest - first).days + 1)]


def run_day(session, config, *, city_id, day, current=True) -> int | None:
    """The city's pass for `day`, committed with its claim; None where another ran it. A day
    caught up before the latest (`current` False) sends no list of deliveries awaiting: that is
    today's list, which the latest day's pass sends."""
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
        _devices(session, city, day, base)
        + (_awaiting(session, city, day, base) if current else 0)
        + _unreceived(session, city, day, base)
        + _digest(session, city, day, base)
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
    dialect = session.get_bind().dialect.name
    due = device_due(day, dialect, where=[Fse.jurisdiction_id == city.id]).subquery("due")
    rows = session.execute(
        select(due).where(due.c.due_day.is_not(None), due.c.due_day.between(today - 1, today + city.reminder_days))
    ).all()
    now_day = today_in(city.time_zone)
    if rows and day < now_day:
        # A day caught up late: a device serviced since then is news no longer.
        now = device_due(now_day, dialect, manifest=False, where=[Device.id.in_([r.device_id for r in rows])]).subquery(
            "now_due"
        )
        since = dict(session.execute(select(now.c.device_id, now.c.last_service_day)).all())
        rows = [row for row in rows if since.get(row.device_id) == row.last_service_day]
    queued = 0
    for row in rows:
        kind = OVERDUE if row.due_day == today - 1 else DUE_SOON if row.due_day >= today else None
        if kind is None:
            continue
        due_on = from_day_number(row.due_day)
        people = recipients.restaurant(session, row.fse_id, kind=kind) + recipients.hauler_office(
            session, row.last_hauler_id, jurisdiction_id=city.id, kind=kind
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
            queued += outbox.tell(
                session,
                person,
                kind=kind,
                facts=facts,
                link=f"{base}/portal/#fse={row.fse_id}",
                key=f"{kind}:{row.device_id}:{due_on}",
                jurisdiction_id=city.id,
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
        for person in recipients.site_clerks(session, site_id, jurisdiction_id=city.id, kind=AWAITING):
            queued += outbox.tell(
                session,
                person,
                kind=AWAITING,
                facts={"count": count, "site_name": site_name},
                link=f"{base}/portal/",
                key=f"{AWAITING}:{site_id}:{city.id}:{day}",
                jurisdiction_id=city.id,
            )
    return queued


def _unreceived(session, city, day, base) -> int:
    """The hauler's office of each delivery the reconciliation judges, at the day's 06:00, to
    have no receipt from its site; once a manifest to each address. Comparing the site's word
    with the hauler's is exchange policy: no ordinance has sites report loads (`domain.reconcile`)."""
    at = min(datetime.combine(day, RUN_AT, zone_of(city.time_zone)).astimezone(UTC), clock_now())
    queued = 0
    for row in receipts.unreceived(session, city, at=at, within=UNRECEIVED_WITHIN):
        hauler_id = uuid.UUID(row["hauler_id"])
        for person in recipients.hauler_office(session, hauler_id, jurisdiction_id=city.id, kind=UNRECEIVED):
            facts = {
                "manifest_number": row["manifest_number"],
                "fse_name": row["fse_name"],
                "site_name": row["site_name"],
                "ticket_number": row["ticket_number"],
                "delivered_on": local_date(datetime.fromisoformat(row["delivered_at"]), city.time_zone).isoformat(),
                "hours": city.manifest_deadline_hours,
                "citation": word(person.language, "policy") if reconcile.CITATION == POLICY else reconcile.CITATION,
            }
            queued += outbox.tell(
                session,
                person,
                kind=UNRECEIVED,
                facts=facts,
                link=f"{base}/portal/#manifest={row['manifest_id']}",
                key=f"{UNRECEIVED}:{row['manifest_id']}",
                jurisdiction_id=city.id,
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
    attachment = {"filename": f"missed-services-{day}.csv", "content_type": "text/csv", "data": sheet}
    return sum(
        outbox.tell(
            session,
            person,
            kind=DIGEST,
            facts=facts,
            link=f"{base}/portal/",
            key=f"{DIGEST}:{city.id}:{day}",
            jurisdiction_id=city.id,
            attachments=[attachment],
        )
        for person in recipients.auditors(session, city.id, kind=DIGEST)
    )


def today_in(zone, at=None):
    """The city's local day now."""
    return local(at or clock_now(), zone).date()
