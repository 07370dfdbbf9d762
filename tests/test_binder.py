"""The binder read back with pypdf as a person and a screen reader meet it: the hauler, its
licence, the site and the ticket of every pump-out in a compact table, whole; each kind of
finding in words on its own page with the rule and this city's citation; the missed service
said as such; and a tagged PDF (structure tree, language, title, XMP, marked content)."""

import io
import json
import math
import uuid
from datetime import timedelta

import pytest
from pypdf import PdfReader
from pypdf.generic import ArrayObject, DictionaryObject

from domain.checks import CODES
from domain.presets import PRESETS
from domain.words import FINDINGS, STATUSES
from storage.models import Fse
from tests import factories
from tests.manifest_world import NOW, build

LONG_TICKET = "WTK-2026-0000123456"
SPACED_TICKET = "TKT 7788-A"
LATER_HAULER = "Sierra Grease & Septic Services of the High Desert"
MANIFESTS = 30


@pytest.fixture
def binder(client, session, frozen_clock):
    """Thirty pump-outs of one interceptor (every 90 days) by two haulers to two sites: the
    oldest twenty-eight filed late, one filed on time, and the last, 100 days before today, filed
    late and 100 days after the one before it; so the device has missed its service."""
    frozen_clock(NOW)
    world = build(client, session)
    later = factories.hauler(session, name=LATER_HAULER, vehicles=(("TRK-1", 3000),))
    later_site = factories.disposal_site(session)
    later_token = factories.token(client, *factories.oauth_client(session, role="hauler", subject=[later.id]))
    numbers = []
    for index in range(MANIFESTS - 2):
        body = world.body(completed=NOW - timedelta(days=480 - 10 * index))
        assert world.post(body).status_code == 201
        numbers.append(body["manifest_number"])
    on_time = world.body(completed=NOW - timedelta(days=200))
    on_time["disposal"]["ticket_number"] = LONG_TICKET
    frozen_clock(NOW - timedelta(days=200, hours=-2))
    world.reauthenticate()
    assert world.post(on_time).status_code == 201
    frozen_clock(NOW)
    world.reauthenticate()
    late = world.body(completed=NOW - timedelta(days=100))
    late["disposal"].update(ticket_number=SPACED_TICKET, site_id=str(later_site.id))
    assert world.post(late, token=later_token).status_code == 201
    numbers += [on_time["manifest_number"], late["manifest_number"]]
    operator = factories.token(client, *factories.oauth_client(session, role="fse", subject=[world.device.fse_id]))
    response = client.get(
        f"/v1/fses/{world.device.fse_id}/records", query_string={"format": "pdf"}, headers=factories.bearer(operator)
    )
    assert response.status_code == 200
    reader = PdfReader(io.BytesIO(response.data))
    return {
        "reader": reader,
        "pages": [page.extract_text().replace("\u00a0", " ") for page in reader.pages],
        "world": world,
        "later": later,
        "later_site": later_site,
        "numbers": numbers,
        "fse": session.get(Fse, world.device.fse_id),
    }


def page_with(pages, text):
    return next(page for page in pages if text in page)


def test_every_pump_out_names_its_hauler_licence_site_and_ticket_whole(binder):
    pages, world, later = binder["pages"], binder["world"], binder["later"]
    table = pages[2]
    assert "Every pump-out" in table
    for text in (
        world.hauler.name,
        f"licence {world.hauler.licence_number}",
        world.site.name,
        f"licence {later.licence_number}",
        binder["later_site"].name,
    ):
        assert any(text in page for page in pages[2:4]), text
    # Neither ticket is cut over two lines in the table's narrow column (the type shrinks).
    assert any(LONG_TICKET in page for page in pages[2:4])
    assert any(SPACED_TICKET in page for page in pages[2:4])
    # The later hauler's name wraps between its words, each whole, in the one cell.
    text = " ".join(" ".join(pages[2:4]).split())
    assert LATER_HAULER in text and "Sierra Grease &amp;" not in text


def test_the_table_holds_several_pump_outs_a_page(binder):
    """Thirty pump-outs over at most four pages (eight or more each), the header repeated."""
    pages = binder["pages"]
    first_seen = {
        number: next(index for index, page in enumerate(pages) if number in page) for number in binder["numbers"]
    }
    spanned = set(first_seen.values())
    assert min(spanned) == 2 and 2 <= len(spanned) <= math.ceil(MANIFESTS / 8)  # over a page break
    assert all("Open findings" in pages[index] and "Ticket" in pages[index] for index in spanned)


def test_the_cover_says_what_each_figure_counts(binder):
    cover = " ".join(binder["pages"][0].split())
    assert (
        f"Filed on time: 1 of {MANIFESTS} pump-outs were filed within 3 days (72 hours) of the service "
        f"(Victorville 10.03.170(b)); {MANIFESTS - 1} filed late."
    ) in cover
    assert f"Qualifying services: {MANIFESTS} of {MANIFESTS} pump-outs count toward the device's frequency." in cover
    assert (
        "Missed service: GI-1 (interceptor, every 90 days) missed its service as of 2026-06-01: "
        "due 2026-05-22, 10 days past due."
    ) in cover
    assert "100%" not in cover


def test_each_kind_of_finding_has_a_page_with_its_rule_and_this_citys_citation(binder):
    pages = [" ".join(page.split()) for page in binder["pages"]]
    late = page_with(pages, "Finding: Manifest filed late")
    assert ("The rule A manifest reaches the city within this many hours of the service. This city's figure 72") in late
    assert "Citation Victorville 10.03.170(b)" in late
    quote = PRESETS["victorville"]["sources"]["manifest_deadline_hours"].quote
    assert quote in late
    assert f"The pump-outs it concerns ({MANIFESTS - 1} pump-outs)" in late
    interval = page_with(pages, "Finding: Serviced later than its frequency")
    assert binder["numbers"][-1] in interval and LATER_HAULER in interval and SPACED_TICKET in interval
    missed = page_with(pages, "Finding: Missed service")
    assert "GI-1 90 days 2026-02-21 2026-05-22 10 Missed" in missed


def test_no_code_is_printed_where_words_belong(binder):
    assert set(FINDINGS) == set(CODES)  # every finding has its words
    text = "\n".join(binder["pages"])
    codes = [code for code in [*CODES, *STATUSES, "grease_interceptor_waste"] if "_" in code]
    assert len(codes) > len(CODES)
    for code in codes:
        assert code not in text, code
    assert "grease interceptor waste" in text and "Manifest filed late" in text


def struct_tree(reader):
    """The structure elements of the document, in order: (role, element)."""
    found = []

    def walk(node):
        node = node.get_object()
        if isinstance(node, DictionaryObject) and node.get("/Type") in ("/StructElem", None) and "/S" in node:
            found.append((node["/S"], node))
        kids = node.get("/K") if isinstance(node, DictionaryObject) else None
        for kid in kids if isinstance(kids, ArrayObject) else [kids] if kids is not None else []:
            if (
                hasattr(kid, "get_object")
                and isinstance(kid.get_object(), DictionaryObject)
                and kid.get_object().get("/Type") != "/MCR"
            ):
                walk(kid)

    walk(reader.trailer["/Root"]["/StructTreeRoot"])
    return found


def test_the_binder_is_a_tagged_pdf(binder):
    reader = binder["reader"]
    root = reader.trailer["/Root"]
    title = f"FOG records: {binder['fse'].name}"
    assert root["/Lang"] == "en-US"
    assert root["/MarkInfo"]["/Marked"] is True or root["/MarkInfo"]["/Marked"] == True  # noqa: E712
    assert root["/ViewerPreferences"]["/DisplayDocTitle"] == True  # noqa: E712
    assert reader.metadata.title == title
    assert reader.xmp_metadata.dc_title["x-default"] == title
    xmp = root["/Metadata"].get_object().get_data().decode()
    assert "<pdfuaid:part>1</pdfuaid:part>" in xmp  # no scan of unknown structure is merged
    elements = struct_tree(reader)
    roles = [role for role, _ in elements]
    assert roles[0] == "/Document"
    for role in ("/H1", "/H2", "/P", "/Table", "/TR", "/TH", "/TD", "/Figure"):
        assert role in roles, role
    headings = [int(role[2]) for role in roles if role in ("/H1", "/H2", "/H3")]
    assert headings[0] == 1 and all(b <= a + 1 for a, b in zip(headings, headings[1:]))  # no level skipped
    scopes = {str(element["/A"]["/Scope"]) for role, element in elements if role == "/TH"}
    assert scopes == {"/Column", "/Row"}  # column heads, and the labels of label-value tables
    assert all(element.get("/Alt") for role, element in elements if role == "/Figure")
    # The pump-outs' table runs over two pages but is one table, its header row once (repeated
    # on the next page as an artifact).
    tables = [element for role, element in elements if role == "/Table"]
    heads = []
    for table in tables:
        rows = [kid.get_object() for kid in table["/K"]]
        cells = [cell.get_object()["/S"] for row in rows for cell in row["/K"]]
        heads.append(cells.count("/TH"))
    assert 7 in heads  # the every-pump-out table: seven column heads, not fourteen
    fonts = {font.get_object()["/BaseFont"] for page in reader.pages for font in page["/Resources"]["/Font"].values()}
    assert all("DejaVu" in font for font in fonts), fonts  # every font embedded
    assert max(len(table["/K"]) for table in tables) == MANIFESTS + 1

    # Each page's marked content is the structure its parent tree says, MCID for MCID.
    parents = root["/StructTreeRoot"]["/ParentTree"]["/Nums"]
    by_key = {parents[i]: parents[i + 1] for i in range(0, len(parents), 2)}
    for page in reader.pages:
        content = page.get_contents().get_data().decode("latin-1")
        marked = content.count("<</MCID ")
        assert marked > 0 and "/Artifact BMC" in content
        owners = by_key[page["/StructParents"]]
        assert len(owners) == marked
        for mcid, owner in enumerate(owners):
            owner = owner.get_object()
            assert f"/{owner['/S'][1:]} <</MCID {mcid}>> BDC" in content
            kids = owner["/K"]
            assert mcid in kids or any(
                isinstance(k.get_object(), DictionaryObject) and k.get_object().get("/MCID") == mcid for k in kids
            )


def test_a_merged_pdf_scan_drops_the_pdf_ua_claim_but_not_the_tags(client, session, frozen_clock):
    """A scan filed as a PDF is a page of unknown structure: the binder still has its tags,
    title and language, but does not claim PDF/UA."""
    frozen_clock(NOW)
    world = build(client, session)
    response = client.post(
        "/v1/manifests",
        content_type="multipart/form-data",
        headers=factories.bearer(world.hauler_token),
        data={"manifest": json.dumps(world.body()), "documents": [(io.BytesIO(factories.pdf_bytes()), "signed.pdf")]},
    )
    assert response.status_code == 201, response.json
    operator = factories.token(client, *factories.oauth_client(session, role="fse", subject=[world.device.fse_id]))
    reader = PdfReader(
        io.BytesIO(
            client.get(
                f"/v1/fses/{uuid.UUID(str(world.device.fse_id))}/records",
                query_string={"format": "pdf"},
                headers=factories.bearer(operator),
            ).data
        )
    )
    root = reader.trailer["/Root"]
    assert root["/Lang"] == "en-US" and "/StructTreeRoot" in root
    assert "SIGNED MANIFEST" in reader.pages[-1].extract_text()
    xmp = root["/Metadata"].get_object().get_data().decode()
    assert "dc:title" in xmp and "pdfuaid" not in xmp
