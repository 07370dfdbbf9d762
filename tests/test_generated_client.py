"""A dispatch vendor's client, generated from openapi.yaml by openapi-python-client, does a
hauler's and an auditor's job against the app served over HTTP with no request of its own."""

import csv
import hashlib
import importlib
import io
import subprocess
import sys
from pathlib import Path

import pytest

from tests import factories
from tests.manifest_world import NOW, build

ROOT = Path(__file__).resolve().parents[1]
GENERATOR = Path(sys.executable).parent / "openapi-python-client"


@pytest.fixture(scope="module")
def generated(tmp_path_factory):
    """The client package, generated offline into a folder of its own and imported."""
    folder = tmp_path_factory.mktemp("generated")
    config = folder / "generator.yaml"
    config.write_text("post_hooks: []\n")  # no formatter run over the generated code
    done = subprocess.run(
        [
            str(GENERATOR),
            "generate",
            "--path",
            str(ROOT / "openapi.yaml"),
            "--meta",
            "none",
            "--output-path",
            str(folder / "fogx_client"),
            "--config",
            str(config),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0 and (folder / "fogx_client" / "client.py").exists(), done.stdout + done.stderr
    # Each operation of a hauler's and an auditor's day came out whole (a response the
    # generator cannot read is left out with a warning naming its operation).
    for operation in ("/v1/manifests", "/v1/audit/", "/v1/fses/"):
        assert f"parsing GET {operation}" not in done.stdout, done.stdout
    sys.path.insert(0, str(folder))
    try:
        yield importlib.import_module("fogx_client")
    finally:
        sys.path.remove(str(folder))
        for name in [m for m in sys.modules if m == "fogx_client" or m.startswith("fogx_client.")]:
            del sys.modules[name]


@pytest.fixture
def world(client, session, frozen_clock):
    frozen_clock(NOW)
    return build(client, session)


def test_a_generated_client_files_corrects_uploads_and_downloads_a_scan_a_csv_and_reads_every_audit_list(
    generated, world, client, session, live_server
):
    from fogx_client import AuthenticatedClient
    from fogx_client.api.audit import (
        audit_findings,
        audit_trends,
        disposal_reconciliation,
        frequency_recommendations,
        fse_service_status,
        hauler_scorecard,
        list_corrections,
        missed_services,
    )
    from fogx_client.api.manifests import (
        correct_manifest,
        get_correction,
        get_document,
        get_manifest,
        list_manifests,
        list_revisions,
        put_document,
        submit_manifest,
    )
    from fogx_client.models import CorrectionIn, ManifestIn, Receipt
    from fogx_client.types import File

    hauler = AuthenticatedClient(base_url=live_server, token=world.hauler_token)
    body = world.body()
    filed = submit_manifest.sync_detailed(client=hauler, body=ManifestIn.from_dict(body))
    assert filed.status_code == 201, filed.content
    receipt = filed.parsed
    assert isinstance(receipt, Receipt) and receipt.manifest.permit_number == world.permit.permit_number
    assert receipt.manifest.gallons_removed == 1450

    # A correction of the gallons is applied at once; one moving the service waits for the city.
    fixed = correct_manifest.sync_detailed(
        receipt.id,
        client=hauler,
        body=CorrectionIn.from_dict(
            {
                **body,
                "gallons_removed": 1400,
                "disposal": {**body["disposal"], "gallons_delivered": 1400},
                "reason": "Meter misread",
            }
        ),
    )
    assert fixed.status_code == 201, fixed.content
    assert fixed.parsed.revision == 2 and fixed.parsed.manifest.gallons_removed == 1400
    moved = correct_manifest.sync_detailed(
        receipt.id,
        client=hauler,
        body=CorrectionIn.from_dict(
            {**body, "gallons_removed": 1400, "device_tag": "GI-9", "reason": "Wrong interceptor"}
        ),
    )
    assert moved.status_code in (202, 422), moved.content

    scan = factories.pdf_bytes("Manifest M-00001, signed")
    sha256 = hashlib.sha256(scan).hexdigest()
    put = put_document.sync_detailed(
        receipt.id,
        sha256,
        client=hauler,
        body=File(payload=io.BytesIO(scan), file_name="m-00001.pdf", mime_type="application/pdf"),
    )
    assert put.status_code == 201, put.content
    fetched = get_document.sync_detailed(receipt.id, put.parsed.id, client=hauler)
    assert fetched.status_code == 200 and fetched.parsed.payload.read() == scan

    read = get_manifest.sync_detailed(receipt.id, client=hauler)
    assert read.status_code == 200 and [d.sha256 for d in read.parsed.documents] == [sha256]
    revisions = list_revisions.sync_detailed(receipt.id, client=hauler)
    assert [r.document.manifest.gallons_removed for r in revisions.parsed.items] == [1450, 1400]
    assert [m.id for m in list_manifests.sync_detailed(client=hauler).parsed.items] == [receipt.id]

    auditor = AuthenticatedClient(
        base_url=live_server,
        token=factories.token(client, *factories.oauth_client(session, role="auditor", subject=["victorville"])),
    )
    for operation, kwargs in (
        (missed_services, {}),
        (audit_findings, {}),
        (list_corrections, {}),
        (audit_trends, {}),
        (frequency_recommendations, {}),
        (disposal_reconciliation, {}),
        (hauler_scorecard, {"hauler_id": str(world.hauler.id)}),
        (fse_service_status, {"fse_id": str(world.permit.fse_id)}),
    ):
        answer = operation.sync_detailed(client=auditor, **kwargs)
        assert answer.status_code == 200, (operation.__name__, answer.content)
        assert answer.parsed is not None and not hasattr(answer.parsed, "title"), operation.__name__
    # The record's CSV, through the operation of its own.
    from fogx_client.api.records import download_records
    from fogx_client.models import DownloadRecordsFormat

    sheet = download_records.sync_detailed(str(world.permit.fse_id), DownloadRecordsFormat.CSV, client=auditor)
    assert sheet.status_code == 200, sheet.content
    rows = list(csv.DictReader(io.StringIO(sheet.parsed.payload.read().decode())))
    assert [(r["manifest_number"], r["gallons_removed"]) for r in rows] == [(body["manifest_number"], "1400")]
    waiting = list_corrections.sync_detailed(client=auditor).parsed.items
    if moved.status_code == 202:
        [pending] = waiting
        correction = get_correction.sync_detailed(receipt.id, pending.id, client=auditor)
        assert correction.status_code == 200 and correction.parsed.manifest.device_tag == "GI-9"
