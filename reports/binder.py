"""The records binder (ReportLab): a cover that says what each figure counts, the compliance
summary with a chart, every pump-out in one table, a page per kind of finding with its rule,
each manifest's details, and the scans appended, each page footed with the FSE and period.
It is a tagged PDF (`reports.pdf_tags`): structure, title, language and alt text.

Every time in it is the city's local time with its offset, every date its local date
(`domain.dates.human`, `local_date`)."""

import io
import tempfile

from pypdf import PdfReader, PdfWriter, Transformation
from reportlab.lib import colors
from reportlab.lib.pagesizes import LETTER
from reportlab.lib.units import inch
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfgen import canvas as pdfcanvas
from reportlab.platypus import BaseDocTemplate, Frame, NextPageTemplate, PageBreak, PageTemplate

from reports.binder_manifests import finding_pages, image_page, manifest_details, manifests_table, scans_index
from reports.binder_pages import cover, summary_page
from reports.binder_style import ACCENT, INK, MARGIN, PAGE_H, PAGE_W, RULE
from reports.pdf_tags import Tagger
from reports.pdf_text import SANS, SANS_BOLD, draw, fit, text_width

FOOTER_SIZE = 7.5
PAGE_LABEL_ROOM = pdfmetrics.stringWidth("Page 9999 of 9999", SANS, FOOTER_SIZE) + 12


def period_text(record):
    return f" · {record.period_from.isoformat()} to {record.period_to.isoformat()}"


def footer_text(record, width=PAGE_W - 2 * MARGIN):
    """The FSE and the period, in `width` points beside the page number: the name gives way."""
    period = period_text(record)
    room = width - PAGE_LABEL_ROOM - text_width(period, SANS, FOOTER_SIZE)
    return fit(record.fse.name, SANS, FOOTER_SIZE, room) + period


def draw_footer(canvas, text, page, total):
    canvas._code.append("/Artifact BMC")
    canvas.saveState()
    canvas.setStrokeColor(RULE)
    canvas.setLineWidth(0.5)
    canvas.line(MARGIN, 0.6 * inch, PAGE_W - MARGIN, 0.6 * inch)
    canvas.setFillColor(INK)
    draw(canvas, MARGIN, 0.45 * inch, text, SANS, FOOTER_SIZE)
    canvas.drawRightString(PAGE_W - MARGIN, 0.45 * inch, f"Page {page} of {total}")
    canvas.restoreState()
    canvas._code.append("EMC")


def numbered_canvas(text, extra_pages, title, ua):
    class NumberedCanvas(pdfcanvas.Canvas):
        """Holds pages until the end, so each can say 'Page n of N'; tags what it draws."""

        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            self._pages = []
            self.tagger = Tagger()

        def showPage(self):
            self._pages.append(dict(self.__dict__))
            self._startPage()
            self.tagger.page += 1

        def save(self):
            total = len(self._pages) + extra_pages
            for number, state in enumerate(self._pages, start=1):
                self.__dict__.update(state)
                draw_footer(self, text, number, total)
                super().showPage()
            self.tagger.finish(self, title=title, ua=ua)
            super().save()

    return NumberedCanvas


HEADER_LABEL, HEADER_SIZE = "FOG PUMP-OUT RECORDS", 8
# What the FSE's name has beside the label in the header band (a gap of 18 points between).
HEADER_NAME_ROOM = PAGE_W - 2 * MARGIN - 18 - pdfmetrics.stringWidth(HEADER_LABEL, SANS_BOLD, HEADER_SIZE)


def _header(canvas, doc):
    canvas._code.append("/Artifact BMC")
    canvas.saveState()
    canvas.setFillColor(ACCENT)
    canvas.rect(0, PAGE_H - 0.32 * inch, PAGE_W, 0.32 * inch, stroke=0, fill=1)
    canvas.setFillColor(colors.white)
    canvas.setFont(SANS_BOLD, HEADER_SIZE)
    canvas.drawString(MARGIN, PAGE_H - 0.21 * inch, HEADER_LABEL)
    draw(canvas, PAGE_W - MARGIN, PAGE_H - 0.21 * inch, doc.fogx_title, SANS_BOLD, HEADER_SIZE, right=True)
    canvas.restoreState()
    canvas._code.append("EMC")


def render(record, open_object):
    """The binder as a temporary file (rewound); `open_object(key)` reads a scan's bytes."""
    scans = [(m, d) for m in record.manifests for d in m.documents]
    loaded = []
    pdf_scans = []
    for manifest, document in scans:
        with open_object(document.object_key) as handle:
            data = handle.read()
        loaded.append((manifest, document, data))
        if document.content_type == "application/pdf":
            try:
                reader = PdfReader(io.BytesIO(data))
                pdf_scans.append((manifest, document, reader, len(reader.pages)))
            except Exception:  # an unreadable PDF is listed, not merged
                continue
    extra = sum(count for *_, count in pdf_scans)

    story = cover(record, loaded) + [NextPageTemplate("body"), PageBreak()]
    story += summary_page(record) + [PageBreak()]
    story += manifests_table(record)
    story += finding_pages(record)
    if record.manifests:
        story += manifest_details(record)
    if loaded:
        story += [PageBreak()] + scans_index(record, loaded)
        for manifest, document, data in loaded:
            if document.content_type.startswith("image/"):
                try:
                    story += [PageBreak()] + image_page(manifest, document, data)
                except Exception:  # an unreadable image is listed, not placed
                    continue

    main = tempfile.SpooledTemporaryFile(max_size=8 * 1024 * 1024)
    title = f"FOG records: {record.fse.name}"
    doc = BaseDocTemplate(
        main,
        pagesize=LETTER,
        leftMargin=MARGIN,
        rightMargin=MARGIN,
        topMargin=0.7 * inch,
        bottomMargin=0.8 * inch,
        title=title,
        author=record.jurisdiction.name,
        lang="en-US",
        initialFontName=SANS,
        subject=record.fse.name + period_text(record),
    )
    doc.fogx_title = fit(record.fse.name, SANS_BOLD, HEADER_SIZE, HEADER_NAME_ROOM)
    frame = Frame(doc.leftMargin, doc.bottomMargin, doc.width, doc.height, id="main")
    doc.addPageTemplates([PageTemplate("cover", [frame]), PageTemplate("body", [frame], onPage=_header)])
    doc.build(story, canvasmaker=numbered_canvas(footer_text(record), extra, title, ua=not pdf_scans))
    if not pdf_scans:
        main.seek(0)
        return main

    main.seek(0)
    writer = PdfWriter(clone_from=PdfReader(main))
    page_number = len(writer.pages)
    total = page_number + extra
    band = 0.65 * inch  # a strip added below each scanned page, so nothing of the scan is covered
    for manifest, document, reader, _ in pdf_scans:
        for scanned in reader.pages:
            page_number += 1
            page = writer.add_page(scanned)  # the writer's own copy, which it can merge into
            x0, y0 = float(page.mediabox.left), float(page.mediabox.bottom)
            width = float(page.mediabox.width)
            page.mediabox.lower_left = (x0, y0 - band)
            page.cropbox.lower_left = (x0, y0 - band)
            overlay = io.BytesIO()
            stamp = pdfcanvas.Canvas(overlay, pagesize=(width, band))
            stamp.setFillColor(colors.white)
            stamp.rect(0, 0, width, band, stroke=0, fill=1)
            stamp.setStrokeColor(RULE)
            stamp.line(MARGIN / 2, band - 4, width - MARGIN / 2, band - 4)
            stamp.setFillColor(INK)
            draw(
                stamp,
                MARGIN / 2,
                band - 16,
                f"Scan of manifest {manifest.manifest_number} · sha256 {document.sha256}",
                SANS,
                7,
            )
            draw(stamp, MARGIN / 2, band - 30, footer_text(record, width - MARGIN), SANS, FOOTER_SIZE)
            stamp.drawRightString(width - MARGIN / 2, band - 30, f"Page {page_number} of {total}")
            stamp.save()
            overlay.seek(0)
            page.merge_transformed_page(PdfReader(overlay).pages[0], Transformation().translate(x0, y0 - band))
    out = tempfile.SpooledTemporaryFile(max_size=8 * 1024 * 1024)
    writer.write(out)
    out.seek(0)
    return out
