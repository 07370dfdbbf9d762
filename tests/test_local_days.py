"""Every date is the city's local date, every time a person reads is local with its offset, and
the record names who pumped and where the load went as they were named at filing.

Victorville's days are Pacific: 23:30 on June 30 (PDT, -07:00) is 06:30 on July 1 in UTC.
"""

import csv
import io
import uuid
from datetime import UTC, date, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from alembic.script import ScriptDirectory
from pypdf import PdfReader
from sqlalchemy import select

from api.config import ROOT
from storage.models import DisposalReceipt, DisposalSite, Hauler, HaulerLicence, ManifestRevision
from tests import factories
from tests.manifest_world import build, iso

PACIFIC = ZoneInfo("America/Los_Angeles")


def pacific(*args):
    return datetime(*args, tzinfo=PACIFIC)


@pytest.fixture
def city(client, session, frozen_clock):
    """A Victorville restaurant with two interceptors (every 90 days, no grace), its hauler and
    site, and an auditor's and an admin's tokens."""
    frozen_clock(pacific(2026, 1, 2, 9))
    world = build(client, session)
    world.set_rules(grace_days=0)
    world.second = factories.device(session, permit_row=world.permit, tag="GI-2")
    world.auditor = factories.oauth_client(session, role="auditor", subject=["victorville"])
    world.admin = factories.oauth_client(session, role="admin", subject=["victorville"])
    return world


def at(frozen_clock, world, moment):
    """The clock at `moment`, with tokens that are valid then."""
    frozen_clock(moment.astimezone(UTC))
    world.reauthenticate()


def file(world, frozen_clock, completed, *, filed_after=timedelta(hours=1), **overrides):
    at(frozen_clock, world, completed + filed_after)
    response = world.post(world.body(completed=completed, **overrides))
    assert response.status_code == 201, response.json
    return response.json


def ask(world, credentials, path, **query):
    response = world.client.get(
        path, query_string=query, headers=factories.bearer(factories.token(world.client, *credentials))
    )
    assert response.status_code == 200, response.json
    return response


def missed(world, **query):
    return ask(world, world.auditor, "/v1/audit/missed-services", **query).json


# Due dates and the lists of what is past due --------------------------------------------------


def test_a_service_at_2330_pacific_on_the_due_date_counts_for_that_day(city, frozen_clock):
    """Victorville 10.03.160(f)(2): grease interceptors "shall ensure they are maintained not
    less than once every ninety days". Serviced on March 2, GI-1 and GI-2 are due on May 31:
    GI-1 serviced at 23:30 Pacific that day (06:30 on June 1 in UTC) is on time; GI-2 at 00:30
    on June 1 is a day late."""
    world = city
    file(world, frozen_clock, pacific(2026, 3, 2, 10))
    first = file(world, frozen_clock, pacific(2026, 3, 2, 11), device_tag="GI-2")
    assert first["due_by"] == "2026-05-31"
    on_time = file(world, frozen_clock, pacific(2026, 5, 31, 23, 30))
    assert on_time["due_by"] == "2026-08-29"  # 90 days from May 31, not from June 1
    late = file(world, frozen_clock, pacific(2026, 6, 1, 0, 30), device_tag="GI-2")
    assert late["due_by"] == "2026-08-30"

    intervals = missed(world, **{"from": "2026-03-03", "to": "2026-06-01"})["items"]
    assert [
        (row["device_tag"], row["due_on"], row["missed_on"], row["serviced_on"], row["days_late"]) for row in intervals
    ] == [("GI-2", "2026-05-31", "2026-06-01", "2026-06-01", 1)]
    # On the due date itself neither was past due; the next day only GI-2 had been.
    assert missed(world, as_of="2026-05-31")["items"] == []
    status = {
        row["device_tag"]: row
        for row in ask(world, world.auditor, f"/v1/fses/{world.device.fse_id}/service-status", as_of="2026-06-01").json[
            "items"
        ]
    }
    assert (status["GI-1"]["last_service_on"], status["GI-1"]["due_on"]) == ("2026-05-31", "2026-08-29")
    assert (status["GI-2"]["last_service_on"], status["GI-2"]["due_on"]) == ("2026-06-01", "2026-08-30")


def test_a_gap_across_the_spring_clock_change_is_counted_in_local_days(city, frozen_clock):
    """Victorville 10.03.160(f)(2): "not less than once every ninety days". Serviced at 23:59
    Pacific on January 1, both are due on April 1. GI-1 serviced at 23:59 on April 1 is on
    time; GI-2 at 00:01 on April 2 is a day late, though the clocks went forward on March 8 and
    less than ninety days of time (89 days 23 h 2 min) passed between its services. Both are
    serviced again on April 20."""
    world = city
    file(world, frozen_clock, pacific(2026, 1, 1, 23, 59))
    file(world, frozen_clock, pacific(2026, 1, 1, 23, 59), device_tag="GI-2")
    file(world, frozen_clock, pacific(2026, 4, 1, 23, 59))
    file(world, frozen_clock, pacific(2026, 4, 2, 0, 1), device_tag="GI-2")
    file(world, frozen_clock, pacific(2026, 4, 20, 10))
    file(world, frozen_clock, pacific(2026, 4, 20, 10), device_tag="GI-2")
    elapsed = pacific(2026, 4, 2, 0, 1).astimezone(UTC) - pacific(2026, 1, 1, 23, 59).astimezone(UTC)
    assert elapsed == timedelta(days=89, hours=23, minutes=2)

    # From January 1, both services of each device are in the period (the gaps since the
    # permit's issue, missed in 2025 and closed on January 1, are listed before).
    intervals = missed(world, **{"from": "2026-01-01", "to": "2026-04-30"})["items"]
    assert [
        (row["device_tag"], row["due_on"], row["missed_on"], row["serviced_on"], row["days_late"])
        for row in intervals
        if row["from_on"] == "2026-01-01"
    ] == [("GI-2", "2026-04-01", "2026-04-02", "2026-04-02", 1)]
    months = ask(world, world.auditor, "/v1/audit/trends", as_of="2026-04-30", months=4).json["months"]
    assert [(month["month"], month["missed_services"]) for month in months] == [
        ("2026-01", 0),
        ("2026-02", 0),
        ("2026-03", 0),
        ("2026-04", 1),
    ]


def test_the_lists_of_an_evening_are_of_the_citys_day(city, frozen_clock):
    """Serviced on February 1, GI-1 is due on May 2 (90 days). At 23:00 Pacific on May 2 (06:00
    on May 3 in UTC) today is May 2: it is due, not past due; at 00:30 on May 3 it is missed."""
    world = city
    file(world, frozen_clock, pacific(2026, 2, 1, 10))
    file(world, frozen_clock, pacific(2026, 2, 1, 12), device_tag="GI-2")
    hauler = (world.credentials[0], world.credentials[1])

    at(frozen_clock, world, pacific(2026, 5, 2, 23))
    today = missed(world)
    assert (today["as_of"], today["items"]) == ("2026-05-02", [])
    due = ask(world, hauler, "/v1/haulers/me/due", within_days=0).json["items"]
    assert sorted((row["device_tag"], row["due_on"], row["status"], row["days_overdue"]) for row in due) == [
        ("GI-1", "2026-05-02", "due_soon", 0),
        ("GI-2", "2026-05-02", "due_soon", 0),
    ]
    status = ask(world, world.auditor, f"/v1/fses/{world.device.fse_id}/service-status").json
    assert status["as_of"] == "2026-05-02" and {row["status"] for row in status["items"]} == {"due_soon"}
    record = ask(world, world.auditor, f"/v1/fses/{world.device.fse_id}/records").json
    assert record["period"]["to"] == "2026-05-02"
    assert record["summary"]["devices"]["GI-1"] == {
        "status": "due_soon",
        "next_due_on": "2026-05-02",
        "days_overdue": 0,
    }

    at(frozen_clock, world, pacific(2026, 5, 3, 0, 30))
    tomorrow = missed(world)
    assert tomorrow["as_of"] == "2026-05-03"
    assert sorted((row["device_tag"], row["days_overdue"], row["status"]) for row in tomorrow["items"]) == [
        ("GI-1", 1, "missed"),
        ("GI-2", 1, "missed"),
    ]


def test_a_revoked_or_expired_permit_ends_its_devices_due_dates(city, session, frozen_clock):
    """Victorville 10.03.320(b)(4): "Upon an order of revocation ... the permittee shall
    immediately cease and desist its discharge". A closed restaurant is not a missed service:
    from the day its permit ended its devices leave the lists, and its history stays."""
    world = city
    file(world, frozen_clock, pacific(2026, 1, 5, 10))  # GI-1 due April 5
    file(world, frozen_clock, pacific(2026, 1, 5, 12), device_tag="GI-2")
    closing = factories.permit(
        session,
        fse_row=factories.fse(session, name="Closing Diner"),
        issued_on=date(2025, 1, 1),
        expires_on=date(2026, 4, 30),
    )
    factories.device(session, permit_row=closing)
    file(world, frozen_clock, pacific(2026, 1, 5, 14), permit_number=closing.permit_number)

    at(frozen_clock, world, pacific(2026, 4, 20, 9))
    revoked = world.client.patch(
        f"/v1/permits/{world.permit.id}",
        json={"status": "revoked", "effective_on": "2026-05-01", "reason": "The restaurant closed."},
        headers=factories.bearer(factories.token(world.client, *world.admin)),
    )
    assert revoked.status_code == 200, revoked.json

    at(frozen_clock, world, pacific(2026, 6, 1, 9))

    def listed(**query):
        return sorted(
            (row["fse_name"], row["device_tag"], row["days_overdue"]) for row in missed(world, **query)["items"]
        )

    fse = world.device.fse
    assert listed(as_of="2026-04-30") == [("Closing Diner", "GI-1", 25), (fse.name, "GI-1", 25), (fse.name, "GI-2", 25)]
    # The day the revocation took effect, and the day after the closed permit's expiry: none.
    assert listed(as_of="2026-05-01") == listed(as_of="2026-06-01") == listed() == []

    def intervals(**period):
        return sorted(
            (row["fse_name"], row["device_tag"], row["days_late"]) for row in missed(world, **period)["items"]
        )

    # In history: the gaps missed while the permits held, up to their last day (April 30).
    assert intervals(**{"from": "2026-04-01", "to": "2026-04-30"}) == [
        ("Closing Diner", "GI-1", 25),
        (fse.name, "GI-1", 25),
        (fse.name, "GI-2", 25),
    ]
    assert intervals(**{"from": "2026-04-01", "to": "2026-06-01"}) == [
        ("Closing Diner", "GI-1", 25),
        (fse.name, "GI-1", 25),
        (fse.name, "GI-2", 25),
    ]
    assert intervals(**{"from": "2026-05-01", "to": "2026-06-01"}) == []

    # Due no more: not on the hauler's list, and no due date in the status or the record.
    assert ask(world, world.credentials, "/v1/haulers/me/due", within_days=365).json["items"] == []
    status = ask(world, world.auditor, f"/v1/fses/{fse.id}/service-status").json["items"]
    assert {(row["status"], row["due_on"], row["days_overdue"]) for row in status} == {("permit_ended", None, 0)}
    record = ask(world, world.auditor, f"/v1/fses/{fse.id}/records").json
    assert record["summary"]["devices"]["GI-1"] == {"status": "permit_ended", "next_due_on": None, "days_overdue": 0}
    assert {device["status"] for device in record["devices"]} == {"permit_ended"}
    before = ask(world, world.auditor, f"/v1/fses/{fse.id}/records", to="2026-04-30").json
    assert before["summary"]["devices"]["GI-1"] == {"status": "missed", "next_due_on": "2026-04-05", "days_overdue": 25}
    from tests.spec import load_spec, schema_errors

    assert schema_errors(load_spec(), {"$ref": "#/components/schemas/Record"}, record) == []
    binder = PdfReader(io.BytesIO(ask(world, world.auditor, f"/v1/fses/{fse.id}/records", format="pdf").data))
    assert "Permit ended" in binder.pages[1].extract_text()


# Lateness runs from the first receipt --------------------------------------------------------


def test_a_correction_days_after_an_on_time_filing_is_not_late(city, frozen_clock):
    """Victorville 10.03.170(b): copies of all service manifests "not later than seventy-two
    hours after GCDs are serviced". The copy was received then; fixing a typo days later does
    not make it late, and a late one stays late."""
    world = city
    exactly = pacific(2026, 5, 1, 10)
    just_past = pacific(2026, 5, 10, 10)
    on_time = file(world, frozen_clock, exactly, filed_after=timedelta(hours=72))
    late = file(world, frozen_clock, just_past, filed_after=timedelta(hours=72, seconds=1), device_tag="GI-2")
    assert "late_submission" not in {f["code"] for f in on_time["findings"]}
    assert "late_submission" in {f["code"] for f in late["findings"]}

    at(frozen_clock, world, pacific(2026, 5, 20, 9))
    for filed, expected in ((on_time, False), (late, True)):
        body = dict(filed["manifest"], driver_name="Sam Driver Jr.", reason="The driver's name was mistyped.")
        corrected = world.client.post(
            f"/v1/manifests/{filed['id']}/corrections", json=body, headers=factories.bearer(world.hauler_token)
        )
        assert corrected.status_code == 201, corrected.json
        assert corrected.json["revision"] == 2
        assert corrected.json["first_received_at"] == filed["received_at"] != corrected.json["received_at"]
        assert ("late_submission" in {f["code"] for f in corrected.json["findings"]}) is expected
    flagged = ask(world, world.auditor, "/v1/audit/findings", code="late_submission").json["items"]
    assert [row["manifest_number"] for row in flagged] == [late["manifest_number"]]


# One load: a site's ticket on one local day ---------------------------------------------------


def test_a_ticket_number_used_again_another_day_is_another_load(city, session, frozen_clock):
    """Victorville 10.03.160(f)(6) and Colusa 15A-16(G): FOG goes to an approved disposal
    site; the loads a ticket carries cannot exceed what it delivered. A site numbering ticket
    HDR-7 again three days later delivered two loads, not one twice as heavy; two loads on one
    Pacific day (10:00 and 23:30, two UTC days) are one ticket's."""
    world = city
    site_client = factories.oauth_client(session, role="site", subject=[world.site.id])

    def load(completed, ticket, tag="GI-1"):
        delivered = completed + timedelta(minutes=40)
        return file(
            world,
            frozen_clock,
            completed,
            device_tag=tag,
            disposal={
                "site_id": str(world.site.id),
                "ticket_number": ticket,
                "delivered_at": iso(delivered),
                "gallons_delivered": 1450,
            },
        )

    first = load(pacific(2026, 5, 20, 10), "HDR-7")
    again = load(pacific(2026, 5, 23, 10), "HDR-7")
    assert first["findings"] == [] and again["findings"] == []
    morning = load(pacific(2026, 5, 25, 10), "HDR-9")
    evening = load(pacific(2026, 5, 25, 22, 50), "HDR-9", tag="GI-2")  # delivered 23:30, June 26 in UTC
    assert [f["code"] for f in evening["findings"]] == ["load_shortfall"]
    refreshed = world.client.get(f"/v1/manifests/{morning['id']}", headers=factories.bearer(world.hauler_token))
    assert [f["code"] for f in refreshed.json["findings"]] == ["load_shortfall"]

    # The site reports ticket HDR-7 on each day: two receipts, each set beside its own load.
    site_token = factories.token(world.client, *site_client)
    for filed in (first, again):
        delivered = datetime.fromisoformat(filed["manifest"]["disposal"]["delivered_at"].replace("Z", "+00:00"))
        posted = world.client.post(
            "/v1/receipts",
            headers=factories.bearer(site_token),
            json={
                "ticket_number": "HDR-7",
                "hauler_licence_number": world.hauler.licences[0].licence_number,
                "vehicle_id": "TRK-1",
                "waste_type": "grease_interceptor_waste",
                "gallons_received": 1450,
                "received_at": iso(delivered + timedelta(minutes=5)),
            },
        )
        assert posted.status_code == 201, posted.json
    at(frozen_clock, world, pacific(2026, 6, 1, 9))
    rows = ask(
        world, world.auditor, "/v1/audit/disposal-reconciliation", **{"from": "2026-05-01", "to": "2026-05-31"}
    ).json["items"]
    assert not [row for row in rows if row["ticket_number"] == "HDR-7"]
    record = ask(world, world.auditor, f"/v1/fses/{world.device.fse_id}/records").json
    received = {m["manifest_number"]: m["disposal_receipt"] for m in record["manifests"]}
    assert received[first["manifest_number"]]["received_at"] != received[again["manifest_number"]]["received_at"]


# Names at filing, and times as people read them ----------------------------------------------


def test_the_record_names_the_hauler_and_the_site_as_they_were_at_filing(city, session, frozen_clock):
    """Victorville 10.03.170(c): permittees keep "records of waste haulers and disposal site
    location(s)". The names are those of the day the manifest was filed: a hauler renamed or
    licensed anew since, a site renamed, leave the record as it was."""
    world = city
    hauler, site = world.hauler, world.site
    licence = hauler.licences[0].licence_number
    filed = file(world, frozen_clock, pacific(2026, 5, 20, 10))
    for name in ("hauler_name", "hauler_licence_number", "disposal_site_name", "disposal_site_address"):
        assert name in filed
    assert (filed["hauler_name"], filed["hauler_licence_number"]) == (hauler.name, licence)
    assert (filed["disposal_site_name"], filed["disposal_site_address"]) == (site.name, "9 Plant Rd")
    named_then = hauler.name, site.name

    session.get(Hauler, hauler.id).name = "Renamed Pumping LLC"
    session.get(DisposalSite, site.id).name = "Renamed Plant"
    session.add(
        HaulerLicence(
            hauler_id=hauler.id,
            jurisdiction_id=world.permit.fse.jurisdiction_id,
            licence_number="L-RENEWED",
            expires_on=date(2030, 1, 1),
            effective_on=date(2026, 5, 21),
        )
    )
    session.commit()
    at(frozen_clock, world, pacific(2026, 5, 22, 9))
    corrected = world.client.post(
        f"/v1/manifests/{filed['id']}/corrections",
        headers=factories.bearer(world.hauler_token),
        json=dict(filed["manifest"], gallons_removed=1440, reason="Meter read again."),
    )
    assert corrected.status_code == 201, corrected.json
    # The correction names them as they are now, for a service before the new licence.
    assert (
        corrected.json["hauler_name"],
        corrected.json["hauler_licence_number"],
        corrected.json["disposal_site_name"],
    ) == ("Renamed Pumping LLC", licence, "Renamed Plant")

    record = ask(world, world.auditor, f"/v1/fses/{world.device.fse_id}/records").json
    [manifest] = record["manifests"]
    assert (manifest["hauler_id"], manifest["disposal_site_id"]) == (str(hauler.id), str(site.id))
    assert manifest["hauler_name"] == "Renamed Pumping LLC" and manifest["hauler_licence_number"] == licence
    first, second = manifest["revisions"]
    assert (first["hauler_name"], first["disposal_site_name"]) == named_then
    assert (second["hauler_name"], second["disposal_site_name"]) == ("Renamed Pumping LLC", "Renamed Plant")
    from tests.spec import load_spec, schema_errors

    assert schema_errors(load_spec(), {"$ref": "#/components/schemas/Record"}, record) == []

    [row] = csv.DictReader(
        io.StringIO(
            ask(world, world.auditor, f"/v1/fses/{world.device.fse_id}/records", format="csv").get_data(as_text=True)
        )
    )
    assert (
        row["hauler_name"],
        row["hauler_licence_number"],
        row["disposal_site_name"],
        row["disposal_site_address"],
    ) == ("Renamed Pumping LLC", licence, "Renamed Plant", "9 Plant Rd")

    binder = PdfReader(
        io.BytesIO(ask(world, world.auditor, f"/v1/fses/{world.device.fse_id}/records", format="pdf").data)
    )
    page = next(
        " ".join(p.extract_text().split())
        for p in binder.pages
        if f"Manifest {filed['manifest_number']}" in p.extract_text()
    )
    assert f"Renamed Pumping LLC, licence {licence}" in page
    assert "Renamed Plant, 9 Plant Rd" in page


def test_the_binder_and_the_csv_write_local_times_with_their_offset(city, frozen_clock):
    """One way to write a time for people: the city's wall clock and its offset from UTC, in
    summer (-07:00) as in winter (-08:00). The JSON stays RFC 3339 in UTC, for machines."""
    world = city
    winter = file(world, frozen_clock, pacific(2026, 1, 15, 9))
    summer = file(world, frozen_clock, pacific(2026, 5, 31, 23, 30))
    at(frozen_clock, world, pacific(2026, 6, 2, 9))
    path = f"/v1/fses/{world.device.fse_id}/records"

    rows = {
        row["manifest_number"]: row
        for row in csv.DictReader(io.StringIO(ask(world, world.auditor, path, format="csv").get_data(as_text=True)))
    }
    evening = rows[summer["manifest_number"]]
    assert (
        evening["service_date"],
        evening["service_started_at"],
        evening["service_completed_at"],
        evening["received_at"],
        evening["disposal_delivered_at"],
    ) == (
        "2026-05-31",
        "2026-05-31 22:30 -07:00",
        "2026-05-31 23:30 -07:00",
        "2026-06-01 00:30 -07:00",
        "2026-06-01 00:30 -07:00",
    )
    assert rows[winter["manifest_number"]]["service_completed_at"] == "2026-01-15 09:00 -08:00"

    text = "\n".join(
        " ".join(page.extract_text().split())
        for page in PdfReader(io.BytesIO(ask(world, world.auditor, path, format="pdf").data)).pages
    )
    assert "Service 2026-05-31 22:30 -07:00 to 2026-05-31 23:30 -07:00" in text
    assert "Received 2026-06-01 00:30 -07:00" in text
    assert "delivered 2026-06-01 00:30 -07:00" in text
    assert "2026-01-15 08:00 -08:00 to 2026-01-15 09:00 -08:00" in text
    assert "Generated 2026-06-02 09:00 -07:00" in text
    assert "UTC" not in text and "T06:30" not in text

    record = ask(world, world.auditor, path).json
    assert record["time_zone"] == "America/Los_Angeles"
    revision = next(m for m in record["manifests"] if m["id"] == summer["id"])["revisions"][0]
    assert revision["received_at"].startswith("2026-06-01T07:30:00") and revision["received_at"].endswith("Z")
    assert revision["document"]["manifest"]["service_completed_at"] == "2026-06-01T06:30:00Z"


def test_0014_names_the_revisions_filed_before_it_from_the_registry(app, city, session, frozen_clock):
    """Revisions filed before migration 0014 are named from the registry: the licence the
    hauler held on the service's local day (a service at 23:30 Pacific on May 31, before a
    licence that took effect on June 1), and each receipt dated on its site's local day."""
    world = city
    session.add(
        HaulerLicence(
            hauler_id=world.hauler.id,
            jurisdiction_id=world.permit.fse.jurisdiction_id,
            licence_number="L-JUNE",
            expires_on=date(2030, 1, 1),
            effective_on=date(2026, 6, 1),
        )
    )
    session.commit()
    licence = world.hauler.licences[0].licence_number
    filed = file(world, frozen_clock, pacific(2026, 5, 31, 23, 30))
    assert filed["hauler_licence_number"] == licence
    site_client = factories.oauth_client(session, role="site", subject=[world.site.id])
    posted = world.client.post(
        "/v1/receipts",
        headers=factories.bearer(factories.token(world.client, *site_client)),
        json={
            "ticket_number": "HDR-1",
            "hauler_licence_number": licence,
            "vehicle_id": "TRK-1",
            "waste_type": "grease_interceptor_waste",
            "gallons_received": 1450,
            "received_at": iso(pacific(2026, 5, 31, 23, 45)),
        },
    )
    assert posted.status_code == 201, posted.json

    before = ScriptDirectory(str(ROOT / "migrations")).get_revision("0014").down_revision
    factories.migrated_again(app, session, down_to=before)
    revision = session.scalar(select(ManifestRevision).where(ManifestRevision.manifest_id == uuid.UUID(filed["id"])))
    assert (revision.hauler_name, revision.hauler_licence_number) == (world.hauler.name, licence)
    assert (revision.disposal_site_name, revision.disposal_site_address) == (world.site.name, "9 Plant Rd")
    assert session.scalar(select(DisposalReceipt.received_on)) == date(2026, 5, 31)
