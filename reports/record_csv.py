"""The record as CSV: one row per manifest, the columns an auditor puts in a spreadsheet.

Times are the city's local time with their offset (`domain.dates.human`), dates its local dates.
"""

from domain import words
from domain.dates import human, local_date
from reports import table_csv

COLUMNS = [
    "manifest_number",
    "revision",
    "service_date",
    "service_started_at",
    "service_completed_at",
    "received_at",
    "device_tag",
    "device_kind",
    "device_kind_words",
    "capacity_gallons",
    "permit_number",
    "hauler_id",
    "hauler_name",
    "hauler_licence_number",
    "vehicle_id",
    "driver_name",
    "waste_type",
    "waste_type_words",
    "gallons_removed",
    "decant_returned_gallons",
    "full_pump_down",
    "fog_depth_in",
    "solids_depth_in",
    "disposal_site_id",
    "disposal_site_name",
    "disposal_site_address",
    "disposal_ticket_number",
    "disposal_delivered_at",
    "disposal_gallons_delivered",
    "qualifying",
    "finding_codes",
    "documents",
    "sha256",
]


def rows(record):
    devices = {line.device.id: line for line in record.devices}
    zone = record.zone
    for manifest in record.manifests:
        revision = record.current(manifest)
        body = revision.body["manifest"]
        measurements = body.get("measurements") or {}
        disposal = body.get("disposal") or {}
        line = devices[manifest.device_id]
        yield {
            "manifest_number": manifest.manifest_number,
            "revision": revision.revision,
            "service_date": local_date(revision.service_completed_at, zone).isoformat(),
            "service_started_at": human(revision.service_started_at, zone),
            "service_completed_at": human(revision.service_completed_at, zone),
            "received_at": human(revision.received_at, zone),
            "device_tag": line.device.tag,
            "device_kind": line.device.kind,
            "device_kind_words": words.DEVICE_KINDS.get(line.device.kind, line.device.kind),
            "capacity_gallons": line.device.capacity_gallons,
            "permit_number": record.permit_of(manifest).permit_number,
            "hauler_id": str(manifest.hauler_id),
            "hauler_name": revision.hauler_name or "",
            "hauler_licence_number": revision.hauler_licence_number or "",
            "vehicle_id": body["vehicle_id"],
            "driver_name": body["driver_name"],
            "waste_type": body["waste_type"],
            "waste_type_words": words.waste_type(body["waste_type"]).capitalize(),
            "gallons_removed": body["gallons_removed"],
            "decant_returned_gallons": body["decant_returned_gallons"],
            "full_pump_down": "yes" if body["full_pump_down"] else "no",
            "fog_depth_in": measurements.get("fog_depth_in", ""),
            "solids_depth_in": measurements.get("solids_depth_in", ""),
            "disposal_site_id": disposal.get("site_id", ""),
            "disposal_site_name": revision.disposal_site_name or "",
            "disposal_site_address": revision.disposal_site_address or "",
            "disposal_ticket_number": disposal.get("ticket_number", ""),
            "disposal_delivered_at": human(revision.disposal_delivered_at, zone),
            "disposal_gallons_delivered": disposal.get("gallons_delivered", ""),
            "qualifying": "yes" if revision.qualifying else "no",
            "finding_codes": " ".join(sorted(f.code for f in record.active_findings(manifest))),
            "documents": len(manifest.documents),
            "sha256": revision.sha256,
        }


def render(record):
    """The CSV, produced line by line."""
    return table_csv.render(rows(record), COLUMNS)
