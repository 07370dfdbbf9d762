"""A synthetic city, bulk-loaded with COPY: FSEs, permits and devices across the five presets,
haulers with trucks, disposal sites, and years of manifests with realistic shares of late,
partial and non-compliant ones (`bench/city_manifests.py`). Deterministic from a seed.
"""

import json
import random
from datetime import UTC, datetime, timedelta

import psycopg

from bench.city_manifests import Manifests
from domain.presets import preset_rows
from storage.models import new_id

SHARES = {"victorville": 0.80, "placentia": 0.05, "colusa": 0.05, "san-clemente": 0.05, "tracy": 0.05}


class City(Manifests):
    """Writes a city into an empty, migrated PostgreSQL database."""

    def __init__(self, dsn, *, seed=2026, devices=20_000, jurisdictions=5, today=None):
        self.dsn = dsn
        self.jurisdiction_count = jurisdictions
        self.random = random.Random(seed)
        # Its own sequence: the rest of the city stays what it was before depths were measured.
        self.measuring = random.Random(seed + 1)
        self.device_count = devices
        self.today = today or datetime.now(UTC).replace(hour=12, minute=0, second=0, microsecond=0)
        self.devices = []  # (device id, fse id, permit id, jurisdiction id, kind, capacity, permit number, tag)
        self.haulers = []  # (hauler id, [vehicle ids])
        self.sites = []
        self.jurisdictions = {}
        self.manifests = 0

    @classmethod
    def load(cls, dsn, **kwargs):
        """The city a run built earlier, read back from its database in the order it was built."""
        city = cls(dsn, **kwargs)
        with psycopg.connect(dsn) as conn:
            city.jurisdictions = dict(conn.execute("SELECT code, id FROM jurisdictions").fetchall())
            city.devices = [
                tuple(row)
                for row in conn.execute(
                    "SELECT d.id, d.fse_id, d.permit_id, f.jurisdiction_id, d.kind, d.capacity_gallons, p.permit_number,"
                    " d.tag, d.frequency_days FROM devices d JOIN fses f ON f.id = d.fse_id JOIN permits p ON p.id = d.permit_id"
                    " ORDER BY substr(f.name, 12)::int, d.tag"
                )
            ]
            city.haulers = [
                (hauler_id, [f"TRK-{n}-{v}" for v in range(3)])
                for hauler_id, n in conn.execute("SELECT id, substr(name, 8)::int AS n FROM haulers ORDER BY n")
            ]
            city.sites = [site_id for (site_id,) in conn.execute("SELECT id FROM disposal_sites ORDER BY name")]
            city.manifests = conn.execute("SELECT count(*) FROM manifests").fetchone()[0]
        return city

    def build_registry(self):
        with psycopg.connect(self.dsn) as conn:
            cur = conn.cursor()
            towns, shares = {}, {}
            for row, copy in self._presets():
                jid = new_id()
                if copy > 1:  # another city of the county, under the same preset's rules
                    row = {**row, "code": f"{row['code']}-{copy}", "name": f"{row['name']} {copy}"}
                self.jurisdictions[row["code"]] = jid
                towns[row["code"]] = row["name"].removeprefix("City of ")
                shares[row["code"]] = self._share(row["code"])
                cur.execute(
                    "INSERT INTO jurisdictions (id, code, name, manifest_deadline_hours, retention_years,"
                    " interceptor_default_frequency_days, interceptor_max_interval_days,"
                    " trap_default_frequency_days, allowed_frequencies, twenty_five_percent_rule,"
                    " full_pump_min_ratio, min_interceptor_gallons, grace_days, decant_return_allowed,"
                    " citations, created_at) VALUES (%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,now())",
                    (
                        jid,
                        row["code"],
                        row["name"],
                        row["manifest_deadline_hours"],
                        row["retention_years"],
                        row["interceptor_default_frequency_days"],
                        row["interceptor_max_interval_days"],
                        row["trap_default_frequency_days"],
                        json.dumps(row["allowed_frequencies"]),
                        row["twenty_five_percent_rule"],
                        row["full_pump_min_ratio"],
                        row["min_interceptor_gallons"],
                        row["grace_days"],
                        row["decant_return_allowed"],
                        json.dumps(row["citations"]),
                    ),
                )
            issued = (self.today - timedelta(days=4 * 365)).date()
            fses, permits, changes, devices = [], [], [], []
            codes = list(shares)
            weights = [shares[c] for c in codes]
            n = 0
            while len(devices) < self.device_count:
                code = self.random.choices(codes, weights)[0]
                jid = self.jurisdictions[code]
                fse_id, permit_id = new_id(), new_id()
                fses.append(
                    (
                        fse_id,
                        jid,
                        f"Restaurant {n}",
                        f"{n} Main St, {towns[code]}, CA",
                        f"{n:03d}-{n % 997:03d}-00",
                        "Operator",
                        f"op{n}@example.com",
                    )
                )
                number = f"{code[:2].upper()}-{n:06d}"
                permits.append((permit_id, jid, fse_id, number, "regular", issued, issued + timedelta(days=3650)))
                changes.append((new_id(), permit_id, "active", issued))
                for tag in ("GI-1", "GT-1") if n % 4 == 0 else ("GI-1",):
                    kind = "interceptor" if tag == "GI-1" else "trap"
                    capacity = self.random.choice((750, 1000, 1500, 2000, 3000)) if kind == "interceptor" else 50
                    frequency = 90 if kind == "interceptor" else 30
                    device_id = new_id()
                    devices.append(
                        (
                            device_id,
                            fse_id,
                            permit_id,
                            tag,
                            kind,
                            capacity,
                            48 if kind == "interceptor" else 12,
                            frequency,
                        )
                    )
                    self.devices.append((device_id, fse_id, permit_id, jid, kind, capacity, number, tag, frequency))
                n += 1
            self._copy(
                cur,
                "fses",
                ("id", "jurisdiction_id", "name", "address", "apn", "operator_name", "operator_email"),
                fses,
                stamps=("created_at", "updated_at"),
            )
            self._copy(
                cur,
                "permits",
                ("id", "jurisdiction_id", "fse_id", "permit_number", "kind", "issued_on", "expires_on"),
                permits,
                stamps=("created_at",),
            )
            self._copy(
                cur,
                "permit_status_changes",
                ("id", "permit_id", "status", "effective_on"),
                changes,
                stamps=("recorded_at",),
            )
            self._copy(
                cur,
                "devices",
                ("id", "fse_id", "permit_id", "tag", "kind", "capacity_gallons", "liquid_depth_in", "frequency_days"),
                devices,
                stamps=("created_at",),
            )
            for h in range(40):
                hauler_id = new_id()
                owner = next(iter(self.jurisdictions.values()))
                cur.execute(
                    "INSERT INTO haulers (id, name, licence_number, owner_jurisdiction_id, created_at)"
                    " VALUES (%s, %s, %s, %s, now())",
                    (hauler_id, f"Hauler {h}", f"LIC-{h:04d}", owner),
                )
                vehicles = [f"TRK-{h}-{v}" for v in range(3)]
                for jid in self.jurisdictions.values():
                    cur.execute(
                        "INSERT INTO hauler_licences (id, hauler_id, jurisdiction_id, licence_number,"
                        " expires_on, effective_on, status, recorded_at) VALUES (%s,%s,%s,%s,%s,%s,'valid',now())",
                        (new_id(), hauler_id, jid, f"LIC-{h:04d}", issued + timedelta(days=3650), issued),
                    )
                    cur.execute(
                        "INSERT INTO hauler_registrations (id, hauler_id, jurisdiction_id, registered_on,"
                        " recorded_at) VALUES (%s,%s,%s,%s,now())",
                        (new_id(), hauler_id, jid, issued),
                    )
                    for vehicle in vehicles:
                        cur.execute(
                            "INSERT INTO vehicles (id, hauler_id, jurisdiction_id, vehicle_id,"
                            " tank_capacity_gallons, created_at) VALUES (%s,%s,%s,%s,3500,now())",
                            (new_id(), hauler_id, jid, vehicle),
                        )
                self.haulers.append((hauler_id, vehicles))
            for s in range(6):
                site_id = new_id()
                cur.execute(
                    "INSERT INTO disposal_sites (id, name, address, facility_permit_number,"
                    " owner_jurisdiction_id, created_at) VALUES (%s,%s,'1 Plant Rd',%s,%s,now())",
                    (site_id, f"Plant {s}", f"FAC-{s}", next(iter(self.jurisdictions.values()))),
                )
                for jid in self.jurisdictions.values():
                    cur.execute(
                        "INSERT INTO disposal_site_jurisdictions (site_id, jurisdiction_id, waste_types,"
                        " approved_from, created_at) VALUES (%s,%s,%s,%s,now())",
                        (site_id, jid, json.dumps(["grease_interceptor_waste", "grease_trap_waste"]), issued),
                    )
                    cur.execute(
                        "INSERT INTO disposal_site_status_changes (id, site_id, jurisdiction_id, status,"
                        " effective_on, recorded_at) VALUES (%s,%s,%s,'approved',%s,now())",
                        (new_id(), site_id, jid, issued),
                    )
                self.sites.append(site_id)
            conn.commit()

    def _presets(self):
        """(preset, which copy of it) for each jurisdiction: the five cities, then, for a
        county, more cities under the same presets."""
        presets = list(preset_rows())
        return [(presets[k % len(presets)], 1 + k // len(presets)) for k in range(self.jurisdiction_count)]

    def _share(self, code):
        """A city's share of the devices: the five cities' own; in a county, Victorville keeps a
        fifth (a city of today's size among many) and the rest is spread evenly."""
        if self.jurisdiction_count == len(SHARES):
            return SHARES[code]
        return 0.2 if code == "victorville" else 0.8 / (self.jurisdiction_count - 1)

    @staticmethod
    def _copy(cur, table, columns, rows, stamps=()):
        names = ", ".join(columns + stamps)
        now = datetime.now(UTC)
        with cur.copy(f"COPY {table} ({names}) FROM STDIN") as copy:
            for row in rows:
                copy.write_row(tuple(row) + (now,) * len(stamps))

    def settle(self):
        """What a running system's autovacuum and checkpointer would have done after a bulk
        load (visibility map, hint bits, statistics, no dirty backlog): measurements start
        from a maintained database, whatever the server's autovacuum setting."""
        with psycopg.connect(self.dsn, autocommit=True) as conn:
            conn.execute("VACUUM (ANALYZE)")
            conn.execute("CHECKPOINT")
