"""The shorter notice a city's text gives for a change that follows an inspector's evaluation
for permit non-compliance (San Clemente 13.30.050(J): fourteen days), as a jurisdiction
parameter; and whether a device's frequency change was such a change.

Revision ID: 0033
Revises: 0032
Create Date: 2026-12-06
"""

import sqlalchemy as sa
from alembic import op

revision = "0033"
down_revision = "0032"
branch_labels = None
depends_on = None

POLICY = "exchange policy"
RULE = "frequency_change_notice_inspection_days"
# The preset cities whose ordinance gives the shorter notice, and its section.
AFTER_INSPECTION = {"san-clemente": (14, "San Clemente 13.30.050(J)")}

jurisdictions = sa.table(
    "jurisdictions",
    sa.column("id"),
    sa.column("code", sa.String),
    sa.column("citations", sa.JSON),
    sa.column(RULE, sa.Integer),
)


def upgrade():
    with op.batch_alter_table("jurisdictions") as table:
        table.add_column(sa.Column(RULE, sa.Integer(), nullable=True))
    with op.batch_alter_table("device_frequency_changes") as table:
        table.add_column(sa.Column("after_inspection", sa.Boolean(), nullable=False, server_default=sa.false()))
    bind = op.get_bind()
    for row in bind.execute(sa.select(jurisdictions.c.id, jurisdictions.c.code, jurisdictions.c.citations)).all():
        citations = dict(row.citations or {})
        days, cited = AFTER_INSPECTION.get(row.code, (None, POLICY))
        citations[RULE] = cited
        bind.execute(
            jurisdictions.update().where(jurisdictions.c.id == row.id).values({"citations": citations, RULE: days})
        )


def downgrade():
    bind = op.get_bind()
    for row in bind.execute(sa.select(jurisdictions.c.id, jurisdictions.c.citations)).all():
        citations = dict(row.citations or {})
        citations.pop(RULE, None)
        bind.execute(jurisdictions.update().where(jurisdictions.c.id == row.id).values(citations=citations))
    with op.batch_alter_table("device_frequency_changes") as table:
        table.drop_column("after_inspection")
    with op.batch_alter_table("jurisdictions") as table:
        table.drop_column(RULE)
