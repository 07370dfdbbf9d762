"""SQLAlchemy models for the whole domain.

Registry facts that change over time (permit status, hauler licences and registrations,
disposal-site status) are kept as dated rows, never overwritten, so that a manifest is always
judged against the registry as it stood on its service date.
"""
import uuid
from datetime import date, datetime, timezone

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    CheckConstraint,
    Date,
    DateTime,
    FetchedValue,
    Float,
    ForeignKey,
    ForeignKeyConstraint,
    Index,
    Integer,
    MetaData,
    String,
    Text,
    TypeDecorator,
    UniqueConstraint,
    Uuid,
    text,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, relationship
from ulid import ULID

NAMING = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


def new_id():
    """Opaque, time-ordered ids: ULIDs in UUID form, so cursors can order by id."""
    return ULID().to_uuid()


def unflushed(model, **values):
    """An instance with its attributes set as plain values, without the ORM's change events:
    for a row that a prebuilt statement writes rather than the unit of work. Its collections
    are plain lists until the session adopts it (`set_committed_value`)."""
    instance = model.__mapper__.class_manager.new_instance()
    instance.__dict__.update(values)
    return instance


def utcnow():
    return datetime.now(timezone.utc)


class UTCDateTime(TypeDecorator):
    """Aware datetimes in, aware UTC datetimes out, on SQLite as on PostgreSQL."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value, dialect):
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError("naive datetime given to a UTC column")
        value = value.astimezone(timezone.utc)
        return value.replace(tzinfo=None) if dialect.name == "sqlite" else value

    def process_result_value(self, value, dialect):
        if value is None:
            return None
        if value.tzinfo is None:
            return value.replace(tzinfo=timezone.utc)
        return value.astimezone(timezone.utc)


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING)
    type_annotation_map = {datetime: UTCDateTime, uuid.UUID: Uuid}


def pk():
    return mapped_column(Uuid, primary_key=True, default=new_id)


def created():
    return mapped_column(UTCDateTime, default=utcnow, nullable=False)


# Registry ---------------------------------------------------------------------------------


class Jurisdiction(Base):
    """A city or agency, its rule parameters and its citation of each rule."""

    __tablename__ = "jurisdictions"
    id: Mapped[uuid.UUID] = pk()
    code: Mapped[str] = mapped_column(String(40), unique=True)
    name: Mapped[str] = mapped_column(String(200))
    # IANA zone: the local date of an instant decides every rule that speaks of days.
    time_zone: Mapped[str] = mapped_column(String(64), server_default="America/Los_Angeles")
    manifest_deadline_hours: Mapped[int] = mapped_column(Integer)
    retention_years: Mapped[int] = mapped_column(Integer)
    interceptor_default_frequency_days: Mapped[int] = mapped_column(Integer)
    interceptor_max_interval_days: Mapped[int | None] = mapped_column(Integer)
    trap_default_frequency_days: Mapped[int] = mapped_column(Integer)
    allowed_frequencies: Mapped[list] = mapped_column(JSON)
    twenty_five_percent_rule: Mapped[float] = mapped_column(Float)
    full_pump_min_ratio: Mapped[float] = mapped_column(Float)
    min_interceptor_gallons: Mapped[int | None] = mapped_column(Integer)
    min_outlet_clearance_in: Mapped[float | None] = mapped_column(Float)
    grace_days: Mapped[int] = mapped_column(Integer)
    decant_return_allowed: Mapped[bool] = mapped_column(Boolean)
    citations: Mapped[dict] = mapped_column(JSON)
    created_at: Mapped[datetime] = created()


class Fse(Base):
    """A food service establishment."""

    __tablename__ = "fses"
    id: Mapped[uuid.UUID] = pk()
    jurisdiction_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("jurisdictions.id"), index=True)
    name: Mapped[str] = mapped_column(String(200))
    address: Mapped[str] = mapped_column(String(300))
    apn: Mapped[str] = mapped_column(String(40))
    operator_name: Mapped[str] = mapped_column(String(200))
    operator_email: Mapped[str] = mapped_column(String(254))
    created_at: Mapped[datetime] = created()
    updated_at: Mapped[datetime] = created()

    jurisdiction: Mapped[Jurisdiction] = relationship()
    __table_args__ = (UniqueConstraint("jurisdiction_id", "apn", "name"),)


class Permit(Base):
    """A FOG wastewater discharge permit; its status lives in `permit_status_changes`."""

    __tablename__ = "permits"
    id: Mapped[uuid.UUID] = pk()
    jurisdiction_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("jurisdictions.id"))
    fse_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("fses.id"), index=True)
    permit_number: Mapped[str] = mapped_column(String(60))
    kind: Mapped[str] = mapped_column(String(20))
    issued_on: Mapped[date] = mapped_column(Date)
    expires_on: Mapped[date] = mapped_column(Date)
    created_at: Mapped[datetime] = created()

    fse: Mapped[Fse] = relationship()
    jurisdiction: Mapped[Jurisdiction] = relationship()
    status_changes: Mapped[list["PermitStatusChange"]] = relationship(
        order_by="PermitStatusChange.effective_on, PermitStatusChange.recorded_at"
    )
    __table_args__ = (
        UniqueConstraint("jurisdiction_id", "permit_number"),
        # A filing names its permit by number alone (services.resolving.resolve).
        Index("ix_permits_permit_number", "permit_number"),
        CheckConstraint("kind IN ('interim', 'regular', 'variance', 'waiver')", name="kind"),
        CheckConstraint("expires_on > issued_on", name="expiry_after_issue"),
    )


class PermitStatusChange(Base):
    __tablename__ = "permit_status_changes"
    id: Mapped[uuid.UUID] = pk()
    permit_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("permits.id"), index=True)
    status: Mapped[str] = mapped_column(String(20))
    effective_on: Mapped[date] = mapped_column(Date)
    reason: Mapped[str | None] = mapped_column(Text)
    recorded_at: Mapped[datetime] = created()
    __table_args__ = (
        CheckConstraint(
            "status IN ('active', 'suspended', 'revoked', 'expired')", name="status"
        ),
    )


class Device(Base):
    """A grease control device (interceptor or trap) listed on a permit."""

    __tablename__ = "devices"
    id: Mapped[uuid.UUID] = pk()
    fse_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("fses.id"))
    permit_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("permits.id"), index=True)
    tag: Mapped[str] = mapped_column(String(40))
    kind: Mapped[str] = mapped_column(String(20))
    capacity_gallons: Mapped[int] = mapped_column(Integer)
    liquid_depth_in: Mapped[float] = mapped_column(Float)
    frequency_days: Mapped[int] = mapped_column(Integer)
    # `assigned` by the city for this device, or `city_default`: the city's default for its kind.
    frequency_source: Mapped[str] = mapped_column(String(20), server_default="assigned")
    created_at: Mapped[datetime] = created()

    fse: Mapped[Fse] = relationship()
    permit: Mapped[Permit] = relationship()
    __table_args__ = (
        UniqueConstraint("fse_id", "tag"),
        CheckConstraint("kind IN ('interceptor', 'trap')", name="kind"),
        CheckConstraint("capacity_gallons > 0", name="capacity_positive"),
        CheckConstraint("liquid_depth_in > 0", name="depth_positive"),
        CheckConstraint("frequency_days > 0", name="frequency_positive"),
        CheckConstraint("frequency_source IN ('assigned', 'city_default')", name="frequency_source"),
    )


class Hauler(Base):
    """A licensed waste hauler company: one record for every city. Its name and licence number
    are the city's that registered it first (`owner_jurisdiction_id`; no city when None); each
    city's approval of it (the licence as that city records it, its registrations, the vehicles
    it accepts) is that city's own rows, which no other city changes."""

    __tablename__ = "haulers"
    id: Mapped[uuid.UUID] = pk()
    name: Mapped[str] = mapped_column(String(200))
    licence_number: Mapped[str] = mapped_column(String(60), unique=True)
    owner_jurisdiction_id: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("jurisdictions.id"))
    created_at: Mapped[datetime] = created()

    owner: Mapped[Jurisdiction | None] = relationship()
    licences: Mapped[list["HaulerLicence"]] = relationship(
        order_by="HaulerLicence.effective_on, HaulerLicence.recorded_at"
    )
    registrations: Mapped[list["HaulerRegistration"]] = relationship()
    vehicles: Mapped[list["Vehicle"]] = relationship()


class HaulerLicence(Base):
    """The hauler's licence as one city records it, from `effective_on` on."""

    __tablename__ = "hauler_licences"
    id: Mapped[uuid.UUID] = pk()
    hauler_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("haulers.id"), index=True)
    jurisdiction_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("jurisdictions.id"))
    licence_number: Mapped[str] = mapped_column(String(60))
    expires_on: Mapped[date] = mapped_column(Date)
    # From this date on the row states the licence; a lapse is a row with status 'lapsed'.
    effective_on: Mapped[date] = mapped_column(Date)
    status: Mapped[str] = mapped_column(String(20), default="valid")
    recorded_at: Mapped[datetime] = created()
    __table_args__ = (
        CheckConstraint("status IN ('valid', 'lapsed', 'suspended', 'revoked')", name="status"),
    )


class HaulerRegistration(Base):
    __tablename__ = "hauler_registrations"
    id: Mapped[uuid.UUID] = pk()
    hauler_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("haulers.id"), index=True)
    jurisdiction_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("jurisdictions.id"))
    registered_on: Mapped[date] = mapped_column(Date)
    ended_on: Mapped[date | None] = mapped_column(Date)
    recorded_at: Mapped[datetime] = created()

    jurisdiction: Mapped[Jurisdiction] = relationship()


class Vehicle(Base):
    """A truck one city accepts for the hauler."""

    __tablename__ = "vehicles"
    id: Mapped[uuid.UUID] = pk()
    hauler_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("haulers.id"))
    jurisdiction_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("jurisdictions.id"))
    vehicle_id: Mapped[str] = mapped_column(String(60))
    tank_capacity_gallons: Mapped[int] = mapped_column(Integer)
    created_at: Mapped[datetime] = created()

    jurisdiction: Mapped[Jurisdiction] = relationship()
    __table_args__ = (
        UniqueConstraint("hauler_id", "jurisdiction_id", "vehicle_id"),
        CheckConstraint("tank_capacity_gallons > 0", name="tank_positive"),
    )


class DisposalSite(Base):
    """A disposal or recycling facility: one record for every city. Its name, address and
    facility permit number are the city's that approved it first; each city's approval of it
    (dates, status, the waste types it may take) is that city's `approvals` row."""

    __tablename__ = "disposal_sites"
    id: Mapped[uuid.UUID] = pk()
    name: Mapped[str] = mapped_column(String(200))
    address: Mapped[str] = mapped_column(String(300))
    facility_permit_number: Mapped[str] = mapped_column(String(60), unique=True)
    owner_jurisdiction_id: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("jurisdictions.id"))
    created_at: Mapped[datetime] = created()

    owner: Mapped[Jurisdiction | None] = relationship()
    approvals: Mapped[list["DisposalSiteJurisdiction"]] = relationship()


class DisposalSiteJurisdiction(Base):
    """One city's approval of a disposal site; its status changes are dated rows."""

    __tablename__ = "disposal_site_jurisdictions"
    site_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("disposal_sites.id"), primary_key=True)
    jurisdiction_id: Mapped[uuid.UUID] = mapped_column(
        ForeignKey("jurisdictions.id"), primary_key=True
    )
    waste_types: Mapped[list] = mapped_column(JSON)
    approved_from: Mapped[date] = mapped_column(Date)
    approved_until: Mapped[date | None] = mapped_column(Date)
    created_at: Mapped[datetime] = created()

    jurisdiction: Mapped[Jurisdiction] = relationship()
    status_changes: Mapped[list["DisposalSiteStatusChange"]] = relationship(
        order_by="DisposalSiteStatusChange.effective_on, DisposalSiteStatusChange.recorded_at"
    )


class DisposalSiteStatusChange(Base):
    __tablename__ = "disposal_site_status_changes"
    id: Mapped[uuid.UUID] = pk()
    site_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("disposal_sites.id"), index=True)
    jurisdiction_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("jurisdictions.id"))
    status: Mapped[str] = mapped_column(String(20))
    effective_on: Mapped[date] = mapped_column(Date)
    reason: Mapped[str | None] = mapped_column(Text)
    recorded_at: Mapped[datetime] = created()
    __table_args__ = (
        CheckConstraint("status IN ('approved', 'suspended', 'closed')", name="status"),
        # A status is one city's word on its own approval.
        ForeignKeyConstraint(["site_id", "jurisdiction_id"],
                             ["disposal_site_jurisdictions.site_id",
                              "disposal_site_jurisdictions.jurisdiction_id"],
                             name="fk_disposal_site_status_changes_approval"),
    )


class RegistryGeneration(Base):
    """One row whose number grows on every write to the haulers' and disposal sites' tables.

    Triggers keep it (migration 0004); a process may reuse the registry facts it read for as
    long as the number it reads stays the same.
    """

    __tablename__ = "registry_generation"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    generation: Mapped[int] = mapped_column(BigInteger)


# Manifests --------------------------------------------------------------------------------


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
        Index("ix_manifests_corrected", "jurisdiction_id",
              postgresql_where=text("current_revision > 1"), sqlite_where=text("current_revision > 1")),
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
    submitted_by_client_id: Mapped[uuid.UUID | None] = mapped_column(
        ForeignKey("oauth_clients.id")
    )
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
    fog_depth_in: Mapped[float | None] = mapped_column(Float)
    solids_depth_in: Mapped[float | None] = mapped_column(Float)
    # From the top of the grease or sludge to the discharge elbow, where the hauler measured it.
    outlet_clearance_in: Mapped[float | None] = mapped_column(Float)
    # Whether this revision counts as a qualifying service.
    qualifying: Mapped[bool] = mapped_column(Boolean)
    # Who pumped and where the load went, as the registry named them when this revision was
    # filed (Victorville 10.03.170(c)): a later rename or licence does not rewrite the record.
    hauler_name: Mapped[str | None] = mapped_column(String(200))
    hauler_licence_number: Mapped[str | None] = mapped_column(String(60))
    disposal_site_name: Mapped[str | None] = mapped_column(String(200))
    disposal_site_address: Mapped[str | None] = mapped_column(String(300))

    manifest: Mapped[Manifest] = relationship(back_populates="revisions")
    findings: Mapped[list["Finding"]] = relationship(order_by="Finding.raised_at, Finding.code")
    __table_args__ = (
        UniqueConstraint("manifest_id", "revision"),
        Index("ix_revisions_device_completed", "device_id", "service_completed_at"),
        Index("ix_revisions_ticket", "disposal_site_id", "disposal_ticket_number"),
        # Each device's last qualifying service, found by one backward probe (the audit queries).
        Index("ix_revisions_qualifying", "device_id", "service_completed_at",
              postgresql_where=text("qualifying"), sqlite_where=text("qualifying"),
              postgresql_include=["manifest_id", "revision"]),
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
    (`services.changes`). It names the manifest without a foreign key: the entry that says
    a manifest was purged outlives it."""

    __tablename__ = "changes"
    seq: Mapped[int] = mapped_column(BigInteger().with_variant(Integer, "sqlite"), primary_key=True,
                                     autoincrement=True)
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
    body: Mapped[dict] = mapped_column(JSON)
    submitted_by_client_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("oauth_clients.id"))
    created_at: Mapped[datetime] = created()
    __table_args__ = (
        UniqueConstraint("site_id", "ticket_number", "received_on"),
        Index("ix_disposal_receipts_site_received", "site_id", "received_at"),
    )


class Webhook(Base):
    """A client's subscription to its change feed, delivered by POST to `url` (signed with
    `secret`) from `cursor` on. Claimed for a delivery by a lease, not a row lock: a lock held
    while the receiver answers would hold back every feed (`services.changes`)."""

    __tablename__ = "webhooks"
    id: Mapped[uuid.UUID] = pk()
    client_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("oauth_clients.id"), index=True)
    url: Mapped[str] = mapped_column(String(2000))
    description: Mapped[str | None] = mapped_column(String(200))
    # The HMAC key of a webhook made before secrets were derived (`services.webhooks.secret_of`);
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


# Plumbing ---------------------------------------------------------------------------------


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
ONE_SUBJECT = (
    "(role = 'hauler' AND hauler_id IS NOT NULL AND jurisdiction_id IS NULL AND site_id IS NULL)"
    " OR (role = 'fse' AND hauler_id IS NULL AND jurisdiction_id IS NULL AND site_id IS NULL)"
    " OR (role IN ('auditor', 'admin') AND jurisdiction_id IS NOT NULL AND hauler_id IS NULL"
    " AND site_id IS NULL)"
    " OR (role = 'site' AND site_id IS NOT NULL AND hauler_id IS NULL AND jurisdiction_id IS NULL)"
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

