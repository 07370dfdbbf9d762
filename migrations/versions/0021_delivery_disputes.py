"""Disposal sites dispute deliveries: a site's word that a load a manifest names did not arrive
as filed, kept beside the manifest and never changed; the city's reconciliation shows it.

Revision ID: 0021
Revises: 0020
Create Date: 2026-12-05
"""

import sqlalchemy as sa
from alembic import op

revision = "0021"
down_revision = "0020"
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        "delivery_disputes",
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("manifest_id", sa.Uuid(), nullable=False),
        sa.Column("site_id", sa.Uuid(), nullable=False),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.Column("submitted_by_client_id", sa.Uuid(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["manifest_id"], ["manifests.id"], name=op.f("fk_delivery_disputes_manifest_id_manifests")
        ),
        sa.ForeignKeyConstraint(
            ["site_id"], ["disposal_sites.id"], name=op.f("fk_delivery_disputes_site_id_disposal_sites")
        ),
        sa.ForeignKeyConstraint(
            ["submitted_by_client_id"],
            ["oauth_clients.id"],
            name=op.f("fk_delivery_disputes_submitted_by_client_id_oauth_clients"),
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_delivery_disputes")),
    )
    op.create_index("ix_delivery_disputes_manifest", "delivery_disputes", ["manifest_id", "site_id"])


def downgrade():
    op.drop_index("ix_delivery_disputes_manifest", table_name="delivery_disputes")
    op.drop_table("delivery_disputes")
