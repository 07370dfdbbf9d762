"""API clients and what they hold (tokens, webhooks, idempotency records), and the outbox of
work to do after a commit."""

import uuid
from datetime import datetime

from sqlalchemy import JSON, CheckConstraint, ForeignKey, Index, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column, relationship

from storage.base import Base, UTCDateTime, created, pk
from storage.registry_models import Fse


class Webhook(Base):
    """A client's subscription to its change feed, delivered by POST to `url` (signed with
    `secret`) from `cursor` on. Claimed for a delivery by a lease, not a row lock: a lock held
    while the receiver answers would hold back every feed (`services.audit.changes`)."""

    __tablename__ = "webhooks"
    id: Mapped[uuid.UUID] = pk()
    client_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("oauth_clients.id"), index=True)
    url: Mapped[str] = mapped_column(String(2000))
    description: Mapped[str | None] = mapped_column(String(200))
    # The HMAC key of a webhook made before secrets were derived (`services.outbound.webhooks.secret_of`);
    # NULL for every webhook since.
    secret: Mapped[str | None] = mapped_column(String(64))
    status: Mapped[str] = mapped_column(String(20), default="active")
    created_at: Mapped[datetime] = created()
    disabled_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    disabled_reason: Mapped[str | None] = mapped_column(Text)
    cursor: Mapped[str | None] = mapped_column(String(40))
    next_attempt_at: Mapped[datetime] = created()
    leased_until: Mapped[datetime | None] = mapped_column(UTCDateTime)
    failures: Mapped[int] = mapped_column(Integer, default=0)
    delivered: Mapped[int] = mapped_column(Integer, default=0)
    last_attempt_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    last_success_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    last_error: Mapped[str | None] = mapped_column(Text)
    __table_args__ = (
        CheckConstraint("status IN ('active', 'disabled')", name="status"),
        Index("ix_webhooks_due", "status", "next_attempt_at"),
    )


class OutboxEntry(Base):
    """Work to do after a commit (object retention, re-evaluations), claimed row by row."""

    __tablename__ = "outbox"
    id: Mapped[uuid.UUID] = pk()
    kind: Mapped[str] = mapped_column(String(40))
    payload: Mapped[dict] = mapped_column(JSON)
    created_at: Mapped[datetime] = created()
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    next_attempt_at: Mapped[datetime] = created()
    done_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    last_error: Mapped[str | None] = mapped_column(Text)
    __table_args__ = (Index("ix_outbox_pending", "done_at", "next_attempt_at"),)


class IdempotencyRecord(Base):
    """The first response to a POST under an `Idempotency-Key`, replayed for retries."""

    __tablename__ = "idempotency_records"
    id: Mapped[uuid.UUID] = pk()
    client_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("oauth_clients.id"))
    key: Mapped[str] = mapped_column(String(200))
    request_sha256: Mapped[str] = mapped_column(String(64))
    state: Mapped[str] = mapped_column(String(20), default="in_flight")
    response_status: Mapped[int | None] = mapped_column(Integer)
    response_body: Mapped[dict | None] = mapped_column(JSON)
    created_at: Mapped[datetime] = created()
    __table_args__ = (UniqueConstraint("client_id", "key"),)


# Each role's subject, and no other: a hauler, FSEs (beside the client), a city, a disposal site.
# A hauler's or site's may also name a city: a person's membership a city granted reaches it alone.
ONE_SUBJECT = (
    "(role = 'hauler' AND hauler_id IS NOT NULL AND site_id IS NULL)"
    " OR (role = 'fse' AND hauler_id IS NULL AND jurisdiction_id IS NULL AND site_id IS NULL)"
    " OR (role IN ('auditor', 'admin') AND jurisdiction_id IS NOT NULL AND hauler_id IS NULL"
    " AND site_id IS NULL)"
    " OR (role = 'site' AND site_id IS NOT NULL AND hauler_id IS NULL)"
)


class OAuthClient(Base):
    """A program acting for one principal: a hauler, some FSEs, or a jurisdiction."""

    __tablename__ = "oauth_clients"
    id: Mapped[uuid.UUID] = pk()
    client_id: Mapped[str] = mapped_column(String(64), unique=True)
    secret_sha256: Mapped[str] = mapped_column(String(64))
    name: Mapped[str] = mapped_column(String(200))
    role: Mapped[str] = mapped_column(String(20))
    hauler_id: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("haulers.id"))
    jurisdiction_id: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("jurisdictions.id"))
    site_id: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("disposal_sites.id"))
    scope: Mapped[str] = mapped_column(Text)
    created_at: Mapped[datetime] = created()
    secret_rotated_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    revoked_at: Mapped[datetime | None] = mapped_column(UTCDateTime)

    fses: Mapped[list[Fse]] = relationship(secondary="oauth_client_fses")
    __table_args__ = (
        CheckConstraint("role IN ('hauler', 'fse', 'auditor', 'admin', 'site')", name="role"),
        CheckConstraint(ONE_SUBJECT, name="one_subject"),
    )


class OAuthClientFse(Base):
    __tablename__ = "oauth_client_fses"
    client_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("oauth_clients.id"), primary_key=True)
    fse_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("fses.id"), primary_key=True)


class OAuthToken(Base):
    """An access token, stored only as its SHA-256."""

    __tablename__ = "oauth_tokens"
    id: Mapped[uuid.UUID] = pk()
    client_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("oauth_clients.id"), index=True)
    token_sha256: Mapped[str] = mapped_column(String(64), unique=True)
    scope: Mapped[str] = mapped_column(Text)
    issued_at: Mapped[datetime] = created()
    expires_at: Mapped[datetime] = mapped_column(UTCDateTime)
    revoked_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    # A person's token: the person, and the sign-in (`storage.people.SignIn`) it came from.
    person_id: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("people.id"))
    sign_in_id: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("sign_ins.id"), index=True)

    client: Mapped[OAuthClient] = relationship()
    sign_in = relationship("SignIn")
