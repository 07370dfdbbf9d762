"""A device's frequency changed from a date on, with the notice the permittee had: the history
every judgement of a day reads, so that a change never rewrites the past."""

from domain import dates
from domain.clock import now
from domain.device_rules import frequency_change_refusal, frequency_refusal
from domain.presets import POLICY
from services.errors import Invalid
from services.registry import log as registry_log
from services.registry.fses import _own, get_device
from storage.models import DeviceFrequencyChange, Jurisdiction


def change_frequency(
    session,
    principal,
    *,
    fse_id,
    device_id,
    frequency_days: int,
    effective_on,
    reason: str,
    noticed_on=None,
    sooner_because: str | None = None,
    after_inspection: bool = False,
) -> DeviceFrequencyChange:
    """Record that the device is serviced every `frequency_days` from `effective_on` on; the
    device's `frequency_days` says the latest frequency set, the changes when each holds."""
    device = get_device(session, principal, fse_id=fse_id, device_id=device_id)
    city = session.get(Jurisdiction, device.fse.jurisdiction_id)
    _own(principal, city.id)
    errors = refusal(
        device,
        city,
        frequency_days=frequency_days,
        effective_on=effective_on,
        noticed_on=noticed_on,
        sooner_because=sooner_because,
        after_inspection=after_inspection,
    )
    if errors:
        raise Invalid("The frequency cannot change on that day.", errors=errors)
    change = record(
        session,
        principal,
        device=device,
        city=city,
        frequency_days=frequency_days,
        effective_on=effective_on,
        reason=reason,
        noticed_on=noticed_on,
        sooner_because=sooner_because,
        after_inspection=after_inspection,
    )
    session.commit()
    return change


def refusal(
    device, city, *, frequency_days: int, effective_on, noticed_on=None, sooner_because=None, after_inspection=False
) -> dict:
    """Why the device's frequency cannot become `frequency_days` from `effective_on`, by field
    (the route's and the import's rule alike); empty where it can."""
    today = dates.local_date(now(), city.time_zone)
    last = device.frequency_changes[-1].effective_on if device.frequency_changes else None
    notice_days, rule = notice_of(city, after_inspection=after_inspection)
    errors = frequency_change_refusal(
        today=today,
        effective_on=effective_on,
        noticed_on=noticed_on or today,
        notice_days=notice_days,
        sooner_because=sooner_because,
        last_change_on=last,
        citation=(city.citations or {}).get(rule) or POLICY,
    )
    refused = frequency_refusal(device.kind, frequency_days, city)
    if refused:
        errors["frequency_days"] = [refused]
    return errors


def notice_of(city, *, after_inspection: bool) -> tuple:
    """(days, rule): the city's notice period for a frequency change, the shorter one where the
    change follows an inspector's evaluation for non-compliance and its text gives one (San
    Clemente 13.30.050(J): fourteen days), else its ordinary one."""
    if after_inspection and city.frequency_change_notice_inspection_days is not None:
        return city.frequency_change_notice_inspection_days, "frequency_change_notice_inspection_days"
    return city.frequency_change_notice_days, "frequency_change_notice_days"


def record(
    session,
    principal,
    *,
    device,
    city,
    frequency_days: int,
    effective_on,
    reason: str,
    noticed_on=None,
    sooner_because=None,
    after_inspection: bool = False,
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
        after_inspection=bool(after_inspection),
    )
    device.frequency_changes.append(change)
    device.frequency_days, device.frequency_source = frequency_days, "assigned"
    if principal is not None:
        registry_log.note(
            session,
            principal,
            action="device.frequency_changed",
            subject=device,
            detail={
                "fields": [
                    "effective_on",
                    "frequency_days",
                    "noticed_on",
                    "reason",
                    *(["sooner_because"] if change.sooner_because else []),
                    *(["after_inspection"] if change.after_inspection else []),
                ],
                "from_days": change.from_days,
                "to_days": frequency_days,
                "effective_on": effective_on.isoformat(),
            },
        )
    return change
