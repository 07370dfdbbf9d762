"""A device's day in service and its retirement: its clock starts at the later of its first
permit's first day and the day it was put in service, and stops for good from the day it was
retired. Existing devices are put in service on their first permit's first day, the day their
clock started before, so that nothing judged before changes.

Revision ID: 0039
Revises: 0038
Create Date: 2026-12-06
"""

import sqlalchemy as sa
from alembic import op

revision = "0039"
down_revision = "0038"
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table("devices") as table:
        table.add_column(sa.Column("in_service_on", sa.Date(), nullable=True))
        table.add_column(sa.Column("retired_on", sa.Date(), nullable=True))
        table.add_column(sa.Column("retired_reason", sa.Text(), nullable=True))
    # The earliest first day of every permit the device was on: its permit now and each one a
    # move (a renewal) took it from.
    op.execute(
        "UPDATE devices SET in_service_on = (SELECT min(p.issued_on) FROM permits p WHERE p.id = devices.permit_id"
        " OR p.id IN (SELECT m.from_permit_id FROM device_permit_moves m WHERE m.device_id = devices.id))"
    )


def downgrade():
    with op.batch_alter_table("devices") as table:
        table.drop_column("retired_reason")
        table.drop_column("retired_on")
        table.drop_column("in_service_on")
