"""A device retired from a date on (removed, replaced): from that day it is never due nor
missed, and the days before stay judged as they were."""

from services.errors import Conflict, Invalid
from services.registry import log as registry_log
from services.registry.fses import _own, city_today, get_device
from storage.models import Device, Jurisdiction


def retire_device(session, principal, *, fse_id, device_id, effective_on, reason: str) -> Device:
    """Record that the device is out of service from `effective_on` on (the city's today or
    later: a change never rewrites the past), and why."""
    device = get_device(session, principal, fse_id=fse_id, device_id=device_id)
    city = session.get(Jurisdiction, device.fse.jurisdiction_id)
    _own(principal, city.id)
    if device.retired_on is not None:
        raise Conflict(f"Device {device.tag!r} is retired already, from {device.retired_on.isoformat()}.")
    errors = refusal(city, effective_on=effective_on)
    if errors:
        raise Invalid("The device cannot be retired on that day.", errors=errors)
    record(session, principal, device=device, effective_on=effective_on, reason=reason)
    session.commit()
    return device


def refusal(city, *, effective_on) -> dict:
    """Why the device cannot be retired from `effective_on`, by field (the route's and the
    import's rule alike); empty where it can."""
    today = city_today(city)
    if effective_on < today:
        return {"effective_on": [f"Must not be before today ({today.isoformat()}): the past is not rewritten."]}
    return {}


def record(session, principal, *, device, effective_on, reason: str) -> Device:
    """Retire the device as `refusal` allowed (not committed); `principal` None: noted by the caller."""
    device.retired_on, device.retired_reason = effective_on, reason
    if principal is not None:
        registry_log.note(
            session,
            principal,
            action="device.retired",
            subject=device,
            detail={"fields": ["effective_on", "reason"], "effective_on": effective_on.isoformat()},
        )
    return device
