"""The registry: cities, FSEs and their permits and devices, haulers and disposal sites.

Registry facts that change over time (permit status, hauler licences and registrations,
disposal-site status) are kept as dated rows, never overwritten, so that a manifest is always
judged against the registry as it stood on its service date.
"""

import uuid
from datetime import date, datetime
from decimal import Decimal

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    CheckConstraint,
    Date,
    Float,
    ForeignKey,
    ForeignKeyConstraint,
    Index,
    Integer,
    String,
    Text,
    UniqueConstraint,
    false,
    text,
)
from sqlalchemy.orm import Mapped, declared_attr, mapped_column, relationship

from storage.base import INCHES, Base, UTCDateTime, created, pk


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
    # Where the city's text counts the longest interval in calendar months (Tracy, Colusa).
    interceptor_max_interval_months: Mapped[int | None] = mapped_column(Integer)
    # Days' notice before a device's new frequency takes effect (Victorville 10.03.080(c): 30).
    frequency_change_notice_days: Mapped[int] = mapped_column(Integer, server_default="30")
    # The shorter notice after an inspector's evaluation for non-compliance (San Clemente
    # 13.30.050(J): 14); None where the text gives none.
    frequency_change_notice_inspection_days: Mapped[int | None] = mapped_column(Integer)
    trap_default_frequency_days: Mapped[int] = mapped_column(Integer)
    # Days between the FSE's own cleanings of a trap, where the city's text sets them (its log).
    trap_daily_cleaning: Mapped[int | None] = mapped_column(Integer)
    # {"years": N, "longer": "refused" | "warned"} where the city's text limits a permit's term.
    permit_term: Mapped[dict | None] = mapped_column(JSON)
    allowed_frequencies: Mapped[list] = mapped_column(JSON)
    twenty_five_percent_rule: Mapped[float] = mapped_column(Float)
    full_pump_min_ratio: Mapped[float] = mapped_column(Float)
    min_interceptor_gallons: Mapped[int | None] = mapped_column(Integer)
    min_outlet_clearance_in: Mapped[float | None] = mapped_column(Float)
    grace_days: Mapped[int] = mapped_column(Integer)
    decant_return_allowed: Mapped[bool] = mapped_column(Boolean)
    # Days before a device's due day that its restaurant and hauler are reminded of it.
    reminder_days: Mapped[int] = mapped_column(Integer, server_default="14")
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
    # Where its notices go while no person holds a role on it (else the operator's address).
    contact_email: Mapped[str | None] = mapped_column(String(254))
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
        # A filing names its permit by number alone (services.filing.resolving.resolve).
        Index("ix_permits_permit_number", "permit_number"),
        CheckConstraint("kind IN ('interim', 'regular', 'variance', 'waiver')", name="kind"),
        CheckConstraint("expires_on > issued_on", name="expiry_after_issue"),
    )


class MadeBy:
    """Who recorded a dated registry fact: the caller's client and, for a person's token, the
    person; or the command line (`by_command`, e.g. `flask import permits`). All None on rows
    recorded before it was kept."""

    by_client_id: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("oauth_clients.id"))
    by_person_id: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("people.id"))
    by_command: Mapped[str | None] = mapped_column(String(200))

    @declared_attr
    def by_client(cls) -> Mapped["OAuthClient | None"]:
        return relationship(foreign_keys=[cls.by_client_id], lazy="select")

    @declared_attr
    def by_person(cls) -> Mapped["Person | None"]:
        return relationship(foreign_keys=[cls.by_person_id], lazy="select")


class PermitStatusChange(MadeBy, Base):
    __tablename__ = "permit_status_changes"
    id: Mapped[uuid.UUID] = pk()
    permit_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("permits.id"), index=True)
    status: Mapped[str] = mapped_column(String(20))
    effective_on: Mapped[date] = mapped_column(Date)
    reason: Mapped[str | None] = mapped_column(Text)
    # The day the permittee was given written notice of the change, where the city records it
    # (e.g. Victorville 10.03.320(b)(1): written notice of a proposed suspension or revocation).
    notice_on: Mapped[date | None] = mapped_column(Date)
    recorded_at: Mapped[datetime] = created()
    __table_args__ = (CheckConstraint("status IN ('active', 'suspended', 'revoked', 'expired')", name="status"),)


class Device(Base):
    """A grease control device (interceptor or trap) listed on a permit."""

    __tablename__ = "devices"
    id: Mapped[uuid.UUID] = pk()
    fse_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("fses.id"))
    permit_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("permits.id"), index=True)
    tag: Mapped[str] = mapped_column(String(40))
    kind: Mapped[str] = mapped_column(String(20))
    capacity_gallons: Mapped[int] = mapped_column(Integer)
    liquid_depth_in: Mapped[Decimal] = mapped_column(INCHES)
    frequency_days: Mapped[int] = mapped_column(Integer)
    # `assigned` by the city for this device, or `city_default`: the city's default for its kind.
    frequency_source: Mapped[str] = mapped_column(String(20), server_default="assigned")
    # The day it was put in service: its clock starts at the later of this and its first
    # permit's first day (None: at that first day).
    in_service_on: Mapped[date | None] = mapped_column(Date)
    # Retired from this day on (None: in service): never due nor missed from then on. Who
    # retired it is its `registry_changes` row.
    retired_on: Mapped[date | None] = mapped_column(Date)
    retired_reason: Mapped[str | None] = mapped_column(Text)
    # Where set, its frequency before any change runs in calendar months: the city's
    # "quarterly" default (Colusa 15A-16(C)(3), Tracy 5.26 (e)(3)), `frequency_days` its days.
    frequency_months: Mapped[int | None] = mapped_column(Integer)
    created_at: Mapped[datetime] = created()

    fse: Mapped[Fse] = relationship()
    permit: Mapped[Permit] = relationship()
    # The changes in force or scheduled; a withdrawn one counts nowhere.
    frequency_changes: Mapped[list["DeviceFrequencyChange"]] = relationship(
        order_by="DeviceFrequencyChange.effective_on",
        primaryjoin="and_(Device.id == DeviceFrequencyChange.device_id, DeviceFrequencyChange.withdrawn_at.is_(None))",
        viewonly=True,
    )
    # Every change recorded, the withdrawn ones too (what the device's view lists).
    frequency_changes_recorded: Mapped[list["DeviceFrequencyChange"]] = relationship(
        order_by="DeviceFrequencyChange.effective_on, DeviceFrequencyChange.recorded_at"
    )
    # The permits it was on before `permit`, each until a move (a renewal) took effect.
    permit_moves: Mapped[list["DevicePermitMove"]] = relationship(order_by="DevicePermitMove.effective_on")
    __table_args__ = (
        UniqueConstraint("fse_id", "tag"),
        CheckConstraint("kind IN ('interceptor', 'trap')", name="kind"),
        CheckConstraint("capacity_gallons > 0", name="capacity_positive"),
        CheckConstraint("liquid_depth_in > 0", name="depth_positive"),
        CheckConstraint("frequency_days > 0", name="frequency_positive"),
        CheckConstraint("frequency_source IN ('assigned', 'city_default')", name="frequency_source"),
        CheckConstraint("frequency_months > 0", name="frequency_months_positive"),
    )


class DeviceFrequencyChange(MadeBy, Base):
    """A device's frequency changed from `effective_on` on: the days before stay judged by the
    frequency then in force (`from_days` before the device's first change). Who made it, why,
    and the notice the permittee had, are kept here. A change withdrawn before it took effect
    (`withdrawn_at`) counts nowhere."""

    __tablename__ = "device_frequency_changes"
    id: Mapped[uuid.UUID] = pk()
    device_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("devices.id"))
    from_days: Mapped[int] = mapped_column(Integer)
    to_days: Mapped[int] = mapped_column(Integer)
    effective_on: Mapped[date] = mapped_column(Date)
    reason: Mapped[str] = mapped_column(Text)
    # The day the permittee was told; the notice period runs from it.
    noticed_on: Mapped[date] = mapped_column(Date)
    # Why the change takes effect before the city's notice period has run, where it does.
    sooner_because: Mapped[str | None] = mapped_column(Text)
    # Whether the change follows an inspector's evaluation for permit non-compliance (the
    # city's shorter notice then applies, where its text gives one).
    after_inspection: Mapped[bool] = mapped_column(Boolean, server_default=false())
    recorded_at: Mapped[datetime] = created()
    withdrawn_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    withdrawn_reason: Mapped[str | None] = mapped_column(Text)
    withdrawn_by_client_id: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("oauth_clients.id"))
    withdrawn_by_person_id: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("people.id"))
    withdrawn_by_client: Mapped["OAuthClient | None"] = relationship(
        foreign_keys=[withdrawn_by_client_id], lazy="select"
    )
    withdrawn_by_person: Mapped["Person | None"] = relationship(foreign_keys=[withdrawn_by_person_id], lazy="select")
    __table_args__ = (
        # One change in force a day for a device: the frequency in force on any day is one.
        Index(
            "uq_device_frequency_changes_device_day",
            "device_id",
            "effective_on",
            unique=True,
            sqlite_where=text("withdrawn_at IS NULL"),
            postgresql_where=text("withdrawn_at IS NULL"),
        ),
        CheckConstraint("to_days > 0", name="to_days_positive"),
        CheckConstraint("effective_on >= noticed_on", name="effective_after_notice"),
    )


class DevicePermitMove(MadeBy, Base):
    """A device listed on `to_permit_id` from `effective_on` on (a renewal is a new permit): the
    days before stay on `from_permit_id`, and a service on them is judged against it. Who moved
    it is kept here (and in its `registry_changes` row)."""

    __tablename__ = "device_permit_moves"
    id: Mapped[uuid.UUID] = pk()
    device_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("devices.id"), index=True)
    from_permit_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("permits.id"), index=True)
    to_permit_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("permits.id"))
    effective_on: Mapped[date] = mapped_column(Date)
    reason: Mapped[str] = mapped_column(Text)
    recorded_at: Mapped[datetime] = created()

    from_permit: Mapped[Permit] = relationship(foreign_keys=[from_permit_id])
    to_permit: Mapped[Permit] = relationship(foreign_keys=[to_permit_id])
    __table_args__ = (
        # One move a day for a device: the permit it is on, on any day, is one.
        UniqueConstraint("device_id", "effective_on"),
        CheckConstraint("from_permit_id <> to_permit_id", name="to_another_permit"),
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
    # Where its office's notices go while no admin or dispatcher of it has an account.
    contact_email: Mapped[str | None] = mapped_column(String(254))
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
    __table_args__ = (CheckConstraint("status IN ('valid', 'lapsed', 'suspended', 'revoked')", name="status"),)


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
    jurisdiction_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("jurisdictions.id"), primary_key=True)
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
        ForeignKeyConstraint(
            ["site_id", "jurisdiction_id"],
            ["disposal_site_jurisdictions.site_id", "disposal_site_jurisdictions.jurisdiction_id"],
            name="fk_disposal_site_status_changes_approval",
        ),
    )


class RegistryGeneration(Base):
    """One row whose number grows on every write to the haulers' and disposal sites' tables.

    Triggers keep it (migration 0004); a process may reuse the registry facts it read for as
    long as the number it reads stays the same.
    """

    __tablename__ = "registry_generation"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    generation: Mapped[int] = mapped_column(BigInteger)


class RegistryChange(Base):
    """Who changed the city's registry, and when: one row per write (an FSE, permit, device,
    hauler, vehicle or disposal site made or changed, or a CSV import), written in its
    transaction. The client is the caller's; the person, where a person's token made it."""

    __tablename__ = "registry_changes"
    id: Mapped[uuid.UUID] = pk()
    jurisdiction_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("jurisdictions.id"))
    at: Mapped[datetime] = created()
    action: Mapped[str] = mapped_column(String(40))
    subject_id: Mapped[uuid.UUID | None] = mapped_column()
    # The fields written (or, for an import, its counts).
    detail: Mapped[dict] = mapped_column(JSON)
    client_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("oauth_clients.id"))
    person_id: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("people.id"))
    client: Mapped["OAuthClient"] = relationship(foreign_keys=[client_id], lazy="select")
    person: Mapped["Person | None"] = relationship(foreign_keys=[person_id], lazy="select")
    __table_args__ = (Index("ix_registry_changes_jurisdiction", "jurisdiction_id", "at", "id"),)
