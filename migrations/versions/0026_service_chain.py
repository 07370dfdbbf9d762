"""Each qualifying revision in force knows when its device's service before it was completed:
a city's gaps between services are read row by row, not by ordering a year of services.

Revision ID: 0026
Revises: 0025
Create Date: 2026-12-06
"""

import sqlalchemy as sa
from alembic import op

revision = "0026"
down_revision = "0025"
branch_labels = None
depends_on = None

COUNTED = dict(postgresql_where=sa.text("in_force AND qualifying"), sqlite_where=sa.text("in_force AND qualifying"))


def upgrade():
    op.drop_index("ix_revisions_counted", table_name="manifest_revisions")
    op.add_column("manifest_revisions", sa.Column("previous_service_at", sa.DateTime(timezone=True), nullable=True))
    op.execute(
        "UPDATE manifest_revisions SET previous_service_at = linked.previous FROM ("
        " SELECT id, lag(service_completed_at) OVER (PARTITION BY device_id"
        "  ORDER BY service_completed_at, manifest_id) AS previous"
        " FROM manifest_revisions WHERE in_force AND qualifying) AS linked"
        " WHERE manifest_revisions.id = linked.id AND linked.previous IS NOT NULL"
    )
    op.create_index(
        "ix_revisions_counted",
        "manifest_revisions",
        ["device_id", "service_completed_at"],
        postgresql_include=["manifest_id", "previous_service_at"],
        **COUNTED,
    )


def downgrade():
    op.drop_index("ix_revisions_counted", table_name="manifest_revisions")
    with op.batch_alter_table("manifest_revisions") as batch:
        batch.drop_column("previous_service_at")
    op.create_index(
        "ix_revisions_counted",
        "manifest_revisions",
        ["device_id", "service_completed_at"],
        postgresql_include=["manifest_id"],
        **COUNTED,
    )
