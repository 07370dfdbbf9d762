"""Every sheet an auditor can download carries each code's words in the column beside it.

Which sheets, and which of their columns hold a code, are read from openapi.yaml: the
operations that offer CSV (a `format` of `csv`) to a scope the auditor's role holds, and the
properties that are a closed set of values (an `enum`). A column named as such a property with
no `<name>_words` right after it fails; so does a sheet the spec offers that is not read here.
"""

import csv
import io
from datetime import date, timedelta

from auth.scopes import ROLE_SCOPES
from tests import factories
from tests.manifest_world import NOW, build, other_device
from tests.receipts_world import post_receipt, receipt
from tests.registry_calls import FSE
from tests.spec import load_spec, operations


def code_columns(spec) -> dict:
    """{name: its values} of every property in the spec that holds one of a closed set."""
    found = {}

    def walk(node):
        if isinstance(node, dict):
            for name, value in (node.get("properties") or {}).items():
                if isinstance(value, dict) and "enum" in value:
                    found.setdefault(name, value["enum"])
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(spec)
    return found


def auditor_sheets(spec) -> set:
    """`GET <path>` of each operation that writes CSV to a caller with a scope of the auditor's role."""
    scopes = set(ROLE_SCOPES["auditor"])
    found = set()
    for name, operation in operations(spec):
        offers_csv = any(
            parameter.get("name") == "format" and "csv" in parameter.get("schema", {}).get("enum", [])
            for parameter in operation.get("parameters", [])
        )
        granted = {scope for entry in operation.get("security", []) for scope in entry.get("oauth2", [])}
        if name.startswith("GET ") and offers_csv and granted & scopes:
            found.add(name)
    return found


def sheet_world(client, session, frozen_clock):
    """Rows for every sheet: a Victorville interceptor serviced four times, a quarter apart and
    each filed late (findings, measured intervals, gaps counted from the permit's issue), a
    restaurant never serviced, a receipt with no manifest, a restaurant the city's admin added."""
    frozen_clock(NOW)
    world = build(client, session)
    other_device(world, session)
    site_token = factories.token(client, *factories.oauth_client(session, role="site", subject=[world.site.id]))
    for days_ago in (300, 210, 120, 30):
        assert world.post(world.body(completed=NOW - timedelta(days=days_ago))).status_code == 201
    licence = world.hauler.licences[0].licence_number
    assert post_receipt(world, receipt("NO-MANIFEST", licence), token=site_token).status_code == 201
    admin = factories.token(client, *factories.oauth_client(session, role="admin", subject=["victorville"]))
    assert client.post("/v1/fses", json=FSE, headers=factories.bearer(admin)).status_code == 201
    auditor = factories.token(client, *factories.oauth_client(session, role="auditor", subject=["victorville"]))
    return world, auditor


def read_sheets(client, world, auditor) -> dict:
    """{`GET <path>`: [(what, its CSV text)]}, each sheet as its reader asks for it."""
    fse, hauler = world.permit.fse_id, world.hauler.id

    def read(path, token=auditor, **query):
        answer = client.get(path, query_string={**query, "format": "csv"}, headers=factories.bearer(token))
        assert answer.status_code == 200 and answer.mimetype == "text/csv", (path, answer.data[:300])
        return path, answer.get_data(as_text=True)

    return {
        "GET /v1/audit/missed-services": [
            read("/v1/audit/missed-services"),
            read("/v1/audit/missed-services", **{"from": date(2025, 6, 1).isoformat(), "to": NOW.date().isoformat()}),
        ],
        "GET /v1/audit/findings": [read("/v1/audit/findings")],
        "GET /v1/audit/haulers/{hauler_id}/scorecard": [read(f"/v1/audit/haulers/{hauler}/scorecard")],
        "GET /v1/audit/frequency-recommendations": [read("/v1/audit/frequency-recommendations", min_intervals=2)],
        "GET /v1/audit/disposal-reconciliation": [read("/v1/audit/disposal-reconciliation")],
        "GET /v1/haulers/me/due": [read("/v1/haulers/me/due", token=world.hauler_token, within_days=365)],
        "GET /v1/fses/{fse_id}/service-status": [read(f"/v1/fses/{fse}/service-status")],
        "GET /v1/fses/{fse_id}/records": [read(f"/v1/fses/{fse}/records")],
        "GET /v1/fses/{fse_id}/records/{format}": [read(f"/v1/fses/{fse}/records/csv")],
        "GET /v1/jurisdictions/{code}/registry-changes": [read("/v1/jurisdictions/victorville/registry-changes")],
    }


def test_every_code_in_an_auditors_sheet_has_its_words_beside_it(client, session, frozen_clock):
    spec = load_spec()
    codes = code_columns(spec)
    sheets = read_sheets(client, *sheet_world(client, session, frozen_clock))
    # The sheets the spec offers the auditor, every one read here (and a sheet read here is one).
    assert set(sheets) == auditor_sheets(spec)
    missing, checked = [], set()
    for what, text in (sheet for read in sheets.values() for sheet in read):
        table = list(csv.reader(io.StringIO(text, newline="")))
        assert len(table) > 1, f"{what}: no rows; the header would prove little"
        header = table[0]
        for at, column in enumerate(header):
            if column in codes:
                checked.add(column)
                if header[at + 1 : at + 2] != [f"{column}_words"]:
                    missing.append(f"{what}: {column}")
    assert missing == [], "codes with no words beside them"
    # What the sheets were held to: each kind of code the auditor's sheets carry.
    expected = {"status", "permit_status", "device_kind", "counted_from", "code", "severity", "basis", "change"}
    assert checked >= expected | {"action", "waste_type"}


def test_a_code_column_without_its_words_is_found():
    """The check above can fail: a header with a code and nothing beside it."""
    codes = code_columns(load_spec())
    header = ["device_tag", "status", "status_words", "counted_from", "days_late"]
    assert [c for at, c in enumerate(header) if c in codes and header[at + 1 : at + 2] != [f"{c}_words"]] == [
        "counted_from"
    ]
