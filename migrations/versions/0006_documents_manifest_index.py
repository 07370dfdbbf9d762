"""`documents (manifest_id)` is the leading column of the unique `(manifest_id, sha256)`
index since 0005, which answers every lookup by manifest: the single-column index only cost
each attached scan one more index write.

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-03
"""

from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade():
    op.drop_index("ix_documents_manifest_id", table_name="documents")


def downgrade():
    op.create_index("ix_documents_manifest_id", "documents", ["manifest_id"])
