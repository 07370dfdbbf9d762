"""Manifest use cases: submit and read; findings kept current as later loads arrive (corrections
are `services.corrections`).

A manifest is rejected only when it cannot be filed (schema errors, an unknown permit or
device). Everything else is stored and flagged: a late or non-compliant manifest is
evidence the city needs.
"""
import functools
import uuid
import weakref
from collections import deque
from dataclasses import dataclass
from datetime import date, datetime, timedelta

from sqlalchemy import Uuid, and_, bindparam, cast, exists, func, literal, null, select, union_all
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import joinedload, make_transient_to_detached, selectinload
from sqlalchemy.orm.util import identity_key
from sqlalchemy.orm.attributes import set_committed_value

from services.errors import Conflict, Invalid, NotFound
from services.accounts import certifier_of
from domain import chain, checks
from domain import registry as reg
from domain.clock import now as clock_now
from domain.dates import local_date, start_of_day
from schemas.manifest import canonical
from services import changes, documents, filing_names
from domain.registry_rows import approval_of, licences_of, registrations_of
from services.registry import decode_cursor, encode_cursor
from storage.localtime import local_date as sql_local_date
from storage.models import (
    Device,
    DisposalSite,
    DisposalSiteJurisdiction,
    Finding,
    Hauler,
    HaulerRegistration,
    Jurisdiction,
    Manifest,
    ManifestRevision,
    Permit,
    PermitStatusChange,
    RegistryGeneration,
    new_id,
    unflushed,
)
from storage.prebuilt import Prebuilt, insert_rows

# Facts --------------------------------------------------------------------------------------


# The jurisdiction's columns the checks read.
RULE_COLUMNS = ("manifest_deadline_hours", "twenty_five_percent_rule", "full_pump_min_ratio", "grace_days",
                "decant_return_allowed", "interceptor_max_interval_days", "min_outlet_clearance_in",
                "time_zone", "citations")


def rules_of(jurisdiction: Jurisdiction) -> checks.Rules:
    return checks.Rules(
        manifest_deadline_hours=jurisdiction.manifest_deadline_hours,
        twenty_five_percent_rule=jurisdiction.twenty_five_percent_rule,
        full_pump_min_ratio=jurisdiction.full_pump_min_ratio,
        grace_days=jurisdiction.grace_days,
        decant_return_allowed=jurisdiction.decant_return_allowed,
        interceptor_max_interval_days=jurisdiction.interceptor_max_interval_days,
        min_outlet_clearance_in=jurisdiction.min_outlet_clearance_in,
        time_zone=jurisdiction.time_zone,
        citations=dict(jurisdiction.citations),
    )


def device_facts(device: Device) -> checks.DeviceFacts:
    return checks.DeviceFacts(kind=device.kind, capacity_gallons=device.capacity_gallons,
                              liquid_depth_in=device.liquid_depth_in,
                              frequency_days=device.frequency_days,
                              frequency_source=device.frequency_source)


def permit_facts(permit: Permit) -> checks.PermitFacts:
    return checks.PermitFacts(
        permit_number=permit.permit_number, issued_on=permit.issued_on,
        expires_on=permit.expires_on,
        changes=tuple(reg.Dated(c.effective_on, c.status) for c in permit.status_changes),
    )


def hauler_facts(hauler: Hauler, jurisdiction_id) -> checks.HaulerFacts:
    """The hauler as the filing's city records it: no other city's rows count."""
    return checks.HaulerFacts(
        licences=tuple(licences_of(hauler, jurisdiction_id)),
        registrations=tuple(registrations_of(hauler, jurisdiction_id)),
        vehicles={v.vehicle_id: v.tank_capacity_gallons for v in hauler.vehicles
                  if v.jurisdiction_id == jurisdiction_id},
    )


def site_facts(site: DisposalSite | None, jurisdiction_id) -> checks.SiteFacts | None:
    """The site as the filing's city approved it; a site the city never approved is approved
    on no day, for no waste and not for the city."""
    if site is None:
        return None
    approval = approval_of(site, jurisdiction_id)
    if approval is None:
        return checks.SiteFacts(approved_from=date.max, approved_until=None, changes=(), waste_types=(),
                                jurisdiction_ids=frozenset())
    return checks.SiteFacts(
        approved_from=approval.approved_from, approved_until=approval.approved_until,
        changes=tuple(reg.Dated(c.effective_on, c.status) for c in approval.status_changes),
        waste_types=tuple(approval.waste_types),
        jurisdiction_ids=frozenset({jurisdiction_id}),
    )


def load_of(revision: ManifestRevision) -> checks.Load:
    return checks.Load(
        service_started_at=revision.service_started_at,
        service_completed_at=revision.service_completed_at,
        waste_type=revision.waste_type,
        gallons_removed=revision.gallons_removed,
        decant_returned_gallons=revision.decant_returned_gallons,
        full_pump_down=revision.full_pump_down,
        vehicle_id=revision.vehicle_id,
        fog_depth_in=revision.fog_depth_in,
        solids_depth_in=revision.solids_depth_in,
        disposal_site_id=revision.disposal_site_id,
        disposal_ticket_number=revision.disposal_ticket_number,
        disposal_delivered_at=revision.disposal_delivered_at,
        disposal_gallons_delivered=revision.disposal_gallons_delivered,
        outlet_clearance_in=revision.outlet_clearance_in,
        manifest_id=revision.manifest_id,
    )


def current_revisions():
    """Revisions now in force: the latest of each manifest."""
    return select(ManifestRevision).join(Manifest, and_(
        Manifest.id == ManifestRevision.manifest_id,
        Manifest.current_revision == ManifestRevision.revision,
    ))


# Findings -----------------------------------------------------------------------------------


def _cached(session, kind, key, build):
    """Registry facts are loaded once per session (one request, one transaction); a hauler's
    and a disposal site's are kept by the process while the registry generation stands."""
    cache = session.info.setdefault("fogx.facts", {})
    if (kind, key) not in cache:
        shared = _shared(session) if kind in SHARED_FACTS else None
        if shared is None:
            cache[(kind, key)] = build()
        else:
            if (kind, key) not in shared:
                shared[(kind, key)] = build()
            cache[(kind, key)] = shared[(kind, key)]
    return cache[(kind, key)]


SHARED_FACTS = {"hauler", "site", "registered", "hauler_name", "site_named"}
_SHARED_LIMIT = 10_000
_shared_by_engine = weakref.WeakKeyDictionary()  # engine -> (generation, {(kind, key): facts})


def _shared(session):
    """This process's facts for the generation the session read, or None when it read none."""
    generation = session.info.get("fogx.facts", {}).get(("generation", None))
    if generation is None:
        return None
    engine = session.get_bind()
    seen, facts = _shared_by_engine.get(engine, (None, None))
    if seen != generation or len(facts) >= _SHARED_LIMIT:
        facts = {}
        _shared_by_engine[engine] = (generation, facts)
    return facts


def registry_generation():
    return select(RegistryGeneration.generation).where(RegistryGeneration.id == 1).scalar_subquery()


def _hauler_facts(session, hauler_id, jurisdiction_id):
    hauler = session.scalars(select(Hauler).where(Hauler.id == hauler_id).options(
        joinedload(Hauler.licences), joinedload(Hauler.registrations), joinedload(Hauler.vehicles))).unique().one()
    return hauler_facts(hauler, jurisdiction_id)


def _registered_in(session, hauler_id):
    return frozenset(session.scalars(select(HaulerRegistration.jurisdiction_id).where(
        HaulerRegistration.hauler_id == hauler_id)))


def _device_facts(session, device_id):
    device = session.scalars(select(Device).where(Device.id == device_id).options(
        joinedload(Device.permit).joinedload(Permit.status_changes))).unique().one()
    return device_facts(device), permit_facts(device.permit)


def _zone(session, jurisdiction_id) -> str:
    """The city's time zone: its local dates are the ones its rules speak of."""
    return _cached(session, "zone", jurisdiction_id, lambda: session.scalar(
        select(Jurisdiction.time_zone).where(Jurisdiction.id == jurisdiction_id)))


def _site_facts(session, site_id, jurisdiction_id):
    site = session.scalars(select(DisposalSite).where(DisposalSite.id == site_id).options(
        joinedload(DisposalSite.approvals).joinedload(DisposalSiteJurisdiction.status_changes))).unique().one_or_none()
    return site_facts(site, jurisdiction_id)


@dataclass(frozen=True)
class Surroundings:
    """What one revision is checked against, and whose findings it can change."""

    same_service: list  # the device's other loads within a day of it
    same_ticket: list  # the other loads on its disposal ticket
    previous_qualifying: datetime | None  # the device's qualifying service before this one
    following: ManifestRevision | None  # the device's next service after this one
    latest_qualifying: datetime | None  # the device's latest qualifying service of another manifest


def _surroundings_statement():
    """One statement for every neighbour of a revision, built once: each filing only binds it."""
    current = and_(Manifest.id == ManifestRevision.manifest_id,
                   Manifest.current_revision == ManifestRevision.revision)
    here = select(ManifestRevision.id, ManifestRevision.service_completed_at).join(Manifest, current)
    # Only the moment of the previous and latest qualifying services is needed: those probes
    # stay inside the partial index of qualifying services, off the revisions' heap.
    when = select(cast(null(), Uuid).label("id"), ManifestRevision.service_completed_at).join(Manifest, current)
    completed = ManifestRevision.service_completed_at
    device = ManifestRevision.device_id == bindparam("device_id")
    others = ManifestRevision.manifest_id != bindparam("manifest_id")
    parts = [
        ("service", here.where(device, others, completed.between(bindparam("lo"), bindparam("hi")))),
        ("previous", when.where(device, others, ManifestRevision.qualifying, completed < bindparam("lo"))
         .order_by(completed.desc()).limit(1)),
        ("following", here.where(device, completed > bindparam("hi")).order_by(completed).limit(1)),
        ("latest", when.where(device, others, ManifestRevision.qualifying).order_by(completed.desc()).limit(1)),
        # One load: a site's ticket on one local day (a site may use a number again another
        # day). No ticket binds NULL, which matches nothing.
        ("ticket", here.where(others, ManifestRevision.disposal_site_id == bindparam("site_id"),
                              ManifestRevision.disposal_ticket_number == bindparam("ticket"),
                              ManifestRevision.disposal_delivered_at >= bindparam("delivered_from"),
                              ManifestRevision.disposal_delivered_at < bindparam("delivered_to"))),
    ]
    return union_all(*(select(literal(role).label("role"), part.subquery()) for role, part in parts))


SURROUNDINGS = Prebuilt(_surroundings_statement())


def surroundings(session, revision: ManifestRevision) -> Surroundings:
    """Every neighbour of `revision` in one round trip (ids), then the rows, if any."""
    completed, window = revision.service_completed_at, checks.SAME_SERVICE
    delivered_from = delivered_to = None
    if revision.disposal_delivered_at is not None:
        zone = _zone(session, revision.manifest.jurisdiction_id)
        day = local_date(revision.disposal_delivered_at, zone)
        delivered_from, delivered_to = start_of_day(day, zone), start_of_day(day + timedelta(days=1), zone)
    session.flush()  # what this request changed is part of the neighbourhood
    found = SURROUNDINGS.all(session.connection(), {
        "device_id": revision.device_id, "manifest_id": revision.manifest_id,
        "lo": completed - window, "hi": completed + window,
        "site_id": revision.disposal_site_id, "ticket": revision.disposal_ticket_number,
        "delivered_from": delivered_from, "delivered_to": delivered_to,
    })
    rows = _revisions(session, {row.id for row in found if row.role in ("service", "ticket", "following")})

    def moment(role):
        return next((row.service_completed_at for row in found if row.role == role), None)

    return Surroundings(
        same_service=[rows[row.id] for row in found if row.role == "service"],
        same_ticket=[rows[row.id] for row in found if row.role == "ticket"],
        previous_qualifying=moment("previous"),
        following=next((rows[row.id] for row in found if row.role == "following"), None),
        latest_qualifying=moment("latest"),
    )


_HELD_REVISIONS = 1_000


def _revisions(session, ids) -> dict:
    """The revisions of `ids` by id: those the session holds already as they are, the rest in
    one query with their manifests and findings (what refreshing them reads). Refreshing the
    loads of one service asks for the same neighbours again for each of them, so the last
    revisions loaded are kept referenced (the session's identity map alone would let them go)."""
    rows, missing = {}, []
    for revision_id in ids:
        held = session.identity_map.get(identity_key(ManifestRevision, revision_id))
        if held is None:
            missing.append(revision_id)
        else:
            rows[revision_id] = held
    if missing:
        loaded = session.scalars(select(ManifestRevision).where(ManifestRevision.id.in_(missing)).options(
            joinedload(ManifestRevision.manifest), selectinload(ManifestRevision.findings))).unique().all()
        session.info.setdefault("fogx.held_revisions", deque(maxlen=_HELD_REVISIONS)).extend(loaded)
        rows.update((r.id, r) for r in loaded)
    return rows


def evaluate(session, revision: ManifestRevision, now, around: Surroundings | None = None) -> list[checks.Finding]:
    """Every finding the revision raises today, with the facts as they stood on its dates."""
    manifest = revision.manifest
    device, permit = _cached(session, "device", revision.device_id,
                             lambda: _device_facts(session, revision.device_id))
    rules = _cached(session, "rules", manifest.jurisdiction_id,
                    lambda: rules_of(session.get(Jurisdiction, manifest.jurisdiction_id)))
    city = manifest.jurisdiction_id
    hauler = _cached(session, "hauler", (manifest.hauler_id, city),
                     lambda: _hauler_facts(session, manifest.hauler_id, city))
    site = None
    if revision.disposal_site_id:
        site = _cached(session, "site", (revision.disposal_site_id, city),
                       lambda: _site_facts(session, revision.disposal_site_id, city))
    around = around or surroundings(session, revision)
    return checks.check(
        load=load_of(revision), received_at=first_received(manifest), now=now,
        rules=rules, jurisdiction_id=manifest.jurisdiction_id,
        device=device, permit=permit, hauler=hauler, site=site,
        device_loads=[load_of(o) for o in around.same_service],
        ticket_loads=[load_of(t) for t in around.same_ticket],
        previous_qualifying=around.previous_qualifying,
    )


def first_received(manifest: Manifest) -> datetime:
    """When the manifest number was first received: a manifest is made with its first
    revision, at that moment. The filing deadline runs to it; a correction never moves it
    (Victorville 10.03.170(b))."""
    return manifest.created_at


def refresh(session, revision: ManifestRevision, now, around: Surroundings | None = None) -> tuple[list, list]:
    """Bring the revision's stored findings in line with what it raises now: the codes
    (raised, cleared).

    New findings are added; findings no longer raised (a second truckload completing the
    pump-down, say) are cleared with a date, never deleted.
    """
    raised = {finding.code: finding for finding in evaluate(session, revision, now, around)}
    active = {f.code: f for f in revision.findings if f.cleared_at is None}
    for code, finding in raised.items():
        if code not in active:
            revision.findings.append(Finding(
                id=new_id(), revision_id=revision.id, code=code, severity=finding.severity,
                message=finding.message, citation=finding.citation, raised_at=now, cleared_at=None))
    for code, stored in active.items():
        if code not in raised:
            stored.cleared_at = now
    revision.qualifying = checks.is_qualifying(raised)
    return sorted(raised.keys() - active.keys()), sorted(active.keys() - raised.keys())


def refresh_told(session, revision: ManifestRevision, now):
    """`refresh` a stored revision; what changed goes in the change feed."""
    raised, cleared = refresh(session, revision, now)
    if raised or cleared:
        changes.record(session, revision.manifest, changes.FINDINGS_CHANGED, at=now,
                       revision=revision.revision, raised=raised, cleared=cleared)


def neighbours(revision: ManifestRevision, around: Surroundings) -> set:
    """The other manifests' revisions whose findings this revision can change: the same
    service's other loads, the loads on the same disposal ticket, and the device's next service."""
    found = {*around.same_service, *around.same_ticket}
    if around.following is not None:
        found.add(around.following)
    found.discard(revision)
    return found


def refresh_neighbours(session, revision: ManifestRevision, now, around: Surroundings | None = None):
    """Bring the findings of the revision's `neighbours` in line with it."""
    around = around or surroundings(session, revision)
    for neighbour in sorted(neighbours(revision, around), key=lambda r: r.service_completed_at):
        refresh_told(session, neighbour, now)


# Submitting ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Named:
    """The permit and device a manifest names, resolved."""

    permit_id: uuid.UUID
    permit_number: str
    jurisdiction_id: uuid.UUID
    device_id: uuid.UUID
    fse_id: uuid.UUID


def _resolve_statement(*, ordered=True):
    """Permits by number with the named device, their status history and their city's rules,
    and the registry generation: built once, bound per filing."""
    rules = [getattr(Jurisdiction, name) for name in RULE_COLUMNS]
    statement = (
        select(Permit.id.label("permit_id"), Permit.permit_number, Permit.jurisdiction_id, Permit.issued_on,
               Permit.expires_on, Device.id.label("device_id"), Device.fse_id, Device.kind,
               Device.capacity_gallons, Device.liquid_depth_in, Device.frequency_days, Device.frequency_source,
               PermitStatusChange.effective_on, PermitStatusChange.status, PermitStatusChange.recorded_at,
               *rules, registry_generation().label("generation"))
        .join(Jurisdiction, Jurisdiction.id == Permit.jurisdiction_id)
        .outerjoin(Device, and_(Device.permit_id == Permit.id, Device.tag == bindparam("tag")))
        .outerjoin(PermitStatusChange, PermitStatusChange.permit_id == Permit.id)
        .where(Permit.permit_number == bindparam("number"))
    )
    if not ordered:
        return statement
    return statement.order_by(*(statement.selected_columns[name] for name in _RESOLVE_ORDER))


# A permit's rows, its status changes in the order they took effect (and were recorded).
_RESOLVE_ORDER = ("permit_id", "effective_on", "recorded_at")
RESOLVE = Prebuilt(_resolve_statement())


def resolve_params(permit_number, device_tag) -> dict:
    return {"number": permit_number, "tag": device_tag}


def resolve(session, data, hauler_id) -> Named:
    """The permit and device a manifest names, or a 422 naming the field.

    Permit numbers are unique within a jurisdiction. A number is read in the cities the hauler
    is registered in; a permit of another city is found only together with the named device
    (its filing is kept and flagged), so a 422 tells nothing of other cities' permits. One
    query brings the permit with its status history, its city's rules and the device; the
    facts the checks need are kept for the request.
    """
    params = resolve_params(data["permit_number"], data["device_tag"])
    rows = RESOLVE.all(session.connection(), params)
    permits = {}
    for row in rows:
        permits.setdefault(row.permit_id, []).append(row)
    if rows:
        session.info.setdefault("fogx.facts", {})[("generation", None)] = rows[0].generation
        registered = _cached(session, "registered", hauler_id, lambda: _registered_in(session, hauler_id))
        own = {k: v for k, v in permits.items() if v[0].jurisdiction_id in registered}
        # Another city's permit only with the named device, and only where one city has both.
        elsewhere = {k: v for k, v in permits.items() if v[0].device_id is not None}
        permits = own or (elsewhere if len(elsewhere) == 1 else {})
    if not permits:
        raise Invalid("The manifest names an unknown permit.",
                      errors={"permit_number": ["No such permit."]})
    if len(permits) > 1:
        raise Invalid("The permit number is ambiguous.",
                      errors={"permit_number": ["Used in several jurisdictions."]})
    (history,) = permits.values()
    first = history[0]
    if first.device_id is None:
        raise Invalid("The manifest names a device the permit does not list.",
                      errors={"device_tag": [f"No device {data['device_tag']!r} on permit "
                                             f"{first.permit_number}."]})
    _cached(session, "device", first.device_id, lambda: (device_facts(first), checks.PermitFacts(
        permit_number=first.permit_number, issued_on=first.issued_on, expires_on=first.expires_on,
        changes=tuple(reg.Dated(r.effective_on, r.status) for r in history if r.effective_on is not None))))
    _cached(session, "rules", first.jurisdiction_id, lambda: rules_of(first))
    _cached(session, "zone", first.jurisdiction_id, lambda: first.time_zone)
    return Named(permit_id=first.permit_id, permit_number=first.permit_number,
                 jurisdiction_id=first.jurisdiction_id, device_id=first.device_id, fse_id=first.fse_id)


def _refuse_the_future(data, now):
    skew = timedelta(minutes=5)
    errors = {}
    if data["service_completed_at"] > now + skew:
        errors["service_completed_at"] = ["Must not be in the future."]
    if data.get("disposal") and data["disposal"]["delivered_at"] > now + skew:
        errors["disposal.delivered_at"] = ["Must not be in the future."]
    if errors:
        raise Invalid("The manifest is dated in the future.", errors=errors)


def _columns(data, named: Named) -> dict:
    disposal = data.get("disposal") or {}
    measured = data.get("measurements") or {}
    return dict(
        device_id=named.device_id,
        service_started_at=data["service_started_at"],
        service_completed_at=data["service_completed_at"],
        waste_type=data["waste_type"],
        gallons_removed=data["gallons_removed"],
        decant_returned_gallons=data["decant_returned_gallons"],
        full_pump_down=data["full_pump_down"],
        vehicle_id=data["vehicle_id"],
        disposal_site_id=disposal.get("site_id"),
        disposal_ticket_number=disposal.get("ticket_number"),
        disposal_delivered_at=disposal.get("delivered_at"),
        disposal_gallons_delivered=disposal.get("gallons_delivered"),
        fog_depth_in=measured.get("fog_depth_in"),
        solids_depth_in=measured.get("solids_depth_in"),
        outlet_clearance_in=measured.get("outlet_clearance_in"),
        qualifying=True,
    )


def _named_at_filing(session, hauler_id, data, named: Named) -> dict:
    city = named.jurisdiction_id
    hauler = _cached(session, "hauler", (hauler_id, city), lambda: _hauler_facts(session, hauler_id, city))
    return filing_names.at_filing(
        session, functools.partial(_cached, session), hauler_id=hauler_id, licences=hauler.licences,
        site_id=(data.get("disposal") or {}).get("site_id"),
        service_day=local_date(data["service_completed_at"], _zone(session, named.jurisdiction_id)))


def _revision(manifest, number, body, data, named, *, received_at, reason, previous, client_pk, names,
              certifier=None) -> dict:
    """A new revision's columns: the canonical document and its chained hash among them, and
    the names of its hauler and disposal site at filing (`services.filing_names`), and the
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
    certification = None if certifier is None else {
        "name": certifier["name"], "organisation": certifier["organisation"],
        "certified_at": document["received_at"], "sha256": sha256}
    return dict(
        id=new_id(), manifest_id=manifest.id, revision=number, body=document, sha256=sha256,
        previous_sha256=previous, reason=reason, received_at=received_at,
        submitted_by_client_id=client_pk, submitted_by_person_id=certifier and certifier["person_id"],
        certification=certification, **_columns(data, named), **names,
    )


def _find(session, hauler_id, manifest_number):
    return session.scalar(select(Manifest).where(Manifest.hauler_id == hauler_id,
                                                 Manifest.manifest_number == manifest_number))


def _same_or_conflict(manifest: Manifest, body: dict):
    if current(manifest).body["manifest"] != body:
        raise Conflict(f"Manifest {manifest.manifest_number} was filed with a different body; "
                       "send a correction to change it.")
    return manifest


def current(manifest: Manifest) -> ManifestRevision:
    return manifest.revisions[manifest.current_revision - 1]


def submit(session, principal, data, *, store=None, uploads=()) -> tuple[Manifest, bool]:
    """File a manifest with its scans; (manifest, created).

    A repeat of the same body returns the stored manifest (attaching any scan it lacks): the
    unique `(hauler, manifest_number)` finds it, so a first filing pays no lookup for it.
    Scans are written to the store, unlocked, before anything is committed.
    """
    now = clock_now()
    _refuse_the_future(data, now)
    named = resolve(session, data, principal.hauler_id)
    body = canonical(data)
    if uploads:
        documents.check(uploads)
        documents.put_objects(store, uploads)
    manifest = unflushed(Manifest, id=new_id(), hauler_id=principal.hauler_id,
                         manifest_number=data["manifest_number"], jurisdiction_id=named.jurisdiction_id,
                         fse_id=named.fse_id, device_id=named.device_id, permit_id=named.permit_id,
                         current_revision=1, created_at=now, documents=[], revisions=[])
    revision = unflushed(ManifestRevision, manifest=manifest, findings=[], **_revision(
        manifest, 1, body, data, named, received_at=now, reason=None, previous=None,
        client_pk=principal.client_pk, names=_named_at_filing(session, principal.hauler_id, data, named),
        certifier=certifier_of(session, principal)))
    manifest.revisions.append(revision)
    try:
        # The new rows are not in the database yet: nothing a neighbour query returns is them.
        around = surroundings(session, revision)
        refresh(session, revision, now, around)
        # No neighbour to refresh and no scan to attach: the new rows are all the filing writes.
        _insert_new(session, manifest, revision, now, alone=not (uploads or neighbours(revision, around)))
        if uploads:
            # Before the neighbours are refreshed: their own neighbourhood reads the new rows,
            # which must come back as these objects, not as copies the session would refuse.
            _adopt(session, manifest)
        refresh_neighbours(session, revision, now, around)
        due = _due_after(session, revision, around)
        if uploads:
            documents.attach(session, manifest, list(uploads), service_day=_service_day(session, revision))
        session.commit()
    except IntegrityError:
        # The hauler filed this number before (or another request just did): a repeat.
        session.rollback()
        existing = _find(session, principal.hauler_id, data["manifest_number"])
        if existing is None:
            raise
        return _repeat(session, existing, body, uploads), False
    session.info.setdefault("fogx.due", {})[named.device_id] = due
    return manifest, True


def _insert_new(session, manifest: Manifest, revision: ManifestRevision, now, *, alone=False):
    """A new manifest, its first revision, their findings and its change, with no unit of work
    (on PostgreSQL in one statement; `alone`: committed by itself where nothing else was
    written). The objects stay out of the session (see `_adopt`)."""
    filed = changes.entry(manifest, changes.FILED, at=now, revision=1, findings=changes.active_codes(revision))
    insert_rows(session.connection(), (manifest, revision, *revision.findings, filed), alone=alone)


def _adopt(session, manifest: Manifest):
    """The inserted manifest joins the session as the rows it is, not as pending ones, so that
    what is attached to it next is written beside it."""
    for instance in (manifest, *manifest.revisions, *(f for r in manifest.revisions for f in r.findings)):
        for relationship in type(instance).__mapper__.relationships:
            if relationship.uselist and relationship.key in instance.__dict__:
                set_committed_value(instance, relationship.key, list(instance.__dict__[relationship.key]))
        make_transient_to_detached(instance)
    session.add(manifest)


def _due_after(session, revision, around: Surroundings):
    """The receipt's due date from what the filing already read.

    A new load can only make the loads of its service count (more gallons, one more
    attestation), never stop them counting, so the latest qualifying service is the latest
    of the other manifests' or one of the loads just refreshed.
    """
    loads = (revision, *around.same_service, *around.same_ticket, around.following)
    times = [r.service_completed_at for r in loads
             if r is not None and r.device_id == revision.device_id and r.qualifying]
    if around.latest_qualifying is not None:
        times.append(around.latest_qualifying)
    device, _ = _cached(session, "device", revision.device_id,
                        lambda: _device_facts(session, revision.device_id))
    rules = _cached(session, "rules", revision.manifest.jurisdiction_id,
                    lambda: rules_of(session.get(Jurisdiction, revision.manifest.jurisdiction_id)))
    return device, checks.due_by(max(times, default=None), device, rules)


def _service_day(session, revision: ManifestRevision) -> date:
    return local_date(revision.service_completed_at, _zone(session, revision.manifest.jurisdiction_id))


def _repeat(session, manifest, body, uploads):
    """The stored manifest for a repeated filing; scans it lacks (already written) are attached."""
    _same_or_conflict(manifest, body)
    if uploads:
        documents.attach(session, manifest, list(uploads), service_day=_service_day(session, current(manifest)))
        session.commit()
    return manifest


# Reading ------------------------------------------------------------------------------------


def visible(principal):
    """A select of the manifest ids within the caller's reach."""
    if principal.role == "hauler":
        return select(Manifest.id).where(Manifest.hauler_id == principal.hauler_id)
    if principal.role == "fse":
        return select(Manifest.id).where(Manifest.fse_id.in_(principal.fse_ids or [None]))
    return select(Manifest.id).where(Manifest.jurisdiction_id == principal.jurisdiction_id)


def get(session, principal, manifest_id) -> Manifest:
    try:
        manifest_id = uuid.UUID(str(manifest_id))
    except ValueError:
        manifest_id = None
    # Every caller renders the receipt: revisions, their findings and the scans come along.
    manifest = manifest_id and session.scalars(select(Manifest).where(
        Manifest.id == manifest_id, Manifest.id.in_(visible(principal))).options(
        joinedload(Manifest.revisions).joinedload(ManifestRevision.findings),
        joinedload(Manifest.documents))).unique().one_or_none()
    if manifest is None:
        raise NotFound("No such manifest within your reach.")
    return manifest


def confirm_disposals(session, *, now, manifest_ids=None) -> int:
    """Raise `disposal_unconfirmed` on current revisions whose deadline passed with no disposal."""
    query = (current_revisions()
             .join(Jurisdiction, Jurisdiction.id == Manifest.jurisdiction_id)
             .where(ManifestRevision.disposal_site_id.is_(None))
             .where(~exists().where(Finding.revision_id == ManifestRevision.id,
                                    Finding.code == "disposal_unconfirmed",
                                    Finding.cleared_at.is_(None))))
    if manifest_ids is not None:
        query = query.where(ManifestRevision.manifest_id.in_(manifest_ids))
    raised = 0
    for revision, deadline_hours in session.execute(
            query.add_columns(Jurisdiction.manifest_deadline_hours)).all():
        if now > revision.service_completed_at + timedelta(hours=deadline_hours):
            refresh_told(session, revision, now)
            raised += 1
    session.commit()
    return raised


def listing(session, principal, *, fse_id=None, permit_number=None, device_id=None, finding=None,
            status=None, service_from=None, service_to=None, cursor=None, limit=50):
    query = (select(Manifest).join(ManifestRevision, and_(
        ManifestRevision.manifest_id == Manifest.id,
        ManifestRevision.revision == Manifest.current_revision))
        .where(Manifest.id.in_(visible(principal)))
        .options(selectinload(Manifest.revisions).selectinload(ManifestRevision.findings),
                 selectinload(Manifest.documents)))
    if fse_id:
        query = query.where(Manifest.fse_id == fse_id)
    if device_id:
        query = query.where(Manifest.device_id == device_id)
    if permit_number:
        query = query.join(Permit, Permit.id == Manifest.permit_id).where(
            Permit.permit_number == permit_number)
    active_finding = exists().where(Finding.revision_id == ManifestRevision.id,
                                    Finding.cleared_at.is_(None))
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


def due_of(session, device_id) -> tuple[checks.DeviceFacts, date | None]:
    """The device and the day its next service is due: known already to the filing that just
    committed in this session, else one query."""
    return dues(session, [device_id])[device_id]


def dues(session, device_ids) -> dict:
    """`due_of` for each of `device_ids`, by id: the ones a filing in this session has not
    already worked out are read in one query."""
    known = session.info.get("fogx.due", {})
    found = {device_id: known[device_id] for device_id in device_ids if device_id in known}
    missing = set(device_ids) - found.keys()
    if missing:
        last = current_revisions().with_only_columns(func.max(ManifestRevision.service_completed_at)).where(
            ManifestRevision.device_id == Device.id, ManifestRevision.qualifying).scalar_subquery()
        for device, completed, city in session.execute(
                select(Device, last, Jurisdiction).join(Permit, Permit.id == Device.permit_id)
                .join(Jurisdiction, Jurisdiction.id == Permit.jurisdiction_id).where(Device.id.in_(missing))).all():
            facts = device_facts(device)
            rules = _cached(session, "rules", city.id, lambda: rules_of(city))
            found[device.id] = (facts, checks.due_by(completed, facts, rules))
    return found
