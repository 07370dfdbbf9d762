"""Passwords: Argon2id hashes, the sign-in check, the lockout that wrong second-factor codes
bring, and reset by email link."""

import hashlib
import math
import secrets
import uuid
from datetime import timedelta

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from sqlalchemy import func, or_, select, update

from domain.clock import now
from schemas.registry import CONTROL
from services.errors import Gone, Invalid, Locked, NotFound, Refused
from services.notices import account_mail
from storage.people import PasswordReset, Person

# Argon2id at OWASP's recommended floor (19 MiB, 2 passes, 1 lane): a sign-in costs a worker
# a fraction of a second, a guess on a stolen hash as much.
hasher = PasswordHasher(time_cost=2, memory_cost=19456, parallelism=1)
# Verified against when no account matches, so that an unknown address costs the same time.
_NOBODY = hasher.hash(secrets.token_hex(16))
MIN_LENGTH, MAX_LENGTH = 12, 1024
RESET_TTL = timedelta(hours=2)
RESETS_PER_HOUR = 3  # a mailbox is not flooded with links by whoever knows its address
# Guessing a six-digit code at the longest lock: a few tries a day.
MAX_LOCK = timedelta(days=1)


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


def person_of(session, person_id) -> Person | None:
    """The person a signed sign-in step names by id."""
    return session.get(Person, uuid.UUID(str(person_id)))


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


def verify_password(session, email, *, password, config) -> Person:
    """The person whose password this is. Every refusal costs one Argon2id verification and
    reads the same, account or not; a locked account says so, and for how long, only to the
    right password. Wrong passwords are counted by where they come from (`api.people.signin`), not
    against the account: a stranger cannot lock its owner out."""
    person = find_person(session, email)
    if person is None or person.password_hash is None or person.status != "active":
        _matches(_NOBODY, password or "")
        raise SignInRefused("The email address or the password is not right.")
    if not _matches(person.password_hash, password or ""):
        raise SignInRefused("The email address or the password is not right.")
    refuse_if_locked(person)
    if hasher.check_needs_rehash(person.password_hash):
        person.password_hash = hasher.hash(password)
    session.commit()
    return person


def refuse_if_locked(person, *, at=None):
    """A locked account is refused, saying for how long, before any code of it is tried."""
    left = (person.locked_until - (at or now())).total_seconds() if person.locked_until else 0
    if left > 0:
        raise AccountLocked(
            f"Too many wrong codes: this account is locked for {for_how_long(left)}. If they were "
            "not yours, someone knows your password: reset it by email."
        )


def for_how_long(seconds) -> str:
    minutes = max(1, math.ceil(seconds / 60))
    if minutes <= 90:
        return f"{minutes} minute{'s' if minutes > 1 else ''}"
    return f"{math.ceil(minutes / 60)} hours"


def count_try(session, person, *, config):
    """Count a second-factor code before it is checked (not committed), so that codes sent at
    once come in turn: the update holds the account's row until the commit, and one that finds
    it locked is refused. The count is kept until a sign-in completes or the password is reset:
    a right password alone does not clear it. Every `SIGN_IN_FAILURE_LIMIT` tries lock the
    account, each lock twice as long as the one before, up to `MAX_LOCK`; a right code lifts it."""
    at = now()
    counted = session.execute(
        update(Person)
        .where(Person.id == person.id, or_(Person.locked_until.is_(None), Person.locked_until <= at))
        .values(failed_sign_ins=Person.failed_sign_ins + 1)
    )
    session.refresh(person)
    if counted.rowcount != 1:
        session.rollback()
        refuse_if_locked(person, at=at)
    locks, short = divmod(person.failed_sign_ins, config["SIGN_IN_FAILURE_LIMIT"])
    if locks and not short:
        lock = timedelta(seconds=config["SIGN_IN_LOCKOUT_SECONDS"]) * 2 ** min(locks - 1, 16)
        session.execute(update(Person).where(Person.id == person.id).values(locked_until=at + min(lock, MAX_LOCK)))


def _matches(hashed, password) -> bool:
    try:
        return hasher.verify(hashed, password)
    except (VerificationError, InvalidHashError):
        return False


def set_password(session, person, *, password):
    """A new password: the lock is lifted, and what the old one began ends: every sign-in, code
    and sign-in page, every other reset link, a second factor's key not yet confirmed, and the
    webhooks made through the person's memberships (a thief's session may have made them)."""
    from auth.signins import revoke_all
    from services.outbound.webhooks import disable_of_person

    person.password_hash = checked(password, person.email)
    person.password_changed_at = now()
    person.failed_sign_ins, person.locked_until = 0, None
    if person.totp_enabled_at is None:
        person.totp_secret = None  # a key shown to an enrolment not confirmed may have been shown to a thief
    revoke_all(session, person.id, reason="password_changed")
    session.execute(
        update(PasswordReset)
        .where(
            PasswordReset.person_id == person.id,
            PasswordReset.used_at.is_(None),
            PasswordReset.expires_at > person.password_changed_at,
        )
        .values(expires_at=person.password_changed_at)
    )
    disable_of_person(session, person_id=person.id, reason="its person's password was changed")


def password_stamp(person) -> int:
    """When the password was last set, in microseconds (0 for never): a sign-in step signed under
    one stamp is refused under another, so that no page left open outlives a new password."""
    changed = person.password_changed_at
    return round(changed.timestamp() * 1_000_000) if changed else 0


def request_reset(session, email, *, config):
    """Mail a reset link where the address is an account's, at most `RESETS_PER_HOUR` an hour
    (more are asked for in vain); the caller answers the same either way, so the page tells no
    one which addresses have accounts."""
    person = find_person(session, email)
    if person is None or person.status != "active" or _resets_in_the_hour(session, person) >= RESETS_PER_HOUR:
        return None
    token = secrets.token_urlsafe(32)
    reset = PasswordReset(
        person_id=person.id, token_sha256=digest(token), created_at=now(), expires_at=now() + RESET_TTL
    )
    session.add(reset)
    # The link and its mail commit together: the link works by the time anyone can open it,
    # and the mail goes after the commit, however long the mail server takes.
    link = f"{config['PUBLIC_BASE_URL']}/signin/reset/{token}"
    account_mail.reset(session, config, person=person, link=link, ttl_hours=int(RESET_TTL.total_seconds() // 3600))
    session.commit()
    return reset


def _resets_in_the_hour(session, person) -> int:
    return session.scalar(
        select(func.count())
        .select_from(PasswordReset)
        .where(PasswordReset.person_id == person.id, PasswordReset.created_at > now() - timedelta(hours=1))
    )


def reset_of(session, token) -> PasswordReset:
    reset = session.scalar(select(PasswordReset).where(PasswordReset.token_sha256 == digest(token or "")))
    if reset is None:
        raise LinkUnknown("This link is not one fogx sent. Check that it was copied whole, or ask for a new one.")
    if reset.used_at is not None or reset.expires_at <= now():
        raise LinkInvalid("This reset link has expired or has been used. Ask for a new one.")
    return reset


def reset_password(session, token, *, password) -> Person:
    """The link's new password; the link is used, and every other link of the person ends."""
    reset = reset_of(session, token)
    person = session.get(Person, reset.person_id)
    # Used once: of two uses at the same time, one finds it used.
    used = session.execute(
        update(PasswordReset)
        .where(PasswordReset.id == reset.id, PasswordReset.used_at.is_(None), PasswordReset.expires_at > now())
        .values(used_at=now())
    )
    if used.rowcount != 1:
        session.rollback()
        raise LinkInvalid("This reset link has expired or has been used. Ask for a new one.")
    try:
        set_password(session, person, password=password)
    except Invalid:
        session.rollback()  # a password not good enough leaves the link as it was
        raise
    session.commit()
    return person
