"""Notices by mail: the notices each kept with its state, the events that fan out into them,
each person's choices, each city's daily pass claimed once a local day, and each city's
reminder window (exchange policy: 14 days).

Revision ID: 0034
Revises: 0032
Create Date: 2026-12-06
"""

import json

import sqlalchemy as sa
from alembic import op

revision = "0034"
down_revision = "0033"
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table("jurisdictions") as table:
        table.add_column(sa.Column("reminder_days", sa.Integer(), nullable=False, server_default="14"))
    op.create_table(
        "notices",
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("jurisdiction_id", sa.Uuid(), nullable=True),
        sa.Column("kind", sa.String(length=40), nullable=False),
        sa.Column("person_id", sa.Uuid(), nullable=True),
        sa.Column("recipient", sa.String(length=254), nullable=False),
        sa.Column("language", sa.String(length=5), nullable=False),
        sa.Column("subject", sa.Text(), nullable=False),
        sa.Column("body", sa.JSON(), nullable=False),
        sa.Column("dedupe_key", sa.String(length=200), nullable=True),
        sa.Column("state", sa.String(length=10), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("next_attempt_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("sent_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("last_error", sa.Text(), nullable=True),
        sa.CheckConstraint("state IN ('queued', 'sent', 'failed', 'bounced')", name=op.f("ck_notices_state")),
        sa.ForeignKeyConstraint(
            ["jurisdiction_id"], ["jurisdictions.id"], name=op.f("fk_notices_jurisdiction_id_jurisdictions")
        ),
        sa.ForeignKeyConstraint(["person_id"], ["people.id"], name=op.f("fk_notices_person_id_people")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_notices")),
        sa.UniqueConstraint("dedupe_key", name=op.f("uq_notices_dedupe_key")),
    )
    op.create_index("ix_notices_due", "notices", ["state", "next_attempt_at"])
    op.create_index("ix_notices_city", "notices", ["jurisdiction_id", "created_at"])
    op.create_table(
        "notice_events",
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("kind", sa.String(length=40), nullable=False),
        sa.Column("payload", sa.JSON(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("done_at", sa.DateTime(timezone=True), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_notice_events")),
    )
    op.create_index("ix_notice_events_pending", "notice_events", ["done_at"])
    op.create_table(
        "notice_preferences",
        sa.Column("address", sa.String(length=254), nullable=False),
        sa.Column("language", sa.String(length=5), nullable=False),
        sa.Column("muted", sa.JSON(), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("address", name=op.f("pk_notice_preferences")),
    )
    op.create_table(
        "notice_days",
        sa.Column("jurisdiction_id", sa.Uuid(), nullable=False),
        sa.Column("day", sa.Date(), nullable=False),
        sa.Column("claimed_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("queued", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["jurisdiction_id"], ["jurisdictions.id"], name=op.f("fk_notice_days_jurisdiction_id_jurisdictions")
        ),
        sa.PrimaryKeyConstraint("jurisdiction_id", "day", name=op.f("pk_notice_days")),
    )
    # Each city's rule table gains the reminder window, exchange policy in every preset.
    bind = op.get_bind()
    for row in bind.execute(sa.text("SELECT id, citations FROM jurisdictions")).mappings().all():
        citations = row["citations"]
        if isinstance(citations, str):
            citations = json.loads(citations)
        citations = dict(citations or {})
        citations.setdefault("reminder_days", "exchange policy")
        bind.execute(
            sa.text("UPDATE jurisdictions SET citations = :citations WHERE id = :id").bindparams(
                sa.bindparam("citations", type_=sa.JSON)
            ),
            {"citations": citations, "id": row["id"]},
        )


def downgrade():
    op.drop_table("notice_days")
    op.drop_table("notice_preferences")
    op.drop_index("ix_notice_events_pending", table_name="notice_events")
    op.drop_table("notice_events")
    op.drop_index("ix_notices_city", table_name="notices")
    op.drop_index("ix_notices_due", table_name="notices")
    op.drop_table("notices")
    with op.batch_alter_table("jurisdictions") as table:
        table.drop_column("reminder_days")
