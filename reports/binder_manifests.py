"""The binder's manifest pages: every pump-out in one compact table, a page per kind of finding
with its rule and citation, each manifest's details several to a page, and the scans."""

import io

from reportlab.lib.units import inch
from reportlab.lib.utils import ImageReader
from reportlab.platypus import Image, KeepTogether, PageBreak, Spacer

from domain import words
from domain.amounts import shown
from domain.checks import CODES
from domain.dates import human as when
from domain.dates import local_date
from domain.presets import POLICY
from domain.presets import table as rules_table
from reports.binder_style import (
    BAD,
    BODY,
    CELL,
    H1,
    H2,
    H3,
    MARGIN,
    MONO,
    NOTE,
    PAGE_H,
    PAGE_W,
    SMALL,
    WARN,
    cell,
    citing,
    key_values,
    nobreak,
    table,
)
from reports.pdf_tags import Figure
from reports.pdf_tags import TaggedParagraph as Paragraph
from reports.pdf_text import esc

# The manifest table's columns: service date, manifest and device, hauler and licence, disposal
# site, ticket, gallons, findings (7 inches, the page between its margins).
COLUMNS = (0.75 * inch, 0.85 * inch, 1.3 * inch, 1.05 * inch, 1.15 * inch, 0.57 * inch, 1.33 * inch)


def _findings_cell(findings, width):
    if not findings:
        return cell("none", width)
    return Paragraph(
        "; ".join(
            f'<font color="{(BAD if f.severity == "violation" else WARN).hexval()}">{esc(words.finding(f.code))}</font>'
            for f in findings
        ),
        CELL,
    )


def manifests_table(record):
    """Every pump-out of the period on one row, oldest first, the header on every page."""
    devices = {line.device.id: line.device for line in record.devices}
    w = COLUMNS
    rows = [["Service date", "Manifest", "Hauler", "Disposal site", "Ticket", "Gallons", "Open findings"]]
    for manifest in record.manifests:
        revision = record.current(manifest)
        number = nobreak(manifest.manifest_number)
        licence = revision.hauler_licence_number
        rows.append(
            [
                cell(local_date(revision.service_completed_at, record.zone).isoformat(), w[0]),
                [
                    cell(number, w[1], flowable=True),
                    cell(
                        f"device {devices[manifest.device_id].tag}"
                        + (f", revision {revision.revision}" if revision.revision > 1 else ""),
                        w[1],
                        NOTE,
                    ),
                ],
                [
                    cell(revision.hauler_name or "–", w[2], flowable=True),
                    cell(f"licence {nobreak(licence)}" if licence else "no licence recorded", w[2], NOTE),
                ],
                cell(revision.disposal_site_name or "no disposal record", w[3]),
                cell(nobreak(revision.disposal_ticket_number) if revision.disposal_ticket_number else "–", w[4]),
                cell(f"{revision.gallons_removed:,}", w[5]),
                _findings_cell(record.active_findings(manifest), w[6]),
            ]
        )
    intro = (
        f"Each pump-out filed for a service in the period, oldest first: the date of the service "
        f"in {esc(record.zone)}, the hauler and its licence and the disposal site as recorded when "
        f"the manifest was filed, the disposal ticket, the gallons removed, and the open findings "
        f"(each explained on a page that follows)."
    )
    return [Paragraph("Every pump-out", H1), Paragraph(intro, SMALL), Spacer(1, 6), table(rows, list(w))]


def finding_pages(record):
    """A page for each kind of open finding: what it is, the rule and its citation in this
    city, and the pump-outs it concerns; and a page on missed services, where there are any."""
    city = record.jurisdiction
    rules = {row["rule"]: row for row in rules_table(city.code, citations=city.citations)}
    by_code = {}
    for manifest in record.manifests:
        for finding in record.active_findings(manifest):
            by_code.setdefault(finding.code, []).append((manifest, finding))
    story = []
    for code in sorted(by_code, key=lambda c: list(CODES).index(c) if c in CODES else len(CODES)):
        found = by_code[code]
        rule = rules.get(words.rule_of(code), {})
        cited = sorted({f.citation or POLICY for _, f in found})
        pairs = [
            ("Finding", f"{words.finding(code)} ({words.severity(found[0][1].severity).lower()})"),
            ("The rule", words.rule_statement(code)),
        ]
        value = rule.get("value")
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            share = isinstance(value, float) and value < 1
            pairs.append(("This city's figure", f"{value:.0%}" if share else f"{value:g}"))
        pairs.append(("Citation", "; ".join(citing(c) for c in cited)))
        if rule.get("quote"):
            pairs.append(("The ordinance's words", f"“{rule['quote']}”"))
        rows = [["Service date", "Manifest", "Hauler", "Ticket", "What was found"]]
        widths = [0.8 * inch, 1.0 * inch, 1.5 * inch, 1.0 * inch, 2.7 * inch]
        for manifest, finding in found:
            revision = record.current(manifest)
            rows.append(
                [
                    cell(local_date(revision.service_completed_at, record.zone).isoformat(), widths[0]),
                    cell(nobreak(manifest.manifest_number), widths[1]),
                    cell(revision.hauler_name or "–", widths[2]),
                    cell(nobreak(revision.disposal_ticket_number or "–"), widths[3]),
                    cell(finding.message, widths[4]),
                ]
            )
        count = f"{len(found)} pump-out{'s' if len(found) > 1 else ''}"
        story += [
            PageBreak(),
            Paragraph(f"Finding: {esc(words.finding(code))}", H1),
            key_values(pairs),
            Spacer(1, 8),
            Paragraph(f"The pump-outs it concerns ({count})", H2),
            table(rows, widths),
        ]
    return story + missed_page(record)


def missed_page(record):
    behind = [line for line in record.devices if line.status in ("missed", "overdue", "never_serviced")]
    if not behind:
        return []
    city = record.jurisdiction
    cited = sorted({city.citations.get(f"{line.device.kind}_frequency") or POLICY for line in behind})
    rows = [["Device", "Every", "Last qualifying service", "Due", "Days past due", "Status"]]
    widths = [0.9 * inch, 0.8 * inch, 1.5 * inch, 1.2 * inch, 1.0 * inch, 1.6 * inch]
    for line in behind:
        rows.append(
            [
                cell(line.device.tag, widths[0]),
                cell(f"{line.frequency_days} days", widths[1]),
                cell(line.last_qualifying.isoformat() if line.last_qualifying else "never", widths[2]),
                cell(line.due_on.isoformat() if line.due_on else "–", widths[3]),
                cell(str(line.days_overdue), widths[4]),
                cell(words.status(line.status), widths[5]),
            ]
        )
    pairs = [
        ("Finding", "Missed service: a device not serviced by its due date"),
        (
            "The rule",
            "A grease control device is serviced at the frequency the city set for it; a "
            f"service counts when it is a full pump-down. Days of grace: {city.grace_days}.",
        ),
        ("Citation", "; ".join(citing(c) for c in cited)),
    ]
    return [
        PageBreak(),
        Paragraph("Finding: Missed service", H1),
        key_values(pairs),
        Spacer(1, 8),
        Paragraph(f"The devices it concerns, as of {record.period_to.isoformat()}", H2),
        table(rows, widths),
    ]


def manifest_details(record):
    """Each manifest's details, several to a page, each kept whole on one."""
    story = [
        PageBreak(),
        Paragraph("Manifest details", H1),
        Paragraph(
            "Every manifest as filed: its times in the city's local time with their offset, "
            "the people and trucks, the disposal, and each revision with its SHA-256.",
            SMALL,
        ),
    ]
    for manifest in record.manifests:
        story.append(KeepTogether(_details(record, manifest)))
    return story


def _details(record, manifest):
    revision = record.current(manifest)
    body = revision.body["manifest"]
    device = next(line.device for line in record.devices if line.device.id == manifest.device_id)
    measurements = body.get("measurements") or {}
    disposal = body.get("disposal") or {}
    zone = record.zone
    pairs = [
        ("Service", f"{when(revision.service_started_at, zone)} to {when(revision.service_completed_at, zone)}"),
        ("Received", _received_at(manifest, revision, zone)),
        (
            "Hauler",
            _named(
                revision.hauler_name,
                revision.hauler_licence_number and f"licence {nobreak(revision.hauler_licence_number)}",
            ),
        ),
        ("Driver, truck", f"{body['driver_name']}, {nobreak(body['vehicle_id'])}"),
        (
            "Disposal site",
            _named(revision.disposal_site_name, revision.disposal_site_address) if disposal else "no disposal record",
        ),
        (
            "Disposal",
            (
                f"ticket {nobreak(disposal['ticket_number'])}, {disposal['gallons_delivered']:,} gal "
                f"delivered {when(revision.disposal_delivered_at, zone)}"
            )
            if disposal
            else "–",
        ),
        (
            "Removed",
            f"{body['gallons_removed']:,} of {device.capacity_gallons:,} gal; full pump-down "
            f"attested: {'yes' if body['full_pump_down'] else 'no'}; decant returned: "
            f"{body['decant_returned_gallons']:,} gal",
        ),
        (
            "Measured",
            (
                f"FOG {measurements['fog_depth_in']} in, solids {measurements['solids_depth_in']} in "
                f"before pumping (design depth {shown(device.liquid_depth_in)} in)"
            )
            if measurements
            else "not measured before pumping",
        ),
        ("Waste", words.waste_type(body["waste_type"])),
        ("FSE signer", body["fse_signer_name"]),
    ]
    receipt = record.receipts.get(manifest.id)
    if receipt is not None:
        pairs.append(
            (
                "Received by the site",
                f"{receipt.gallons_received:,} gal at "
                f"{when(receipt.received_at, zone)}, vehicle "
                f"{nobreak(receipt.vehicle_id)}, hauler licence "
                f"{nobreak(receipt.hauler_licence_number)} (the site's receipt)",
            )
        )
    heading = (
        f"Manifest {esc(nobreak(manifest.manifest_number))} · revision {revision.revision} of "
        f"{len(manifest.revisions)} · device {esc(device.tag)} · permit "
        f"{esc(nobreak(record.permit_of(manifest).permit_number))}"
    )
    rows = [["Rev", "Received", "Reason", "SHA-256"]]
    widths = [0.4 * inch, 1.55 * inch, 1.1 * inch, 3.95 * inch]  # a SHA-256 on one line
    for r in manifest.revisions:
        rows.append(
            [
                str(r.revision),
                cell(when(r.received_at, zone), widths[1]),
                cell(r.reason or "original filing", widths[2]),
                Paragraph(r.sha256, MONO),
            ]
        )
    for d in manifest.documents:
        rows.append(
            [
                "scan",
                cell(d.content_type.split("/")[1].upper() + f", {d.size_bytes:,} bytes", widths[1]),
                cell(d.filename or "–", widths[2]),
                Paragraph(d.sha256, MONO),
            ]
        )
    return [
        Spacer(1, 6),
        Paragraph(heading, H3),
        key_values(pairs, (0.95 * inch, 2.55 * inch, 0.95 * inch, 2.55 * inch)),
        Spacer(1, 2),
        table(rows, widths),
    ]


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


def scans_index(record, scans):
    widths = [1.0 * inch, 1.4 * inch, 0.6 * inch, 4.0 * inch]
    rows = [["Manifest", "File", "Type", "SHA-256"]]
    for manifest, document, _ in scans:
        rows.append(
            [
                cell(nobreak(manifest.manifest_number), widths[0]),
                cell(document.filename or "–", widths[1]),
                document.content_type.split("/")[1].upper(),
                Paragraph(document.sha256, MONO),
            ]
        )
    return [
        Paragraph("Scans", H1),
        Paragraph(
            "The scans attached to the manifests follow, in this order: images on their own "
            "pages, then PDF scans as filed.",
            BODY,
        ),
        Spacer(1, 6),
        table(rows, widths),
    ]


def image_page(manifest, document, data):
    reader = ImageReader(io.BytesIO(data))
    w, h = reader.getSize()
    box_w, box_h = PAGE_W - 2 * MARGIN, PAGE_H - 2 * MARGIN - 1.0 * inch
    scale = min(box_w / w, box_h / h, 1.0 if w > 300 else box_w / w)
    alt = f"Scan of manifest {manifest.manifest_number}"
    if document.filename:
        alt += f", file {document.filename}"
    return [
        Paragraph(f"Scan: manifest {esc(manifest.manifest_number)} · {esc(document.filename or '')}", H2),
        Paragraph(document.sha256, MONO),
        Spacer(1, 6),
        Figure(Image(io.BytesIO(data), width=w * scale, height=h * scale), alt),
    ]
