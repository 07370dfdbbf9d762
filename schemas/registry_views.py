"""How registry objects look in responses; statuses are given as of a date."""

from datetime import date

from domain import registry as rules
from domain.amounts import number
from domain.registry_rows import approval_status_on, licences_of, permit_status_on, registrations_of
from schemas.actors import actor_view


def _iso(value):
    return value.isoformat() if value else None


NO_ONE = {"client_id": None, "role": None, "person_id": None, "person_name": None}


def made_by_view(row, prefix="by") -> dict:
    """Who recorded a dated fact, as the registry's changes show people (`by_person_id` and
    `by_person_name`, or `by_client_id`), or the command line's `by_command`; None where the
    row predates keeping it."""
    client, person = getattr(row, f"{prefix}_client"), getattr(row, f"{prefix}_person")
    by = actor_view(client, person) or NO_ONE
    command = {"by_command": row.by_command} if prefix == "by" else {}
    return {**{f"{prefix}_{name}": value for name, value in by.items()}, **command}


def fse_view(fse, *, contact=True):
    """`contact`: whether the operator's and the contact e-mail are shown (not to haulers)."""
    view = {
        "id": str(fse.id),
        "name": fse.name,
        "address": fse.address,
        "apn": fse.apn,
        "jurisdiction": fse.jurisdiction.code,
        "operator_name": fse.operator_name,
        "operator_email": fse.operator_email,
        "contact_email": fse.contact_email,
        "created_at": _iso(fse.created_at),
        "updated_at": _iso(fse.updated_at),
    }
    if not contact:
        del view["operator_email"], view["contact_email"]
    return view


def permit_view(permit, day: date):
    return {
        "id": str(permit.id),
        "permit_number": permit.permit_number,
        "fse_id": str(permit.fse_id),
        "jurisdiction": permit.fse.jurisdiction.code,
        "kind": permit.kind,
        "status": permit_status_on(permit, day),
        "status_as_of": day.isoformat(),
        "issued_on": permit.issued_on.isoformat(),
        "expires_on": permit.expires_on.isoformat(),
        "status_history": [
            {
                "status": c.status,
                "effective_on": c.effective_on.isoformat(),
                "reason": c.reason,
                "notice_on": _iso(c.notice_on),
                "recorded_at": _iso(c.recorded_at),
                **made_by_view(c),
            }
            for c in permit.status_changes
        ],
    }


def device_view(device, day: date):
    """The device as of `day` (the city's today, or the day a record asks about): the frequency
    in force that day, and the changes scheduled after it."""
    changes = list(device.frequency_changes)
    return {
        "id": str(device.id),
        "fse_id": str(device.fse_id),
        "tag": device.tag,
        "kind": device.kind,
        "capacity_gallons": device.capacity_gallons,
        "liquid_depth_in": number(device.liquid_depth_in),
        "frequency_days": rules.frequency_on(device.frequency_days, changes, day),
        "frequency_as_of": day.isoformat(),
        # The city's "quarterly" default, in the calendar months it runs in, while it holds.
        "frequency_months": device.frequency_months if not changes or day < changes[0].effective_on else None,
        "frequency_source": device.frequency_source,
        "permit_id": str(device.permit_id),
        "permit_number": device.permit.permit_number,
        # The day its clock started from (None: its first permit's first day), and its
        # retirement: never due nor missed from `retired_on` on.
        "in_service_on": device.in_service_on.isoformat() if device.in_service_on else None,
        "retired_on": device.retired_on.isoformat() if device.retired_on else None,
        "retired_reason": device.retired_reason,
        "frequency_changes": [frequency_change_view(change) for change in device.frequency_changes_recorded],
        "scheduled_frequency_changes": [
            frequency_change_view(change) for change in changes if change.effective_on > day
        ],
        "permit_moves": [permit_move_view(move) for move in device.permit_moves],
    }


def permit_move_view(move):
    return {
        "from_permit_id": str(move.from_permit_id),
        "permit_id": str(move.to_permit_id),
        "effective_on": move.effective_on.isoformat(),
        "reason": move.reason,
        **made_by_view(move),
    }


def frequency_change_view(change):
    """A change in force or scheduled, or one withdrawn before it took effect (`withdrawn`,
    with when, why and by whom), which counts nowhere."""
    withdrawn = change.withdrawn_at is not None
    return {
        "id": str(change.id),
        "from_days": change.from_days,
        "frequency_days": change.to_days,
        "effective_on": change.effective_on.isoformat(),
        "noticed_on": change.noticed_on.isoformat(),
        "reason": change.reason,
        "sooner_because": change.sooner_because,
        "after_inspection": change.after_inspection,
        **made_by_view(change),
        "withdrawn": withdrawn,
        "withdrawn_at": _iso(change.withdrawn_at),
        "withdrawn_reason": change.withdrawn_reason,
        **made_by_view(change, "withdrawn_by"),
    }


def _code(jurisdiction):
    return jurisdiction.code if jurisdiction is not None else None


def _licence_fields(licences, day: date):
    """A city's licence record of a hauler, as of `day`."""
    licence = rules.licence_on(licences, day)
    return {
        "licence_expires_on": _iso(licence.expires_on) if licence else None,
        "licence_status": licence.status if licence else None,
        "licence_valid": rules.licence_valid_on(licences, day),
        "licence_history": [
            {
                "licence_number": row.licence_number,
                "expires_on": row.expires_on.isoformat(),
                "status": row.status,
                "effective_on": row.effective_on.isoformat(),
            }
            for row in sorted(licences, key=lambda row: row.effective_on)
        ],
    }


def hauler_view(hauler, day: date, seen_by):
    """The shared record, and the approvals of it within the caller's reach: its own city's
    at the top (admins and auditors), each city's under `approvals`."""
    codes = {r.jurisdiction_id: r.jurisdiction.code for r in hauler.registrations}
    approvals = []
    for city in sorted(codes.keys() & seen_by.cities, key=codes.get):
        registrations = registrations_of(hauler, city)
        approvals.append(
            {
                "jurisdiction": codes[city],
                "registered_on": min(r.registered_on for r in registrations).isoformat(),
                "ended_on": _iso(max(registrations, key=lambda r: r.registered_on).ended_on),
                "registered": rules.registered_on(registrations, city, day),
                **_licence_fields(licences_of(hauler, city), day),
            }
        )
    home = next((a for a in approvals if a["jurisdiction"] == codes.get(seen_by.home)), None)
    return {
        "id": str(hauler.id),
        "name": hauler.name,
        "licence_number": hauler.licence_number,
        "contact_email": hauler.contact_email,
        "owner_jurisdiction": _code(hauler.owner),
        "jurisdiction": home["jurisdiction"] if home else None,
        **(
            {key: home[key] for key in ("licence_expires_on", "licence_status", "licence_valid", "licence_history")}
            if home
            else {"licence_expires_on": None, "licence_status": None, "licence_valid": None, "licence_history": []}
        ),
        "status_as_of": day.isoformat(),
        "jurisdictions": [a["jurisdiction"] for a in approvals if a["registered"]],
        "approvals": approvals,
    }


def vehicle_view(vehicle):
    return {
        "id": str(vehicle.id),
        "hauler_id": str(vehicle.hauler_id),
        "jurisdiction": vehicle.jurisdiction.code,
        "vehicle_id": vehicle.vehicle_id,
        "tank_capacity_gallons": vehicle.tank_capacity_gallons,
    }


def _approval_fields(approval, day: date):
    """A city's approval of a site, as of `day`."""
    return {
        "waste_types": list(approval.waste_types),
        "approved_from": approval.approved_from.isoformat(),
        "approved_until": _iso(approval.approved_until),
        "status": approval_status_on(approval, day),
        "status_history": [
            {"status": c.status, "effective_on": c.effective_on.isoformat(), "reason": c.reason}
            for c in approval.status_changes
        ],
    }


def site_view(site, day: date, seen_by):
    """The shared record, and the approvals of it within the caller's reach: its own city's
    at the top (admins and auditors), each city's under `approvals`."""
    mine = sorted((a for a in site.approvals if a.jurisdiction_id in seen_by.cities), key=lambda a: a.jurisdiction.code)
    home = next((a for a in mine if a.jurisdiction_id == seen_by.home), None)
    return {
        "id": str(site.id),
        "name": site.name,
        "address": site.address,
        "facility_permit_number": site.facility_permit_number,
        "owner_jurisdiction": _code(site.owner),
        "jurisdiction": _code(home.jurisdiction) if home else None,
        **(
            _approval_fields(home, day)
            if home
            else {
                "waste_types": [],
                "approved_from": None,
                "approved_until": None,
                "status": None,
                "status_history": [],
            }
        ),
        "status_as_of": day.isoformat(),
        "jurisdictions": [a.jurisdiction.code for a in mine],
        "approvals": [{"jurisdiction": a.jurisdiction.code, **_approval_fields(a, day)} for a in mine],
    }
