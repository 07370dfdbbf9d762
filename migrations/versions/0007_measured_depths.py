"""The FOG and solids depths a hauler measured before pumping, as columns of the revision
(until now in its body alone): the frequency recommendations sum them over three years of a
city's services, which reading each body's JSON made a scan of every document. Filling them
rewrites every revision that holds measurements, so on a large database the upgrade takes a
while.

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-03
"""

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None

DEPTHS = ("fog_depth_in", "solids_depth_in")


def upgrade():
    with op.batch_alter_table("manifest_revisions") as table:
        for depth in DEPTHS:
            table.add_column(sa.Column(depth, sa.Float(), nullable=True))
    if op.get_bind().dialect.name == "postgresql":
        read = "CAST(body #>> '{{manifest,measurements,{0}}}' AS double precision)"
        measured = "json_typeof(body -> 'manifest' -> 'measurements') = 'object'"
    else:
        read = "CAST(json_extract(body, '$.manifest.measurements.{0}') AS REAL)"
        measured = "json_type(body, '$.manifest.measurements') = 'object'"
    # Only the revisions that hold measurements are written: the rest keep their row as it is.
    op.execute(
        "UPDATE manifest_revisions SET "
        + ", ".join(f"{depth} = {read.format(depth)}" for depth in DEPTHS)
        + f" WHERE {measured}"
    )


def downgrade():
    with op.batch_alter_table("manifest_revisions") as table:
        for depth in DEPTHS:
            table.drop_column(depth)
