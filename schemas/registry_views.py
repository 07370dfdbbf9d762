"""How registry objects look in responses; statuses are given as of a date."""
from datetime import date

from domain import registry as rules
from services.registry import licences_of, permit_status_on, site_status_on


def _iso(value):
    return value.isoformat() if value else None


def fse_view(fse):
    return {
        "id": str(fse.id),
        "name": fse.name,
        "address": fse.address,
        "apn": fse.apn,
        "jurisdiction": fse.jurisdiction.code,
        "operator_name": fse.operator_name,
        "operator_email": fse.operator_email,
        "created_at": _iso(fse.created_at),
        "updated_at": _iso(fse.updated_at),
    }


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
            {"status": c.status, "effective_on": c.effective_on.isoformat(), "reason": c.reason,
             "recorded_at": _iso(c.recorded_at)}
            for c in permit.status_changes
        ],
    }


def device_view(device):
    return {
        "id": str(device.id),
        "fse_id": str(device.fse_id),
        "tag": device.tag,
        "kind": device.kind,
        "capacity_gallons": device.capacity_gallons,
        "liquid_depth_in": device.liquid_depth_in,
        "frequency_days": device.frequency_days,
        "frequency_source": device.frequency_source,
        "permit_id": str(device.permit_id),
        "permit_number": device.permit.permit_number,
    }


def hauler_view(hauler, day: date):
    licence = rules.licence_on(licences_of(hauler), day)
    return {
        "id": str(hauler.id),
        "name": hauler.name,
        "licence_number": licence.licence_number if licence else None,
        "licence_expires_on": _iso(licence.expires_on) if licence else None,
        "licence_status": licence.status if licence else None,
        "licence_valid": rules.licence_valid_on(licences_of(hauler), day),
        "status_as_of": day.isoformat(),
        "jurisdictions": sorted({r.jurisdiction.code for r in hauler.registrations
                                 if r.ended_on is None or r.ended_on >= day}),
        "licence_history": [
            {"licence_number": l.licence_number, "expires_on": l.expires_on.isoformat(),
             "status": l.status, "effective_on": l.effective_on.isoformat()}
            for l in hauler.licences
        ],
    }


def vehicle_view(vehicle):
    return {
        "id": str(vehicle.id),
        "hauler_id": str(vehicle.hauler_id),
        "vehicle_id": vehicle.vehicle_id,
        "tank_capacity_gallons": vehicle.tank_capacity_gallons,
    }


def site_view(site, day: date):
    return {
        "id": str(site.id),
        "name": site.name,
        "address": site.address,
        "facility_permit_number": site.facility_permit_number,
        "waste_types": list(site.waste_types),
        "approved_from": site.approved_from.isoformat(),
        "approved_until": _iso(site.approved_until),
        "status": site_status_on(site, day),
        "status_as_of": day.isoformat(),
        "jurisdictions": sorted(j.code for j in site.jurisdictions),
        "status_history": [
            {"status": c.status, "effective_on": c.effective_on.isoformat(), "reason": c.reason}
            for c in site.status_changes
        ],
    }
