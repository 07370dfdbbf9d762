"""Query arguments of the records export."""
from marshmallow import Schema, fields, validate


class RecordQuery(Schema):
    format = fields.String(validate=validate.OneOf(("json", "csv", "pdf", "zip")))
    period_from = fields.Date(data_key="from")
    period_to = fields.Date(data_key="to")
