"""A webhook as a client asks for it, and as it is shown."""

from marshmallow import RAISE, Schema, fields, validate

from schemas.manifest_views import iso
from schemas.registry import printable


class WebhookIn(Schema):
    class Meta:
        unknown = RAISE

    url = fields.String(required=True, validate=[validate.Length(min=1, max=2000), printable])
    description = fields.String(validate=[validate.Length(max=200), printable], allow_none=True)
    cursor = fields.String(validate=validate.Regexp(r"^[A-Za-z0-9_-]{22}$"))


def webhook_view(webhook, secret=None) -> dict:
    """The webhook and how its deliveries go; `secret` only when it was just made."""
    view = {
        "id": str(webhook.id),
        "url": webhook.url,
        "description": webhook.description,
        "status": webhook.status,
        "created_at": iso(webhook.created_at),
        "disabled_at": iso(webhook.disabled_at),
        "disabled_reason": webhook.disabled_reason,
        "cursor": webhook.cursor,
        "delivered": webhook.delivered,
        "failures": webhook.failures,
        "next_attempt_at": iso(webhook.next_attempt_at) if webhook.status == "active" else None,
        "last_attempt_at": iso(webhook.last_attempt_at),
        "last_success_at": iso(webhook.last_success_at),
        "last_error": webhook.last_error,
    }
    if secret is not None:
        view["secret"] = secret
    return view
