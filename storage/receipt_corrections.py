"""A disposal site's correction of a receipt it made in error: what the receipt said before and
what it says now, why, and who corrected it. The receipt shows the corrected load; every earlier
state stays here, so nothing the site once reported is lost."""

import uuid
from datetime import datetime

from sqlalchemy import JSON, ForeignKey, Index, Text
from sqlalchemy.orm import Mapped, mapped_column, relationship

from storage.base import Base, created, pk


class ReceiptCorrection(Base):
    __tablename__ = "receipt_corrections"
    id: Mapped[uuid.UUID] = pk()
    receipt_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("disposal_receipts.id"))
    # The receipt's body before and after, as the site sent each.
    before: Mapped[dict] = mapped_column(JSON)
    after: Mapped[dict] = mapped_column(JSON)
    reason: Mapped[str] = mapped_column(Text)
    submitted_by_client_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("oauth_clients.id"))
    submitted_by_person_id: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("people.id"))
    submitted_by_client: Mapped["OAuthClient"] = relationship(  # noqa: F821
        foreign_keys=[submitted_by_client_id], lazy="select"
    )
    submitted_by_person: Mapped["Person | None"] = relationship(  # noqa: F821
        foreign_keys=[submitted_by_person_id], lazy="select"
    )
    created_at: Mapped[datetime] = created()
    __table_args__ = (Index("ix_receipt_corrections_receipt", "receipt_id", "created_at"),)
