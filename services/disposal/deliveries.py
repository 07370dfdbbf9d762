"""A disposal site's clerk and the deliveries haulers say they brought: each manifest naming
the site, with whether the site has received it (a receipt of its ticket that local day) or
disputes it. A dispute is kept as sent, never changed; the city's reconciliation shows it."""

import uuid

from sqlalchemy import String, and_, literal, or_, select, true

from domain.clock import now as clock_now
from domain.reconcile import AWAITING, DISPUTED, RECEIVED
from services.disposal.receipts import site_zone, speaking_for
from services.errors import NotFound
from services.registry.fses import decode_cursor, encode_cursor
from storage import notice_models, reach
from storage.disputes import DeliveryDispute
from storage.localtime import local_date as sql_local_date
from storage.models import DisposalReceipt, Manifest, ManifestRevision

STATES = (AWAITING, RECEIVED, DISPUTED)


def _receipt_of(zone, principal):
    """The site's receipt of the revision's ticket on its local day of delivery (for a clerk a
    city scoped, one that speaks for that city)."""
    revision = ManifestRevision
    city = reach.city_scope(principal)
    return and_(
        DisposalReceipt.site_id == revision.disposal_site_id,
        DisposalReceipt.ticket_number == revision.disposal_ticket_number,
        DisposalReceipt.received_on == sql_local_date(revision.disposal_delivered_at, zone),
        true() if city is None else DisposalReceipt.submitted_by_client_id.in_(speaking_for(city)),
    )


def _disputed():
    return (
        select(DeliveryDispute.id)
        .where(DeliveryDispute.manifest_id == Manifest.id, DeliveryDispute.site_id == ManifestRevision.disposal_site_id)
        .exists()
    )


def listing(session, principal, *, state=None, cursor=None, limit=50):
    """The manifests whose revision in force names the principal's site, the latest delivered first, each
    with the site's receipt (if any), its disputes and its state; and the next cursor."""
    zone = literal(site_zone(session, principal.site_id) or "UTC", String)
    revision = ManifestRevision
    query = (
        select(Manifest, revision, DisposalReceipt)
        .join(revision, and_(revision.manifest_id == Manifest.id, revision.revision == Manifest.current_revision))
        .outerjoin(DisposalReceipt, _receipt_of(zone, principal))
        .where(revision.disposal_site_id == principal.site_id, reach.in_scope(principal, Manifest.jurisdiction_id))
    )
    if state == DISPUTED:
        query = query.where(_disputed())
    elif state == RECEIVED:
        query = query.where(~_disputed(), DisposalReceipt.id.is_not(None))
    elif state == AWAITING:
        query = query.where(~_disputed(), DisposalReceipt.id.is_(None))
    delivered = revision.disposal_delivered_at
    if cursor:
        # After the cursor's load in the list's order: by delivery time, then by manifest.
        after = decode_cursor(cursor)
        mark = session.scalar(
            select(revision.disposal_delivered_at)
            .join(Manifest, and_(revision.manifest_id == Manifest.id, revision.revision == Manifest.current_revision))
            .where(Manifest.id == after)
        )
        query = query.where(
            Manifest.id < after if mark is None else or_(delivered < mark, and_(delivered == mark, Manifest.id < after))
        )
    rows = session.execute(query.order_by(delivered.desc(), Manifest.id.desc()).limit(limit + 1)).all()
    more, rows = len(rows) > limit, rows[:limit]
    disputes = {}
    if rows:
        for dispute in session.scalars(
            select(DeliveryDispute)
            .where(
                DeliveryDispute.site_id == principal.site_id,
                DeliveryDispute.manifest_id.in_([row[0].id for row in rows]),
            )
            .order_by(DeliveryDispute.id)
        ):
            disputes.setdefault(dispute.manifest_id, []).append(dispute)
    items = [(manifest, revision, receipt, disputes.get(manifest.id, [])) for manifest, revision, receipt in rows]
    return items, encode_cursor(rows[-1][0].id) if more else None


def state_of(receipt, disputes) -> str:
    if disputes:
        return DISPUTED
    return RECEIVED if receipt is not None else AWAITING


def dispute(session, principal, *, manifest_id, reason) -> DeliveryDispute:
    """The site's dispute of a delivery a manifest names to it; a manifest naming another site
    (or none) is not within its reach."""
    named = (
        select(Manifest.id)
        .join(
            ManifestRevision,
            and_(ManifestRevision.manifest_id == Manifest.id, ManifestRevision.revision == Manifest.current_revision),
        )
        .where(
            ManifestRevision.disposal_site_id == principal.site_id, reach.in_scope(principal, Manifest.jurisdiction_id)
        )
    )
    try:
        found = session.scalar(named.where(Manifest.id == uuid.UUID(str(manifest_id))))
    except ValueError:
        found = None
    if found is None:
        raise NotFound("No such delivery to your site.")
    row = DeliveryDispute(
        manifest_id=found, site_id=principal.site_id, reason=reason, submitted_by_client_id=principal.client_pk
    )
    session.add(row)
    session.flush()
    notice_models.add_event(session, notice_models.DISPUTE, clock_now(), dispute_id=row.id)
    session.commit()
    return row
