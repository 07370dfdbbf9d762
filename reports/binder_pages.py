"""The binder's first pages as flowables: the cover with what each figure counts, and the
compliance summary with its chart; the measured depths (the binder's styles are `binder_style.py`)."""

from datetime import date

from reportlab.graphics.shapes import Circle, Drawing, Line, Rect, String
from reportlab.lib import colors
from reportlab.lib.units import inch
from reportlab.platypus import Spacer

from domain import words
from domain.amounts import shown
from domain.dates import human as when
from domain.dates import local_date
from domain.frequency import ENOUGH_INTERVALS
from domain.frequency import citation as frequency_citation
from domain.maintenance import runs
from domain.presets import POLICY
from reports.binder_style import (
    ACCENT,
    BAD,
    BODY,
    CELL,
    H1,
    H2,
    INK,
    PALE,
    RULE,
    SMALL,
    STATUS_COLOURS,
    SUBTITLE,
    TITLE,
    WARN,
    citing,
    key_values,
    table,
)
from reports.pdf_tags import Figure
from reports.pdf_tags import TaggedParagraph as Paragraph
from reports.pdf_text import SANS, SANS_BOLD, esc


def services_chart(record, width=6.9 * inch):
    """One lane per device: services as dots (hollow when not qualifying), due dates as red ticks."""
    lanes = record.devices or []
    lane_h, top, left, right = 26, 26, 62, 10
    height = top + lane_h * max(len(lanes), 1) + 22
    drawing = Drawing(width, height)
    drawing.initialFontName = SANS  # the renderer would start in Times, a font the binder does not embed
    start, end = record.period_from, record.period_to
    span = max((end - start).days, 1)

    def x(day):
        return left + (width - left - right) * ((day - start).days / span)

    drawing.add(
        Rect(left, 18, width - left - right, height - top - 18 + 8, fillColor=PALE, strokeColor=RULE, strokeWidth=0.5)
    )
    # Year and quarter gridlines.
    marker = date(start.year, ((start.month - 1) // 3) * 3 + 1, 1)
    while marker <= end:
        if marker >= start:
            major = marker.month == 1
            drawing.add(
                Line(
                    x(marker),
                    18,
                    x(marker),
                    height - top + 8,
                    strokeColor=RULE if not major else colors.HexColor("#9fb3b3"),
                    strokeWidth=0.8 if major else 0.4,
                )
            )
            drawing.add(
                String(
                    x(marker),
                    7,
                    marker.strftime("%Y" if major else "%b"),
                    fontSize=6.5,
                    fontName=SANS_BOLD if major else SANS,
                    fillColor=INK,
                    textAnchor="middle",
                )
            )
        month = marker.month + 3
        marker = date(marker.year + (month - 1) // 12, (month - 1) % 12 + 1, 1)
    qualifying_days = {}
    for manifest in record.manifests:
        revision = record.current(manifest)
        qualifying_days.setdefault(manifest.device_id, []).append(
            (local_date(revision.service_completed_at, record.zone), revision.qualifying)
        )
    for index, line in enumerate(lanes):
        y = height - top - lane_h * index - lane_h / 2 + 4
        drawing.add(String(4, y - 3, line.device.tag, fontSize=8, fillColor=INK, fontName=SANS_BOLD))
        drawing.add(Line(left, y, width - right, y, strokeColor=RULE, strokeWidth=0.6))
        for day, qualifying in qualifying_days.get(line.device.id, []):
            if start <= day <= end:
                drawing.add(
                    Circle(
                        x(day),
                        y,
                        3.2,
                        fillColor=ACCENT if qualifying else colors.white,
                        strokeColor=ACCENT if qualifying else WARN,
                        strokeWidth=1,
                    )
                )
                # Due as the lists judge it: the frequency in force, pauses and calendar months.
                due = line.interval.due_on(day)
                if qualifying and start <= due <= end:
                    drawing.add(Line(x(due), y - 6, x(due), y + 6, strokeColor=BAD, strokeWidth=0.9))
        if line.due_on is not None and start <= line.due_on <= end:
            drawing.add(Line(x(line.due_on), y - 8, x(line.due_on), y + 8, strokeColor=BAD, strokeWidth=1.6))
    return drawing


def legend(width=6.9 * inch):
    drawing = Drawing(width, 14)
    drawing.initialFontName = SANS
    x = 4
    for symbol, text in (
        ("dot", "qualifying service"),
        ("ring", "partial or decanted: does not count"),
        ("tick", "due date"),
        ("bold", "next due"),
    ):
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
    story = [
        Spacer(1, 0.35 * inch),
        Paragraph("FOG Pump-out Records", TITLE),
        Paragraph(esc(fse.name), SUBTITLE),
        Paragraph(esc(fse.address), SUBTITLE),
        Spacer(1, 0.25 * inch),
    ]
    permits = ", ".join(f"{p.permit_number} ({p.kind})" for p in record.permits) or "none on record"
    devices = (
        "; ".join(
            f"{line.device.tag}: {line.device.kind}, {line.device.capacity_gallons:,} gal, "
            f"every {line.frequency_days} days, on permit {line.permit.permit_number} "
            f"({line.permit_status.replace('_', ' ')} on {record.as_of.isoformat()})"
            for line in record.devices
        )
        or "none on record"
    )
    story.append(
        key_values(
            [
                ("Jurisdiction", jurisdiction.name),
                ("Assessor's parcel", fse.apn),
                ("Operator", f"{fse.operator_name} <{fse.operator_email}>"),
                ("Permits", permits),
                ("Grease control devices", devices),
                ("Period", f"{record.period_from.isoformat()} to {record.period_to.isoformat()}"),
                (
                    "Manifests in period",
                    f"{len(record.manifests)} ({sum(len(m.revisions) for m in record.manifests)} revisions)",
                ),
                ("Scans attached", str(len(scans))),
                ("Generated", when(record.generated_at, record.zone)),
                ("Times", f"{record.zone} local time, with its offset"),
            ]
        )
    )
    story += [Paragraph("What the figures count", H2)] + [Paragraph(line, BODY) for line in figures(record)]
    story += [
        Spacer(1, 0.15 * inch),
        Paragraph(
            f"This binder holds every pump-out manifest filed for this establishment in the period, "
            f"with the compliance findings of each and the scans the hauler attached. Records are kept "
            f"{jurisdiction.retention_years} years ({esc(citing(jurisdiction.citations.get('retention_years')))}). "
            "Each manifest revision carries a SHA-256 that covers its content and the previous revision's "
            "hash, so the record proves it has not been altered.",
            SMALL,
        ),
    ]
    return story


BEHIND = {"missed": "missed its service", "overdue": "is overdue", "never_serviced": "has never been serviced"}


def deadline_words(hours):
    return f"{hours // 24} days ({hours} hours)" if hours % 24 == 0 and hours >= 48 else f"{hours} hours"


def figures(record):
    """Each figure of the cover as a sentence that says what it counts (paragraph markup)."""
    city, total = record.jurisdiction, len(record.manifests)
    findings = [(m, f) for m in record.manifests for f in record.active_findings(m)]
    late = len({m.id for m, f in findings if f.code == "late_submission"})
    qualifying = sum(1 for m in record.manifests if record.current(m).qualifying)
    pump_outs = "pump-out" if total == 1 else "pump-outs"
    lines = [
        f"<b>Pump-outs:</b> {total} {pump_outs} filed for services from {record.period_from.isoformat()} "
        f"to {record.period_to.isoformat()}, one manifest each."
    ]
    if total:
        lines += [
            f"<b>Filed on time:</b> {total - late} of {total} {pump_outs} were filed within "
            f"{deadline_words(city.manifest_deadline_hours)} of the service "
            f"({esc(citing(city.citations.get('manifest_deadline_hours')))}); {late} filed late.",
            f"<b>Qualifying services:</b> {qualifying} of {total} {pump_outs} count toward the device's "
            f"frequency"
            + (
                "."
                if qualifying == total
                else f"; the other {total - qualifying} were not full pump-downs, returned water to "
                f"the device or were not plausible."
            ),
        ]
    as_of = record.period_to
    behind = [line for line in record.devices if line.status in ("missed", "overdue", "never_serviced")]
    if behind:
        for line in behind:
            since = (
                f"due {line.due_on.isoformat()}, {line.days_overdue} days past due"
                if line.due_on
                else "never serviced since its permit"
            )
            lines.append(
                f"<b>Missed service:</b> {esc(line.device.tag)} ({line.device.kind}, every "
                f"{line.frequency_days} days) {BEHIND[line.status]} as of {as_of.isoformat()}: "
                f"{since}. See the page on missed services."
            )
    else:
        lines.append(f"<b>Missed services:</b> none; no device is past due as of {as_of.isoformat()}.")
    if findings:
        kinds = {}
        for _, f in findings:
            kinds[f.code] = kinds.get(f.code, 0) + 1
        listed = "; ".join(f"{esc(words.finding(code))} ({count})" for code, count in kinds.items())
        lines.append(
            f"<b>Open findings:</b> {len(findings)} on {len({m.id for m, _ in findings})} of {total} "
            f"{pump_outs}, each kind on a page of its own with its rule: {listed}."
        )
    else:
        lines.append("<b>Open findings:</b> none in the period.")
    return lines


def summary_page(record):
    summary = record.summary
    story = [
        Paragraph("Compliance summary", H1),
        Paragraph(f"{record.period_from.isoformat()} to {record.period_to.isoformat()}", SMALL),
        Spacer(1, 8),
    ]
    rows = [["Device", "Kind", "Capacity", "Every", "Last qualifying", "Next due", "Status"]]
    for line in record.devices:
        colour = STATUS_COLOURS.get(line.status, INK).hexval()
        rows.append(
            [
                line.device.tag,
                line.device.kind,
                f"{line.device.capacity_gallons:,} gal",
                _every(line, record.as_of),
                line.last_qualifying.isoformat() if line.last_qualifying else "never",
                line.due_on.isoformat() if line.due_on else "–",
                Paragraph(
                    f'<font color="{colour}"><b>{words.status(line.status)}</b></font>'
                    + (f" ({line.days_overdue} days past due)" if line.days_overdue else ""),
                    CELL,
                ),
            ]
        )
    story.append(table(rows, [0.8 * inch, 0.85 * inch, 0.85 * inch, 0.6 * inch, 1.15 * inch, 1.0 * inch, 1.65 * inch]))
    story += [
        Spacer(1, 10),
        Paragraph("Services per device", H2),
        Figure(services_chart(record), chart_alt(record)),
        Figure(
            legend(),
            "Legend: a filled dot is a qualifying service, a ring a partial or decanted "
            "service that does not count, a thin tick a due date, a bold tick the next due date.",
        ),
        Spacer(1, 10),
    ]
    if summary["findings_by_code"]:
        story += [
            Spacer(1, 8),
            Paragraph("Open findings", H2),
            table(
                [["Finding", "Pump-outs"]]
                + [[words.finding(c), str(n)] for c, n in summary["findings_by_code"].items()],
                [3.0 * inch, 1.2 * inch],
            ),
        ]
    else:
        story += [Spacer(1, 8), Paragraph("No open findings in the period.", BODY)]
    return story + measured_section(record) + maintenance_section(record)


def maintenance_section(record):
    """The days of the period a trap went without the kitchen's own cleaning its city's text
    asks for, as runs of days per trap, with the city's section (the maintenance log's)."""
    if not record.maintenance_missing:
        return []
    by_device = {}
    for device, day in record.maintenance_missing:
        by_device.setdefault(device.tag, []).append(day)
    rows = [["Trap", "Days without a cleaning in the log", "Days"]]
    for tag, days in by_device.items():
        spans = runs(days)
        rows.append(
            [
                tag,
                Paragraph(
                    "; ".join(
                        first.isoformat() if first == last else f"{first.isoformat()} to {last.isoformat()}"
                        for first, last in spans
                    ),
                    CELL,
                ),
                str(len(days)),
            ]
        )
    cited = (record.jurisdiction.citations or {}).get("trap_daily_cleaning") or POLICY
    return [
        Spacer(1, 8),
        Paragraph("Grease traps the kitchen cleans itself", H2),
        table(rows, [0.8 * inch, 4.9 * inch, 0.8 * inch]),
        Spacer(1, 4),
        Paragraph(
            f"Days its permit was in force on which the restaurant's maintenance log shows no cleaning ({esc(cited)}).",
            SMALL,
        ),
    ]


def _every(line, day):
    """The frequency in force on `day` in the unit it runs in: "3 mo" for a city's quarterly
    default, else days."""
    months = line.interval.months_on(day) if line.interval else None
    return f"{months} mo" if months else f"{line.frequency_days} d"


def chart_alt(record):
    """The chart in words: each device's services in the period, and when it is due."""
    parts = []
    for line in record.devices:
        days = [
            local_date(record.current(m).service_completed_at, record.zone)
            for m in record.manifests
            if m.device_id == line.device.id
        ]
        due = f"next due {line.due_on.isoformat()}" if line.due_on else "no next due date"
        parts.append(
            f"{line.device.tag}: {len(days)} services in the period"
            + (f", from {min(days).isoformat()} to {max(days).isoformat()}" if days else "")
            + f"; {due}; {words.status(line.status).lower()}."
        )
    return "Chart of services per device over the period. " + " ".join(parts)


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
            supported = f'<font color="{colour}"><b>every {advice.frequency_days} d</b></font>' + (
                "" if advice.change == "keep" else f" ({advice.change})"
            )
        rows.append(
            [
                line.device.tag,
                str(measured.intervals),
                f"{measured.inches_per_day:.3f} in",
                "–" if reached is None else f"{reached} d",
                f"{measured.share_after(line.frequency_days, depth):.0%} of {shown(depth)} in",
                Paragraph(supported, CELL),
            ]
        )
    cited = frequency_citation(city.code, city.citations)
    note = (
        f"FOG and solids measured by the hauler before pumping, over each interval from a full "
        f"pump-down to the next service in the period; the longest frequency the city allows at "
        f"which they stay within {limit:.0%} of the design depth, shown once {ENOUGH_INTERVALS} "
        f"intervals give an average. Adopting it is the city's decision ({esc(cited)})."
    )
    return [
        Spacer(1, 8),
        Paragraph("Measured FOG and solids", H2),
        table(rows, [0.7 * inch, 0.7 * inch, 0.8 * inch, 1.1 * inch, 1.3 * inch, 2.3 * inch]),
        Spacer(1, 4),
        Paragraph(note, SMALL),
    ]
