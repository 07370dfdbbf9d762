"""Another city's admin cannot damage the registry records a city relies on.

A hauler or a disposal site is one record shared by the cities; each city's approval of it is
that city's own rows. Each attack here is what a second city's admin could do to the first
city's hauler or site (register the same licence or facility, then change it through the API
or a CSV import), and what comes of it now: nothing in the first city's view of the record, or
in how its filings are judged; the second city's changes hold for the second city alone.
"""

import json
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta

import pytest
from sqlalchemy import select, text

from storage import migrate
from storage.models import DisposalSite, Hauler, Jurisdiction
from tests import factories
from tests.manifest_world import NOW, iso
from tests.registry_calls import HAULER, SITE

A, B = "victorville", "tracy"  # A registered the hauler and the site; B is the second city


@dataclass
class Cities:
    client: object
    session: object
    app: object
    tokens: dict
    hauler_id: str
    site_id: str
    permits: dict
    filed: list = field(default_factory=list)

    def call(self, who, method, path, **kwargs):
        return self.client.open(path, method=method, headers=factories.bearer(self.tokens[who]), **kwargs)

    def view(self, who, path):
        response = self.call(who, "GET", path)
        assert response.status_code == 200, response.json
        return response.json

    def file(self, city, *, vehicle="TRK-1"):
        """The hauler files, in `city`, a clean pump-out of a device of its own, delivered to the
        shared site; the codes of the findings."""
        n = len(self.filed) + 1
        device = factories.device(self.session, permit_row=self.permits[city], tag=f"GI-{n}")
        response = self.call(
            "hauler",
            "POST",
            "/v1/manifests",
            json={
                "manifest_number": f"M-{n}",
                "permit_number": self.permits[city].permit_number,
                "device_tag": device.tag,
                "vehicle_id": vehicle,
                "driver_name": "Sam Ortiz",
                "fse_signer_name": "Ana Ruiz",
                "service_started_at": iso(NOW - timedelta(hours=3)),
                "service_completed_at": iso(NOW - timedelta(hours=2)),
                "waste_type": "grease_interceptor_waste",
                "gallons_removed": 1450,
                "decant_returned_gallons": 0,
                "full_pump_down": True,
                "disposal": {
                    "site_id": self.site_id,
                    "ticket_number": f"T-{n}",
                    "delivered_at": iso(NOW - timedelta(hours=1)),
                    "gallons_delivered": 1450,
                },
            },
        )
        assert response.status_code == 201, response.json
        self.filed.append(response.json["id"])
        return sorted(f["code"] for f in response.json["findings"])

    def findings_of(self, manifest_id):
        return sorted(f["code"] for f in self.view("hauler", f"/v1/manifests/{manifest_id}")["findings"])

    def import_csv(self, city, kind, content, tmp_path):
        path = tmp_path / f"{city}-{kind}.csv"
        path.write_text(content)
        result = self.app.test_cli_runner().invoke(args=["import", kind, str(path), "--jurisdiction", city, "--json"])
        assert result.exit_code == 0, result.output
        return json.loads(result.stdout)


@pytest.fixture
def cities(app, client, session, frozen_clock):
    """Victorville registered a hauler with a truck and approved a site; both cities have a
    restaurant's permit for the hauler to file against."""
    frozen_clock(NOW)
    for code in (A, B):
        factories.jurisdiction(session, code)
    tokens = {
        code: factories.token(client, *factories.oauth_client(session, role="admin", subject=[code])) for code in (A, B)
    }
    tokens["auditor"] = factories.token(client, *factories.oauth_client(session, role="auditor", subject=[A]))
    admin = factories.bearer(tokens[A])
    hauler = client.post("/v1/haulers", headers=admin, json={**HAULER, "jurisdictions": [A]})
    assert hauler.status_code == 201, hauler.json
    truck = client.post(
        f"/v1/haulers/{hauler.json['id']}/vehicles",
        headers=admin,
        json={"vehicle_id": "TRK-1", "tank_capacity_gallons": 3000},
    )
    assert truck.status_code == 201, truck.json
    site = client.post("/v1/disposal-sites", headers=admin, json={**SITE, "jurisdictions": [A]})
    assert site.status_code == 201, site.json
    tokens["hauler"] = factories.token(
        client, *factories.oauth_client(session, role="hauler", subject=[hauler.json["id"]])
    )
    permits = {
        code: factories.permit(session, fse_row=factories.fse(session, city=code), number=f"{code[:2].upper()}-FOG-1")
        for code in (A, B)
    }
    return Cities(
        client=client,
        session=session,
        app=app,
        tokens=tokens,
        hauler_id=hauler.json["id"],
        site_id=site.json["id"],
        permits=permits,
    )


def test_a_second_city_registering_the_licence_cannot_rename_relicense_or_re_equip_the_hauler(cities):
    hauler_path = f"/v1/haulers/{cities.hauler_id}"
    seen_by_a = cities.view("auditor", hauler_path)
    trucks_of_a = cities.view("auditor", f"{hauler_path}/vehicles")
    first = cities.file(A)
    assert first == []

    # Tracy posts the same licence under another name, with a licence long expired.
    posted = cities.call(
        B,
        "POST",
        "/v1/haulers",
        json={**HAULER, "name": "Hijacked Haulage", "licence_expires_on": "2025-01-01", "jurisdictions": [B]},
    )
    assert posted.status_code == 200 and posted.json["id"] == cities.hauler_id
    assert posted.json["name"] == "Desert Pumping" and posted.json["owner_jurisdiction"] == A
    [kept] = posted.json["warnings"]
    assert kept["code"] == "shared_field_kept" and "City of Victorville" in kept["message"]
    assert posted.json["licence_valid"] is False  # Tracy's own word: expired

    # The shared fields are refused, and the answer says whose they are.
    for change in ({"name": "Hijacked Haulage"}, {"licence_number": "HH-666", "effective_on": "2026-01-01"}):
        refused = cities.call(B, "PATCH", hauler_path, json=change)
        assert refused.status_code == 409, refused.json
        assert "City of Victorville" in refused.json["detail"]
    # Its own approval is Tracy's to change: it revokes the licence and adds a truck.
    revoked = cities.call(B, "PATCH", hauler_path, json={"licence_status": "revoked", "effective_on": "2026-01-01"})
    assert revoked.status_code == 200 and revoked.json["licence_status"] == "revoked"
    added = cities.call(
        B, "POST", f"{hauler_path}/vehicles", json={"vehicle_id": "TRK-666", "tank_capacity_gallons": 20000}
    )
    assert added.status_code == 201 and added.json["jurisdiction"] == B

    # Victorville sees its hauler as it registered it, and judges its filings by it.
    assert cities.view("auditor", hauler_path) == seen_by_a
    assert cities.view("auditor", f"{hauler_path}/vehicles") == trucks_of_a
    assert cities.view(B, hauler_path)["name"] == "Desert Pumping"
    assert cities.file(A) == []
    assert cities.file(A, vehicle="TRK-666") == ["vehicle_unregistered"]
    assert cities.findings_of(cities.filed[0]) == first
    # Tracy's word holds in Tracy (the site is not one Tracy approved).
    assert cities.file(B, vehicle="TRK-666") == ["disposal_site_unapproved", "hauler_licence_invalid"]
    assert cities.file(B, vehicle="TRK-1") == [
        "disposal_site_unapproved",
        "hauler_licence_invalid",
        "vehicle_unregistered",
    ]


def test_a_second_city_suspending_the_shared_site_leaves_it_approved_for_the_first(cities):
    site_path = f"/v1/disposal-sites/{cities.site_id}"
    seen_by_a = cities.view("auditor", site_path)
    assert cities.file(A) == []
    cities.call(B, "POST", "/v1/haulers", json={**HAULER, "jurisdictions": [B]})
    cities.call(
        B,
        "POST",
        f"/v1/haulers/{cities.hauler_id}/vehicles",
        json={"vehicle_id": "TRK-1", "tank_capacity_gallons": 3000},
    )

    posted = cities.call(
        B,
        "POST",
        "/v1/disposal-sites",
        json={
            **SITE,
            "name": "Closed For Good",
            "address": "Nowhere",
            "waste_types": ["grease_trap_waste"],
            "approved_until": "2025-12-31",
            "jurisdictions": [B],
        },
    )
    assert posted.status_code == 200 and posted.json["id"] == cities.site_id
    assert posted.json["name"] == SITE["name"] and posted.json["address"] == SITE["address"]
    assert posted.json["warnings"][0]["code"] == "shared_field_kept"
    assert cities.call(B, "PATCH", site_path, json={"name": "Closed For Good"}).status_code == 409
    suspended = cities.call(
        B, "PATCH", site_path, json={"status": "suspended", "effective_on": "2025-06-01", "reason": "cut short"}
    )
    assert suspended.status_code == 200 and suspended.json["status"] == "suspended"

    assert cities.view("auditor", site_path) == seen_by_a
    assert seen_by_a["status"] == "approved" and seen_by_a["approved_until"] is None
    assert cities.file(A) == []
    assert cities.findings_of(cities.filed[0]) == []
    assert cities.file(B) == ["disposal_site_unapproved"]


def test_a_second_citys_csv_import_changes_only_its_own_rows(cities, tmp_path):
    hauler_path, site_path = f"/v1/haulers/{cities.hauler_id}", f"/v1/disposal-sites/{cities.site_id}"
    seen_by_a = {path: cities.view("auditor", path) for path in (hauler_path, f"{hauler_path}/vehicles", site_path)}
    assert cities.file(A) == []

    haulers = cities.import_csv(
        B, "haulers", "name,licence_number,licence_expires_on\nHijacked Haulage,DP-1,2025-01-01\n", tmp_path
    )
    assert (haulers["created"], haulers["rejected"]) == (1, 0)  # Tracy's registration is new
    assert [w["code"] for w in haulers["warnings"]] == ["shared_field_kept"]
    vehicles = cities.import_csv(
        B, "vehicles", "licence_number,vehicle_id,tank_capacity_gallons\nDP-1,TRK-666,20000\nDP-1,TRK-1,100\n", tmp_path
    )
    assert vehicles["created"] == 2
    sites = cities.import_csv(
        B,
        "disposal-sites",
        "name,address,facility_permit_number,waste_types,"
        "approved_from,approved_until,status\n"
        "Closed For Good,Nowhere,HDR-22-0091,grease_trap_waste,"
        "2024-01-01,2025-12-31,suspended\n",
        tmp_path,
    )
    assert sites["created"] == 1 and [w["code"] for w in sites["warnings"]] == ["shared_field_kept"]
    again = cities.import_csv(
        B, "haulers", "name,licence_number,licence_expires_on\nHijacked Haulage,DP-1,2024-06-30\n", tmp_path
    )
    assert again["updated"] == 1

    for path, before in seen_by_a.items():
        assert cities.view("auditor", path) == before, path
    assert cities.file(A) == []
    assert cities.findings_of(cities.filed[0]) == []
    seen_by_b = cities.view(B, site_path)
    assert (seen_by_b["name"], seen_by_b["approved_until"], seen_by_b["waste_types"]) == (
        SITE["name"],
        "2025-12-31",
        ["grease_trap_waste"],
    )
    assert [row["expires_on"] for row in cities.view(B, hauler_path)["licence_history"]] == ["2025-01-01", "2024-06-30"]
    assert cities.file(B) == ["disposal_site_unapproved", "hauler_licence_invalid", "vehicle_unregistered"]


def test_the_city_that_registered_a_record_changes_its_shared_fields_for_every_city(cities, tmp_path):
    hauler_path, site_path = f"/v1/haulers/{cities.hauler_id}", f"/v1/disposal-sites/{cities.site_id}"
    cities.call(B, "POST", "/v1/haulers", json={**HAULER, "jurisdictions": [B]})
    cities.call(B, "POST", "/v1/disposal-sites", json={**SITE, "jurisdictions": [B]})
    renamed = cities.call(A, "PATCH", hauler_path, json={"name": "Desert Pumping Inc."})
    assert renamed.status_code == 200
    moved = cities.call(A, "PATCH", site_path, json={"address": "1 New Rd, Hesperia"})
    assert moved.status_code == 200 and moved.json["status"] == "approved"
    report = cities.import_csv(
        A, "haulers", "name,licence_number,licence_expires_on\nDesert Pumping Company,DP-1,2028-06-30\n", tmp_path
    )
    assert (report["updated"], report["warnings"]) == (1, [])
    seen_by_b = cities.view(B, hauler_path)
    assert seen_by_b["name"] == "Desert Pumping Company" and seen_by_b["owner_jurisdiction"] == A
    assert cities.view(B, site_path)["address"] == "1 New Rd, Hesperia"


def test_a_registration_made_in_the_california_evening_is_dated_that_evening(client, session, frozen_clock):
    """23:30 Pacific on 30 June is 1 July in UTC: the hauler is registered, and its licence on
    record, from the city's own day."""
    frozen_clock(datetime(2026, 7, 1, 6, 30, tzinfo=UTC))
    factories.jurisdiction(session, A)
    admin = factories.token(client, *factories.oauth_client(session, role="admin", subject=[A]))
    created = client.post(
        "/v1/haulers",
        headers=factories.bearer(admin),
        json={
            "name": "Night Owl Pumping",
            "licence_number": "NO-1",
            "licence_expires_on": "2028-06-30",
            "jurisdictions": [A],
        },
    )
    assert created.status_code == 201
    [approval] = created.json["approvals"]
    assert approval["registered_on"] == "2026-06-30"
    assert created.json["licence_history"][0]["effective_on"] == "2026-06-30"


def _pre_0016_rows(connection, cities):
    """A hauler registered in two cities and a site approved for both, as the tables held
    them before each city had rows of its own."""
    ids = {
        name: f"{n:032x}" if connection.dialect.name == "sqlite" else f"00000000-0000-0000-0000-{n:012x}"
        for n, name in enumerate(("hauler", "licence", "reg_a", "reg_b", "truck", "site", "change"), 1)
    }
    a, b = (cities[code] for code in (A, B))
    statements = [
        "INSERT INTO haulers (id, name, created_at) VALUES (:hauler, 'Desert Pumping', '2024-01-01 00:00:00')",
        "INSERT INTO hauler_licences (id, hauler_id, licence_number, expires_on, effective_on, status, recorded_at)"
        " VALUES (:licence, :hauler, 'DP-1', '2028-06-30', '2024-01-01', 'valid', '2024-01-01 00:00:00')",
        "INSERT INTO hauler_registrations (id, hauler_id, jurisdiction_id, registered_on, recorded_at)"
        " VALUES (:reg_b, :hauler, :b, '2025-01-01', '2025-01-01 00:00:00')",
        "INSERT INTO hauler_registrations (id, hauler_id, jurisdiction_id, registered_on, recorded_at)"
        " VALUES (:reg_a, :hauler, :a, '2024-01-01', '2024-01-01 00:00:00')",
        "INSERT INTO vehicles (id, hauler_id, vehicle_id, tank_capacity_gallons, created_at)"
        " VALUES (:truck, :hauler, 'TRK-1', 3000, '2024-01-01 00:00:00')",
        "INSERT INTO disposal_sites (id, name, address, facility_permit_number, waste_types, approved_from,"
        " approved_until, created_at) VALUES (:site, 'Plant', '1 Rd', 'FAC-1', '[\"grease_trap_waste\"]',"
        " '2024-01-01', '2027-12-31', '2024-01-01 00:00:00')",
        "INSERT INTO disposal_site_jurisdictions (site_id, jurisdiction_id) VALUES (:site, :a)",
        "INSERT INTO disposal_site_jurisdictions (site_id, jurisdiction_id) VALUES (:site, :b)",
        "INSERT INTO disposal_site_status_changes (id, site_id, status, effective_on, recorded_at)"
        " VALUES (:change, :site, 'suspended', '2026-03-01', '2026-03-01 00:00:00')",
    ]
    for statement in statements:
        connection.execute(text(statement), {**ids, "a": a, "b": b})


def test_migration_0016_gives_each_city_its_own_copy_of_the_rows_before_it(app, session):
    """The upgrade of a registry that shared everything: the city registered first owns the
    hauler, the city known longest among those approving it the site; each registered city
    gets the licence and the truck as its own rows; each approving city the site's dates,
    waste types and status history."""
    for code in (A, B):
        factories.jurisdiction(session, code)
    session.close()
    engine = app.extensions["fogx.engine"]
    engine.dispose()
    migrate.downgrade(engine, "0012")
    try:
        with engine.begin() as connection:
            cities = {
                code: connection.execute(text("SELECT id FROM jurisdictions WHERE code = :c"), {"c": code}).scalar_one()
                for code in (A, B)
            }
            _pre_0016_rows(connection, cities)
    finally:
        migrate.upgrade(engine)
        engine.dispose()
    ids = {code: session.scalar(select(Jurisdiction.id).where(Jurisdiction.code == code)) for code in (A, B)}
    hauler = session.scalars(select(Hauler)).one()
    assert (hauler.licence_number, hauler.owner_jurisdiction_id) == ("DP-1", ids[A])
    assert sorted((row.jurisdiction_id == ids[A], row.licence_number, row.expires_on) for row in hauler.licences) == [
        (False, "DP-1", date(2028, 6, 30)),
        (True, "DP-1", date(2028, 6, 30)),
    ]
    assert {v.jurisdiction_id for v in hauler.vehicles} == set(ids.values())
    site = session.scalars(select(DisposalSite)).one()
    assert site.owner_jurisdiction_id == ids[A]
    assert sorted(
        (a.jurisdiction_id == ids[A], a.waste_types, a.approved_until, [c.status for c in a.status_changes])
        for a in site.approvals
    ) == [
        (False, ["grease_trap_waste"], date(2027, 12, 31), ["suspended"]),
        (True, ["grease_trap_waste"], date(2027, 12, 31), ["suspended"]),
    ]


@pytest.mark.parametrize(
    "table",
    [
        "haulers",
        "hauler_licences",
        "hauler_registrations",
        "vehicles",
        "disposal_sites",
        "disposal_site_status_changes",
        "disposal_site_jurisdictions",
    ],
)
def test_a_write_to_any_registry_table_moves_the_generation_after_0016(session, table):
    """SQLite builds a table anew to change its columns, and its triggers go with it: 0016
    makes them again, so a filing never judges by facts a write has changed."""
    factories.hauler(session, cities=(A,))
    factories.disposal_site(session, cities=(A,))

    def generation():
        return session.execute(text("SELECT generation FROM registry_generation WHERE id = 1")).scalar()

    before = generation()
    column = "site_id" if table == "disposal_site_jurisdictions" else "id"
    session.execute(text(f"UPDATE {table} SET {column} = {column}"))
    session.commit()
    assert generation() > before
