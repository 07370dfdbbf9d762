"""The FSE's maintenance log on the wire: an entry as a restaurant's people write it, and as
anyone within reach reads it."""

from marshmallow import EXCLUDE, Schema, ValidationError, fields, validate, validates_schema

from domain.presets import basis_of
from schemas.actors import actor_view
from schemas.registry import Day, printable, text

# A judged period is at most a year of days: one page a person can read.
LONGEST_PERIOD_DAYS = 366


class CleaningIn(Schema):
    device_id = fields.UUID(required=True)
    cleaned_on = Day(required=True)
    cleaned_by = text(200, required=True)
    note = fields.String(load_default=None, allow_none=True, validate=[validate.Length(max=2000), printable])


class LogQuery(Schema):
    class Meta:
        unknown = EXCLUDE  # unknown query parameters are ignored, as HTTP clients expect

    day_from = Day(data_key="from")
    day_to = Day(data_key="to")
    device_id = fields.UUID()

    @validates_schema
    def _a_period_in_order(self, data, **kwargs):
        start, end = data.get("day_from"), data.get("day_to")
        if start and end and end < start:
            raise ValidationError("Must not be before `from`.", "to")
        if start and end and (end - start).days >= LONGEST_PERIOD_DAYS:
            raise ValidationError(f"A period is at most {LONGEST_PERIOD_DAYS} days.", "to")


def cleaning_view(entry, device_tag: str) -> dict:
    return {
        "id": str(entry.id),
        "fse_id": str(entry.fse_id),
        "device_id": str(entry.device_id),
        "device_tag": device_tag,
        "cleaned_on": entry.cleaned_on.isoformat(),
        "cleaned_by": entry.cleaned_by,
        "note": entry.note,
        "recorded_at": entry.recorded_at.isoformat().replace("+00:00", "Z"),
        "recorded_by": actor_view(entry.recorded_by_client, entry.recorded_by_person),
    }


def log_view(log) -> dict:
    """A period of the log (`services.records.maintenance.Log`): its entries, the city's rule where its
    text sets one, and each day a trap went without the cleaning it asks."""
    rule = (
        None
        if not log.every_days
        else {"every_days": log.every_days, "citation": log.citation, "basis": basis_of(log.citation)}
    )
    return {
        "fse_id": str(log.fse.id),
        "from": log.day_from.isoformat(),
        "to": log.day_to.isoformat(),
        "rule": rule,
        "items": [cleaning_view(entry, tag) for entry, tag in log.entries],
        "missing": [
            {"device_id": str(device.id), "device_tag": device.tag, "day": day.isoformat(), "citation": log.citation}
            for device, day in log.missing
        ],
    }
