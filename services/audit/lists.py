"""Audit use cases: each list answers as a `Listing`, rows from one set-based query in
`storage.audit` or worked out as they are read, which the view pages or writes as CSV."""

import functools
import itertools
import re
import uuid
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta

from sqlalchemy import exists, func, select

from domain import frequency, words
from domain.amounts import number
from domain.clock import now as clock_now
from domain.dates import local_date
from domain.device_rules import longest_interval_days
from reports import table_csv
from services.errors import Invalid, NotFound
from storage import accumulation, missed, reach, sheets
from storage import audit as queries
from storage.audit import from_day_number
from storage.db import streamed
from storage.models import Fse, Hauler, HaulerRegistration, Jurisdiction, Manifest
from storage.prebuilt import fetch_all

DAY_COLUMNS = ("last_service_day", "due_day", "from_day", "missed_day", "serviced_day")


def encode_offset(offset: int) -> str:
    return f"o{offset}"


def decode_offset(cursor: str | None) -> int:
    if not cursor:
        return 0
    if not re.fullmatch(r"o[0-9]{1,9}", cursor):
        raise Invalid("The cursor is not one this API gave out.", errors={"cursor": ["Not a valid cursor."]})
    return int(cursor[1:])


@functools.lru_cache(maxsize=8192)
def _iso_day(number):
    return from_day_number(number).isoformat()


def _iso_moment(value):
    return value.isoformat().replace("+00:00", "Z")


# How each kind of value reads in JSON; looked up by type, once per cell.
_AS_JSON = {uuid.UUID: str, datetime: _iso_moment, date: date.isoformat}


def plain_rows(rows) -> list[dict]:
    """Result rows as JSON-ready data: day numbers as ISO dates, ids as text."""
    return list(json_ready(rows))


def json_ready(rows):
    """`plain_rows` one at a time. The column names are mapped once per result, not once per
    row: a thousand-row page spends its time in the database, not here."""
    names = None
    for row in rows:
        if names is None:
            keys = list(row._fields)
            names = [key.replace("_day", "_on") if key in DAY_COLUMNS else key for key in keys]
            days = [key in DAY_COLUMNS for key in keys]
        item = {}
        for name, is_day, value in zip(names, days, row):
            if value is not None:
                if is_day:
                    value = _iso_day(value)
                else:
                    convert = _AS_JSON.get(type(value))
                    if convert is not None:
                        value = convert(value)
            item[name] = value
        yield item


def every_row(session, query):
    """The whole list, JSON-ready, as the database sends it (for a sheet)."""
    return json_ready(streamed(session, query))


def sheet(session, query, *, zone):
    """The whole list as CSV, its instants in `zone`: written by PostgreSQL where it can be
    (storage/sheets.py), else from its rows here, cell for cell alike."""
    copied = sheets.sheet(session.get_bind(), query, zone=zone)
    return copied if copied is not None else table_csv.render(every_row(session, query), zone=zone)


def run_page(session, query, *, cursor=None, limit=None):
    """All rows (limit None) or a page of them and the next cursor."""
    if limit is None:
        return plain_rows(session.execute(query)), None
    offset = decode_offset(cursor)
    rows = fetch_all(session.connection(), query.offset(offset).limit(limit + 1), ids_as_text=True)
    more = len(rows) > limit
    return plain_rows(rows[:limit]), encode_offset(offset + limit) if more else None


@dataclass(frozen=True)
class Listing:
    """A list as its use case found it: `query` (a select the database pages or writes as CSV)
    or `rows` (worked out as they are read, so only what a page needs is). The view asks for a
    page or the sheet, once; nothing is handed back down."""

    session: object
    name: str  # the sheet's file name, without `.csv`
    zone: Callable[[], str | None]  # the time zone the sheet's instants are written in
    basis: dict = field(default_factory=dict)  # what the list is of, beside its items
    query: object = None
    rows: Iterable | None = None
    summary: Callable[[], dict] | None = None  # figures a page carries beside its items
    copied: bool = True  # a query's sheet written by the database where it can be

    def page(self, *, cursor=None, limit=None) -> dict:
        """A page (all of it when `limit` is None), its next cursor, and the list's basis."""
        if self.query is not None:
            items, next_cursor = run_page(self.session, self.query, cursor=cursor, limit=limit)
        elif limit is None:
            items, next_cursor = list(self.rows), None
        else:
            items, next_cursor = page_of(self.rows, cursor=cursor, limit=limit)
        return {**self.basis, **(self.summary() if self.summary else {}), "items": items, "next_cursor": next_cursor}

    def sheet(self):
        """The whole list as CSV, a stream of text or bytes."""
        if self.query is None:
            return table_csv.render(self.rows, zone=self.zone())
        if not self.copied:
            return table_csv.render(run_page(self.session, self.query)[0], zone=self.zone())
        return sheet(self.session, self.query, zone=self.zone())


def caller_zone(session, principal) -> str | None:
    """The caller's city's time zone (a hauler's: its first city's)."""
    if principal.jurisdiction_id:
        return zone_of(session, principal.jurisdiction_id)
    return hauler_zone(session, principal.hauler_id)


def today(zone: str | None = None):
    """Today in the city's time zone `zone`: the day its FOG manager would write."""
    return local_date(clock_now(), zone)


def zone_of(session, jurisdiction_id) -> str:
    return session.scalar(select(Jurisdiction.time_zone).where(Jurisdiction.id == jurisdiction_id))


def hauler_zone(session, hauler_id) -> str | None:
    """The time zone of the cities the hauler is registered in (the first, should they differ)."""
    return session.scalar(
        select(func.min(Jurisdiction.time_zone))
        .join(HaulerRegistration, HaulerRegistration.jurisdiction_id == Jurisdiction.id)
        .where(HaulerRegistration.hauler_id == hauler_id)
    )


def missed_services(session, principal, *, as_of=None, period_from=None, period_to=None, **filters) -> Listing:
    """Devices past due on the city's day `as_of` (today by default), or every interval missed
    in the period `from`-`to` (local days)."""
    zone = functools.cache(lambda: zone_of(session, principal.jurisdiction_id))
    if period_from or period_to:
        # A period open at one end runs to today, or back one quarter from its end.
        period_to = period_to or today(zone())
        period_from = period_from or period_to - timedelta(days=91)
        if period_to < period_from:
            raise Invalid("The period ends before it starts.", errors={"to": ["Must not be before from."]})
        filters.pop("status", None)
        query = missed.missed_intervals(
            period_from, period_to, principal.jurisdiction_id, dialect=_dialect(session), zone=zone(), **filters
        )
        basis = {"mode": "intervals", "from": period_from.isoformat(), "to": period_to.isoformat()}
    else:
        as_of = as_of or today(zone())
        query = queries.missed_as_of(as_of, principal.jurisdiction_id, dialect=_dialect(session), **filters)
        basis = {"mode": "as_of", "as_of": as_of.isoformat()}
    return Listing(session, f"missed-services-{basis['mode']}", zone, basis, query=query)


def findings(session, principal, **filters) -> Listing:
    """The city's findings, in the order they were raised on services; a page counts them by code."""
    zone = zone_of(session, principal.jurisdiction_id)
    query = queries.findings(principal.jurisdiction_id, zone=zone, **filters)

    def counts():
        return {"counts": {code: count for code, count in session.execute(queries.counts_by_code(query))}}

    ordered = query.order_by("service_completed_at", "finding_id")
    return Listing(session, "findings", lambda: zone, query=ordered, summary=counts)


def scorecard(session, principal, *, hauler_id, period_from=None, period_to=None) -> dict:
    period_to = period_to or today(zone_of(session, principal.jurisdiction_id))
    period_from = period_from or period_to - timedelta(days=365)
    known = session.scalar(
        select(Hauler.id).where(
            Hauler.id == hauler_id,
            (
                exists().where(
                    HaulerRegistration.hauler_id == Hauler.id,
                    HaulerRegistration.jurisdiction_id == principal.jurisdiction_id,
                )
                | exists().where(Manifest.hauler_id == Hauler.id, Manifest.jurisdiction_id == principal.jurisdiction_id)
            ),
        )
    )
    if known is None:
        raise NotFound("No such hauler within your reach.")
    hauler = session.get(Hauler, hauler_id)
    row = session.execute(
        queries.scorecard(
            principal.jurisdiction_id,
            hauler_id,
            period_from,
            period_to,
            zone=zone_of(session, principal.jurisdiction_id),
        )
    ).one()
    figures = dict(row._mapping)
    filed = figures["manifests"]
    return {
        "hauler_id": str(hauler.id),
        "hauler_name": hauler.name,
        "period": {"from": period_from.isoformat(), "to": period_to.isoformat()},
        **figures,
        "on_time_share": round((filed - figures["late_submissions"]) / filed, 4) if filed else None,
        "qualifying_share": round(figures["qualifying"] / filed, 4) if filed else None,
    }


def scorecard_sheet(session, principal, *, hauler_id, **period) -> Listing:
    """The scorecard as a sheet of one row, its period in two columns."""
    card = scorecard(session, principal, hauler_id=hauler_id, **period)
    row = {
        **{k: v for k, v in card.items() if k != "period"},
        "from": card["period"]["from"],
        "to": card["period"]["to"],
    }
    return Listing(session, "scorecard", lambda: caller_zone(session, principal), rows=[row])


def due_for_hauler(session, principal, *, within_days, as_of=None) -> Listing:
    zone = functools.cache(lambda: hauler_zone(session, principal.hauler_id))
    as_of = as_of or today(zone())
    query = queries.due_for_hauler(
        as_of, principal.hauler_id, within_days, dialect=_dialect(session), jurisdiction_id=reach.city_scope(principal)
    )
    return Listing(session, "due", zone, {"within_days": within_days}, query=query)


def fse_status(session, principal, *, fse: Fse, as_of=None) -> Listing:
    """The status of each of the FSE's devices on a day: today in its city by default."""
    as_of = as_of or today(zone_of(session, fse.jurisdiction_id))
    return Listing(
        session,
        "service-status",
        lambda: caller_zone(session, principal),
        {"fse_id": str(fse.id), "as_of": as_of.isoformat()},
        query=queries.fse_status(as_of, fse.id, dialect=_dialect(session)),
        copied=False,
    )


def frequency_recommendations(
    session, principal, *, as_of=None, min_intervals=frequency.ENOUGH_INTERVALS, fse_id=None, change=None
) -> Listing:
    """One row per interceptor with enough measured intervals: its average accumulation and
    the frequency it supports (domain.frequency), worked out as they are read, so that a page
    or a sheet starts before the city's last device is read."""
    city = session.get(Jurisdiction, principal.jurisdiction_id)
    as_of = as_of or today(city.time_zone)
    cited = frequency.citation(city.code, city.citations)
    query = accumulation.measured_accumulation(
        as_of, principal.jurisdiction_id, min_intervals=min_intervals, dialect=_dialect(session), fse_id=fse_id
    )

    def rows():
        for row in streamed(session, query):
            measured = frequency.Accumulation(intervals=row.intervals, inches=row.inches, days=row.days)
            advice = frequency.recommend(
                measured,
                liquid_depth_in=row.liquid_depth_in,
                limit_share=city.twenty_five_percent_rule,
                current_days=row.frequency_days,
                allowed=city.allowed_frequencies,
                max_interval_days=longest_interval_days(city),
            )
            if not change or advice.change == change:
                yield _recommendation(row, city, measured, advice, cited)

    return Listing(
        session,
        "frequency-recommendations",
        lambda: city.time_zone,
        {"as_of": as_of.isoformat(), "min_intervals": min_intervals},
        rows=rows(),
    )


def _recommendation(row, city, measured, advice, cited) -> dict:
    return {
        "fse_id": str(row.fse_id),
        "fse_name": row.fse_name,
        "address": row.address,
        "permit_number": row.permit_number,
        "device_id": str(row.device_id),
        "device_tag": row.device_tag,
        "liquid_depth_in": number(row.liquid_depth_in),
        "frequency_days": row.frequency_days,
        "measured_intervals": row.intervals,
        "measured_from": _iso_day(row.from_day),
        "measured_to": _iso_day(row.to_day),
        "accumulation_in_per_day": round(measured.inches_per_day, 4),
        "days_to_limit": measured.days_to(city.twenty_five_percent_rule, row.liquid_depth_in),
        "share_at_frequency": round(measured.share_after(row.frequency_days, row.liquid_depth_in), 3),
        "recommended_frequency_days": advice.frequency_days,
        "change": advice.change,
        "change_words": words.change(advice.change),
        "citation": cited,
    }


def page_of(rows, *, cursor=None, limit=100):
    """A page of rows computed here rather than in SQL (a list or rows as they are worked
    out: only as many are worked out as the page needs), and the next cursor."""
    offset = decode_offset(cursor)
    taken = list(itertools.islice(rows, offset, offset + limit + 1))
    if hasattr(rows, "close"):
        rows.close()  # what the page did not need is not read
    more = len(taken) > limit
    return taken[:limit], encode_offset(offset + limit) if more else None


def _dialect(session):
    return session.get_bind().dialect.name
