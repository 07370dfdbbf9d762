"""Webhook secrets derived, not stored: a new webhook's HMAC key is derived from the service's
signing key and the webhook's id (`services.outbound.webhooks.secret_of`), and its row holds none. The
webhooks made before keep the secret they were given, which their receivers check.

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-04
"""

import sqlalchemy as sa
from alembic import op

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table("webhooks") as table:
        table.alter_column("secret", existing_type=sa.String(64), nullable=True)


def downgrade():
    # The schema before stored every secret; a derived one is not written back, so those
    # webhooks stop, rather than sign with a key their receivers do not hold.
    op.execute(
        "UPDATE webhooks SET secret = '', status = 'disabled', disabled_at = CURRENT_TIMESTAMP, "
        "disabled_reason = 'its secret is derived, which this version of the schema cannot sign with' "
        "WHERE secret IS NULL"
    )
    with op.batch_alter_table("webhooks") as table:
        table.alter_column("secret", existing_type=sa.String(64), nullable=False)
