"""A quarter is three calendar months. Tracy 5.26 interceptor maintenance (e)(3): "Grease
interceptors shall be fully pumped out and cleaned quarterly when the frequency described in
subsection (e)(1) has not been established." Colusa 15A-16(C)(3): "Grease interceptors shall be
fully pumped out and cleaned quarterly when the frequency described in Section 15A-16(C)(1) has
not been established." A device the city gave no frequency carries that default in months; one
whose frequency the city set runs in days. The filing's check (Python) and the lists (SQL)
agree."""

import io
from datetime import date

import pytest
from pypdf import PdfReader

from domain.status import Interval
from tests import factories
from tests.ordinance_cases import admin_of, findings_of, pacific, register_device, world_in

SECTION = {
    "tracy": "Tracy 5.26 interceptor maintenance (e)(3)",
    "colusa": "Colusa 15A-16(C)(3)",
}


def _quarterly(client, session, frozen_clock, city, first):
    """A restaurant in `city` with an interceptor registered without a frequency (GI-2), pumped
    on `first` (a California instant); the world."""
    world = world_in(client, session, frozen_clock, city, now=first)
    created = register_device(client, admin_of(client, session, city), world)
    assert created.status_code == 201, created.json
    assert (created.json["frequency_source"], created.json["frequency_days"]) == ("city_default", 90)
    assert created.json["frequency_months"] == 3
    findings_of(world.post(world.body(device_tag="GI-2", completed=first, disposal=None)))
    return world


def _serviced(world, frozen_clock, completed):
    frozen_clock(completed)
    world.reauthenticate()
    return findings_of(world.post(world.body(device_tag="GI-2", completed=completed, disposal=None)))


def _missed(client, session, city, as_of):
    frozen = factories.token(client, *factories.oauth_client(session, role="auditor", subject=[city]))
    rows = client.get(
        "/v1/audit/missed-services", query_string={"as_of": as_of}, headers=factories.bearer(frozen)
    ).json["items"]
    return [(row["device_tag"], row["due_on"]) for row in rows if row["device_tag"] == "GI-2"]


@pytest.mark.parametrize("city", sorted(SECTION))
def test_one_quarter_after_the_first_of_november_is_the_first_of_february(client, session, frozen_clock, city):
    """Pumped 1 November 2025: 1 February 2026 (92 days later, one quarter) is in time, even
    at 23:30 Pacific (07:30 UTC on 2 February); 2 February is a day late, cited to the city's
    own section, in months."""
    world = _quarterly(client, session, frozen_clock, city, pacific(2025, 11, 1, 9))
    assert "service_interval_exceeded" not in _serviced(world, frozen_clock, pacific(2026, 2, 1, 23, 30))
    world = _quarterly(client, session, frozen_clock, city, pacific(2025, 11, 1, 9))
    late = _serviced(world, frozen_clock, pacific(2026, 2, 2, 0, 30))["service_interval_exceeded"]
    assert late["citation"] == SECTION[city]
    assert late["message"] == (
        "93 days since the previous qualifying service; at most 92 allowed (3-month frequency, 0 grace, "
        + ("6" if city == "tracy" else "12")
        + "-month longest interval)."
    )


@pytest.mark.parametrize("city", sorted(SECTION))
def test_a_quarter_from_the_thirtieth_of_november_ends_on_the_last_of_february(client, session, frozen_clock, city):
    """Months run to the same day three months later; February 2026 has no 30th, so the
    quarter from 30 November 2025 ends on 28 February (90 days): in time that day, and the
    lists say the device was due on 28 February and missed from 1 March."""
    world = _quarterly(client, session, frozen_clock, city, pacific(2025, 11, 30, 9))
    frozen_clock(pacific(2026, 3, 1, 9))
    assert _missed(client, session, city, "2026-02-28") == []
    assert _missed(client, session, city, "2026-03-01") == [("GI-2", "2026-02-28")]
    auditor = factories.token(client, *factories.oauth_client(session, role="auditor", subject=[city]))
    record = client.get(
        f"/v1/fses/{world.device.fse_id}/records", query_string={"to": "2026-02-27"}, headers=factories.bearer(auditor)
    ).json
    assert record["summary"]["devices"]["GI-2"]["next_due_on"] == "2026-02-28"
    (shown,) = [device for device in record["devices"] if device["tag"] == "GI-2"]
    assert (shown["frequency_days"], shown["frequency_months"]) == (90, 3)
    binder = client.get(
        f"/v1/fses/{world.device.fse_id}/records",
        query_string={"to": "2026-02-27", "format": "pdf"},
        headers=factories.bearer(auditor),
    )
    summary = " ".join(PdfReader(io.BytesIO(binder.data)).pages[1].extract_text().split())
    assert "GI-2 interceptor 1,500 gal 3 mo" in summary, summary
    assert "service_interval_exceeded" not in _serviced(world, frozen_clock, pacific(2026, 2, 28, 23, 30))


@pytest.mark.parametrize("city", sorted(SECTION))
def test_the_lists_count_the_quarter_as_the_filing_does(client, session, frozen_clock, city):
    """From 1 November the device is due on 1 February, not 30 January (90 days): the missed
    services (SQL) and the record (Python) agree, and a gap of 1 November to 2 February is
    missed from 2 February."""
    world = _quarterly(client, session, frozen_clock, city, pacific(2025, 11, 1, 9))
    frozen_clock(pacific(2026, 2, 10, 9))
    assert _missed(client, session, city, "2026-02-01") == []
    assert _missed(client, session, city, "2026-02-02") == [("GI-2", "2026-02-01")]
    auditor = factories.token(client, *factories.oauth_client(session, role="auditor", subject=[city]))
    record = client.get(
        f"/v1/fses/{world.device.fse_id}/records", query_string={"to": "2026-01-31"}, headers=factories.bearer(auditor)
    ).json
    assert record["summary"]["devices"]["GI-2"]["next_due_on"] == "2026-02-01"
    assert _serviced(world, frozen_clock, pacific(2026, 2, 2, 9))["service_interval_exceeded"]
    gaps = client.get(
        "/v1/audit/missed-services",
        query_string={"from": "2026-01-01", "to": "2026-02-10"},
        headers=factories.bearer(
            factories.token(client, *factories.oauth_client(session, role="auditor", subject=[city]))
        ),
    ).json["items"]
    assert [(row["due_on"], row["missed_on"]) for row in gaps if row["device_tag"] == "GI-2"] == [
        ("2026-02-01", "2026-02-02")
    ]


def test_a_frequency_the_city_set_runs_in_days(client, session, frozen_clock):
    """Tracy 5.26 (e)(1) lets the Director establish a frequency: an interceptor registered
    with 90 days runs 90 days (1 November to 30 January), not a quarter; and a device whose
    quarterly default the city changes runs the quarter until the change, days after it."""
    world = world_in(client, session, frozen_clock, "tracy", now=pacific(2025, 11, 1, 9))
    created = register_device(client, admin_of(client, session, "tracy"), world, tag="GI-2", frequency_days=90)
    assert (created.json["frequency_source"], created.json["frequency_months"]) == ("assigned", None)
    findings_of(world.post(world.body(device_tag="GI-2", completed=pacific(2025, 11, 1, 9), disposal=None)))
    late = _serviced(world, frozen_clock, pacific(2026, 2, 1, 9))["service_interval_exceeded"]
    assert late["message"].startswith("92 days since the previous qualifying service; at most 90 allowed (90-day")
    changed = Interval.of("interceptor", 60, frequencies=((date.min, 90), (date(2026, 3, 1), 60)), first_months=3)
    assert changed.due_on(date(2025, 11, 30)) == date(2026, 2, 28)
    assert changed.due_on(date(2026, 2, 1)) == date(2026, 4, 2)  # 60 days, from 1 March on
    assert changed.months_on(date(2026, 2, 28)) == 3 and changed.months_on(date(2026, 3, 1)) is None


def test_the_migration_gives_the_devices_on_the_default_their_quarter(app, client, session, frozen_clock):
    """Migration 0041: an interceptor in Tracy still on the city's default (never changed) runs
    a quarter of calendar months; one the city gave 90 days, and one in Victorville (whose
    default is "not less than once every ninety days", 10.03.160(f)(2)), keep their days."""
    from sqlalchemy import select

    from storage.models import Device

    world = world_in(client, session, frozen_clock, "tracy", now=pacific(2026, 6, 1, 9))
    admin = admin_of(client, session, "tracy")
    assert register_device(client, admin, world, tag="GI-2").json["frequency_months"] == 3
    assert register_device(client, admin, world, tag="GI-3", frequency_days=90).json["frequency_months"] is None
    victorville = world_in(client, session, frozen_clock, "victorville", now=pacific(2026, 6, 1, 9))
    created = register_device(client, admin_of(client, session, "victorville"), victorville, tag="GI-2")
    assert (created.json["frequency_source"], created.json["frequency_months"]) == ("city_default", None)
    factories.migrated_again(app, session, down_to="0038")
    months = dict(session.execute(select(Device.id, Device.frequency_months)).all())
    tags = {row.id: (row.fse_id, row.tag) for row in session.scalars(select(Device))}
    found = sorted(
        (tag, fse_id == world.device.fse_id, months[device_id] or 0) for device_id, (fse_id, tag) in tags.items()
    )
    assert found == [("GI-1", False, 0), ("GI-1", True, 0), ("GI-2", False, 0), ("GI-2", True, 3), ("GI-3", True, 0)]
