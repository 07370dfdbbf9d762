"""Rules judged as written: depths kept as exact decimals, each city's permit term, and a
trap's daily cleaning as the FSE's own maintenance log rather than a hauler's frequency.

- Depths are NUMERIC(7, 2), to the hundredth of an inch, so the 25% rule and the two-inch
  rule compare them at their limits as the ordinances write them.
- `jurisdictions.permit_term` (Victorville 10.03.080(a): one year, refused past it; San
  Clemente 13.30.050(E): five years, refused; Placentia (f): issued annually, warned) and
  `jurisdictions.trap_daily_cleaning` (Placentia (c)(3), Colusa grease traps B: daily).
- Placentia's and Colusa's daily removal was a one-day hauler frequency for traps; it is the
  kitchen's own cleaning. Their trap default becomes the exchange's 30 days, and traps that
  took the city's default take it too.
- `trap_cleanings`: the FSE's maintenance log, added to and never changed; the restaurants'
  principals (their programs and their people's memberships) may write it: `maintenance:write`,
  which an app holding every scope (the portal) holds too.

Revision ID: 0031
Revises: 0029
Create Date: 2026-12-06
"""

import sqlalchemy as sa
from alembic import op

revision = "0031"
down_revision = "0029"
branch_labels = None
depends_on = None

POLICY = "exchange policy"
INCHES = sa.Numeric(7, 2)
DEPTHS = {
    "manifest_revisions": ("fog_depth_in", "solids_depth_in", "outlet_clearance_in"),
    "devices": ("liquid_depth_in",),
}
# The preset cities' new parameters, each with its section, as of this revision.
TERMS = {
    "victorville": ({"years": 1, "longer": "refused"}, "Victorville 10.03.080(a)"),
    "san-clemente": ({"years": 5, "longer": "refused"}, "San Clemente 13.30.050(E)"),
    "placentia": ({"years": 1, "longer": "warned"}, "Placentia 16.24 FOG Wastewater Discharge Permits (f)"),
}
DAILY = {"placentia": "Placentia 16.24 Facilities Requirements (c)(3)", "colusa": "Colusa 15A Art. II grease traps B"}
TRAP_DEFAULT = 30  # the exchange's, where a city's text sets no hauler frequency for traps
WRITE_LOG = "maintenance:write"
# Every scope there was before this revision: an app holding them all holds the new one too.
EARLIER_SCOPES = {
    "manifests:write",
    "manifests:read",
    "records:read",
    "audit:read",
    "registry:write",
    "receipts:write",
    "corrections:review",
}

apps = sa.table("oauth_apps", sa.column("id", sa.Uuid()), sa.column("scope", sa.Text()))
jurisdictions = sa.table(
    "jurisdictions",
    sa.column("id", sa.Uuid()),
    sa.column("code", sa.String()),
    sa.column("trap_default_frequency_days", sa.Integer()),
    sa.column("trap_daily_cleaning", sa.Integer()),
    sa.column("permit_term", sa.JSON()),
    sa.column("citations", sa.JSON()),
)
fses = sa.table("fses", sa.column("id", sa.Uuid()), sa.column("jurisdiction_id", sa.Uuid()))
devices = sa.table(
    "devices",
    sa.column("fse_id", sa.Uuid()),
    sa.column("kind", sa.String()),
    sa.column("frequency_days", sa.Integer()),
    sa.column("frequency_source", sa.String()),
)


def _retype(to, using):
    for table, columns in DEPTHS.items():
        with op.batch_alter_table(table) as batch:
            for column in columns:
                batch.alter_column(
                    column, type_=to, existing_nullable=table != "devices", postgresql_using=using.format(column=column)
                )


def _default_traps(city_id, old, new):
    """Traps that took the city's default frequency move with it."""
    op.get_bind().execute(
        devices.update()
        .where(
            devices.c.fse_id.in_(sa.select(fses.c.id).where(fses.c.jurisdiction_id == city_id)),
            devices.c.kind == "trap",
            devices.c.frequency_source == "city_default",
            devices.c.frequency_days == old,
        )
        .values(frequency_days=new)
    )


def upgrade():
    # A stored double reads back as the decimal that was sent (8.3): round to the hundredth.
    _retype(INCHES, "round(CAST({column} AS NUMERIC), 2)")
    with op.batch_alter_table("jurisdictions") as batch:
        batch.add_column(sa.Column("trap_daily_cleaning", sa.Integer(), nullable=True))
        batch.add_column(sa.Column("permit_term", sa.JSON(), nullable=True))
    bind = op.get_bind()
    for city in bind.execute(sa.select(jurisdictions)).mappings().all():
        cited = {
            **(city["citations"] or {}),
            "permit_term": POLICY,
            "trap_daily_cleaning": POLICY,
            "trap_disposal_site_approved": POLICY,
        }
        values = {}
        if city["code"] in TERMS:
            values["permit_term"], cited["permit_term"] = TERMS[city["code"]]
        if city["code"] in DAILY:
            values["trap_daily_cleaning"], cited["trap_daily_cleaning"] = 1, DAILY[city["code"]]
            if city["trap_default_frequency_days"] == 1:
                values["trap_default_frequency_days"] = TRAP_DEFAULT
                _default_traps(city["id"], 1, TRAP_DEFAULT)
            for rule in ("trap_frequency", "trap_default_frequency_days"):
                if cited.get(rule) == DAILY[city["code"]]:
                    cited[rule] = POLICY
        bind.execute(jurisdictions.update().where(jurisdictions.c.id == city["id"]).values(citations=cited, **values))
    op.create_table(
        "trap_cleanings",
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("fse_id", sa.Uuid(), nullable=False),
        sa.Column("jurisdiction_id", sa.Uuid(), nullable=False),
        sa.Column("device_id", sa.Uuid(), nullable=False),
        sa.Column("cleaned_on", sa.Date(), nullable=False),
        sa.Column("cleaned_by", sa.String(length=200), nullable=False),
        sa.Column("note", sa.Text(), nullable=True),
        sa.Column("recorded_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("recorded_by_client_id", sa.Uuid(), nullable=False),
        sa.Column("recorded_by_person_id", sa.Uuid(), nullable=True),
        sa.ForeignKeyConstraint(["device_id"], ["devices.id"], name=op.f("fk_trap_cleanings_device_id_devices")),
        sa.ForeignKeyConstraint(["fse_id"], ["fses.id"], name=op.f("fk_trap_cleanings_fse_id_fses")),
        sa.ForeignKeyConstraint(
            ["jurisdiction_id"], ["jurisdictions.id"], name=op.f("fk_trap_cleanings_jurisdiction_id_jurisdictions")
        ),
        sa.ForeignKeyConstraint(
            ["recorded_by_client_id"],
            ["oauth_clients.id"],
            name=op.f("fk_trap_cleanings_recorded_by_client_id_oauth_clients"),
        ),
        sa.ForeignKeyConstraint(
            ["recorded_by_person_id"], ["people.id"], name=op.f("fk_trap_cleanings_recorded_by_person_id_people")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_trap_cleanings")),
    )
    op.create_index("ix_trap_cleanings_device_day", "trap_cleanings", ["device_id", "cleaned_on"])
    op.create_index("ix_trap_cleanings_fse_day", "trap_cleanings", ["fse_id", "cleaned_on"])
    op.execute(
        f"UPDATE oauth_clients SET scope = scope || ' {WRITE_LOG}' "
        f"WHERE role = 'fse' AND scope NOT LIKE '%{WRITE_LOG}%'"
    )
    for app in bind.execute(sa.select(apps)).mappings().all():
        held = app["scope"].split()
        if EARLIER_SCOPES <= set(held) and WRITE_LOG not in held:
            bind.execute(apps.update().where(apps.c.id == app["id"]).values(scope=" ".join([*held, WRITE_LOG])))


def downgrade():
    op.execute(f"UPDATE oauth_clients SET scope = TRIM(REPLACE(scope, ' {WRITE_LOG}', '')) WHERE role = 'fse'")
    bind = op.get_bind()
    for app in bind.execute(sa.select(apps)).mappings().all():
        held = app["scope"].split()
        if WRITE_LOG in held:
            bind.execute(
                apps.update().where(apps.c.id == app["id"]).values(scope=" ".join(s for s in held if s != WRITE_LOG))
            )
    op.drop_index("ix_trap_cleanings_fse_day", table_name="trap_cleanings")
    op.drop_index("ix_trap_cleanings_device_day", table_name="trap_cleanings")
    op.drop_table("trap_cleanings")
    bind = op.get_bind()
    for city in bind.execute(sa.select(jurisdictions)).mappings().all():
        cited = {
            rule: section
            for rule, section in (city["citations"] or {}).items()
            if rule not in ("permit_term", "trap_daily_cleaning", "trap_disposal_site_approved")
        }
        values = {}
        if city["code"] in DAILY and city["trap_default_frequency_days"] == TRAP_DEFAULT:
            values["trap_default_frequency_days"] = 1
            _default_traps(city["id"], TRAP_DEFAULT, 1)
            cited["trap_frequency"] = cited["trap_default_frequency_days"] = DAILY[city["code"]]
        bind.execute(jurisdictions.update().where(jurisdictions.c.id == city["id"]).values(citations=cited, **values))
    with op.batch_alter_table("jurisdictions") as batch:
        batch.drop_column("permit_term")
        batch.drop_column("trap_daily_cleaning")
    _retype(sa.Float(), "CAST({column} AS DOUBLE PRECISION)")
