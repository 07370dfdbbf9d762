"""A disposal site corrects a receipt it made in error: the receipt then shows the load as
corrected, and a correction record keeps it as it was, why and who (`storage.receipt_corrections`)."""

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError

from domain.clock import now as clock_now
from domain.dates import local_date
from schemas.manifest import canonical
from services.disposal import receipts
from services.errors import Conflict, Invalid
from storage.models import HaulerLicence
from storage.receipt_corrections import ReceiptCorrection

COLUMNS = ("ticket_number", "hauler_licence_number", "vehicle_id", "waste_type", "gallons_received", "received_at")


def correct(session, principal, *, receipt, data) -> ReceiptCorrection:
    """Correct the site's own receipt (`receipts.get` found it within reach); the correction."""
    reason = data.pop("reason")
    now = clock_now()
    if data["received_at"] > now + receipts.SKEW:
        raise Invalid("The load is dated in the future.", errors={"received_at": ["Must not be in the future."]})
    body = canonical(data)
    if body == receipt.body:
        raise Invalid("The correction changes nothing of the receipt.", errors={"$": ["Nothing changes."]})
    correction = ReceiptCorrection(
        receipt_id=receipt.id,
        before=receipt.body,
        after=body,
        reason=reason,
        submitted_by_client_id=principal.client_pk,
        submitted_by_person_id=principal.person_id,
        created_at=now,
    )
    # Read before the receipt changes: a query would flush the change before its turn.
    received_on = local_date(data["received_at"], receipts.site_zone(session, principal.site_id))
    hauler_id = session.scalar(
        select(HaulerLicence.hauler_id).where(HaulerLicence.licence_number == data["hauler_licence_number"]).limit(1)
    )
    for name in COLUMNS:
        setattr(receipt, name, data[name])
    receipt.body, receipt.received_on, receipt.hauler_id = body, received_on, hauler_id
    session.add(correction)
    try:
        session.commit()
    except IntegrityError:  # another receipt of that ticket on that day
        session.rollback()
        raise Conflict(
            f"Ticket {data['ticket_number']} is reported for that day already; correct that receipt instead."
        ) from None
    return correction
