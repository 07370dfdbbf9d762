"""Manifests and what hangs on them: revisions, findings, documents, legal holds, the change
feed, and the disposal sites' receipts they are matched against."""

import uuid
from datetime import date, datetime
from decimal import Decimal

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    CheckConstraint,
    Date,
    FetchedValue,
    ForeignKey,
    Index,
    Integer,
    String,
    Text,
    UniqueConstraint,
    Uuid,
    text,
    true,
)
from sqlalchemy.orm import Mapped, mapped_column, relationship

from storage.base import INCHES, Base, UTCDateTime, created, pk


class Manifest(Base):
    """One pump-out of one device by one hauler; its content lives in its revisions."""

    __tablename__ = "manifests"
    id: Mapped[uuid.UUID] = pk()
    hauler_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("haulers.id"))
    manifest_number: Mapped[str] = mapped_column(String(60))
    jurisdiction_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("jurisdictions.id"))
    fse_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("fses.id"), index=True)
    device_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("devices.id"), index=True)
    permit_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("permits.id"))
    # The revision now in force; earlier revisions stay untouched beside it.
    current_revision: Mapped[int] = mapped_column(Integer, default=1)
    created_at: Mapped[datetime] = created()

    revisions: Mapped[list["ManifestRevision"]] = relationship(
        order_by="ManifestRevision.revision", back_populates="manifest"
    )
    documents: Mapped[list["Document"]] = relationship(order_by="Document.uploaded_at")
    __table_args__ = (
        UniqueConstraint("hauler_id", "manifest_number"),
        Index("ix_manifests_jurisdiction_created", "jurisdiction_id", "created_at"),
        # The few corrected manifests: a correction may date a delivery after the filing, so a
        # question by delivery date asks these beside those filed in its period.
        Index(
            "ix_manifests_corrected",
            "jurisdiction_id",
            postgresql_where=text("current_revision > 1"),
            sqlite_where=text("current_revision > 1"),
        ),
    )


class ManifestRevision(Base):
    """An immutable revision: the canonical JSON, its chained hash, and the fields queried."""

    __tablename__ = "manifest_revisions"
    id: Mapped[uuid.UUID] = pk()
    manifest_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("manifests.id"))
    revision: Mapped[int] = mapped_column(Integer)
    body: Mapped[dict] = mapped_column(JSON)
    sha256: Mapped[str] = mapped_column(String(64))
    previous_sha256: Mapped[str | None] = mapped_column(String(64))
    reason: Mapped[str | None] = mapped_column(Text)
    received_at: Mapped[datetime] = created()
    submitted_by_client_id: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("oauth_clients.id"))
    # A person's filing: who, and their certification (name, organisation, time, sha256).
    submitted_by_person_id: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("people.id"))
    certification: Mapped[dict | None] = mapped_column(JSON)

    device_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("devices.id"))
    service_started_at: Mapped[datetime] = mapped_column(UTCDateTime)
    service_completed_at: Mapped[datetime] = mapped_column(UTCDateTime)
    waste_type: Mapped[str] = mapped_column(String(40))
    gallons_removed: Mapped[int] = mapped_column(Integer)
    decant_returned_gallons: Mapped[int] = mapped_column(Integer, default=0)
    full_pump_down: Mapped[bool] = mapped_column(Boolean)
    vehicle_id: Mapped[str] = mapped_column(String(60))
    disposal_site_id: Mapped[uuid.UUID | None] = mapped_column(Uuid)
    disposal_ticket_number: Mapped[str | None] = mapped_column(String(60))
    disposal_delivered_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    disposal_gallons_delivered: Mapped[int | None] = mapped_column(Integer)
    # Measured before pumping, where the hauler measured (the frequency recommendations).
    # Inches to the hundredth, exact (NUMERIC): the 25% rule compares their sum at its limit.
    fog_depth_in: Mapped[Decimal | None] = mapped_column(INCHES)
    solids_depth_in: Mapped[Decimal | None] = mapped_column(INCHES)
    # From the top of the grease or sludge to the discharge elbow, where the hauler measured it.
    outlet_clearance_in: Mapped[Decimal | None] = mapped_column(INCHES)
    # Whether this revision counts as a qualifying service.
    qualifying: Mapped[bool] = mapped_column(Boolean)
    # The manifest's revision now in force (`Manifest.current_revision`): a revision is written
    # in force, and a correction that supersedes it turns it off in the same transaction.
    in_force: Mapped[bool] = mapped_column(Boolean, server_default=true())
    # For a qualifying revision in force: when its device's qualifying service before it was
    # completed (none: NULL), so a city's gaps between services are read row by row, without
    # ordering a year of services. Kept by the filing and by `storage.service_chain.relink`.
    previous_service_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    # Who pumped and where the load went, as the registry named them when this revision was
    # filed (exchange policy, every city; Victorville 10.03.170(c) and Tracy 5.26 records ask for
    # them): a later rename or licence does not rewrite the record.
    hauler_name: Mapped[str | None] = mapped_column(String(200))
    hauler_licence_number: Mapped[str | None] = mapped_column(String(60))
    disposal_site_name: Mapped[str | None] = mapped_column(String(200))
    disposal_site_address: Mapped[str | None] = mapped_column(String(300))

    manifest: Mapped[Manifest] = relationship(back_populates="revisions")
    findings: Mapped[list["Finding"]] = relationship(order_by="Finding.raised_at, Finding.code")
    __table_args__ = (
        UniqueConstraint("manifest_id", "revision"),
        # A device's revisions in time order, in force or not; a city's findings of a period
        # and a filing's neighbours are read from it alone.
        Index(
            "ix_revisions_device_completed",
            "device_id",
            "service_completed_at",
            postgresql_include=["id", "manifest_id", "in_force"],
        ),
        # A period's services in force in time order, each with what its findings, manifest and
        # device join on.
        Index(
            "ix_revisions_completed",
            "service_completed_at",
            postgresql_include=["id", "manifest_id", "device_id"],
            postgresql_where=text("in_force"),
            sqlite_where=text("in_force"),
        ),
        Index("ix_revisions_ticket", "disposal_site_id", "disposal_ticket_number"),
        # The services that count, device by device in time order, read without the manifests
        # (a filing's previous and latest qualifying services, the missed services of a period,
        # each device's last service before it, the gap each closes).
        Index(
            "ix_revisions_counted",
            "device_id",
            "service_completed_at",
            postgresql_where=text("in_force AND qualifying"),
            sqlite_where=text("in_force AND qualifying"),
            postgresql_include=["manifest_id", "previous_service_at"],
        ),
        # Deliveries in the order the city's reconciliation lists them.
        Index(
            "ix_revisions_delivered",
            "disposal_delivered_at",
            "disposal_ticket_number",
            postgresql_where=text("in_force"),
            sqlite_where=text("in_force"),
        ),
    )


class Finding(Base):
    """The result of one compliance check on one revision; later events may add or clear one."""

    __tablename__ = "findings"
    id: Mapped[uuid.UUID] = pk()
    revision_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("manifest_revisions.id"), index=True)
    code: Mapped[str] = mapped_column(String(40))
    severity: Mapped[str] = mapped_column(String(10))
    message: Mapped[str] = mapped_column(Text)
    citation: Mapped[str] = mapped_column(String(200))
    raised_at: Mapped[datetime] = created()
    cleared_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    __table_args__ = (
        CheckConstraint("severity IN ('violation', 'warning')", name="severity"),
        Index("ix_findings_code_raised", "code", "raised_at"),
    )


class Document(Base):
    """A scan attached to a manifest; the bytes live in the object store under `object_key`."""

    __tablename__ = "documents"
    id: Mapped[uuid.UUID] = pk()
    # Looked up by manifest through the unique (manifest_id, sha256) index below.
    manifest_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("manifests.id"))
    sha256: Mapped[str] = mapped_column(String(64), index=True)
    size_bytes: Mapped[int] = mapped_column(Integer)
    content_type: Mapped[str] = mapped_column(String(40))
    object_key: Mapped[str] = mapped_column(String(200))
    # The store's version of the object that holds the bytes (S3 with versioning); what is read
    # and locked, whatever is written under the key later. None where the store keeps one copy.
    object_version_id: Mapped[str | None] = mapped_column(String(1024))
    filename: Mapped[str | None] = mapped_column(String(255))
    uploaded_at: Mapped[datetime] = created()
    # Who sent the scan: the client, and the person where a person's token did.
    uploaded_by_client_id: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("oauth_clients.id"))
    uploaded_by_person_id: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("people.id"))
    uploaded_by_client: Mapped["OAuthClient | None"] = relationship(foreign_keys=[uploaded_by_client_id], lazy="select")
    uploaded_by_person: Mapped["Person | None"] = relationship(foreign_keys=[uploaded_by_person_id], lazy="select")
    retained_until: Mapped[date | None] = mapped_column(Date)
    __table_args__ = (Index("uq_documents_manifest_sha256", "manifest_id", "sha256", unique=True),)


class LegalHold(Base):
    """Keeps the records of an FSE, a permit or a manifest out of every retention purge until
    released; a hold on an FSE or a permit keeps every manifest that ever named it."""

    __tablename__ = "legal_holds"
    id: Mapped[uuid.UUID] = pk()
    fse_id: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("fses.id"))
    permit_id: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("permits.id"))
    manifest_id: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("manifests.id"))
    reason: Mapped[str] = mapped_column(Text)
    placed_at: Mapped[datetime] = created()
    released_at: Mapped[datetime | None] = mapped_column(UTCDateTime)


class Change(Base):
    """One entry of the change feed (`GET /v1/changes`): something that happened to a
    manifest, written in the transaction that did it. Entries are given out in `(txid, seq)`
    order, and only once no transaction that could still write an earlier one is running
    (`services.audit.changes`). It names the manifest without a foreign key: the entry that says
    a manifest was purged outlives it."""

    __tablename__ = "changes"
    seq: Mapped[int] = mapped_column(BigInteger().with_variant(Integer, "sqlite"), primary_key=True, autoincrement=True)
    # The writing transaction's id on PostgreSQL (`pg_current_xact_id()`, migration 0008); 0
    # on SQLite, whose writers take turns.
    txid: Mapped[int] = mapped_column(BigInteger, server_default=FetchedValue())
    kind: Mapped[str] = mapped_column(String(40))
    at: Mapped[datetime] = mapped_column(UTCDateTime)
    manifest_id: Mapped[uuid.UUID] = mapped_column(Uuid)
    manifest_number: Mapped[str] = mapped_column(String(60))
    revision: Mapped[int | None] = mapped_column(Integer)
    # Whose it is, as it stood: the feed of each caller is filtered by these.
    hauler_id: Mapped[uuid.UUID] = mapped_column(Uuid)
    fse_id: Mapped[uuid.UUID] = mapped_column(Uuid)
    jurisdiction_id: Mapped[uuid.UUID] = mapped_column(Uuid)
    detail: Mapped[dict] = mapped_column(JSON)
    __table_args__ = (
        Index("ix_changes_jurisdiction_feed", "jurisdiction_id", "txid", "seq"),
        Index("ix_changes_hauler_feed", "hauler_id", "txid", "seq"),
        Index("ix_changes_fse_feed", "fse_id", "txid", "seq"),
        Index("ix_changes_manifest_id", "manifest_id"),
    )


class DisposalReceipt(Base):
    """A disposal site's own record of a load it received: the other side of the manifest
    that names the same ticket (`domain.reconcile`). Never changed once made."""

    __tablename__ = "disposal_receipts"
    id: Mapped[uuid.UUID] = pk()
    site_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("disposal_sites.id"))
    ticket_number: Mapped[str] = mapped_column(String(60))
    hauler_licence_number: Mapped[str] = mapped_column(String(60))
    # The hauler that licence is of, where fogx knows it.
    hauler_id: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("haulers.id"), index=True)
    vehicle_id: Mapped[str] = mapped_column(String(60))
    waste_type: Mapped[str] = mapped_column(String(40))
    gallons_received: Mapped[int] = mapped_column(Integer)
    received_at: Mapped[datetime] = mapped_column(UTCDateTime)
    # The site's local date of `received_at`: a site may number a ticket again another day.
    received_on: Mapped[date] = mapped_column(Date)
    # The city whose clerks reported it (the reporter's city scope); none: the whole site's.
    scope_jurisdiction_id: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("jurisdictions.id"))
    body: Mapped[dict] = mapped_column(JSON)
    submitted_by_client_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("oauth_clients.id"))
    # The person who confirmed the load, where a person's token did.
    submitted_by_person_id: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("people.id"))
    submitted_by_client: Mapped["OAuthClient"] = relationship(foreign_keys=[submitted_by_client_id], lazy="select")
    submitted_by_person: Mapped["Person | None"] = relationship(foreign_keys=[submitted_by_person_id], lazy="select")
    created_at: Mapped[datetime] = created()
    __table_args__ = (
        # One receipt a ticket a day for the whole site, and one for each city's clerks: a
        # city's clerks never take a ticket from another city's.
        Index(
            "uq_disposal_receipts_site_ticket_day",
            "site_id",
            "ticket_number",
            "received_on",
            unique=True,
            postgresql_where=text("scope_jurisdiction_id IS NULL"),
            sqlite_where=text("scope_jurisdiction_id IS NULL"),
        ),
        Index(
            "uq_disposal_receipts_city_ticket_day",
            "site_id",
            "ticket_number",
            "received_on",
            "scope_jurisdiction_id",
            unique=True,
            postgresql_where=text("scope_jurisdiction_id IS NOT NULL"),
            sqlite_where=text("scope_jurisdiction_id IS NOT NULL"),
        ),
        Index("ix_disposal_receipts_site_received", "site_id", "received_at"),
    )
