"""A hauler or a disposal site is one record shared by every city, and each city's approval
of it is that city's own rows: a hauler's licence as the city records it and the vehicles it
accepts carry the city (`jurisdiction_id`); a site's approval dates and waste types move from
the site onto each city's `disposal_site_jurisdictions` row, and its status changes carry
the city. The shared fields (a hauler's name and licence number, a site's name and address)
belong to the city that registered the record first (`owner_jurisdiction_id`).

Rows already there are given to every city that registered the hauler or approved the site,
each its own copy; the owner is the city registered earliest (a hauler) or the city known
longest among those approving it (a site).

Revision ID: 0016
Revises: 0015
Create Date: 2026-12-05
"""

import sqlalchemy as sa
from alembic import op
from ulid import ULID

revision = "0016"
down_revision = "0015"
branch_labels = None
depends_on = None

# Every table whose writes move `registry_generation` (migration 0004); SQLite drops a
# table's triggers when batch mode builds the table anew, so they are made again.
REGISTRY_TABLES = (
    "haulers",
    "hauler_licences",
    "hauler_registrations",
    "vehicles",
    "disposal_sites",
    "disposal_site_status_changes",
    "disposal_site_jurisdictions",
)
SQLITE_BUMP = """
INSERT OR REPLACE INTO registry_generation (id, generation) VALUES (1, max(
  COALESCE((SELECT generation FROM registry_generation WHERE id = 1), 0) + 1,
  CAST((julianday('now') - 2440587.5) * 86400000000 AS INTEGER)));
"""

haulers = sa.table(
    "haulers",
    sa.column("id", sa.Uuid),
    sa.column("licence_number", sa.String),
    sa.column("owner_jurisdiction_id", sa.Uuid),
)
registrations = sa.table(
    "hauler_registrations",
    sa.column("id", sa.Uuid),
    sa.column("hauler_id", sa.Uuid),
    sa.column("jurisdiction_id", sa.Uuid),
    sa.column("registered_on", sa.Date),
    sa.column("recorded_at", sa.DateTime(timezone=True)),
)
licences = sa.table(
    "hauler_licences",
    sa.column("id", sa.Uuid),
    sa.column("hauler_id", sa.Uuid),
    sa.column("jurisdiction_id", sa.Uuid),
    sa.column("licence_number", sa.String),
    sa.column("expires_on", sa.Date),
    sa.column("effective_on", sa.Date),
    sa.column("status", sa.String),
    sa.column("recorded_at", sa.DateTime(timezone=True)),
)
vehicles = sa.table(
    "vehicles",
    sa.column("id", sa.Uuid),
    sa.column("hauler_id", sa.Uuid),
    sa.column("jurisdiction_id", sa.Uuid),
    sa.column("vehicle_id", sa.String),
    sa.column("tank_capacity_gallons", sa.Integer),
    sa.column("created_at", sa.DateTime(timezone=True)),
)
sites = sa.table(
    "disposal_sites",
    sa.column("id", sa.Uuid),
    sa.column("waste_types", sa.JSON),
    sa.column("approved_from", sa.Date),
    sa.column("approved_until", sa.Date),
    sa.column("owner_jurisdiction_id", sa.Uuid),
    sa.column("created_at", sa.DateTime(timezone=True)),
)
approvals = sa.table(
    "disposal_site_jurisdictions",
    sa.column("site_id", sa.Uuid),
    sa.column("jurisdiction_id", sa.Uuid),
    sa.column("waste_types", sa.JSON),
    sa.column("approved_from", sa.Date),
    sa.column("approved_until", sa.Date),
    sa.column("created_at", sa.DateTime(timezone=True)),
)
site_changes = sa.table(
    "disposal_site_status_changes",
    sa.column("id", sa.Uuid),
    sa.column("site_id", sa.Uuid),
    sa.column("jurisdiction_id", sa.Uuid),
    sa.column("status", sa.String),
    sa.column("effective_on", sa.Date),
    sa.column("reason", sa.Text),
    sa.column("recorded_at", sa.DateTime(timezone=True)),
)


def _cities_of_haulers(bind):
    """Each hauler's registered cities, the earliest registered first."""
    cities = {}
    for row in bind.execute(
        sa.select(registrations.c.hauler_id, registrations.c.jurisdiction_id).order_by(
            registrations.c.registered_on, registrations.c.recorded_at, registrations.c.id
        )
    ):
        here = cities.setdefault(row.hauler_id, [])
        if row.jurisdiction_id not in here:
            here.append(row.jurisdiction_id)
    return cities


def _cities_of_sites(bind):
    """Each site's approving cities, the city known longest first."""
    cities = {}
    known = sa.table("jurisdictions", sa.column("id", sa.Uuid), sa.column("created_at", sa.DateTime(timezone=True)))
    for row in bind.execute(
        sa.select(approvals.c.site_id, approvals.c.jurisdiction_id)
        .join(known, known.c.id == approvals.c.jurisdiction_id)
        .order_by(known.c.created_at, known.c.id)
    ):
        cities.setdefault(row.site_id, []).append(row.jurisdiction_id)
    return cities


def _spread(bind, table, owner_column, cities):
    """Each row to the first of its record's cities, and a copy of it to each other city; the
    rows of a record no city has (no city could read or judge by them) are removed."""
    copies = []
    for row in bind.execute(sa.select(table)).mappings().all():
        here = cities.get(row[owner_column])
        if not here:
            bind.execute(table.delete().where(table.c.id == row["id"]))
            continue
        bind.execute(table.update().where(table.c.id == row["id"]).values(jurisdiction_id=here[0]))
        copies += [{**row, "id": ULID().to_uuid(), "jurisdiction_id": city} for city in here[1:]]
    if copies:
        bind.execute(table.insert(), copies)


def _share_haulers(bind):
    cities = _cities_of_haulers(bind)
    latest = {}
    for row in bind.execute(
        sa.select(licences.c.hauler_id, licences.c.licence_number).order_by(
            licences.c.effective_on, licences.c.recorded_at
        )
    ):
        latest[row.hauler_id] = row.licence_number
    for (hauler_id,) in bind.execute(sa.select(haulers.c.id)).all():
        bind.execute(
            haulers.update()
            .where(haulers.c.id == hauler_id)
            .values(
                licence_number=latest.get(hauler_id, str(hauler_id)),
                owner_jurisdiction_id=(cities.get(hauler_id) or [None])[0],
            )
        )
    _spread(bind, licences, "hauler_id", cities)
    _spread(bind, vehicles, "hauler_id", cities)


def _share_sites(bind):
    cities = _cities_of_sites(bind)
    for site in bind.execute(sa.select(sites)).mappings().all():
        bind.execute(
            sites.update()
            .where(sites.c.id == site["id"])
            .values(owner_jurisdiction_id=(cities.get(site["id"]) or [None])[0])
        )
        bind.execute(
            approvals.update()
            .where(approvals.c.site_id == site["id"])
            .values(
                waste_types=site["waste_types"],
                approved_from=site["approved_from"],
                approved_until=site["approved_until"],
                created_at=site["created_at"],
            )
        )
    _spread(bind, site_changes, "site_id", cities)


def _registry_triggers():
    if op.get_bind().dialect.name != "sqlite":
        return
    for table in REGISTRY_TABLES:
        for event in ("INSERT", "UPDATE", "DELETE"):
            name = f"registry_changed_{table}_{event.lower()}"
            op.execute(f"DROP TRIGGER IF EXISTS {name}")
            op.execute(f"CREATE TRIGGER {name} AFTER {event} ON {table} BEGIN {SQLITE_BUMP} END")


def upgrade():
    bind = op.get_bind()
    with op.batch_alter_table("haulers") as table:
        table.add_column(sa.Column("licence_number", sa.String(60), nullable=True))
        table.add_column(sa.Column("owner_jurisdiction_id", sa.Uuid(), nullable=True))
    with op.batch_alter_table("disposal_sites") as table:
        table.add_column(sa.Column("owner_jurisdiction_id", sa.Uuid(), nullable=True))
    for name in ("hauler_licences", "vehicles", "disposal_site_status_changes"):
        with op.batch_alter_table(name) as table:
            table.add_column(sa.Column("jurisdiction_id", sa.Uuid(), nullable=True))
            if name == "vehicles":  # each city's copy of a truck takes the same vehicle id
                table.drop_constraint(op.f("uq_vehicles_hauler_id"), type_="unique")
    with op.batch_alter_table("disposal_site_jurisdictions") as table:
        table.add_column(sa.Column("waste_types", sa.JSON(), nullable=True))
        table.add_column(sa.Column("approved_from", sa.Date(), nullable=True))
        table.add_column(sa.Column("approved_until", sa.Date(), nullable=True))
        table.add_column(sa.Column("created_at", sa.DateTime(timezone=True), nullable=True))

    _share_haulers(bind)
    _share_sites(bind)

    with op.batch_alter_table("haulers") as table:
        table.alter_column("licence_number", existing_type=sa.String(60), nullable=False)
        table.create_unique_constraint(op.f("uq_haulers_licence_number"), ["licence_number"])
        table.create_foreign_key(
            op.f("fk_haulers_owner_jurisdiction_id_jurisdictions"), "jurisdictions", ["owner_jurisdiction_id"], ["id"]
        )
    with op.batch_alter_table("disposal_sites") as table:
        table.create_foreign_key(
            op.f("fk_disposal_sites_owner_jurisdiction_id_jurisdictions"),
            "jurisdictions",
            ["owner_jurisdiction_id"],
            ["id"],
        )
        table.drop_column("waste_types")
        table.drop_column("approved_from")
        table.drop_column("approved_until")
    with op.batch_alter_table("hauler_licences") as table:
        table.alter_column("jurisdiction_id", existing_type=sa.Uuid(), nullable=False)
        table.create_foreign_key(
            op.f("fk_hauler_licences_jurisdiction_id_jurisdictions"), "jurisdictions", ["jurisdiction_id"], ["id"]
        )
    with op.batch_alter_table("vehicles") as table:
        table.alter_column("jurisdiction_id", existing_type=sa.Uuid(), nullable=False)
        table.create_foreign_key(
            op.f("fk_vehicles_jurisdiction_id_jurisdictions"), "jurisdictions", ["jurisdiction_id"], ["id"]
        )
        table.create_unique_constraint(op.f("uq_vehicles_hauler_id"), ["hauler_id", "jurisdiction_id", "vehicle_id"])
    with op.batch_alter_table("disposal_site_jurisdictions") as table:
        table.alter_column("waste_types", existing_type=sa.JSON(), nullable=False)
        table.alter_column("approved_from", existing_type=sa.Date(), nullable=False)
        table.alter_column("created_at", existing_type=sa.DateTime(timezone=True), nullable=False)
    with op.batch_alter_table("disposal_site_status_changes") as table:
        table.alter_column("jurisdiction_id", existing_type=sa.Uuid(), nullable=False)
        table.create_foreign_key(
            op.f("fk_disposal_site_status_changes_jurisdiction_id_jurisdictions"),
            "jurisdictions",
            ["jurisdiction_id"],
            ["id"],
        )
        table.create_foreign_key(
            "fk_disposal_site_status_changes_approval",
            "disposal_site_jurisdictions",
            ["site_id", "jurisdiction_id"],
            ["site_id", "jurisdiction_id"],
        )
    _registry_triggers()


def _keep_one_city(bind):
    """Before the columns go: each record keeps its owner's approval (or, with no owner, the
    first city's); a vehicle any city accepted stays the hauler's."""
    owners = dict(bind.execute(sa.select(haulers.c.id, haulers.c.owner_jurisdiction_id)).all())
    firsts = _cities_of_haulers(bind)
    kept = {h: owner or (firsts.get(h) or [None])[0] for h, owner in owners.items()}
    for row in bind.execute(sa.select(licences.c.id, licences.c.hauler_id, licences.c.jurisdiction_id)).all():
        if row.jurisdiction_id != kept.get(row.hauler_id):
            bind.execute(licences.delete().where(licences.c.id == row.id))
    seen = set()
    for row in bind.execute(
        sa.select(vehicles.c.id, vehicles.c.hauler_id, vehicles.c.jurisdiction_id, vehicles.c.vehicle_id)
    ).all():
        key = (row.hauler_id, row.vehicle_id)
        if key in seen:
            bind.execute(vehicles.delete().where(vehicles.c.id == row.id))
        seen.add(key)
    site_owners = dict(bind.execute(sa.select(sites.c.id, sites.c.owner_jurisdiction_id)).all())
    first_cities = _cities_of_sites(bind)
    for site_id, owner in site_owners.items():
        city = owner or (first_cities.get(site_id) or [None])[0]
        approval = (
            bind.execute(
                sa.select(approvals).where(approvals.c.site_id == site_id, approvals.c.jurisdiction_id == city)
            )
            .mappings()
            .first()
        )
        created = bind.execute(sa.select(sites.c.created_at).where(sites.c.id == site_id)).scalar()
        bind.execute(
            sites.update()
            .where(sites.c.id == site_id)
            .values(
                waste_types=approval["waste_types"] if approval else [],
                approved_from=approval["approved_from"] if approval else created.date(),
                approved_until=approval["approved_until"] if approval else None,
            )
        )
        bind.execute(
            site_changes.delete().where(site_changes.c.site_id == site_id, site_changes.c.jurisdiction_id != city)
        )


def downgrade():
    bind = op.get_bind()
    with op.batch_alter_table("disposal_sites") as table:
        table.add_column(sa.Column("waste_types", sa.JSON(), nullable=True))
        table.add_column(sa.Column("approved_from", sa.Date(), nullable=True))
        table.add_column(sa.Column("approved_until", sa.Date(), nullable=True))
    _keep_one_city(bind)
    with op.batch_alter_table("disposal_sites") as table:
        table.alter_column("waste_types", existing_type=sa.JSON(), nullable=False)
        table.alter_column("approved_from", existing_type=sa.Date(), nullable=False)
        table.drop_constraint(op.f("fk_disposal_sites_owner_jurisdiction_id_jurisdictions"), type_="foreignkey")
        table.drop_column("owner_jurisdiction_id")
    with op.batch_alter_table("disposal_site_status_changes") as table:
        table.drop_constraint("fk_disposal_site_status_changes_approval", type_="foreignkey")
        table.drop_constraint(op.f("fk_disposal_site_status_changes_jurisdiction_id_jurisdictions"), type_="foreignkey")
        table.drop_column("jurisdiction_id")
    with op.batch_alter_table("disposal_site_jurisdictions") as table:
        for name in ("waste_types", "approved_from", "approved_until", "created_at"):
            table.drop_column(name)
    with op.batch_alter_table("vehicles") as table:
        table.drop_constraint(op.f("uq_vehicles_hauler_id"), type_="unique")
        table.create_unique_constraint(op.f("uq_vehicles_hauler_id"), ["hauler_id", "vehicle_id"])
        table.drop_constraint(op.f("fk_vehicles_jurisdiction_id_jurisdictions"), type_="foreignkey")
        table.drop_column("jurisdiction_id")
    with op.batch_alter_table("hauler_licences") as table:
        table.drop_constraint(op.f("fk_hauler_licences_jurisdiction_id_jurisdictions"), type_="foreignkey")
        table.drop_column("jurisdiction_id")
    with op.batch_alter_table("haulers") as table:
        table.drop_constraint(op.f("fk_haulers_owner_jurisdiction_id_jurisdictions"), type_="foreignkey")
        table.drop_constraint(op.f("uq_haulers_licence_number"), type_="unique")
        table.drop_column("owner_jurisdiction_id")
        table.drop_column("licence_number")
    _registry_triggers()
