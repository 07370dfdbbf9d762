"""A TOTP code is taken once: each person keeps the last time step a code of theirs was
taken for, and a code of that step or an earlier one is refused. Who did what: the person
behind a disposal receipt, a correction and its review, a scan, and each registry change.

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


PERSON_COLUMNS = {
    "disposal_receipts": ["submitted_by_person_id"],
    "pending_corrections": ["submitted_by_person_id", "decided_by_person_id"],
    "documents": ["uploaded_by_person_id"],
}


def upgrade():
    with op.batch_alter_table("people") as table:
        table.add_column(sa.Column("totp_last_step", sa.BigInteger, nullable=True))
    for name, columns in PERSON_COLUMNS.items():
        with op.batch_alter_table(name) as table:
            if name == "documents":
                table.add_column(sa.Column("uploaded_by_client_id", sa.Uuid, nullable=True))
                table.create_foreign_key(
                    "fk_documents_uploaded_by_client_id_oauth_clients",
                    "oauth_clients",
                    ["uploaded_by_client_id"],
                    ["id"],
                )
            for column in columns:
                table.add_column(sa.Column(column, sa.Uuid, nullable=True))
                table.create_foreign_key(f"fk_{name}_{column}_people", "people", [column], ["id"])
    op.create_table(
        "registry_changes",
        sa.Column("id", sa.Uuid, primary_key=True),
        sa.Column("jurisdiction_id", sa.Uuid, sa.ForeignKey("jurisdictions.id"), nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("action", sa.String(40), nullable=False),
        sa.Column("subject_id", sa.Uuid, nullable=True),
        sa.Column("detail", sa.JSON, nullable=False),
        sa.Column("client_id", sa.Uuid, sa.ForeignKey("oauth_clients.id"), nullable=False),
        sa.Column("person_id", sa.Uuid, sa.ForeignKey("people.id"), nullable=True),
    )
    op.create_index("ix_registry_changes_jurisdiction", "registry_changes", ["jurisdiction_id", "at", "id"])


def downgrade():
    op.drop_index("ix_registry_changes_jurisdiction", "registry_changes")
    op.drop_table("registry_changes")
    for name, columns in PERSON_COLUMNS.items():
        with op.batch_alter_table(name) as table:
            for column in columns:
                table.drop_constraint(f"fk_{name}_{column}_people", type_="foreignkey")
                table.drop_column(column)
            if name == "documents":
                table.drop_constraint("fk_documents_uploaded_by_client_id_oauth_clients", type_="foreignkey")
                table.drop_column("uploaded_by_client_id")
    with op.batch_alter_table("people") as table:
        table.drop_column("totp_last_step")
