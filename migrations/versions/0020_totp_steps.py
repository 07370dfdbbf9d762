"""A TOTP code is taken once: each person keeps the last time step a code of theirs was
taken for, and a code of that step or an earlier one is refused.

Revision ID: 0020
Revises: 0019
Create Date: 2026-12-05
"""
import sqlalchemy as sa
from alembic import op

revision = "0020"
down_revision = "0019"
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table("people") as table:
        table.add_column(sa.Column("totp_last_step", sa.BigInteger, nullable=True))


def downgrade():
    with op.batch_alter_table("people") as table:
        table.drop_column("totp_last_step")
