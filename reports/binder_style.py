"""The binder's styles, colours and page size, and the cells, tables and citations every page
of it draws with."""

from reportlab.lib import colors
from reportlab.lib.enums import TA_CENTER
from reportlab.lib.pagesizes import LETTER
from reportlab.lib.styles import ParagraphStyle, getSampleStyleSheet
from reportlab.lib.units import inch
from reportlab.pdfbase import pdfmetrics
from reportlab.platypus import Table, TableStyle

from domain.presets import POLICY
from reports.pdf_tags import TableTags
from reports.pdf_tags import TaggedParagraph as Paragraph
from reports.pdf_text import MONO_FONT, SANS, SANS_BOLD, esc, text_width

INK = colors.HexColor("#1f2d3a")
ACCENT = colors.HexColor("#0f6e6e")
PALE = colors.HexColor("#eef4f4")
RULE = colors.HexColor("#c9d6d6")
WARN = colors.HexColor("#b45309")
BAD = colors.HexColor("#b91c1c")
GOOD = colors.HexColor("#15803d")
STATUS_COLOURS = {
    "compliant": GOOD,
    "due_soon": ACCENT,
    "overdue": WARN,
    "missed": BAD,
    "never_serviced": BAD,
    "permit_ended": INK,
    "retired": INK,
}

PAGE_W, PAGE_H = LETTER
MARGIN = 0.75 * inch

styles = getSampleStyleSheet()
H1 = ParagraphStyle(
    "H1", parent=styles["Heading1"], fontName=SANS_BOLD, bulletFontName=SANS, textColor=INK, fontSize=18, spaceAfter=6
)
H2 = ParagraphStyle(
    "H2",
    parent=styles["Heading2"],
    fontName=SANS_BOLD,
    bulletFontName=SANS,
    textColor=ACCENT,
    fontSize=13,
    spaceBefore=8,
    spaceAfter=4,
)
H3 = ParagraphStyle(
    "Subhead",
    parent=styles["Heading3"],
    fontName=SANS_BOLD,
    bulletFontName=SANS,
    textColor=INK,
    fontSize=10,
    leading=13,
    spaceBefore=4,
    spaceAfter=2,
)
BODY = ParagraphStyle(
    "Body", parent=styles["BodyText"], fontName=SANS, bulletFontName=SANS, textColor=INK, fontSize=9.5, leading=12.5
)
SMALL = ParagraphStyle("Small", parent=BODY, fontSize=8, leading=10, textColor=colors.HexColor("#4b5b68"))
# Cells break lines between words only: a ticket or licence number is never cut in two.
CELL = ParagraphStyle(
    "Cell",
    parent=BODY,
    fontSize=8,
    leading=10,
    spaceBefore=0,
    spaceAfter=0,
    splitLongWords=0,
    hyphenationLang="",
    embeddedHyphenation=0,
)
NOTE = ParagraphStyle("Note", parent=CELL, fontSize=7, leading=9, textColor=SMALL.textColor)
HEAD = ParagraphStyle("Head", parent=CELL, fontName=SANS_BOLD, textColor=colors.white)
MONO = ParagraphStyle("Mono", parent=CELL, fontName=MONO_FONT, fontSize=7, leading=9)
TITLE = ParagraphStyle("Title", parent=H1, fontSize=26, leading=32, alignment=TA_CENTER, spaceAfter=10)
SUBTITLE = ParagraphStyle("Subtitle", parent=BODY, fontSize=13, leading=17, alignment=TA_CENTER, textColor=ACCENT)


def nobreak(value):
    """A value read as one token (a ticket, a licence, a manifest number): its spaces do not break."""
    return str(value).replace(" ", "\u00a0")


def cell(text, width, style=None, *, bold=False, flowable=False):
    """Plain text as a cell `width` points wide whose every word fits whole: the type shrinks
    (never the word) until the longest one does. A short line of Latin text is a plain string
    (drawn in the table's font, much faster than a paragraph) unless a `flowable` is wanted."""
    text = str(text)
    style = style or CELL
    font = SANS_BOLD if bold else style.fontName
    room = width - 7  # the table's padding
    if (
        not flowable
        and style is CELL
        and not bold
        and text.isascii()
        and "\n" not in text
        and pdfmetrics.stringWidth(text, font, style.fontSize) <= room
    ):
        return text
    longest = max((text_width(word, font, style.fontSize) for word in text.split(" ")), default=0)
    markup = f"<b>{esc(text)}</b>" if bold else esc(text)
    if longest <= room:
        return Paragraph(markup, style)
    size = style.fontSize * room / longest
    return Paragraph(markup, ParagraphStyle(f"{style.name}-fit", parent=style, fontSize=size, leading=size * 1.25))


def table(rows, widths, header=True, zebra=True, header_columns=()):
    """A table tagged as one (TH for its header row and `header_columns`), its header
    repeated on each page."""
    if header:  # a heading wider than its column wraps, or shrinks, like any cell
        rows = [
            [
                cell(text, width, HEAD)
                if isinstance(text, str) and pdfmetrics.stringWidth(text, SANS_BOLD, 8) > width - 7
                else text
                for text, width in zip(rows[0], widths)
            ],
            *rows[1:],
        ]
    t = Table(
        rows, colWidths=widths, repeatRows=1 if header else 0, renderCB=TableTags(1 if header else 0, header_columns)
    )
    style = [
        ("FONT", (0, 0), (-1, -1), SANS, 8),
        ("TEXTCOLOR", (0, 0), (-1, -1), INK),
        ("VALIGN", (0, 0), (-1, -1), "TOP"),
        ("LINEBELOW", (0, 0), (-1, -1), 0.25, RULE),
        ("TOPPADDING", (0, 0), (-1, -1), 3),
        ("BOTTOMPADDING", (0, 0), (-1, -1), 3),
        ("LEFTPADDING", (0, 0), (-1, -1), 3.5),
        ("RIGHTPADDING", (0, 0), (-1, -1), 3.5),
    ]
    if header:
        style += [
            ("BACKGROUND", (0, 0), (-1, 0), ACCENT),
            ("TEXTCOLOR", (0, 0), (-1, 0), colors.white),
            ("FONT", (0, 0), (-1, 0), SANS_BOLD, 8),
        ]
    if zebra:
        style += [("ROWBACKGROUNDS", (0, 1 if header else 0), (-1, -1), [colors.white, PALE])]
    t.setStyle(TableStyle(style))
    return t


def key_values(pairs, widths=(1.7 * inch, 5.3 * inch)):
    """A table of (label, value) pairs as plain text, two or four columns wide (`widths`),
    the labels in bold."""
    per_row = len(widths) // 2
    rows = []
    for start in range(0, len(pairs), per_row):
        row = []
        for index, (k, v) in enumerate(pairs[start : start + per_row]):
            label_w = widths[2 * index]
            fits = k.isascii() and pdfmetrics.stringWidth(k, SANS_BOLD, CELL.fontSize) <= label_w - 7
            row += [k if fits else cell(k, label_w, bold=True), cell(v, widths[2 * index + 1])]
        rows.append(row + [""] * (len(widths) - len(row)))
    labels = range(0, len(widths), 2)
    t = table(rows, widths, header=False, zebra=True, header_columns=labels)
    t.setStyle(TableStyle([("FONT", (column, 0), (column, -1), SANS_BOLD, 8) for column in labels]))
    return t


def citing(citation):
    """A rule's citation as read: the city's section, or that the exchange applies it."""
    if not citation or citation == POLICY:
        return "exchange policy (the ordinance states no such rule; the exchange applies it)"
    return citation
