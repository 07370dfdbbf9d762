"""Passwords: Argon2id hashes, the sign-in check with its lockout, and reset by email link."""
import hashlib
import secrets
from datetime import timedelta

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from sqlalchemy import select, update

from services.errors import Gone, Invalid, Locked, NotFound, Refused
from schemas.registry import CONTROL
from domain.clock import now
from services import mail
from storage.people import PasswordReset, Person

# Argon2id at OWASP's recommended floor (19 MiB, 2 passes, 1 lane): a sign-in costs a worker
# a fraction of a second, a guess on a stolen hash as much.
hasher = PasswordHasher(time_cost=2, memory_cost=19456, parallelism=1)
# Verified against when no account matches, so that an unknown address costs the same time.
_NOBODY = hasher.hash(secrets.token_hex(16))
MIN_LENGTH, MAX_LENGTH = 12, 1024
RESET_TTL = timedelta(hours=2)


class SignInRefused(Refused):
    pass


class AccountLocked(Locked):
    pass


class LinkInvalid(Gone):
    pass


class LinkUnknown(NotFound):
    """A link's token that no invitation or reset was made with (not merely used or expired)."""


def digest(value: str) -> str:
    return hashlib.sha256(value.encode()).hexdigest()


def normal_email(email: str) -> str:
    return (email or "").strip().lower()


def find_person(session, email) -> Person | None:
    email = normal_email(email)
    if not email or CONTROL.search(email):
        return None  # no account has such an address (and PostgreSQL could not even compare a NUL)
    return session.scalar(select(Person).where(Person.email == email))


def checked(password: str, email: str) -> str:
    """The Argon2id hash of a password good enough to keep (NIST SP 800-63B: length, not rules)."""
    problems = []
    if len(password or "") < MIN_LENGTH:
        problems.append(f"At least {MIN_LENGTH} characters.")
    if len(password or "") > MAX_LENGTH:
        problems.append(f"At most {MAX_LENGTH} characters.")
    if password and normal_email(password) == normal_email(email):
        problems.append("Not your email address.")
    if problems:
        raise Invalid("The password is not good enough.", errors={"password": problems})
    return hasher.hash(password)


def verify_password(session, email, password, *, config) -> Person:
    """The person whose password this is. Each failure counts against the account; at
    `SIGN_IN_FAILURE_LIMIT` in a row it is locked for `SIGN_IN_LOCKOUT_SECONDS`, right
    password or not."""
    at = now()
    person = find_person(session, email)
    if person is None or person.password_hash is None or person.status != "active":
        _matches(_NOBODY, password or "")
        raise SignInRefused("The email address or the password is not right.")
    if person.locked_until and person.locked_until > at:
        raise AccountLocked("Too many failed sign-ins: this account is locked for now. Try again later, "
                            "or reset the password by email.")
    if not _matches(person.password_hash, password or ""):
        count_failure(session, person, config=config)
        raise SignInRefused("The email address or the password is not right.")
    if hasher.check_needs_rehash(person.password_hash):
        person.password_hash = hasher.hash(password)
    person.failed_sign_ins = 0
    session.commit()
    return person


def count_failure(session, person, *, config):
    """One more failed sign-in (password or second factor), counted in the database so that
    every worker sees it; at the limit, the lock."""
    session.execute(update(Person).where(Person.id == person.id)
                    .values(failed_sign_ins=Person.failed_sign_ins + 1))
    session.refresh(person)
    if person.failed_sign_ins >= config["SIGN_IN_FAILURE_LIMIT"]:
        person.locked_until = now() + timedelta(seconds=config["SIGN_IN_LOCKOUT_SECONDS"])
        person.failed_sign_ins = 0
    session.commit()


def _matches(hashed, password) -> bool:
    try:
        return hasher.verify(hashed, password)
    except (VerificationError, InvalidHashError):
        return False


def set_password(session, person, password):
    """A new password: the lock is lifted, and every sign-in of the old one ends."""
    from auth.signins import revoke_all

    person.password_hash = checked(password, person.email)
    person.password_changed_at = now()
    person.failed_sign_ins, person.locked_until = 0, None
    revoke_all(session, person.id, reason="password_changed")


def request_reset(session, email, *, config):
    """Mail a reset link where the address is an account's; the caller answers the same
    either way, so the page tells no one which addresses have accounts."""
    person = find_person(session, email)
    if person is None or person.status != "active":
        return None
    token = secrets.token_urlsafe(32)
    reset = PasswordReset(person_id=person.id, token_sha256=digest(token), created_at=now(),
                          expires_at=now() + RESET_TTL)
    session.add(reset)
    session.flush()
    link = f"{config['PUBLIC_BASE_URL']}/signin/reset/{token}"
    mail.send(config, to=person.email, subject="Reset your fogx password", text=(
        f"Hello {person.name},\n\nSomeone asked to reset the password of your fogx account. To choose a new "
        f"one, open this link within {int(RESET_TTL.total_seconds() // 3600)} hours:\n\n{link}\n\n"
        "If it was not you, ignore this message: your password stays as it is.\n"))
    session.commit()
    return reset


def reset_of(session, token) -> PasswordReset:
    reset = session.scalar(select(PasswordReset).where(PasswordReset.token_sha256 == digest(token or "")))
    if reset is None:
        raise LinkUnknown("This link is not one fogx sent. Check that it was copied whole, or ask for a new one.")
    if reset.used_at is not None or reset.expires_at <= now():
        raise LinkInvalid("This reset link has expired or has been used. Ask for a new one.")
    return reset


def reset_password(session, token, password) -> Person:
    reset = reset_of(session, token)
    person = session.get(Person, reset.person_id)
    set_password(session, person, password)
    # Used once: of two uses at the same time, one finds it used.
    used = session.execute(update(PasswordReset).where(PasswordReset.id == reset.id, PasswordReset.used_at.is_(None))
                           .values(used_at=now()))
    if used.rowcount != 1:
        session.rollback()
        raise LinkInvalid("This reset link has expired or has been used. Ask for a new one.")
    session.commit()
    return person
