"""The record as CSV: one row per manifest, the columns an auditor puts in a spreadsheet."""
from reports import table_csv

COLUMNS = [
    "manifest_number", "revision", "service_date", "service_started_at", "service_completed_at",
    "received_at", "device_tag", "device_kind", "capacity_gallons", "permit_number", "hauler_id",
    "vehicle_id", "driver_name", "waste_type", "gallons_removed", "decant_returned_gallons",
    "full_pump_down", "fog_depth_in", "solids_depth_in", "disposal_site_id", "disposal_ticket_number",
    "disposal_delivered_at", "disposal_gallons_delivered", "qualifying", "finding_codes", "documents",
    "sha256",
]


def rows(record):
    devices = {line.device.id: line for line in record.devices}
    for manifest in record.manifests:
        revision = record.current(manifest)
        body = revision.body["manifest"]
        measurements = body.get("measurements") or {}
        disposal = body.get("disposal") or {}
        line = devices[manifest.device_id]
        yield {
            "manifest_number": manifest.manifest_number,
            "revision": revision.revision,
            "service_date": revision.service_completed_at.date().isoformat(),
            "service_started_at": body["service_started_at"],
            "service_completed_at": body["service_completed_at"],
            "received_at": revision.received_at.isoformat().replace("+00:00", "Z"),
            "device_tag": line.device.tag,
            "device_kind": line.device.kind,
            "capacity_gallons": line.device.capacity_gallons,
            "permit_number": line.permit.permit_number,
            "hauler_id": str(manifest.hauler_id),
            "vehicle_id": body["vehicle_id"],
            "driver_name": body["driver_name"],
            "waste_type": body["waste_type"],
            "gallons_removed": body["gallons_removed"],
            "decant_returned_gallons": body["decant_returned_gallons"],
            "full_pump_down": "yes" if body["full_pump_down"] else "no",
            "fog_depth_in": measurements.get("fog_depth_in", ""),
            "solids_depth_in": measurements.get("solids_depth_in", ""),
            "disposal_site_id": disposal.get("site_id", ""),
            "disposal_ticket_number": disposal.get("ticket_number", ""),
            "disposal_delivered_at": disposal.get("delivered_at", ""),
            "disposal_gallons_delivered": disposal.get("gallons_delivered", ""),
            "qualifying": "yes" if revision.qualifying else "no",
            "finding_codes": " ".join(sorted(f.code for f in record.active_findings(manifest))),
            "documents": len(manifest.documents),
            "sha256": revision.sha256,
        }


def render(record):
    """The CSV, produced line by line."""
    return table_csv.render(rows(record), COLUMNS)
