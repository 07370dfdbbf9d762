"""A device's frequency may run in calendar months: the "quarterly" default of Colusa
15A-16(C)(3) and Tracy 5.26 (e)(3) ("Grease interceptors shall be fully pumped out and cleaned
quarterly when the frequency described in ... has not been established") is three calendar
months, not 90 days.

Interceptors in those cities that still carry the city's default (`frequency_source`
`city_default`, 90 days, never changed) are given three months: the ordinance's quarter. A
device whose frequency the city set or changed keeps its days.

Revision ID: 0041
Revises: 0040
Create Date: 2026-12-06
"""

import sqlalchemy as sa
from alembic import op

revision = "0041"
down_revision = "0040"
branch_labels = None
depends_on = None

QUARTERLY = ("colusa", "tracy")


def upgrade():
    with op.batch_alter_table("devices") as table:
        table.add_column(sa.Column("frequency_months", sa.Integer(), nullable=True))
        table.create_check_constraint(op.f("ck_devices_frequency_months_positive"), "frequency_months > 0")
    devices = sa.table(
        "devices",
        sa.column("id", sa.Uuid()),
        sa.column("fse_id", sa.Uuid()),
        sa.column("kind", sa.String()),
        sa.column("frequency_days", sa.Integer()),
        sa.column("frequency_source", sa.String()),
        sa.column("frequency_months", sa.Integer()),
    )
    fses = sa.table("fses", sa.column("id", sa.Uuid()), sa.column("jurisdiction_id", sa.Uuid()))
    jurisdictions = sa.table(
        "jurisdictions",
        sa.column("id", sa.Uuid()),
        sa.column("code", sa.String()),
        sa.column("interceptor_default_frequency_days", sa.Integer()),
    )
    changes = sa.table("device_frequency_changes", sa.column("device_id", sa.Uuid()))
    in_quarterly_city = (
        sa.select(fses.c.id)
        .join(jurisdictions, jurisdictions.c.id == fses.c.jurisdiction_id)
        .where(jurisdictions.c.code.in_(QUARTERLY), jurisdictions.c.interceptor_default_frequency_days == 90)
    )
    op.execute(
        devices.update()
        .where(
            devices.c.kind == "interceptor",
            devices.c.frequency_source == "city_default",
            devices.c.frequency_days == 90,
            devices.c.fse_id.in_(in_quarterly_city),
            ~sa.exists().where(changes.c.device_id == devices.c.id),
        )
        .values(frequency_months=3)
    )


def downgrade():
    with op.batch_alter_table("devices") as table:
        table.drop_constraint(op.f("ck_devices_frequency_months_positive"), type_="check")
        table.drop_column("frequency_months")
