"""A disposal site's receipt of a load, and the query of a site's receipts."""

from marshmallow import EXCLUDE, Schema, fields, validate

from schemas.actors import actor_view
from schemas.manifest import When, gallons
from schemas.manifest_views import iso
from schemas.registry import WASTE_TYPES, text


class ReceiptIn(Schema):
    ticket_number = text(60, required=True)
    hauler_licence_number = text(60, required=True)
    vehicle_id = text(60, required=True)
    waste_type = fields.String(required=True, validate=validate.OneOf(WASTE_TYPES))
    gallons_received = gallons(required=True)
    received_at = When(required=True)


class ReceiptCorrectionIn(ReceiptIn):
    """The receipt as it should have been, and why."""

    reason = text(2000, required=True)


class ReceiptQuery(Schema):
    class Meta:
        unknown = EXCLUDE  # unknown query parameters are ignored, as HTTP clients expect

    cursor = fields.String(validate=validate.Regexp(r"^[A-Za-z0-9_-]{22}$"))
    limit = fields.Integer(load_default=50, validate=validate.Range(min=1, max=200))


def receipt_view(receipt) -> dict:
    return {
        "id": str(receipt.id),
        "site_id": str(receipt.site_id),
        **receipt.body,
        "hauler_id": str(receipt.hauler_id) if receipt.hauler_id else None,
        "created_at": iso(receipt.created_at),
        "submitted_by": actor_view(receipt.submitted_by_client, receipt.submitted_by_person),
    }


def receipt_correction_view(correction) -> dict:
    return {
        "id": str(correction.id),
        "receipt_id": str(correction.receipt_id),
        "before": correction.before,
        "after": correction.after,
        "reason": correction.reason,
        "created_at": iso(correction.created_at),
        "submitted_by": actor_view(correction.submitted_by_client, correction.submitted_by_person),
    }
