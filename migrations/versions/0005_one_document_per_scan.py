"""A scan is attached to a manifest once: two uploads of the same bytes racing each other
(a dispatch client retrying a PUT it thinks lost) must not make two documents.

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-03
"""

from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade():
    op.create_index("uq_documents_manifest_sha256", "documents", ["manifest_id", "sha256"], unique=True)


def downgrade():
    op.drop_index("uq_documents_manifest_sha256", table_name="documents")
