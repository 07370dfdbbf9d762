"""The change feed (`GET /v1/changes`): one row for each thing that happens to a manifest,
written in the transaction that does it. On PostgreSQL each row carries its transaction's id,
by which the feed orders what it gives out (`services.audit.changes`). The manifests already filed
get the entries they would have had: one for each revision, with the findings it holds now.

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-04
"""

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade():
    postgresql = op.get_bind().dialect.name == "postgresql"
    op.create_table(
        "changes",
        sa.Column("seq", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), primary_key=True, autoincrement=True),
        sa.Column(
            "txid",
            sa.BigInteger(),
            nullable=False,
            server_default=sa.text("(pg_current_xact_id()::text::bigint)" if postgresql else "0"),
        ),
        sa.Column("kind", sa.String(40), nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("manifest_id", sa.Uuid(), nullable=False),
        sa.Column("manifest_number", sa.String(60), nullable=False),
        sa.Column("revision", sa.Integer(), nullable=True),
        sa.Column("hauler_id", sa.Uuid(), nullable=False),
        sa.Column("fse_id", sa.Uuid(), nullable=False),
        sa.Column("jurisdiction_id", sa.Uuid(), nullable=False),
        sa.Column("detail", sa.JSON(), nullable=False),
        sa.PrimaryKeyConstraint("seq", name=op.f("pk_changes")),
    )
    for name, first in (("jurisdiction", "jurisdiction_id"), ("hauler", "hauler_id"), ("fse", "fse_id")):
        op.create_index(f"ix_changes_{name}_feed", "changes", [first, "txid", "seq"])
    op.create_index("ix_changes_manifest_id", "changes", ["manifest_id"])
    if postgresql:
        findings = (
            "json_build_object('findings', coalesce((SELECT json_agg(f.code ORDER BY f.code) "
            "FROM findings f WHERE f.revision_id = r.id AND f.cleared_at IS NULL), '[]'::json))"
        )
    else:
        findings = (
            "json_object('findings', (SELECT json_group_array(code) FROM (SELECT f.code FROM findings f "
            "WHERE f.revision_id = r.id AND f.cleared_at IS NULL ORDER BY f.code)))"
        )
    op.execute(f"""
        INSERT INTO changes (kind, at, manifest_id, manifest_number, revision, hauler_id, fse_id,
                             jurisdiction_id, detail)
        SELECT CASE WHEN r.revision = 1 THEN 'manifest.filed' ELSE 'manifest.corrected' END,
               r.received_at, m.id, m.manifest_number, r.revision, m.hauler_id, m.fse_id,
               m.jurisdiction_id, {findings}
        FROM manifest_revisions r JOIN manifests m ON m.id = r.manifest_id
        ORDER BY r.received_at, r.revision
    """)


def downgrade():
    op.drop_table("changes")
