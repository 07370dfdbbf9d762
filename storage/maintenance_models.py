"""The FSE's own maintenance log: each cleaning its kitchen staff did of a grease trap it keeps
itself (Placentia 16.24 Facilities Requirements (c)(3), Colusa 15A Art. II grease traps B:
daily removal of the accumulated grease). Entries are added, never edited or deleted."""

import uuid
from datetime import date, datetime

from sqlalchemy import Date, ForeignKey, Index, String, Text
from sqlalchemy.orm import Mapped, mapped_column, relationship

from storage.base import Base, created, pk


class TrapCleaning(Base):
    """One cleaning of one trap by the restaurant's own people, on the city's calendar day."""

    __tablename__ = "trap_cleanings"
    id: Mapped[uuid.UUID] = pk()
    # The FSE and its city, kept on the row: every read is filtered by who may reach them.
    fse_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("fses.id"))
    jurisdiction_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("jurisdictions.id"))
    device_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("devices.id"))
    cleaned_on: Mapped[date] = mapped_column(Date)
    cleaned_by: Mapped[str] = mapped_column(String(200))
    note: Mapped[str | None] = mapped_column(Text)
    recorded_at: Mapped[datetime] = created()
    recorded_by_client_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("oauth_clients.id"))
    # The person who wrote the entry, where a person's token did.
    recorded_by_person_id: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("people.id"))
    recorded_by_client: Mapped["OAuthClient"] = relationship(foreign_keys=[recorded_by_client_id], lazy="select")
    recorded_by_person: Mapped["Person | None"] = relationship(foreign_keys=[recorded_by_person_id], lazy="select")
    __table_args__ = (
        Index("ix_trap_cleanings_device_day", "device_id", "cleaned_on"),
        Index("ix_trap_cleanings_fse_day", "fse_id", "cleaned_on"),
    )
