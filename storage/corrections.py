"""Corrections the city reviews before they take effect: a proposal kept beside the manifest,
hashed as it was received, with the city's decision."""

import uuid
from datetime import datetime

from sqlalchemy import JSON, CheckConstraint, ForeignKey, Index, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column, relationship

from storage.base import Base, UTCDateTime, created, pk

PENDING, APPROVED, REJECTED = "pending", "approved", "rejected"
STATUSES = (PENDING, APPROVED, REJECTED)


class PendingCorrection(Base):
    """A correction that would move a manifest (another FSE, permit or device, or its service
    shifted past the city's deadline): no revision until the city approves it."""

    __tablename__ = "pending_corrections"
    id: Mapped[uuid.UUID] = pk()
    manifest_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("manifests.id"))
    # The city that reviews it: the manifest's, when it was sent.
    jurisdiction_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("jurisdictions.id"))
    hauler_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("haulers.id"))
    # The revision it corrects; approved only while that revision is still current.
    based_on_revision: Mapped[int] = mapped_column(Integer)
    # What was sent (the manifest, the reason, when, over which revision) and its SHA-256.
    document: Mapped[dict] = mapped_column(JSON)
    sha256: Mapped[str] = mapped_column(String(64))
    # Why it waits for the city: fse, permit, device, service_time.
    moves: Mapped[list] = mapped_column(JSON)
    submitted_at: Mapped[datetime] = created()
    submitted_by_client_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("oauth_clients.id"))
    submitted_by_person_id: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("people.id"))
    submitted_by_client: Mapped["OAuthClient"] = relationship(foreign_keys=[submitted_by_client_id], lazy="select")
    submitted_by_person: Mapped["Person | None"] = relationship(foreign_keys=[submitted_by_person_id], lazy="select")
    status: Mapped[str] = mapped_column(String(10), default=PENDING)
    decided_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    decided_by_client_id: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("oauth_clients.id"))
    decided_by_person_id: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("people.id"))
    decided_by_client: Mapped["OAuthClient | None"] = relationship(foreign_keys=[decided_by_client_id], lazy="select")
    decided_by_person: Mapped["Person | None"] = relationship(foreign_keys=[decided_by_person_id], lazy="select")
    decision_reason: Mapped[str | None] = mapped_column(Text)
    # The revision an approval made.
    revision: Mapped[int | None] = mapped_column(Integer)
    __table_args__ = (
        CheckConstraint("status IN ('pending', 'approved', 'rejected')", name="status"),
        Index("ix_pending_corrections_review", "jurisdiction_id", "status", "id"),
        Index("ix_pending_corrections_manifest", "manifest_id", "status"),
    )
