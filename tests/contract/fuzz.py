"""Contract fuzzing: schemathesis against openapi.yaml and the app served by gunicorn.

One schemathesis worker: with several threads, Hypothesis's lambda-source introspection on
Python 3.11 trips over a shared AST ("recursion depth mismatch") now and then.

Real tokens for every role come from /oauth/token; two haulers and two FSE operators are
peers for the object-level authorization check. Run by `make fuzz` (and CI).

    FUZZ_DATABASE_URL   database to fuzz against (default: a fresh SQLite file)
    FUZZ_MAX_EXAMPLES   examples per operation and phase (default 25)
    FUZZ_SEED           the generation seed (fixed by default, so a run can be repeated)

Arguments are passed on to `schemathesis run`, e.g. `--include-operation-id authorize` to try
a few operations while changing them.
"""

import hashlib
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import requests

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
from tests.factories import pdf_bytes  # noqa: E402

BIN = Path(sys.executable).parent
ROLES = ["admin", "auditor", "hauler", "hauler-2", "fse", "fse-2", "site"]


def free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def flask(env, *args):
    subprocess.run(
        [str(BIN / "flask"), "--app", "wsgi", *args], cwd=ROOT, env=env, check=True, stdout=subprocess.DEVNULL
    )


def seed_peers(env):
    """A second hauler and a second FSE operator, each with objects of their own."""
    code = """
from datetime import date
from api import create_app
from services.people.clients import create_client
from services.demo.data import load
from storage.db import db
from storage.models import Fse, Hauler, HaulerLicence, HaulerRegistration, Jurisdiction, Vehicle
from sqlalchemy import select
app = create_app()
with app.app_context():
    s = db.session
    if s.scalar(select(Hauler).where(Hauler.name == "Desert Pumping")) is None:
        vv = s.scalar(select(Jurisdiction).where(Jurisdiction.code == "victorville"))
        h = Hauler(name="Desert Pumping", licence_number="DP-1", owner_jurisdiction_id=vv.id)
        h.licences.append(HaulerLicence(jurisdiction_id=vv.id, licence_number="DP-1", expires_on=date(date.today().year + 2, 1, 1), effective_on=date(2024, 1, 1)))
        h.registrations.append(HaulerRegistration(jurisdiction_id=vv.id, registered_on=date(2024, 1, 1)))
        h.vehicles.append(Vehicle(jurisdiction_id=vv.id, vehicle_id="TRK-7", tank_capacity_gallons=3000))
        s.add(h); s.commit()
        create_client(s, role="hauler", subject=[str(h.id)], client_id="demo-hauler-2", client_secret="demo-hauler-2-secret")
        taqueria = s.scalar(select(Fse).where(Fse.name == "Taqueria El Sol"))
        create_client(s, role="fse", subject=[str(taqueria.id)], client_id="demo-fse-2", client_secret="demo-fse-2-secret")
"""
    subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, check=True)


def token(base, client_id):
    response = requests.post(
        f"{base}/oauth/token",
        data={"grant_type": "client_credentials"},
        auth=(client_id, f"{client_id}-secret"),
        timeout=10,
    )
    response.raise_for_status()
    return response.json()["access_token"]


def file_manifests(base, tokens):
    """Give each hauler a manifest of its own, so the peers have objects to keep apart, and
    the first a scan: their ids, by the placeholder in schemathesis.toml each fills in."""
    site = requests.get(
        f"{base}/v1/disposal-sites", headers={"Authorization": f"Bearer {tokens['hauler']}"}, timeout=10
    ).json()["items"][0]["id"]
    completed = datetime.now(UTC) - timedelta(hours=3)
    manifests = []
    for n, (role, permit, tag) in enumerate((("hauler", "VV-FOG-0001", "GI-1"), ("hauler-2", "VV-FOG-0002", "GI-1"))):
        body = {
            "manifest_number": f"FUZZ-{n}",
            "permit_number": permit,
            "device_tag": tag,
            "vehicle_id": "TRK-7",
            "driver_name": "Driver",
            "fse_signer_name": "Signer",
            "service_started_at": (completed - timedelta(hours=1)).isoformat(),
            "service_completed_at": completed.isoformat(),
            "waste_type": "grease_interceptor_waste",
            "gallons_removed": 1400,
            "full_pump_down": True,
            "disposal": {
                "site_id": site,
                "ticket_number": f"T-FUZZ-{n}",
                "delivered_at": (completed + timedelta(minutes=30)).isoformat(),
                "gallons_delivered": 1400,
            },
        }
        response = requests.post(
            f"{base}/v1/manifests", json=body, timeout=10, headers={"Authorization": f"Bearer {tokens[role]}"}
        )
        assert response.status_code in (200, 201), response.text
        manifests.append(response.json()["id"])
    scan = pdf_bytes("Pump-out manifest FUZZ-0, signed")
    response = requests.put(
        f"{base}/v1/manifests/{manifests[0]}/documents/{hashlib.sha256(scan).hexdigest()}",
        data=scan,
        timeout=10,
        headers={"Authorization": f"Bearer {tokens['hauler']}", "Content-Type": "application/pdf"},
    )
    assert response.status_code in (200, 201), response.text
    document = response.json()
    # A correction moving the first manifest's service by ten days waits for the city's review.
    moved = {
        name: (datetime.fromisoformat(body[name]) - timedelta(days=10)).isoformat()
        for name in ("service_started_at", "service_completed_at")
    }
    first = requests.get(
        f"{base}/v1/manifests/{manifests[0]}", timeout=10, headers={"Authorization": f"Bearer {tokens['hauler']}"}
    ).json()["manifest"]
    response = requests.post(
        f"{base}/v1/manifests/{manifests[0]}/corrections",
        timeout=10,
        json={**first, **moved, "disposal": None, "reason": "Keyed the wrong day"},
        headers={"Authorization": f"Bearer {tokens['hauler']}"},
    )
    assert response.status_code == 202, response.text
    return {
        "MANIFEST_IDS": manifests,
        "DOCUMENT_IDS": [document["id"], document["sha256"]],
        "SCAN_SHA256": [document["sha256"]],
        "CORRECTION_IDS": [response.json()["id"]],
    }


def registry_ids(base, tokens):
    """The ids of the demo's registry (FSEs, their devices, permits, haulers, disposal sites),
    by the placeholder in schemathesis.toml each fills in: generated requests to one of them
    reach the route behind the lookup, not only its 404."""

    def items(path, role="admin"):
        response = requests.get(f"{base}{path}", headers={"Authorization": f"Bearer {tokens[role]}"}, timeout=10)
        response.raise_for_status()
        return response.json()["items"]

    fses = [fse["id"] for fse in items("/v1/fses")]
    return {
        "FSE_IDS": fses,
        "DEVICE_IDS": [device["id"] for fse in fses for device in items(f"/v1/fses/{fse}/devices")],
        "PERMIT_IDS": [permit["id"] for permit in items("/v1/permits")],
        "HAULER_IDS": [hauler["id"] for hauler in items("/v1/haulers")],
        "SITE_IDS": [site["id"] for site in items("/v1/disposal-sites")],
    }


def main():
    work = Path(tempfile.mkdtemp(prefix="fogx-fuzz-"))
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    env = {
        **os.environ,
        "PUBLIC_BASE_URL": base,
        "DATABASE_URL": os.environ.get("FUZZ_DATABASE_URL") or f"sqlite:///{work / 'fuzz.sqlite3'}",
        "STORAGE_DIR": str(work / "objects"),
        "TOKEN_TTL_SECONDS": "7200",
        "OUTBOX_INTERVAL_SECONDS": "0",
        # The limits would answer most generated requests with 429 and leave the routes behind
        # them unexamined; tests/test_hostile_input.py checks the limits themselves.
        "SUBMISSIONS_PER_MINUTE": "1000000",
        "EXPORTS_PER_MINUTE": "1000000",
        "AUTH_FAILURE_LIMIT": "1000000",
    }
    flask(env, "db", "upgrade")
    flask(env, "demo", "load")
    seed_peers(env)
    server = subprocess.Popen(
        [
            str(BIN / "gunicorn"),
            "--bind",
            f"127.0.0.1:{port}",
            "--workers",
            "2",
            "--access-logfile",
            "/dev/null",
            "wsgi:app",
        ],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=open(work / "server.log", "w"),
    )
    try:
        for _ in range(300):
            try:
                requests.get(f"{base}/health", timeout=5)
                break
            except requests.RequestException:  # not listening yet, or workers still booting
                time.sleep(0.1)
        tokens = {role: token(base, f"demo-{role}") for role in ROLES}
        # The demo's portal app, registered for the address served here (PUBLIC_BASE_URL).
        known = {
            **file_manifests(base, tokens),
            **registry_ids(base, tokens),
            "APP_IDS": ["fogx-portal"],
            "REDIRECT_URIS": [f"{base}/portal/"],
        }
        (work / "wfc.json").write_text(
            json.dumps(
                {
                    "auth": [
                        {"name": role, "fixedHeaders": [{"name": "Authorization", "value": f"Bearer {tokens[role]}"}]}
                        for role in ROLES
                    ]
                }
            )
        )
        config = (
            (ROOT / "tests" / "contract" / "schemathesis.toml")
            .read_text()
            .replace("WFC_PATH", str(work / "wfc.json"))
            .replace("HAULER_TOKEN", tokens["hauler"])
            .replace("SITE_TOKEN", tokens["site"])
        )
        for placeholder, values in known.items():
            config = config.replace(placeholder, json.dumps(values))
        (work / "schemathesis.toml").write_text(config)
        command = [
            str(BIN / "schemathesis"),
            "--config-file",
            str(work / "schemathesis.toml"),
            "run",
            str(ROOT / "openapi.yaml"),
            "--url",
            base,
            "--checks",
            "all",
            "--workers",
            "1",
            "--phases",
            "examples,coverage,fuzzing",
            "--max-examples",
            os.environ.get("FUZZ_MAX_EXAMPLES", "25"),
            "--seed",
            os.environ.get("FUZZ_SEED", "20261202"),
            "--no-color",
            *sys.argv[1:],
        ]
        print("$", " ".join(command[2:]), flush=True)
        result = subprocess.run(command, cwd=work)
        if result.returncode:
            print(f"server log: {work / 'server.log'}")
        return result.returncode
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=30)


if __name__ == "__main__":
    sys.exit(main())
