"""Per-FSE records: JSON, CSV, a PDF binder read back with pypdf, and a ZIP that proves itself."""

import csv
import hashlib
import io
import json
import uuid
import zipfile
from datetime import timedelta

import pytest
from pypdf import PdfReader
from werkzeug.http import parse_options_header

from domain import chain
from storage.models import Fse
from tests import factories
from tests.manifest_world import NOW, build


@pytest.fixture
def filed(client, session, frozen_clock):
    """Three manifests for one FSE: a clean one with scans, a late one, a partial one."""
    frozen_clock(NOW)
    world = build(client, session)
    headers = factories.bearer(world.hauler_token)
    pdf, png = factories.pdf_bytes(pages=2), factories.png_bytes((640, 480))
    clean = world.body(completed=NOW - timedelta(days=200))
    frozen_clock(NOW - timedelta(days=200, hours=-2))  # filed two hours after the service
    first = client.post(
        "/v1/manifests",
        content_type="multipart/form-data",
        headers=headers,
        data={
            "manifest": json.dumps(clean),
            "documents": [(io.BytesIO(pdf), "signed.pdf"), (io.BytesIO(png), "before.png")],
        },
    )
    assert first.status_code == 201, first.json
    frozen_clock(NOW)
    late = world.post(world.body(completed=NOW - timedelta(days=100))).json
    partial = world.post(world.body(completed=NOW - timedelta(hours=5), gallons_removed=400)).json
    operator = factories.token(client, *factories.oauth_client(session, role="fse", subject=[world.device.fse_id]))
    return {
        "world": world,
        "operator": operator,
        "manifests": [first.json, late, partial],
        "fse_id": str(world.device.fse_id),
        "scans": {"pdf": pdf, "png": png},
    }


def get(client, filed, fmt=None, accept=None, token=None):
    headers = factories.bearer(token or filed["operator"])
    if accept:
        headers["Accept"] = accept
    query = {"format": fmt} if fmt else {}
    return client.get(f"/v1/fses/{filed['fse_id']}/records", headers=headers, query_string=query)


def test_json_record_with_summary(client, filed):
    response = get(client, filed)
    assert response.status_code == 200 and response.headers["Cache-Control"] == "no-store"
    record = response.json
    assert record["period"] == {
        "from": "2023-06-01",
        "to": "2026-06-01",
    }  # three years: exchange policy (Victorville 10.03.170(c) asks two)
    assert [m["manifest_number"] for m in record["manifests"]] == [m["manifest_number"] for m in filed["manifests"]]
    summary = record["summary"]
    assert summary["manifests"] == 3
    assert summary["findings_by_code"]["partial_pump_down"] == 1
    assert summary["findings_by_code"]["late_submission"] == 1
    assert summary["on_time_share"] == round(2 / 3, 4)
    # The last qualifying service was 100 days ago on a 90-day device; the partial one does not count.
    assert summary["devices"]["GI-1"] == {"status": "missed", "next_due_on": "2026-05-22", "days_overdue": 10}
    assert len(record["manifests"][0]["documents"]) == 2
    # 7 in measured at the two services after a full pump-down, 100 days each: not yet the
    # three intervals a frequency is drawn from.
    [device] = record["devices"]
    assert device["measured"] == {
        "intervals": 2,
        "accumulation_in_per_day": 0.07,
        "share_at_frequency": 0.131,
        "recommended_frequency_days": None,
        "change": None,
    }
    from tests.spec import load_spec, schema_errors

    assert schema_errors(load_spec(), {"$ref": "#/components/schemas/Record"}, record) == []


def test_csv_one_row_per_manifest(client, filed):
    response = get(client, filed, accept="text/csv")
    assert response.status_code == 200 and response.mimetype == "text/csv"
    rows = list(csv.DictReader(io.StringIO(response.get_data(as_text=True))))
    assert [r["manifest_number"] for r in rows] == [m["manifest_number"] for m in filed["manifests"]]
    assert rows[2]["finding_codes"] == "partial_pump_down service_interval_exceeded"
    assert rows[2]["qualifying"] == "no"
    assert rows[0]["documents"] == "2"
    assert rows[0]["sha256"] == filed["manifests"][0]["sha256"]
    # The device's kind and the waste in words beside their codes.
    assert (rows[0]["device_kind"], rows[0]["device_kind_words"]) == ("interceptor", "Interceptor")
    assert (rows[0]["waste_type"], rows[0]["waste_type_words"]) == (
        "grease_interceptor_waste",
        "Grease interceptor waste",
    )


def test_csv_cells_that_a_spreadsheet_would_run_are_quoted(client, filed):
    world = filed["world"]
    world.post(world.body(driver_name='=HYPERLINK("http://evil","x")', gallons_removed=1400))
    rows = list(csv.DictReader(io.StringIO(get(client, filed, fmt="csv").get_data(as_text=True))))
    assert rows[-1]["driver_name"] == '\'=HYPERLINK("http://evil","x")'
    assert rows[-1]["gallons_removed"] == "1400"


@pytest.mark.parametrize(
    ("kind", "mimetype"), [("csv", "text/csv"), ("pdf", "application/pdf"), ("zip", "application/zip")]
)
def test_each_file_of_the_record_has_an_operation_of_its_own(client, filed, kind, mimetype):
    """`/records/{format}` answers what `?format=` does, as its own operation (a generated
    client reads one kind of answer an operation), in the format's type or as bytes where
    `Accept` prefers those."""
    headers = factories.bearer(filed["operator"])
    path = f"/v1/fses/{filed['fse_id']}/records/{kind}"
    response = client.get(path, headers=headers)
    assert response.status_code == 200 and response.mimetype == mimetype
    assert response.headers["Content-Disposition"] == get(client, filed, fmt=kind).headers["Content-Disposition"]
    if kind == "csv":
        assert response.get_data() == get(client, filed, fmt="csv").get_data()
    raw = client.get(path, headers={**headers, "Accept": "application/octet-stream"})
    assert raw.status_code == 200 and raw.mimetype == "application/octet-stream"
    assert client.get(f"/v1/fses/{filed['fse_id']}/records/xls", headers=headers).status_code == 404


@pytest.mark.parametrize("lead", ["\t", "\r"])
def test_csv_cells_led_by_a_tab_or_carriage_return_are_quoted(client, filed, lead):
    """A spreadsheet drops a leading TAB or CR and runs what follows (`\t=cmd|...`), so those
    cells are quoted as `=`, `+`, `-` and `@` are (exchange policy)."""
    world = filed["world"]
    world.post(world.body(driver_name=lead + '=HYPERLINK("http://evil","x")', gallons_removed=1400))
    rows = list(csv.DictReader(io.StringIO(get(client, filed, fmt="csv").get_data(as_text=True), newline="")))
    assert rows[-1]["driver_name"] == "'" + lead + '=HYPERLINK("http://evil","x")'


@pytest.mark.parametrize("fmt", ["csv", "pdf", "zip"])
def test_a_download_named_by_what_users_typed_keeps_an_ascii_header(client, session, filed, fmt):
    """The file is named by the FSE's name and APN, which are typed in: a name outside printable ASCII
    goes whole in `filename*` (RFC 8187) beside an ASCII `filename`. A header the server
    cannot encode would lose the response (gunicorn closes the connection without one)."""
    session.get(Fse, uuid.UUID(filed["fse_id"])).apn = 'Parcela "Ñ" 12\\3'
    session.commit()
    response = get(client, filed, fmt=fmt)
    assert response.status_code == 200
    header = response.headers["Content-Disposition"]
    assert header.isascii(), header
    fse = session.get(Fse, uuid.UUID(filed["fse_id"]))
    named = f"{fse.name} - fogx records "
    assert f'filename="{named}Parcela ___ 12_3 2023-06-01 to 2026-06-01.{fmt}"' in header
    _, options = parse_options_header(header)
    assert options["filename"] == f'{named}Parcela "Ñ" 12\\3 2023-06-01 to 2026-06-01.{fmt}'


def test_the_binder_writes_a_vietnamese_name_as_it_is(client, session, filed):
    """A restaurant's name outside Western European letters is drawn with the embedded font,
    not as a box: the text read back from the cover is the name."""
    session.get(Fse, uuid.UUID(filed["fse_id"])).name = "Phở Hòa Ωmega Кафе"
    session.commit()
    reader = PdfReader(io.BytesIO(get(client, filed, fmt="pdf").data))
    assert "Phở Hòa Ωmega Кафе" in reader.pages[0].extract_text()
    fonts = {
        font["/BaseFont"].split("+")[-1] for page in reader.pages[:4] for font in page["/Resources"]["/Font"].values()
    }
    assert "DejaVuSans" in fonts and "Helvetica" not in fonts


def test_the_binder_writes_chinese_korean_and_japanese_names_as_they_are(client, session, filed):
    """What DejaVu lacks is drawn in the CJK font, in paragraphs and in the footers drawn on
    the canvas; a binder without such text does not carry that font."""
    plain = PdfReader(io.BytesIO(get(client, filed, fmt="pdf").data))
    name = "金龍餐廳 한국식당 すし Café"
    session.get(Fse, uuid.UUID(filed["fse_id"])).name = name
    session.commit()
    reader = PdfReader(io.BytesIO(get(client, filed, fmt="pdf").data))
    assert name in reader.pages[0].extract_text()
    # Each piece is drawn in its own font, which a reader takes apart: compare the words.
    footer = " ".join(f"{name} · 2023-06-01 to 2026-06-01".split())
    assert all(footer in " ".join(page.extract_text().split()) for page in reader.pages)

    def fonts(pdf):
        return {
            font["/BaseFont"].split("+")[-1]
            for page in pdf.pages
            for font in page["/Resources"].get("/Font", {}).values()
        }

    def cjk(pdf):
        return any(font.startswith("WenQuanYiMicroHei") for font in fonts(pdf))

    assert cjk(reader) and not cjk(plain)


def test_what_a_hauler_typed_reads_as_typed(client, filed):
    """Escaped once: a ticket or a driver's name with `&` or `<` is shown as it was filed."""
    world = filed["world"]
    body = world.body(gallons_removed=1400, driver_name="O'Brien & <Sons>")
    body["disposal"]["ticket_number"] = "A&B-7"
    assert world.post(body).status_code == 201
    text = "\n".join(page.extract_text() for page in PdfReader(io.BytesIO(get(client, filed, fmt="pdf").data)).pages)
    assert "ticket A&B-7," in text and "O'Brien & <Sons>" in text and "&amp;" not in text and "&lt;" not in text


def test_a_long_name_gives_way_to_the_period_and_page_in_every_footer(client, session, filed):
    """A name of 200 characters is cut with an ellipsis in the header and the footers; the
    period and the page number are whole on every page, the scanned ones included."""
    name = ("Golden Dragon Seafood Restaurant and Banquet Hall of the San Gabriel Valley " * 3)[:200]
    session.get(Fse, uuid.UUID(filed["fse_id"])).name = name
    session.commit()
    pages = [page.extract_text() for page in PdfReader(io.BytesIO(get(client, filed, fmt="pdf").data)).pages]
    assert name in " ".join(pages[0].split())  # the cover has room for it, over lines
    assert len(pages) == 12
    for number, text in enumerate(pages, start=1):
        footer = next(line for line in text.splitlines() if "· 2023-06-01 to 2026-06-01" in line)
        assert "…" in footer and f"Page {number} of 12" in text


def test_pdf_binder_reads_back(client, filed):
    response = get(client, filed, fmt="pdf")
    assert response.status_code == 200 and response.mimetype == "application/pdf"
    assert response.headers["Content-Disposition"].startswith("attachment;")
    reader = PdfReader(io.BytesIO(response.data))
    pages = [page.extract_text() for page in reader.pages]
    text = "\n".join(pages)
    assert "FOG Pump-out Records" in pages[0]
    for manifest in filed["manifests"]:
        assert manifest["manifest_number"] in text
        assert manifest["sha256"] in text  # each hash on one line, as a reader compares it
    for phrase in ("Not fully pumped out", "Manifest filed late"):  # findings in words, not codes
        assert phrase in text
    assert "partial_pump_down" not in text and "late_submission" not in text
    assert "SIGNED MANIFEST page 2" in text  # the scanned PDF is merged
    # cover, summary, every pump-out, a page for each of the three kinds of finding and one on
    # the missed service, the manifests' details, scans index, 1 image page, 2 scanned pages
    assert len(reader.pages) == 12
    assert all(f"Page {n} of 12" in page for n, page in enumerate(pages, start=1))
    assert all("Restaurant" in page and "2023-06-01 to 2026-06-01" in page for page in pages)


def test_zip_verifies_itself(client, filed):
    response = get(client, filed, accept="application/zip")
    assert response.status_code == 200 and response.mimetype == "application/zip"
    archive = zipfile.ZipFile(io.BytesIO(response.data))
    names = archive.namelist()
    sums = dict(reversed(line.split("  ", 1)) for line in archive.read("SHA256SUMS").decode().splitlines())
    assert set(sums) == set(names) - {"SHA256SUMS"}
    for name, digest in sums.items():
        assert hashlib.sha256(archive.read(name)).hexdigest() == digest, name
    first = filed["manifests"][0]
    revision = archive.read(f"revisions/{first['manifest_number']}_{first['id']}/revision-1.json")
    assert hashlib.sha256(revision).hexdigest() == first["sha256"]
    assert chain.seal(json.loads(revision)) == first["sha256"]
    scans = [n for n in names if n.startswith("scans/")]
    assert len(scans) == 2
    assert archive.read(next(n for n in scans if n.endswith(".pdf"))) == filed["scans"]["pdf"]
    assert PdfReader(io.BytesIO(archive.read("binder.pdf"))).pages
    # What is compressed already (the binder, the scans) is stored; the JSON is deflated.
    stored = {name: archive.getinfo(name).compress_type == zipfile.ZIP_STORED for name in names}
    assert stored == {name: name == "binder.pdf" or name.startswith("scans/") for name in names}


def test_zip_entries_are_unique_when_manifest_numbers_collide(client, session, filed):
    """Two haulers may use the same manifest number for one restaurant, and `X/1` and `X_1`
    are made safe alike: each manifest's entries are in a folder of its own all the same,
    and `SHA256SUMS` checks every entry."""
    world = filed["world"]
    other = factories.hauler(session, cities=("victorville",), vehicles=(("TRK-1", 3000),))
    other_token = factories.token(client, *factories.oauth_client(session, role="hauler", subject=[other.id]))
    png = factories.png_bytes((32, 32))
    filings = [(world.hauler_token, "X/1"), (world.hauler_token, "X_1"), (other_token, "X/1")]
    for n, (token, number) in enumerate(filings):
        body = world.body(manifest_number=number, completed=NOW - timedelta(days=30 + 2 * n))
        body["vehicle_id"] = "TRK-1"
        response = client.post(
            "/v1/manifests",
            content_type="multipart/form-data",
            headers=factories.bearer(token),
            data={"manifest": json.dumps(body), "documents": [(io.BytesIO(png), "scan.png")]},
        )
        assert response.status_code == 201, response.json
    response = get(client, filed, fmt="zip")
    assert response.status_code == 200
    archive = zipfile.ZipFile(io.BytesIO(response.data))
    names = archive.namelist()
    assert len(names) == len(set(names)), sorted(n for n in names if names.count(n) > 1)
    assert archive.testzip() is None
    sums = [reversed(line.split("  ", 1)) for line in archive.read("SHA256SUMS").decode().splitlines()]
    sums = [tuple(pair) for pair in sums]
    assert len(sums) == len(names) - 1 and {name for name, _ in sums} == set(names) - {"SHA256SUMS"}
    for name, digest in sums:
        assert hashlib.sha256(archive.read(name)).hexdigest() == digest, name
    colliding = [n for n in names if n.startswith("scans/X_1_")]
    assert len(colliding) == 3 and all(archive.read(n) == png for n in colliding)
    assert len([n for n in names if n.startswith("revisions/X_1_")]) == 3


def test_period_and_formats(client, filed):
    narrow = client.get(
        f"/v1/fses/{filed['fse_id']}/records",
        headers=factories.bearer(filed["operator"]),
        query_string={"from": "2026-05-01", "to": "2026-06-01"},
    ).json
    assert len(narrow["manifests"]) == 1
    backwards = client.get(
        f"/v1/fses/{filed['fse_id']}/records",
        headers=factories.bearer(filed["operator"]),
        query_string={"from": "2026-05-01", "to": "2026-04-01"},
    )
    assert backwards.status_code == 422
    assert get(client, filed, accept="image/gif").status_code == 406
    assert get(client, filed, fmt="docx").status_code == 422


def test_another_operator_and_a_hauler_cannot_read(client, session, filed):
    other = factories.token(client, *factories.oauth_client(session, role="fse", subject=[factories.fse(session).id]))
    assert get(client, filed, token=other).status_code == 404
    assert get(client, filed, token=filed["world"].hauler_token).status_code == 403
    auditor = factories.token(client, *factories.oauth_client(session, role="auditor", subject=["victorville"]))
    assert get(client, filed, token=auditor).status_code == 200


def test_each_load_shows_the_disposal_sites_own_receipt_of_it(app, client):
    assert app.test_cli_runner().invoke(args=["demo", "load"]).exit_code == 0
    operator, site = (factories.token(client, f"demo-{role}", f"demo-{role}-secret") for role in ("fse", "site"))
    fses = client.get("/v1/fses", headers=factories.bearer(operator)).json["items"]
    golden = next(f for f in fses if f["name"] == "Golden Wok")
    path = f"/v1/fses/{golden['id']}/records"
    record = client.get(path, headers=factories.bearer(operator)).json
    receipts = {
        r["ticket_number"]: r
        for r in client.get("/v1/receipts?limit=200", headers=factories.bearer(site)).json["items"]
    }
    shown = {m["manifest_number"]: m["disposal_receipt"] for m in record["manifests"]}
    tickets = {
        m["manifest_number"]: m["revisions"][-1]["document"]["manifest"]["disposal"]["ticket_number"]
        for m in record["manifests"]
    }
    # The site's receipt of each load's ticket, as the site posted it; none where it sent none.
    assert shown == {number: receipts.get(ticket) for number, ticket in tickets.items()}
    assert shown["IGS-0015"]["gallons_received"] == 40 and None in shown.values()
    from tests.spec import load_spec, schema_errors

    assert schema_errors(load_spec(), {"$ref": "#/components/schemas/Record"}, record) == []
    binder = PdfReader(
        io.BytesIO(client.get(path, query_string={"format": "pdf"}, headers=factories.bearer(operator)).data)
    )
    page = next(" ".join(p.extract_text().split()) for p in binder.pages if "Manifest IGS-0015" in p.extract_text())
    assert "Received by the site" in page and "40 gal at" in page and "(the site's receipt)" in page
