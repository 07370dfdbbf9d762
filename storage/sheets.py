"""A list as CSV written by PostgreSQL itself (`COPY (...) TO STDOUT`), cell for cell as
`reports/table_csv.py` writes it from the list's rows, streamed as the server sends it: a sheet
of a year's rows costs the app server next to nothing but the bytes it passes on.

Each column is written by its type: whole days since 2000-01-01 (`*_day`) as the ISO date of
an `*_on` column, instants in the reader's city's local time with its offset, a text that a
spreadsheet would run as a formula with a leading quote, an empty text as no value. A list with a
column of another kind (JSON, arrays, a value of no known type) is not written here: `sheet`
answers None, and the rows are written in Python as before.
"""

from collections.abc import Iterator

from sqlalchemy import (
    BigInteger,
    Boolean,
    Date,
    DateTime,
    Float,
    Integer,
    Numeric,
    SmallInteger,
    String,
    Text,
    TypeDecorator,
    Uuid,
    case,
    cast,
    func,
    literal,
    literal_column,
    select,
)
from sqlalchemy.sql import sqltypes

# Whole days since 2000-01-01, as storage.audit counts them; written as the date of an `_on` column.
DAY_COLUMNS = ("last_service_day", "due_day", "from_day", "missed_day", "serviced_day")
# What a spreadsheet runs as a formula, as reports/table_csv.py quotes it, and what it takes
# as a number instead (Python's float(): "-5", "+1.5e3", " 7 ", "inf").
FORMULA = "^[-=+@\t\r]"
NUMBER = r"^\s*[-+]?(([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?|inf|infinity|nan)\s*$"
INSTANT = "YYYY-MM-DD HH24:MI TZH:TZM"
TEXTS = (String, Text, sqltypes.Enum)
INTEGERS = (Integer, BigInteger, SmallInteger)


def _cell(column):
    """The column written as the Python sheet writes it, or None where it cannot be."""
    kind = column.type
    if isinstance(kind, TypeDecorator):  # UTCDateTime: stored and read as the type it decorates
        kind = kind.impl
    if column.name in DAY_COLUMNS and isinstance(kind, INTEGERS):
        day = literal_column("DATE '2000-01-01'") + cast(column, Integer)
        return func.to_char(day, "YYYY-MM-DD").label(column.name.replace("_day", "_on"))
    if isinstance(kind, DateTime):
        return func.to_char(column, INSTANT).label(column.name)
    if isinstance(kind, Date):
        return func.to_char(column, "YYYY-MM-DD").label(column.name)
    if isinstance(kind, Boolean):
        return case((column.is_(True), "True"), (column.is_(False), "False")).label(column.name)
    if isinstance(kind, Float):
        # Python writes a whole float with ".0" (1480.0); PostgreSQL without (1480).
        whole = (column == func.trunc(column)) & (func.abs(column) < 1e15)
        return case((whole, cast(cast(column, BigInteger), Text) + ".0"), else_=cast(column, Text)).label(column.name)
    if isinstance(kind, (Uuid, Numeric, *INTEGERS)):
        return cast(column, Text).label(column.name)
    if isinstance(kind, TEXTS):
        value = func.nullif(cast(column, Text), "")
        formula = value.regexp_match(FORMULA) & ~value.regexp_match(NUMBER, flags="i")
        return case((formula, literal("'") + value), else_=value).label(column.name)
    return None


def statement(query):
    """`SELECT` of the list's columns, each written as the Python sheet writes it; None where a
    column is of a kind written only in Python."""
    listed = query.subquery("listed")
    cells = [_cell(column) for column in listed.c]
    if any(cell is None for cell in cells):
        return None
    return select(*cells).select_from(listed)


def sheet(engine, query, *, zone: str) -> Iterator[bytes] | None:
    """The list as CSV bytes from PostgreSQL, its instants in `zone`, in a read-only transaction of
    its own (one snapshot for the whole sheet); None where it is not PostgreSQL's to write."""
    if engine.dialect.name != "postgresql" or not zone:
        return None
    written = statement(query)
    if written is None:
        return None
    compiled = written.compile(dialect=engine.dialect, compile_kwargs={"render_postcompile": True})
    copy = f"COPY ({compiled}) TO STDOUT WITH (FORMAT csv, HEADER true)"
    return _copied(engine, copy, compiled.params, zone)


def _copied(engine, copy, params, zone):
    with engine.connect() as connection:
        connection = connection.execution_options(isolation_level="REPEATABLE READ")
        with connection.begin():
            connection.exec_driver_sql("SET TRANSACTION READ ONLY")
            connection.exec_driver_sql("SELECT set_config('TimeZone', %(zone)s, true)", {"zone": zone})
            with connection.connection.driver_connection.cursor() as cursor, cursor.copy(copy, params) as rows:
                for chunk in rows:
                    yield bytes(chunk)
