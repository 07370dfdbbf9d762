"""An FSE's record for a period: its permits, devices, every manifest revision and a summary.

Every day in it is the FSE's city's local day: the period, the services, the due dates.
"""

from collections import Counter
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from decimal import Decimal

from sqlalchemy import and_, func, select
from sqlalchemy.orm import selectinload

from domain import chain, frequency, reconcile
from domain import registry as reg
from domain.clock import now as clock_now
from domain.dates import add_years, local_date, start_of_day
from domain.device_rules import longest_interval_days
from domain.status import (
    Interval,
    clock_start,
    device_pauses,
    device_status,
    effective_frequency,
    frequency_history,
    permit_ended_on,
    tenures_of,
)
from services.errors import Invalid
from services.records import integrity, maintenance
from services.registry import fses as registry
from storage.models import Device, DisposalReceipt, Document, Fse, Jurisdiction, Manifest, ManifestRevision, Permit


@dataclass
class DeviceLine:
    device: Device
    permit: Permit  # the one it was on on the day the record is asked about
    permit_status: str  # that permit's status on that day
    frequency_days: int
    status: str
    due_on: date | None  # None once the permit has ended
    days_overdue: int
    last_qualifying: date | None
    services: list = field(default_factory=list)  # service dates in the period
    # The FOG and solids measured in the period's intervals, and the frequency they support
    # once there are enough of them (interceptors only).
    accumulation: frequency.Accumulation | None = None
    advice: frequency.Recommendation | None = None
    # Its interval as the record judges it (`domain.status.Interval`): each service's own due day.
    interval: Interval | None = None


@dataclass
class Record:
    fse: Fse
    jurisdiction: Jurisdiction
    period_from: date
    period_to: date
    generated_at: datetime
    permits: list
    devices: list[DeviceLine]
    manifests: list[Manifest]  # current revision in the period, oldest service first
    receipts: dict = field(default_factory=dict)  # manifest id -> the disposal site's receipt of its load
    # (device, day): the days of the period a trap went without the kitchen's own cleaning
    # its city's text asks for (the maintenance log's `missing`).
    maintenance_missing: list = field(default_factory=list)

    @property
    def zone(self) -> str:
        """The city's time zone: every time a person reads in the record is its local time."""
        return self.jurisdiction.time_zone

    @property
    def as_of(self) -> date:
        """The day the devices are judged on: the period's last day, or today where sooner."""
        return min(self.period_to, local_date(self.generated_at, self.zone))

    def current(self, manifest):
        return manifest.revisions[manifest.current_revision - 1]

    def permit_of(self, manifest) -> Permit:
        """The permit the pump-out was served under: the one its device was listed on on the
        service day (after a renewal, the old permit for the old permit's days)."""
        return next(p for p in self.permits if p.id == manifest.permit_id)

    def active_findings(self, manifest):
        return [f for f in self.current(manifest).findings if f.cleared_at is None]

    @property
    def summary(self):
        findings = Counter(f.code for m in self.manifests for f in self.active_findings(m))
        late = sum(1 for m in self.manifests if any(f.code == "late_submission" for f in self.active_findings(m)))
        total = len(self.manifests)
        return {
            "manifests": total,
            "qualifying_services": sum(1 for m in self.manifests if self.current(m).qualifying),
            "on_time_share": round((total - late) / total, 4) if total else None,
            "findings_by_code": dict(sorted(findings.items())),
            "devices": {
                line.device.tag: {
                    "status": line.status,
                    "next_due_on": line.due_on.isoformat() if line.due_on else None,
                    "days_overdue": line.days_overdue,
                }
                for line in self.devices
            },
        }

    def documents(self):
        return [d for m in self.manifests for d in m.documents]


def build(session, fse: Fse, *, period_from=None, period_to=None) -> Record:
    now = clock_now()
    jurisdiction = session.get(Jurisdiction, fse.jurisdiction_id)
    zone = jurisdiction.time_zone
    today = local_date(now, zone)
    period_to = period_to or today
    period_from = period_from or add_years(period_to, -jurisdiction.retention_years)
    if period_to < period_from:
        raise Invalid("The period ends before it starts.", errors={"to": ["Must not be before from."]})
    begins, ends = start_of_day(period_from, zone), start_of_day(period_to + timedelta(days=1), zone)
    permits = session.scalars(select(Permit).where(Permit.fse_id == fse.id).order_by(Permit.issued_on)).all()
    devices = session.scalars(select(Device).where(Device.fse_id == fse.id).order_by(Device.tag)).all()
    manifests = session.scalars(
        select(Manifest)
        .join(
            ManifestRevision,
            and_(ManifestRevision.manifest_id == Manifest.id, ManifestRevision.revision == Manifest.current_revision),
        )
        .where(
            Manifest.fse_id == fse.id,
            ManifestRevision.service_completed_at >= begins,
            ManifestRevision.service_completed_at < ends,
        )
        .order_by(ManifestRevision.service_completed_at, Manifest.id)
        .options(
            selectinload(Manifest.revisions).selectinload(ManifestRevision.findings), selectinload(Manifest.documents)
        )
    ).all()
    lines = []
    by_id = {p.id: p for p in permits}
    for device in devices:
        last = session.scalar(
            select(func.max(ManifestRevision.service_completed_at)).where(
                ManifestRevision.device_id == device.id,
                ManifestRevision.in_force,
                ManifestRevision.qualifying,
                ManifestRevision.service_completed_at < ends,
            )
        )
        last_day = local_date(last, zone) if last else None
        as_of = min(period_to, today)
        # The permit the device was on on the day asked: after a renewal, the old one for its days.
        permit = by_id[reg.permit_on(as_of, current=device.permit_id, moves=device.permit_moves)]
        tenures = tenures_of(
            current=device.permit_id,
            moves=device.permit_moves,
            changes_of=lambda permit_id: [reg.Dated(c.effective_on, c.status) for c in by_id[permit_id].status_changes],
            dates_of=lambda permit_id: (by_id[permit_id].issued_on, by_id[permit_id].expires_on),
        )
        interval = Interval.of(
            device.kind,
            device.frequency_days,
            grace_days=jurisdiction.grace_days,
            longest_days=jurisdiction.interceptor_max_interval_days,
            longest_months=jurisdiction.interceptor_max_interval_months,
            frequencies=frequency_history(device.frequency_changes),
            pauses=device_pauses(tenures, until=as_of + timedelta(days=1)),
            first_months=device.frequency_months,
        )
        frequency_days = effective_frequency(
            device.kind, interval.frequency_on(as_of), longest_interval_days(jurisdiction)
        )
        permit_changes = [reg.Dated(c.effective_on, c.status) for c in permit.status_changes]
        ended = permit_ended_on(expires_on=permit.expires_on, day=as_of, changes=permit_changes)
        permit_status = reg.permit_status_on(
            issued_on=permit.issued_on, expires_on=permit.expires_on, changes=permit_changes, day=as_of
        )
        # A device renewed onto a new permit counts from its first permit's issue, or from the
        # day it was put in service where later.
        counted_from = clock_start(
            issued_on=min(by_id[permit_id].issued_on for permit_id in _permits_of(device)),
            in_service_on=device.in_service_on,
        )
        status = device_status(
            as_of=as_of,
            last_qualifying=last_day,
            counted_from=counted_from,
            interval=interval,
            permit_ended=ended,
            retired_on=device.retired_on,
        )
        revisions = [m.revisions[m.current_revision - 1] for m in manifests if m.device_id == device.id]
        accumulation = advice = None
        if device.kind == "interceptor":
            accumulation = frequency.measured(
                (local_date(r.service_completed_at, zone), r.qualifying, _depth(r)) for r in revisions
            )
        if accumulation and accumulation.intervals >= frequency.ENOUGH_INTERVALS:
            advice = frequency.recommend(
                accumulation,
                liquid_depth_in=device.liquid_depth_in,
                limit_share=jurisdiction.twenty_five_percent_rule,
                current_days=frequency_days,
                allowed=jurisdiction.allowed_frequencies,
                max_interval_days=longest_interval_days(jurisdiction),
            )
        lines.append(
            DeviceLine(
                device=device,
                permit=permit,
                permit_status=permit_status,
                frequency_days=frequency_days,
                status=status.status,
                due_on=status.due_on,
                days_overdue=status.days_overdue,
                last_qualifying=last_day,
                services=[local_date(r.service_completed_at, zone) for r in revisions],
                accumulation=accumulation,
                advice=advice,
                interval=interval,
            )
        )
    return Record(
        fse=fse,
        jurisdiction=jurisdiction,
        period_from=period_from,
        period_to=period_to,
        generated_at=now,
        permits=permits,
        devices=lines,
        manifests=manifests,
        receipts=_receipts(session, manifests, zone),
        maintenance_missing=maintenance.missing_in(session, fse, day_from=period_from, day_to=period_to),
    )


def _permits_of(device) -> set:
    """Every permit the device was on: its permit now and each one a move took it from."""
    return {device.permit_id, *(move.from_permit_id for move in device.permit_moves)}


def _receipts(session, manifests, zone) -> dict:
    """The disposal site's own receipt of each manifest's load, where the site sent one: the
    ticket of the manifest's current revision at its site on its local delivery day (the
    reconciliation's match)."""
    tickets = {}
    for manifest in manifests:
        revision = manifest.revisions[manifest.current_revision - 1]
        if revision.disposal_site_id and revision.disposal_ticket_number and revision.disposal_delivered_at:
            tickets[
                reconcile.load_key(
                    revision.disposal_site_id, revision.disposal_ticket_number, revision.disposal_delivered_at, zone
                )
            ] = manifest.id
    if not tickets:
        return {}
    found = session.scalars(
        select(DisposalReceipt).where(
            DisposalReceipt.site_id.in_({site for site, _, _ in tickets}),
            DisposalReceipt.ticket_number.in_({ticket for _, ticket, _ in tickets}),
        )
    )
    return {
        tickets[key]: receipt
        for receipt in found
        if (key := (receipt.site_id, receipt.ticket_number, receipt.received_on)) in tickets
    }


def _depth(revision: ManifestRevision) -> Decimal | None:
    """FOG and solids measured before pumping, where both were."""
    if revision.fog_depth_in is None or revision.solids_depth_in is None:
        return None
    return revision.fog_depth_in + revision.solids_depth_in


def for_caller(session, principal, *, fse_id, **period) -> Record:
    return build(session, registry.get_fse(session, principal, fse_id=fse_id), **period)


def verify(session, store, *, fse: Fse) -> list[str]:
    """Every revision's hash chain, the columns that decide retention and holds against what
    the hashed revisions say, and every document's SHA-256 against the store: for every
    manifest that names the FSE or ever named it."""
    import hashlib

    problems = []
    for manifest in integrity.manifests_naming(session, fse):
        chain_rows = [(r.revision, r.body, r.sha256) for r in manifest.revisions]
        problems += [f"manifest {manifest.manifest_number}: {p}" for p in chain.verify(chain_rows)]
        problems += [f"manifest {manifest.manifest_number}: {p}" for p in integrity.problems(session, manifest)]
        for document in session.scalars(select(Document).where(Document.manifest_id == manifest.id)):
            digest = hashlib.sha256()
            try:
                with store.open(document.object_key, document.object_version_id) as body:
                    while chunk := body.read(1024 * 1024):
                        digest.update(chunk)
            except (KeyError, FileNotFoundError):
                problems.append(f"manifest {manifest.manifest_number}: document {document.id} is missing")
                continue
            if digest.hexdigest() != document.sha256:
                problems.append(
                    f"manifest {manifest.manifest_number}: document {document.id} does not match its SHA-256"
                )
    return problems
