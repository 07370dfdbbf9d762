"""A filing's neighbours, a device's due day and a record's last service are read among the
revisions in force, from the partial index of the services that count: the index of every
qualifying revision, in force or not, has no reader left.

Revision ID: 0024
Revises: 0023
Create Date: 2026-12-05
"""

import sqlalchemy as sa
from alembic import op

revision = "0024"
down_revision = "0023"
branch_labels = None
depends_on = None


def upgrade():
    op.drop_index("ix_revisions_qualifying", table_name="manifest_revisions")


def downgrade():
    op.create_index(
        "ix_revisions_qualifying",
        "manifest_revisions",
        ["device_id", "service_completed_at"],
        postgresql_where=sa.text("qualifying"),
        sqlite_where=sa.text("qualifying"),
        postgresql_include=["manifest_id", "revision"],
    )
