"""The city's findings and services of a period, in the order they were done: an index of
revisions by completion time that carries what the lists join on.

Revision ID: 0022
Revises: 0021
Create Date: 2026-12-05
"""

from alembic import op

revision = "0022"
down_revision = "0021"
branch_labels = None
depends_on = None


def upgrade():
    op.create_index(
        "ix_revisions_completed",
        "manifest_revisions",
        ["service_completed_at"],
        postgresql_include=["id", "manifest_id", "revision"],
    )


def downgrade():
    op.drop_index("ix_revisions_completed", table_name="manifest_revisions")
