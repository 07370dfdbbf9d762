"""Haulers and FSEs have an optional contact address: the notices of one with no people yet
go to it.

Revision ID: 0037
Revises: 0036
Create Date: 2026-12-07
"""

import sqlalchemy as sa
from alembic import op

revision = "0037"
down_revision = "0036"
branch_labels = None
depends_on = None


def upgrade():
    for table in ("haulers", "fses"):
        with op.batch_alter_table(table) as batch:
            batch.add_column(sa.Column("contact_email", sa.String(length=254), nullable=True))


def downgrade():
    for table in ("fses", "haulers"):
        with op.batch_alter_table(table) as batch:
            batch.drop_column("contact_email")
