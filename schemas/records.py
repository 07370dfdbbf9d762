"""Query arguments of the records export."""

from marshmallow import EXCLUDE, Schema, fields, validate

from schemas.registry import Day


class RecordQuery(Schema):
    class Meta:
        unknown = EXCLUDE  # unknown query parameters are ignored, as HTTP clients expect

    format = fields.String(validate=validate.OneOf(("json", "csv", "pdf", "zip")))
    period_from = Day(data_key="from")
    period_to = Day(data_key="to")
