"""Every `/v1` route asked for another city's object and for a missing one, as both access
matrices ask them."""

import io
import json
import re
import uuid
from datetime import UTC, datetime, timedelta

from tests import factories

# Path parameters that name no object: an import writes only into the caller's own city.
NOT_OBJECTS = {"kind"}


def file_manifest(client, token, permit, device, site):
    completed = datetime.now(UTC) - timedelta(hours=2)
    body = {
        "manifest_number": f"M-{permit.permit_number}",
        "permit_number": permit.permit_number,
        "device_tag": device.tag,
        "vehicle_id": "TRK-1",
        "driver_name": "D",
        "service_started_at": (completed - timedelta(hours=1)).isoformat(),
        "service_completed_at": completed.isoformat(),
        "waste_type": "grease_interceptor_waste",
        "gallons_removed": 1400,
        "full_pump_down": True,
        "fse_signer_name": "S",
        "disposal": {
            "site_id": str(site.id),
            "ticket_number": "T-1",
            "delivered_at": completed.isoformat(),
            "gallons_delivered": 1400,
        },
    }
    scan = factories.pdf_bytes(permit.permit_number)
    response = client.post(
        "/v1/manifests",
        headers=factories.bearer(token),
        content_type="multipart/form-data",
        data={"manifest": json.dumps(body), "documents": [(io.BytesIO(scan), "m.pdf")]},
    )
    assert response.status_code == 201, response.json
    return uuid.UUID(response.json["id"]), uuid.UUID(response.json["documents"][0]["id"])


def propose_correction(client, token, manifest_id):
    """A correction that moves the service by ten days: it waits for the city's review."""
    filed = client.get(f"/v1/manifests/{manifest_id}", headers=factories.bearer(token)).json["manifest"]
    moved = {
        name: (datetime.fromisoformat(filed[name]) - timedelta(days=10)).isoformat()
        for name in ("service_started_at", "service_completed_at")
    }
    response = client.post(
        f"/v1/manifests/{manifest_id}/corrections",
        headers=factories.bearer(token),
        json={**filed, **moved, "reason": "Keyed the wrong day"},
    )
    assert response.status_code == 202, response.json
    return uuid.UUID(response.json["id"])


def schedule_frequency_change(client, token, permit, device):
    """A city admin's frequency change sixty days ahead (past every city's notice), still
    withdrawable: its id."""
    scheduled = client.post(
        f"/v1/fses/{permit.fse_id}/devices/{device.id}/frequency-changes",
        headers=factories.bearer(token),
        json={
            "frequency_days": 60,
            "effective_on": (datetime.now(UTC).date() + timedelta(days=60)).isoformat(),
            "reason": "Measured accumulation.",
        },
    )
    assert scheduled.status_code == 201, scheduled.json
    return uuid.UUID(scheduled.json["frequency_changes"][0]["id"])


def v1_routes(app):
    for rule in app.url_map.iter_rules():
        if rule.rule.startswith("/v1"):
            for method in sorted(rule.methods - {"HEAD", "OPTIONS"}):
                yield method, rule.rule, sorted(rule.arguments)


def fill(rule, values):
    return re.sub(r"<(?:[^:<>]+:)?([^<>]+)>", lambda m: str(values[m.group(1)]), rule)


def missing_values(theirs):
    # A record's file format names no object: the same for a missing FSE as for a foreign one.
    return {name: {"code": "atlantis", "format": "csv"}.get(name, uuid.uuid4()) for name in theirs}


def body_for(method):
    # A body that would pass validation for most writes, so the object check is reached.
    return (
        {
            "name": "Taken Over",
            "effective_on": "2026-01-01",
            "status": "suspended",
            "licence_status": "revoked",
            "vehicle_id": "STOLEN-1",
            "tank_capacity_gallons": 100,
            "tag": "GI-9",
            "kind": "interceptor",
            "capacity_gallons": 1000,
            "liquid_depth_in": 40,
            "frequency_days": 90,
            "permit_number": "X",
        }
        if method in ("POST", "PATCH")
        else None
    )


def answer_like_missing(app, client, token, theirs, who) -> int:
    """Every route naming an object, asked by `token` for another city's object (`theirs`) and
    for one that does not exist: the same refusal, word for word, and no foreign id in it. The
    number of routes asked."""
    checked = 0
    for method, rule, arguments in v1_routes(app):
        if not arguments or set(arguments) & NOT_OBJECTS:
            continue
        foreign = client.open(fill(rule, theirs), method=method, json=body_for(method), headers=factories.bearer(token))
        missing = client.open(
            fill(rule, missing_values(theirs)), method=method, json=body_for(method), headers=factories.bearer(token)
        )
        where = f"{who} {method} {rule}"
        assert foreign.status_code in (403, 404, 415, 422), where
        assert foreign.status_code == missing.status_code, where
        assert foreign.json.get("errors") == missing.json.get("errors"), where
        assert foreign.json["detail"] == missing.json["detail"], where
        text = foreign.get_data(as_text=True)
        for value in theirs.values():
            if not isinstance(value, str):
                assert str(value) not in text, f"{where} names a foreign id"
        checked += 1
    return checked
