"""Initial schema: registry, manifests, documents, OAuth clients and tokens, outbox.

Revision ID: 0001
Revises:
Create Date: 2026-12-02
"""

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        "disposal_sites",
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("name", sa.String(length=200), nullable=False),
        sa.Column("address", sa.String(length=300), nullable=False),
        sa.Column("facility_permit_number", sa.String(length=60), nullable=False),
        sa.Column("waste_types", sa.JSON(), nullable=False),
        sa.Column("approved_from", sa.Date(), nullable=False),
        sa.Column("approved_until", sa.Date(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_disposal_sites")),
        sa.UniqueConstraint("facility_permit_number", name=op.f("uq_disposal_sites_facility_permit_number")),
    )
    op.create_table(
        "haulers",
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("name", sa.String(length=200), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_haulers")),
    )
    op.create_table(
        "jurisdictions",
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("code", sa.String(length=40), nullable=False),
        sa.Column("name", sa.String(length=200), nullable=False),
        sa.Column("manifest_deadline_hours", sa.Integer(), nullable=False),
        sa.Column("retention_years", sa.Integer(), nullable=False),
        sa.Column("interceptor_default_frequency_days", sa.Integer(), nullable=False),
        sa.Column("interceptor_max_interval_days", sa.Integer(), nullable=True),
        sa.Column("trap_default_frequency_days", sa.Integer(), nullable=False),
        sa.Column("allowed_frequencies", sa.JSON(), nullable=False),
        sa.Column("twenty_five_percent_rule", sa.Float(), nullable=False),
        sa.Column("full_pump_min_ratio", sa.Float(), nullable=False),
        sa.Column("min_interceptor_gallons", sa.Integer(), nullable=True),
        sa.Column("grace_days", sa.Integer(), nullable=False),
        sa.Column("decant_return_allowed", sa.Boolean(), nullable=False),
        sa.Column("citations", sa.JSON(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_jurisdictions")),
        sa.UniqueConstraint("code", name=op.f("uq_jurisdictions_code")),
    )
    op.create_table(
        "outbox",
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("kind", sa.String(length=40), nullable=False),
        sa.Column("payload", sa.JSON(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("next_attempt_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("done_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("last_error", sa.Text(), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_outbox")),
    )
    with op.batch_alter_table("outbox", schema=None) as batch_op:
        batch_op.create_index("ix_outbox_pending", ["done_at", "next_attempt_at"], unique=False)

    op.create_table(
        "disposal_site_jurisdictions",
        sa.Column("site_id", sa.Uuid(), nullable=False),
        sa.Column("jurisdiction_id", sa.Uuid(), nullable=False),
        sa.ForeignKeyConstraint(
            ["jurisdiction_id"],
            ["jurisdictions.id"],
            name=op.f("fk_disposal_site_jurisdictions_jurisdiction_id_jurisdictions"),
        ),
        sa.ForeignKeyConstraint(
            ["site_id"], ["disposal_sites.id"], name=op.f("fk_disposal_site_jurisdictions_site_id_disposal_sites")
        ),
        sa.PrimaryKeyConstraint("site_id", "jurisdiction_id", name=op.f("pk_disposal_site_jurisdictions")),
    )
    op.create_table(
        "disposal_site_status_changes",
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("site_id", sa.Uuid(), nullable=False),
        sa.Column("status", sa.String(length=20), nullable=False),
        sa.Column("effective_on", sa.Date(), nullable=False),
        sa.Column("reason", sa.Text(), nullable=True),
        sa.Column("recorded_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint(
            "status IN ('approved', 'suspended', 'closed')", name=op.f("ck_disposal_site_status_changes_status")
        ),
        sa.ForeignKeyConstraint(
            ["site_id"], ["disposal_sites.id"], name=op.f("fk_disposal_site_status_changes_site_id_disposal_sites")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_disposal_site_status_changes")),
    )
    with op.batch_alter_table("disposal_site_status_changes", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_disposal_site_status_changes_site_id"), ["site_id"], unique=False)

    op.create_table(
        "fses",
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("jurisdiction_id", sa.Uuid(), nullable=False),
        sa.Column("name", sa.String(length=200), nullable=False),
        sa.Column("address", sa.String(length=300), nullable=False),
        sa.Column("apn", sa.String(length=40), nullable=False),
        sa.Column("operator_name", sa.String(length=200), nullable=False),
        sa.Column("operator_email", sa.String(length=254), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["jurisdiction_id"], ["jurisdictions.id"], name=op.f("fk_fses_jurisdiction_id_jurisdictions")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_fses")),
        sa.UniqueConstraint("jurisdiction_id", "apn", "name", name=op.f("uq_fses_jurisdiction_id")),
    )
    with op.batch_alter_table("fses", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_fses_jurisdiction_id"), ["jurisdiction_id"], unique=False)

    op.create_table(
        "hauler_licences",
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("hauler_id", sa.Uuid(), nullable=False),
        sa.Column("licence_number", sa.String(length=60), nullable=False),
        sa.Column("expires_on", sa.Date(), nullable=False),
        sa.Column("effective_on", sa.Date(), nullable=False),
        sa.Column("status", sa.String(length=20), nullable=False),
        sa.Column("recorded_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint(
            "status IN ('valid', 'lapsed', 'suspended', 'revoked')", name=op.f("ck_hauler_licences_status")
        ),
        sa.ForeignKeyConstraint(["hauler_id"], ["haulers.id"], name=op.f("fk_hauler_licences_hauler_id_haulers")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_hauler_licences")),
    )
    with op.batch_alter_table("hauler_licences", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_hauler_licences_hauler_id"), ["hauler_id"], unique=False)

    op.create_table(
        "hauler_registrations",
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("hauler_id", sa.Uuid(), nullable=False),
        sa.Column("jurisdiction_id", sa.Uuid(), nullable=False),
        sa.Column("registered_on", sa.Date(), nullable=False),
        sa.Column("ended_on", sa.Date(), nullable=True),
        sa.Column("recorded_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["hauler_id"], ["haulers.id"], name=op.f("fk_hauler_registrations_hauler_id_haulers")),
        sa.ForeignKeyConstraint(
            ["jurisdiction_id"],
            ["jurisdictions.id"],
            name=op.f("fk_hauler_registrations_jurisdiction_id_jurisdictions"),
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_hauler_registrations")),
    )
    with op.batch_alter_table("hauler_registrations", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_hauler_registrations_hauler_id"), ["hauler_id"], unique=False)

    op.create_table(
        "oauth_clients",
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("client_id", sa.String(length=64), nullable=False),
        sa.Column("secret_sha256", sa.String(length=64), nullable=False),
        sa.Column("name", sa.String(length=200), nullable=False),
        sa.Column("role", sa.String(length=20), nullable=False),
        sa.Column("hauler_id", sa.Uuid(), nullable=True),
        sa.Column("jurisdiction_id", sa.Uuid(), nullable=True),
        sa.Column("scope", sa.Text(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("secret_rotated_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("revoked_at", sa.DateTime(timezone=True), nullable=True),
        sa.CheckConstraint(
            "(role = 'hauler' AND hauler_id IS NOT NULL AND jurisdiction_id IS NULL) OR (role = 'fse' AND hauler_id IS NULL AND jurisdiction_id IS NULL) OR (role IN ('auditor', 'admin') AND jurisdiction_id IS NOT NULL AND hauler_id IS NULL)",
            name=op.f("ck_oauth_clients_one_subject"),
        ),
        sa.CheckConstraint("role IN ('hauler', 'fse', 'auditor', 'admin')", name=op.f("ck_oauth_clients_role")),
        sa.ForeignKeyConstraint(["hauler_id"], ["haulers.id"], name=op.f("fk_oauth_clients_hauler_id_haulers")),
        sa.ForeignKeyConstraint(
            ["jurisdiction_id"], ["jurisdictions.id"], name=op.f("fk_oauth_clients_jurisdiction_id_jurisdictions")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_oauth_clients")),
        sa.UniqueConstraint("client_id", name=op.f("uq_oauth_clients_client_id")),
    )
    op.create_table(
        "vehicles",
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("hauler_id", sa.Uuid(), nullable=False),
        sa.Column("vehicle_id", sa.String(length=60), nullable=False),
        sa.Column("tank_capacity_gallons", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint("tank_capacity_gallons > 0", name=op.f("ck_vehicles_tank_positive")),
        sa.ForeignKeyConstraint(["hauler_id"], ["haulers.id"], name=op.f("fk_vehicles_hauler_id_haulers")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_vehicles")),
        sa.UniqueConstraint("hauler_id", "vehicle_id", name=op.f("uq_vehicles_hauler_id")),
    )
    op.create_table(
        "idempotency_records",
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("client_id", sa.Uuid(), nullable=False),
        sa.Column("key", sa.String(length=200), nullable=False),
        sa.Column("request_sha256", sa.String(length=64), nullable=False),
        sa.Column("state", sa.String(length=20), nullable=False),
        sa.Column("response_status", sa.Integer(), nullable=True),
        sa.Column("response_body", sa.JSON(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["client_id"], ["oauth_clients.id"], name=op.f("fk_idempotency_records_client_id_oauth_clients")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_idempotency_records")),
        sa.UniqueConstraint("client_id", "key", name=op.f("uq_idempotency_records_client_id")),
    )
    op.create_table(
        "oauth_client_fses",
        sa.Column("client_id", sa.Uuid(), nullable=False),
        sa.Column("fse_id", sa.Uuid(), nullable=False),
        sa.ForeignKeyConstraint(
            ["client_id"], ["oauth_clients.id"], name=op.f("fk_oauth_client_fses_client_id_oauth_clients")
        ),
        sa.ForeignKeyConstraint(["fse_id"], ["fses.id"], name=op.f("fk_oauth_client_fses_fse_id_fses")),
        sa.PrimaryKeyConstraint("client_id", "fse_id", name=op.f("pk_oauth_client_fses")),
    )
    op.create_table(
        "oauth_tokens",
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("client_id", sa.Uuid(), nullable=False),
        sa.Column("token_sha256", sa.String(length=64), nullable=False),
        sa.Column("scope", sa.Text(), nullable=False),
        sa.Column("issued_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("revoked_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(
            ["client_id"], ["oauth_clients.id"], name=op.f("fk_oauth_tokens_client_id_oauth_clients")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_oauth_tokens")),
        sa.UniqueConstraint("token_sha256", name=op.f("uq_oauth_tokens_token_sha256")),
    )
    with op.batch_alter_table("oauth_tokens", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_oauth_tokens_client_id"), ["client_id"], unique=False)

    op.create_table(
        "permits",
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("jurisdiction_id", sa.Uuid(), nullable=False),
        sa.Column("fse_id", sa.Uuid(), nullable=False),
        sa.Column("permit_number", sa.String(length=60), nullable=False),
        sa.Column("kind", sa.String(length=20), nullable=False),
        sa.Column("issued_on", sa.Date(), nullable=False),
        sa.Column("expires_on", sa.Date(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint("kind IN ('interim', 'regular', 'variance', 'waiver')", name=op.f("ck_permits_kind")),
        sa.CheckConstraint("expires_on > issued_on", name=op.f("ck_permits_expiry_after_issue")),
        sa.ForeignKeyConstraint(["fse_id"], ["fses.id"], name=op.f("fk_permits_fse_id_fses")),
        sa.ForeignKeyConstraint(
            ["jurisdiction_id"], ["jurisdictions.id"], name=op.f("fk_permits_jurisdiction_id_jurisdictions")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_permits")),
        sa.UniqueConstraint("jurisdiction_id", "permit_number", name=op.f("uq_permits_jurisdiction_id")),
    )
    with op.batch_alter_table("permits", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_permits_fse_id"), ["fse_id"], unique=False)

    op.create_table(
        "devices",
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("fse_id", sa.Uuid(), nullable=False),
        sa.Column("permit_id", sa.Uuid(), nullable=False),
        sa.Column("tag", sa.String(length=40), nullable=False),
        sa.Column("kind", sa.String(length=20), nullable=False),
        sa.Column("capacity_gallons", sa.Integer(), nullable=False),
        sa.Column("liquid_depth_in", sa.Float(), nullable=False),
        sa.Column("frequency_days", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint("kind IN ('interceptor', 'trap')", name=op.f("ck_devices_kind")),
        sa.CheckConstraint("capacity_gallons > 0", name=op.f("ck_devices_capacity_positive")),
        sa.CheckConstraint("frequency_days > 0", name=op.f("ck_devices_frequency_positive")),
        sa.CheckConstraint("liquid_depth_in > 0", name=op.f("ck_devices_depth_positive")),
        sa.ForeignKeyConstraint(["fse_id"], ["fses.id"], name=op.f("fk_devices_fse_id_fses")),
        sa.ForeignKeyConstraint(["permit_id"], ["permits.id"], name=op.f("fk_devices_permit_id_permits")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_devices")),
        sa.UniqueConstraint("fse_id", "tag", name=op.f("uq_devices_fse_id")),
    )
    with op.batch_alter_table("devices", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_devices_permit_id"), ["permit_id"], unique=False)

    op.create_table(
        "permit_status_changes",
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("permit_id", sa.Uuid(), nullable=False),
        sa.Column("status", sa.String(length=20), nullable=False),
        sa.Column("effective_on", sa.Date(), nullable=False),
        sa.Column("reason", sa.Text(), nullable=True),
        sa.Column("recorded_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint(
            "status IN ('active', 'suspended', 'revoked', 'expired')", name=op.f("ck_permit_status_changes_status")
        ),
        sa.ForeignKeyConstraint(["permit_id"], ["permits.id"], name=op.f("fk_permit_status_changes_permit_id_permits")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_permit_status_changes")),
    )
    with op.batch_alter_table("permit_status_changes", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_permit_status_changes_permit_id"), ["permit_id"], unique=False)

    op.create_table(
        "manifests",
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("hauler_id", sa.Uuid(), nullable=False),
        sa.Column("manifest_number", sa.String(length=60), nullable=False),
        sa.Column("jurisdiction_id", sa.Uuid(), nullable=False),
        sa.Column("fse_id", sa.Uuid(), nullable=False),
        sa.Column("device_id", sa.Uuid(), nullable=False),
        sa.Column("permit_id", sa.Uuid(), nullable=False),
        sa.Column("current_revision", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["device_id"], ["devices.id"], name=op.f("fk_manifests_device_id_devices")),
        sa.ForeignKeyConstraint(["fse_id"], ["fses.id"], name=op.f("fk_manifests_fse_id_fses")),
        sa.ForeignKeyConstraint(["hauler_id"], ["haulers.id"], name=op.f("fk_manifests_hauler_id_haulers")),
        sa.ForeignKeyConstraint(
            ["jurisdiction_id"], ["jurisdictions.id"], name=op.f("fk_manifests_jurisdiction_id_jurisdictions")
        ),
        sa.ForeignKeyConstraint(["permit_id"], ["permits.id"], name=op.f("fk_manifests_permit_id_permits")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_manifests")),
        sa.UniqueConstraint("hauler_id", "manifest_number", name=op.f("uq_manifests_hauler_id")),
    )
    with op.batch_alter_table("manifests", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_manifests_device_id"), ["device_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_manifests_fse_id"), ["fse_id"], unique=False)
        batch_op.create_index("ix_manifests_jurisdiction_created", ["jurisdiction_id", "created_at"], unique=False)

    op.create_table(
        "documents",
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("manifest_id", sa.Uuid(), nullable=False),
        sa.Column("sha256", sa.String(length=64), nullable=False),
        sa.Column("size_bytes", sa.Integer(), nullable=False),
        sa.Column("content_type", sa.String(length=40), nullable=False),
        sa.Column("object_key", sa.String(length=200), nullable=False),
        sa.Column("filename", sa.String(length=255), nullable=True),
        sa.Column("uploaded_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("retained_until", sa.Date(), nullable=True),
        sa.ForeignKeyConstraint(["manifest_id"], ["manifests.id"], name=op.f("fk_documents_manifest_id_manifests")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_documents")),
    )
    with op.batch_alter_table("documents", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_documents_manifest_id"), ["manifest_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_documents_sha256"), ["sha256"], unique=False)

    op.create_table(
        "legal_holds",
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("fse_id", sa.Uuid(), nullable=True),
        sa.Column("manifest_id", sa.Uuid(), nullable=True),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.Column("placed_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("released_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(["fse_id"], ["fses.id"], name=op.f("fk_legal_holds_fse_id_fses")),
        sa.ForeignKeyConstraint(["manifest_id"], ["manifests.id"], name=op.f("fk_legal_holds_manifest_id_manifests")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_legal_holds")),
    )
    op.create_table(
        "manifest_revisions",
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("manifest_id", sa.Uuid(), nullable=False),
        sa.Column("revision", sa.Integer(), nullable=False),
        sa.Column("body", sa.JSON(), nullable=False),
        sa.Column("sha256", sa.String(length=64), nullable=False),
        sa.Column("previous_sha256", sa.String(length=64), nullable=True),
        sa.Column("reason", sa.Text(), nullable=True),
        sa.Column("received_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("submitted_by_client_id", sa.Uuid(), nullable=True),
        sa.Column("device_id", sa.Uuid(), nullable=False),
        sa.Column("service_started_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("service_completed_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("waste_type", sa.String(length=40), nullable=False),
        sa.Column("gallons_removed", sa.Integer(), nullable=False),
        sa.Column("decant_returned_gallons", sa.Integer(), nullable=False),
        sa.Column("full_pump_down", sa.Boolean(), nullable=False),
        sa.Column("vehicle_id", sa.String(length=60), nullable=False),
        sa.Column("disposal_site_id", sa.Uuid(), nullable=True),
        sa.Column("disposal_ticket_number", sa.String(length=60), nullable=True),
        sa.Column("disposal_delivered_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("disposal_gallons_delivered", sa.Integer(), nullable=True),
        sa.Column("qualifying", sa.Boolean(), nullable=False),
        sa.ForeignKeyConstraint(["device_id"], ["devices.id"], name=op.f("fk_manifest_revisions_device_id_devices")),
        sa.ForeignKeyConstraint(
            ["manifest_id"], ["manifests.id"], name=op.f("fk_manifest_revisions_manifest_id_manifests")
        ),
        sa.ForeignKeyConstraint(
            ["submitted_by_client_id"],
            ["oauth_clients.id"],
            name=op.f("fk_manifest_revisions_submitted_by_client_id_oauth_clients"),
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_manifest_revisions")),
        sa.UniqueConstraint("manifest_id", "revision", name=op.f("uq_manifest_revisions_manifest_id")),
    )
    with op.batch_alter_table("manifest_revisions", schema=None) as batch_op:
        batch_op.create_index("ix_revisions_device_completed", ["device_id", "service_completed_at"], unique=False)
        batch_op.create_index("ix_revisions_ticket", ["disposal_site_id", "disposal_ticket_number"], unique=False)

    op.create_table(
        "findings",
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("revision_id", sa.Uuid(), nullable=False),
        sa.Column("code", sa.String(length=40), nullable=False),
        sa.Column("severity", sa.String(length=10), nullable=False),
        sa.Column("message", sa.Text(), nullable=False),
        sa.Column("citation", sa.String(length=200), nullable=False),
        sa.Column("raised_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("cleared_at", sa.DateTime(timezone=True), nullable=True),
        sa.CheckConstraint("severity IN ('violation', 'warning')", name=op.f("ck_findings_severity")),
        sa.ForeignKeyConstraint(
            ["revision_id"], ["manifest_revisions.id"], name=op.f("fk_findings_revision_id_manifest_revisions")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_findings")),
    )
    with op.batch_alter_table("findings", schema=None) as batch_op:
        batch_op.create_index("ix_findings_code_raised", ["code", "raised_at"], unique=False)
        batch_op.create_index(batch_op.f("ix_findings_revision_id"), ["revision_id"], unique=False)


def downgrade():
    with op.batch_alter_table("findings", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_findings_revision_id"))
        batch_op.drop_index("ix_findings_code_raised")

    op.drop_table("findings")
    with op.batch_alter_table("manifest_revisions", schema=None) as batch_op:
        batch_op.drop_index("ix_revisions_ticket")
        batch_op.drop_index("ix_revisions_device_completed")

    op.drop_table("manifest_revisions")
    op.drop_table("legal_holds")
    with op.batch_alter_table("documents", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_documents_sha256"))
        batch_op.drop_index(batch_op.f("ix_documents_manifest_id"))

    op.drop_table("documents")
    with op.batch_alter_table("manifests", schema=None) as batch_op:
        batch_op.drop_index("ix_manifests_jurisdiction_created")
        batch_op.drop_index(batch_op.f("ix_manifests_fse_id"))
        batch_op.drop_index(batch_op.f("ix_manifests_device_id"))

    op.drop_table("manifests")
    with op.batch_alter_table("permit_status_changes", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_permit_status_changes_permit_id"))

    op.drop_table("permit_status_changes")
    with op.batch_alter_table("devices", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_devices_permit_id"))

    op.drop_table("devices")
    with op.batch_alter_table("permits", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_permits_fse_id"))

    op.drop_table("permits")
    with op.batch_alter_table("oauth_tokens", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_oauth_tokens_client_id"))

    op.drop_table("oauth_tokens")
    op.drop_table("oauth_client_fses")
    op.drop_table("idempotency_records")
    op.drop_table("vehicles")
    op.drop_table("oauth_clients")
    with op.batch_alter_table("hauler_registrations", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_hauler_registrations_hauler_id"))

    op.drop_table("hauler_registrations")
    with op.batch_alter_table("hauler_licences", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_hauler_licences_hauler_id"))

    op.drop_table("hauler_licences")
    with op.batch_alter_table("fses", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_fses_jurisdiction_id"))

    op.drop_table("fses")
    with op.batch_alter_table("disposal_site_status_changes", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_disposal_site_status_changes_site_id"))

    op.drop_table("disposal_site_status_changes")
    op.drop_table("disposal_site_jurisdictions")
    with op.batch_alter_table("outbox", schema=None) as batch_op:
        batch_op.drop_index("ix_outbox_pending")

    op.drop_table("outbox")
    op.drop_table("jurisdictions")
    op.drop_table("haulers")
    op.drop_table("disposal_sites")
