"""A disposal site corrects a receipt it made in error: each correction keeps the receipt as it
was, as it is now, why and who, so nothing the site once reported is lost.

Revision ID: 0035
Revises: 0032
Create Date: 2026-12-06
"""

import sqlalchemy as sa
from alembic import op

revision = "0035"
down_revision = "0034"
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        "receipt_corrections",
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("receipt_id", sa.Uuid(), nullable=False),
        sa.Column("before", sa.JSON(), nullable=False),
        sa.Column("after", sa.JSON(), nullable=False),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.Column("submitted_by_client_id", sa.Uuid(), nullable=False),
        sa.Column("submitted_by_person_id", sa.Uuid(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["receipt_id"], ["disposal_receipts.id"], name=op.f("fk_receipt_corrections_receipt_id_disposal_receipts")
        ),
        sa.ForeignKeyConstraint(
            ["submitted_by_client_id"],
            ["oauth_clients.id"],
            name=op.f("fk_receipt_corrections_submitted_by_client_id_oauth_clients"),
        ),
        sa.ForeignKeyConstraint(
            ["submitted_by_person_id"], ["people.id"], name=op.f("fk_receipt_corrections_submitted_by_person_id_people")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_receipt_corrections")),
    )
    op.create_index("ix_receipt_corrections_receipt", "receipt_corrections", ["receipt_id", "created_at"])


def downgrade():
    op.drop_index("ix_receipt_corrections_receipt", table_name="receipt_corrections")
    op.drop_table("receipt_corrections")
