"""Query arguments of the records export."""
from marshmallow import EXCLUDE, Schema, fields, validate


class RecordQuery(Schema):
    class Meta:
        unknown = EXCLUDE  # unknown query parameters are ignored, as HTTP clients expect

    format = fields.String(validate=validate.OneOf(("json", "csv", "pdf", "zip")))
    period_from = fields.Date(data_key="from")
    period_to = fields.Date(data_key="to")
