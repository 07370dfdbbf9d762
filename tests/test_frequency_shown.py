"""The frequency a device view, a receipt, a record and the binder show is the one in force on
the day they concern, beside the changes scheduled after it; and a shortened frequency leaves
the permittee the notice period to comply (Victorville 10.03.080(c), (d))."""

from datetime import date

import pytest
from reportlab.graphics.shapes import Line

from reports import binder_pages
from services.records import record as records
from storage.models import Fse
from tests import factories
from tests.ordinance_cases import admin_of, change, findings_of, pacific, world_in

CITY = "victorville"


def _scheduled(client, session, frozen_clock):
    """A 90-day interceptor pumped on 2 April; on 1 June (the city's day) its frequency is
    changed to 30 days from 1 August. The world, the admin's token, the receipt of 2 April."""
    world = world_in(client, session, frozen_clock, CITY, now=pacific(2026, 4, 2, 12))
    april = world.post(world.body(completed=pacific(2026, 4, 2, 9), disposal=None))
    assert april.status_code == 201, april.json
    frozen_clock(pacific(2026, 6, 1, 9))
    world.reauthenticate()
    admin = admin_of(client, session, CITY)
    changed = change(
        client,
        admin,
        world,
        str(world.device.id),
        frequency_days=30,
        effective_on="2026-08-01",
        reason="Grease builds up faster than the 25% rule allows.",
    )
    assert changed.status_code == 201, changed.json
    return world, admin, april.json


def test_the_device_shows_the_frequency_in_force_and_the_change_scheduled(client, session, frozen_clock):
    """On 1 June 90 days are in force and 30 are scheduled from 1 August: the device says 90,
    as of the city's today, with the change ahead; from 1 August (22:30 Pacific of 31 July is
    still July there) it says 30."""
    world, admin, _ = _scheduled(client, session, frozen_clock)
    url = f"/v1/fses/{world.device.fse_id}/devices/{world.device.id}"
    device = client.get(url, headers=factories.bearer(admin)).json
    assert (device["frequency_days"], device["frequency_as_of"]) == (90, "2026-06-01")
    assert [(c["frequency_days"], c["effective_on"]) for c in device["scheduled_frequency_changes"]] == [
        (30, "2026-08-01")
    ]
    assert [(c["from_days"], c["frequency_days"]) for c in device["frequency_changes"]] == [(90, 30)]
    listed = client.get(f"/v1/fses/{world.device.fse_id}/devices", headers=factories.bearer(admin)).json["items"]
    assert [row["frequency_days"] for row in listed] == [90]
    # 22:30 Pacific on 31 July is 05:30 UTC on 1 August: still July in Victorville.
    frozen_clock(pacific(2026, 7, 31, 22, 30))
    admin = admin_of(client, session, CITY)
    device = client.get(url, headers=factories.bearer(admin)).json
    assert (device["frequency_days"], device["frequency_as_of"], len(device["scheduled_frequency_changes"])) == (
        90,
        "2026-07-31",
        1,
    )
    frozen_clock(pacific(2026, 8, 1, 0, 30))
    admin = admin_of(client, session, CITY)
    device = client.get(url, headers=factories.bearer(admin)).json
    assert (device["frequency_days"], device["scheduled_frequency_changes"]) == (30, [])


def test_a_receipt_shows_the_frequency_in_force_on_the_service_date(client, session, frozen_clock):
    """The receipt of 2 April, read back after the change was scheduled, says 90 days, the
    frequency its due date of 1 July was counted with; a pump-out of 1 August, the change's
    first day, says 30."""
    world, admin, april = _scheduled(client, session, frozen_clock)
    assert (april["device_frequency_days"], april["due_by"]) == (90, "2026-07-01")
    read = client.get(f"/v1/manifests/{april['id']}", headers=factories.bearer(world.hauler_token)).json
    assert (read["device_frequency_days"], read["due_by"]) == (90, "2026-07-01")
    listed = client.get("/v1/manifests", headers=factories.bearer(world.hauler_token)).json["items"]
    assert [row["device_frequency_days"] for row in listed] == [90]
    frozen_clock(pacific(2026, 8, 1, 12))
    world.reauthenticate()
    august = world.post(world.body(completed=pacific(2026, 8, 1, 9), disposal=None))
    assert (august.json["device_frequency_days"], august.json["due_by"]) == (30, "2026-08-31")
    read = client.get(f"/v1/manifests/{april['id']}", headers=factories.bearer(world.hauler_token)).json
    assert read["device_frequency_days"] == 90


def test_the_record_shows_the_frequency_at_the_periods_end_and_its_changes_within(client, session, frozen_clock):
    """A record to 1 June shows 90 days and no change within it; one to 15 August (asked on
    that day) shows 30 and the change of 1 August."""
    world, _, _ = _scheduled(client, session, frozen_clock)
    auditor = factories.token(client, *factories.oauth_client(session, role="auditor", subject=[CITY]))
    url = f"/v1/fses/{world.device.fse_id}/records"
    june = client.get(url, query_string={"to": "2026-06-01"}, headers=factories.bearer(auditor)).json
    (device,) = june["devices"]
    assert (device["frequency_days"], device["frequency_as_of"], device["frequency_changes_in_period"]) == (
        90,
        "2026-06-01",
        [],
    )
    assert [c["effective_on"] for c in device["scheduled_frequency_changes"]] == ["2026-08-01"]
    frozen_clock(pacific(2026, 8, 15, 9))
    auditor = factories.token(client, *factories.oauth_client(session, role="auditor", subject=[CITY]))
    august = client.get(url, query_string={"to": "2026-08-15"}, headers=factories.bearer(auditor)).json
    (device,) = august["devices"]
    assert device["frequency_days"] == 30
    assert [(c["from_days"], c["frequency_days"]) for c in device["frequency_changes_in_period"]] == [(90, 30)]


def test_the_binders_timeline_marks_each_service_due_as_the_lists_judge_it(client, session, frozen_clock):
    """The chart's due mark after the service of 2 April is 1 July (90 days then in force),
    not 2 May (the 30 days in force at the period's end): the record's own interval answers it."""
    world, _, _ = _scheduled(client, session, frozen_clock)
    frozen_clock(pacific(2026, 8, 15, 9))
    fse = session.get(Fse, world.device.fse_id)
    record = records.build(session, fse, period_from=date(2026, 1, 1), period_to=date(2026, 8, 15))
    (line,) = record.devices
    assert line.frequency_days == 30
    assert line.interval.due_on(date(2026, 4, 2)) == date(2026, 7, 1)
    drawing = binder_pages.services_chart(record)
    ticks = [shape.x1 for shape in drawing.contents if isinstance(shape, Line) and shape.strokeWidth == 0.9]
    assert ticks == [pytest.approx(_x(drawing, record, date(2026, 7, 1)))]


def _x(drawing, record, day, left=62, right=10):
    """Where the chart draws `day` (its lanes start 62 pt in and end 10 pt short)."""
    span = (record.period_to - record.period_from).days
    return left + (drawing.width - left - right) * (day - record.period_from).days / span


def test_a_shortened_frequency_gives_the_notice_period_to_comply(client, session, frozen_clock):
    """Victorville 10.03.080(d): "Any changes or new conditions in the FOG permit shall include
    a reasonable time schedule for compliance." 10.03.080(c): "at least thirty days prior to
    the effective date of the change." The notice period is the schedule: a device pumped on
    20 June (due 18 September at 90 days) is shortened on 1 June to 30 days from 1 August.
    Under 30 days it would have been due on 20 July, before the change took effect; it is due
    no sooner than the change's first day, 1 August, and missed from 2 August. (A change sooner
    than the notice needs its reason recorded:
    `test_registry_history.py::test_a_change_sooner_than_the_notice_says_why`.)"""
    world, admin, _ = _scheduled(client, session, frozen_clock)

    def missed(as_of):
        auditor = factories.token(client, *factories.oauth_client(session, role="auditor", subject=[CITY]))
        rows = client.get(
            "/v1/audit/missed-services", query_string={"as_of": as_of}, headers=factories.bearer(auditor)
        ).json["items"]
        return [(row["due_on"], row["days_overdue"]) for row in rows]

    frozen_clock(pacific(2026, 6, 20, 23, 30))
    world.reauthenticate()
    assert "service_interval_exceeded" not in findings_of(
        world.post(world.body(completed=pacific(2026, 6, 20, 23), disposal=None))
    )
    assert missed("2026-07-21") == []
    assert missed("2026-08-01") == []
    assert missed("2026-08-02") == [("2026-08-01", 1)]
