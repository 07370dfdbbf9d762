"""What a manifest's hashed revisions say, held against the columns that decide its retention
and holds: a column altered behind the hash would let a purge take a record that must stay."""

from datetime import datetime

from sqlalchemy import or_, select
from sqlalchemy.orm import selectinload

from domain import chain
from storage.corrections import PendingCorrection
from storage.models import Device, Fse, Manifest, ManifestRevision, Permit


def manifests_naming(session, fse: Fse) -> list[Manifest]:
    """Every manifest that names the FSE now, or named it in any revision: by its column, by a
    revision's device, or by a permit number in a revision's hashed body."""
    numbers = select(Permit.permit_number).where(Permit.fse_id == fse.id)
    by_revision = (
        select(ManifestRevision.manifest_id)
        .outerjoin(Device, Device.id == ManifestRevision.device_id)
        .where(
            or_(Device.fse_id == fse.id, ManifestRevision.body[("manifest", "permit_number")].as_string().in_(numbers))
        )
    )
    return session.scalars(
        select(Manifest)
        .where(or_(Manifest.fse_id == fse.id, Manifest.id.in_(by_revision)))
        .order_by(Manifest.id)
        .options(selectinload(Manifest.revisions))
    ).all()


def _instant(text):
    return datetime.fromisoformat(text.replace("Z", "+00:00")) if text else None


def problems(session, manifest: Manifest) -> list[str]:
    """Where the manifest's columns and its revisions' columns differ from what the hashed
    revisions say (the chain itself is `domain.chain.verify`'s)."""
    found = []
    revisions = manifest.revisions
    for revision in revisions:
        document = revision.body
        body = document.get("manifest", {})
        where = f"revision {revision.revision}"
        for column, said in (
            ("service_started_at", _instant(body.get("service_started_at"))),
            ("service_completed_at", _instant(body.get("service_completed_at"))),
            ("received_at", _instant(document.get("received_at"))),
        ):
            if getattr(revision, column) != said:
                found.append(
                    f"{where}: {column} is {getattr(revision, column).isoformat()}, its hashed body says "
                    f"{said.isoformat() if said else None}"
                )
        if (document.get("revision"), document.get("manifest_id"), document.get("previous_sha256")) != (
            revision.revision,
            str(revision.manifest_id),
            revision.previous_sha256,
        ):
            found.append(f"{where}: its number, manifest or previous hash differ from its hashed body")
        if not _device_named(session, revision.device_id, body):
            found.append(
                f"{where}: device_id is not device {body.get('device_tag')!r} of permit "
                f"{body.get('permit_number')!r}, as its hashed body says"
            )
    if [r.revision for r in revisions] != list(range(1, len(revisions) + 1)) or (
        manifest.current_revision != len(revisions)
    ):
        found.append(f"current_revision is {manifest.current_revision} of revisions {[r.revision for r in revisions]}")
        return found
    if [r.in_force for r in revisions] != [r is revisions[-1] for r in revisions]:
        found.append(
            f"the revisions in force are {[r.revision for r in revisions if r.in_force]}, "
            f"not the current revision {manifest.current_revision}"
        )
    latest = revisions[-1]
    permit = session.get(Permit, manifest.permit_id)
    if str(manifest.hauler_id) != latest.body.get("hauler_id"):
        found.append("hauler_id differs from the hashed revisions'")
    if permit is None or permit.permit_number != latest.body.get("manifest", {}).get("permit_number"):
        found.append(
            f"permit_id is not permit {latest.body.get('manifest', {}).get('permit_number')!r} of the current revision"
        )
    elif (manifest.fse_id, manifest.jurisdiction_id) != (permit.fse_id, permit.jurisdiction_id):
        found.append("fse_id or jurisdiction_id is not the current revision's permit's")
    if manifest.device_id != latest.device_id:
        found.append("device_id is not the current revision's")
    for waiting in session.scalars(select(PendingCorrection).where(PendingCorrection.manifest_id == manifest.id)):
        if chain.seal(waiting.document) != waiting.sha256:
            found.append(f"correction {waiting.id} does not match its hash")
    return found


def _device_named(session, device_id, body) -> bool:
    """The device is the one the body names: its tag, on the FSE of the permit it names (a
    device may since have moved to another permit of its FSE)."""
    device = session.get(Device, device_id)
    if device is None or device.tag != body.get("device_tag"):
        return False
    return (
        session.scalar(
            select(Permit.id).where(Permit.fse_id == device.fse_id, Permit.permit_number == body.get("permit_number"))
        )
        is not None
    )
