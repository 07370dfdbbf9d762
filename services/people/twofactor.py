"""A second factor: TOTP (RFC 6238) codes from an authenticator app, one-time recovery codes
(kept hashed), and the city setting that requires it of the city's own staff."""

import secrets
from datetime import timedelta

import pyotp
import segno
from pyotp.utils import strings_equal
from sqlalchemy import or_, select, update

from domain.clock import now
from services.errors import Invalid, Refused
from services.people import passwords
from services.people.passwords import digest
from storage.people import Person, RecoveryCode, SignInPolicy

RECOVERY_CODES = 10
ISSUER_NAME = "fogx"


class CodeRefused(Refused):
    pass


def required_for(session, membership) -> bool:
    """A city may require a second factor of its staff (auditors and admins)."""
    if membership.organisation != "city":
        return False
    policy = session.get(SignInPolicy, membership.jurisdiction_id)
    return bool(policy and policy.staff_totp_required)


def policy_of(session, jurisdiction_id) -> SignInPolicy:
    """The city's policy; one never set requires nothing (and was never updated)."""
    return session.get(SignInPolicy, jurisdiction_id) or SignInPolicy(
        jurisdiction_id=jurisdiction_id, staff_totp_required=False, updated_at=None
    )


def set_policy(session, jurisdiction_id, *, staff_totp_required: bool) -> SignInPolicy:
    policy = session.get(SignInPolicy, jurisdiction_id) or SignInPolicy(jurisdiction_id=jurisdiction_id)
    policy.staff_totp_required, policy.updated_at = staff_totp_required, now()
    session.add(policy)
    session.commit()
    return policy


def enrolling(session, person) -> str:
    """The secret an enrolment shows (made once, kept until confirmed)."""
    if not person.totp_secret:
        person.totp_secret = pyotp.random_base32()
        session.commit()
    return person.totp_secret


def provisioning_uri(person) -> str:
    return pyotp.TOTP(person.totp_secret).provisioning_uri(name=person.email, issuer_name=ISSUER_NAME)


def provisioning_qr(uri: str) -> str:
    """The key's address as a QR code an authenticator app's camera reads: SVG markup, drawn
    here, so no image host ever sees the key."""
    return segno.make(uri, error="m").svg_inline(
        scale=4, border=4, dark="#000", light="#fff", title="QR code of the key"
    )


def _step_of(secret, code) -> int | None:
    """The time step the code is right for; one step either side, so that a phone's clock a
    little off still signs in."""
    code = "".join((code or "").split())
    if not secret or not code.isdigit():
        return None
    totp, at = pyotp.TOTP(secret), now()
    for offset in (-1, 0, 1):
        moment = at + timedelta(seconds=offset * totp.interval)
        if strings_equal(code, totp.at(moment)):
            return totp.timecode(moment)
    return None


def _take_code(session, person, code) -> bool:
    """A right code of a later step than any taken before, marked taken (not committed); of two
    sign-ins with the same code at once, one alone takes it."""
    step = _step_of(person.totp_secret, code)
    if step is None:
        return False
    taken = session.execute(
        update(Person)
        .where(Person.id == person.id, or_(Person.totp_last_step.is_(None), Person.totp_last_step < step))
        .values(totp_last_step=step)
    )
    session.refresh(person)
    return taken.rowcount == 1


def confirm(session, person, *, code) -> list[str]:
    """Turn the second factor on once a code from the app matches; the recovery codes, shown once."""
    if person.totp_enabled_at is not None:
        raise Invalid("The second factor is on already.")
    if not _take_code(session, person, code):
        session.commit()
        raise Invalid("That code is not right; try the one your app shows now.", errors={"code": ["Wrong."]})
    person.totp_enabled_at = now()
    codes = new_recovery_codes(session, person)
    session.commit()
    return codes


def new_recovery_codes(session, person) -> list[str]:
    """Fresh recovery codes; the earlier ones stop working (not committed)."""
    session.execute(
        update(RecoveryCode)
        .where(RecoveryCode.person_id == person.id, RecoveryCode.used_at.is_(None))
        .values(used_at=now())
    )
    codes = [f"{secrets.token_hex(5)[:5]}-{secrets.token_hex(5)[:5]}" for _ in range(RECOVERY_CODES)]
    session.add_all(RecoveryCode(person_id=person.id, code_sha256=digest(code), created_at=now()) for code in codes)
    return codes


def verify(session, person, *, code, config) -> str:
    """How the second factor was proved, the sign-in's last: 'otp' for a right TOTP code,
    'recovery' for an unused recovery code (used up now); the count of tries starts again. Each
    try is counted first (`passwords.count_try`): a locked account's code is not tried
    (`AccountLocked`), and a wrong one is refused."""
    passwords.count_try(session, person, config=config)
    how = _proved(session, person, code)
    if how is None:
        session.commit()
        raise CodeRefused(_refusal(session, person, code))
    person.failed_sign_ins, person.locked_until = 0, None
    session.commit()
    return how


def _refusal(session, person, code) -> str:
    """Why a code was refused, in words (used already, or wrong), and the lock this try brought
    on, with how long it lasts."""
    session.refresh(person)  # the lock this try may have set
    typed = (code or "").strip().lower()
    if _step_of(person.totp_secret, code) is not None:
        said = "That code is not right now: it was used already. Wait for the next code your app shows."
    elif session.scalar(
        select(RecoveryCode.id).where(RecoveryCode.person_id == person.id, RecoveryCode.code_sha256 == digest(typed))
    ):
        said = "That recovery code is not right now: it was used already, and each one works once."
    else:
        said = "That code is not right."
    left = (person.locked_until - now()).total_seconds() if person.locked_until else 0
    if left > 0:
        said += f" Too many wrong codes: this account is locked for {passwords.for_how_long(left)}."
    return said


def _proved(session, person, code) -> str | None:
    if _take_code(session, person, code):
        return "otp"
    typed = (code or "").strip().lower()
    row = session.scalar(
        select(RecoveryCode).where(
            RecoveryCode.person_id == person.id,
            RecoveryCode.code_sha256 == digest(typed),
            RecoveryCode.used_at.is_(None),
        )
    )
    if row is None:
        return None
    used = session.execute(
        update(RecoveryCode).where(RecoveryCode.id == row.id, RecoveryCode.used_at.is_(None)).values(used_at=now())
    )
    return "recovery" if used.rowcount == 1 else None
