"""Corrections the city reviews: the decision bodies, the review list's query, and the view."""

from marshmallow import EXCLUDE, Schema, fields, validate

from schemas.actors import actor_view
from schemas.manifest_views import iso
from schemas.registry import text

STATUSES = ("pending", "approved", "rejected")


class ApprovalIn(Schema):
    reason = text(2000, load_default=None, allow_none=True)


class RejectionIn(Schema):
    reason = text(2000, required=True)


class ReviewQuery(Schema):
    class Meta:
        unknown = EXCLUDE  # unknown query parameters are ignored, as HTTP clients expect

    status = fields.String(load_default="pending", validate=validate.OneOf(STATUSES))
    cursor = fields.String(validate=validate.Regexp(r"^[A-Za-z0-9_-]{22}$"))
    limit = fields.Integer(load_default=50, validate=validate.Range(min=1, max=200))


class SentQuery(Schema):
    class Meta:
        unknown = EXCLUDE  # unknown query parameters are ignored, as HTTP clients expect

    status = fields.String(validate=validate.OneOf(STATUSES))
    cursor = fields.String(validate=validate.Regexp(r"^[A-Za-z0-9_-]{22}$"))
    limit = fields.Integer(load_default=50, validate=validate.Range(min=1, max=200))


def correction_view(row, manifest) -> dict:
    """A correction as sent (its hashed document) and where the city's review of it stands."""
    current = manifest.revisions[manifest.current_revision - 1].body["manifest"]
    return {
        "id": str(row.id),
        "manifest_id": str(row.manifest_id),
        "manifest_number": manifest.manifest_number,
        "hauler_id": str(row.hauler_id),
        "status": row.status,
        "moves": list(row.moves),
        "based_on_revision": row.based_on_revision,
        "reason": row.document["reason"],
        "submitted_at": iso(row.submitted_at),
        "sha256": row.sha256,
        "manifest": row.document["manifest"],
        "current": {
            name: current[name]
            for name in ("permit_number", "device_tag", "service_started_at", "service_completed_at")
        },
        "submitted_by": actor_view(row.submitted_by_client, row.submitted_by_person),
        "decided_at": iso(row.decided_at),
        "decided_by": actor_view(row.decided_by_client, row.decided_by_person),
        "decision_reason": row.decision_reason,
        "revision": row.revision,
    }
