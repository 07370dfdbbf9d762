"""A generation number for the registry facts that filings are checked against.

Every write to the haulers' and disposal sites' tables moves `registry_generation` forward,
by trigger, so no write path can forget it: a process keeps the facts it read while the
number stands still. The number is at least the time of the change in microseconds, so it
keeps growing even if the row is deleted and starts over.

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-02
"""

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None

TABLES = (
    "haulers",
    "hauler_licences",
    "hauler_registrations",
    "vehicles",
    "disposal_sites",
    "disposal_site_status_changes",
    "disposal_site_jurisdictions",
)

POSTGRESQL_FUNCTION = """
CREATE FUNCTION fogx_registry_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO registry_generation (id, generation)
  VALUES (1, (extract(epoch FROM clock_timestamp()) * 1000000)::bigint)
  ON CONFLICT (id) DO UPDATE
    SET generation = GREATEST(registry_generation.generation + 1, EXCLUDED.generation);
  RETURN NULL;
END
$$
"""

SQLITE_BUMP = """
INSERT OR REPLACE INTO registry_generation (id, generation) VALUES (1, max(
  COALESCE((SELECT generation FROM registry_generation WHERE id = 1), 0) + 1,
  CAST((julianday('now') - 2440587.5) * 86400000000 AS INTEGER)));
"""


def upgrade():
    op.create_table(
        "registry_generation",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("generation", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_registry_generation")),
    )
    op.execute("INSERT INTO registry_generation (id, generation) VALUES (1, 1)")
    if op.get_bind().dialect.name == "postgresql":
        op.execute(POSTGRESQL_FUNCTION)
        for table in TABLES:
            op.execute(
                f"CREATE TRIGGER registry_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE"
                f" ON {table} FOR EACH STATEMENT EXECUTE FUNCTION fogx_registry_changed()"
            )
    else:
        for table in TABLES:
            for event in ("INSERT", "UPDATE", "DELETE"):
                op.execute(
                    f"CREATE TRIGGER registry_changed_{table}_{event.lower()} AFTER {event} ON {table}"
                    f" BEGIN {SQLITE_BUMP} END"
                )


def downgrade():
    if op.get_bind().dialect.name == "postgresql":
        for table in TABLES:
            op.execute(f"DROP TRIGGER registry_changed ON {table}")
        op.execute("DROP FUNCTION fogx_registry_changed()")
    else:
        for table in TABLES:
            for event in ("insert", "update", "delete"):
                op.execute(f"DROP TRIGGER registry_changed_{table}_{event}")
    op.drop_table("registry_generation")
