"""Disposal sites as principals: a client of the role `site` posts the site's receipts of the
loads it received, which fogx sets beside the manifests naming the same tickets. The city's
list of those asks by delivery date: the manifests filed since a day (an index already) and the
few corrected ones (`ix_manifests_corrected`), as a correction may date a delivery after it.

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-04
"""

import sqlalchemy as sa
from alembic import op

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None

ONE_SUBJECT_BEFORE = (
    "(role = 'hauler' AND hauler_id IS NOT NULL AND jurisdiction_id IS NULL)"
    " OR (role = 'fse' AND hauler_id IS NULL AND jurisdiction_id IS NULL)"
    " OR (role IN ('auditor', 'admin') AND jurisdiction_id IS NOT NULL AND hauler_id IS NULL)"
)
ONE_SUBJECT = (
    "(role = 'hauler' AND hauler_id IS NOT NULL AND jurisdiction_id IS NULL AND site_id IS NULL)"
    " OR (role = 'fse' AND hauler_id IS NULL AND jurisdiction_id IS NULL AND site_id IS NULL)"
    " OR (role IN ('auditor', 'admin') AND jurisdiction_id IS NOT NULL AND hauler_id IS NULL"
    " AND site_id IS NULL)"
    " OR (role = 'site' AND site_id IS NOT NULL AND hauler_id IS NULL AND jurisdiction_id IS NULL)"
)


def _constraints(table, roles, one_subject):
    table.drop_constraint(op.f("ck_oauth_clients_role"), type_="check")
    table.drop_constraint(op.f("ck_oauth_clients_one_subject"), type_="check")
    table.create_check_constraint(op.f("ck_oauth_clients_role"), f"role IN ({roles})")
    table.create_check_constraint(op.f("ck_oauth_clients_one_subject"), one_subject)


def upgrade():
    with op.batch_alter_table("oauth_clients") as table:
        table.add_column(sa.Column("site_id", sa.Uuid(), nullable=True))
        table.create_foreign_key(op.f("fk_oauth_clients_site_id_disposal_sites"), "disposal_sites", ["site_id"], ["id"])
        _constraints(table, "'hauler', 'fse', 'auditor', 'admin', 'site'", ONE_SUBJECT)
    op.create_table(
        "disposal_receipts",
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("site_id", sa.Uuid(), nullable=False),
        sa.Column("ticket_number", sa.String(60), nullable=False),
        sa.Column("hauler_licence_number", sa.String(60), nullable=False),
        sa.Column("hauler_id", sa.Uuid(), nullable=True),
        sa.Column("vehicle_id", sa.String(60), nullable=False),
        sa.Column("waste_type", sa.String(40), nullable=False),
        sa.Column("gallons_received", sa.Integer(), nullable=False),
        sa.Column("received_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("body", sa.JSON(), nullable=False),
        sa.Column("submitted_by_client_id", sa.Uuid(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["site_id"], ["disposal_sites.id"], name=op.f("fk_disposal_receipts_site_id_disposal_sites")
        ),
        sa.ForeignKeyConstraint(["hauler_id"], ["haulers.id"], name=op.f("fk_disposal_receipts_hauler_id_haulers")),
        sa.ForeignKeyConstraint(
            ["submitted_by_client_id"],
            ["oauth_clients.id"],
            name=op.f("fk_disposal_receipts_submitted_by_client_id_oauth_clients"),
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_disposal_receipts")),
        sa.UniqueConstraint("site_id", "ticket_number", name=op.f("uq_disposal_receipts_site_id")),
    )
    op.create_index("ix_disposal_receipts_hauler_id", "disposal_receipts", ["hauler_id"])
    op.create_index("ix_disposal_receipts_site_received", "disposal_receipts", ["site_id", "received_at"])
    op.create_index(
        "ix_manifests_corrected",
        "manifests",
        ["jurisdiction_id"],
        postgresql_where=sa.text("current_revision > 1"),
        sqlite_where=sa.text("current_revision > 1"),
    )


def downgrade():
    op.drop_index("ix_manifests_corrected", table_name="manifests")
    op.drop_table("disposal_receipts")
    op.execute("DELETE FROM oauth_tokens WHERE client_id IN (SELECT id FROM oauth_clients WHERE role = 'site')")
    for table in ("webhooks", "idempotency_records"):
        op.execute(f"DELETE FROM {table} WHERE client_id IN (SELECT id FROM oauth_clients WHERE role = 'site')")
    op.execute("DELETE FROM oauth_clients WHERE role = 'site'")
    with op.batch_alter_table("oauth_clients") as table:
        _constraints(table, "'hauler', 'fse', 'auditor', 'admin'", ONE_SUBJECT_BEFORE)
        table.drop_constraint(op.f("fk_oauth_clients_site_id_disposal_sites"), type_="foreignkey")
        table.drop_column("site_id")
