"""Each revision names who pumped and where the load went as the registry named them at
filing (Victorville 10.03.170(c): records of waste haulers and disposal site locations), and a
site's receipt is one ticket on one local day (a site may number a ticket again another day).

Revisions filed before are given the names the registry gives now: the hauler's name, the
licence it held on the service's local date (as recorded by the filing where the registry can
tell; else its latest), the site's name and address. Receipts are dated on the local day of their site's city.

Revision ID: 0014
Revises: 0013
Create Date: 2026-12-05
"""

from datetime import UTC, datetime
from zoneinfo import ZoneInfo

import sqlalchemy as sa
from alembic import op

revision = "0014"
down_revision = "0013"
branch_labels = None
depends_on = None

DEFAULT_ZONE = "America/Los_Angeles"


def _sqlite_local_date(stamp, zone):
    if stamp is None:
        return None
    instant = datetime.fromisoformat(stamp).replace(tzinfo=UTC)
    return instant.astimezone(ZoneInfo(zone or DEFAULT_ZONE)).date().isoformat()


def _local_date(instant, zone):
    """SQL for the local date of a UTC timestamp in a time zone (SQLite: a function of this
    migration's own, given to its connection)."""
    bind = op.get_bind()
    if bind.dialect.name == "postgresql":
        return f"CAST(({instant}) AT TIME ZONE ({zone}) AS DATE)"
    bind.connection.dbapi_connection.create_function("fogx_0014_local_date", 2, _sqlite_local_date)
    return f"fogx_0014_local_date({instant}, {zone})"


def _licence(conditions):
    return (
        f"(SELECT l.licence_number FROM hauler_licences l JOIN manifests m ON m.hauler_id = l.hauler_id"
        f" WHERE m.id = manifest_revisions.manifest_id{conditions}"
        f" ORDER BY l.effective_on DESC, l.recorded_at DESC LIMIT 1)"
    )


def upgrade():
    with op.batch_alter_table("manifest_revisions") as table:
        table.add_column(sa.Column("hauler_name", sa.String(200), nullable=True))
        table.add_column(sa.Column("hauler_licence_number", sa.String(60), nullable=True))
        table.add_column(sa.Column("disposal_site_name", sa.String(200), nullable=True))
        table.add_column(sa.Column("disposal_site_address", sa.String(300), nullable=True))
    service_day = _local_date(
        "manifest_revisions.service_completed_at",
        "(SELECT j.time_zone FROM jurisdictions j JOIN manifests m ON m.jurisdiction_id = j.id"
        " WHERE m.id = manifest_revisions.manifest_id)",
    )
    in_force = f" AND l.effective_on <= {service_day}"
    by_filing = " AND l.recorded_at <= manifest_revisions.received_at"
    op.execute(
        "UPDATE manifest_revisions SET"
        " hauler_name = (SELECT h.name FROM haulers h JOIN manifests m ON m.hauler_id = h.id"
        "                WHERE m.id = manifest_revisions.manifest_id),"
        f" hauler_licence_number = COALESCE({_licence(in_force + by_filing)}, {_licence(in_force)}, {_licence('')}),"
        " disposal_site_name = (SELECT s.name FROM disposal_sites s WHERE s.id = manifest_revisions.disposal_site_id),"
        " disposal_site_address = (SELECT s.address FROM disposal_sites s"
        "                          WHERE s.id = manifest_revisions.disposal_site_id)"
    )

    with op.batch_alter_table("disposal_receipts") as table:
        table.add_column(sa.Column("received_on", sa.Date(), nullable=True))
    site_zone = (
        "COALESCE((SELECT MIN(j.time_zone) FROM disposal_site_jurisdictions sj"
        " JOIN jurisdictions j ON j.id = sj.jurisdiction_id"
        f" WHERE sj.site_id = disposal_receipts.site_id), '{DEFAULT_ZONE}')"
    )
    op.execute(f"UPDATE disposal_receipts SET received_on = {_local_date('disposal_receipts.received_at', site_zone)}")
    with op.batch_alter_table("disposal_receipts") as table:
        table.alter_column("received_on", existing_type=sa.Date(), nullable=False)
        table.drop_constraint(op.f("uq_disposal_receipts_site_id"), type_="unique")
        table.create_unique_constraint(
            op.f("uq_disposal_receipts_site_id"), ["site_id", "ticket_number", "received_on"]
        )


def downgrade():
    reused = (
        op.get_bind()
        .execute(
            sa.text(
                "SELECT site_id, ticket_number FROM disposal_receipts GROUP BY site_id, ticket_number"
                " HAVING COUNT(*) > 1"
            )
        )
        .first()
    )
    if reused is not None:
        raise RuntimeError(
            f"a site numbered ticket {reused.ticket_number} on two days: before 0014 a "
            "ticket was one receipt, and no receipt is deleted"
        )
    with op.batch_alter_table("disposal_receipts") as table:
        table.drop_constraint(op.f("uq_disposal_receipts_site_id"), type_="unique")
        table.create_unique_constraint(op.f("uq_disposal_receipts_site_id"), ["site_id", "ticket_number"])
        table.drop_column("received_on")
    with op.batch_alter_table("manifest_revisions") as table:
        for column in ("disposal_site_address", "disposal_site_name", "hauler_licence_number", "hauler_name"):
            table.drop_column(column)
