"""A disposal site's deliveries (the manifests naming it) and its disputes of them."""

from marshmallow import EXCLUDE, Schema, fields, validate

from domain.reconcile import AWAITING, DISPUTED, RECEIVED
from schemas.manifest_views import iso
from schemas.registry import text


class DeliveryQuery(Schema):
    class Meta:
        unknown = EXCLUDE  # unknown query parameters are ignored, as HTTP clients expect

    state = fields.String(validate=validate.OneOf((AWAITING, RECEIVED, DISPUTED)))
    cursor = fields.String(validate=validate.Regexp(r"^[A-Za-z0-9_-]{22}$"))
    limit = fields.Integer(load_default=50, validate=validate.Range(min=1, max=200))


class DisputeIn(Schema):
    reason = text(2000, required=True)


def dispute_view(dispute) -> dict:
    return {
        "id": str(dispute.id),
        "manifest_id": str(dispute.manifest_id),
        "site_id": str(dispute.site_id),
        "reason": dispute.reason,
        "created_at": iso(dispute.created_at),
    }


def delivery_view(manifest, revision, receipt, disputes, state) -> dict:
    """What the hauler says it brought, beside what the site has said of it."""
    return {
        "manifest_id": str(manifest.id),
        "manifest_number": manifest.manifest_number,
        "hauler_id": str(manifest.hauler_id),
        "hauler_name": revision.hauler_name,
        "hauler_licence_number": revision.hauler_licence_number,
        "vehicle_id": revision.vehicle_id,
        "waste_type": revision.waste_type,
        "ticket_number": revision.disposal_ticket_number,
        "gallons_delivered": revision.disposal_gallons_delivered,
        "delivered_at": iso(revision.disposal_delivered_at),
        "state": state,
        "receipt": None
        if receipt is None
        else {
            "id": str(receipt.id),
            "gallons_received": receipt.gallons_received,
            "received_at": iso(receipt.received_at),
        },
        "disputes": [dispute_view(d) for d in disputes],
    }
