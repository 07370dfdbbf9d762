"""Each jurisdiction's time zone: every date a rule judges is the city's local date.

Revision ID: 0012
Revises: 0011
Create Date: 2026-12-04
"""

import sqlalchemy as sa
from alembic import op

revision = "0012"
down_revision = "0011"
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table("jurisdictions") as table:
        table.add_column(sa.Column("time_zone", sa.String(64), nullable=False, server_default="America/Los_Angeles"))


def downgrade():
    with op.batch_alter_table("jurisdictions") as table:
        table.drop_column("time_zone")
