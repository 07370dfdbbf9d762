"""A device's frequency changed from a date on, with the notice the permittee had: the history
every judgement of a day reads, so that a change never rewrites the past."""

from domain.checks import CITY_DEFAULT
from domain.clock import now
from domain.device_rules import default_frequency, frequency_change_refusal, frequency_refusal
from domain.presets import POLICY
from services.errors import Conflict, Invalid, NotFound
from services.registry import log as registry_log
from services.registry.fses import _own, city_today, get_device
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
    today = city_today(city)
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
    command=None,
) -> DeviceFrequencyChange:
    """Add the change `refusal` allowed (not committed), with who recorded it: `principal`, or
    with none, the command line's `command` (then noted by the caller)."""
    change = DeviceFrequencyChange(
        device_id=device.id,
        from_days=device.frequency_days,
        to_days=frequency_days,
        effective_on=effective_on,
        reason=reason,
        noticed_on=noticed_on or city_today(city),
        sooner_because=(sooner_because or "").strip() or None,
        after_inspection=bool(after_inspection),
        **registry_log.made_by(principal, command=command),
    )
    device.frequency_changes_recorded.append(change)
    # The changes in force are read anew (a view of the recorded ones, less the withdrawn).
    session.expire(device, ["frequency_changes"])
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
                "noticed_on": change.noticed_on.isoformat(),
                "reason": reason,
            },
        )
    return change


def withdraw(session, principal, *, fse_id, device_id, change_id, reason: str) -> DeviceFrequencyChange:
    """Withdraw the device's scheduled change `change_id` before it takes effect, with why and
    who: from then on it counts nowhere, and the device keeps the frequency it had before it.
    A change in force is not withdrawn (the days it judged stay judged); a new one follows it."""
    device = get_device(session, principal, fse_id=fse_id, device_id=device_id)
    city = session.get(Jurisdiction, device.fse.jurisdiction_id)
    _own(principal, city.id)
    change = next((c for c in device.frequency_changes_recorded if str(c.id) == str(change_id)), None)
    if change is None:
        raise NotFound("No such frequency change for this device.")
    today = city_today(city)
    if change.withdrawn_at is not None:
        raise Conflict("The change was withdrawn already.")
    if change.effective_on <= today:
        raise Conflict(
            f"The change took effect on {change.effective_on.isoformat()}: a change in force is not withdrawn; "
            "record a new one from today on."
        )
    later = [c for c in device.frequency_changes if c.effective_on > change.effective_on]
    if later:
        raise Conflict(f"Withdraw the later change, from {later[-1].effective_on.isoformat()}, first.")
    change.withdrawn_at, change.withdrawn_reason = now(), reason
    change.withdrawn_by_client_id, change.withdrawn_by_person_id = principal.client_pk, principal.person_id
    remaining = [c for c in device.frequency_changes if c.id != change.id]
    device.frequency_days = change.from_days
    if not remaining and change.from_days == default_frequency(device.kind, city):
        # Before its first change, a device at its city's default follows the default's rule.
        device.frequency_source = CITY_DEFAULT
    registry_log.note(
        session,
        principal,
        action="device.frequency_change_withdrawn",
        subject=device,
        detail={
            "fields": ["reason"],
            "change_id": str(change.id),
            "from_days": change.from_days,
            "to_days": change.to_days,
            "effective_on": change.effective_on.isoformat(),
            "reason": reason,
        },
    )
    session.commit()
    return change
