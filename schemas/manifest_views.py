"""How manifests, their revisions and findings look in responses."""

from domain import checks
from domain.dates import local_date
from domain.presets import basis_of
from schemas.actors import actor_view


def iso(value):
    return value.isoformat().replace("+00:00", "Z") if value else None


def finding_view(finding):
    return {
        "code": finding.code,
        "severity": finding.severity,
        "message": finding.message,
        "basis": basis_of(finding.citation),
        "citation": finding.citation,
        "raised_at": iso(finding.raised_at),
        "cleared_at": iso(finding.cleared_at),
    }


def document_view(document):
    return {
        "id": str(document.id),
        "sha256": document.sha256,
        "size_bytes": document.size_bytes,
        "content_type": document.content_type,
        "filename": document.filename,
        "uploaded_at": iso(document.uploaded_at),
        "uploaded_by": actor_view(document.uploaded_by_client, document.uploaded_by_person),
    }


def active_findings(revision):
    return [f for f in revision.findings if f.cleared_at is None]


def names_view(revision) -> dict:
    """Who pumped and where the load went, as named when the revision was filed."""
    return {
        "hauler_name": revision.hauler_name,
        "hauler_licence_number": revision.hauler_licence_number,
        "disposal_site_name": revision.disposal_site_name,
        "disposal_site_address": revision.disposal_site_address,
    }


def receipt(manifest, revision, *, due_by, device, time_zone):
    """The answer to a filing, and the hauler's proof of it: the device's frequency is the one
    in force on the service's local date (`time_zone`, the city's)."""
    findings = active_findings(revision)
    return {
        "id": str(manifest.id),
        "manifest_number": manifest.manifest_number,
        "revision": revision.revision,
        "status": "accepted_with_findings" if findings else "accepted",
        "findings": [finding_view(f) for f in findings],
        "received_at": iso(revision.received_at),
        "first_received_at": iso(manifest.revisions[0].received_at),
        "due_by": due_by.isoformat() if due_by else None,
        "sha256": revision.sha256,
        "qualifying": checks.is_qualifying(f.code for f in findings),
        "hauler_id": str(manifest.hauler_id),
        **names_view(revision),
        "fse_id": str(manifest.fse_id),
        "device_id": str(manifest.device_id),
        "device_frequency_days": device.frequency_on(local_date(revision.service_completed_at, time_zone)),
        "documents": [document_view(d) for d in manifest.documents],
        "manifest": revision.body["manifest"],
    }


def revision_view(revision):
    return {
        "revision": revision.revision,
        "received_at": iso(revision.received_at),
        "reason": revision.reason,
        "sha256": revision.sha256,
        "previous_sha256": revision.previous_sha256,
        **names_view(revision),
        "document": revision.body,
        "findings": [finding_view(f) for f in revision.findings],
    }
