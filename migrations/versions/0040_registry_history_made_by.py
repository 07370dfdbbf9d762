"""A registry history that says who: each permit status change, frequency change and permit
move keeps who recorded it (the client and the person, or the command line), a status change
the day written notice was given, and a frequency change its withdrawal before it took effect
(when, why and by whom; a withdrawn change counts nowhere, so one change in force a day).
Existing rows keep their values; who made them stays unknown (None).

Revision ID: 0040
Revises: 0039
Create Date: 2026-12-06
"""

import sqlalchemy as sa
from alembic import op

revision = "0040"
down_revision = "0039"
branch_labels = None
depends_on = None

MADE_BY = ("permit_status_changes", "device_frequency_changes", "device_permit_moves")
IN_FORCE = "withdrawn_at IS NULL"


def _made_by(table, name):
    table.add_column(sa.Column("by_client_id", sa.Uuid(), nullable=True))
    table.add_column(sa.Column("by_person_id", sa.Uuid(), nullable=True))
    table.add_column(sa.Column("by_command", sa.String(length=200), nullable=True))
    table.create_foreign_key(op.f(f"fk_{name}_by_client_id_oauth_clients"), "oauth_clients", ["by_client_id"], ["id"])
    table.create_foreign_key(op.f(f"fk_{name}_by_person_id_people"), "people", ["by_person_id"], ["id"])


def upgrade():
    for name in MADE_BY:
        with op.batch_alter_table(name) as table:
            _made_by(table, name)
    with op.batch_alter_table("permit_status_changes") as table:
        table.add_column(sa.Column("notice_on", sa.Date(), nullable=True))
    with op.batch_alter_table("device_frequency_changes") as table:
        table.add_column(sa.Column("withdrawn_at", sa.DateTime(timezone=True), nullable=True))
        table.add_column(sa.Column("withdrawn_reason", sa.Text(), nullable=True))
        table.add_column(sa.Column("withdrawn_by_client_id", sa.Uuid(), nullable=True))
        table.add_column(sa.Column("withdrawn_by_person_id", sa.Uuid(), nullable=True))
        table.create_foreign_key(
            op.f("fk_device_frequency_changes_withdrawn_by_client_id_oauth_clients"),
            "oauth_clients",
            ["withdrawn_by_client_id"],
            ["id"],
        )
        table.create_foreign_key(
            op.f("fk_device_frequency_changes_withdrawn_by_person_id_people"),
            "people",
            ["withdrawn_by_person_id"],
            ["id"],
        )
        table.drop_constraint(op.f("uq_device_frequency_changes_device_id"), type_="unique")
    op.create_index(
        "uq_device_frequency_changes_device_day",
        "device_frequency_changes",
        ["device_id", "effective_on"],
        unique=True,
        sqlite_where=sa.text(IN_FORCE),
        postgresql_where=sa.text(IN_FORCE),
    )


def downgrade():
    # Withdrawn changes do not survive going back: the old table has no place for them.
    op.execute("DELETE FROM device_frequency_changes WHERE withdrawn_at IS NOT NULL")
    op.drop_index("uq_device_frequency_changes_device_day", table_name="device_frequency_changes")
    with op.batch_alter_table("device_frequency_changes") as table:
        table.create_unique_constraint(op.f("uq_device_frequency_changes_device_id"), ["device_id", "effective_on"])
        table.drop_constraint(op.f("fk_device_frequency_changes_withdrawn_by_person_id_people"), type_="foreignkey")
        table.drop_constraint(
            op.f("fk_device_frequency_changes_withdrawn_by_client_id_oauth_clients"), type_="foreignkey"
        )
        for column in ("withdrawn_by_person_id", "withdrawn_by_client_id", "withdrawn_reason", "withdrawn_at"):
            table.drop_column(column)
    with op.batch_alter_table("permit_status_changes") as table:
        table.drop_column("notice_on")
    for name in MADE_BY:
        with op.batch_alter_table(name) as table:
            table.drop_constraint(op.f(f"fk_{name}_by_person_id_people"), type_="foreignkey")
            table.drop_constraint(op.f(f"fk_{name}_by_client_id_oauth_clients"), type_="foreignkey")
            for column in ("by_command", "by_person_id", "by_client_id"):
                table.drop_column(column)
