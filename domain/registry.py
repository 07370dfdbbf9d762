"""The registry as it stood on a given date: permit status, licences, registrations, sites."""

from dataclasses import dataclass
from datetime import date


@dataclass(frozen=True)
class Dated:
    """One dated fact: from `effective_on` on, `value` holds (until a later fact)."""

    effective_on: date
    value: str


def value_on(facts, day: date, default=None):
    """The value in force on `day`: the latest fact whose `effective_on` is on or before it.

    Facts with the same date keep their given order (the later recorded wins).
    """
    current = default
    for fact in sorted(facts, key=lambda f: f.effective_on):
        if fact.effective_on <= day:
            current = fact.value
    return current


def permit_status_on(*, issued_on: date, expires_on: date, changes, day: date) -> str:
    """`active`, `suspended`, `revoked` or `expired` on `day`; `not_issued` before issue.

    An active permit past its expiry date is expired; a suspended or revoked one keeps that
    status, which says more (either way it covers no device then).
    """
    if day < issued_on:
        return "not_issued"
    status = value_on(changes, day, default="active")
    if status == "active" and day > expires_on:
        return "expired"
    return status


@dataclass(frozen=True)
class Licence:
    effective_on: date
    licence_number: str
    expires_on: date
    status: str


def licence_on(licences, day: date):
    """The licence row in force on `day`, or None before the first one."""
    current = None
    for licence in sorted(licences, key=lambda item: item.effective_on):
        if licence.effective_on <= day:
            current = licence
    return current


def licence_valid_on(licences, day: date) -> bool:
    licence = licence_on(licences, day)
    return licence is not None and licence.status == "valid" and day <= licence.expires_on


@dataclass(frozen=True)
class Registration:
    jurisdiction_id: object
    registered_on: date
    ended_on: date | None


def registered_on(registrations, jurisdiction_id, day: date) -> bool:
    return any(
        r.jurisdiction_id == jurisdiction_id and r.registered_on <= day and (r.ended_on is None or day <= r.ended_on)
        for r in registrations
    )


def site_approved_on(*, approved_from: date, approved_until: date | None, changes, day: date) -> bool:
    if day < approved_from or (approved_until is not None and day > approved_until):
        return False
    return value_on(changes, day, default="approved") == "approved"


def permit_on(day: date, *, current, moves):
    """The permit a device was listed on on `day`: `current`, its permit now, unless a move
    (`effective_on`, `from_permit_id`, in the order they took effect) came after `day`, whose
    permit it was then on (a renewal moves a device from the new permit's first day)."""
    for move in moves:
        if day < move.effective_on:
            return move.from_permit_id
    return current


def frequency_on(frequency_days: int, changes, day: date) -> int:
    """A device's frequency in force on `day`, from its frequency changes (rows with
    `from_days`, `to_days`, `effective_on`, in the order they took effect): the first change's
    `from_days` before it; `frequency_days` (the device's latest) where it never changed."""
    changes = list(changes)
    if not changes:
        return frequency_days
    days = changes[0].from_days
    for change in changes:
        if change.effective_on <= day:
            days = change.to_days
    return days
