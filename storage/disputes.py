"""A disposal site's dispute of a delivery a manifest names: the site says the load did not
arrive as the hauler filed it. Kept as sent, never changed; the city sees it in the disposal
reconciliation."""

import uuid
from datetime import datetime

from sqlalchemy import ForeignKey, Index, Text
from sqlalchemy.orm import Mapped, mapped_column

from storage.base import Base, created, pk


class DeliveryDispute(Base):
    __tablename__ = "delivery_disputes"
    id: Mapped[uuid.UUID] = pk()
    manifest_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("manifests.id"))
    site_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("disposal_sites.id"))
    reason: Mapped[str] = mapped_column(Text)
    submitted_by_client_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("oauth_clients.id"))
    created_at: Mapped[datetime] = created()
    __table_args__ = (Index("ix_delivery_disputes_manifest", "manifest_id", "site_id"),)
