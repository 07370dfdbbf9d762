"""A device moves to another of its FSE's permits from a date on (a renewal is a new permit):
the days before stay on the permit it was on, and a service on them is judged against it."""

from sqlalchemy import select

from domain.device_rules import permit_move_refusal
from services.errors import Invalid
from services.registry import log as registry_log
from services.registry.fses import _own, city_today, get_device
from storage.models import DevicePermitMove, Jurisdiction, Permit


def move_device(
    session, principal, *, fse_id, device_id, permit_number: str, reason: str, effective_on=None
) -> DevicePermitMove:
    """List the device on the FSE's permit `permit_number` from `effective_on` on (default the
    later of that permit's first day and today)."""
    device = get_device(session, principal, fse_id=fse_id, device_id=device_id)
    city = session.get(Jurisdiction, device.fse.jurisdiction_id)
    _own(principal, city.id)
    permit = session.scalar(select(Permit).where(Permit.fse_id == device.fse_id, Permit.permit_number == permit_number))
    if permit is None:
        raise Invalid("The FSE holds no such permit.", errors={"permit_number": ["No such permit for this FSE."]})
    if permit.id == device.permit_id:
        raise Invalid("The device is on that permit.", errors={"permit_number": ["The device is on it already."]})
    effective_on, errors = refusal(device, permit, city=city, effective_on=effective_on)
    if errors:
        raise Invalid("The device cannot move to that permit on that day.", errors=errors)
    move = record(session, principal, device=device, permit=permit, effective_on=effective_on, reason=reason)
    session.commit()
    return move


def refusal(device, permit, *, city, effective_on=None) -> tuple:
    """(the day the move takes effect, why it cannot, by field): by default the later of the
    permit's first day and today (the route's and the import's rule alike)."""
    today = city_today(city)
    effective_on = effective_on or max(permit.issued_on, today)
    last = device.permit_moves[-1].effective_on if device.permit_moves else None
    return effective_on, permit_move_refusal(
        today=today,
        effective_on=effective_on,
        issued_on=permit.issued_on,
        expires_on=permit.expires_on,
        last_move_on=last,
    )


def record(session, principal, *, device, permit, effective_on, reason: str, command=None) -> DevicePermitMove:
    """Add the move `refusal` allowed (not committed), with who recorded it: `principal`, or
    with none, the command line's `command` (then noted by the caller)."""
    from_permit = device.permit
    move = DevicePermitMove(
        device_id=device.id,
        from_permit_id=device.permit_id,
        to_permit_id=permit.id,
        effective_on=effective_on,
        reason=reason,
        **registry_log.made_by(principal, command=command),
    )
    device.permit_moves.append(move)
    device.permit_id, device.permit = permit.id, permit
    if principal is not None:
        registry_log.note(
            session,
            principal,
            action="device.permit_moved",
            subject=device,
            detail={
                "fields": ["effective_on", "permit_number", "reason"],
                "from_permit": from_permit.permit_number,
                "to_permit": permit.permit_number,
                "effective_on": effective_on.isoformat(),
                "reason": reason,
            },
        )
    return move
