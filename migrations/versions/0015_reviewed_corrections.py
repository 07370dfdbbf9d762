"""Records follow every FSE and permit a manifest ever named: legal holds on permits, and the
corrections that would move a manifest kept for the city's review (`pending_corrections`).
Auditors and admins who read the audit lists are given `corrections:review`.

Revision ID: 0015
Revises: 0014
Create Date: 2026-12-05
"""

import sqlalchemy as sa
from alembic import op

revision = "0015"
down_revision = "0014"
branch_labels = None
depends_on = None

REVIEWERS = "role IN ('auditor', 'admin') AND (' ' || scope || ' ') LIKE '% audit:read %'"


def upgrade():
    with op.batch_alter_table("legal_holds") as table:
        table.add_column(sa.Column("permit_id", sa.Uuid(), nullable=True))
        table.create_foreign_key(op.f("fk_legal_holds_permit_id_permits"), "permits", ["permit_id"], ["id"])
    op.create_table(
        "pending_corrections",
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("manifest_id", sa.Uuid(), nullable=False),
        sa.Column("jurisdiction_id", sa.Uuid(), nullable=False),
        sa.Column("hauler_id", sa.Uuid(), nullable=False),
        sa.Column("based_on_revision", sa.Integer(), nullable=False),
        sa.Column("document", sa.JSON(), nullable=False),
        sa.Column("sha256", sa.String(64), nullable=False),
        sa.Column("moves", sa.JSON(), nullable=False),
        sa.Column("submitted_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("submitted_by_client_id", sa.Uuid(), nullable=False),
        sa.Column("status", sa.String(10), nullable=False),
        sa.Column("decided_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("decided_by_client_id", sa.Uuid(), nullable=True),
        sa.Column("decision_reason", sa.Text(), nullable=True),
        sa.Column("revision", sa.Integer(), nullable=True),
        sa.CheckConstraint("status IN ('pending', 'approved', 'rejected')", name=op.f("ck_pending_corrections_status")),
        sa.ForeignKeyConstraint(
            ["manifest_id"], ["manifests.id"], name=op.f("fk_pending_corrections_manifest_id_manifests")
        ),
        sa.ForeignKeyConstraint(
            ["jurisdiction_id"], ["jurisdictions.id"], name=op.f("fk_pending_corrections_jurisdiction_id_jurisdictions")
        ),
        sa.ForeignKeyConstraint(["hauler_id"], ["haulers.id"], name=op.f("fk_pending_corrections_hauler_id_haulers")),
        sa.ForeignKeyConstraint(
            ["submitted_by_client_id"],
            ["oauth_clients.id"],
            name=op.f("fk_pending_corrections_submitted_by_client_id_oauth_clients"),
        ),
        sa.ForeignKeyConstraint(
            ["decided_by_client_id"],
            ["oauth_clients.id"],
            name=op.f("fk_pending_corrections_decided_by_client_id_oauth_clients"),
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_pending_corrections")),
    )
    op.create_index("ix_pending_corrections_review", "pending_corrections", ["jurisdiction_id", "status", "id"])
    op.create_index("ix_pending_corrections_manifest", "pending_corrections", ["manifest_id", "status"])
    op.execute(f"UPDATE oauth_clients SET scope = scope || ' corrections:review' WHERE {REVIEWERS}")


def downgrade():
    for table in ("oauth_clients", "oauth_tokens"):
        op.execute(f"UPDATE {table} SET scope = TRIM(REPLACE(' ' || scope || ' ', ' corrections:review ', ' '))")
    op.drop_index("ix_pending_corrections_manifest", table_name="pending_corrections")
    op.drop_index("ix_pending_corrections_review", table_name="pending_corrections")
    op.drop_table("pending_corrections")
    # A hold on a permit becomes one on its FSE: a downgrade keeps more, never less.
    op.execute(
        "UPDATE legal_holds SET fse_id = (SELECT fse_id FROM permits WHERE permits.id = legal_holds.permit_id)"
        " WHERE permit_id IS NOT NULL"
    )
    with op.batch_alter_table("legal_holds") as table:
        table.drop_constraint(op.f("fk_legal_holds_permit_id_permits"), type_="foreignkey")
        table.drop_column("permit_id")
