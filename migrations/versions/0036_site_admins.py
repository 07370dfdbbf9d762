"""A disposal site has admins of its own, who invite and remove the site's clerks (as a
hauler's admin does its staff).

Revision ID: 0033_site_admins
Revises: 0032
Create Date: 2026-12-06
"""

from alembic import op

revision = "0036"
down_revision = "0035"
branch_labels = None
depends_on = None


def _roles(site_roles):
    return (
        "(organisation = 'hauler' AND role IN ('dispatcher', 'driver', 'admin'))"
        " OR (organisation = 'restaurant' AND role IN ('operator', 'admin'))"
        " OR (organisation = 'city' AND role IN ('auditor', 'admin'))"
        f" OR (organisation = 'site' AND role IN ({site_roles}))"
    )


def _role_rule(rule):
    with op.batch_alter_table("memberships") as table:
        table.drop_constraint(op.f("ck_memberships_role"), type_="check")
        table.create_check_constraint(op.f("ck_memberships_role"), rule)


def upgrade():
    _role_rule(_roles("'clerk', 'admin'"))


def downgrade():
    # A site's admins become its clerks again: no one loses the site, and no one keeps a role it lacks.
    for table in ("memberships", "invitations"):
        op.execute(f"UPDATE {table} SET role = 'clerk' WHERE organisation = 'site' AND role = 'admin'")
    _role_rule(_roles("'clerk'"))
