"""Query arguments of the audit lists."""

from marshmallow import EXCLUDE, Schema, fields, validate

from domain import reconcile
from domain.checks import CODES
from domain.frequency import ENOUGH_INTERVALS
from schemas.registry import Day

FORMAT = fields.String(validate=validate.OneOf(("json", "csv")))


class Paging(Schema):
    class Meta:
        unknown = EXCLUDE  # unknown query parameters are ignored, as HTTP clients expect

    format = FORMAT
    cursor = fields.String(validate=validate.Regexp(r"^o[0-9]{1,9}$"))
    limit = fields.Integer(load_default=100, validate=validate.Range(min=1, max=1000))


class MissedQuery(Paging):
    as_of = Day()
    period_from = Day(data_key="from")
    period_to = Day(data_key="to")
    fse_id = fields.UUID()
    hauler_id = fields.UUID()
    status = fields.String(validate=validate.OneOf(("overdue", "missed", "never_serviced", "due_soon")))
    area = fields.String(validate=validate.Length(min=1, max=100))


class FindingsQuery(Paging):
    code = fields.String(validate=validate.OneOf(tuple(CODES)))
    severity = fields.String(validate=validate.OneOf(("violation", "warning")))
    hauler_id = fields.UUID()
    fse_id = fields.UUID()
    period_from = Day(data_key="from")
    period_to = Day(data_key="to")


class ScorecardQuery(Schema):
    class Meta:
        unknown = EXCLUDE  # unknown query parameters are ignored, as HTTP clients expect

    format = FORMAT
    period_from = Day(data_key="from")
    period_to = Day(data_key="to")


class DueQuery(Paging):
    within_days = fields.Integer(load_default=30, validate=validate.Range(min=0, max=365))
    as_of = Day()


class ReconciliationQuery(Paging):
    period_from = Day(data_key="from")
    period_to = Day(data_key="to")
    code = fields.String(validate=validate.OneOf(tuple(reconcile.CODES)))


class StatusQuery(Schema):
    class Meta:
        unknown = EXCLUDE  # unknown query parameters are ignored, as HTTP clients expect

    format = FORMAT
    as_of = Day()


class RecommendationQuery(Paging):
    as_of = Day()
    min_intervals = fields.Integer(load_default=ENOUGH_INTERVALS, validate=validate.Range(min=2, max=36))
    fse_id = fields.UUID()
    change = fields.String(validate=validate.OneOf(("shorten", "lengthen", "keep")))
