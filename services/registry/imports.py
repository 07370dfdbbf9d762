"""Bulk registry import from CSV, idempotent, row by row (the file and its rows are read in `import_rows.py`).

Every row is validated on its own; a bad row is reported with its line number and reason
and never stops the good ones. Haulers and disposal sites are shared by the cities: a row
changes only the importing city's own approval of one, and its name or address only where
that city registered it first. Rows are matched on their natural key (an FSE's APN and
name, a permit number, a device tag, a licence number, a vehicle id, a facility permit
number), so running the same file twice changes nothing the second time.
"""

from dataclasses import dataclass, field

from marshmallow import ValidationError
from sqlalchemy import select

from domain import registry as rules
from domain.checks import CITY_DEFAULT
from domain.device_rules import default_frequency, default_months, frequency_refusal
from domain.registry_rows import approval_of, licences_of, registrations_of
from schemas.field_errors import flatten_errors
from services.registry import device_frequency, device_permit, device_retirement, permit_status
from services.registry import log as registry_log
from services.registry.fses import city_today, device_warnings, in_service_refusal, judge_permit_term
from services.registry.haulers import (
    SHARED_SITE_FIELDS,
    approve_hauler,
    differing,
    hauler_by_licence,
    new_hauler,
    registered_here,
    shared_field_kept,
    site_approval,
    site_by_permit,
)
from services.registry.import_rows import ROW_SCHEMAS, Rejected, cells
from storage.models import (
    Device,
    DisposalSite,
    DisposalSiteStatusChange,
    Fse,
    Hauler,
    HaulerLicence,
    HaulerRegistration,
    Jurisdiction,
    Permit,
    PermitStatusChange,
    Vehicle,
)


@dataclass
class Report:
    kind: str
    rows: int = 0
    created: int = 0
    updated: int = 0
    unchanged: int = 0
    rejected: int = 0
    rejections: list = field(default_factory=list)
    warnings: list = field(default_factory=list)

    def as_dict(self):
        return dict(self.__dict__)


class Importer:
    """Holds the jurisdiction's existing rows by natural key, so a run makes few queries."""

    def __init__(self, session, jurisdiction, kind, by=None, command=None):
        self.session = session
        self.by, self.command = by, command
        self.jurisdiction = jurisdiction
        self.kind = kind
        self.apply = getattr(self, "_" + kind.replace("-", "_"))
        self.warnings = []
        j = jurisdiction.id
        self.fses = {(f.apn, f.name): f for f in session.scalars(select(Fse).where(Fse.jurisdiction_id == j))}
        self.permits = {p.permit_number: p for p in session.scalars(select(Permit).where(Permit.jurisdiction_id == j))}

    @staticmethod
    def _set(row, values):
        """Set changed attributes; True when anything changed."""
        changed = False
        for name, value in values.items():
            if getattr(row, name) != value:
                setattr(row, name, value)
                changed = True
        return changed

    def _fses(self, data):
        key = (data["apn"], data["name"])
        fse = self.fses.get(key)
        if fse is None:
            fse = Fse(jurisdiction_id=self.jurisdiction.id, **data)
            self.session.add(fse)
            self.fses[key] = fse
            return "created"
        return "updated" if self._set(fse, data) else "unchanged"

    def _permits(self, data):
        fse = self.fses.get((data.pop("fse_apn"), data.pop("fse_name")))
        if fse is None:
            raise Rejected("no FSE with this APN and name", {"fse_apn": ["No such FSE."]})
        dated = {name: data.pop(name) for name in ("status", "effective_on", "reason", "notice_on")}
        permit = self.permits.get(data["permit_number"])
        if permit is None:
            refusal, self.warnings = judge_permit_term(
                self.jurisdiction, issued_on=data["issued_on"], expires_on=data["expires_on"]
            )
            if refusal:
                raise Rejected("the permit runs past the city's term", {"expires_on": [refusal]})
            permit = Permit(jurisdiction_id=self.jurisdiction.id, fse=fse, **data)
            permit.status_changes.append(
                PermitStatusChange(
                    status=dated["status"],
                    effective_on=data["issued_on"],
                    reason=dated["reason"] or "imported",
                    notice_on=dated["notice_on"],
                    **registry_log.made_by(self.by, command=self.command),
                )
            )
            self.session.add(permit)
            self.permits[data["permit_number"]] = permit
            return "created"
        if permit.fse_id != fse.id:
            raise Rejected(
                "the permit belongs to another FSE; permits are not transferable",
                {"permit_number": ["Issued to another FSE."]},
            )
        return self._permit_changes(permit, data, **dated)

    def _permit_changes(self, permit, data, *, status, effective_on, reason, notice_on):
        """A known permit's row: its term as registered (a renewal is a new permit), a new
        status from `effective_on` on (default the city's today) as through the API."""
        term = {name: data[name] for name in ("issued_on", "expires_on") if getattr(permit, name) != data[name]}
        if term:
            raise Rejected(
                "A renewal is a new permit: register it and move the devices",
                {
                    name: [f"The permit's is {getattr(permit, name).isoformat()}; a term does not change."]
                    for name in term
                },
            )
        changed = self._set(permit, data)
        day = effective_on or city_today(self.jurisdiction)
        recorded = rules.value_on(
            [rules.Dated(c.effective_on, c.status) for c in permit.status_changes], day, default="active"
        )
        if recorded == status:
            return "updated" if changed else "unchanged"
        dated = {"status": status, "effective_on": day, "reason": reason, "notice_on": notice_on}
        errors = permit_status.refusal(permit, self.jurisdiction, **dated)
        if errors:
            raise Rejected("the status cannot change on that day", errors)
        permit_status.record(self.session, self.by, permit=permit, command=self.command, **dated)
        return "updated"

    def _devices(self, data):
        permit = self.permits.get(data.pop("permit_number"))
        if permit is None:
            raise Rejected("no such permit", {"permit_number": ["No such permit."]})
        dated = {
            name: data.pop(name)
            for name in ("effective_on", "reason", "noticed_on", "sooner_because", "after_inspection")
        }
        retired_on = data.pop("retired_on")
        device = self.session.scalar(select(Device).where(Device.fse_id == permit.fse_id, Device.tag == data["tag"]))
        if device is not None:
            in_service_on = data.pop("in_service_on")
            if in_service_on is not None and in_service_on != device.in_service_on:
                raise Rejected(
                    "a registered device's day in service does not change; the past stays as it was",
                    {"in_service_on": ["Not changed for a registered device."]},
                )
            outcome = self._device_changes(device, permit, data, **dated)
            return "updated" if self._retire(device, retired_on, dated["reason"]) else outcome
        if data.get("frequency_days") is None:
            data.update(
                frequency_days=default_frequency(data["kind"], self.jurisdiction),
                frequency_source=CITY_DEFAULT,
                frequency_months=default_months(data["kind"], self.jurisdiction),
            )
        else:
            data["frequency_source"] = "assigned"
        refusal = frequency_refusal(data["kind"], data["frequency_days"], self.jurisdiction)
        if refusal:
            raise Rejected("frequency not allowed here", {"frequency_days": [refusal]})
        refusal = data.get("in_service_on") and in_service_refusal(permit, data["in_service_on"])
        if refusal:
            raise Rejected("not in service within the permit's term", {"in_service_on": [refusal]})
        data["in_service_on"] = data.get("in_service_on") or city_today(self.jurisdiction)
        device = Device(fse_id=permit.fse_id, permit=permit, **data)
        self.session.add(device)
        self._retire(device, retired_on, dated["reason"])
        self.warnings = device_warnings(self.jurisdiction, device)
        return "created"

    def _retire(self, device, retired_on, reason) -> bool:
        """Retire the device from `retired_on` (as `POST .../retirement`); True when it is
        retired now. A device retired already keeps its day."""
        if retired_on is None or device.retired_on == retired_on:
            return False
        if device.retired_on is not None:
            raise Rejected("the device is retired already", {"retired_on": [f"Retired from {device.retired_on}."]})
        refused = device_retirement.refusal(self.jurisdiction, effective_on=retired_on)
        if refused:
            raise Rejected("the device cannot be retired on that day", {"retired_on": refused["effective_on"]})
        device_retirement.record(self.session, self.by, device=device, effective_on=retired_on, reason=reason)
        return True

    def _device_changes(
        self, device, permit, data, *, effective_on, reason, noticed_on, sooner_because, after_inspection
    ):
        """A known device's row: a new frequency or permit from `effective_on` on, as through
        the API (the city's notice period for a frequency; a move from today on), never over
        the days before; an empty frequency keeps the device's own; the rest as written."""
        city, errors = self.jurisdiction, {}
        frequency = data.pop("frequency_days", None)
        refreq = frequency is not None and frequency != device.frequency_days
        moves = permit.id != device.permit_id
        if (refreq or moves) and effective_on is None:
            raise Rejected(
                "a new frequency or permit takes effect from effective_on; the past stays as it was",
                {"effective_on": ["Required where the frequency or the permit changes."]},
            )
        refusals = [
            device_frequency.refusal(
                device,
                city,
                frequency_days=frequency,
                effective_on=effective_on,
                noticed_on=noticed_on,
                sooner_because=sooner_because,
                after_inspection=after_inspection,
            )
            if refreq
            else {},
            device_permit.refusal(device, permit, city=city, effective_on=effective_on)[1] if moves else {},
        ]
        for refused in refusals:
            for name, messages in refused.items():
                errors.setdefault(name, []).extend(messages)
        if errors:
            raise Rejected("the change cannot take effect on that day", errors)
        if refreq:
            device_frequency.record(
                self.session,
                self.by,
                device=device,
                city=city,
                frequency_days=frequency,
                effective_on=effective_on,
                reason=reason,
                noticed_on=noticed_on,
                sooner_because=sooner_because,
                after_inspection=after_inspection,
                command=self.command,
            )
        if moves:
            device_permit.record(
                self.session,
                self.by,
                device=device,
                permit=permit,
                effective_on=effective_on,
                reason=reason,
                command=self.command,
            )
        return "updated" if self._set(device, data) or refreq or moves else "unchanged"

    # Haulers and sites are shared by the cities: a row changes the importing city's own
    # approval, and the shared fields only where the city owns the record (a warning otherwise).

    def _haulers(self, data):
        city, day = self.jurisdiction, city_today(self.jurisdiction)
        hauler = hauler_by_licence(self.session, data["licence_number"])
        if hauler is None:
            hauler = new_hauler(data, city)
            approve_hauler(hauler, city, expires_on=data["licence_expires_on"], licence_from=day, registered_on=day)
            self.session.add(hauler)
            self.session.flush()
            return "created"
        outcome = self._shared(hauler, data, ("name", "contact_email"), "hauler")
        if not registered_here(hauler, city.id):
            outcome = "created" if not registrations_of(hauler, city.id) else "updated"
            approve_hauler(hauler, city, expires_on=data["licence_expires_on"], licence_from=day, registered_on=day)
            return outcome
        mine = licences_of(hauler, city.id)
        if not mine or mine[-1].expires_on != data["licence_expires_on"]:
            hauler.licences.append(
                HaulerLicence(
                    jurisdiction_id=city.id,
                    licence_number=hauler.licence_number,
                    expires_on=data["licence_expires_on"],
                    effective_on=day,
                )
            )
            outcome = "updated"
        return outcome

    def _shared(self, record, data, fields, kind):
        """The owner's row sets the shared fields; another city's differing ones are a warning."""
        changed = differing(record, data, fields=fields)
        if not changed:
            return "unchanged"
        if record.owner_jurisdiction_id != self.jurisdiction.id:
            self.warnings.append(shared_field_kept(kind, record, fields=changed))
            return "unchanged"
        self._set(record, {name: data[name] for name in changed})
        return "updated"

    def _vehicles(self, data):
        hauler = self.session.scalar(
            select(Hauler).where(
                Hauler.licence_number == data.pop("licence_number"),
                Hauler.id.in_(
                    select(HaulerRegistration.hauler_id).where(
                        HaulerRegistration.jurisdiction_id == self.jurisdiction.id
                    )
                ),
            )
        )
        if hauler is None:
            raise Rejected("no hauler with this licence registered here", {"licence_number": ["No such hauler here."]})
        vehicle = next(
            (
                v
                for v in hauler.vehicles
                if v.jurisdiction_id == self.jurisdiction.id and v.vehicle_id == data["vehicle_id"]
            ),
            None,
        )
        if vehicle is None:
            hauler.vehicles.append(Vehicle(jurisdiction_id=self.jurisdiction.id, **data))
            return "created"
        return "updated" if self._set(vehicle, data) else "unchanged"

    def _disposal_sites(self, data):
        city = self.jurisdiction
        status = data.pop("status")
        own = {name: data[name] for name in ("waste_types", "approved_from", "approved_until")}
        site = site_by_permit(self.session, data["facility_permit_number"])
        if site is None:
            site = DisposalSite(
                name=data["name"],
                address=data["address"],
                facility_permit_number=data["facility_permit_number"],
                owner_jurisdiction_id=city.id,
                approvals=[site_approval(city.id, status=status, **own)],
            )
            self.session.add(site)
            self.session.flush()
            return "created"
        outcome = self._shared(site, data, SHARED_SITE_FIELDS, "disposal site")
        approval = approval_of(site, city.id)
        if approval is None:
            site.approvals.append(site_approval(city.id, status=status, **own))
            return "created"
        if self._set(approval, own):
            outcome = "updated"
        current = approval.status_changes[-1].status if approval.status_changes else "approved"
        if current != status:
            approval.status_changes.append(
                DisposalSiteStatusChange(status=status, effective_on=city_today(city), reason="imported")
            )
            outcome = "updated"
        return outcome


def import_as(session, principal, *, kind, rows):
    """`rows` imported by a city's admin into the admin's own city (the API's import)."""
    jurisdiction = session.get(Jurisdiction, principal.jurisdiction_id)
    return run_import(session, jurisdiction=jurisdiction, kind=kind, rows=rows, by=principal)


def run_import(session, *, jurisdiction, kind, rows, progress=None, by=None, command=None):
    """Apply `rows` (from `read_rows`) for an admin of `jurisdiction`; commit once. `by`: the
    caller, noted among the registry's changes with the import's counts; with none, `command`
    (the command line's, e.g. `flask import permits`) is kept as who made each dated change."""
    report = Report(kind=kind)
    importer = Importer(session, jurisdiction, kind, by, command)
    schema = ROW_SCHEMAS[kind]
    for line, row in rows:
        report.rows += 1
        try:
            if isinstance(row, Exception):
                raise Rejected(f"unreadable row: {row}")
            if None in row:
                raise Rejected("more cells than columns")
            data = schema.load(cells(schema, row))
            importer.warnings = []
            outcome = importer.apply(data)
            setattr(report, outcome, getattr(report, outcome) + 1)
            report.warnings += [{"row": line, **w} for w in importer.warnings]
        except ValidationError as error:
            errors = flatten_errors(error.messages)
            report.rejected += 1
            report.rejections.append(
                {"row": line, "reason": "; ".join(f"{k}: {' '.join(v)}" for k, v in errors.items()), "errors": errors}
            )
        except Rejected as error:
            report.rejected += 1
            report.rejections.append({"row": line, "reason": error.reason, "errors": error.errors})
        if progress:
            progress(1)
    if by is not None:
        registry_log.note(
            session,
            by,
            action=f"import.{kind}",
            jurisdiction_id=jurisdiction.id,
            detail={name: getattr(report, name) for name in ("rows", "created", "updated", "unchanged", "rejected")},
        )
    session.commit()
    return report
