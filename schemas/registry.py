"""Registry bodies: FSEs, permits, devices, haulers, vehicles, disposal sites."""

import re

from marshmallow import EXCLUDE, Schema, ValidationError, fields, validate, validates_schema

PERMIT_KINDS = ("interim", "regular", "variance", "waiver")
PERMIT_STATUSES = ("active", "suspended", "revoked", "expired")
DEVICE_KINDS = ("interceptor", "trap")
WASTE_TYPES = ("grease_interceptor_waste", "grease_trap_waste")
LICENCE_STATUSES = ("valid", "lapsed", "suspended", "revoked")
SITE_STATUSES = ("approved", "suspended", "closed")
CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
# Half of a UTF-16 pair alone: JSON's "\ud800" escape reads as one, yet it is no character,
# and no UTF-8 text (a hash, a CSV, PostgreSQL) can hold it.
SURROGATE = re.compile(r"[\ud800-\udfff]")


def printable(value):
    """No control characters (tabs and newlines aside): they break CSVs, logs and PostgreSQL;
    and no lone surrogate, which is no character at all."""
    if CONTROL.search(value):
        raise ValidationError("Must not contain control characters.")
    if SURROGATE.search(value):
        raise ValidationError("Must be Unicode text: a lone UTF-16 surrogate (\\ud800 to \\udfff) is no character.")


def text(maximum, **kwargs):
    return fields.String(validate=[validate.Length(min=1, max=maximum), printable], **kwargs)


FULL_DATE = re.compile(r"\d{4}-\d{2}-\d{2}", re.ASCII)


class Day(fields.Date):
    """An RFC 3339 full-date, YYYY-MM-DD; marshmallow's own reading would also take the basic
    format (20260601) and week dates (2026-W22-1)."""

    def _deserialize(self, value, attr, data, **kwargs):
        if isinstance(value, str) and not FULL_DATE.fullmatch(value):
            raise self.make_error("invalid")
        return super()._deserialize(value, attr, data, **kwargs)


def contact_address(**kwargs):
    """An optional address the notices of a restaurant or hauler go to while it has no people;
    null clears it."""
    return fields.Email(validate=validate.Length(max=254), allow_none=True, **kwargs)


def positive_int(maximum=1_000_000, **kwargs):
    return fields.Integer(strict=True, validate=validate.Range(min=1, max=maximum), **kwargs)


class FseIn(Schema):
    name = text(200, required=True)
    address = text(300, required=True)
    apn = text(40, required=True)
    jurisdiction = text(40, required=True)
    operator_name = text(200, required=True)
    operator_email = fields.Email(required=True, validate=validate.Length(max=254))
    contact_email = contact_address()


class FseUpdate(Schema):
    name = text(200)
    address = text(300)
    apn = text(40)
    operator_name = text(200)
    operator_email = fields.Email(validate=validate.Length(max=254))
    contact_email = contact_address()


class PermitIn(Schema):
    permit_number = text(60, required=True)
    fse_id = fields.UUID(required=True)
    kind = fields.String(required=True, validate=validate.OneOf(PERMIT_KINDS))
    status = fields.String(load_default="active", validate=validate.OneOf(PERMIT_STATUSES))
    issued_on = Day(required=True)
    expires_on = Day(required=True)

    @validates_schema
    def _expiry_after_issue(self, data, **kwargs):
        if data.get("issued_on") and data.get("expires_on") and data["expires_on"] <= data["issued_on"]:
            raise ValidationError("Must be after issued_on.", "expires_on")


class StatusChange(Schema):
    """A status change takes effect on a date; nothing is overwritten."""

    effective_on = Day(required=True)
    reason = fields.String(validate=[validate.Length(max=2000), printable], load_default=None)
    # The day the permittee was given written notice of the change, where the city gave one.
    notice_on = Day(load_default=None)


class PermitUpdate(StatusChange):
    status = fields.String(required=True, validate=validate.OneOf(PERMIT_STATUSES))


def to_the_hundredth(value):
    # Depths are stored to the hundredth of an inch: a finer one is refused, never rounded.
    if value.normalize().as_tuple().exponent < -2:
        raise ValidationError("Give inches to the hundredth at most (e.g. 8.25).")


def depth(*, positive=False, **kwargs):
    """Inches as an exact decimal (8.3 is 8.3): the rules compare depths at their limits."""
    validators = [validate.Range(min=0, min_inclusive=not positive, max=600), to_the_hundredth]
    return fields.Decimal(allow_nan=False, validate=validators, **kwargs)


class DeviceIn(Schema):
    tag = text(40, required=True)
    kind = fields.String(required=True, validate=validate.OneOf(DEVICE_KINDS))
    capacity_gallons = positive_int(100_000, required=True)
    liquid_depth_in = depth(positive=True, required=True)
    # Absent or null: the city's default frequency for the kind (the device says so).
    frequency_days = positive_int(3650, load_default=None, allow_none=True)
    permit_number = text(60, required=True)
    # The day it was put in service (default the city's today): its clock starts at the later
    # of this and its permit's first day, so the days before are never charged.
    in_service_on = Day(load_default=None)


class RetirementIn(Schema):
    """A device out of service from a date on (not before the city's today), and why."""

    effective_on = Day(required=True)
    reason = text(2000, required=True)


class FrequencyChangeIn(Schema):
    """A device's new frequency, from a date on, with the notice the permittee had."""

    frequency_days = positive_int(3650, required=True)
    effective_on = Day(required=True)
    reason = text(2000, required=True)
    # The day the permittee was told (default today): the city's notice period runs from it.
    noticed_on = Day(load_default=None)
    # Why the change takes effect before the notice period has run, where it does.
    sooner_because = fields.String(validate=[validate.Length(max=2000), printable], load_default=None)
    # The change follows an inspector's evaluation for permit non-compliance: the city's
    # shorter notice applies where its text gives one (San Clemente 13.30.050(J)).
    after_inspection = fields.Boolean(load_default=False)


class FrequencyWithdrawalIn(Schema):
    """Why a scheduled frequency change is withdrawn before it takes effect."""

    reason = text(2000, required=True)


class PermitMoveIn(Schema):
    """The FSE's permit a device moves to (a renewal), from a date on."""

    permit_number = text(60, required=True)
    reason = text(2000, required=True)
    # Default: the later of the permit's first day and today.
    effective_on = Day(load_default=None)


class HaulerIn(Schema):
    name = text(200, required=True)
    licence_number = text(60, required=True)
    licence_expires_on = Day(required=True)
    # From when the registry vouches for the licence and the registration (default: today).
    licence_issued_on = Day()
    registered_on = Day()
    jurisdictions = fields.List(text(40), required=True, validate=validate.Length(min=1, max=50))
    contact_email = contact_address()


class HaulerUpdate(Schema):
    """The shared name, licence number or contact address (the owner city's to change), and the
    city's own licence renewal, lapse or suspension, in force from `effective_on`."""

    name = text(200)
    licence_number = text(60)
    contact_email = contact_address()
    effective_on = Day()
    licence_expires_on = Day()
    licence_status = fields.String(validate=validate.OneOf(LICENCE_STATUSES))

    @validates_schema
    def _dated(self, data, **kwargs):
        if not data:
            raise ValidationError("Name a field to change.", "$")
        if "effective_on" not in data and ({"licence_expires_on", "licence_status"} & data.keys()):
            raise ValidationError("Required with licence_expires_on or licence_status.", "effective_on")


class VehicleIn(Schema):
    vehicle_id = text(60, required=True)
    tank_capacity_gallons = positive_int(20_000, required=True)


class DisposalSiteIn(Schema):
    name = text(200, required=True)
    address = text(300, required=True)
    facility_permit_number = text(60, required=True)
    waste_types = fields.List(
        fields.String(validate=validate.OneOf(WASTE_TYPES)),
        required=True,
        validate=validate.Length(min=1, max=len(WASTE_TYPES)),
    )
    approved_from = Day(required=True)
    approved_until = Day(allow_none=True, load_default=None)
    status = fields.String(load_default="approved", validate=validate.OneOf(SITE_STATUSES))
    jurisdictions = fields.List(text(40), required=True, validate=validate.Length(min=1, max=50))

    @validates_schema
    def _until_after_from(self, data, **kwargs):
        if (
            data.get("approved_until")
            and data.get("approved_from")
            and (data["approved_until"] < data["approved_from"])
        ):
            raise ValidationError("Must not be before approved_from.", "approved_until")


class DisposalSiteUpdate(Schema):
    """The shared name or address (the owner city's to change), and a status change of the
    city's own approval, in force from `effective_on`."""

    name = text(200)
    address = text(300)
    status = fields.String(validate=validate.OneOf(SITE_STATUSES))
    effective_on = Day()
    reason = fields.String(validate=[validate.Length(max=2000), printable], load_default=None)

    @validates_schema
    def _dated(self, data, **kwargs):
        if not data.keys() - {"reason"}:
            raise ValidationError("Name a field to change.", "$")
        for given, needed in (("status", "effective_on"), ("effective_on", "status")):
            if given in data and needed not in data:
                raise ValidationError(f"Required with {given}.", needed)


class ListQuery(Schema):
    class Meta:
        unknown = EXCLUDE  # unknown query parameters are ignored, as HTTP clients expect

    """Filters and paging common to the registry lists."""

    status = fields.String(validate=validate.Length(max=20))
    jurisdiction = fields.String(validate=validate.Length(max=40))
    q = fields.String(validate=validate.Length(min=1, max=200))
    cursor = fields.String(validate=validate.Regexp(r"^[A-Za-z0-9_-]{22}$"))
    limit = fields.Integer(load_default=50, validate=validate.Range(min=1, max=200))
    as_of = Day()


class AsOfQuery(Schema):
    class Meta:
        unknown = EXCLUDE  # unknown query parameters are ignored, as HTTP clients expect

    as_of = Day()
