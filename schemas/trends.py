"""The query of the city's monthly trends."""

from marshmallow import EXCLUDE, Schema, fields, validate

from schemas.registry import Day


class TrendsQuery(Schema):
    class Meta:
        unknown = EXCLUDE  # unknown query parameters are ignored, as HTTP clients expect

    months = fields.Integer(load_default=12, validate=validate.Range(min=1, max=36))
    as_of = Day()
