"""`/v1/deliveries`: a disposal site's clerk sees the loads haulers say they brought to the
site, and disputes one that did not arrive as filed (`services.disposal.deliveries`)."""

from flask import Blueprint, request

from api.validation import load, load_json
from auth.protect import current_principal, require
from auth.ratelimit import per_client
from auth.scopes import RECEIPTS_WRITE
from schemas.deliveries import DeliveryQuery, DisputeIn, delivery_view, dispute_view
from services.disposal import deliveries
from storage.db import db

bp = Blueprint("deliveries", __name__, url_prefix="/v1/deliveries")
delivery_query, dispute_in = DeliveryQuery(), DisputeIn()


@bp.get("")
@require(RECEIPTS_WRITE)
def list_deliveries():
    args = load(delivery_query, request.args.to_dict())
    items, cursor = deliveries.listing(db.session, current_principal(), **args)
    return {
        "items": [delivery_view(*item, deliveries.state_of(item[2], item[3])) for item in items],
        "next_cursor": cursor,
    }


@bp.post("/<manifest_id>/disputes")
@require(RECEIPTS_WRITE)
@per_client("submissions")
def dispute_delivery(manifest_id):
    data = load_json(dispute_in)
    return dispute_view(
        deliveries.dispute(db.session, current_principal(), manifest_id=manifest_id, reason=data["reason"])
    ), 201
