"""The manifest body: names are the contract, units are in the names."""

import re
from datetime import UTC, datetime, timedelta
from decimal import Decimal

from marshmallow import EXCLUDE, Schema, ValidationError, fields, validate, validates_schema

from domain.checks import CODES
from schemas.registry import FULL_DATE, WASTE_TYPES, Day, depth, printable, text

EARLIEST = datetime(2000, 1, 1, tzinfo=UTC)
MAX_SERVICE = timedelta(hours=48)


# RFC 3339 section 5.6 (a space for the T, as its note allows); Python's own ISO reading would
# also take week dates, the basic format and a character between the time and its offset.
RFC3339 = re.compile(FULL_DATE.pattern + r"[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})", re.ASCII)


class When(fields.AwareDateTime):
    """RFC 3339 with an offset; kept in UTC; no earlier than 2000."""

    def __init__(self, **kwargs):
        super().__init__(format="iso", **kwargs)

    def _deserialize(self, value, attr, data, **kwargs):
        if isinstance(value, str) and not (len(value) <= 40 and RFC3339.fullmatch(value)):
            raise ValidationError("Not a valid RFC 3339 date-time.")
        moment = super()._deserialize(value, attr, data, **kwargs)
        if moment < EARLIEST:
            raise ValidationError("Must not be before 2000-01-01.")
        return moment.astimezone(UTC)


def gallons(maximum=100_000, **kwargs):
    return fields.Integer(strict=True, validate=validate.Range(min=0, max=maximum), **kwargs)


class Flag(fields.Boolean):
    """true or false as JSON writes them: not 1, 0 or "yes" (1 == True in a truthy set)."""

    def _deserialize(self, value, attr, data, **kwargs):
        if not isinstance(value, bool):
            raise self.make_error("invalid", input=value)
        return value


class Measurements(Schema):
    """Depths before pumping, in inches."""

    fog_depth_in = depth(required=True)
    solids_depth_in = depth(required=True)
    liquid_depth_in = depth(load_default=None)
    # From the top of the grease or sludge to the discharge elbow; absent when not measured.
    outlet_clearance_in = depth()


class Disposal(Schema):
    site_id = fields.UUID(required=True)
    ticket_number = text(60, required=True)
    delivered_at = When(required=True)
    gallons_delivered = gallons(required=True)


class ManifestIn(Schema):
    manifest_number = text(60, required=True)
    permit_number = text(60, required=True)
    device_tag = text(40, required=True)
    vehicle_id = text(60, required=True)
    driver_name = text(200, required=True)
    service_started_at = When(required=True)
    service_completed_at = When(required=True)
    waste_type = fields.String(required=True, validate=validate.OneOf(WASTE_TYPES))
    gallons_removed = gallons(required=True)
    decant_returned_gallons = gallons(load_default=0)
    full_pump_down = Flag(required=True)
    measurements = fields.Nested(Measurements, load_default=None, allow_none=True)
    fse_signer_name = text(200, required=True)
    disposal = fields.Nested(Disposal, load_default=None, allow_none=True)

    @validates_schema
    def _times_in_order(self, data, **kwargs):
        started, completed = data.get("service_started_at"), data.get("service_completed_at")
        if started and completed and completed < started:
            raise ValidationError("Must not be before service_started_at.", "service_completed_at")
        if started and completed and completed - started > MAX_SERVICE:
            raise ValidationError("A service cannot last more than 48 hours.", "service_completed_at")


class CorrectionIn(ManifestIn):
    reason = fields.String(required=True, validate=[validate.Length(min=1, max=2000), printable])


class ManifestQuery(Schema):
    class Meta:
        unknown = EXCLUDE  # unknown query parameters are ignored, as HTTP clients expect

    fse_id = fields.UUID()
    permit_number = fields.String(validate=validate.Length(max=60))
    device_id = fields.UUID()
    finding = fields.String(validate=validate.OneOf(tuple(CODES)))
    status = fields.String(validate=validate.OneOf(("accepted", "accepted_with_findings")))
    service_from = Day(data_key="from")
    service_to = Day(data_key="to")
    cursor = fields.String(validate=validate.Regexp(r"^[A-Za-z0-9_-]{22}$"))
    limit = fields.Integer(load_default=50, validate=validate.Range(min=1, max=200))


def canonical(data: dict) -> dict:
    """The loaded body as JSON-ready data: UTC times with a Z, ids as text, keys as sent."""

    def plain(value):
        if isinstance(value, dict):
            return {k: plain(v) for k, v in value.items()}
        if isinstance(value, datetime):
            return value.astimezone(UTC).isoformat().replace("+00:00", "Z")
        if value is None or isinstance(value, (bool, int, float, str)):
            return value
        if isinstance(value, Decimal):
            return float(value)  # a JSON number that prints as the decimal sent (8.3)
        return str(value)

    return plain(data)
