"""How the city is doing, month by month: the intervals missed, the late filings and the open
findings of each of the last months (the city's local months), and how many devices come due
within two weeks. Each figure is one grouped query, the three at the same time on PostgreSQL:
rows are counted in the database, never brought here."""

from datetime import date, timedelta

from sqlalchemy import case, func, literal, select

from domain.dates import start_of_day
from services.audit.lists import today, zone_of
from services.errors import Invalid
from storage import audit as queries
from storage import missed as missed_services
from storage.audit import day_number
from storage.db import all_rows
from storage.models import Fse

LATE = "late_submission"


def month_starts(last_day: date, months: int) -> list[date]:
    """The first day of each of the `months` months ending with the one `last_day` is in, and
    the first day of the month after (the end of the last)."""
    year, month = last_day.year, last_day.month
    first, end = year * 12 + month - months, year * 12 + month
    if first < 12 or end // 12 > date.max.year:  # a month before the year 1, or an end after 9999
        raise Invalid(
            "The months asked fall outside the years 1 to 9999.",
            errors={"as_of": [f"{months} months up to this date cannot be counted."]},
        )
    return [date(index // 12, index % 12 + 1, 1) for index in range(first, end + 1)]


def _bucket(value, bounds):
    """The index of the month `value` falls in (bounds: each month's start, then the end)."""
    return case(*((value < bound, index) for index, bound in enumerate(bounds[1:])), else_=literal(-1))


def trends(session, principal, *, months=12, as_of=None) -> dict:
    dialect = session.get_bind().dialect.name
    zone = zone_of(session, principal.jurisdiction_id)
    as_of = as_of or today(zone)
    starts = month_starts(as_of, months)
    # The year in four digits however early (strftime writes the year 193 as `193`).
    rows = [
        {"month": f"{start.year:04d}-{start.month:02d}", "missed_services": 0, "late_filings": 0, "findings": 0}
        for start in starts[:-1]
    ]

    missed = (
        missed_services.missed_intervals(starts[0], as_of, principal.jurisdiction_id, dialect=dialect, zone=zone)
        .order_by(None)
        .subquery("missed")
    )
    bucket = _bucket(missed.c.missed_day, [day_number(start) for start in starts]).label("bucket")
    missed_by_month = select(bucket, func.count()).where(missed.c.missed_day >= day_number(starts[0])).group_by(bucket)

    found = queries.findings_by_service(
        principal.jurisdiction_id, starts[0], starts[-1] - timedelta(days=1), zone
    ).subquery("found")
    bucket = _bucket(found.c.service_completed_at, [start_of_day(start, zone) for start in starts]).label("bucket")
    late = func.sum(case((found.c.code == LATE, 1), else_=0))
    found_by_month = select(bucket, func.count(), late).group_by(bucket)

    due = queries.device_due(
        as_of, dialect, manifest=False, where=[Fse.jurisdiction_id == principal.jurisdiction_id]
    ).subquery("due")
    due_soon_count = select(func.count()).where(due.c.status == "due_soon")

    # The year of gaps takes longest: the other two are worked out beside it.
    missed_rows, found_rows, due_rows = all_rows(session, [missed_by_month, found_by_month, due_soon_count])
    for index, count in missed_rows:
        if index >= 0:
            rows[index]["missed_services"] = count
    for index, count, late_count in found_rows:
        if index >= 0:
            rows[index]["findings"], rows[index]["late_filings"] = count, int(late_count or 0)
    return {"as_of": as_of.isoformat(), "time_zone": zone, "months": rows, "due_soon": due_rows[0][0]}
