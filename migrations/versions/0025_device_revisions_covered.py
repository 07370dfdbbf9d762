"""Each device's revisions in time order carry their id and whether they are in force: a city's
findings of a period are read device by device from the index alone (in a county, without
reading every other city's revisions of the period), and so are a filing's neighbours.

Revision ID: 0025
Revises: 0024
Create Date: 2026-12-06
"""

from alembic import op

revision = "0025"
down_revision = "0024"
branch_labels = None
depends_on = None


def upgrade():
    op.drop_index("ix_revisions_device_completed", table_name="manifest_revisions")
    op.create_index(
        "ix_revisions_device_completed",
        "manifest_revisions",
        ["device_id", "service_completed_at"],
        postgresql_include=["id", "manifest_id", "in_force"],
    )


def downgrade():
    op.drop_index("ix_revisions_device_completed", table_name="manifest_revisions")
    op.create_index("ix_revisions_device_completed", "manifest_revisions", ["device_id", "service_completed_at"])
