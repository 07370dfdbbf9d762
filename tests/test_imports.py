"""Bulk CSV import: bad rows reported by number, good rows stored, re-runs change nothing."""

import csv
import json

import pytest
from sqlalchemy import func, select

from api.config import ROOT
from services.registry.import_rows import COLUMNS
from storage.models import Device, DisposalSite, Fse, Hauler, Permit, Vehicle
from tests import factories
from tests.registry_calls import upload

BAD_ROWS = {
    # line number in the file (header is line 1): (row, the field named in the reason)
    18: (["", "1 Main St", "APN-bad-1", "Op", "op@example.com"], "name"),
    345: (["Diner X", "2 Main St", "APN-bad-2", "Op", "not-an-email"], "operator_email"),
    2001: (["Diner Y", "3 Main St", "A" * 41, "Op", "op@example.com"], "apn"),
    7777: (["Diner Z", "", "APN-bad-4", "Op", "op@example.com"], "address"),
    9999: (["Diner W", "4 Main St", "APN-bad-5", "Op", "op@example.com", "extra cell"], "more cells"),
}


def fse_file(path, total=10_000):
    with open(path, "w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(COLUMNS["fses"])
        for line in range(2, total + 2):
            if line in BAD_ROWS:
                writer.writerow(BAD_ROWS[line][0])
            else:
                writer.writerow(
                    [
                        f"Restaurant {line}",
                        f"{line} Bear Valley Rd",
                        f"APN-{line:06d}",
                        "Operator",
                        f"op{line}@example.com",
                    ]
                )
    return path


def run_json(app, args):
    """Run a CLI command with --json; its report (the progress bar goes to stderr)."""
    result = app.test_cli_runner().invoke(args=args)
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_ten_thousand_fses_with_a_handful_of_bad_rows(app, session, tmp_path):
    factories.jurisdiction(session, "victorville")
    path = fse_file(tmp_path / "fses.csv")
    args = ["import", "fses", str(path), "--jurisdiction", "victorville", "--json"]

    report = run_json(app, args)
    assert report["rows"] == 10_000
    assert report["created"] == 10_000 - len(BAD_ROWS)
    assert report["rejected"] == len(BAD_ROWS)
    assert [r["row"] for r in report["rejections"]] == sorted(BAD_ROWS)
    for rejection in report["rejections"]:
        assert BAD_ROWS[rejection["row"]][1] in rejection["reason"]
    assert session.scalar(select(func.count()).select_from(Fse)) == 10_000 - len(BAD_ROWS)

    second = run_json(app, args)
    assert second["created"] == 0 and second["updated"] == 0
    assert second["unchanged"] == 10_000 - len(BAD_ROWS)
    assert session.scalar(select(func.count()).select_from(Fse)) == 10_000 - len(BAD_ROWS)


def test_cli_prints_a_summary_and_each_rejection(app, session, tmp_path):
    factories.jurisdiction(session, "victorville")
    path = tmp_path / "fses.csv"
    path.write_text(
        "name,address,apn,operator_name,operator_email\nMesa Grill,1 Rd,111,Ana,ana@example.com\nBad,2 Rd,222,Bo,nope\n"
    )
    result = app.test_cli_runner().invoke(args=["import", "fses", str(path), "--jurisdiction", "victorville"])
    assert result.exit_code == 0
    assert "2 rows: 1 created, 0 updated, 0 unchanged, 1 rejected" in result.output
    assert "row 3: operator_email: Not a valid email address." in result.output


def test_samples_import_in_order_and_again_without_change(app, session):
    factories.jurisdiction(session, "victorville")
    order = ["fses", "permits", "devices", "haulers", "vehicles", "disposal-sites"]
    for attempt in (1, 2):
        for kind in order:
            report = run_json(
                app, ["import", kind, str(ROOT / "samples" / f"{kind}.csv"), "--jurisdiction", "victorville", "--json"]
            )
            assert report["rejected"] == 0, (kind, report["rejections"])
            if attempt == 1:
                assert report["created"] == report["rows"] > 0, kind
            else:
                assert report["unchanged"] == report["rows"], (kind, report)
    counts = {
        model.__name__: session.scalar(select(func.count()).select_from(model))
        for model in (Fse, Permit, Device, Hauler, Vehicle, DisposalSite)
    }
    assert counts == {"Fse": 2, "Permit": 2, "Device": 2, "Hauler": 1, "Vehicle": 1, "DisposalSite": 1}


def test_changed_rows_are_updates(app, session, tmp_path):
    factories.jurisdiction(session, "victorville")
    path = tmp_path / "fses.csv"
    header = "name,address,apn,operator_name,operator_email\n"
    path.write_text(header + "Mesa Grill,1 Rd,111,Ana,ana@example.com\n")
    runner = app.test_cli_runner()
    runner.invoke(args=["import", "fses", str(path), "--jurisdiction", "victorville"])
    path.write_text(header + "Mesa Grill,1 Rd,111,Ana Ruiz,ana@example.com\n")
    result = runner.invoke(args=["import", "fses", str(path), "--jurisdiction", "victorville"])
    assert "1 rows: 0 created, 1 updated, 0 unchanged, 0 rejected" in result.output
    session.expire_all()
    assert session.scalar(select(Fse.operator_name)) == "Ana Ruiz"


@pytest.fixture
def admin_token(client, session):
    factories.jurisdiction(session, "victorville")
    return factories.token(client, *factories.oauth_client(session, role="admin", subject=["victorville"]))


def test_api_import_reports_and_is_idempotent(client, admin_token):
    content = (ROOT / "samples" / "fses.csv").read_bytes()
    first = upload(client, admin_token, "fses", content)
    assert first.status_code == 200 and first.json["created"] == 2
    second = upload(client, admin_token, "fses", content)
    assert second.json["unchanged"] == 2 and second.json["created"] == 0


def test_api_import_refuses_a_wrong_header_kind_or_type(client, admin_token):
    wrong_header = upload(client, admin_token, "fses", b"title,street\nx,y\n")
    assert wrong_header.status_code == 422
    assert "header must be" in wrong_header.json["errors"]["file"][0]
    assert upload(client, admin_token, "spaceships", b"a\n").status_code == 404
    not_multipart = client.post(
        "/v1/imports/fses", headers=factories.bearer(admin_token), data="name\n", content_type="text/csv"
    )
    assert not_multipart.status_code == 415
    no_file = client.post(
        "/v1/imports/fses",
        headers=factories.bearer(admin_token),
        data={"other": "x"},
        content_type="multipart/form-data",
    )
    assert no_file.status_code == 422


def test_a_date_in_a_row_is_yyyy_mm_dd(client, admin_token):
    """A licence expiry written as 20280630 or a week date is the row's rejection, not some day."""
    rows = (
        "name,licence_number,licence_expires_on\n"
        "Inland Grease Services,IGS-1,2028-06-30\nDesert Pumping,DP-2,20280630\nValley Vac,VV-3,2028-W26-5\n"
    )
    report = upload(client, admin_token, "haulers", rows.encode()).json
    assert report["created"] == 1 and report["rejected"] == 2
    assert [r["row"] for r in report["rejections"]] == [3, 4]
    assert all("licence_expires_on" in r["reason"] for r in report["rejections"])


def test_a_contact_address_column_sets_and_clears_where_the_notices_of_those_without_people_go(
    client, session, admin_token
):
    """`contact_email` is a column a restaurants' or haulers' file may add: set, then cleared by
    an empty cell, and refused where it is no address."""
    fses = "name,address,apn,operator_name,operator_email,contact_email\n"
    haulers = "name,licence_number,licence_expires_on,contact_email\n"
    set_fse = upload(client, admin_token, "fses", (fses + "Cafe,1 Rd,9,Al,al@example.com,desk@cafe.test\n").encode())
    set_hauler = upload(
        client, admin_token, "haulers", (haulers + "Valley Vac,VV-3,2028-06-30,office@vv.test\n").encode()
    )
    assert (set_fse.json["created"], set_hauler.json["created"]) == (1, 1)
    assert session.scalar(select(Fse.contact_email)) == "desk@cafe.test"
    assert session.scalar(select(Hauler.contact_email).where(Hauler.licence_number == "VV-3")) == "office@vv.test"
    cleared = upload(client, admin_token, "haulers", (haulers + "Valley Vac,VV-3,2028-06-30,\n").encode())
    assert cleared.json["updated"] == 1
    session.expire_all()
    assert session.scalar(select(Hauler.contact_email).where(Hauler.licence_number == "VV-3")) is None
    bad = upload(client, admin_token, "fses", (fses + "Cafe,1 Rd,9,Al,al@example.com,not-an-address\n").encode())
    assert bad.json["rejected"] == 1 and "contact_email" in bad.json["rejections"][0]["reason"]
    session.expire_all()
    assert session.scalar(select(Fse.contact_email)) == "desk@cafe.test"


def test_auditor_cannot_import(client, session):
    factories.jurisdiction(session, "victorville")
    token = factories.token(client, *factories.oauth_client(session, role="auditor", subject=["victorville"]))
    assert upload(client, token, "fses", b"name\n").status_code == 403


def test_imported_small_interceptor_is_warned(app, session, tmp_path):
    factories.jurisdiction(session, "colusa")
    runner = app.test_cli_runner()
    files = {
        "fses": "name,address,apn,operator_name,operator_email\nCafe,1 Rd,9,Al,al@example.com\n",
        "permits": "permit_number,fse_apn,fse_name,kind,status,issued_on,expires_on\n"
        "CO-1,9,Cafe,regular,active,2025-01-01,2027-01-01\n",
        "devices": "permit_number,tag,kind,capacity_gallons,liquid_depth_in,frequency_days\n"
        "CO-1,GI-1,interceptor,500,40,90\n",
    }
    for kind, content in files.items():
        path = tmp_path / f"{kind}.csv"
        path.write_text(content)
        result = runner.invoke(args=["import", kind, str(path), "--jurisdiction", "colusa"])
    assert "1 created" in result.output
    assert "row 2 warning: 500 gallons is below the 1000-gallon minimum" in result.output
