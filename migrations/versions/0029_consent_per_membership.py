"""Consent is given for one organisation: a person's consent to an app is kept per membership,
and an app consented for one of their organisations is asked again for another.

A consent kept before could have been given for any of the person's memberships; it is kept,
as that membership's, only where the person has ever had just one. Everyone else is asked again.

Revision ID: 0029
Revises: 0027
Create Date: 2026-12-06
"""

import sqlalchemy as sa
from alembic import op

revision = "0029"
down_revision = "0027"
branch_labels = None
depends_on = None

UTCDateTime = sa.DateTime(timezone=True)
STAGED = "consents_staged_0029"


def _consents(*, per_membership):
    columns = [
        sa.Column(
            "person_id", sa.Uuid, sa.ForeignKey("people.id", name="fk_consents_person_id_people"), primary_key=True
        ),
        sa.Column(
            "app_id", sa.Uuid, sa.ForeignKey("oauth_apps.id", name="fk_consents_app_id_oauth_apps"), primary_key=True
        ),
    ]
    if per_membership:
        columns.append(
            sa.Column(
                "membership_id",
                sa.Uuid,
                sa.ForeignKey("memberships.id", name="fk_consents_membership_id_memberships"),
                primary_key=True,
            )
        )
    op.create_table(
        "consents",
        *columns,
        sa.Column("scope", sa.Text, nullable=False),
        sa.Column("granted_at", UTCDateTime, nullable=False),
        sa.PrimaryKeyConstraint(*(c.name for c in columns), name="pk_consents"),
    )


def _stage(select_sql):
    """Keep the rows `select_sql` reads, as they are stored, in a table without constraints, and
    drop the consents table, so that it can be made again under the same constraint names."""
    op.execute(f"CREATE TABLE {STAGED} AS {select_sql}")
    op.drop_table("consents")


def _unstage(columns):
    op.execute(f"INSERT INTO consents ({columns}) SELECT {columns} FROM {STAGED}")
    op.drop_table(STAGED)


def upgrade():
    _stage(
        "SELECT consents.person_id, consents.app_id, memberships.id AS membership_id, consents.scope,"
        " consents.granted_at FROM consents JOIN memberships ON memberships.person_id = consents.person_id"
        " WHERE (SELECT count(*) FROM memberships AS every WHERE every.person_id = consents.person_id) = 1"
    )
    _consents(per_membership=True)
    _unstage("person_id, app_id, membership_id, scope, granted_at")


def downgrade():
    # Where a person consented for several memberships, which one the old row would mean is unknown.
    _stage(
        "SELECT person_id, app_id, scope, granted_at FROM consents AS kept WHERE (SELECT count(*) FROM consents"
        " AS other WHERE other.person_id = kept.person_id AND other.app_id = kept.app_id) = 1"
    )
    _consents(per_membership=False)
    _unstage("person_id, app_id, scope, granted_at")
