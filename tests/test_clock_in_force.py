"""A device's clock runs only while it is in service on a permit in force: the days between an
expired permit and a late renewal do not count, a device registered later is counted from the
day it was put in service, and a retired device is never due nor missed from its retirement
on. Each case is asked of the SQL lists (missed services as of a day and by period, the FSE's
service status, the hauler's due list) and of the Python judgements (the record, the filing's
finding), which must agree."""

from datetime import date

from tests import factories
from tests.ordinance_cases import (
    admin_of,
    auditor_of,
    by_tag,
    findings_of,
    missed,
    move,
    pacific,
    register_device,
    world_in,
)

CITY = "victorville"


def service_status(client, token, fse_id, **query):
    response = client.get(f"/v1/fses/{fse_id}/service-status", query_string=query, headers=factories.bearer(token))
    assert response.status_code == 200, response.json
    return response.json["items"]


def record_devices(client, token, fse_id, **query):
    response = client.get(f"/v1/fses/{fse_id}/records", query_string=query, headers=factories.bearer(token))
    assert response.status_code == 200, response.json
    return response.json["summary"]["devices"]


def issue_late_permit(client, admin, world):
    """VV-LATE, issued from 1 August 2026 for a year, for the world's FSE."""
    created = client.post(
        "/v1/permits",
        headers=factories.bearer(admin),
        json={
            "permit_number": "VV-LATE",
            "fse_id": str(world.device.fse_id),
            "kind": "regular",
            "issued_on": "2026-08-01",
            "expires_on": "2027-07-31",
        },
    )
    assert created.status_code == 201, created.json


def late_renewal(client, session, frozen_clock):
    """Victorville's repro: permit A from 1 July 2025 to 30 June 2026, its 90-day interceptor
    pumped on 1 May 2026; on 25 July the admin issues VV-LATE from 1 August and moves the
    device onto it from then."""
    world = world_in(client, session, frozen_clock, CITY, now=pacific(2026, 5, 2, 9))
    world.permit.issued_on, world.permit.expires_on = date(2025, 7, 1), date(2026, 6, 30)
    session.commit()
    assert world.post(world.body(completed=pacific(2026, 5, 1, 9), disposal=None)).status_code == 201
    frozen_clock(pacific(2026, 7, 25, 9))
    admin = admin_of(client, session, CITY)
    issue_late_permit(client, admin, world)
    moved = move(client, admin, world, "GI-1", permit_number="VV-LATE", effective_on="2026-08-01", reason="Late.")
    assert moved.status_code == 201, moved.json
    return world


def test_the_days_between_an_expired_permit_and_a_late_renewal_do_not_count(client, session, frozen_clock):
    """Victorville 10.03.080(a): "The FOG permit shall be issued for a one-year period and shall
    be renewed annually", and 10.03.050(a): "All FSE operators shall obtain a FOG permit". The
    31 days from 1 July (the day after permit A's expiry) to 31 July (the day before VV-LATE's
    first day) are not in force and do not count: the service of 1 May is due on 30 August, not
    30 July, in the missed services (as of a day and by period), the FSE's service status, the
    hauler's due list, the record and the finding of the next filing (at 23:30 Pacific on 30
    August in time; at 00:30 on 31 August one day late)."""
    world = late_renewal(client, session, frozen_clock)
    frozen_clock(pacific(2026, 8, 5, 9))
    auditor = auditor_of(client, session)
    assert missed(client, auditor, as_of="2026-08-05") == []
    assert missed(client, auditor, **{"from": "2026-05-02", "to": "2026-08-30"}) == []
    fields = ("permit_number", "status", "due_on")
    assert by_tag(service_status(client, auditor, world.device.fse_id, as_of="2026-08-05"), *fields) == {
        "GI-1": ("VV-LATE", "compliant", "2026-08-30")
    }
    assert record_devices(client, auditor, world.device.fse_id)["GI-1"]["next_due_on"] == "2026-08-30"
    # The dashboard counts only the gap before the first pump-out (never serviced from July 2025).
    trends = client.get("/v1/audit/trends", headers=factories.bearer(auditor)).json
    assert {month["month"]: month["missed_services"] for month in trends["months"] if month["missed_services"]} == {
        "2025-09": 1
    }
    world.reauthenticate()
    listed = client.get("/v1/manifests", headers=factories.bearer(world.hauler_token)).json["items"]
    assert [row["due_by"] for row in listed] == ["2026-08-30"]
    due = client.get(
        "/v1/haulers/me/due", query_string={"within_days": 30}, headers=factories.bearer(world.hauler_token)
    )
    assert due.status_code == 200, due.json
    assert [(row["device_tag"], row["due_on"]) for row in due.json["items"]] == [("GI-1", "2026-08-30")]
    # The day after the due day, it is missed by one day, on the permit it is on then.
    assert by_tag(missed(client, auditor, as_of="2026-08-31"), *fields, "days_overdue") == {
        "GI-1": ("VV-LATE", "missed", "2026-08-30", 1)
    }
    period = missed(client, auditor, **{"from": "2026-05-02", "to": "2026-08-31"})
    assert by_tag(period, "permit_number", "due_on", "days_late") == {"GI-1": ("VV-LATE", "2026-08-30", 1)}
    frozen_clock(pacific(2026, 9, 1, 9))
    world.reauthenticate()

    def body(completed):
        return world.body(completed=completed, disposal=None, permit_number="VV-LATE")

    late = findings_of(world.post(body(pacific(2026, 8, 31, 0, 30))))
    assert late["service_interval_exceeded"]["message"].startswith("122 days since the previous qualifying service;")
    assert "at most 121 allowed" in late["service_interval_exceeded"]["message"]
    in_time = findings_of(world.post(body(pacific(2026, 8, 30, 23, 30))))
    assert "service_interval_exceeded" not in in_time


def test_the_sql_lists_and_the_record_agree_on_every_week(client, session, frozen_clock):
    """Exchange policy, one rule in two places: the FSE's service status (SQL) and the record
    (Python) give each device the same status, due day and lateness on every week from April to
    December, across an expiry and a late renewal (GI-1), a device put in service later, moved,
    then retired (GI-2)."""
    from datetime import timedelta

    from services.records import record as records

    world = world_in(client, session, frozen_clock, CITY, now=pacific(2026, 5, 2, 9))
    world.permit.issued_on, world.permit.expires_on = date(2025, 7, 1), date(2026, 6, 30)
    session.commit()
    admin = admin_of(client, session, CITY)
    assert register_device(client, admin, world, tag="GI-2", frequency_days=60).status_code == 201
    assert world.post(world.body(completed=pacific(2026, 5, 1, 9), disposal=None)).status_code == 201
    frozen_clock(pacific(2026, 7, 25, 9))
    admin = admin_of(client, session, CITY)
    issue_late_permit(client, admin, world)
    for tag in ("GI-1", "GI-2"):
        moved = move(client, admin, world, tag, permit_number="VV-LATE", effective_on="2026-08-01", reason="Late.")
        assert moved.status_code == 201, moved.json
    gi2 = moved.json["id"]
    retired = client.post(
        f"/v1/fses/{world.device.fse_id}/devices/{gi2}/retirement",
        json={"effective_on": "2026-09-15", "reason": "Replaced."},
        headers=factories.bearer(admin),
    )
    assert retired.status_code == 201, retired.json
    frozen_clock(pacific(2026, 12, 20, 9))
    auditor = auditor_of(client, session)
    day, seen = date(2026, 4, 1), set()
    while day <= date(2026, 12, 20):
        sql = by_tag(
            service_status(client, auditor, world.device.fse_id, as_of=day.isoformat()),
            "status",
            "due_on",
            "days_overdue",
        )
        # The record itself (its export is rate-limited): each device's line in its summary.
        session.expire_all()
        summary = records.build(session, world.device.fse, period_to=day).summary["devices"]
        python = {tag: (line["status"], line["next_due_on"], line["days_overdue"]) for tag, line in summary.items()}
        assert sql == python, day
        seen |= {status for status, _, _ in sql.values()}
        day += timedelta(days=7)
    assert {"permit_ended", "retired", "never_serviced", "compliant", "missed"} <= seen, seen


def test_a_permit_past_its_expiry_ends_its_devices_as_a_revoked_one_does(client, session, frozen_clock):
    """Victorville 10.03.080(a): a permit is "issued for a one-year period". Between permit A's
    expiry (30 June) and the renewal's first day (1 August), the device is on a permit no longer
    in force: as a revoked permit's devices, it is not due (`permit_ended`, no due date) and not
    listed as missed; its permit then is A, expired. Asked about 30 June, its last day, A is
    active and the device due as before."""
    world = late_renewal(client, session, frozen_clock)
    frozen_clock(pacific(2026, 8, 5, 9))
    auditor = auditor_of(client, session)
    fields = ("permit_number", "permit_status", "status", "due_on")
    number = world.permit.permit_number
    assert by_tag(service_status(client, auditor, world.device.fse_id, as_of="2026-07-10"), *fields) == {
        "GI-1": (number, "expired", "permit_ended", None)
    }
    assert by_tag(service_status(client, auditor, world.device.fse_id, as_of="2026-06-30"), *fields) == {
        "GI-1": (number, "active", "compliant", "2026-07-30")
    }
    assert missed(client, auditor, as_of="2026-07-31") == []
    assert record_devices(client, auditor, world.device.fse_id, to="2026-07-10")["GI-1"] == {
        "status": "permit_ended",
        "next_due_on": None,
        "days_overdue": 0,
    }


def test_a_device_registered_later_is_counted_from_the_day_it_was_put_in_service(client, session, frozen_clock):
    """Exchange policy (DESIGN: counting runs "from the day the object was registered"): a
    device added on 1 June 2026 to a permit issued on 1 January 2025 is put in service that day
    (the city's today unless told), so it was never late in 2025 and is due 90 days later, on 30
    August 2026, in the lists and the record alike; missed from 31 August."""
    world = world_in(client, session, frozen_clock, CITY, now=pacific(2026, 6, 1, 9))
    admin = admin_of(client, session, CITY)
    added = register_device(client, admin, world, tag="GI-NEW", frequency_days=90)
    assert added.status_code == 201, added.json
    assert added.json["in_service_on"] == "2026-06-01" and added.json["retired_on"] is None
    auditor = auditor_of(client, session)
    assert "GI-NEW" not in by_tag(missed(client, auditor, **{"from": "2025-01-01", "to": "2025-12-31"}))
    assert "GI-NEW" not in by_tag(missed(client, auditor, as_of="2026-06-01"))
    fields = ("status", "due_on", "days_overdue")
    status = by_tag(service_status(client, auditor, world.device.fse_id), *fields)
    assert status["GI-NEW"] == ("never_serviced", "2026-08-30", 0)
    assert record_devices(client, auditor, world.device.fse_id)["GI-NEW"]["next_due_on"] == "2026-08-30"
    frozen_clock(pacific(2026, 9, 2, 9))
    auditor = auditor_of(client, session)
    assert "GI-NEW" not in by_tag(missed(client, auditor, as_of="2026-08-30"))
    assert by_tag(missed(client, auditor, as_of="2026-08-31"), *fields)["GI-NEW"] == ("never_serviced", "2026-08-30", 1)
    period = missed(client, auditor, **{"from": "2026-06-01", "to": "2026-08-31"})
    assert by_tag(period, "due_on", "days_late")["GI-NEW"] == ("2026-08-30", 1)
    record = record_devices(client, auditor, world.device.fse_id, to="2026-08-31")
    assert record["GI-NEW"] == {"status": "never_serviced", "next_due_on": "2026-08-30", "days_overdue": 1}


def test_the_day_in_service_is_the_admins_to_give_within_the_permit(client, session, frozen_clock):
    """Exchange policy: a day in service before the permit's first day counts from that first
    day (the clock starts at the later of the two); one after the permit's last day is refused
    with a 422 that says why."""
    world = world_in(client, session, frozen_clock, CITY, now=pacific(2026, 6, 1, 9))
    admin = admin_of(client, session, CITY)
    early = register_device(client, admin, world, tag="GI-OLD", frequency_days=90, in_service_on="2020-03-01")
    assert early.status_code == 201 and early.json["in_service_on"] == "2020-03-01"
    auditor = auditor_of(client, session)
    assert by_tag(service_status(client, auditor, world.device.fse_id), "due_on")["GI-OLD"] == ("2025-04-01",)
    refused = register_device(client, admin, world, tag="GI-LATE", in_service_on="2028-01-01")
    assert refused.status_code == 422 and refused.mimetype == "application/problem+json"
    assert refused.json["errors"] == {"in_service_on": ["Must not be after the permit's last day (2027-12-31)."]}


def retire(client, token, world, **body):
    return client.post(
        f"/v1/fses/{world.device.fse_id}/devices/{world.device.id}/retirement",
        json=body,
        headers=factories.bearer(token),
    )


def test_a_retired_device_is_never_due_nor_missed_from_its_retirement_on(client, session, frozen_clock):
    """Exchange policy: a device retired (removed, replaced) from a day on is never due nor
    missed from then, and the days before stay as judged. GI-1, pumped 5 January (due 5 April),
    retired from 20 April: as of 10 April it is 5 days missed as before; from 20 April it is
    `retired` with no due date; by period its gap ends on 19 April, 14 days late; a pump-out on
    or after 20 April raises `permit_not_active` (as a revoked permit's device does: no permit
    covers it, Victorville 10.03.050(a)) and no interval finding, one at 23:30 Pacific on 19
    April neither."""
    world = world_in(client, session, frozen_clock, CITY, now=pacific(2026, 1, 6, 9))
    assert world.post(world.body(completed=pacific(2026, 1, 5, 9))).status_code == 201
    frozen_clock(pacific(2026, 3, 1, 9))
    admin = admin_of(client, session, CITY)
    retired = retire(client, admin, world, effective_on="2026-04-20", reason="Removed in the kitchen remodel.")
    assert retired.status_code == 201, retired.json
    assert (retired.json["retired_on"], retired.json["retired_reason"]) == (
        "2026-04-20",
        "Removed in the kitchen remodel.",
    )
    frozen_clock(pacific(2026, 6, 1, 9))
    auditor = auditor_of(client, session)
    fields = ("status", "due_on", "days_overdue")
    assert by_tag(missed(client, auditor, as_of="2026-04-10"), *fields) == {"GI-1": ("missed", "2026-04-05", 5)}
    assert by_tag(missed(client, auditor, as_of="2026-04-19"), *fields) == {"GI-1": ("missed", "2026-04-05", 14)}
    assert missed(client, auditor, as_of="2026-04-20") == []
    assert by_tag(service_status(client, auditor, world.device.fse_id), *fields) == {"GI-1": ("retired", None, 0)}
    assert record_devices(client, auditor, world.device.fse_id)["GI-1"] == {
        "status": "retired",
        "next_due_on": None,
        "days_overdue": 0,
    }
    assert record_devices(client, auditor, world.device.fse_id, to="2026-04-10")["GI-1"]["status"] == "missed"
    period = missed(client, auditor, **{"from": "2026-01-06", "to": "2026-06-01"})
    assert by_tag(period, "due_on", "days_late") == {"GI-1": ("2026-04-05", 14)}
    trends = client.get("/v1/audit/trends", headers=factories.bearer(auditor)).json
    assert {month["month"]: month["missed_services"] for month in trends["months"] if month["missed_services"]} == {
        "2026-04": 1
    }
    world.reauthenticate()
    before = findings_of(world.post(world.body(completed=pacific(2026, 4, 19, 23, 30), disposal=None)))
    assert "permit_not_active" not in before
    after = findings_of(world.post(world.body(completed=pacific(2026, 4, 20, 0, 30), disposal=None)))
    assert after["permit_not_active"]["message"] == "Device retired on 2026-04-20: no permit covered it on 2026-04-20."
    assert after["permit_not_active"]["citation"] == "Victorville 10.03.050(a)"
    after_while = findings_of(world.post(world.body(completed=pacific(2026, 5, 30, 9), disposal=None)))
    assert "permit_not_active" in after_while and "service_interval_exceeded" not in after_while
    changes = client.get(f"/v1/jurisdictions/{CITY}/registry-changes", headers=factories.bearer(auditor)).json
    retirement = [row for row in changes["items"] if row["action"] == "device.retired"]
    assert len(retirement) == 1 and retirement[0]["by_role"] == "admin"
    assert retirement[0]["subject_id"] == str(world.device.id)


def test_a_retirement_is_the_citys_admins_from_today_on_and_once(client, session, frozen_clock):
    """Exchange policy: a retirement never reaches back (not before the city's today), needs a
    reason, is made once (409 after), by the city's admin (an auditor or a hauler may not; for
    another city's admin the device does not exist)."""
    world = world_in(client, session, frozen_clock, CITY, now=pacific(2026, 6, 1, 9))
    admin = admin_of(client, session, CITY)
    past = retire(client, admin, world, effective_on="2026-05-31", reason="Removed.")
    assert past.status_code == 422 and past.json["errors"] == {
        "effective_on": ["Must not be before today (2026-06-01): the past is not rewritten."]
    }
    assert retire(client, admin, world, effective_on="2026-06-01").status_code == 422
    assert retire(client, auditor_of(client, session), world, effective_on="2026-06-01", reason="x").status_code == 403
    assert retire(client, world.hauler_token, world, effective_on="2026-06-01", reason="x").status_code == 403
    factories.jurisdiction(session, "tracy")
    elsewhere = retire(client, admin_of(client, session, "tracy"), world, effective_on="2026-06-01", reason="x")
    assert elsewhere.status_code == 404
    assert retire(client, admin, world, effective_on="2026-06-01", reason="Removed.").status_code == 201
    again = retire(client, admin, world, effective_on="2026-07-01", reason="Removed.")
    assert again.status_code == 409 and again.mimetype == "application/problem+json"


def test_the_devices_import_takes_the_day_in_service_and_a_retirement(client, session, frozen_clock):
    """Exchange policy, through the CSV import as through the API: a new device's
    `in_service_on` (default the city's today), never changed for a registered device; a
    `retired_on` from today on, with `reason`."""
    from tests.registry_calls import imported

    world = world_in(client, session, frozen_clock, CITY, now=pacific(2026, 6, 1, 9))
    admin = admin_of(client, session, CITY)
    number = world.permit.permit_number
    header = "permit_number,tag,kind,capacity_gallons,liquid_depth_in,frequency_days,in_service_on,retired_on,reason"
    rows = f"{header}\n{number},GI-2,interceptor,1500,48,90,2026-03-01,,\n{number},GI-3,interceptor,1500,48,90,,,\n"
    assert imported(client, admin, "devices", rows)["created"] == 2
    listed = client.get(f"/v1/fses/{world.device.fse_id}/devices", headers=factories.bearer(admin)).json["items"]
    assert {row["tag"]: row["in_service_on"] for row in listed if row["tag"] != "GI-1"} == {
        "GI-2": "2026-03-01",
        "GI-3": "2026-06-01",
    }
    rewrite = imported(client, admin, "devices", f"{header}\n{number},GI-2,interceptor,1500,48,90,2026-01-01,,\n")
    assert rewrite["rejected"] == 1 and rewrite["rejections"][0]["errors"] == {
        "in_service_on": ["Not changed for a registered device."]
    }
    past = imported(client, admin, "devices", f"{header}\n{number},GI-2,interceptor,1500,48,90,,2026-05-01,Gone.\n")
    assert past["rejected"] == 1
    retiring = f"{header}\n{number},GI-2,interceptor,1500,48,90,,2026-07-01,Replaced by GI-3.\n"
    assert imported(client, admin, "devices", retiring)["updated"] == 1
    assert imported(client, admin, "devices", retiring)["unchanged"] == 1
    listed = client.get(f"/v1/fses/{world.device.fse_id}/devices", headers=factories.bearer(admin)).json["items"]
    assert {row["tag"]: (row["retired_on"], row["retired_reason"]) for row in listed}["GI-2"] == (
        "2026-07-01",
        "Replaced by GI-3.",
    )


def test_devices_made_before_0039_keep_the_day_their_clock_started(app, client, session, frozen_clock):
    """The upgrade puts each device in service on its first permit's first day (that of the
    permit a renewal moved it from), the day its clock started before: the lists say the same
    after it as before."""
    from pathlib import Path

    from alembic.script import ScriptDirectory

    from tests.ordinance_cases import renewed

    world, admin, new = renewed(client, session, frozen_clock)
    assert move(client, admin, world, "GI-1", permit_number=new["permit_number"], reason="Renewal.").status_code == 201
    frozen_clock(pacific(2026, 7, 10, 9))
    auditor = auditor_of(client, session)
    fields = ("permit_number", "status", "due_on", "days_overdue")
    before = by_tag(missed(client, auditor, as_of="2026-07-05"), *fields)
    assert set(before) == {"GI-1"}
    migrations = Path(__file__).resolve().parent.parent / "migrations"
    factories.migrated_again(app, session, down_to=ScriptDirectory(str(migrations)).get_revision("0039").down_revision)
    auditor = auditor_of(client, session)
    listed = client.get(f"/v1/fses/{world.device.fse_id}/devices", headers=factories.bearer(auditor)).json["items"]
    assert {row["tag"]: row["in_service_on"] for row in listed} == {"GI-1": "2025-07-01", "GI-2": "2025-07-01"}
    assert by_tag(missed(client, auditor, as_of="2026-07-05"), *fields) == before
