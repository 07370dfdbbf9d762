"""Manifest use cases: submit and read (findings kept current as later loads arrive are
`services.filing.judging`; corrections are `services.filing.corrections`).

A manifest is rejected only when it cannot be filed (schema errors, an unknown permit or
device). Everything else is stored and flagged: a late or non-compliant manifest is
evidence the city needs.
"""

import uuid
from dataclasses import dataclass
from datetime import date, timedelta

from sqlalchemy import and_, exists, false, func, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import joinedload, selectinload

from domain import chain, checks
from domain.clock import now as clock_now
from domain.dates import local_date
from schemas.manifest import canonical
from services.audit import changes
from services.errors import Conflict, Invalid, NotFound
from services.filing import documents, filing_names
from services.filing.filing_facts import Facts, device_facts, load_tenures, rules_of
from services.filing.judging import (
    Surroundings,
    current_revisions,
    refresh,
    refresh_neighbours,
    refresh_told,
    surroundings,
)
from services.filing.resolving import Named, resolve
from services.people.accounts import certifier_of
from services.registry.fses import decode_cursor, encode_cursor
from storage import filings, notice_models, reach, service_chain
from storage.audit import frequency_changed
from storage.intervals import device_ever_paused
from storage.localtime import local_date as sql_local_date
from storage.models import (
    Device,
    DeviceFrequencyChange,
    Finding,
    Jurisdiction,
    Manifest,
    ManifestRevision,
    Permit,
    new_id,
    unflushed,
)

# Submitting ---------------------------------------------------------------------------------


def refuse_the_future(data, now):
    skew = timedelta(minutes=5)
    errors = {}
    if data["service_completed_at"] > now + skew:
        errors["service_completed_at"] = ["Must not be in the future."]
    if data.get("disposal") and data["disposal"]["delivered_at"] > now + skew:
        errors["disposal.delivered_at"] = ["Must not be in the future."]
    if errors:
        raise Invalid("The manifest is dated in the future.", errors=errors)


def _columns(data, named: Named) -> dict:
    return dict(device_id=named.device_id, **checks.Load.filed(data), qualifying=True, previous_service_at=None)


def named_at_filing(facts: Facts, hauler_id, *, data, named: Named) -> dict:
    city = named.jurisdiction_id
    return filing_names.at_filing(
        facts,
        hauler_id=hauler_id,
        licences=facts.hauler(hauler_id, city).licences,
        site_id=(data.get("disposal") or {}).get("site_id"),
        service_day=local_date(data["service_completed_at"], facts.zone(city)),
    )


def revision_columns(
    manifest, number, *, body, data, named, received_at, reason, previous, client_pk, names, certifier=None
) -> dict:
    """A new revision's columns: the canonical document and its chained hash among them, and
    the names of its hauler and disposal site at filing (`services.filing.filing_names`), and the
    filing person's certification of that hash (`certifier`: their name and organisation)."""
    document = {
        "manifest_id": str(manifest.id),
        "hauler_id": str(manifest.hauler_id),
        "revision": number,
        "received_at": received_at.isoformat().replace("+00:00", "Z"),
        "reason": reason,
        "previous_sha256": previous,
        "manifest": body,
    }
    sha256 = chain.seal(document)
    certification = (
        None
        if certifier is None
        else {
            "name": certifier["name"],
            "organisation": certifier["organisation"],
            "certified_at": document["received_at"],
            "sha256": sha256,
        }
    )
    return dict(
        id=new_id(),
        manifest_id=manifest.id,
        revision=number,
        body=document,
        sha256=sha256,
        previous_sha256=previous,
        reason=reason,
        received_at=received_at,
        submitted_by_client_id=client_pk,
        submitted_by_person_id=certifier and certifier["person_id"],
        certification=certification,
        **_columns(data, named),
        **names,
    )


def _find(session, hauler_id, manifest_number):
    return session.scalar(
        select(Manifest).where(Manifest.hauler_id == hauler_id, Manifest.manifest_number == manifest_number)
    )


def _same_or_conflict(manifest: Manifest, body: dict):
    if current(manifest).body["manifest"] != body:
        raise Conflict(
            f"Manifest {manifest.manifest_number} was filed with a different body; send a correction to change it."
        )
    return manifest


def current(manifest: Manifest) -> ManifestRevision:
    return manifest.revisions[manifest.current_revision - 1]


@dataclass(frozen=True)
class Filed:
    """What a filing's receipt shows: the manifest and its current revision, whether this
    request made it (else it is a repeat), its device, and the day the device is next due."""

    manifest: Manifest
    revision: ManifestRevision
    created: bool
    device: checks.DeviceFacts
    due_by: date | None
    time_zone: str  # the city's, whose local date of the service reads the frequency then in force


def submit(session, principal, *, data, store=None, uploads=()) -> Filed:
    """File a manifest with its scans.

    A repeat of the same body returns the stored manifest (attaching any scan it lacks): the
    unique `(hauler, manifest_number)` finds it, so a first filing pays no lookup for it.
    Scans are written to the store, unlocked, before anything is committed.
    """
    now = clock_now()
    refuse_the_future(data, now)
    stored = []  # the scans go to the store once, however many times the filing is made
    try:
        for attempt in filings.attempts(session):
            with attempt:
                filed = _file(session, principal, data, now, store, uploads, stored)
                filings.commit(session)
        return filed
    except IntegrityError:
        # The hauler filed this number before (or another request just did): a repeat.
        existing = _find(session, principal.hauler_id, data["manifest_number"])
        if existing is None:
            raise
    for attempt in filings.attempts(session):
        with attempt:
            filed = _repeat(session, existing, canonical(data), uploads, principal)
            filings.commit(session)
    return filed


def _file(session, principal, data, now, store, uploads, stored) -> Filed:
    facts = Facts(session)
    # The permit stays locked to this filing until it commits: a filing on the same device
    # waits, then reads this one among its neighbours (`storage.service_chain`).
    named = resolve(
        session, data, hauler_id=principal.hauler_id, facts=facts, hold=True, within=reach.city_scope(principal)
    )
    if uploads and not stored:
        documents.check(uploads)
        documents.put_objects(store, uploads)
        stored.append(True)
    manifest = unflushed(
        Manifest,
        id=new_id(),
        hauler_id=principal.hauler_id,
        manifest_number=data["manifest_number"],
        jurisdiction_id=named.jurisdiction_id,
        fse_id=named.fse_id,
        device_id=named.device_id,
        permit_id=named.permit_id,
        current_revision=1,
        created_at=now,
        documents=[],
        revisions=[],
    )
    revision = unflushed(
        ManifestRevision,
        manifest=manifest,
        findings=[],
        **revision_columns(
            manifest,
            1,
            body=canonical(data),
            data=data,
            named=named,
            received_at=now,
            reason=None,
            previous=None,
            client_pk=principal.client_pk,
            names=named_at_filing(facts, principal.hauler_id, data=data, named=named),
            certifier=certifier_of(session, principal),
        ),
    )
    manifest.revisions.append(revision)
    # The new rows are not in the database yet: nothing a neighbour query returns is them.
    around = surroundings(session, revision, facts=facts)
    refresh(session, revision, now=now, around=around, facts=facts)
    revision.previous_service_at = around.previous_qualifying
    if around.same_service or around.following is not None:
        # Not simply the device's latest service: its services' links are worked out again.
        service_chain.mark(session, revision.device_id)
    found = changes.active_codes(revision)
    filed = changes.entry(manifest, changes.FILED, at=now, revision=1, findings=found)
    # One row more for a filing with findings, in the same statement: its notices go after.
    noticed = (notice_models.filed_event(manifest, revision, now),) if found else ()
    filings.insert(session, manifest, (manifest, revision, *revision.findings, filed, *noticed))
    refresh_neighbours(session, revision, now=now, around=around, facts=facts)
    if uploads:
        documents.attach(
            session,
            filings.joined(session, manifest),
            uploads=list(uploads),
            service_day=local_date(revision.service_completed_at, facts.zone(named.jurisdiction_id)),
            by=principal,
        )
    return Filed(manifest, revision, True, *_due_after(revision, around, facts))


def _due_after(revision, around: Surroundings, facts: Facts):
    """The receipt's due date from what the filing already read.

    A new load can only make the loads of its service count (more gallons, one more
    attestation), never stop them counting, so the latest qualifying service is the latest
    of the other manifests' or one of the loads just refreshed.
    """
    loads = (revision, *around.same_service, *around.same_ticket, around.following)
    times = [
        r.service_completed_at for r in loads if r is not None and r.device_id == revision.device_id and r.qualifying
    ]
    if around.latest_qualifying is not None:
        times.append(around.latest_qualifying)
    device, permit = facts.device(revision.device_id)
    rules = facts.rules(revision.manifest.jurisdiction_id)
    today = rules.day(clock_now())
    return device, checks.due_by(max(times, default=None), device, rules, permit, today=today), rules.time_zone


def _repeat(session, manifest, body, uploads, principal) -> Filed:
    """The stored manifest for a repeated filing; scans it lacks (already written) are attached."""
    _same_or_conflict(manifest, body)
    if uploads:
        zone = session.get(Jurisdiction, manifest.jurisdiction_id).time_zone
        service_day = local_date(current(manifest).service_completed_at, zone)
        documents.attach(session, manifest, uploads=list(uploads), service_day=service_day, by=principal)
    return Filed(manifest, current(manifest), False, *due_of(session, manifest.device_id))


# Reading ------------------------------------------------------------------------------------


def visible(principal):
    """A select of the manifest ids within the caller's reach."""
    if principal.role == "hauler":
        return select(Manifest.id).where(
            Manifest.hauler_id == principal.hauler_id, reach.in_scope(principal, Manifest.jurisdiction_id)
        )
    if principal.role == "fse":
        return select(Manifest.id).where(Manifest.fse_id.in_(principal.fse_ids or [None]))
    if principal.role == "site":
        return select(Manifest.id).where(false())
    return select(Manifest.id).where(Manifest.jurisdiction_id == principal.jurisdiction_id)


def get(session, principal, *, manifest_id) -> Manifest:
    try:
        manifest_id = uuid.UUID(str(manifest_id))
    except ValueError:
        manifest_id = None
    # Every caller renders the receipt: revisions, their findings and the scans come along.
    manifest = (
        manifest_id
        and session.scalars(
            select(Manifest)
            .where(Manifest.id == manifest_id, Manifest.id.in_(visible(principal)))
            .options(
                joinedload(Manifest.revisions).joinedload(ManifestRevision.findings), joinedload(Manifest.documents)
            )
        )
        .unique()
        .one_or_none()
    )
    if manifest is None:
        raise NotFound("No such manifest within your reach.")
    return manifest


def confirm_disposals(session, *, now, manifest_ids=None) -> int:
    """Raise `disposal_unconfirmed` on current revisions whose deadline passed with no disposal."""
    query = (
        current_revisions()
        .join(Jurisdiction, Jurisdiction.id == Manifest.jurisdiction_id)
        .where(ManifestRevision.disposal_site_id.is_(None))
        .where(
            ~exists().where(
                Finding.revision_id == ManifestRevision.id,
                Finding.code == "disposal_unconfirmed",
                Finding.cleared_at.is_(None),
            )
        )
    )
    if manifest_ids is not None:
        query = query.where(ManifestRevision.manifest_id.in_(manifest_ids))
    raised, facts = 0, Facts(session)
    for revision, deadline_hours in session.execute(query.add_columns(Jurisdiction.manifest_deadline_hours)).all():
        if now > revision.service_completed_at + timedelta(hours=deadline_hours):
            refresh_told(session, revision, now=now, facts=facts)
            notice_models.add_event(session, notice_models.UNRECORDED, now, manifest_id=revision.manifest_id)
            raised += 1
    session.commit()
    return raised


def listing(
    session,
    principal,
    *,
    fse_id=None,
    permit_number=None,
    device_id=None,
    finding=None,
    status=None,
    service_from=None,
    service_to=None,
    cursor=None,
    limit=50,
):
    query = (
        select(Manifest)
        .join(
            ManifestRevision,
            and_(ManifestRevision.manifest_id == Manifest.id, ManifestRevision.revision == Manifest.current_revision),
        )
        .where(Manifest.id.in_(visible(principal)))
        .options(
            selectinload(Manifest.revisions).selectinload(ManifestRevision.findings), selectinload(Manifest.documents)
        )
    )
    if fse_id:
        query = query.where(Manifest.fse_id == fse_id)
    if device_id:
        query = query.where(Manifest.device_id == device_id)
    if permit_number:
        query = query.join(Permit, Permit.id == Manifest.permit_id).where(Permit.permit_number == permit_number)
    active_finding = exists().where(Finding.revision_id == ManifestRevision.id, Finding.cleared_at.is_(None))
    if finding:
        query = query.where(active_finding.where(Finding.code == finding))
    if status == "accepted":
        query = query.where(~active_finding)
    elif status == "accepted_with_findings":
        query = query.where(active_finding)
    if service_from or service_to:
        zone = select(Jurisdiction.time_zone).where(Jurisdiction.id == Manifest.jurisdiction_id).scalar_subquery()
        served_on = sql_local_date(ManifestRevision.service_completed_at, zone)
        if service_from:
            query = query.where(served_on >= service_from)
        if service_to:
            query = query.where(served_on <= service_to)
    if cursor:
        query = query.where(Manifest.id > decode_cursor(cursor))
    rows = session.scalars(query.order_by(Manifest.id).limit(limit + 1)).unique().all()
    more = len(rows) > limit
    rows = rows[:limit]
    return rows, encode_cursor(rows[-1].id) if more and rows else None


def due_of(session, device_id) -> tuple[checks.DeviceFacts, date | None, str]:
    """The device, the day its next service is due, and its city's time zone."""
    return dues(session, [device_id])[device_id]


def dues(session, device_ids) -> dict:
    """`due_of` for each of `device_ids`, by id, read in one query."""
    found, missing = {}, set(device_ids)
    if missing:
        last = (
            select(func.max(ManifestRevision.service_completed_at))
            .where(ManifestRevision.device_id == Device.id, ManifestRevision.in_force, ManifestRevision.qualifying)
            .scalar_subquery()
        )
        # Past its expiry by any city's today (a day more than the UTC date asks, to be sure).
        soon = (clock_now().date() - date(2000, 1, 1)).days + 2
        rows = session.execute(
            select(Device, last, Jurisdiction, frequency_changed(Device.id), device_ever_paused(Device, until=soon))
            .join(Permit, Permit.id == Device.permit_id)
            .join(Jurisdiction, Jurisdiction.id == Permit.jurisdiction_id)
            .where(Device.id.in_(missing))
        ).all()
        # The frequency histories of the devices whose frequency changed, and the permits of
        # the devices whose permit (any they were on) was ever suspended or revoked, in one
        # more statement each.
        changed = [row[0].id for row in rows if row[3]]
        histories = {}
        for change in (
            session.scalars(
                select(DeviceFrequencyChange)
                .where(DeviceFrequencyChange.device_id.in_(changed), DeviceFrequencyChange.withdrawn_at.is_(None))
                .order_by(DeviceFrequencyChange.effective_on)
            )
            if changed
            else ()
        ):
            histories.setdefault(change.device_id, []).append(change)
        tenures = load_tenures(session, [(row[0].id, row[0].permit_id) for row in rows if row[4]])
        rules_by_city = {}
        for device, completed, city, _changed, _paused in rows:
            facts = device_facts(device, histories.get(device.id, ()), tenures=tenures.get(device.id, ()))
            rules = rules_by_city.get(city.id) or rules_by_city.setdefault(city.id, rules_of(city))
            today = rules.day(clock_now())
            found[device.id] = (facts, checks.due_by(completed, facts, rules, today=today), rules.time_zone)
    return found
