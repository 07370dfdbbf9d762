"""A second factor: TOTP (RFC 6238) codes from an authenticator app, one-time recovery codes
(kept hashed), and the city setting that requires it of the city's own staff."""
import secrets

import pyotp
from sqlalchemy import select, update

from services.errors import Invalid
from domain.clock import now
from services.passwords import digest
from storage.people import RecoveryCode, SignInPolicy

RECOVERY_CODES = 10
ISSUER_NAME = "fogx"


def required_for(session, membership) -> bool:
    """A city may require a second factor of its staff (auditors and admins)."""
    if membership.organisation != "city":
        return False
    policy = session.get(SignInPolicy, membership.jurisdiction_id)
    return bool(policy and policy.staff_totp_required)


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


def _code_ok(secret, code) -> bool:
    code = "".join((code or "").split())
    # One step either side: a phone's clock a little off still signs in.
    return bool(secret) and code.isdigit() and pyotp.TOTP(secret).verify(code, for_time=now(), valid_window=1)


def confirm(session, person, code) -> list[str]:
    """Turn the second factor on once a code from the app matches; the recovery codes, shown once."""
    if person.totp_enabled_at is not None:
        raise Invalid("The second factor is on already.")
    if not _code_ok(person.totp_secret, code):
        raise Invalid("That code is not right; try the one your app shows now.", errors={"code": ["Wrong."]})
    person.totp_enabled_at = now()
    codes = new_recovery_codes(session, person)
    session.commit()
    return codes


def new_recovery_codes(session, person) -> list[str]:
    """Fresh recovery codes; the earlier ones stop working (not committed)."""
    session.execute(update(RecoveryCode).where(RecoveryCode.person_id == person.id, RecoveryCode.used_at.is_(None))
                    .values(used_at=now()))
    codes = [f"{secrets.token_hex(5)[:5]}-{secrets.token_hex(5)[:5]}" for _ in range(RECOVERY_CODES)]
    session.add_all(RecoveryCode(person_id=person.id, code_sha256=digest(code), created_at=now()) for code in codes)
    return codes


def verify(session, person, code) -> str | None:
    """'otp' for a right TOTP code, 'recovery' for an unused recovery code (used up now), or None."""
    if _code_ok(person.totp_secret, code):
        return "otp"
    typed = (code or "").strip().lower()
    row = session.scalar(select(RecoveryCode).where(RecoveryCode.person_id == person.id,
                                                    RecoveryCode.code_sha256 == digest(typed),
                                                    RecoveryCode.used_at.is_(None)))
    if row is None:
        return None
    used = session.execute(update(RecoveryCode).where(RecoveryCode.id == row.id, RecoveryCode.used_at.is_(None))
                           .values(used_at=now()))
    session.commit()
    return "recovery" if used.rowcount == 1 else None
