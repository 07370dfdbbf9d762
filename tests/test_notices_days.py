"""Sixty days of the demo city on a moved clock, two app instances running the daily pass and
the sender at once, each with its own database session: every reminder, overdue notice,
finding notice, notice of a delivery the site has no record of and digest goes out on the right
local day, and none twice; days the service was down are caught up in order, each once."""

import collections
import email
import email.policy
from datetime import UTC, date, datetime, time, timedelta
from email.utils import parsedate_to_datetime
from pathlib import Path
from zoneinfo import ZoneInfo

from sqlalchemy import select

from auth.principal import principal_of
from schemas.manifest import ManifestIn
from services.demo import data as demo
from services.filing import manifests
from storage.models import Finding, Manifest, ManifestRevision, OAuthClient
from storage.notice_models import Notice, NoticeDay
from tests.notice_mail import two_instances

PACIFIC = ZoneInfo("America/Los_Angeles")
FIRST = date(2026, 6, 1)  # the demo's load day
DAYS = 60
DEVICE_PEOPLE = ["dispatcher@demo.fogx.test", "hauler-admin@demo.fogx.test", "operator@demo.fogx.test"]


def local(day, hour, minute=0):
    return datetime.combine(day, time(hour, minute), PACIFIC).astimezone(UTC)


def file(session, principal, *, number, tag, completed, full=True, gallons=None):
    """A pump-out of a Mesa Grill (GI-1) or Golden Wok (GT-1) device, filed at the clock's time."""
    permit, capacity, waste = {
        "GI-1": ("VV-FOG-0001", 1500, "grease_interceptor_waste"),
        "GT-1": ("VV-FOG-0002", 50, "grease_trap_waste"),
    }[tag]
    gallons = gallons or round(capacity * 0.97)
    body = {
        "manifest_number": number,
        "permit_number": permit,
        "device_tag": tag,
        "vehicle_id": "TRK-7",
        "driver_name": "Sam Ortiz",
        "fse_signer_name": "Ana Ruiz",
        "service_started_at": (completed - timedelta(hours=1)).isoformat(),
        "service_completed_at": completed.isoformat(),
        "waste_type": waste,
        "gallons_removed": gallons,
        "decant_returned_gallons": 0,
        "full_pump_down": full,
        "disposal": {
            "site_id": str(demo.DEMO_SITE_ID),
            "ticket_number": f"HDR-{number}",
            "delivered_at": (completed + timedelta(hours=2)).isoformat(),
            "gallons_delivered": gallons,
        },
    }
    manifest = manifests.submit(session, principal, data=ManifestIn().load(body)).manifest
    return manifest.id


def test_sixty_days_of_the_demo_city_each_notice_on_its_day_and_none_twice(app, session, frozen_clock):
    config = app.config
    frozen_clock(datetime(2026, 6, 1, 12, 0, tzinfo=UTC))
    demo.load(session, base_url="https://fogx.test")
    hauler = principal_of(session.scalar(select(OAuthClient).where(OAuthClient.client_id == "demo-hauler")))
    # What the hauler files (at 14:00), on which local day: a partial pump-out of Mesa Grill's
    # interceptor done on 1 June and filed late on the 5th; its full service on the 7th; Golden
    # Wok's trap serviced on the 8th, then never again.
    filings = {
        date(2026, 6, 5): dict(number="S-1", tag="GI-1", completed=local(FIRST, 8), full=False, gallons=700),
        date(2026, 6, 7): dict(number="S-2", tag="GI-1", completed=local(date(2026, 6, 7), 9)),
        date(2026, 6, 8): dict(number="S-3", tag="GT-1", completed=local(date(2026, 6, 8), 9)),
    }
    filed_on = {}
    for n in range(DAYS):
        day = FIRST + timedelta(days=n)
        if n % 7 == 0:  # a round just before 06:00 runs no pass yet
            frozen_clock(local(day, 5, 59))
            two_instances(app)
            assert session.scalar(select(NoticeDay.day).where(NoticeDay.day == day)) is None
        frozen_clock(local(day, 6))
        two_instances(app)
        if day in filings:
            frozen_clock(local(day, 14))
            filed_on[file(session, hauler, **filings[day])] = day
            frozen_clock(local(day, 18))
            two_instances(app)

    sent = session.scalars(select(Notice)).all()
    assert {n.state for n in sent} == {"sent"}
    # Each city's pass ran once a day, by one instance or the other.
    assert session.query(NoticeDay).count() == 5 * DAYS
    mails = [
        email.message_from_bytes(p.read_bytes(), policy=email.policy.default)
        for p in sorted(Path(config["MAIL_DIR"]).glob("*.eml"))
    ]
    assert len(mails) == len(sent)
    got = collections.defaultdict(list)  # (kind, subject) -> [(recipient, local day)]
    for mail in mails:
        got[(mail["X-Fogx-Notice"], mail["Subject"])].append(
            (mail["To"], parsedate_to_datetime(mail["Date"]).astimezone(PACIFIC).date())
        )

    def on(kind, subject, day, people=DEVICE_PEOPLE):
        assert sorted(got.pop((kind, subject))) == [(p, day) for p in people], subject

    # Reminders: once for each due day, the first day it is within 14 days; the overdue notice
    # the day after the due day passes unserviced.
    on("device_due_soon", "Grease device GI-1 at Mesa Grill is due by 2026-06-03", date(2026, 6, 1))
    on("device_due_soon", "Grease device GT-1 at Golden Wok is due by 2026-06-10", date(2026, 6, 1))
    on("device_overdue", "Grease device GI-1 at Mesa Grill is overdue", date(2026, 6, 4))
    on("device_due_soon", "Grease device GT-1 at Golden Wok is due by 2026-07-08", date(2026, 6, 24))
    on("device_overdue", "Grease device GT-1 at Golden Wok is overdue", date(2026, 7, 9))
    # Findings: the day each filing with findings was made, to the restaurant and the hauler.
    with_findings = set(
        session.scalars(
            select(Manifest.id)
            .join(ManifestRevision, ManifestRevision.manifest_id == Manifest.id)
            .join(Finding, Finding.revision_id == ManifestRevision.id)
            .where(Manifest.id.in_(filed_on), Finding.cleared_at.is_(None))
        )
    )
    assert with_findings, "the late, partial pump-out has findings"
    numbers = {session.get(Manifest, m).manifest_number: filed_on[m] for m in with_findings}
    for number, day in numbers.items():
        fse = "Golden Wok" if number == "S-3" else "Mesa Grill"
        on("manifest_findings", f"Manifest {number} for {fse} has findings", day)
    # The auditors' digest: only on the days something was new (a missed service; the late filing).
    digests = {subject: recipients for (kind, subject), recipients in list(got.items()) if kind == "auditor_digest"}
    assert sorted(day for recipients in digests.values() for _, day in recipients) == [
        date(2026, 6, 4),
        date(2026, 6, 6),
        date(2026, 7, 9),
    ]
    for subject in digests:
        got.pop(("auditor_digest", subject))
    # The hauler's office: each delivery the site has no record of 72 hours on, once, the first
    # day after (the late filing's, the day after it was filed).
    office = ["dispatcher@demo.fogx.test", "hauler-admin@demo.fogx.test"]
    unreceived = {subject: sorted(to) for (kind, subject), to in got.items() if kind == "delivery_unreceived"}
    assert unreceived == {
        f"No receipt from High Desert Renewables for manifest {number}": [(p, day) for p in office]
        for number, day in (("S-1", date(2026, 6, 6)), ("S-2", date(2026, 6, 11)), ("S-3", date(2026, 6, 12)))
    }
    for subject in unreceived:
        got.pop(("delivery_unreceived", subject))
    # The clerk: the deliveries the site has no record of, every day, once a day.
    assert {kind for kind, _ in got} == {"deliveries_awaiting"}
    clerk = sorted(sent for recipients in got.values() for sent in recipients)
    assert clerk == [("clerk@demo.fogx.test", FIRST + timedelta(days=n)) for n in range(DAYS)]
