"""A device's frequency changed from a date on, with the notice the permittee had: the history
every judgement of a day reads, so that a change never rewrites the past."""

from domain import dates
from domain.clock import now
from domain.device_rules import frequency_change_refusal, frequency_refusal
from domain.presets import POLICY
from services import registry_log
from services.errors import Invalid
from services.registry import _own, get_device
from storage.models import DeviceFrequencyChange, Jurisdiction


def change_frequency(
    session,
    principal,
    fse_id,
    device_id,
    *,
    frequency_days: int,
    effective_on,
    reason: str,
    noticed_on=None,
    sooner_because: str | None = None,
) -> DeviceFrequencyChange:
    """Record that the device is serviced every `frequency_days` from `effective_on` on; the
    device's `frequency_days` says the latest frequency set, the changes when each holds."""
    device = get_device(session, principal, fse_id, device_id)
    city = session.get(Jurisdiction, device.fse.jurisdiction_id)
    _own(principal, city.id)
    errors = refusal(
        device,
        city,
        frequency_days=frequency_days,
        effective_on=effective_on,
        noticed_on=noticed_on,
        sooner_because=sooner_because,
    )
    if errors:
        raise Invalid("The frequency cannot change on that day.", errors=errors)
    change = record(
        session,
        principal,
        device,
        city,
        frequency_days=frequency_days,
        effective_on=effective_on,
        reason=reason,
        noticed_on=noticed_on,
        sooner_because=sooner_because,
    )
    session.commit()
    return change


def refusal(device, city, *, frequency_days: int, effective_on, noticed_on=None, sooner_because=None) -> dict:
    """Why the device's frequency cannot become `frequency_days` from `effective_on`, by field
    (the route's and the import's rule alike); empty where it can."""
    today = dates.local_date(now(), city.time_zone)
    last = device.frequency_changes[-1].effective_on if device.frequency_changes else None
    errors = frequency_change_refusal(
        today=today,
        effective_on=effective_on,
        noticed_on=noticed_on or today,
        notice_days=city.frequency_change_notice_days,
        sooner_because=sooner_because,
        last_change_on=last,
        citation=(city.citations or {}).get("frequency_change_notice_days") or POLICY,
    )
    refused = frequency_refusal(device.kind, frequency_days, city)
    if refused:
        errors["frequency_days"] = [refused]
    return errors


def record(
    session,
    principal,
    device,
    city,
    *,
    frequency_days: int,
    effective_on,
    reason: str,
    noticed_on=None,
    sooner_because=None,
) -> DeviceFrequencyChange:
    """Add the change `refusal` allowed (not committed); `principal` None: noted by the caller."""
    change = DeviceFrequencyChange(
        device_id=device.id,
        from_days=device.frequency_days,
        to_days=frequency_days,
        effective_on=effective_on,
        reason=reason,
        noticed_on=noticed_on or dates.local_date(now(), city.time_zone),
        sooner_because=(sooner_because or "").strip() or None,
    )
    device.frequency_changes.append(change)
    device.frequency_days, device.frequency_source = frequency_days, "assigned"
    if principal is not None:
        registry_log.note(
            session,
            principal,
            "device.frequency_changed",
            device,
            detail={
                "fields": [
                    "effective_on",
                    "frequency_days",
                    "noticed_on",
                    "reason",
                    *(["sooner_because"] if change.sooner_because else []),
                ],
                "from_days": change.from_days,
                "to_days": frequency_days,
                "effective_on": effective_on.isoformat(),
            },
        )
    return change
