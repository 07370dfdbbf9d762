"""The registry API: what admins write, what auditors and haulers read, and as-of-date answers."""

import io
from datetime import UTC, date, datetime, timedelta

import pytest
from sqlalchemy import func, select

from storage.models import Permit, PermitStatusChange
from tests import factories
from tests.registry_calls import FSE
from tests.statements import counted


@pytest.fixture
def city(client, session):
    """Victorville with an admin, an auditor and a registered hauler; tokens for each."""
    factories.jurisdiction(session, "victorville")
    factories.jurisdiction(session, "tracy")
    hauler = factories.hauler(session, cities=("victorville",))
    tokens = {
        role: factories.token(client, *factories.oauth_client(session, role=role, subject=subject))
        for role, subject in (("admin", ["victorville"]), ("auditor", ["victorville"]), ("hauler", [hauler.id]))
    }
    tokens["tracy_admin"] = factories.token(client, *factories.oauth_client(session, role="admin", subject=["tracy"]))
    return tokens


def call(client, token, method, path, **kwargs):
    return client.open(path, method=method, headers=factories.bearer(token), **kwargs)


def make_fse(client, token, **overrides):
    response = call(client, token, "POST", "/v1/fses", json={**FSE, **overrides})
    assert response.status_code == 201, response.json
    return response.json


def make_permit(client, token, fse_id, **overrides):
    """A permit issued this year (unless told) for Victorville's one-year term (10.03.080(a))."""
    issued = date.fromisoformat(overrides.get("issued_on", f"{date.today().year}-01-01"))
    body = {
        "permit_number": "VV-1",
        "fse_id": fse_id,
        "kind": "regular",
        "issued_on": issued.isoformat(),
        "expires_on": (issued.replace(year=issued.year + 1) - timedelta(days=1)).isoformat(),
        **overrides,
    }
    response = call(client, token, "POST", "/v1/permits", json=body)
    assert response.status_code == 201, response.json
    return response.json


DEVICE = {
    "tag": "GI-1",
    "kind": "interceptor",
    "capacity_gallons": 1500,
    "liquid_depth_in": 48,
    "frequency_days": 90,
    "permit_number": "VV-1",
}


def test_admin_builds_an_fse_with_permit_and_device(client, city):
    fse = make_fse(client, city["admin"])
    assert fse["jurisdiction"] == "victorville"
    permit = make_permit(client, city["admin"], fse["id"])
    assert permit["status"] == "active"
    device = call(client, city["admin"], "POST", f"/v1/fses/{fse['id']}/devices", json=DEVICE)
    assert device.status_code == 201
    assert device.json["permit_number"] == "VV-1" and device.json["warnings"] == []
    fetched = call(client, city["auditor"], "GET", device.headers["Location"])
    assert fetched.status_code == 200 and fetched.json["tag"] == "GI-1"


def test_a_permit_suspended_on_march_1_was_active_in_february(client, city, frozen_clock):
    frozen_clock(datetime(2026, 2, 25, 17, tzinfo=UTC))
    fse = make_fse(client, city["admin"])
    permit = make_permit(client, city["admin"], fse["id"], issued_on="2026-01-01")
    change = call(
        client,
        city["admin"],
        "PATCH",
        f"/v1/permits/{permit['id']}",
        json={"status": "suspended", "effective_on": "2026-03-01", "reason": "FOG spill"},
    )
    assert change.status_code == 200
    path = f"/v1/permits/{permit['id']}"
    february = call(client, city["auditor"], "GET", path, query_string={"as_of": "2026-02-20"})
    march = call(client, city["auditor"], "GET", path, query_string={"as_of": "2026-03-02"})
    assert february.json["status"] == "active"
    assert march.json["status"] == "suspended"
    assert [h["status"] for h in march.json["status_history"]] == ["active", "suspended"]
    expired = call(client, city["auditor"], "GET", path, query_string={"as_of": "2028-01-01"})
    assert expired.json["status"] == "suspended"
    listed = call(
        client, city["auditor"], "GET", "/v1/permits", query_string={"status": "active", "as_of": "2026-02-20"}
    )
    assert [p["id"] for p in listed.json["items"]] == [permit["id"]]
    listed = call(
        client, city["auditor"], "GET", "/v1/permits", query_string={"status": "active", "as_of": "2026-03-02"}
    )
    assert listed.json["items"] == []


def test_permit_expires_after_its_expiry_date(client, city):
    fse = make_fse(client, city["admin"])
    permit = make_permit(client, city["admin"], fse["id"], issued_on="2025-02-01", expires_on="2026-01-31")
    path = f"/v1/permits/{permit['id']}"
    assert call(client, city["auditor"], "GET", path, query_string={"as_of": "2026-01-31"}).json["status"] == "active"
    assert call(client, city["auditor"], "GET", path, query_string={"as_of": "2026-02-01"}).json["status"] == "expired"


def test_uniqueness_rules(client, city):
    fse = make_fse(client, city["admin"])
    make_permit(client, city["admin"], fse["id"])
    again = call(
        client,
        city["admin"],
        "POST",
        "/v1/permits",
        json={
            "permit_number": "VV-1",
            "fse_id": fse["id"],
            "kind": "regular",
            "issued_on": "2025-01-01",
            "expires_on": "2025-12-31",
        },
    )
    assert again.status_code == 409 and again.mimetype == "application/problem+json"
    path = f"/v1/fses/{fse['id']}/devices"
    assert call(client, city["admin"], "POST", path, json=DEVICE).status_code == 201
    assert call(client, city["admin"], "POST", path, json=DEVICE).status_code == 409


def test_validation_reports_every_field_at_once(client, city):
    response = call(
        client,
        city["admin"],
        "POST",
        "/v1/permits",
        json={
            "permit_number": "",
            "fse_id": "not-a-uuid",
            "kind": "forever",
            "issued_on": "2026-05-01",
            "expires_on": "2026-04-01",
            "colour": "red",
        },
    )
    assert response.status_code == 422
    errors = response.json["errors"]
    assert set(errors) >= {"permit_number", "fse_id", "kind", "colour"}
    dates = call(
        client,
        city["admin"],
        "POST",
        "/v1/permits",
        json={
            "permit_number": "X",
            "fse_id": "00000000-0000-0000-0000-000000000000",
            "kind": "regular",
            "issued_on": "2026-05-01",
            "expires_on": "2026-04-01",
        },
    )
    assert dates.json["errors"] == {"expires_on": ["Must be after issued_on."]}


@pytest.mark.parametrize("written", ["20250101", "2025-W01-3", "2025-1-1", "２０２５-０１-０１"])
def test_a_date_is_an_rfc_3339_full_date(client, city, written):
    """YYYY-MM-DD in ASCII digits, as openapi.yaml's `format: date` says; other ISO 8601 forms
    (basic, week dates) are refused rather than read as some day."""
    fse = make_fse(client, city["admin"])
    response = call(
        client,
        city["admin"],
        "POST",
        "/v1/permits",
        json={
            "permit_number": "VV-DAY",
            "fse_id": fse["id"],
            "kind": "regular",
            "issued_on": written,
            "expires_on": "2025-12-31",
        },
    )
    assert response.status_code == 422 and response.json["errors"] == {"issued_on": ["Not a valid date."]}


def test_device_rules_come_from_the_jurisdiction(client, city):
    fse = make_fse(client, city["admin"])
    make_permit(client, city["admin"], fse["id"])
    path = f"/v1/fses/{fse['id']}/devices"
    odd = call(client, city["admin"], "POST", path, json={**DEVICE, "frequency_days": 45})
    assert odd.status_code == 422
    assert "10.03.160(b)" in odd.json["errors"]["frequency_days"][0]
    negative = call(client, city["admin"], "POST", path, json={**DEVICE, "capacity_gallons": -5, "liquid_depth_in": 0})
    assert set(negative.json["errors"]) == {"capacity_gallons", "liquid_depth_in"}
    unknown_permit = call(client, city["admin"], "POST", path, json={**DEVICE, "permit_number": "nope"})
    assert unknown_permit.json["errors"] == {"permit_number": ["No such permit for this FSE."]}


def test_minimum_interceptor_size_is_a_warning(client, session):
    factories.jurisdiction(session, "colusa")
    admin = factories.token(client, *factories.oauth_client(session, role="admin", subject=["colusa"]))
    fse = make_fse(client, admin, jurisdiction="colusa")
    make_permit(client, admin, fse["id"], permit_number="CO-1")
    response = call(
        client,
        admin,
        "POST",
        f"/v1/fses/{fse['id']}/devices",
        json={**DEVICE, "permit_number": "CO-1", "capacity_gallons": 750},
    )
    assert response.status_code == 201
    [warning] = response.json["warnings"]
    assert warning["code"] == "below_minimum_size"
    assert "Colusa" in warning["citation"]


def test_auditor_reads_but_cannot_write(client, city):
    fse = make_fse(client, city["admin"])
    assert call(client, city["auditor"], "GET", f"/v1/fses/{fse['id']}").status_code == 200
    refused = call(client, city["auditor"], "POST", "/v1/fses", json=FSE)
    assert refused.status_code == 403
    assert 'error="insufficient_scope"' in refused.headers["WWW-Authenticate"]
    assert call(client, city["auditor"], "PATCH", f"/v1/fses/{fse['id']}", json={"name": "x"}).status_code == 403


def file_for(client, hauler_token, permit_number, tag="GI-1"):
    """The hauler files a clean service of the device done two hours ago."""
    completed = datetime.now(UTC) - timedelta(hours=2)
    response = client.post(
        "/v1/manifests",
        headers=factories.bearer(hauler_token),
        json={
            "manifest_number": f"M-{permit_number}",
            "permit_number": permit_number,
            "device_tag": tag,
            "vehicle_id": "TRK-1",
            "driver_name": "D",
            "fse_signer_name": "S",
            "service_started_at": (completed - timedelta(hours=1)).isoformat(),
            "service_completed_at": completed.isoformat(),
            "waste_type": "grease_interceptor_waste",
            "gallons_removed": 1450,
            "full_pump_down": True,
        },
    )
    assert response.status_code == 201, response.json
    return response.json


def test_hauler_reads_the_restaurants_it_serves_and_writes_nothing(client, city, session):
    """A hauler files by permit number and device tag; of the registry it reads the sites it
    may deliver to and the restaurants it has serviced, without the operator's e-mail."""
    fse = make_fse(client, city["admin"])
    make_permit(client, city["admin"], fse["id"])
    call(client, city["admin"], "POST", f"/v1/fses/{fse['id']}/devices", json=DEVICE)
    other = make_fse(client, city["admin"], name="Taco Stand", apn="200-1")
    site = call(
        client,
        city["admin"],
        "POST",
        "/v1/disposal-sites",
        json={
            "name": "Plant",
            "address": "1 Rd",
            "facility_permit_number": "FAC-1",
            "waste_types": ["grease_interceptor_waste"],
            "approved_from": "2024-01-01",
            "jurisdictions": ["victorville"],
        },
    ).json
    hauler = city["hauler"]
    assert call(client, hauler, "GET", f"/v1/disposal-sites/{site['id']}").status_code == 200
    assert call(client, hauler, "GET", f"/v1/fses/{fse['id']}").status_code == 404
    assert call(client, hauler, "GET", "/v1/fses").json["items"] == []

    file_for(client, hauler, "VV-1")
    served = call(client, hauler, "GET", f"/v1/fses/{fse['id']}")
    assert served.status_code == 200 and served.json["name"] == "Mesa Grill"
    assert "operator_email" not in served.json and b"ana@example.com" not in served.data
    listed = call(client, hauler, "GET", "/v1/fses")
    assert [f["id"] for f in listed.json["items"]] == [fse["id"]] and b"@example.com" not in listed.data
    assert len(call(client, hauler, "GET", f"/v1/fses/{fse['id']}/devices").json["items"]) == 1
    assert [p["permit_number"] for p in call(client, hauler, "GET", "/v1/permits").json["items"]] == ["VV-1"]
    assert call(client, hauler, "GET", f"/v1/fses/{other['id']}").status_code == 404
    assert call(client, city["auditor"], "GET", f"/v1/fses/{fse['id']}").json["operator_email"] == "ana@example.com"
    assert call(client, hauler, "POST", "/v1/fses", json=FSE).status_code == 403
    tracy_fse = make_fse(client, city["tracy_admin"], jurisdiction="tracy")
    assert call(client, hauler, "GET", f"/v1/fses/{tracy_fse['id']}").status_code == 404


def test_admin_cannot_write_another_city(client, city):
    response = call(client, city["tracy_admin"], "POST", "/v1/fses", json=FSE)
    assert response.status_code == 422
    fse = make_fse(client, city["admin"])
    assert (
        call(client, city["tracy_admin"], "PATCH", f"/v1/fses/{fse['id']}", json={"name": "Hijacked"}).status_code
        == 404
    )
    assert call(client, city["admin"], "GET", f"/v1/fses/{fse['id']}").json["name"] == "Mesa Grill"


def test_hauler_licence_lapse_is_dated(client, city):
    created = call(
        client,
        city["admin"],
        "POST",
        "/v1/haulers",
        json={
            "name": "Desert Pumping",
            "licence_number": "DP-1",
            "licence_expires_on": "2027-06-30",
            "licence_issued_on": "2025-07-01",
            "registered_on": "2025-07-01",
            "jurisdictions": ["victorville"],
        },
    )
    assert created.status_code == 201
    hauler_id = created.json["id"]
    lapse = call(
        client,
        city["admin"],
        "PATCH",
        f"/v1/haulers/{hauler_id}",
        json={"effective_on": "2026-09-01", "licence_status": "lapsed"},
    )
    assert lapse.status_code == 200
    path = f"/v1/haulers/{hauler_id}"
    before = call(client, city["auditor"], "GET", path, query_string={"as_of": "2026-08-31"}).json
    after = call(client, city["auditor"], "GET", path, query_string={"as_of": "2026-09-01"}).json
    assert before["licence_valid"] is True and after["licence_valid"] is False
    vehicle = call(
        client,
        city["admin"],
        "POST",
        f"/v1/haulers/{hauler_id}/vehicles",
        json={"vehicle_id": "TRK-9", "tank_capacity_gallons": 2500},
    )
    assert vehicle.status_code == 201
    listed = call(client, city["auditor"], "GET", f"/v1/haulers/{hauler_id}/vehicles").json
    assert [v["vehicle_id"] for v in listed["items"]] == ["TRK-9"]


def test_a_known_hauler_is_registered_in_a_second_city(client, city):
    """The second city gets its own registration on the one shared record (200, the same id);
    the first city, which registered it, owns its name and licence number."""
    body = {"name": "Desert Pumping", "licence_number": "DP-1", "licence_expires_on": "2027-06-30"}
    first = call(client, city["admin"], "POST", "/v1/haulers", json={**body, "jurisdictions": ["victorville"]})
    second = call(client, city["tracy_admin"], "POST", "/v1/haulers", json={**body, "jurisdictions": ["tracy"]})
    assert first.status_code == 201 and second.status_code == 200
    assert second.json["id"] == first.json["id"]
    assert second.json["owner_jurisdiction"] == first.json["owner_jurisdiction"] == "victorville"
    assert second.json["jurisdictions"] == ["tracy"] and second.json["jurisdiction"] == "tracy"
    assert [a["jurisdiction"] for a in second.json["approvals"]] == ["tracy"]
    assert second.json["warnings"] == [] and second.json["licence_valid"] is True
    again = call(client, city["tracy_admin"], "POST", "/v1/haulers", json={**body, "jurisdictions": ["tracy"]})
    assert again.status_code == 409


def test_the_city_that_registered_a_hauler_renames_it_and_renumbers_its_licence(client, city):
    created = call(
        client,
        city["admin"],
        "POST",
        "/v1/haulers",
        json={
            "name": "Desert Pumping",
            "licence_number": "DP-1",
            "licence_expires_on": "2027-06-30",
            "licence_issued_on": "2025-07-01",
            "jurisdictions": ["victorville"],
        },
    ).json
    path = f"/v1/haulers/{created['id']}"
    renamed = call(client, city["admin"], "PATCH", path, json={"name": "Desert Pumping Inc."})
    assert renamed.status_code == 200 and renamed.json["name"] == "Desert Pumping Inc."
    assert len(renamed.json["licence_history"]) == 1  # no licence row for a new name
    renewed = call(
        client,
        city["admin"],
        "PATCH",
        path,
        json={"licence_number": "DP-2", "licence_expires_on": "2029-06-30", "effective_on": "2026-07-01"},
    )
    assert renewed.status_code == 200 and renewed.json["licence_number"] == "DP-2"
    assert [(row["licence_number"], row["expires_on"]) for row in renewed.json["licence_history"]] == [
        ("DP-1", "2027-06-30"),
        ("DP-2", "2029-06-30"),
    ]
    dated = call(client, city["admin"], "PATCH", path, json={"licence_status": "suspended"})
    assert dated.status_code == 422 and dated.json["errors"] == {
        "effective_on": ["Required with licence_expires_on or licence_status."]
    }
    assert call(client, city["admin"], "PATCH", path, json={}).status_code == 422


def test_site_closure_is_dated(client, city):
    site = call(
        client,
        city["admin"],
        "POST",
        "/v1/disposal-sites",
        json={
            "name": "Plant",
            "address": "1 Rd",
            "facility_permit_number": "FAC-1",
            "waste_types": ["grease_interceptor_waste"],
            "approved_from": "2024-01-01",
            "jurisdictions": ["victorville"],
        },
    ).json
    closed = call(
        client,
        city["admin"],
        "PATCH",
        f"/v1/disposal-sites/{site['id']}",
        json={"status": "closed", "effective_on": "2026-07-01"},
    )
    assert closed.status_code == 200
    path = f"/v1/disposal-sites/{site['id']}"
    assert call(client, city["auditor"], "GET", path, query_string={"as_of": "2026-06-30"}).json["status"] == "approved"
    assert call(client, city["auditor"], "GET", path, query_string={"as_of": "2026-07-01"}).json["status"] == "closed"


def test_lists_filter_search_and_page_with_an_opaque_cursor(client, city):
    for n in range(7):
        make_fse(client, city["admin"], name=f"Diner {n}", apn=f"100-{n}")
    make_fse(client, city["admin"], name="Taco Stand", apn="200-1", address="9 Elm St")
    seen, cursor = [], None
    while True:
        query = {"limit": 3, **({"cursor": cursor} if cursor else {})}
        page = call(client, city["auditor"], "GET", "/v1/fses", query_string=query).json
        seen += [f["name"] for f in page["items"]]
        cursor = page["next_cursor"]
        if not cursor:
            break
    assert len(seen) == 8 and len(set(seen)) == 8
    found = call(client, city["auditor"], "GET", "/v1/fses", query_string={"q": "elm"}).json
    assert [f["name"] for f in found["items"]] == ["Taco Stand"]
    bad = call(client, city["auditor"], "GET", "/v1/fses", query_string={"cursor": "!!"})
    assert bad.status_code == 422
    other_city = call(client, city["auditor"], "GET", "/v1/fses", query_string={"jurisdiction": "tracy"})
    assert other_city.json["items"] == []


def test_a_page_of_the_registry_is_read_in_a_few_statements_however_long(app, client, city, session):
    """Permits, haulers and disposal sites are listed with their histories, cities and
    licences: each read for the whole page in one statement, not for each row (a page of 50
    permits was a hundred round trips). Each item says what reading it alone says."""
    for _ in range(6):
        factories.permit(session, fse_row=factories.fse(session))
        factories.hauler(session, cities=("victorville", "tracy"))
        factories.disposal_site(session, cities=("victorville",))
    for path in ("/v1/permits", "/v1/haulers", "/v1/disposal-sites"):
        # Counted as sent: on PostgreSQL off the wire, the prebuilt statements included.
        with counted(app.extensions["fogx.engine"]) as sent:
            page = call(client, city["admin"], "GET", path, query_string={"limit": 50})
        assert page.status_code == 200 and len(page.json["items"]) >= 6
        assert len(sent.statements) <= 5, (path, sent.statements)  # the token's too
        for item in page.json["items"]:
            assert call(client, city["admin"], "GET", f"{path}/{item['id']}").json == item


def test_non_json_body_is_415_and_malformed_json_is_400(client, city):
    wrong_type = call(
        client, city["admin"], "POST", "/v1/fses", data="name=x", content_type="application/x-www-form-urlencoded"
    )
    assert wrong_type.status_code == 415 and wrong_type.mimetype == "application/problem+json"
    malformed = call(client, city["admin"], "POST", "/v1/fses", data='{"name": ', content_type="application/json")
    assert malformed.status_code == 400 and malformed.mimetype == "application/problem+json"
    duplicate = call(
        client, city["admin"], "POST", "/v1/fses", data='{"name": "a", "name": "b"}', content_type="application/json"
    )
    assert duplicate.status_code == 400 and "repeats" in duplicate.json["detail"]


def test_the_sql_permit_status_agrees_with_the_rule_on_every_day(app, session):
    """`permit_status_sql` (audit lists, status filters) against domain.registry, day by day."""
    from domain import registry as rules
    from storage.permit_status import permit_status_sql

    histories = [
        [],
        [("active", date(2025, 1, 1))],
        [("active", date(2025, 1, 1)), ("suspended", date(2026, 3, 1))],
        [("suspended", date(2025, 6, 1)), ("active", date(2025, 9, 1))],
        [("revoked", date(2025, 2, 1))],
    ]
    fse = factories.fse(session)
    permits = []
    for n, history in enumerate(histories):
        permit = Permit(
            jurisdiction_id=fse.jurisdiction_id,
            fse_id=fse.id,
            permit_number=f"H-{n}",
            kind="regular",
            issued_on=date(2025, 1, 1),
            expires_on=date(2026, 6, 30),
            status_changes=[PermitStatusChange(status=s, effective_on=d) for s, d in history],
        )
        session.add(permit)
        permits.append(permit)
    session.commit()
    for day in (
        date(2024, 12, 31),
        date(2025, 1, 1),
        date(2025, 7, 1),
        date(2025, 10, 1),
        date(2026, 3, 1),
        date(2026, 6, 30),
        date(2026, 7, 1),
    ):
        in_sql = dict(session.execute(select(Permit.id, permit_status_sql(day))).all())
        for permit in permits:
            changes = [rules.Dated(c.effective_on, c.status) for c in permit.status_changes]
            assert in_sql[permit.id] == rules.permit_status_on(
                issued_on=permit.issued_on, expires_on=permit.expires_on, changes=changes, day=day
            ), (permit, day)


def test_a_retried_registry_post_is_answered_once_under_its_idempotency_key(client, city, session):
    """Every registry POST honours `Idempotency-Key`, as filings do: the retry of a create whose
    answer was lost gets that answer again (not a 409), nothing is made twice, and the key
    with another body is a 422."""
    from storage.models import Device, DisposalSite, Fse, Hauler, Vehicle

    fse = make_fse(client, city["admin"])
    make_permit(client, city["admin"], fse["id"])
    hauler = call(
        client,
        city["admin"],
        "POST",
        "/v1/haulers",
        json={
            "name": "Desert Pumping",
            "licence_number": "DP-1",
            "licence_expires_on": "2027-06-30",
            "jurisdictions": ["victorville"],
        },
    ).json
    posts = [
        ("/v1/fses", {**FSE, "apn": "IDEM-1"}, Fse, "name"),
        (
            "/v1/permits",
            {
                "permit_number": "VV-2",
                "fse_id": fse["id"],
                "kind": "regular",
                "issued_on": "2025-01-01",
                "expires_on": "2025-12-31",
            },
            Permit,
            "kind",
        ),
        (f"/v1/fses/{fse['id']}/devices", {**DEVICE, "tag": "GI-2"}, Device, "tag"),
        (
            "/v1/haulers",
            {
                "name": "Valley Vac",
                "licence_number": "VV-3",
                "licence_expires_on": "2027-06-30",
                "jurisdictions": ["victorville"],
            },
            Hauler,
            "name",
        ),
        (
            f"/v1/haulers/{hauler['id']}/vehicles",
            {"vehicle_id": "TRK-9", "tank_capacity_gallons": 2500},
            Vehicle,
            "vehicle_id",
        ),
        (
            "/v1/disposal-sites",
            {
                "name": "Plant",
                "address": "1 Rd",
                "facility_permit_number": "FAC-9",
                "waste_types": ["grease_interceptor_waste"],
                "approved_from": "2024-01-01",
                "jurisdictions": ["victorville"],
            },
            DisposalSite,
            "name",
        ),
    ]
    admin = factories.bearer(city["admin"])
    for n, (path, body, model, field) in enumerate(posts):

        def count():
            session.expire_all()
            return session.scalar(select(func.count()).select_from(model))

        key = {**admin, "Idempotency-Key": f"create-{n}"}
        first = client.post(path, json=body, headers=key)
        assert first.status_code == 201, (path, first.json)
        made = count()
        retried = client.post(path, json=body, headers=key)
        assert (retried.status_code, retried.json) == (201, first.json), path
        assert retried.headers["Idempotent-Replayed"] == "true" and count() == made, path
        other = client.post(path, json={**body, field: "Something Else"}, headers=key)
        assert other.status_code == 422 and "Idempotency-Key" in other.json["errors"], path
        assert client.post(path, json=body, headers=admin).status_code == 409, path
        assert count() == made, path


def test_a_retried_import_replays_its_report_and_refuses_another_file(client, city, session):
    rows = b"name,licence_number,licence_expires_on\nValley Vac,VV-3,2028-06-30\n"

    def upload(content, key):
        return client.post(
            "/v1/imports/haulers",
            content_type="multipart/form-data",
            headers={**factories.bearer(city["admin"]), "Idempotency-Key": key},
            data={"file": (io.BytesIO(content), "haulers.csv")},
        )

    first = upload(rows, "import-1")
    assert first.status_code == 200 and first.json["created"] == 1
    again = upload(rows, "import-1")
    assert again.json == first.json and again.headers["Idempotent-Replayed"] == "true"
    same_length = rows.replace(b"2028", b"2029")
    refused = upload(same_length, "import-1")
    assert refused.status_code == 422 and "Idempotency-Key" in refused.json["errors"]
    assert upload(rows, "import-2").json["unchanged"] == 1
