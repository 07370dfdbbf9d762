"""Liveness and readiness."""

from flask import Blueprint, current_app

from api.errors import ServiceUnavailable
from storage.db import db, ping
from storage.objects import StoreUnavailable

bp = Blueprint("health", __name__)


@bp.get("/health")
def health():
    return {"status": "ok"}


@bp.get("/ready")
def ready():
    checks = {}
    try:
        ping(db.session)
        checks["database"] = "ok"
    except Exception as error:  # any driver error means "not ready", never a 500
        checks["database"] = f"unavailable: {type(error).__name__}"
    try:
        current_app.extensions["fogx.store"].ping()
        checks["object_store"] = "ok"
    except StoreUnavailable as error:
        checks["object_store"] = f"unavailable: {error}"[:200]
    if any(value != "ok" for value in checks.values()):
        raise ServiceUnavailable("A dependency is not reachable.", headers={"Retry-After": "5"}, checks=checks)
    return {"status": "ready", "checks": checks}
