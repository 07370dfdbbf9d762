"""A restaurant or hauler with no people yet hears at the contact address on its record, in
English, through a real SMTP server; its one-click unsubscribe turns that kind off for the
address, and the other kinds still arrive."""

from datetime import date, timedelta

from sqlalchemy import select, update

from storage.models import Fse
from storage.notice_models import NoticePreference
from storage.people import Membership
from tests import factories
from tests.conftest import https_client
from tests.notice_mail import LOADED, SIX_AM, demo_city, run_pass, smtp  # noqa: F401

OFFICE, KITCHEN = "office@inlandgrease.example", "kitchen@mesagrill.example"


def trap_service(done):
    """The demo hauler's pump-out of Golden Wok's trap (GT-1, every 30 days), done at `done`."""
    return {
        "manifest_number": "IGS-7001",
        "permit_number": "VV-FOG-0002",
        "device_tag": "GT-1",
        "vehicle_id": "TRK-7",
        "driver_name": "Sam Ortiz",
        "fse_signer_name": "Ana Ruiz",
        "service_started_at": (done - timedelta(hours=1)).isoformat(),
        "service_completed_at": done.isoformat(),
        "waste_type": "grease_trap_waste",
        "gallons_removed": 48,
        "decant_returned_gallons": 0,
        "full_pump_down": True,
    }


def test_a_restaurant_and_a_hauler_with_no_people_hear_at_their_contact_address(demo_city, frozen_clock, session):
    app, inbox = demo_city
    http = https_client(app)
    admin = factories.bearer(factories.token(http, "demo-admin", "demo-admin-secret"))
    mesa = session.scalar(select(Fse.id).where(Fse.name == "Mesa Grill"))
    assert http.patch(f"/v1/fses/{mesa}", headers=admin, json={"contact_email": KITCHEN}).status_code == 200
    # Neither the restaurants nor the hauler have people any more (the demo's hauler has its
    # office's address on record; Golden Wok has none, so its operator's address is used).
    session.execute(
        update(Membership).where(Membership.organisation.in_(("restaurant", "hauler"))).values(removed_at=LOADED)
    )
    session.commit()

    frozen_clock(SIX_AM)
    run_pass(app, date(2026, 6, 2))
    [kitchen] = inbox.to(KITCHEN)
    assert kitchen["Subject"] == "Grease device GI-1 at Mesa Grill is due by 2026-06-03"
    assert (
        kitchen["Content-Language"] == "en"
        and "Rule: Victorville 10.03.160(c)." in kitchen.get_body(("plain",)).get_content()
    )
    assert [m["Subject"] for m in inbox.to("manager@example.com")] == [
        "Grease device GT-1 at Golden Wok is due by 2026-06-10"
    ]
    office = {m["Subject"]: m for m in inbox.to(OFFICE)}
    assert sorted(office) == [
        "Grease device GI-1 at Mesa Grill is due by 2026-06-03",
        "Grease device GT-1 at Golden Wok is due by 2026-06-10",
    ]
    assert all(m["Content-Language"] == "en" for m in office.values())
    for gone in ("operator@demo.fogx.test", "dispatcher@demo.fogx.test", "hauler-admin@demo.fogx.test"):
        assert inbox.to(gone) == []

    # The office's one click turns reminders off for its address, with no person behind it.
    mail = office["Grease device GT-1 at Golden Wok is due by 2026-06-10"]
    assert mail["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    path = mail["List-Unsubscribe"][1:-1].removeprefix("https://fogx.test")
    answer = http.post(path, data={"List-Unsubscribe": "One-Click"})
    assert answer.status_code == 200 and f"{OFFICE} will no longer get".encode() in answer.data
    assert session.get(NoticePreference, OFFICE).muted == ["device_due_soon"]

    # The hauler services Golden Wok's trap on 3 June: due again 3 July, within 14 days on 19 June.
    frozen_clock(SIX_AM + timedelta(days=1, hours=8))
    hauler = factories.bearer(factories.token(http, "demo-hauler", "demo-hauler-secret"))
    filed = http.post("/v1/manifests", headers=hauler, json=trap_service(SIX_AM + timedelta(days=1, hours=4)))
    assert filed.status_code == 201, filed.json
    # Mesa Grill's interceptor is overdue on 4 June: a kind the office did not turn off.
    frozen_clock(SIX_AM + timedelta(days=2))
    run_pass(app, date(2026, 6, 4))
    overdue = "Grease device GI-1 at Mesa Grill is overdue"
    assert overdue in [m["Subject"] for m in inbox.to(OFFICE)]
    assert overdue in [m["Subject"] for m in inbox.to(KITCHEN)]
    frozen_clock(SIX_AM + timedelta(days=17))
    run_pass(app, date(2026, 6, 19))
    reminder = "Grease device GT-1 at Golden Wok is due by 2026-07-03"
    assert reminder in [m["Subject"] for m in inbox.to("manager@example.com")]
    assert reminder not in [m["Subject"] for m in inbox.to(OFFICE)]
