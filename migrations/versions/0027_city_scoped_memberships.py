"""A person's membership of a shared hauler or disposal site, granted by a city's admin, reaches
that city alone: its principal (an `oauth_clients` row of role hauler or site) may carry the
city. Memberships a city granted before are scoped to it now, and so are those its hauler admins
granted in turn. An invitation can be withdrawn, and the operator's (the command line's) has no
inviting client.

Revision ID: 0027
Revises: 0026
Create Date: 2026-12-06
"""

import sqlalchemy as sa
from alembic import op

revision = "0027"
down_revision = "0026"
branch_labels = None
depends_on = None

ONE_SUBJECT_BEFORE = (
    "(role = 'hauler' AND hauler_id IS NOT NULL AND jurisdiction_id IS NULL AND site_id IS NULL)"
    " OR (role = 'fse' AND hauler_id IS NULL AND jurisdiction_id IS NULL AND site_id IS NULL)"
    " OR (role IN ('auditor', 'admin') AND jurisdiction_id IS NOT NULL AND hauler_id IS NULL"
    " AND site_id IS NULL)"
    " OR (role = 'site' AND site_id IS NOT NULL AND hauler_id IS NULL AND jurisdiction_id IS NULL)"
)
ONE_SUBJECT = (
    "(role = 'hauler' AND hauler_id IS NOT NULL AND site_id IS NULL)"
    " OR (role = 'fse' AND hauler_id IS NULL AND jurisdiction_id IS NULL AND site_id IS NULL)"
    " OR (role IN ('auditor', 'admin') AND jurisdiction_id IS NOT NULL AND hauler_id IS NULL"
    " AND site_id IS NULL)"
    " OR (role = 'site' AND site_id IS NOT NULL AND hauler_id IS NULL)"
)
SHARED = "organisation IN ('hauler', 'site')"


def _one_subject(rule):
    with op.batch_alter_table("oauth_clients") as table:
        table.drop_constraint(op.f("ck_oauth_clients_one_subject"), type_="check")
        table.create_check_constraint(op.f("ck_oauth_clients_one_subject"), rule)


def _scope_granted_memberships():
    """Each unscoped membership of a hauler or site whose inviter acted for a city takes that
    city, then its principal; again, for those the newly scoped ones invited, until none is left."""
    while True:
        scoped = op.get_bind().execute(
            sa.text(
                f"UPDATE memberships SET jurisdiction_id = (SELECT c.jurisdiction_id FROM oauth_clients c"
                f" WHERE c.id = memberships.invited_by_client_id)"
                f" WHERE {SHARED} AND jurisdiction_id IS NULL AND invited_by_client_id IN"
                f" (SELECT id FROM oauth_clients WHERE jurisdiction_id IS NOT NULL)"
            )
        )
        op.execute(
            f"UPDATE oauth_clients SET jurisdiction_id = (SELECT m.jurisdiction_id FROM memberships m"
            f" WHERE m.principal_id = oauth_clients.id)"
            f" WHERE jurisdiction_id IS NULL AND id IN"
            f" (SELECT principal_id FROM memberships WHERE {SHARED} AND jurisdiction_id IS NOT NULL)"
        )
        if not scoped.rowcount:
            break
    op.execute(
        f"UPDATE invitations SET jurisdiction_id = (SELECT c.jurisdiction_id FROM oauth_clients c"
        f" WHERE c.id = invitations.invited_by_client_id)"
        f" WHERE {SHARED} AND jurisdiction_id IS NULL AND accepted_at IS NULL"
    )


def upgrade():
    _one_subject(ONE_SUBJECT)
    with op.batch_alter_table("invitations") as table:
        table.alter_column("invited_by_client_id", existing_type=sa.Uuid(), nullable=True)
        table.add_column(sa.Column("withdrawn_at", sa.DateTime(timezone=True), nullable=True))
        table.add_column(sa.Column("withdrawn_by_client_id", sa.Uuid(), nullable=True))
        table.create_foreign_key(
            op.f("fk_invitations_withdrawn_by_client_id_oauth_clients"),
            "oauth_clients",
            ["withdrawn_by_client_id"],
            ["id"],
        )
    _scope_granted_memberships()


def downgrade():
    # A scoped principal has no place in the older rule: it is revoked, never widened.
    op.execute(
        "UPDATE oauth_tokens SET revoked_at = CURRENT_TIMESTAMP WHERE revoked_at IS NULL AND client_id IN"
        " (SELECT id FROM oauth_clients WHERE role IN ('hauler', 'site') AND jurisdiction_id IS NOT NULL)"
    )
    op.execute(
        "UPDATE oauth_clients SET jurisdiction_id = NULL, revoked_at = COALESCE(revoked_at, CURRENT_TIMESTAMP)"
        " WHERE role IN ('hauler', 'site') AND jurisdiction_id IS NOT NULL"
    )
    op.execute(
        "DELETE FROM invitations WHERE accepted_at IS NULL AND (invited_by_client_id IS NULL"
        f" OR ({SHARED} AND jurisdiction_id IS NOT NULL))"
    )
    with op.batch_alter_table("invitations") as table:
        table.drop_constraint(op.f("fk_invitations_withdrawn_by_client_id_oauth_clients"), type_="foreignkey")
        table.drop_column("withdrawn_by_client_id")
        table.drop_column("withdrawn_at")
        table.alter_column("invited_by_client_id", existing_type=sa.Uuid(), nullable=False)
    _one_subject(ONE_SUBJECT_BEFORE)
