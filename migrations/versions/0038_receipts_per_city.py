"""A site's receipt is kept with the city its clerks reported for: one ticket a day for the
whole site and one for each city's clerks, so that one city's clerks never take a ticket from
another city's.

Revision ID: 0038
Revises: 0037
Create Date: 2026-12-06
"""

import sqlalchemy as sa
from alembic import op

revision = "0038"
down_revision = "0037"
branch_labels = None
depends_on = None

COLUMNS = ["site_id", "ticket_number", "received_on"]


def upgrade():
    with op.batch_alter_table("disposal_receipts") as table:
        table.add_column(sa.Column("scope_jurisdiction_id", sa.Uuid(), nullable=True))
        table.create_foreign_key(
            op.f("fk_disposal_receipts_scope_jurisdiction_id_jurisdictions"),
            "jurisdictions",
            ["scope_jurisdiction_id"],
            ["id"],
        )
    op.execute(
        "UPDATE disposal_receipts SET scope_jurisdiction_id = (SELECT c.jurisdiction_id FROM oauth_clients c"
        " WHERE c.id = disposal_receipts.submitted_by_client_id)"
    )
    with op.batch_alter_table("disposal_receipts") as table:
        table.drop_constraint(op.f("uq_disposal_receipts_site_id"), type_="unique")
    whole, scoped = "scope_jurisdiction_id IS NULL", "scope_jurisdiction_id IS NOT NULL"
    op.create_index(
        "uq_disposal_receipts_site_ticket_day",
        "disposal_receipts",
        COLUMNS,
        unique=True,
        postgresql_where=sa.text(whole),
        sqlite_where=sa.text(whole),
    )
    op.create_index(
        "uq_disposal_receipts_city_ticket_day",
        "disposal_receipts",
        [*COLUMNS, "scope_jurisdiction_id"],
        unique=True,
        postgresql_where=sa.text(scoped),
        sqlite_where=sa.text(scoped),
    )


def downgrade():
    reused = (
        op.get_bind()
        .execute(
            sa.text(
                "SELECT ticket_number FROM disposal_receipts GROUP BY site_id, ticket_number, received_on"
                " HAVING COUNT(*) > 1"
            )
        )
        .first()
    )
    if reused is not None:
        raise RuntimeError(
            f"two cities' clerks reported ticket {reused.ticket_number} on one day: before 0038 a "
            "ticket was one receipt a day, and no receipt is deleted"
        )
    op.drop_index("uq_disposal_receipts_city_ticket_day", table_name="disposal_receipts")
    op.drop_index("uq_disposal_receipts_site_ticket_day", table_name="disposal_receipts")
    with op.batch_alter_table("disposal_receipts") as table:
        table.create_unique_constraint(op.f("uq_disposal_receipts_site_id"), COLUMNS)
        table.drop_constraint(op.f("fk_disposal_receipts_scope_jurisdiction_id_jurisdictions"), type_="foreignkey")
        table.drop_column("scope_jurisdiction_id")
