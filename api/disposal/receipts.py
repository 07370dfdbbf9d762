"""`/v1/receipts`: a disposal site posts the loads it received (`services.disposal.receipts`)."""

from flask import Blueprint, request, url_for

from api.validation import load, load_json
from auth.protect import current_principal, require
from auth.ratelimit import per_client
from auth.scopes import RECEIPTS_WRITE
from schemas.receipts import ReceiptCorrectionIn, ReceiptIn, ReceiptQuery, receipt_correction_view, receipt_view
from services.disposal import receipt_corrections, receipts
from storage.db import db

bp = Blueprint("receipts", __name__, url_prefix="/v1/receipts")
receipt_in, receipt_query, correction_in = ReceiptIn(), ReceiptQuery(), ReceiptCorrectionIn()


@bp.post("")
@require(RECEIPTS_WRITE)
@per_client("submissions")
def submit_receipt():
    receipt, created = receipts.submit(db.session, current_principal(), data=load_json(receipt_in))
    headers = {"Location": url_for("receipts.get_receipt", receipt_id=receipt.id)}
    return receipt_view(receipt), 201 if created else 200, headers


@bp.get("")
@require(RECEIPTS_WRITE)
def list_receipts():
    args = load(receipt_query, request.args.to_dict())
    rows, cursor = receipts.listing(db.session, current_principal(), **args)
    return {"items": [receipt_view(row) for row in rows], "next_cursor": cursor}


@bp.get("/<receipt_id>")
@require(RECEIPTS_WRITE)
def get_receipt(receipt_id):
    return receipt_view(receipts.get(db.session, current_principal(), receipt_id=receipt_id))


@bp.post("/<receipt_id>/corrections")
@require(RECEIPTS_WRITE)
@per_client("submissions")
def correct_receipt(receipt_id):
    receipt = receipts.get(db.session, current_principal(), receipt_id=receipt_id)
    correction = receipt_corrections.correct(
        db.session, current_principal(), receipt=receipt, data=load_json(correction_in)
    )
    headers = {"Location": url_for("receipts.get_receipt", receipt_id=receipt.id)}
    return receipt_correction_view(correction), 201, headers
