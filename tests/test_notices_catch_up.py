"""The daily pass, through a real SMTP server on a moved clock: the hauler's office hears once of
a delivery its site has no record of by the deadline (not of one the site disputes or received);
days the service was down over a city's 06:00 are run by the next round, in order, each once
across two instances, a week back at most."""

from datetime import date, datetime, time, timedelta
from zoneinfo import ZoneInfo

from sqlalchemy import select

from services.demo import data as demo
from storage.models import Jurisdiction
from storage.notice_models import NoticeDay
from tests import factories
from tests.conftest import https_client
from tests.notice_mail import demo_city, person_token, run_pass, smtp, two_instances  # noqa: F401

PACIFIC = ZoneInfo("America/Los_Angeles")
OFFICE = ("dispatcher@demo.fogx.test", "hauler-admin@demo.fogx.test")


def local(day, hour, minute=0):
    return datetime.combine(day, time(hour, minute), PACIFIC)


def service(number, permit, tag, done, *, ticket=None, gallons=48):
    """The demo hauler's pump-out done at `done`, delivered to the demo site half an hour later
    on `ticket` (none: no disposal named)."""
    body = {
        "manifest_number": number,
        "permit_number": permit,
        "device_tag": tag,
        "vehicle_id": "TRK-7",
        "driver_name": "Sam Ortiz",
        "fse_signer_name": "Ana Ruiz",
        "service_started_at": (done - timedelta(hours=1)).isoformat(),
        "service_completed_at": done.isoformat(),
        "waste_type": "grease_trap_waste" if tag == "GT-1" else "grease_interceptor_waste",
        "gallons_removed": gallons,
        "decant_returned_gallons": 0,
        "full_pump_down": True,
    }
    if ticket:
        body["disposal"] = {
            "site_id": str(demo.DEMO_SITE_ID),
            "ticket_number": ticket,
            "delivered_at": (done + timedelta(minutes=30)).isoformat(),
            "gallons_delivered": gallons,
        }
    return body


def subjects(inbox, address, kind=None):
    return [m["Subject"] for m in inbox.to(address) if kind is None or m["X-Fogx-Notice"] == kind]


def test_the_office_hears_once_of_a_delivery_the_site_has_no_record_of(demo_city, frozen_clock):
    app, inbox = demo_city
    http = https_client(app)
    frozen_clock(local(date(2026, 6, 2), 8))
    dispatcher = factories.bearer(person_token(app, "dispatcher@demo.fogx.test", "manifests:read"))
    assert http.patch("/v1/me/notice-choices", headers=dispatcher, json={"language": "es"}).status_code == 200
    hauler = factories.bearer(factories.token(http, "demo-hauler", "demo-hauler-secret"))
    site = factories.bearer(factories.token(http, "demo-site", "demo-site-secret"))
    done = local(date(2026, 6, 2), 7)
    filed = {
        number: http.post(
            "/v1/manifests", headers=hauler, json=service(number, permit, tag, done, ticket=ticket, gallons=gallons)
        )
        for number, permit, tag, ticket, gallons in (
            ("IGS-8001", "VV-FOG-0001", "GI-1", "HDR-8001", 1455),  # the site never reports it
            ("IGS-8002", "VV-FOG-0002", "GT-1", "HDR-8002", 48),  # the site disputes it
            ("IGS-8003", "VV-FOG-0002", "GI-1", "HDR-8003", 970),  # the site received it
        )
    }
    assert {number: r.status_code for number, r in filed.items()} == dict.fromkeys(filed, 201)
    reason = {"reason": "No such load came through the gate."}
    disputed = http.post(f"/v1/deliveries/{filed['IGS-8002'].json['id']}/disputes", headers=site, json=reason)
    assert disputed.status_code == 201
    receipt = {
        "ticket_number": "HDR-8003",
        "hauler_licence_number": "IGS-44812",
        "vehicle_id": "TRK 7",
        "waste_type": "grease_interceptor_waste",
        "gallons_received": 970,
        "received_at": (done + timedelta(minutes=40)).isoformat(),
    }
    assert http.post("/v1/receipts", headers=site, json=receipt).status_code == 201

    # Delivered at 07:30 on 2 June: the 72 hours run out at 07:30 on the 5th, after its pass.
    frozen_clock(local(date(2026, 6, 5), 6))
    run_pass(app, date(2026, 6, 5))
    assert all(subjects(inbox, address, "delivery_unreceived") == [] for address in OFFICE)
    frozen_clock(local(date(2026, 6, 6), 6))
    run_pass(app, date(2026, 6, 6))
    [spanish] = [m for m in inbox.to("dispatcher@demo.fogx.test") if m["X-Fogx-Notice"] == "delivery_unreceived"]
    [english] = [m for m in inbox.to("hauler-admin@demo.fogx.test") if m["X-Fogx-Notice"] == "delivery_unreceived"]
    assert english["Subject"] == "No receipt from High Desert Renewables for manifest IGS-8001"
    text = english.get_body(("plain",)).get_content()
    assert "on ticket HDR-8001 on 2026-06-02; 72 hours on" in text and "Rule: exchange policy." in text
    assert f"https://fogx.test/portal/#manifest={filed['IGS-8001'].json['id']}" in text
    assert english["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    assert spanish["Subject"] == "Sin recibo de High Desert Renewables para el manifiesto IGS-8001"
    assert spanish["Content-Language"] == "es"
    assert "Norma: política del intercambio." in spanish.get_body(("plain",)).get_content()
    # Never twice, however many passes follow; the disputed one was told of as a dispute.
    for day in (date(2026, 6, 7), date(2026, 6, 8)):
        frozen_clock(local(day, 6))
        run_pass(app, day)
    for address in OFFICE:
        assert len(subjects(inbox, address, "delivery_unreceived")) == 1
        [dispute] = subjects(inbox, address, "delivery_disputed")
        assert "IGS-8002" in dispute


def victorville_days(ran):
    """The Victorville days each instance ran, in its order; checked ascending and disjoint."""
    each = [[day for code, day, _ in done if code == "victorville"] for done in ran]
    for days in each:
        assert days == sorted(days)
    days = [day for days in each for day in days]
    assert len(days) == len(set(days)), days
    return sorted(days)


def test_days_the_service_was_down_are_caught_up_in_order_once_a_week_back_at_most(demo_city, frozen_clock, session):
    app, inbox = demo_city
    city = session.scalar(select(Jurisdiction.id).where(Jurisdiction.code == "victorville"))

    def run_days():
        return [
            d.isoformat()
            for d in session.scalars(
                select(NoticeDay.day).where(NoticeDay.jurisdiction_id == city).order_by(NoticeDay.day)
            )
        ]

    # The first round before the city's first 06:00 runs nothing: no day was missed before it.
    frozen_clock(local(date(2026, 6, 1), 5, 59))
    assert victorville_days(two_instances(app)) == []
    frozen_clock(local(date(2026, 6, 1), 6))
    assert victorville_days(two_instances(app)) == ["2026-06-01"]
    assert len(subjects(inbox, "clerk@demo.fogx.test", "deliveries_awaiting")) == 1

    # Down from then until 10:00 on 5 June. Mesa Grill's interceptor, due 3 June, was serviced
    # at 07:00 on the 5th: the overdue notice of 4 June is news no longer, and is not sent.
    frozen_clock(local(date(2026, 6, 5), 8))
    hauler = factories.bearer(factories.token(https_client(app), "demo-hauler", "demo-hauler-secret"))
    mesa = service("IGS-8101", "VV-FOG-0001", "GI-1", local(date(2026, 6, 5), 7), gallons=1455)
    assert https_client(app).post("/v1/manifests", headers=hauler, json=mesa).status_code == 201
    frozen_clock(local(date(2026, 6, 5), 10))
    assert victorville_days(two_instances(app)) == ["2026-06-02", "2026-06-03", "2026-06-04", "2026-06-05"]
    assert "Grease device GI-1 at Mesa Grill is overdue" not in subjects(inbox, "operator@demo.fogx.test")
    # The days' digests each once (a service missed on the 4th), and one list of deliveries
    # awaiting the site: today's, not one a day caught up.
    assert subjects(inbox, "auditor@demo.fogx.test") == ["FOG program digest for City of Victorville, 2026-06-04"]
    assert len(subjects(inbox, "clerk@demo.fogx.test", "deliveries_awaiting")) == 2
    # A later round the same day runs nothing again.
    frozen_clock(local(date(2026, 6, 5), 11))
    assert victorville_days(two_instances(app)) == []

    # Down until 10:00 on 12 June: Golden Wok's trap, due 10 June, is told of as overdue (the
    # pass of the 11th), once, to the restaurant and the hauler's office.
    frozen_clock(local(date(2026, 6, 12), 10))
    assert victorville_days(two_instances(app)) == [f"2026-06-{d:02d}" for d in range(6, 13)]
    overdue = "Grease device GT-1 at Golden Wok is overdue"
    for address in ("operator@demo.fogx.test", *OFFICE):
        assert subjects(inbox, address).count(overdue) == 1, address

    # Down for eighteen days: the round runs the last seven alone, today's included.
    frozen_clock(local(date(2026, 6, 30), 10))
    assert victorville_days(two_instances(app)) == [f"2026-06-{d:02d}" for d in range(24, 31)]
    assert run_days() == sorted(
        [f"2026-06-{d:02d}" for d in range(1, 13)] + [f"2026-06-{d:02d}" for d in range(24, 31)]
    )
    # Before the city's 06:00 the next day, yesterday's pass is the latest due: run already.
    frozen_clock(local(date(2026, 7, 1), 5))
    assert victorville_days(two_instances(app)) == []


def test_the_command_catches_up_the_days_missed_before_today(demo_city, frozen_clock):
    app, _ = demo_city
    frozen_clock(local(date(2026, 6, 1), 6))
    result = app.test_cli_runner().invoke(args=["notices", "run", "--city", "victorville", "--no-send"])
    assert [line.split(":")[0] for line in result.output.strip().splitlines()] == ["victorville 2026-06-01"]
    # Before the city's 06:00 on the 4th, by hand: the days missed, then today's.
    frozen_clock(local(date(2026, 6, 4), 5))
    output = app.test_cli_runner().invoke(args=["notices", "run", "--city", "victorville", "--no-send"]).output
    assert [line.split(":")[0] for line in output.strip().splitlines()] == [
        "victorville 2026-06-02",
        "victorville 2026-06-03",
        "victorville 2026-06-04",
    ]
    output = app.test_cli_runner().invoke(args=["notices", "run", "--city", "victorville", "--no-send"]).output
    assert output.strip() == "victorville 2026-06-04: already run"
