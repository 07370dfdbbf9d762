"""Each revision says whether it is the one in force, so that the services that count, a period's
services and the deliveries in time order are read from partial indexes without each
manifest's row.

Revision ID: 0023
Revises: 0022
Create Date: 2026-12-05
"""

import sqlalchemy as sa
from alembic import op

revision = "0023"
down_revision = "0022"
branch_labels = None
depends_on = None


def upgrade():
    op.add_column("manifest_revisions", sa.Column("in_force", sa.Boolean(), nullable=False, server_default=sa.true()))
    # Only a corrected manifest has revisions no longer in force.
    op.execute(
        "UPDATE manifest_revisions SET in_force = false"
        " WHERE manifest_id IN (SELECT id FROM manifests WHERE current_revision > 1)"
        " AND revision <> (SELECT m.current_revision FROM manifests m"
        " WHERE m.id = manifest_revisions.manifest_id)"
    )
    op.create_index(
        "ix_revisions_counted",
        "manifest_revisions",
        ["device_id", "service_completed_at"],
        postgresql_where=sa.text("in_force AND qualifying"),
        sqlite_where=sa.text("in_force AND qualifying"),
        postgresql_include=["manifest_id"],
    )
    op.drop_index("ix_revisions_completed", table_name="manifest_revisions")
    op.create_index(
        "ix_revisions_completed",
        "manifest_revisions",
        ["service_completed_at"],
        postgresql_include=["id", "manifest_id", "device_id"],
        postgresql_where=sa.text("in_force"),
        sqlite_where=sa.text("in_force"),
    )
    op.create_index(
        "ix_revisions_delivered",
        "manifest_revisions",
        ["disposal_delivered_at", "disposal_ticket_number"],
        postgresql_where=sa.text("in_force"),
        sqlite_where=sa.text("in_force"),
    )


def downgrade():
    op.drop_index("ix_revisions_delivered", table_name="manifest_revisions")
    op.drop_index("ix_revisions_counted", table_name="manifest_revisions")
    op.drop_index("ix_revisions_completed", table_name="manifest_revisions")
    op.create_index(
        "ix_revisions_completed",
        "manifest_revisions",
        ["service_completed_at"],
        postgresql_include=["id", "manifest_id", "revision"],
    )
    with op.batch_alter_table("manifest_revisions") as table:
        table.drop_column("in_force")
