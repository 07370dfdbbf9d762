"""People sign in: accounts, memberships, invitations, second factors, the apps they sign in
through, what those sign-ins issued, who filed each revision and who read each record.

Revision ID: 0019
Revises: 0018
Create Date: 2026-12-05
"""

import sqlalchemy as sa
from alembic import op

revision = "0019"
down_revision = "0018"
branch_labels = None
depends_on = None

UTCDateTime = sa.DateTime(timezone=True)


def _id():
    return sa.Column("id", sa.Uuid, primary_key=True)


def _created(name="created_at"):
    return sa.Column(name, UTCDateTime, nullable=False)


def _fk(name, target, nullable=True, **kw):
    return sa.Column(name, sa.Uuid, sa.ForeignKey(f"{target}.id"), nullable=nullable, **kw)


def upgrade():
    op.create_table(
        "people",
        _id(),
        sa.Column("email", sa.String(254), nullable=False, unique=True),
        sa.Column("name", sa.String(200), nullable=False),
        sa.Column("password_hash", sa.String(200)),
        sa.Column("status", sa.String(20), nullable=False),
        sa.Column("failed_sign_ins", sa.Integer, nullable=False),
        sa.Column("locked_until", UTCDateTime),
        sa.Column("password_changed_at", UTCDateTime),
        sa.Column("totp_secret", sa.String(64)),
        sa.Column("totp_enabled_at", UTCDateTime),
        _created(),
        sa.CheckConstraint("status IN ('active', 'disabled')", name="status"),
    )
    op.create_table(
        "memberships",
        _id(),
        _fk("person_id", "people", False, index=True),
        sa.Column("organisation", sa.String(20), nullable=False),
        sa.Column("role", sa.String(20), nullable=False),
        _fk("hauler_id", "haulers", index=True),
        _fk("jurisdiction_id", "jurisdictions", index=True),
        _fk("site_id", "disposal_sites", index=True),
        _fk("principal_id", "oauth_clients", False, unique=True),
        _fk("invited_by_client_id", "oauth_clients"),
        _created(),
        sa.Column("removed_at", UTCDateTime),
        _fk("removed_by_client_id", "oauth_clients"),
        sa.CheckConstraint("organisation IN ('hauler', 'restaurant', 'city', 'site')", name="organisation"),
        sa.CheckConstraint(
            "(organisation = 'hauler' AND role IN ('dispatcher', 'driver', 'admin'))"
            " OR (organisation = 'restaurant' AND role IN ('operator', 'admin'))"
            " OR (organisation = 'city' AND role IN ('auditor', 'admin'))"
            " OR (organisation = 'site' AND role = 'clerk')",
            name="role",
        ),
    )
    op.create_table(
        "invitations",
        _id(),
        sa.Column("email", sa.String(254), nullable=False, index=True),
        sa.Column("organisation", sa.String(20), nullable=False),
        sa.Column("role", sa.String(20), nullable=False),
        _fk("hauler_id", "haulers"),
        _fk("jurisdiction_id", "jurisdictions"),
        _fk("site_id", "disposal_sites"),
        sa.Column("fse_ids", sa.JSON, nullable=False),
        sa.Column("token_sha256", sa.String(64), nullable=False, unique=True),
        _fk("invited_by_client_id", "oauth_clients", False),
        _fk("invited_by_person_id", "people"),
        _created(),
        sa.Column("expires_at", UTCDateTime, nullable=False),
        sa.Column("accepted_at", UTCDateTime),
        _fk("membership_id", "memberships"),
    )
    op.create_table(
        "password_resets",
        _id(),
        _fk("person_id", "people", False, index=True),
        sa.Column("token_sha256", sa.String(64), nullable=False, unique=True),
        _created(),
        sa.Column("expires_at", UTCDateTime, nullable=False),
        sa.Column("used_at", UTCDateTime),
    )
    op.create_table(
        "recovery_codes",
        _id(),
        _fk("person_id", "people", False, index=True),
        sa.Column("code_sha256", sa.String(64), nullable=False),
        _created(),
        sa.Column("used_at", UTCDateTime),
    )
    op.create_table(
        "sign_in_policies",
        sa.Column("jurisdiction_id", sa.Uuid, sa.ForeignKey("jurisdictions.id"), primary_key=True),
        sa.Column("staff_totp_required", sa.Boolean, nullable=False),
        _created("updated_at"),
    )
    op.create_table(
        "oauth_apps",
        _id(),
        sa.Column("client_id", sa.String(64), nullable=False, unique=True),
        sa.Column("secret_sha256", sa.String(64)),
        sa.Column("name", sa.String(200), nullable=False),
        sa.Column("redirect_uris", sa.JSON, nullable=False),
        sa.Column("first_party", sa.Boolean, nullable=False),
        sa.Column("scope", sa.Text, nullable=False),
        _created(),
        sa.Column("revoked_at", UTCDateTime),
    )
    op.create_table(
        "sign_ins",
        _id(),
        _fk("person_id", "people", False, index=True),
        _fk("membership_id", "memberships", False, index=True),
        _fk("app_id", "oauth_apps", False),
        sa.Column("scope", sa.Text, nullable=False),
        sa.Column("auth_time", UTCDateTime, nullable=False),
        sa.Column("amr", sa.JSON, nullable=False),
        _created(),
        sa.Column("revoked_at", UTCDateTime),
        sa.Column("revoked_reason", sa.String(40)),
    )
    op.create_table(
        "authorization_codes",
        _id(),
        sa.Column("code_sha256", sa.String(64), nullable=False, unique=True),
        _fk("app_id", "oauth_apps", False),
        _fk("person_id", "people", False),
        _fk("membership_id", "memberships", False),
        sa.Column("redirect_uri", sa.String(2000), nullable=False),
        sa.Column("scope", sa.Text, nullable=False),
        sa.Column("nonce", sa.String(255)),
        sa.Column("code_challenge", sa.String(128), nullable=False),
        sa.Column("code_challenge_method", sa.String(10), nullable=False),
        sa.Column("auth_time", UTCDateTime, nullable=False),
        sa.Column("amr", sa.JSON, nullable=False),
        _created(),
        sa.Column("expires_at", UTCDateTime, nullable=False),
        sa.Column("used_at", UTCDateTime),
        _fk("sign_in_id", "sign_ins"),
    )
    op.create_table(
        "refresh_tokens",
        _id(),
        _fk("sign_in_id", "sign_ins", False, index=True),
        sa.Column("token_sha256", sa.String(64), nullable=False, unique=True),
        _created("issued_at"),
        sa.Column("expires_at", UTCDateTime, nullable=False),
        sa.Column("used_at", UTCDateTime),
    )
    op.create_table(
        "consents",
        sa.Column("person_id", sa.Uuid, sa.ForeignKey("people.id"), primary_key=True),
        sa.Column("app_id", sa.Uuid, sa.ForeignKey("oauth_apps.id"), primary_key=True),
        sa.Column("scope", sa.Text, nullable=False),
        _created("granted_at"),
    )
    op.create_table(
        "record_reads",
        _id(),
        _fk("fse_id", "fses", False),
        _fk("client_id", "oauth_clients", False),
        _fk("person_id", "people"),
        sa.Column("format", sa.String(10), nullable=False),
        sa.Column("period_from", sa.Date, nullable=False),
        sa.Column("period_to", sa.Date, nullable=False),
        _created("read_at"),
    )
    op.create_index("ix_record_reads_fse_read", "record_reads", ["fse_id", "read_at"])
    with op.batch_alter_table("oauth_tokens") as table:
        table.add_column(
            sa.Column("person_id", sa.Uuid, sa.ForeignKey("people.id", name="fk_oauth_tokens_person_id_people"))
        )
        table.add_column(
            sa.Column("sign_in_id", sa.Uuid, sa.ForeignKey("sign_ins.id", name="fk_oauth_tokens_sign_in_id_sign_ins"))
        )
        table.create_index("ix_oauth_tokens_sign_in_id", ["sign_in_id"])
    with op.batch_alter_table("manifest_revisions") as table:
        table.add_column(
            sa.Column(
                "submitted_by_person_id",
                sa.Uuid,
                sa.ForeignKey("people.id", name="fk_manifest_revisions_submitted_by_person_id_people"),
            )
        )
        table.add_column(sa.Column("certification", sa.JSON))


def downgrade():
    with op.batch_alter_table("manifest_revisions") as table:
        table.drop_constraint("fk_manifest_revisions_submitted_by_person_id_people", type_="foreignkey")
        table.drop_column("certification")
        table.drop_column("submitted_by_person_id")
    with op.batch_alter_table("oauth_tokens") as table:
        table.drop_index("ix_oauth_tokens_sign_in_id")
        table.drop_constraint("fk_oauth_tokens_sign_in_id_sign_ins", type_="foreignkey")
        table.drop_constraint("fk_oauth_tokens_person_id_people", type_="foreignkey")
        table.drop_column("sign_in_id")
        table.drop_column("person_id")
    op.drop_index("ix_record_reads_fse_read", "record_reads")
    for name in (
        "record_reads",
        "consents",
        "refresh_tokens",
        "authorization_codes",
        "sign_ins",
        "oauth_apps",
        "sign_in_policies",
        "recovery_codes",
        "password_resets",
        "invitations",
        "memberships",
        "people",
    ):
        op.drop_table(name)
