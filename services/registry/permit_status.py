"""A permit's status changes from a date on, with why, the notice the permittee had and who
recorded it: like a frequency change, never before the city's today, the permit's issue date
or its last status change, so that a change never rewrites the past."""

from domain.permit_rules import status_change_refusal
from services.errors import Invalid
from services.registry import log as registry_log
from services.registry.fses import _own, city_today, get_permit
from storage.models import Jurisdiction, Permit, PermitStatusChange


def change_status(session, principal, *, permit_id, data) -> Permit:
    """The API's change: `data` has status, effective_on, and reason and notice_on (optional)."""
    permit = get_permit(session, principal, permit_id=permit_id)
    _own(principal, permit.jurisdiction_id)
    city = session.get(Jurisdiction, permit.jurisdiction_id)
    errors = refusal(permit, city, **data)
    if errors:
        raise Invalid("The permit's status cannot change on that day.", errors=errors)
    record(session, principal, permit=permit, **data)
    session.commit()
    return permit


def refusal(permit, city, *, status, effective_on, reason=None, notice_on=None) -> dict:
    """Why the permit's status cannot become `status` from `effective_on`, by field (the
    route's and the import's rule alike); empty where it can."""
    last = permit.status_changes[-1].effective_on if permit.status_changes else None
    return status_change_refusal(
        today=city_today(city),
        status=status,
        effective_on=effective_on,
        issued_on=permit.issued_on,
        last_change_on=last,
        reason=reason,
        notice_on=notice_on,
    )


def record(
    session, principal, *, permit, status, effective_on, reason=None, notice_on=None, command=None
) -> PermitStatusChange:
    """Add the change `refusal` allowed (not committed), with who recorded it: `principal`, or
    with none, the command line's `command` (then noted by the caller)."""
    reason = (reason or "").strip() or None
    change = PermitStatusChange(
        status=status,
        effective_on=effective_on,
        reason=reason,
        notice_on=notice_on,
        **registry_log.made_by(principal, command=command),
    )
    permit.status_changes.append(change)
    if principal is not None:
        registry_log.note(
            session,
            principal,
            action="permit.status_changed",
            subject=permit,
            detail={
                "fields": sorted(
                    ["status", "effective_on", *(["reason"] if reason else []), *(["notice_on"] if notice_on else [])]
                ),
                "status": status,
                "effective_on": effective_on.isoformat(),
                "reason": reason,
                "notice_on": notice_on.isoformat() if notice_on else None,
            },
        )
    return change
