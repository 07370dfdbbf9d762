"""The binder's pages as flowables: cover, compliance summary with its chart, services, manifests, scans."""
import io
from datetime import date, timedelta

from reportlab.graphics.shapes import Circle, Drawing, Line, Rect, String
from reportlab.lib import colors
from reportlab.lib.enums import TA_CENTER
from reportlab.lib.pagesizes import LETTER
from reportlab.lib.styles import ParagraphStyle, getSampleStyleSheet
from reportlab.lib.units import inch
from reportlab.lib.utils import ImageReader
from reportlab.platypus import Image, Paragraph, Spacer, Table, TableStyle

from domain.dates import human as when, local_date
from domain.frequency import ENOUGH_INTERVALS, citation as frequency_citation
from reports.pdf_text import MONO_FONT, SANS, SANS_BOLD, esc

INK = colors.HexColor("#1f2d3a")
ACCENT = colors.HexColor("#0f6e6e")
PALE = colors.HexColor("#eef4f4")
RULE = colors.HexColor("#c9d6d6")
WARN = colors.HexColor("#b45309")
BAD = colors.HexColor("#b91c1c")
GOOD = colors.HexColor("#15803d")
STATUS_COLOURS = {"compliant": GOOD, "due_soon": ACCENT, "overdue": WARN, "missed": BAD,
                  "never_serviced": BAD, "permit_ended": INK}

PAGE_W, PAGE_H = LETTER
MARGIN = 0.75 * inch

styles = getSampleStyleSheet()
H1 = ParagraphStyle("H1", parent=styles["Heading1"], fontName=SANS_BOLD, textColor=INK, fontSize=18,
                    spaceAfter=6)
H2 = ParagraphStyle("H2", parent=styles["Heading2"], fontName=SANS_BOLD, textColor=ACCENT, fontSize=13,
                    spaceBefore=8, spaceAfter=4)
BODY = ParagraphStyle("Body", parent=styles["BodyText"], fontName=SANS, textColor=INK, fontSize=9.5,
                      leading=12.5)
SMALL = ParagraphStyle("Small", parent=BODY, fontSize=8, leading=10, textColor=colors.HexColor("#4b5b68"))
CELL = ParagraphStyle("Cell", parent=BODY, fontSize=8, leading=10)
MONO = ParagraphStyle("Mono", parent=CELL, fontName=MONO_FONT, fontSize=7, leading=9)
TITLE = ParagraphStyle("Title", parent=H1, fontSize=28, leading=34, alignment=TA_CENTER, spaceAfter=14)
SUBTITLE = ParagraphStyle("Subtitle", parent=BODY, fontSize=13, leading=17, alignment=TA_CENTER,
                          textColor=ACCENT)


def human(code):
    return code.replace("_", " ")


def table(rows, widths, header=True, zebra=True):
    t = Table(rows, colWidths=widths, repeatRows=1 if header else 0)
    style = [
        ("FONT", (0, 0), (-1, -1), SANS, 8),
        ("TEXTCOLOR", (0, 0), (-1, -1), INK),
        ("VALIGN", (0, 0), (-1, -1), "TOP"),
        ("LINEBELOW", (0, 0), (-1, -1), 0.25, RULE),
        ("TOPPADDING", (0, 0), (-1, -1), 3),
        ("BOTTOMPADDING", (0, 0), (-1, -1), 3),
    ]
    if header:
        style += [("BACKGROUND", (0, 0), (-1, 0), ACCENT), ("TEXTCOLOR", (0, 0), (-1, 0), colors.white),
                  ("FONT", (0, 0), (-1, 0), SANS_BOLD, 8)]
    if zebra:
        style += [("ROWBACKGROUNDS", (0, 1), (-1, -1), [colors.white, PALE])]
    t.setStyle(TableStyle(style))
    return t


def key_values(pairs, widths=(1.7 * inch, 5.0 * inch)):
    """A two-column table of (label, value) as plain text: both are escaped here."""
    rows = [[Paragraph(f"<b>{esc(k)}</b>", CELL), Paragraph(esc(v), CELL)] for k, v in pairs]
    return table(rows, widths, header=False, zebra=True)


# The chart ----------------------------------------------------------------------------------


def services_chart(record, width=6.9 * inch):
    """One lane per device: services as dots (hollow when not qualifying), due dates as red ticks."""
    lanes = record.devices or []
    lane_h, top, left, right = 26, 26, 62, 10
    height = top + lane_h * max(len(lanes), 1) + 22
    drawing = Drawing(width, height)
    start, end = record.period_from, record.period_to
    span = max((end - start).days, 1)

    def x(day):
        return left + (width - left - right) * ((day - start).days / span)

    drawing.add(Rect(left, 18, width - left - right, height - top - 18 + 8, fillColor=PALE, strokeColor=RULE,
                     strokeWidth=0.5))
    # Year and quarter gridlines.
    marker = date(start.year, ((start.month - 1) // 3) * 3 + 1, 1)
    while marker <= end:
        if marker >= start:
            major = marker.month == 1
            drawing.add(Line(x(marker), 18, x(marker), height - top + 8,
                             strokeColor=RULE if not major else colors.HexColor("#9fb3b3"),
                             strokeWidth=0.8 if major else 0.4))
            drawing.add(String(x(marker), 7, marker.strftime("%Y" if major else "%b"), fontSize=6.5,
                               fontName=SANS_BOLD if major else SANS, fillColor=INK,
                               textAnchor="middle"))
        month = marker.month + 3
        marker = date(marker.year + (month - 1) // 12, (month - 1) % 12 + 1, 1)
    qualifying_days = {}
    for manifest in record.manifests:
        revision = record.current(manifest)
        qualifying_days.setdefault(manifest.device_id, []).append(
            (local_date(revision.service_completed_at, record.zone), revision.qualifying))
    for index, line in enumerate(lanes):
        y = height - top - lane_h * index - lane_h / 2 + 4
        drawing.add(String(4, y - 3, line.device.tag, fontSize=8, fillColor=INK, fontName=SANS_BOLD))
        drawing.add(Line(left, y, width - right, y, strokeColor=RULE, strokeWidth=0.6))
        for day, qualifying in qualifying_days.get(line.device.id, []):
            if start <= day <= end:
                drawing.add(Circle(x(day), y, 3.2, fillColor=ACCENT if qualifying else colors.white,
                                   strokeColor=ACCENT if qualifying else WARN, strokeWidth=1))
                due = day + timedelta(days=line.frequency_days)
                if qualifying and start <= due <= end:
                    drawing.add(Line(x(due), y - 6, x(due), y + 6, strokeColor=BAD, strokeWidth=0.9))
        if line.due_on is not None and start <= line.due_on <= end:
            drawing.add(Line(x(line.due_on), y - 8, x(line.due_on), y + 8, strokeColor=BAD, strokeWidth=1.6))
    return drawing


def legend(width=6.9 * inch):
    drawing = Drawing(width, 14)
    x = 4
    for symbol, text in (("dot", "qualifying service"), ("ring", "partial or decanted: does not count"),
                         ("tick", "due date"), ("bold", "next due")):
        if symbol == "dot":
            drawing.add(Circle(x + 3, 6, 3, fillColor=ACCENT, strokeColor=ACCENT))
        elif symbol == "ring":
            drawing.add(Circle(x + 3, 6, 3, fillColor=colors.white, strokeColor=WARN, strokeWidth=1))
        else:
            drawing.add(Line(x + 3, 1, x + 3, 11, strokeColor=BAD, strokeWidth=0.9 if symbol == "tick" else 1.8))
        drawing.add(String(x + 10, 3, text, fontSize=7, fontName=SANS, fillColor=INK))
        x += 18 + 3.6 * len(text)
    return drawing


# Pages --------------------------------------------------------------------------------------


def cover(record, scans):
    fse, jurisdiction = record.fse, record.jurisdiction
    story = [Spacer(1, 1.3 * inch),
             Paragraph("FOG Pump-out Records", TITLE),
             Paragraph(esc(fse.name), SUBTITLE),
             Paragraph(esc(fse.address), SUBTITLE),
             Spacer(1, 0.45 * inch)]
    permits = ", ".join(f"{p.permit_number} ({p.kind})" for p in record.permits) or "none on record"
    devices = "; ".join(f"{line.device.tag}: {line.device.kind}, {line.device.capacity_gallons:,} gal, "
                        f"every {line.frequency_days} days" for line in record.devices) or "none on record"
    story.append(key_values([
        ("Jurisdiction", jurisdiction.name),
        ("Assessor's parcel", fse.apn),
        ("Operator", f"{fse.operator_name} <{fse.operator_email}>"),
        ("Permits", permits),
        ("Grease control devices", devices),
        ("Period", f"{record.period_from:%B %d, %Y} to {record.period_to:%B %d, %Y}"),
        ("Manifests in period", f"{len(record.manifests)} ({sum(len(m.revisions) for m in record.manifests)} revisions)"),
        ("Scans attached", str(len(scans))),
        ("Generated", when(record.generated_at, record.zone)),
        ("Times", f"{record.zone} local time, with its offset"),
    ]))
    story += [Spacer(1, 0.35 * inch), Paragraph(
        f"This binder holds every pump-out manifest filed for this establishment in the period, "
        f"with the compliance findings of each and the scans the hauler attached. Records are kept "
        f"{jurisdiction.retention_years} years ({esc(jurisdiction.citations.get('retention_years', ''))}). "
        "Each manifest revision carries a SHA-256 that covers its content and the previous revision's "
        "hash, so the record proves it has not been altered.", SMALL)]
    return story


def summary_page(record):
    summary = record.summary
    share = summary["on_time_share"]
    story = [Paragraph("Compliance summary", H1),
             Paragraph(f"{record.period_from:%b %d, %Y} – {record.period_to:%b %d, %Y}", SMALL), Spacer(1, 8)]
    rows = [["Device", "Kind", "Capacity", "Every", "Last qualifying", "Next due", "Status"]]
    for line in record.devices:
        colour = STATUS_COLOURS.get(line.status, INK).hexval()
        rows.append([line.device.tag, line.device.kind, f"{line.device.capacity_gallons:,} gal",
                     f"{line.frequency_days} d",
                     line.last_qualifying.isoformat() if line.last_qualifying else "never",
                     line.due_on.isoformat() if line.due_on else "–",
                     Paragraph(f'<font color="{colour}"><b>{human(line.status)}</b></font>'
                               + (f" ({line.days_overdue} d)" if line.days_overdue else ""), CELL)])
    story.append(table(rows, [0.8 * inch, 0.85 * inch, 0.85 * inch, 0.6 * inch, 1.15 * inch, 1.0 * inch, 1.65 * inch]))
    story += [Spacer(1, 10), Paragraph("Services per device", H2), services_chart(record), legend(),
              Spacer(1, 10)]
    figures = [["Manifests", str(summary["manifests"])],
               ["Qualifying services", str(summary["qualifying_services"])],
               ["Filed on time", f"{share:.0%}" if share is not None else "–"]]
    story.append(table([["Figure", "Value"]] + figures, [2.5 * inch, 1.2 * inch]))
    if summary["findings_by_code"]:
        story += [Spacer(1, 8), Paragraph("Open findings by code", H2),
                  table([["Finding", "Count"]] + [[human(c), str(n)] for c, n in summary["findings_by_code"].items()],
                        [2.5 * inch, 1.2 * inch])]
    else:
        story += [Spacer(1, 8), Paragraph("No open findings in the period.", BODY)]
    return story + measured_section(record)


def measured_section(record):
    """What the depths measured before pumping say of each interceptor's frequency."""
    lines = [line for line in record.devices if line.accumulation]
    if not lines:
        return []
    city = record.jurisdiction
    limit = city.twenty_five_percent_rule
    rows = [["Device", "Intervals", "Per day", f"{limit:.0%} reached in", "At its frequency", "The data support"]]
    for line in lines:
        measured, advice = line.accumulation, line.advice
        depth = line.device.liquid_depth_in
        reached = measured.days_to(limit, depth)
        if advice is None:
            wanted = ENOUGH_INTERVALS - measured.intervals
            supported = f"{wanted} more measured interval{'s' if wanted > 1 else ''} needed"
        else:
            colour = (BAD if advice.change == "shorten" else ACCENT).hexval()
            supported = (f'<font color="{colour}"><b>every {advice.frequency_days} d</b></font>'
                         + ("" if advice.change == "keep" else f" ({advice.change})"))
        rows.append([line.device.tag, str(measured.intervals), f"{measured.inches_per_day:.3f} in",
                     "–" if reached is None else f"{reached} d",
                     f"{measured.share_after(line.frequency_days, depth):.0%} of {depth:g} in",
                     Paragraph(supported, CELL)])
    cited = frequency_citation(city.code, city.citations)
    note = (f"FOG and solids measured by the hauler before pumping, over each interval from a full "
            f"pump-down to the next service in the period; the longest frequency the city allows at "
            f"which they stay within {limit:.0%} of the design depth, shown once {ENOUGH_INTERVALS} "
            f"intervals give an average. Adopting it is the city's decision ({esc(cited)}).")
    return [Spacer(1, 8), Paragraph("Measured FOG and solids", H2),
            table(rows, [0.7 * inch, 0.7 * inch, 0.8 * inch, 1.1 * inch, 1.3 * inch, 2.3 * inch]),
            Spacer(1, 4), Paragraph(note, SMALL)]


def services_table(record):
    devices = {line.device.id: line.device for line in record.devices}
    rows = [["Service", "Manifest", "Device", "Gallons", "Full", "Disposal", "Received", "Findings"]]
    for manifest in record.manifests:
        revision = record.current(manifest)
        findings = record.active_findings(manifest)
        rows.append([
            local_date(revision.service_completed_at, record.zone).isoformat(),
            Paragraph(esc(manifest.manifest_number) + (f" <font size=6>r{revision.revision}</font>"
                                                       if revision.revision > 1 else ""), CELL),
            devices[manifest.device_id].tag,
            f"{revision.gallons_removed:,}",
            "yes" if revision.full_pump_down else "no",
            Paragraph(esc(revision.disposal_ticket_number or "–"), CELL),
            local_date(revision.received_at, record.zone).isoformat(),
            Paragraph(", ".join(f'<font color="{(BAD if f.severity == "violation" else WARN).hexval()}">'
                                f"{esc(f.code)}</font>" for f in findings) or "–", CELL),
        ])
    return [Paragraph("Every service", H1),
            table(rows, [0.8 * inch, 1.05 * inch, 0.55 * inch, 0.6 * inch, 0.4 * inch, 0.8 * inch,
                         0.8 * inch, 2.0 * inch])]


def manifest_page(record, manifest):
    revision = record.current(manifest)
    body = revision.body["manifest"]
    devices = {line.device.id: line.device for line in record.devices}
    device = devices[manifest.device_id]
    measurements = body.get("measurements") or {}
    disposal = body.get("disposal") or {}
    zone = record.zone
    story = [Paragraph(f"Manifest {esc(manifest.manifest_number)}", H1),
             Paragraph(f"Revision {revision.revision} of {len(manifest.revisions)} · "
                       f"device {esc(device.tag)} · permit {esc(body['permit_number'])}", SMALL),
             Spacer(1, 6),
             key_values([
                 ("Service", f"{when(revision.service_started_at, zone)} to "
                             f"{when(revision.service_completed_at, zone)}"),
                 ("Received", _received_at(manifest, revision, zone)),
                 ("Hauler", _named(revision.hauler_name, revision.hauler_licence_number and
                                   f"licence {revision.hauler_licence_number}")),
                 ("Driver / vehicle", f"{body['driver_name']} / {body['vehicle_id']}"),
                 ("Signed for the FSE by", body["fse_signer_name"]),
                 ("Waste", human(body["waste_type"])),
                 ("Gallons removed", f"{body['gallons_removed']:,} of {device.capacity_gallons:,} "
                                     f"(decant returned: {body['decant_returned_gallons']:,})"),
                 ("Full pump-down attested", "yes" if body["full_pump_down"] else "no"),
                 ("Measured before pumping", (f"FOG {measurements['fog_depth_in']} in, solids "
                                              f"{measurements['solids_depth_in']} in (design depth "
                                              f"{device.liquid_depth_in:g} in)") if measurements else "not measured"),
                 ("Disposal", (f"ticket {disposal['ticket_number']}, {disposal['gallons_delivered']:,} gal "
                               f"delivered {when(revision.disposal_delivered_at, zone)}")
                  if disposal else "no disposal record"),
                 *([("Disposal site", _named(revision.disposal_site_name, revision.disposal_site_address))]
                   if disposal else []),
                 *_received(record.receipts.get(manifest.id), zone),
             ])]
    findings = record.active_findings(manifest)
    story.append(Paragraph("Findings", H2))
    if findings:
        rows = [["Code", "Severity", "Message", "Ordinance"]]
        for f in findings:
            rows.append([Paragraph(f"<b>{esc(f.code)}</b>", CELL), f.severity, Paragraph(esc(f.message), CELL),
                         Paragraph(esc(f.citation), CELL)])
        story.append(table(rows, [1.45 * inch, 0.65 * inch, 2.7 * inch, 2.1 * inch]))
    else:
        story.append(Paragraph("None: a compliant service.", BODY))
    story.append(Paragraph("Revisions", H2))
    rows = [["Rev", "Received", "Reason", "SHA-256"]]
    for r in manifest.revisions:
        rows.append([str(r.revision), Paragraph(when(r.received_at, zone), CELL),
                     Paragraph(esc(r.reason or "original filing"), CELL), Paragraph(r.sha256, MONO)])
    story.append(table(rows, [0.4 * inch, 1.1 * inch, 1.4 * inch, 4.0 * inch]))  # a SHA-256 on one line
    if manifest.documents:
        story.append(Paragraph("Documents", H2))
        rows = [["File", "Type", "Bytes", "SHA-256"]]
        for d in manifest.documents:
            rows.append([Paragraph(esc(d.filename or "–"), CELL), d.content_type.split("/")[1].upper(),
                         f"{d.size_bytes:,}", Paragraph(d.sha256, MONO)])
        story.append(table(rows, [1.5 * inch, 0.55 * inch, 0.75 * inch, 4.1 * inch]))
    return story


def _received_at(manifest, revision, zone):
    """When the revision was received, and when the manifest first was (the filing deadline
    runs to that), where they differ."""
    received = when(revision.received_at, zone)
    if revision.revision == 1:
        return received
    return f"{received} (first received {when(manifest.revisions[0].received_at, zone)})"


def _named(name, detail):
    """A name as recorded at filing, with its detail, or a dash where none was recorded."""
    return ", ".join(part for part in (name, detail) if part) or "–"


def _received(receipt, zone):
    """The disposal site's own record of the load, where it sent one."""
    if receipt is None:
        return []
    return [("Received by the site", f"{receipt.gallons_received:,} gal at "
                                     f"{when(receipt.received_at, zone)}, vehicle "
                                     f"{receipt.vehicle_id}, hauler licence {receipt.hauler_licence_number} "
                                     f"(the site's receipt)")]


def scans_index(record, scans):
    rows = [["Manifest", "File", "Type", "SHA-256"]]
    for manifest, document, _ in scans:
        rows.append([Paragraph(esc(manifest.manifest_number), CELL), Paragraph(esc(document.filename or "–"), CELL),
                     document.content_type.split("/")[1].upper(), Paragraph(document.sha256, MONO)])
    return [Paragraph("Scans", H1),
            Paragraph("The scans attached to the manifests follow, in this order: images on their own "
                      "pages, then PDF scans as filed.", BODY), Spacer(1, 6),
            table(rows, [1.0 * inch, 1.35 * inch, 0.55 * inch, 4.0 * inch])]


def image_page(manifest, document, data):
    reader = ImageReader(io.BytesIO(data))
    w, h = reader.getSize()
    box_w, box_h = PAGE_W - 2 * MARGIN, PAGE_H - 2 * MARGIN - 1.0 * inch
    scale = min(box_w / w, box_h / h, 1.0 if w > 300 else box_w / w)
    return [Paragraph(f"Scan: manifest {esc(manifest.manifest_number)} · {esc(document.filename or '')}", H2),
            Paragraph(document.sha256, MONO), Spacer(1, 6),
            Image(io.BytesIO(data), width=w * scale, height=h * scale)]

