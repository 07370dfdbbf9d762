"""`/v1/webhooks`: a client's change feed posted to its own URL (`services.outbound.webhooks`)."""

from flask import Blueprint, current_app, url_for

from api.config import webhook_signing_key
from api.validation import load_json
from auth.protect import current_principal, require
from auth.scopes import AUDIT_READ, MANIFESTS_READ, MANIFESTS_WRITE, RECORDS_READ
from schemas.webhooks import WebhookIn, webhook_view
from services.outbound import webhooks
from storage.db import db

bp = Blueprint("webhooks", __name__, url_prefix="/v1/webhooks")
READ = (MANIFESTS_READ, MANIFESTS_WRITE, RECORDS_READ, AUDIT_READ)
webhook_in = WebhookIn()


@bp.post("")
@require(*READ)
def create_webhook():
    data = load_json(webhook_in)
    webhook, secret = webhooks.create(
        db.session,
        current_principal(),
        signing_key=webhook_signing_key(current_app.config),
        allow_local=current_app.config["WEBHOOK_ALLOW_LOCAL"],
        **data,
    )
    return (webhook_view(webhook, secret), 201, {"Location": url_for("webhooks.get_webhook", webhook_id=webhook.id)})


@bp.get("")
@require(*READ)
def list_webhooks():
    return {"items": [webhook_view(row) for row in webhooks.listing(db.session, current_principal())]}


@bp.get("/<webhook_id>")
@require(*READ)
def get_webhook(webhook_id):
    return webhook_view(webhooks.get(db.session, current_principal(), webhook_id=webhook_id))


@bp.post("/<webhook_id>/disable")
@require(*READ)
def disable_webhook(webhook_id):
    return webhook_view(webhooks.disable(db.session, current_principal(), webhook_id=webhook_id))
