"""A registry with a memory: the longest interval in the calendar months where a city's text
counts months (Tracy six, Colusa twelve); a device's frequency changes, each from its date with
the notice the permittee had, and each city's notice period (Victorville 30 days, Placentia and
San Clemente 45, exchange policy 30); a device's moves from one permit to another (a renewal),
each from its date.

Revision ID: 0032
Revises: 0031
Create Date: 2026-12-06
"""

import sqlalchemy as sa
from alembic import op

revision = "0032"
down_revision = "0031"
branch_labels = None
depends_on = None

# The preset cities whose ordinance gives a notice period for a change of the permit's terms.
NOTICE = {
    "victorville": (30, "Victorville 10.03.080(c)"),
    "placentia": (45, "Placentia 16.24 FOG Wastewater Discharge Permits (e)(3)"),
    "san-clemente": (45, "San Clemente 13.30.050(J)"),
}
# The preset cities whose ordinance states the longest interval in months, and its section.
MONTHS = {"tracy": (6, 183, "Tracy 5.26 interceptor maintenance (e)(2)"), "colusa": (12, 365, "Colusa 15A-16(C)(2)")}

jurisdictions = sa.table(
    "jurisdictions",
    sa.column("id"),
    sa.column("code", sa.String),
    sa.column("citations", sa.JSON),
    sa.column("interceptor_max_interval_days", sa.Integer),
    sa.column("interceptor_max_interval_months", sa.Integer),
    sa.column("frequency_change_notice_days", sa.Integer),
)


def upgrade():
    with op.batch_alter_table("jurisdictions") as table:
        table.add_column(sa.Column("interceptor_max_interval_months", sa.Integer(), nullable=True))
        table.add_column(sa.Column("frequency_change_notice_days", sa.Integer(), nullable=False, server_default="30"))
    op.create_table(
        "device_frequency_changes",
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("device_id", sa.Uuid(), nullable=False),
        sa.Column("from_days", sa.Integer(), nullable=False),
        sa.Column("to_days", sa.Integer(), nullable=False),
        sa.Column("effective_on", sa.Date(), nullable=False),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.Column("noticed_on", sa.Date(), nullable=False),
        sa.Column("sooner_because", sa.Text(), nullable=True),
        sa.Column("recorded_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["device_id"], ["devices.id"], name=op.f("fk_device_frequency_changes_device_id_devices")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_device_frequency_changes")),
        sa.UniqueConstraint("device_id", "effective_on", name=op.f("uq_device_frequency_changes_device_id")),
        sa.CheckConstraint("to_days > 0", name=op.f("ck_device_frequency_changes_to_days_positive")),
        sa.CheckConstraint(
            "effective_on >= noticed_on", name=op.f("ck_device_frequency_changes_effective_after_notice")
        ),
    )
    op.create_table(
        "device_permit_moves",
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("device_id", sa.Uuid(), nullable=False),
        sa.Column("from_permit_id", sa.Uuid(), nullable=False),
        sa.Column("to_permit_id", sa.Uuid(), nullable=False),
        sa.Column("effective_on", sa.Date(), nullable=False),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.Column("recorded_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["device_id"], ["devices.id"], name=op.f("fk_device_permit_moves_device_id_devices")),
        sa.ForeignKeyConstraint(
            ["from_permit_id"], ["permits.id"], name=op.f("fk_device_permit_moves_from_permit_id_permits")
        ),
        sa.ForeignKeyConstraint(
            ["to_permit_id"], ["permits.id"], name=op.f("fk_device_permit_moves_to_permit_id_permits")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_device_permit_moves")),
        sa.UniqueConstraint("device_id", "effective_on", name=op.f("uq_device_permit_moves_device_id")),
        sa.CheckConstraint("from_permit_id <> to_permit_id", name=op.f("ck_device_permit_moves_to_another_permit")),
    )
    op.create_index(op.f("ix_device_permit_moves_device_id"), "device_permit_moves", ["device_id"])
    op.create_index(op.f("ix_device_permit_moves_from_permit_id"), "device_permit_moves", ["from_permit_id"])
    bind = op.get_bind()
    rows = bind.execute(
        sa.select(
            jurisdictions.c.id,
            jurisdictions.c.code,
            jurisdictions.c.citations,
            jurisdictions.c.interceptor_max_interval_days,
        )
    ).all()
    for row in rows:
        citations = dict(row.citations or {})
        citations.setdefault("interceptor_max_interval_months", "exchange policy")
        notice, cited = NOTICE.get(row.code, (30, "exchange policy"))
        citations.setdefault("frequency_change_notice_days", cited)
        values = {"frequency_change_notice_days": notice}
        months, days, citation = MONTHS.get(row.code, (None, None, None))
        # Only a city still on its ordinance's days moves to its months; a value it set stays.
        if months and row.interceptor_max_interval_days == days:
            citations["interceptor_max_interval_days"] = "exchange policy"
            citations["interceptor_max_interval_months"] = citation
            values.update(interceptor_max_interval_days=None, interceptor_max_interval_months=months)
        bind.execute(jurisdictions.update().where(jurisdictions.c.id == row.id).values(citations=citations, **values))


def downgrade():
    bind = op.get_bind()
    rows = bind.execute(
        sa.select(
            jurisdictions.c.id,
            jurisdictions.c.code,
            jurisdictions.c.citations,
            jurisdictions.c.interceptor_max_interval_months,
        )
    ).all()
    for row in rows:
        citations = dict(row.citations or {})
        citations.pop("interceptor_max_interval_months", None)
        citations.pop("frequency_change_notice_days", None)
        values = {}
        months, days, citation = MONTHS.get(row.code, (None, None, None))
        if months and row.interceptor_max_interval_months == months:
            citations["interceptor_max_interval_days"] = citation
            values = {"interceptor_max_interval_days": days}
        bind.execute(jurisdictions.update().where(jurisdictions.c.id == row.id).values(citations=citations, **values))
    op.drop_index(op.f("ix_device_permit_moves_from_permit_id"), table_name="device_permit_moves")
    op.drop_index(op.f("ix_device_permit_moves_device_id"), table_name="device_permit_moves")
    op.drop_table("device_permit_moves")
    op.drop_table("device_frequency_changes")
    with op.batch_alter_table("jurisdictions") as table:
        table.drop_column("frequency_change_notice_days")
        table.drop_column("interceptor_max_interval_months")
