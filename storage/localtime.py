"""The city's local day of a stored instant, in SQL, on PostgreSQL and SQLite alike.

PostgreSQL reads IANA zones itself (`AT TIME ZONE`); SQLite has none, so each SQLite
connection is given two small functions (`register`) that ask Python's zoneinfo.
"""

from datetime import UTC, date, datetime

from sqlalchemy import Boolean, Date, Integer, String
from sqlalchemy.ext.compiler import compiles
from sqlalchemy.sql.expression import FunctionElement

from domain.dates import local_date as _local_date
from domain.dates import start_of_day as _start_of_day

# How SQLAlchemy writes a DateTime on SQLite: a day starting there compares as text.
_SQLITE_STAMP = "%Y-%m-%d %H:%M:%S.%f"


class local_date(FunctionElement):
    """The local date, in zone `zone` (a column or a value), of a UTC timestamp column."""

    type = Date()
    inherit_cache = True
    name = "local_date"


class local_day(FunctionElement):
    """Whole days since 2000-01-01 of the local date, in zone `zone`, of a UTC timestamp."""

    type = Integer()
    inherit_cache = True
    name = "local_day"


class day_start(FunctionElement):
    """The UTC instant the local day `day` (a date) begins in zone `zone`: a bound that an
    index on the timestamp can use."""

    type = String()
    inherit_cache = True
    name = "day_start"


class more_than_days_apart(FunctionElement):
    """Whether UTC instant `later` is more than `days` (a whole number) of elapsed days after
    `earlier`: an exact test without reading either's local date."""

    type = Boolean()
    inherit_cache = True
    name = "more_than_days_apart"


@compiles(local_date, "postgresql")
def _local_date_postgresql(element, compiler, **kw):
    instant, zone = (compiler.process(arg, **kw) for arg in element.clauses)
    return f"CAST(({instant}) AT TIME ZONE ({zone}) AS DATE)"


@compiles(local_date, "sqlite")
def _local_date_sqlite(element, compiler, **kw):
    instant, zone = (compiler.process(arg, **kw) for arg in element.clauses)
    return f"fogx_local_date({instant}, {zone})"


@compiles(local_day, "postgresql")
def _local_day_postgresql(element, compiler, **kw):
    instant, zone = (compiler.process(arg, **kw) for arg in element.clauses)
    return f"(CAST(({instant}) AT TIME ZONE ({zone}) AS DATE) - DATE '2000-01-01')"


@compiles(local_day, "sqlite")
def _local_day_sqlite(element, compiler, **kw):
    instant, zone = (compiler.process(arg, **kw) for arg in element.clauses)
    return f"CAST(julianday(fogx_local_date({instant}, {zone})) - 2451544.5 AS INTEGER)"


@compiles(more_than_days_apart, "postgresql")
def _more_than_days_apart_postgresql(element, compiler, **kw):
    later, earlier, days = (compiler.process(arg, **kw) for arg in element.clauses)
    return f"(({later}) - ({earlier}) > ({days}) * INTERVAL '1 day')"


@compiles(more_than_days_apart, "sqlite")
def _more_than_days_apart_sqlite(element, compiler, **kw):
    later, earlier, days = (compiler.process(arg, **kw) for arg in element.clauses)
    return f"(julianday({later}) - julianday({earlier}) > ({days}))"


@compiles(day_start, "postgresql")
def _day_start_postgresql(element, compiler, **kw):
    day, zone = (compiler.process(arg, **kw) for arg in element.clauses)
    return f"(CAST(CAST({day} AS DATE) AS TIMESTAMP) AT TIME ZONE ({zone}))"


@compiles(day_start, "sqlite")
def _day_start_sqlite(element, compiler, **kw):
    day, zone = (compiler.process(arg, **kw) for arg in element.clauses)
    return f"fogx_day_start({day}, {zone})"


def _sqlite_local_date(stamp, zone):
    if stamp is None:
        return None
    instant = datetime.fromisoformat(stamp).replace(tzinfo=UTC)
    return _local_date(instant, zone).isoformat()


def _sqlite_day_start(day, zone):
    if day is None:
        return None
    begins = _start_of_day(date.fromisoformat(str(day)[:10]), zone)
    return begins.replace(tzinfo=None).strftime(_SQLITE_STAMP)


def register(dbapi_connection):
    """Give a SQLite connection the functions the expressions above compile to."""
    dbapi_connection.create_function("fogx_local_date", 2, _sqlite_local_date, deterministic=True)
    dbapi_connection.create_function("fogx_day_start", 2, _sqlite_day_start, deterministic=True)
