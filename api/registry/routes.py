"""The registry routes: FSEs, permits, devices, haulers, vehicles and disposal sites."""

from flask import Blueprint, request, url_for

from api.idempotency import idempotent
from api.validation import load, load_json
from auth.protect import current_principal, require
from auth.scopes import AUDIT_READ, MANIFESTS_WRITE, RECORDS_READ, REGISTRY_WRITE
from schemas import registry as schemas
from schemas.registry_views import device_view, fse_view, hauler_view, permit_view, site_view, vehicle_view
from services.registry import device_frequency, device_permit, device_retirement, permit_status
from services.registry import fses as registry
from services.registry import haulers as shared
from storage.db import db

bp = Blueprint("registry", __name__, url_prefix="/v1")

# Admins read and write; auditors read; haulers read what filing needs; operators their FSEs.
READ = (REGISTRY_WRITE, AUDIT_READ, MANIFESTS_WRITE, RECORDS_READ)
WRITE = (REGISTRY_WRITE,)

list_query = schemas.ListQuery()
as_of_query = schemas.AsOfQuery()


def _query(schema=list_query):
    """The query arguments, and the date statuses are given for (`as_of`; None: each object's
    city's today)."""
    args = load(schema, request.args.to_dict())
    return args, args.pop("as_of", None)


def _as_of():
    return _query(as_of_query)[1]


def _listing(rows, next_cursor, view):
    return {"items": [view(row) for row in rows], "next_cursor": next_cursor}


def _created(body, endpoint, **values):
    return body, 201, {"Location": url_for(endpoint, **values)}


# FSEs -------------------------------------------------------------------------------------


def _fse_view(fse):
    """A hauler is not shown the operator's or the contact e-mail: they are the city's and the operator's."""
    return fse_view(fse, contact=current_principal().role != "hauler")


@bp.get("/fses")
@require(*READ)
def list_fses():
    args, day = _query()
    rows, cursor = registry.list_fses(db.session, current_principal(), **args)
    return _listing(rows, cursor, _fse_view)


@bp.post("/fses")
@require(*WRITE)
@idempotent
def create_fse():
    fse = registry.create_fse(db.session, current_principal(), data=load_json(schemas.FseIn()))
    return _created(fse_view(fse), "registry.get_fse", fse_id=fse.id)


@bp.get("/fses/<fse_id>")
@require(*READ)
def get_fse(fse_id):
    return _fse_view(registry.get_fse(db.session, current_principal(), fse_id=fse_id))


@bp.patch("/fses/<fse_id>")
@require(*WRITE)
def update_fse(fse_id):
    data = load_json(schemas.FseUpdate())
    return fse_view(registry.update_fse(db.session, current_principal(), fse_id=fse_id, data=data))


# Devices ----------------------------------------------------------------------------------


def _device_view(device):
    """The device as of the city's today (its local date): the frequency in force and those scheduled."""
    return device_view(device, registry.city_today(device.fse.jurisdiction))


@bp.get("/fses/<fse_id>/devices")
@require(*READ)
def list_devices(fse_id):
    args, _ = _query()
    rows, cursor = registry.list_devices(db.session, current_principal(), fse_id=fse_id, **args)
    return _listing(rows, cursor, _device_view)


@bp.post("/fses/<fse_id>/devices")
@require(*WRITE)
@idempotent
def create_device(fse_id):
    data = load_json(schemas.DeviceIn())
    device, warnings = registry.create_device(db.session, current_principal(), fse_id=fse_id, data=data)
    body = {**_device_view(device), "warnings": warnings}
    return _created(body, "registry.get_device", fse_id=device.fse_id, device_id=device.id)


def _device_created(device):
    """A device as of its city's today, answered 201 with where to read it."""
    return _created(_device_view(device), "registry.get_device", fse_id=device.fse_id, device_id=device.id)


@bp.get("/fses/<fse_id>/devices/<device_id>")
@require(*READ)
def get_device(fse_id, device_id):
    return _device_view(registry.get_device(db.session, current_principal(), fse_id=fse_id, device_id=device_id))


@bp.post("/fses/<fse_id>/devices/<device_id>/frequency-changes")
@require(*WRITE)
@idempotent
def change_frequency(fse_id, device_id):
    data = load_json(schemas.FrequencyChangeIn())
    change = device_frequency.change_frequency(
        db.session, current_principal(), fse_id=fse_id, device_id=device_id, **data
    )
    device = registry.get_device(db.session, current_principal(), fse_id=fse_id, device_id=change.device_id)
    return _device_created(device)


@bp.post("/fses/<fse_id>/devices/<device_id>/frequency-changes/<change_id>/withdrawal")
@require(*WRITE)
@idempotent
def withdraw_frequency_change(fse_id, device_id, change_id):
    data = load_json(schemas.FrequencyWithdrawalIn())
    change = device_frequency.withdraw(
        db.session, current_principal(), fse_id=fse_id, device_id=device_id, change_id=change_id, **data
    )
    return _device_view(registry.get_device(db.session, current_principal(), fse_id=fse_id, device_id=change.device_id))


@bp.post("/fses/<fse_id>/devices/<device_id>/permit-moves")
@require(*WRITE)
@idempotent
def move_device(fse_id, device_id):
    data = load_json(schemas.PermitMoveIn())
    move = device_permit.move_device(db.session, current_principal(), fse_id=fse_id, device_id=device_id, **data)
    device = registry.get_device(db.session, current_principal(), fse_id=fse_id, device_id=move.device_id)
    return _device_created(device)


@bp.post("/fses/<fse_id>/devices/<device_id>/retirement")
@require(*WRITE)
@idempotent
def retire_device(fse_id, device_id):
    data = load_json(schemas.RetirementIn())
    device = device_retirement.retire_device(
        db.session, current_principal(), fse_id=fse_id, device_id=device_id, **data
    )
    return _device_created(device)


# Permits ----------------------------------------------------------------------------------


@bp.get("/permits")
@require(*READ)
def list_permits():
    args, day = _query()
    rows, cursor = registry.list_permits(db.session, current_principal(), as_of=day, **args)
    return _listing(rows, cursor, lambda row: permit_view(row, day or registry.city_today(row.fse.jurisdiction)))


@bp.post("/permits")
@require(*WRITE)
@idempotent
def create_permit():
    permit, warnings = registry.create_permit(db.session, current_principal(), data=load_json(schemas.PermitIn()))
    return _created(
        {**permit_view(permit, registry.city_today(permit.fse.jurisdiction)), "warnings": warnings},
        "registry.get_permit",
        permit_id=permit.id,
    )


@bp.get("/permits/<permit_id>")
@require(*READ)
def get_permit(permit_id):
    permit = registry.get_permit(db.session, current_principal(), permit_id=permit_id)
    return permit_view(permit, _as_of() or registry.city_today(permit.fse.jurisdiction))


@bp.patch("/permits/<permit_id>")
@require(*WRITE)
def change_permit_status(permit_id):
    data = load_json(schemas.PermitUpdate())
    permit = permit_status.change_status(db.session, current_principal(), permit_id=permit_id, data=data)
    return permit_view(permit, registry.city_today(permit.fse.jurisdiction))


# Haulers and vehicles ---------------------------------------------------------------------
# One record each, shared by the cities; each city's approval of it is its own (services.registry.haulers).


def _seen_by():
    return shared.viewer(db.session, current_principal())


@bp.get("/haulers")
@require(*READ)
def list_haulers():
    args, day = _query()
    rows, cursor = shared.list_haulers(db.session, current_principal(), **args)
    seen_by = _seen_by()
    return _listing(rows, cursor, lambda row: hauler_view(row, day or seen_by.today, seen_by))


@bp.post("/haulers")
@require(*WRITE)
@idempotent
def create_hauler():
    hauler, created, warnings = shared.create_hauler(
        db.session, current_principal(), data=load_json(schemas.HaulerIn())
    )
    seen_by = _seen_by()
    body = {**hauler_view(hauler, seen_by.today, seen_by), "warnings": warnings}
    if created:
        return _created(body, "registry.get_hauler", hauler_id=hauler.id)
    return body, 200


@bp.get("/haulers/<hauler_id>")
@require(*READ)
def get_hauler(hauler_id):
    hauler, seen_by = shared.get_hauler(db.session, current_principal(), hauler_id=hauler_id), _seen_by()
    return hauler_view(hauler, _as_of() or seen_by.today, seen_by)


@bp.patch("/haulers/<hauler_id>")
@require(*WRITE)
def update_hauler(hauler_id):
    data = load_json(schemas.HaulerUpdate())
    hauler = shared.update_hauler(db.session, current_principal(), hauler_id=hauler_id, data=data)
    seen_by = _seen_by()
    return hauler_view(hauler, seen_by.today, seen_by)


@bp.get("/haulers/<hauler_id>/vehicles")
@require(*READ)
def list_vehicles(hauler_id):
    args, _ = _query()
    rows, cursor = shared.list_vehicles(db.session, current_principal(), hauler_id=hauler_id, **args)
    return _listing(rows, cursor, vehicle_view)


@bp.post("/haulers/<hauler_id>/vehicles")
@require(*WRITE)
@idempotent
def create_vehicle(hauler_id):
    data = load_json(schemas.VehicleIn())
    vehicle = shared.create_vehicle(db.session, current_principal(), hauler_id=hauler_id, data=data)
    return vehicle_view(vehicle), 201


# Disposal sites ---------------------------------------------------------------------------


@bp.get("/disposal-sites")
@require(*READ)
def list_sites():
    args, day = _query()
    seen_by = _seen_by()
    rows, cursor = shared.list_sites(db.session, current_principal(), as_of=day, seen_by=seen_by, **args)
    return _listing(rows, cursor, lambda row: site_view(row, day or seen_by.today, seen_by))


@bp.post("/disposal-sites")
@require(*WRITE)
@idempotent
def create_site():
    site, created, warnings = shared.create_site(
        db.session, current_principal(), data=load_json(schemas.DisposalSiteIn())
    )
    seen_by = _seen_by()
    body = {**site_view(site, seen_by.today, seen_by), "warnings": warnings}
    if created:
        return _created(body, "registry.get_site", site_id=site.id)
    return body, 200


@bp.get("/disposal-sites/<site_id>")
@require(*READ)
def get_site(site_id):
    site, seen_by = shared.get_site(db.session, current_principal(), site_id=site_id), _seen_by()
    return site_view(site, _as_of() or seen_by.today, seen_by)


@bp.patch("/disposal-sites/<site_id>")
@require(*WRITE)
def update_site(site_id):
    data = load_json(schemas.DisposalSiteUpdate())
    site = shared.update_site(db.session, current_principal(), site_id=site_id, data=data)
    seen_by = _seen_by()
    return site_view(site, seen_by.today, seen_by)
