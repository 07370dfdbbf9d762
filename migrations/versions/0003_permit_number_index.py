"""An index on permit numbers: every filing names its permit by number alone.

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-02
"""

from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade():
    op.create_index("ix_permits_permit_number", "permits", ["permit_number"])


def downgrade():
    op.drop_index("ix_permits_permit_number", table_name="permits")
