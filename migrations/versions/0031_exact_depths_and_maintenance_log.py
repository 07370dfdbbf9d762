"""Depths are kept as exact decimals to the hundredth of an inch (NUMERIC(7, 2)), so the 25%
rule and the two-inch rule compare them at their limits as the ordinances write them.

Revision ID: 0031
Revises: 0026
Create Date: 2026-12-06
"""
import sqlalchemy as sa
from alembic import op

revision = "0031"
down_revision = "0026"
branch_labels = None
depends_on = None

INCHES = sa.Numeric(7, 2)
DEPTHS = {"manifest_revisions": ("fog_depth_in", "solids_depth_in", "outlet_clearance_in"),
          "devices": ("liquid_depth_in",)}


def _retype(to, using):
    for table, columns in DEPTHS.items():
        with op.batch_alter_table(table) as batch:
            for column in columns:
                kwargs = {"postgresql_using": using.format(column=column)}
                batch.alter_column(column, type_=to, existing_nullable=table != "devices", **kwargs)


def upgrade():
    # A stored double reads back as the decimal that was sent (8.3): round to the hundredth.
    _retype(INCHES, "round(CAST({column} AS NUMERIC), 2)")


def downgrade():
    _retype(sa.Float(), "CAST({column} AS DOUBLE PRECISION)")
