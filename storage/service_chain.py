"""Each device's qualifying services in force as a chain: every one knows when the one before
it was completed (`ManifestRevision.previous_service_at`), so the gaps between services are
read row by row.

A filing that only adds the device's latest service sets the link itself, under its permit's
lock (`services.filing.resolving.resolve(..., hold=True)`). Anything else that changes which
revisions count on a device (a late filing, a correction, a load re-judged) marks the device
here, and the links of the marked devices are worked out again before the transaction commits,
under their permits' locks, from the services then committed and this transaction's own.
"""

from sqlalchemy import and_, event, func, inspect, select, update
from sqlalchemy.orm import Session

from storage.manifest_models import ManifestRevision
from storage.registry_models import Device, Permit

_MARKED = "fogx.chain_devices"
# What of a stored revision can change whether it stands in its device's chain (its device and
# its time are written once).
_COUNTS = ("qualifying", "in_force")


def mark(session, device_id):
    """The links of `device_id`'s services are to be worked out again before this commits."""
    session.info.setdefault(_MARKED, set()).add(device_id)


def marked(session) -> bool:
    """Whether links are to be worked out again before this session's transaction commits."""
    return bool(session.info.get(_MARKED))


def relink(connection, device_ids):
    """Work the links of `device_ids`' services out again, writing only the ones that change.

    On PostgreSQL the devices' permits are locked first (in a fixed order): a filing on one of
    them waits, and what it reads next includes what this transaction writes."""
    device_ids = sorted(device_ids)
    if not device_ids:
        return
    if connection.dialect.name == "postgresql":
        connection.execute(
            select(Permit.id)
            .where(Permit.id.in_(select(Device.permit_id).where(Device.id.in_(device_ids))))
            .order_by(Permit.id)
            .with_for_update(key_share=True)
        )
    completed = ManifestRevision.service_completed_at
    linked = (
        select(
            ManifestRevision.id,
            func.lag(completed)
            .over(partition_by=ManifestRevision.device_id, order_by=(completed, ManifestRevision.manifest_id))
            .label("previous"),
        )
        .where(ManifestRevision.device_id.in_(device_ids), ManifestRevision.in_force, ManifestRevision.qualifying)
        .subquery("linked")
    )
    connection.execute(
        update(ManifestRevision)
        .where(
            and_(
                ManifestRevision.id == linked.c.id,
                ManifestRevision.previous_service_at.is_distinct_from(linked.c.previous),
            )
        )
        .values(previous_service_at=linked.c.previous)
    )


@event.listens_for(Session, "before_flush")
def _mark_changed(session, _context, _instances):
    for revision in session.new:
        if isinstance(revision, ManifestRevision):
            mark(session, revision.device_id)
    for revision in session.dirty:
        if isinstance(revision, ManifestRevision) and _recounted(revision):
            mark(session, revision.device_id)


def _recounted(revision) -> bool:
    state = inspect(revision)
    return any(state.attrs[key].history.has_changes() for key in _COUNTS)


@event.listens_for(Session, "before_commit")
def _relink_marked(session):
    if not session.info.get(_MARKED):
        return
    session.flush()
    relink(session.connection(), session.info.pop(_MARKED))


@event.listens_for(Session, "after_transaction_end")
def _forget(session, transaction):
    if transaction.parent is None:
        session.info.pop(_MARKED, None)
