"""The fact in force on the day asked: after a renewal the lists, the record and the binder of a
day before the move show the permit the device was on then; the days a permit was not in force
stop a device's clock across a renewal and while a suspension still stands; San Clemente's
fourteen days' notice after an inspection; the demo's permits as each city's text issues them."""

import io
import re
from datetime import UTC, date, datetime, time, timedelta

import pytest
from pypdf import PdfReader

from domain import clock
from tests import factories
from tests.ordinance_cases import (
    admin_of,
    auditor_of,
    by_tag,
    change,
    findings_of,
    missed,
    move,
    pacific,
    renewed,
    world_in,
)

CITY = "victorville"


def set_status(client, session, world, status, day, permit_id=None):
    """The city records the change on its day (a status never changes before today), and the
    clock goes back to where the test had it."""
    was = clock.now()
    clock.freeze(pacific(day.year, day.month, day.day, 9))
    try:
        changed = client.patch(
            f"/v1/permits/{permit_id or world.permit.id}",
            headers=factories.bearer(admin_of(client, session, CITY)),
            json={"status": status, "effective_on": day.isoformat(), "reason": "Hearing officer's order."},
        )
    finally:
        clock.freeze(was)
    assert changed.status_code == 200, changed.json


def test_the_lists_the_record_and_the_binder_of_a_day_before_a_renewal_show_the_permit_then(
    client, session, frozen_clock
):
    """Victorville 10.03.080(a): "The FOG permit shall be issued for a one-year period and shall
    be renewed annually." A renewal moves the devices to the new permit from 1 July; asked about
    25 June (after the move was recorded, and after it took effect), the missed services (as of
    the day and by period), the FSE's service status, the record and the binder name the permit
    the device was on that day, with its status then; asked about 5 July, the new one."""
    world, admin, new = renewed(client, session, frozen_clock)
    old_number, new_number = world.permit.permit_number, new["permit_number"]
    for tag in ("GI-1", "GI-2"):
        assert move(client, admin, world, tag, permit_number=new_number, reason="Annual renewal.").status_code == 201
    frozen_clock(pacific(2026, 7, 10, 9))
    auditor = auditor_of(client, session)
    # GI-2 was never serviced: due 90 days after its first permit's issue, and listed since.
    fields = ("permit_number", "permit_status", "status")
    assert by_tag(missed(client, auditor, as_of="2026-06-25"), *fields)["GI-2"] == (
        old_number,
        "active",
        "never_serviced",
    )
    assert by_tag(missed(client, auditor, as_of="2026-07-05"), *fields)["GI-2"] == (
        new_number,
        "active",
        "never_serviced",
    )
    period = missed(client, auditor, **{"from": "2025-07-01", "to": "2026-06-25"})
    assert by_tag(period, "permit_number", "due_on")["GI-2"] == (old_number, "2025-09-29")
    status = client.get(
        f"/v1/fses/{world.device.fse_id}/service-status",
        query_string={"as_of": "2026-06-25"},
        headers=factories.bearer(auditor),
    ).json["items"]
    assert by_tag(status, "permit_number", "permit_status") == {
        "GI-1": (old_number, "active"),
        "GI-2": (old_number, "active"),
    }
    record_url = f"/v1/fses/{world.device.fse_id}/records"
    before = client.get(record_url, query_string={"to": "2026-06-25"}, headers=factories.bearer(auditor)).json
    assert {d["tag"]: (d["permit_number"], d["permit_status"]) for d in before["devices"]} == {
        "GI-1": (old_number, "active"),
        "GI-2": (old_number, "active"),
    }
    after = client.get(record_url, headers=factories.bearer(auditor)).json
    assert {d["tag"]: (d["permit_number"], d["permit_status"]) for d in after["devices"]} == {
        "GI-1": (new_number, "active"),
        "GI-2": (new_number, "active"),
    }
    binder = client.get(
        record_url, query_string={"to": "2026-06-25", "format": "pdf"}, headers=factories.bearer(auditor)
    )
    assert binder.status_code == 200
    text = " ".join(page.extract_text().replace("\u00a0", " ") for page in PdfReader(io.BytesIO(binder.data)).pages)
    text = " ".join(text.split())
    assert f"GI-1: interceptor, 1,500 gal, every 90 days, on permit {old_number} (active on 2026-06-25)" in text


def test_a_permit_revoked_before_its_renewal_ends_the_lists_on_its_own_days(client, session, frozen_clock):
    """Victorville 10.03.320(b)(4): a revoked permit gives "no right to discharge ... until such
    time as a new FOG permit is applied for and approved by the city". The permit revoked on 1
    March, a new one approved from 1 July: on the days between, the device is on the revoked
    permit, so it is due no more then (not listed as of 1 May), and a gap asked about by period
    ends on the revoked permit's last day in force (28 February), not on the period's last day;
    from 1 July it is on the new permit and listed again."""
    world, admin, new = renewed(client, session, frozen_clock)
    set_status(client, session, world, "revoked", date(2026, 3, 1))
    assert (
        move(client, admin, world, "GI-2", permit_number=new["permit_number"], reason="New permit.").status_code == 201
    )
    frozen_clock(pacific(2026, 7, 10, 9))
    auditor = auditor_of(client, session)
    assert missed(client, auditor, as_of="2026-05-01") == []
    assert by_tag(missed(client, auditor, as_of="2026-07-05"), "permit_number", "status", "due_on") == {
        "GI-2": (new["permit_number"], "never_serviced", "2025-09-29")
    }
    period = missed(client, auditor, **{"from": "2026-01-01", "to": "2026-06-25"})
    late = (date(2026, 2, 28) - date(2025, 9, 29)).days
    assert by_tag(period, "permit_number", "due_on", "days_late") == {
        "GI-1": (world.permit.permit_number, "2025-09-29", late),
        "GI-2": (world.permit.permit_number, "2025-09-29", late),
    }


def test_a_suspension_of_the_permit_left_at_renewal_still_stops_the_clock(client, session, frozen_clock):
    """Victorville 10.03.320(b)(4): "no right to discharge ... for the term of the temporary
    suspension". A 90-day interceptor pumped on 1 May (due 30 July); its permit suspended from 1
    June until the device moved to the renewal on 1 July: those 30 days do not count, on the old
    permit as on the new, so it is due on 29 August in the lists, the record, the receipt read
    back and the finding of the next filing."""
    world, admin, new = renewed(client, session, frozen_clock)
    assert world.post(world.body(completed=pacific(2026, 5, 1, 9), disposal=None)).status_code == 201
    set_status(client, session, world, "suspended", date(2026, 6, 1))
    for tag in ("GI-1", "GI-2"):
        assert move(client, admin, world, tag, permit_number=new["permit_number"], reason="Renewal.").status_code == 201
    frozen_clock(pacific(2026, 8, 29, 12))
    auditor = auditor_of(client, session)
    assert "GI-1" not in by_tag(missed(client, auditor, as_of="2026-08-29"))
    assert by_tag(missed(client, auditor, as_of="2026-08-30"), "status", "due_on", "days_overdue")["GI-1"] == (
        "missed",
        "2026-08-29",
        1,
    )
    assert "GI-1" not in by_tag(missed(client, auditor, **{"from": "2026-05-02", "to": "2026-08-29"}))
    record = client.get(f"/v1/fses/{world.device.fse_id}/records", headers=factories.bearer(auditor)).json
    assert record["summary"]["devices"]["GI-1"]["next_due_on"] == "2026-08-29"
    world.reauthenticate()
    listed = client.get("/v1/manifests", headers=factories.bearer(world.hauler_token)).json["items"]
    assert [row["due_by"] for row in listed] == ["2026-08-29"]
    on_time = world.post(world.body(completed=pacific(2026, 8, 29, 9), disposal=None))
    assert "service_interval_exceeded" not in findings_of(on_time)


def test_a_suspension_still_in_force_stops_the_clock_up_to_the_day_asked(client, session, frozen_clock):
    """Victorville 10.03.320(b)(4): "the permittee shall immediately cease and desist its
    discharge and shall have no right to discharge ... for the term of the temporary
    suspension". A 90-day interceptor pumped on 5 January (due 5 April); its permit suspended
    from 1 March and not yet reinstated: asked on 1 June, the 93 days from 1 March through 1
    June do not count, so it is due on 7 July, not missed since 5 April; a pump-out during the
    suspension is not late either."""
    world = world_in(client, session, frozen_clock, CITY, now=pacific(2026, 1, 6, 9))
    assert world.post(world.body(completed=pacific(2026, 1, 5, 9))).status_code == 201
    set_status(client, session, world, "suspended", date(2026, 3, 1))
    frozen_clock(pacific(2026, 6, 1, 12))
    auditor = auditor_of(client, session)
    assert missed(client, auditor, as_of="2026-06-01") == []
    assert missed(client, auditor, **{"from": "2026-01-06", "to": "2026-06-01"}) == []
    status = client.get(f"/v1/fses/{world.device.fse_id}/service-status", headers=factories.bearer(auditor)).json[
        "items"
    ]
    assert by_tag(status, "permit_status", "due_on", "status") == {"GI-1": ("suspended", "2026-07-07", "compliant")}
    record = client.get(f"/v1/fses/{world.device.fse_id}/records", headers=factories.bearer(auditor)).json
    assert record["summary"]["devices"]["GI-1"] == {
        "status": "compliant",
        "next_due_on": "2026-07-07",
        "days_overdue": 0,
    }
    world.reauthenticate()
    during = world.post(world.body(completed=pacific(2026, 5, 20, 9), disposal=None))
    assert "service_interval_exceeded" not in findings_of(during)


# Each city's notice for a change after an inspector's evaluation, and what it cites.
AFTER_INSPECTION = {
    "san-clemente": (14, "San Clemente 13.30.050(J)"),
    "victorville": (30, "Victorville 10.03.080(c)"),
    "placentia": (45, "Placentia 16.24 FOG Wastewater Discharge Permits (e)(3)"),
}


@pytest.mark.parametrize("city", sorted(AFTER_INSPECTION))
def test_san_clementes_fourteen_days_follow_an_inspectors_evaluation(client, session, frozen_clock, city):
    """San Clemente 13.30.050(J): "If the change to an existing Discharge Permit is the result of
    an Authorized Inspector's evaluation of the Food Service Establishment for permit
    non-compliance, then the Operator shall be given at least fourteen (14) days prior written
    notice of the Discharge Permit revision." A change marked `after_inspection` needs 14 days
    there (and 45 otherwise); Victorville and Placentia give no shorter notice, so their own holds."""
    days, cited = AFTER_INSPECTION[city]
    world = world_in(client, session, frozen_clock, city, now=pacific(2026, 6, 1, 9))
    admin = admin_of(client, session, city)
    device = str(world.device.id)
    short = (date(2026, 6, 1) + timedelta(days=days - 1)).isoformat()
    refused = change(
        client, admin, world, device, frequency_days=30, effective_on=short, reason="x", after_inspection=True
    )
    assert refused.status_code == 422 and refused.json["errors"]["effective_on"] == [
        f"Must be at least {days} days after the permittee was told ({cited}), or say why sooner in sooner_because."
    ]
    fourteen = (date(2026, 6, 1) + timedelta(days=14)).isoformat()
    if city == "san-clemente":
        ordinary = change(client, admin, world, device, frequency_days=30, effective_on=fourteen, reason="x")
        assert ordinary.status_code == 422 and ordinary.json["errors"]["effective_on"] == [
            "Must be at least 45 days after the permittee was told (San Clemente 13.30.050(J)), or say why sooner "
            "in sooner_because."
        ]
    on_time = (date(2026, 6, 1) + timedelta(days=days)).isoformat()
    changed = change(
        client,
        admin,
        world,
        device,
        frequency_days=30,
        effective_on=on_time,
        reason="Inspection found grease past the 25% rule.",
        after_inspection=True,
    )
    assert changed.status_code == 201, changed.json
    assert changed.json["frequency_changes"][0]["after_inspection"] is True
    rules = {
        row["rule"]: row
        for row in client.get(f"/v1/jurisdictions/{city}", headers=factories.bearer(admin)).json["rules"]
    }
    rule = rules["frequency_change_notice_inspection_days"]
    if city == "san-clemente":
        assert (rule["value"], rule["citation"], rule["basis"]) == (14, cited, "ordinance")
        assert rule["quote"].startswith("If the change to an existing Discharge Permit is the result of an")
    else:
        assert (rule["value"], rule["basis"]) == (None, "exchange_policy")


def test_the_demo_issues_victorvilles_permits_for_a_year_and_renews_them(app, client, frozen_clock):
    """Victorville 10.03.080(a): "The FOG permit shall be issued for a one-year period and shall
    be renewed annually." The demo's Victorville permits run a year each, each device moved to
    the next on its first day; the services of the year before are on the permit then in force,
    and the restaurant's record lists each under its own."""
    load_day = date(2026, 12, 3)
    frozen_clock(datetime.combine(load_day, time(12), tzinfo=UTC))
    assert app.test_cli_runner().invoke(args=["demo", "load"]).exit_code == 0
    admin = factories.bearer(factories.token(client, "demo-admin", "demo-admin-secret"))
    permits = client.get("/v1/permits", headers=admin, query_string={"limit": 100}).json["items"]
    mesa = sorted(
        (p["issued_on"], p["expires_on"], p["permit_number"]) for p in permits if "0001" in p["permit_number"]
    )
    assert mesa == [
        ("2024-01-01", "2024-12-31", "VV-FOG-0001-2024"),
        ("2025-01-01", "2025-12-31", "VV-FOG-0001-2025"),
        ("2026-01-01", "2026-12-31", "VV-FOG-0001"),
    ]
    fse_id = next(
        row["id"] for row in client.get("/v1/fses", headers=admin).json["items"] if row["name"] == "Mesa Grill"
    )
    devices = client.get(f"/v1/fses/{fse_id}/devices", headers=admin).json["items"]
    assert [[m["effective_on"] for m in d["permit_moves"]] for d in devices] == [["2025-01-01", "2026-01-01"]]
    operator = factories.bearer(factories.token(client, "demo-fse", "demo-fse-secret"))
    record = client.get(f"/v1/fses/{fse_id}/records", headers=operator).json
    # Each filed three hours after its service, the same day.
    served = {(m["revisions"][0]["received_at"][:4], m["permit_number"]) for m in record["manifests"]}
    assert served == {("2025", "VV-FOG-0001-2025"), ("2026", "VV-FOG-0001")}


def test_every_test_the_rules_page_names_exists():
    """docs/ordinances.md names the test behind each rule, in its tables and in its notes (the
    history rules, notice periods, permit terms, the month rule): each one named exists."""
    from api.config import ROOT

    document = (ROOT / "docs" / "ordinances.md").read_text()
    named = set(re.findall(r"`(test_\w+\.py)::(\w+)`", document))
    assert len(named) > 40
    for file, name in sorted(named):
        assert f"def {name}(" in (ROOT / "tests" / file).read_text(), (file, name)


def test_the_import_takes_san_clementes_fourteen_days_as_the_api_does(client, session, frozen_clock):
    """San Clemente 13.30.050(J): "at least fourteen (14) days prior written notice" where the
    change "is the result of an Authorized Inspector's evaluation"; a devices CSV row says so in
    `after_inspection`, and without it the 45 days hold."""
    world = world_in(client, session, frozen_clock, "san-clemente", now=pacific(2026, 6, 1, 9))
    admin = admin_of(client, session, "san-clemente")
    header = (
        "permit_number,tag,kind,capacity_gallons,liquid_depth_in,frequency_days,effective_on,reason,after_inspection"
    )
    row = f"{world.permit.permit_number},GI-1,interceptor,1500,48,30,2026-06-15,Inspection.,{{}}\n"

    def imported(flag):
        response = client.post(
            "/v1/imports/devices",
            headers=factories.bearer(admin),
            data={"file": (io.BytesIO(f"{header}\n{row.format(flag)}".encode()), "devices.csv")},
            content_type="multipart/form-data",
        )
        assert response.status_code == 200, response.json
        return response.json

    ordinary = imported("false")
    assert ordinary["rejected"] == 1 and ordinary["rejections"][0]["errors"] == {
        "effective_on": [
            "Must be at least 45 days after the permittee was told (San Clemente 13.30.050(J)), or say why sooner "
            "in sooner_because."
        ]
    }
    assert imported("true")["updated"] == 1
    device = client.get(f"/v1/fses/{world.device.fse_id}/devices/{world.device.id}", headers=factories.bearer(admin))
    assert [(c["effective_on"], c["after_inspection"]) for c in device.json["frequency_changes"]] == [
        ("2026-06-15", True)
    ]
