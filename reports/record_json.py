"""The record as JSON: the FSE, its permits and devices, every revision, and a summary.

Instants are RFC 3339 in UTC, for machines; `time_zone` says which local day each date is.
"""

from domain.maintenance import runs
from domain.presets import POLICY
from schemas.manifest_views import document_view, finding_view, names_view, revision_view
from schemas.receipts import receipt_view
from schemas.registry_views import device_view, frequency_change_view, fse_view, permit_view


def render(record):
    return {
        "fse": fse_view(record.fse),
        "period": {"from": record.period_from.isoformat(), "to": record.period_to.isoformat()},
        "generated_at": record.generated_at.isoformat().replace("+00:00", "Z"),
        "time_zone": record.zone,
        "retention_years": record.jurisdiction.retention_years,
        "permits": [permit_view(p, record.period_to) for p in record.permits],
        "devices": [
            {
                # The frequency in force on the record's day (its last, or today if sooner), and its changes within the period.
                **device_view(line.device, record.as_of),
                "frequency_changes_in_period": [
                    frequency_change_view(change)
                    for change in line.device.frequency_changes
                    if record.period_from <= change.effective_on <= record.period_to
                ],
                # The permit it was on on the day asked (after a renewal, the old one for its days).
                "permit_id": str(line.permit.id),
                "permit_number": line.permit.permit_number,
                "permit_status": line.permit_status,
                "status": line.status,
                "next_due_on": line.due_on.isoformat() if line.due_on else None,
                "days_overdue": line.days_overdue,
                "last_qualifying_service_on": line.last_qualifying.isoformat() if line.last_qualifying else None,
                "measured": _measured(line),
            }
            for line in record.devices
        ],
        "manifests": [
            {
                "id": str(m.id),
                "manifest_number": m.manifest_number,
                "device_id": str(m.device_id),
                # The permit the pump-out was served under (its device's permit on the service day).
                "permit_id": str(m.permit_id),
                "permit_number": record.permit_of(m).permit_number,
                "current_revision": m.current_revision,
                "hauler_id": str(m.hauler_id),
                "disposal_site_id": _text(record.current(m).disposal_site_id),
                **names_view(record.current(m)),
                "findings": [finding_view(f) for f in record.active_findings(m)],
                "documents": [document_view(d) for d in m.documents],
                # A person's filing carries their certification of the revision's hash.
                "revisions": [{**revision_view(r), "certification": r.certification} for r in m.revisions],
                "disposal_receipt": receipt_view(record.receipts[m.id]) if m.id in record.receipts else None,
            }
            for m in record.manifests
        ],
        "summary": record.summary,
        "maintenance_missing": _maintenance_missing(record),
    }


def _maintenance_missing(record):
    """The runs of days a trap went without the kitchen's own cleaning its city's text asks
    for (the maintenance log's `missing`), with the city's section."""
    by_device = {}
    for device, day in record.maintenance_missing:
        by_device.setdefault(device, []).append(day)
    citation = (record.jurisdiction.citations or {}).get("trap_daily_cleaning") or POLICY
    return [
        {
            "device_id": str(device.id),
            "device_tag": device.tag,
            "from": first.isoformat(),
            "to": last.isoformat(),
            "days": (last - first).days + 1,
            "citation": citation,
        }
        for device, days in by_device.items()
        for first, last in runs(days)
    ]


def _text(value):
    return str(value) if value is not None else None


def _measured(line):
    """The FOG and solids measured over the period's intervals, and the frequency they support
    once there are enough of them (domain.frequency); None where nothing was measured."""
    measured, advice = line.accumulation, line.advice
    if measured is None:
        return None
    return {
        "intervals": measured.intervals,
        "accumulation_in_per_day": round(measured.inches_per_day, 4),
        "share_at_frequency": round(measured.share_after(line.frequency_days, line.device.liquid_depth_in), 3),
        "recommended_frequency_days": advice.frequency_days if advice else None,
        "change": advice.change if advice else None,
    }
