"""Notices by mail: each message kept with its state, the events that fan out into messages,
each person's choices, and each city's daily pass, claimed once per local day."""

import uuid
from datetime import date, datetime

from sqlalchemy import JSON, CheckConstraint, Date, ForeignKey, Index, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from storage.base import Base, UTCDateTime, created, new_id, pk, unflushed

# What a notice event is of: a filing with findings, a disputed delivery, a decided correction,
FILED, DISPUTE, DECIDED = "filed_with_findings", "delivery_disputed", "correction_decided"
# A manifest whose deadline passed with no disposal on record.
UNRECORDED = "disposal_unrecorded"


class Notice(Base):
    """One message to one address, written in the transaction that caused it (or by the daily
    pass) and sent after it. `dedupe_key` is unique: a notice for the same thing is never
    queued twice, however many passes or instances try."""

    __tablename__ = "notices"
    id: Mapped[uuid.UUID] = pk()
    # None for a message of no city (an invitation of the exchange operator's, a reset).
    jurisdiction_id: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("jurisdictions.id"))
    kind: Mapped[str] = mapped_column(String(40))
    person_id: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("people.id"))
    recipient: Mapped[str] = mapped_column(String(254))
    language: Mapped[str] = mapped_column(String(5))
    subject: Mapped[str] = mapped_column(Text)
    # What the message says, built when it is queued: {"text", "html", "attachments"?}.
    body: Mapped[dict] = mapped_column(JSON)
    dedupe_key: Mapped[str | None] = mapped_column(String(200), unique=True)
    state: Mapped[str] = mapped_column(String(10), default="queued")
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    next_attempt_at: Mapped[datetime] = created()
    created_at: Mapped[datetime] = created()
    sent_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    last_error: Mapped[str | None] = mapped_column(Text)
    __table_args__ = (
        CheckConstraint("state IN ('queued', 'sent', 'failed', 'bounced')", name="state"),
        # The sender reads the queued notices that are due; the admin's list, a city's newest first.
        Index("ix_notices_due", "state", "next_attempt_at"),
        Index("ix_notices_city", "jurisdiction_id", "created_at"),
    )


class NoticeEvent(Base):
    """Something that happened (a filing with findings, a dispute, a decided correction) and
    who is to hear of it, written beside it as one row; the sender turns it into notices."""

    __tablename__ = "notice_events"
    id: Mapped[uuid.UUID] = pk()
    kind: Mapped[str] = mapped_column(String(40))
    payload: Mapped[dict] = mapped_column(JSON)
    created_at: Mapped[datetime] = created()
    done_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    __table_args__ = (Index("ix_notice_events_pending", "done_at"),)


class NoticePreference(Base):
    """An address's language for notices and the kinds it does not want: a person's, or the
    contact address of a restaurant or hauler with no people yet (its unsubscribe link)."""

    __tablename__ = "notice_preferences"
    address: Mapped[str] = mapped_column(String(254), primary_key=True)
    language: Mapped[str] = mapped_column(String(5), default="en")
    muted: Mapped[list] = mapped_column(JSON, default=list)
    updated_at: Mapped[datetime] = created()


class NoticeDay(Base):
    """A city's daily pass of one local day: the first instance to insert the row runs it."""

    __tablename__ = "notice_days"
    jurisdiction_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("jurisdictions.id"), primary_key=True)
    day: Mapped[date] = mapped_column(Date, primary_key=True)
    claimed_at: Mapped[datetime] = created()
    queued: Mapped[int] = mapped_column(Integer, default=0)


def filed_event(manifest, revision, at) -> NoticeEvent:
    """The event of a filing with findings, as a new row for `storage.prebuilt.insert_rows`."""
    return unflushed(
        NoticeEvent,
        id=new_id(),
        kind=FILED,
        payload={"manifest_id": str(manifest.id), "revision": revision.revision},
        created_at=at,
        done_at=None,
    )


def add_event(session, kind, at, **payload):
    """An event in the session's unit of work, committed with what it follows."""
    session.add(NoticeEvent(kind=kind, payload={k: str(v) for k, v in payload.items()}, created_at=at))
