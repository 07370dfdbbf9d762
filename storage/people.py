"""People who sign in: accounts, their memberships of an organisation, invitations, second
factors, the apps they sign in through, and what those sign-ins issued.

A membership acts through a principal of its own: an `oauth_clients` row of the membership's
role and subject, with no usable secret. A person's token belongs to it, so every `/v1` rule
that holds for a client holds for the person, and removing the membership revokes it at once.
"""

import uuid
from datetime import date, datetime

from sqlalchemy import JSON, BigInteger, Boolean, CheckConstraint, Date, ForeignKey, Index, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column, relationship

from storage.base import Base, UTCDateTime, created, pk
from storage.client_models import OAuthClient

ORGANISATIONS = ("hauler", "restaurant", "city", "site")
# organisation: roles a person may have in it
ORGANISATION_ROLES = {
    "hauler": ("dispatcher", "driver", "admin"),
    "restaurant": ("operator", "admin"),
    "city": ("auditor", "admin"),
    "site": ("clerk", "admin"),
}


class Person(Base):
    """Someone who signs in with an email address and a password (Argon2id)."""

    __tablename__ = "people"
    id: Mapped[uuid.UUID] = pk()
    email: Mapped[str] = mapped_column(String(254), unique=True)
    name: Mapped[str] = mapped_column(String(200))
    # None until an invitation is accepted.
    password_hash: Mapped[str | None] = mapped_column(String(200))
    status: Mapped[str] = mapped_column(String(20), default="active")
    failed_sign_ins: Mapped[int] = mapped_column(Integer, default=0)
    locked_until: Mapped[datetime | None] = mapped_column(UTCDateTime)
    password_changed_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    # Base32 TOTP secret (RFC 6238); it counts once `totp_enabled_at` is set.
    totp_secret: Mapped[str | None] = mapped_column(String(64))
    totp_enabled_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    # The RFC 6238 time step of the last code taken: a code is good once, and never an older one.
    totp_last_step: Mapped[int | None] = mapped_column(BigInteger)
    created_at: Mapped[datetime] = created()

    memberships: Mapped[list["Membership"]] = relationship(back_populates="person", order_by="Membership.created_at")
    __table_args__ = (CheckConstraint("status IN ('active', 'disabled')", name="status"),)


class Membership(Base):
    """A person's role in one organisation, and the principal their tokens act as. A hauler's or
    disposal site's membership with a `jurisdiction_id` was granted by that city (or by an admin
    it scoped) and reaches that city's rows alone; one without is the exchange operator's grant."""

    __tablename__ = "memberships"
    id: Mapped[uuid.UUID] = pk()
    person_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("people.id"), index=True)
    organisation: Mapped[str] = mapped_column(String(20))
    role: Mapped[str] = mapped_column(String(20))
    hauler_id: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("haulers.id"), index=True)
    jurisdiction_id: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("jurisdictions.id"), index=True)
    site_id: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("disposal_sites.id"), index=True)
    principal_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("oauth_clients.id"), unique=True)
    invited_by_client_id: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("oauth_clients.id"))
    created_at: Mapped[datetime] = created()
    removed_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    removed_by_client_id: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("oauth_clients.id"))

    person: Mapped[Person] = relationship(back_populates="memberships")
    principal: Mapped[OAuthClient] = relationship(foreign_keys=[principal_id])
    __table_args__ = (
        CheckConstraint("organisation IN ('hauler', 'restaurant', 'city', 'site')", name="organisation"),
        CheckConstraint(
            "(organisation = 'hauler' AND role IN ('dispatcher', 'driver', 'admin'))"
            " OR (organisation = 'restaurant' AND role IN ('operator', 'admin'))"
            " OR (organisation = 'city' AND role IN ('auditor', 'admin'))"
            " OR (organisation = 'site' AND role IN ('clerk', 'admin'))",
            name="role",
        ),
    )


class Invitation(Base):
    """An invitation by email to a role in an organisation; the link's token is kept hashed."""

    __tablename__ = "invitations"
    id: Mapped[uuid.UUID] = pk()
    email: Mapped[str] = mapped_column(String(254), index=True)
    organisation: Mapped[str] = mapped_column(String(20))
    role: Mapped[str] = mapped_column(String(20))
    hauler_id: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("haulers.id"))
    jurisdiction_id: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("jurisdictions.id"))
    site_id: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("disposal_sites.id"))
    fse_ids: Mapped[list] = mapped_column(JSON, default=list)
    token_sha256: Mapped[str] = mapped_column(String(64), unique=True)
    # None for the exchange operator's (the command line's); a link whose inviting client is
    # revoked (a removed membership's principal) no longer works.
    invited_by_client_id: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("oauth_clients.id"))
    invited_by_person_id: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("people.id"))
    created_at: Mapped[datetime] = created()
    expires_at: Mapped[datetime] = mapped_column(UTCDateTime)
    accepted_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    membership_id: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("memberships.id"))
    withdrawn_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    withdrawn_by_client_id: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("oauth_clients.id"))


class PasswordReset(Base):
    """A password-reset link sent by email; single use, kept hashed."""

    __tablename__ = "password_resets"
    id: Mapped[uuid.UUID] = pk()
    person_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("people.id"), index=True)
    token_sha256: Mapped[str] = mapped_column(String(64), unique=True)
    created_at: Mapped[datetime] = created()
    expires_at: Mapped[datetime] = mapped_column(UTCDateTime)
    used_at: Mapped[datetime | None] = mapped_column(UTCDateTime)


class RecoveryCode(Base):
    """A one-time code that stands in for a TOTP code; kept hashed."""

    __tablename__ = "recovery_codes"
    id: Mapped[uuid.UUID] = pk()
    person_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("people.id"), index=True)
    code_sha256: Mapped[str] = mapped_column(String(64))
    created_at: Mapped[datetime] = created()
    used_at: Mapped[datetime | None] = mapped_column(UTCDateTime)


class SignInPolicy(Base):
    """What a city asks of its own staff when they sign in."""

    __tablename__ = "sign_in_policies"
    jurisdiction_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("jurisdictions.id"), primary_key=True)
    staff_totp_required: Mapped[bool] = mapped_column(Boolean, default=False)
    updated_at: Mapped[datetime] = created()


class OAuthApp(Base):
    """A program people sign in through (authorization code grant): public (no secret, PKCE
    alone) or confidential. A first-party app (the portal) is not asked for consent."""

    __tablename__ = "oauth_apps"
    id: Mapped[uuid.UUID] = pk()
    client_id: Mapped[str] = mapped_column(String(64), unique=True)
    secret_sha256: Mapped[str | None] = mapped_column(String(64))
    name: Mapped[str] = mapped_column(String(200))
    redirect_uris: Mapped[list] = mapped_column(JSON)
    first_party: Mapped[bool] = mapped_column(Boolean, default=False)
    # The most a token issued through it may carry; a person's role may allow less.
    scope: Mapped[str] = mapped_column(Text)
    created_at: Mapped[datetime] = created()
    revoked_at: Mapped[datetime | None] = mapped_column(UTCDateTime)


class SignIn(Base):
    """One sign-in of a person through an app: the family of every token issued from it.
    Revoking it (sign-out, a reused refresh token, a new password, removal) ends them all."""

    __tablename__ = "sign_ins"
    id: Mapped[uuid.UUID] = pk()
    person_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("people.id"), index=True)
    membership_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("memberships.id"), index=True)
    app_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("oauth_apps.id"))
    scope: Mapped[str] = mapped_column(Text)
    auth_time: Mapped[datetime] = mapped_column(UTCDateTime)
    amr: Mapped[list] = mapped_column(JSON, default=list)
    created_at: Mapped[datetime] = created()
    revoked_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    revoked_reason: Mapped[str | None] = mapped_column(String(40))

    person: Mapped[Person] = relationship()
    membership: Mapped[Membership] = relationship()
    app: Mapped[OAuthApp] = relationship()


class AuthorizationCode(Base):
    """An authorization code (RFC 6749 4.1, PKCE S256), kept hashed, used once."""

    __tablename__ = "authorization_codes"
    id: Mapped[uuid.UUID] = pk()
    code_sha256: Mapped[str] = mapped_column(String(64), unique=True)
    app_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("oauth_apps.id"))
    person_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("people.id"))
    membership_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("memberships.id"))
    redirect_uri: Mapped[str] = mapped_column(String(2000))
    scope: Mapped[str] = mapped_column(Text)
    nonce: Mapped[str | None] = mapped_column(String(255))
    code_challenge: Mapped[str] = mapped_column(String(128))
    code_challenge_method: Mapped[str] = mapped_column(String(10))
    auth_time: Mapped[datetime] = mapped_column(UTCDateTime)
    amr: Mapped[list] = mapped_column(JSON, default=list)
    created_at: Mapped[datetime] = created()
    expires_at: Mapped[datetime] = mapped_column(UTCDateTime)
    used_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    # The sign-in its exchange began: revoked if the code is presented again.
    sign_in_id: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("sign_ins.id"))


class RefreshToken(Base):
    """A refresh token, kept hashed; each use gives the next one, and a used one presented
    again revokes its whole sign-in."""

    __tablename__ = "refresh_tokens"
    id: Mapped[uuid.UUID] = pk()
    sign_in_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("sign_ins.id"), index=True)
    token_sha256: Mapped[str] = mapped_column(String(64), unique=True)
    issued_at: Mapped[datetime] = created()
    expires_at: Mapped[datetime] = mapped_column(UTCDateTime)
    used_at: Mapped[datetime | None] = mapped_column(UTCDateTime)

    sign_in: Mapped[SignIn] = relationship()


class Consent(Base):
    """The scopes a person let a third-party app use for them in one of their organisations: the
    consent page names the membership, and another membership is asked for again."""

    __tablename__ = "consents"
    person_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("people.id"), primary_key=True)
    app_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("oauth_apps.id"), primary_key=True)
    membership_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("memberships.id"), primary_key=True)
    scope: Mapped[str] = mapped_column(Text)
    granted_at: Mapped[datetime] = created()


class RecordRead(Base):
    """Who downloaded an FSE's record, when, in which format and for which period."""

    __tablename__ = "record_reads"
    id: Mapped[uuid.UUID] = pk()
    fse_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("fses.id"))
    client_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("oauth_clients.id"))
    person_id: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("people.id"))
    format: Mapped[str] = mapped_column(String(10))
    period_from: Mapped[date] = mapped_column(Date)
    period_to: Mapped[date] = mapped_column(Date)
    read_at: Mapped[datetime] = created()
    __table_args__ = (Index("ix_record_reads_fse_read", "fse_id", "read_at"),)
