"""Notices through a real SMTP server in the test process (aiosmtpd): what arrives, to whom, in
which language, with its citation, its link and its one-click unsubscribe; a server that refuses
for now gets each message once it accepts; a permanent refusal is kept as a bounce."""

import email
import email.policy
from datetime import date, datetime, timedelta

from sqlalchemy import select

from services.demo import data as demo
from storage.notice_models import Notice
from tests import factories
from tests.conftest import https_client
from tests.notice_mail import LOADED, SIX_AM, Inbox, demo_city, person_token, run_pass, smtp  # noqa: F401


def test_reminders_arrive_in_each_persons_language_with_citation_link_and_unsubscribe(demo_city, frozen_clock):
    app, inbox = demo_city
    http = https_client(app)
    operator = factories.bearer(person_token(app, "operator@demo.fogx.test", "records:read"))
    chosen = http.patch("/v1/me/notice-choices", headers=operator, json={"language": "es"})
    assert chosen.status_code == 200 and chosen.json["language"] == "es"

    frozen_clock(SIX_AM)
    output = run_pass(app, date(2026, 6, 2))
    assert "victorville 2026-06-02:" in output

    # Mesa Grill's interceptor, due on 3 June (its last service 89 days before, every 90 days),
    # and Golden Wok's trap, due on 10 June: within Victorville's 14 days.
    [mesa, wok] = sorted(inbox.to("operator@demo.fogx.test"), key=lambda m: m["Subject"])
    assert mesa["Content-Language"] == "es" and "Mesa Grill" in mesa["Subject"]
    assert mesa["Subject"].startswith("El dispositivo de grasa GI-1 de Mesa Grill vence el 2026-06-03")
    text = mesa.get_body(("plain",)).get_content()
    html = mesa.get_body(("html",)).get_content()
    assert "Norma: Victorville 10.03.160(c)." in text and "Victorville 10.03.160(c)" in html
    assert "https://fogx.test/portal/#fse=" in text and 'href="https://fogx.test/portal/#fse=' in html
    assert '<html lang="es">' in html
    assert "Victorville 10.03.160(g)(1)" in wok.get_body(("plain",)).get_content()
    unsubscribe = mesa["List-Unsubscribe"]
    assert unsubscribe.startswith("<https://fogx.test/notices/unsubscribe/") and unsubscribe.endswith(">")
    assert mesa["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    # The hauler's office (its admin and dispatcher, not its driver) hears in English.
    for address in ("dispatcher@demo.fogx.test", "hauler-admin@demo.fogx.test"):
        subjects = sorted(m["Subject"] for m in inbox.to(address))
        assert subjects == [
            "Grease device GI-1 at Mesa Grill is due by 2026-06-03",
            "Grease device GT-1 at Golden Wok is due by 2026-06-10",
        ]
    assert inbox.to("driver@demo.fogx.test") == []
    # The clerk of the site: the delivery it has no record of awaits it.
    [awaiting] = inbox.to("clerk@demo.fogx.test")
    assert "await" in awaiting["Subject"]

    # One click (RFC 8058): a POST to the link, no sign-in; the next day's reminder is not sent,
    # but the notice of the overdue device is.
    path = unsubscribe[1:-1].removeprefix("https://fogx.test")
    answer = http.post(path, data={"List-Unsubscribe": "One-Click"})
    assert answer.status_code == 200 and b"will no longer get" in answer.data
    operator = factories.bearer(person_token(app, "operator@demo.fogx.test", "records:read"))
    assert http.get("/v1/me/notice-choices", headers=operator).json["notices"]["device_due_soon"] is False
    assert http.post("/notices/unsubscribe/not-a-token").status_code == 404
    frozen_clock(SIX_AM + timedelta(days=2))
    run_pass(app, date(2026, 6, 4))
    subjects = [m["Subject"] for m in inbox.to("operator@demo.fogx.test")]
    assert subjects.count("El dispositivo de grasa GI-1 de Mesa Grill está vencido") == 1
    assert len(subjects) == 3
    # A day run again sends nothing again.
    assert "already run" in run_pass(app, date(2026, 6, 4))
    assert len(inbox.to("operator@demo.fogx.test")) == 3


def test_the_auditors_digest_carries_the_missed_services_as_csv_and_is_not_sent_when_nothing_is_new(
    demo_city, frozen_clock
):
    app, inbox = demo_city
    frozen_clock(SIX_AM)
    run_pass(app, date(2026, 6, 2))
    assert inbox.to("auditor@demo.fogx.test") == []  # nothing new on 2 June
    frozen_clock(SIX_AM + timedelta(days=2))
    run_pass(app, date(2026, 6, 4))  # Mesa Grill's interceptor, due 3 June, missed on the 4th
    [digest] = inbox.to("auditor@demo.fogx.test")
    assert digest["Subject"] == "FOG program digest for City of Victorville, 2026-06-04"
    assert "Missed services: 1." in digest.get_body(("plain",)).get_content()
    [sheet] = list(digest.iter_attachments())
    assert sheet.get_filename() == "missed-services-2026-06-04.csv" and sheet.get_content_type() == "text/csv"
    rows = sheet.get_content().splitlines()
    assert "fse_name" in rows[0] and len(rows) == 2 and "Mesa Grill" in rows[1]


def test_a_server_that_refuses_then_accepts_gets_each_message_once(make_app, smtp, frozen_clock, session):
    frozen_clock(LOADED)
    inbox = Inbox(refuse=2)
    app = make_app(SMTP_URL=f"smtp://127.0.0.1:{smtp(inbox)}")
    http = https_client(app)
    factories.jurisdiction(session)
    admin = factories.bearer(
        factories.token(http, *factories.oauth_client(session, role="admin", subject=["victorville"]))
    )
    for address in ("pat@v.example", "lee@v.example"):
        body = {"email": address, "organisation": "city", "role": "auditor", "jurisdiction": "victorville"}
        # The server refuses for now: the invitation is made all the same, its mail queued.
        assert http.post("/v1/invitations", headers=admin, json=body).status_code == 201
    assert inbox.messages == []
    queued = session.scalars(select(Notice).order_by(Notice.recipient)).all()
    assert [(n.state, n.attempts) for n in queued] == [("queued", 1), ("queued", 1)]
    assert "451" in queued[0].last_error

    with app.app_context():
        from services.notices import outbox
        from storage.db import db

        # Before their backoff has passed, nothing is tried again.
        assert outbox.send_due(db.session, app.config)["sent"] == 0
        frozen_clock(LOADED + timedelta(seconds=3))
        assert outbox.send_due(db.session, app.config) == {"sent": 2, "bounced": 0, "failed": 0, "retry": 0}
        frozen_clock(LOADED + timedelta(hours=2))
        assert outbox.send_due(db.session, app.config)["sent"] == 0
    frozen_clock(LOADED + timedelta(minutes=5))
    assert sorted(rcpts[0] for rcpts, _ in inbox.messages) == ["lee@v.example", "pat@v.example"]
    session.expire_all()
    assert {(n.state, n.attempts) for n in session.scalars(select(Notice))} == {("sent", 2)}
    # The admin reads its city's notices, with their state.
    listed = http.get("/v1/notices?state=sent", headers=admin)
    assert listed.status_code == 200
    assert sorted(n["recipient"] for n in listed.json["items"]) == ["lee@v.example", "pat@v.example"]
    assert {n["kind"] for n in listed.json["items"]} == {"invitation"}


def test_a_permanent_refusal_is_a_bounce_never_tried_again(make_app, smtp, frozen_clock, session):
    frozen_clock(LOADED)
    inbox = Inbox()
    app = make_app(SMTP_URL=f"smtp://127.0.0.1:{smtp(inbox)}")
    http = https_client(app)
    factories.jurisdiction(session)
    admin = factories.bearer(
        factories.token(http, *factories.oauth_client(session, role="admin", subject=["victorville"]))
    )
    body = {"email": "nobody@v.example", "organisation": "city", "role": "auditor", "jurisdiction": "victorville"}
    assert http.post("/v1/invitations", headers=admin, json=body).status_code == 201
    [notice] = session.scalars(select(Notice)).all()
    assert notice.state == "bounced" and "550" in notice.last_error
    assert [n["state"] for n in http.get("/v1/notices", headers=admin).json["items"]] == ["bounced"]
    assert http.get("/v1/notices?state=lost", headers=admin).status_code == 422
    frozen_clock(LOADED + timedelta(days=1))
    with app.app_context():
        from services.notices import outbox
        from storage.db import db

        assert outbox.send_due(db.session, app.config)["sent"] == 0
    assert inbox.messages == []


def test_the_demo_leaves_its_notices_in_the_mail_folder(app, frozen_clock):
    """What `make run` does: the demo loaded, then the day's notices, as files a mail program opens."""
    frozen_clock(LOADED)
    runner = app.test_cli_runner()
    assert runner.invoke(args=["demo", "load"]).exit_code == 0
    result = runner.invoke(args=["notices", "run"])
    assert result.exit_code == 0 and "victorville 2026-06-01:" in result.output and "sent=" in result.output
    from pathlib import Path

    mails = [
        email.message_from_bytes(p.read_bytes(), policy=email.policy.default)
        for p in Path(app.config["MAIL_DIR"]).glob("*.eml")
    ]
    subjects = {(m["To"], m["Subject"]) for m in mails}
    assert ("operator@demo.fogx.test", "Grease device GI-1 at Mesa Grill is due by 2026-06-03") in subjects
    assert any(to == "clerk@demo.fogx.test" for to, _ in subjects)
    assert all(m.get_body(("html",)) is not None and m["List-Unsubscribe-Post"] for m in mails)


def test_a_persons_choices_are_checked_and_a_program_has_none(demo_city):
    app, _ = demo_city
    http = https_client(app)
    auditor = factories.bearer(person_token(app, "auditor@demo.fogx.test", "audit:read"))
    mine = http.get("/v1/me/notice-choices", headers=auditor)
    assert mine.status_code == 200 and mine.json["email"] == "auditor@demo.fogx.test"
    assert mine.json["language"] == "en" and all(mine.json["notices"].values())
    for body in ({"language": "fr"}, {"notices": {"weather": False}}, {"notices": {"auditor_digest": "maybe"}}):
        refused = http.patch("/v1/me/notice-choices", headers=auditor, json=body)
        assert refused.status_code == 422 and refused.content_type == "application/problem+json"
    turned = http.patch("/v1/me/notice-choices", headers=auditor, json={"notices": {"auditor_digest": False}})
    assert turned.json["notices"]["auditor_digest"] is False and turned.json["notices"]["device_overdue"] is True
    program = factories.bearer(factories.token(http, "demo-auditor", "demo-auditor-secret"))
    missing = http.get("/v1/me/notice-choices", headers=program)
    assert missing.status_code == 404 and missing.content_type == "application/problem+json"


def test_the_haulers_office_hears_of_a_dispute_a_missing_disposal_and_a_rejected_correction(demo_city, frozen_clock):
    app, inbox = demo_city
    http = https_client(app)
    frozen_clock(SIX_AM)
    hauler = factories.bearer(factories.token(http, "demo-hauler", "demo-hauler-secret"))
    done = SIX_AM - timedelta(hours=3)
    body = {
        "manifest_number": "IGS-9001",
        "permit_number": "VV-FOG-0002",
        "device_tag": "GI-1",
        "vehicle_id": "TRK-7",
        "driver_name": "Sam Ortiz",
        "fse_signer_name": "Ana Ruiz",
        "service_started_at": (done - timedelta(hours=1)).isoformat(),
        "service_completed_at": done.isoformat(),
        "waste_type": "grease_interceptor_waste",
        "gallons_removed": 970,
        "decant_returned_gallons": 0,
        "full_pump_down": True,
    }
    unrecorded = http.post("/v1/manifests", headers=hauler, json=body)
    disputed = http.post(
        "/v1/manifests",
        headers=hauler,
        json={
            **body,
            "manifest_number": "IGS-9002",
            "permit_number": "VV-FOG-0001",
            "gallons_removed": 1455,
            "disposal": {
                "site_id": str(demo.DEMO_SITE_ID),
                "ticket_number": "HDR-9002",
                "delivered_at": (done + timedelta(hours=1)).isoformat(),
                "gallons_delivered": 1455,
            },
        },
    )
    assert unrecorded.status_code == 201 and disputed.status_code == 201, (unrecorded.json, disputed.json)
    site = factories.bearer(factories.token(http, "demo-site", "demo-site-secret"))
    reason = {"reason": "No truck TRK-7 came through the gate that day."}
    assert http.post(f"/v1/deliveries/{disputed.json['id']}/disputes", headers=site, json=reason).status_code == 201
    filed = http.get(f"/v1/manifests/{disputed.json['id']}", headers=hauler).json["manifest"]
    moved = {
        k: (datetime.fromisoformat(filed[k]) - timedelta(days=10)).isoformat()
        for k in ("service_started_at", "service_completed_at")
    }
    proposed = http.post(
        f"/v1/manifests/{disputed.json['id']}/corrections",
        headers=hauler,
        json={**filed, **moved, "reason": "Wrong day"},
    )
    assert proposed.status_code == 202, proposed.json
    auditor = factories.bearer(factories.token(http, "demo-auditor", "demo-auditor-secret"))
    rejected = http.post(
        f"/v1/audit/corrections/{proposed.json['id']}/reject",
        headers=auditor,
        json={"reason": "The ticket says today."},
    )
    assert rejected.status_code == 200, rejected.json
    runner = app.test_cli_runner()
    assert runner.invoke(args=["notices", "send"]).exit_code == 0
    # Four days on, the first manifest still names no disposal: `manifests reevaluate` finds it.
    frozen_clock(SIX_AM + timedelta(days=4))
    assert "on 1 manifest" in runner.invoke(args=["manifests", "reevaluate"]).output
    assert runner.invoke(args=["notices", "send"]).exit_code == 0
    for address in ("dispatcher@demo.fogx.test", "hauler-admin@demo.fogx.test"):
        got = {m["Subject"]: m for m in inbox.to(address)}
        assert "High Desert Renewables disputes the delivery of manifest IGS-9002" in got
        assert (
            "No truck TRK-7 came through the gate that day."
            in got["High Desert Renewables disputes the delivery of manifest IGS-9002"]
            .get_body(("plain",))
            .get_content()
        )
        decided = got["Your correction of manifest IGS-9002 was rejected"].get_body(("plain",)).get_content()
        assert "The ticket says today." in decided
        missing = got["No disposal is on record for manifest IGS-9001"].get_body(("plain",)).get_content()
        assert "72 hours" in missing and "Rule: exchange policy." in missing
    assert inbox.to("driver@demo.fogx.test") == []
