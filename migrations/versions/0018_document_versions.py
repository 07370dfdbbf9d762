"""Each document names the object store's version that holds its bytes: that version is
read and locked, not whatever is written under its key later.

Revision ID: 0018
Revises: 0016
Create Date: 2026-12-04
"""

import sqlalchemy as sa
from alembic import op

revision = "0018"
down_revision = "0016"
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table("documents") as table:
        table.add_column(sa.Column("object_version_id", sa.String(1024), nullable=True))


def downgrade():
    with op.batch_alter_table("documents") as table:
        table.drop_column("object_version_id")
