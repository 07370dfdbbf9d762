"""What every city's ordinance tests share: a world in the city, its evening, its 25% edge,
registering a device through the API."""

from datetime import UTC, date, datetime, timedelta
from zoneinfo import ZoneInfo

from tests import factories
from tests.manifest_world import NOW, build

PACIFIC = ZoneInfo("America/Los_Angeles")
CITY_NAMES = {
    "placentia": "Placentia",
    "colusa": "Colusa",
    "san-clemente": "San Clemente",
    "victorville": "Victorville",
    "tracy": "Tracy",
}


def pacific(year, month, day, hour, minute=0):
    """An instant read on a California wall clock, in UTC as it is stored."""
    return datetime(year, month, day, hour, minute, tzinfo=PACIFIC).astimezone(UTC)


def world_in(client, session, frozen_clock, city, *, now=NOW, **kwargs):
    frozen_clock(now)
    return build(client, session, city=city, **kwargs)


def findings_of(response):
    assert response.status_code in (200, 201), response.json
    return {f["code"]: f for f in response.json["findings"]}


def evening_of_the_permits_last_day(client, session, frozen_clock, city):
    """The findings of a service at 23:30 Pacific on the last day of a permit valid through
    June 30 (06:30 UTC on July 1), and of one at 00:30 Pacific on July 1."""
    world = world_in(client, session, frozen_clock, city, now=pacific(2026, 7, 1, 9))
    world.permit.expires_on = date(2026, 6, 30)
    session.commit()
    evening = findings_of(world.post(world.body(completed=pacific(2026, 6, 30, 23, 30))))
    next_day = findings_of(world.post(world.body(completed=pacific(2026, 7, 1, 0, 30))))
    return evening, next_day


def at_and_over_a_quarter(client, session, frozen_clock, city):
    """The findings of an interceptor (48-in design depth) measured at exactly 25% (12 in of
    FOG and solids), and at 12.1 in."""
    world = world_in(client, session, frozen_clock, city)
    at = findings_of(world.post(world.body(measurements={"fog_depth_in": 8, "solids_depth_in": 4})))
    over = findings_of(world.post(world.body(measurements={"fog_depth_in": 8, "solids_depth_in": 4.1})))
    return at, over


def admin_of(client, session, city):
    return factories.token(client, *factories.oauth_client(session, role="admin", subject=[city]))


def register_device(client, token, world, **fields):
    """POST a device on the world's permit; the response."""
    body = {
        "tag": "GI-2",
        "kind": "interceptor",
        "capacity_gallons": 1500,
        "liquid_depth_in": 48,
        "permit_number": world.permit.permit_number,
        **fields,
    }
    return client.post(f"/v1/fses/{world.device.fse_id}/devices", json=body, headers=factories.bearer(token))


def trap_body(world, tag, completed, **overrides):
    """A clean pump-out of a 50-gallon trap."""
    fields = {"device_tag": tag, "waste_type": "grease_trap_waste", "gallons_removed": 50, "measurements": None}
    return world.body(completed=completed, **{**fields, **overrides})


def days_before(moment, days):
    return moment - timedelta(days=days)


def change(client, token, world, device_id, **body):
    return client.post(
        f"/v1/fses/{world.device.fse_id}/devices/{device_id}/frequency-changes",
        json=body,
        headers=factories.bearer(token),
    )


def renewed(client, session, frozen_clock, city="victorville"):
    """A restaurant in `city` whose permit of 1 July 2025 to 30 June 2026 is renewed by a new
    permit from 1 July 2026, with two interceptors; the world, the admin's token, the new permit."""
    world = world_in(client, session, frozen_clock, city, now=pacific(2026, 6, 20, 9))
    world.permit.issued_on, world.permit.expires_on = date(2025, 7, 1), date(2026, 6, 30)
    session.commit()
    admin = admin_of(client, session, city)
    assert (
        register_device(client, admin, world, tag="GI-2", frequency_days=90, in_service_on="2025-07-01").status_code
        == 201
    )
    created = client.post(
        "/v1/permits",
        headers=factories.bearer(admin),
        json={
            "permit_number": f"{world.permit.permit_number}-2026",
            "fse_id": str(world.device.fse_id),
            "kind": "regular",
            "issued_on": "2026-07-01",
            "expires_on": "2027-06-30",
        },
    )
    assert created.status_code == 201, created.json
    return world, admin, created.json


def move(client, token, world, tag, **body):
    device = client.get(f"/v1/fses/{world.device.fse_id}/devices", headers=factories.bearer(token)).json["items"]
    device_id = next(row["id"] for row in device if row["tag"] == tag)
    return client.post(
        f"/v1/fses/{world.device.fse_id}/devices/{device_id}/permit-moves", json=body, headers=factories.bearer(token)
    )


def auditor_of(client, session, city="victorville"):
    return factories.token(client, *factories.oauth_client(session, role="auditor", subject=[city]))


def missed(client, token, **query):
    """The missed services an auditor reads for the query."""
    response = client.get("/v1/audit/missed-services", query_string=query, headers=factories.bearer(token))
    assert response.status_code == 200, response.json
    return response.json["items"]


def by_tag(rows, *fields):
    return {row["device_tag"]: tuple(row[name] for name in fields) for row in rows}
