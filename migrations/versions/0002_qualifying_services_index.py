"""A partial index of qualifying services, for each device's last one (the audit queries).

Revision ID: 0002
Revises: 0001
Create Date: 2026-12-02
"""

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade():
    op.create_index(
        "ix_revisions_qualifying",
        "manifest_revisions",
        ["device_id", "service_completed_at"],
        postgresql_where=sa.text("qualifying"),
        sqlite_where=sa.text("qualifying"),
        postgresql_include=["manifest_id", "revision"],
    )


def downgrade():
    op.drop_index("ix_revisions_qualifying", table_name="manifest_revisions")
