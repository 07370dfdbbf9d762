"""Audit queries against a scenario whose answers were worked out by hand.

Victorville, grace 14 days, every permit issued 2025-01-01, every device every 90 days.
As of 2026-06-01:
  A  two loads on 2026-01-10 (2,500 + 500 gal of 3,000): one qualifying service.
     Due 2026-04-10, 52 days overdue: missed.
  B  qualifying 2026-02-01, then a partial pump-down on 2026-05-01 that does not count.
     Due 2026-05-02, 30 days: missed.
  C  never serviced: counted from the permit's issue, due 2025-04-01, 426 days: never_serviced.
  D  serviced 2026-01-20, due 2026-04-20, missed from 2026-05-05; permit suspended 2026-05-10:
     a suspension from after the device went past due and its grace stops no clock that had
     not run out (reported, not hidden). 42 days: missed.
  E  serviced 2026-02-25, due 2026-05-26, 6 days: overdue (within the grace).
  F  first serviced 2026-05-15: compliant, not listed.

For the period 2026-04-01 to 2026-06-01, the missed intervals (past due beyond the grace on
some day of the period) are C, F (unserviced from the permit's issue until 2026-05-15:
due 2025-04-01, 409 days late), A, D and B; E is within its grace.
"""

import csv
import io
import re
import uuid
from collections import namedtuple
from datetime import UTC, date, datetime, timedelta

import pytest

from domain.dates import human
from services.audit.lists import plain_rows
from storage.models import PermitStatusChange
from tests import factories
from tests.manifest_world import iso

AS_OF = date(2026, 6, 1)


def at(day, hour=9):
    return datetime(day.year, day.month, day.day, hour, tzinfo=UTC)


@pytest.fixture
def scenario(client, session, frozen_clock):
    jurisdiction = factories.jurisdiction(session, "victorville")
    jurisdiction.grace_days = 14
    session.commit()
    hauler = factories.hauler(session, vehicles=(("TRK-1", 3000),))
    credentials = factories.oauth_client(session, role="hauler", subject=[hauler.id])
    site = factories.disposal_site(session)
    devices = {}
    for name in "ABCDEF":
        permit = factories.permit(
            session,
            fse_row=factories.fse(session, name=f"Restaurant {name}", address=f"{name} Street, Victorville CA"),
            number=f"VV-{name}",
            issued_on=date(2025, 1, 1),
        )
        devices[name] = factories.device(session, permit_row=permit, capacity_gallons=3000 if name == "A" else 1500)
    counter = iter(range(1, 100))

    def file(name, completed, gallons=None):
        frozen_clock(completed + timedelta(hours=2))
        device = devices[name]
        token = factories.token(client, *credentials)
        n = next(counter)
        body = {
            "manifest_number": f"S-{n}",
            "permit_number": f"VV-{name}",
            "device_tag": device.tag,
            "vehicle_id": "TRK-1",
            "driver_name": "D",
            "fse_signer_name": "S",
            "service_started_at": iso(completed - timedelta(hours=1)),
            "service_completed_at": iso(completed),
            "waste_type": "grease_interceptor_waste",
            "gallons_removed": gallons or device.capacity_gallons,
            "full_pump_down": True,
            "disposal": {
                "site_id": str(site.id),
                "ticket_number": f"T-{n}",
                "delivered_at": iso(completed + timedelta(hours=1)),
                "gallons_delivered": gallons or device.capacity_gallons,
            },
        }
        response = client.post("/v1/manifests", json=body, headers=factories.bearer(token))
        assert response.status_code == 201, response.json
        return response.json

    file("A", at(date(2026, 1, 10), 8), gallons=2500)
    file("A", at(date(2026, 1, 10), 14), gallons=500)
    file("B", at(date(2026, 2, 1)))
    partial = file("B", at(date(2026, 5, 1)), gallons=400)
    assert [f["code"] for f in partial["findings"]] == ["partial_pump_down"]
    file("D", at(date(2026, 1, 20)))
    file("E", at(date(2026, 2, 25)))
    file("F", at(date(2026, 5, 15)))
    session.add(
        PermitStatusChange(permit_id=devices["D"].permit_id, status="suspended", effective_on=date(2026, 5, 10))
    )
    session.commit()
    frozen_clock(at(AS_OF, 12))
    auditor = factories.token(client, *factories.oauth_client(session, role="auditor", subject=["victorville"]))
    return {
        "auditor": auditor,
        "hauler": factories.token(client, *credentials),
        "devices": devices,
        "hauler_id": str(hauler.id),
        "file": file,
    }


def get(client, token, path, **query):
    response = client.get(path, headers=factories.bearer(token), query_string=query)
    assert response.status_code == 200, response.json
    return response


def test_missed_services_as_of(client, scenario):
    body = get(client, scenario["auditor"], "/v1/audit/missed-services", as_of="2026-06-01").json
    got = [(row["fse_name"][-1], row["due_on"], row["days_overdue"], row["status"]) for row in body["items"]]
    assert got == [
        ("C", "2025-04-01", 426, "never_serviced"),
        ("A", "2026-04-10", 52, "missed"),
        ("D", "2026-04-20", 42, "missed"),
        ("B", "2026-05-02", 30, "missed"),
        ("E", "2026-05-26", 6, "overdue"),
    ]
    rows = {row["fse_name"][-1]: row for row in body["items"]}
    assert rows["A"]["last_service_on"] == "2026-01-10"
    assert rows["B"]["last_service_on"] == "2026-02-01"  # the partial of 05-01 does not count
    assert rows["C"]["last_service_on"] is None
    assert (rows["D"]["permit_status"], rows["D"]["permit_status_words"]) == ("suspended", "Suspended")
    assert {(row["device_kind"], row["device_kind_words"]) for row in body["items"]} <= {
        ("interceptor", "Interceptor"),
        ("trap", "Trap"),
    }
    assert rows["A"]["last_hauler_name"].startswith("Hauler")


def test_an_as_of_day_written_otherwise_than_yyyy_mm_dd_is_refused(client, scenario):
    for written in ("20260601", "2026-W22-1"):
        response = client.get(
            "/v1/audit/missed-services", query_string={"as_of": written}, headers=factories.bearer(scenario["auditor"])
        )
        assert response.status_code == 422 and "as_of" in response.json["errors"], written


def test_missed_intervals_in_a_period(client, scenario):
    body = get(
        client, scenario["auditor"], "/v1/audit/missed-services", **{"from": "2026-04-01", "to": "2026-06-01"}
    ).json
    got = [
        (row["fse_name"][-1], row["from_on"], row["due_on"], row["missed_on"], row["days_late"])
        for row in body["items"]
    ]
    assert got == [
        ("C", "2025-01-01", "2025-04-01", "2025-04-16", 426),
        ("F", "2025-01-01", "2025-04-01", "2025-04-16", 409),
        ("A", "2026-01-10", "2026-04-10", "2026-04-25", 52),
        ("D", "2026-01-20", "2026-04-20", "2026-05-05", 42),
        ("B", "2026-02-01", "2026-05-02", "2026-05-17", 30),
    ]
    # Where each gap was counted from, in words beside its code: C and F never serviced.
    assert {row["fse_name"][-1]: (row["counted_from"], row["counted_from_words"]) for row in body["items"]} == {
        "C": ("permit_issued", "Permit issued (never serviced)"),
        "F": ("permit_issued", "Permit issued (never serviced)"),
        **{name: ("service", "Last service") for name in "ADB"},
    }
    sheet = client.get(
        "/v1/audit/missed-services",
        query_string={"from": "2026-04-01", "to": "2026-06-01", "format": "csv"},
        headers=factories.bearer(scenario["auditor"]),
    )
    table = list(csv.reader(io.StringIO(sheet.get_data(as_text=True))))
    assert table[0][table[0].index("counted_from") + 1] == "counted_from_words"
    assert {tuple(row[table[0].index("counted_from") :][:2]) for row in table[1:]} == {
        ("permit_issued", "Permit issued (never serviced)"),
        ("service", "Last service"),
    }


def test_a_late_service_closes_its_interval(client, scenario):
    # Before any of the 2026 services, A had gone from its permit's issue without service.
    body = get(
        client, scenario["auditor"], "/v1/audit/missed-services", **{"from": "2025-12-01", "to": "2025-12-31"}
    ).json
    rows = {row["fse_name"][-1]: row for row in body["items"]}
    assert rows["A"]["serviced_on"] == "2026-01-10" and rows["A"]["days_late"] == 284
    assert set(rows) == set("ABCDEF")


def test_a_period_counts_from_the_last_service_before_it_by_the_city_day(client, scenario, frozen_clock):
    # 23:30 on 31 March in Victorville is 06:30 UTC on 1 April: the service belongs to March.
    scenario["file"]("C", datetime(2026, 4, 1, 6, 30, tzinfo=UTC))
    scenario["file"]("A", at(date(2026, 5, 20)))
    frozen_clock(at(AS_OF, 12))
    rows = {
        row["fse_name"][-1]: row
        for row in get(
            client, scenario["auditor"], "/v1/audit/missed-services", **{"from": "2026-04-01", "to": "2026-06-01"}
        ).json["items"]
    }
    assert "C" not in rows  # its gap closed on 31 March; the next is due on 29 June
    assert (rows["A"]["from_on"], rows["A"]["serviced_on"], rows["A"]["days_late"]) == ("2026-01-10", "2026-05-20", 40)
    march = {
        row["fse_name"][-1]: row
        for row in get(
            client, scenario["auditor"], "/v1/audit/missed-services", **{"from": "2026-03-01", "to": "2026-03-31"}
        ).json["items"]
    }
    assert march["C"]["serviced_on"] == "2026-03-31" and march["C"]["from_on"] == "2025-01-01"


def test_filters_status_and_csv(client, scenario):
    overdue = get(client, scenario["auditor"], "/v1/audit/missed-services", status="overdue").json["items"]
    assert [row["fse_name"] for row in overdue] == ["Restaurant E"]
    area = get(client, scenario["auditor"], "/v1/audit/missed-services", area="c street").json["items"]
    assert [row["fse_name"] for row in area] == ["Restaurant C"]
    page = get(client, scenario["auditor"], "/v1/audit/missed-services", limit=2).json
    second = get(client, scenario["auditor"], "/v1/audit/missed-services", limit=2, cursor=page["next_cursor"]).json
    assert len(page["items"]) == 2 and page["items"][1] != second["items"][0]
    response = client.get(
        "/v1/audit/missed-services", headers={**factories.bearer(scenario["auditor"]), "Accept": "text/csv"}
    )
    rows = list(csv.DictReader(io.StringIO(response.get_data(as_text=True))))
    assert response.mimetype == "text/csv" and len(rows) == 5 and rows[0]["status"] == "never_serviced"
    # Each code with its words beside it, the codes' columns kept.
    assert rows[0]["status_words"] == "Never serviced"
    assert {(row["permit_status"], row["permit_status_words"]) for row in rows} >= {("suspended", "Suspended")}
    assert {row["device_kind_words"] for row in rows} <= {"Interceptor", "Trap"}
    assert {(row["status"], row["status_words"]) for row in rows} <= {
        ("never_serviced", "Never serviced"),
        ("overdue", "Overdue"),
        ("missed", "Missed"),
    }


def test_findings_with_counts(client, scenario):
    body = get(client, scenario["auditor"], "/v1/audit/findings").json
    assert body["counts"]["partial_pump_down"] == 1
    only = get(client, scenario["auditor"], "/v1/audit/findings", code="partial_pump_down").json
    assert [f["manifest_number"] for f in only["items"]] == ["S-4"]
    csv_text = get(client, scenario["auditor"], "/v1/audit/findings", format="csv").get_data(as_text=True)
    assert "partial_pump_down" in csv_text
    # A sheet is read by a person: its times are the city's, with the offset, never UTC's "Z".
    rows = list(csv.DictReader(io.StringIO(csv_text)))
    completed = {row["service_completed_at"] for row in rows}
    assert completed and all(re.fullmatch(r"\d{4}-\d{2}-\d{2} \d{2}:\d{2} -0[78]:00", c) for c in completed)
    # Each code with its words beside it, in the sheet as in the list.
    pumped = next(row for row in rows if row["code"] == "partial_pump_down")
    assert (pumped["code_words"], pumped["severity_words"]) == ("Not fully pumped out", "Violation")
    assert {row["basis_words"] for row in rows} <= {"Ordinance", "Exchange policy"}
    assert only["items"][0]["code_words"] == "Not fully pumped out"
    s4 = next(f for f in only["items"])
    assert (
        human(datetime.fromisoformat(s4["service_completed_at"].replace("Z", "+00:00")), "America/Los_Angeles")
        in completed
    )


def test_hauler_scorecard(client, scenario):
    card = get(
        client,
        scenario["auditor"],
        f"/v1/audit/haulers/{scenario['hauler_id']}/scorecard",
        **{"from": "2026-01-01", "to": "2026-06-01"},
    ).json
    assert card["manifests"] == 7
    assert card["partial_pump_downs"] == 1 and card["late_submissions"] == 0
    assert card["on_time_share"] == 1.0 and card["qualifying"] == 6


def test_scorecard_of_an_unknown_or_foreign_hauler_is_404(client, session, scenario):
    stranger = factories.hauler(session, cities=("tracy",))
    response = client.get(f"/v1/audit/haulers/{stranger.id}/scorecard", headers=factories.bearer(scenario["auditor"]))
    assert response.status_code == 404


def test_hauler_due_list(client, scenario):
    body = get(client, scenario["hauler"], "/v1/haulers/me/due", within_days=30).json
    assert [row["fse_name"][-1] for row in body["items"]] == ["A", "D", "B", "E"]
    assert all(row["fse_name"] != "Restaurant C" for row in body["items"])
    later = get(client, scenario["hauler"], "/v1/haulers/me/due", within_days=80).json
    assert [row["fse_name"][-1] for row in later["items"]][-1] == "F"
    # Not yet due is 0 days overdue (it was the days still to go, negative), as a record's summary says.
    f = later["items"][-1]
    assert (f["status"], f["days_overdue"]) == ("compliant", 0) and f["due_on"] > "2026-06-01"


def test_operator_sees_its_devices_status(client, session, scenario):
    device = scenario["devices"]["B"]
    operator = factories.token(client, *factories.oauth_client(session, role="fse", subject=[device.fse_id]))
    body = get(client, operator, f"/v1/fses/{device.fse_id}/service-status").json
    [row] = body["items"]
    assert (row["status"], row["due_on"], row["days_overdue"]) == ("missed", "2026-05-02", 30)
    other = scenario["devices"]["A"]
    assert client.get(f"/v1/fses/{other.fse_id}/service-status", headers=factories.bearer(operator)).status_code == 404


def test_auditors_only_and_their_city_only(client, session, scenario):
    assert client.get("/v1/audit/missed-services", headers=factories.bearer(scenario["hauler"])).status_code == 403
    factories.jurisdiction(session, "tracy")
    tracy = factories.token(client, *factories.oauth_client(session, role="auditor", subject=["tracy"]))
    assert get(client, tracy, "/v1/audit/missed-services").json["items"] == []


def test_rows_read_as_json_each_column_as_its_values_call_for():
    """A column's conversion is taken from its first value that is not null, whichever row
    holds it; day numbers read as dates under their `_on` names; nulls stay null."""
    Row = namedtuple("Row", "device_id due_day serviced_day completed_at issued note count")
    device = uuid.UUID("01a23af9-7246-0831-4749-5654b8e5795f")
    rows = [
        Row(None, 9000, None, None, None, "first", 1),
        Row(device, 9001, 9002, datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC), date(2025, 1, 1), None, 2),
        Row(None, None, 9002, None, date(2025, 2, 1), "third", 3),
    ]
    assert plain_rows(rows) == [
        {
            "device_id": None,
            "due_on": "2024-08-22",
            "serviced_on": None,
            "completed_at": None,
            "issued": None,
            "note": "first",
            "count": 1,
        },
        {
            "device_id": str(device),
            "due_on": "2024-08-23",
            "serviced_on": "2024-08-24",
            "completed_at": "2026-01-02T03:04:05Z",
            "issued": "2025-01-01",
            "note": None,
            "count": 2,
        },
        {
            "device_id": None,
            "due_on": None,
            "serviced_on": "2024-08-24",
            "completed_at": None,
            "issued": "2025-02-01",
            "note": "third",
            "count": 3,
        },
    ]
    assert plain_rows([]) == []
