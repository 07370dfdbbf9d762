"""Statements on a request's hot path, compiled once and run straight on the driver.

For the few statements every filing runs, SQLAlchemy's per-execution work (binding through
the compiled cache, building a result from the cursor's description) costs more CPU than
PostgreSQL spends answering. A `Prebuilt`
statement is still written in SQLAlchemy Core and compiled by it, once per dialect; on
PostgreSQL it is then bound with SQLAlchemy's type processing, prepared once on each
connection, and run on libpq's connection under the session's own transaction, with psycopg's
adapters and errors (raised as SQLAlchemy's); it does not pass through the engine's events
(nor its echo log). Other databases run it through SQLAlchemy as usual.
"""

import functools
import re
import select as os_select
from collections import namedtuple
from itertools import groupby

from psycopg import errors
from psycopg.adapt import PyFormat, Transformer
from psycopg.types.string import TextLoader
from sqlalchemy import bindparam, insert, literal, select
from sqlalchemy.exc import DBAPIError


class Prebuilt:
    def __init__(self, statement):
        self.statement = statement
        self._plans = {}

    def all(self, connection, params=None, *, alone=False, last=False, ahead=()) -> list:
        """The rows (attribute access by column label) for `params`, in `connection`'s transaction.

        On PostgreSQL a statement that only reads, or one that is `alone` (all the writing its
        transaction would do), runs without opening a transaction when none is open yet: psycopg
        would otherwise send `BEGIN` first, and `COMMIT` after, each a round trip of its own.
        Under READ COMMITTED a read sees what it would have seen inside; a single statement is
        atomic by itself. `last`: the transaction's last statement, whose round trip commits it
        (an open transaction; without one, as `alone`). `ahead`: commands without parameters
        (a lock) run first, in the transaction and the same round trip; the statement's own
        snapshot is taken after them."""
        dialect = connection.dialect
        plan = self._plans.get(dialect)
        if plan is None and dialect.name == "postgresql":
            plan = self._plans[dialect] = _Plan(self.statement, dialect)
        if plan is None or not plan.direct:
            for command in ahead:
                connection.exec_driver_sql(command.decode())
            return connection.execute(self.statement, params or {}).all()
        return plan.run(connection, params or {}, alone=alone or last, last=last, ahead=tuple(ahead))

    def first(self, connection, params=None):
        rows = self.all(connection, params)
        return rows[0] if rows else None


def insert_rows(connection, rows, *, alone=False, last=False):
    """Insert new rows, ORM instances with every column set (`storage.models.unflushed`),
    without the unit of work, in `connection`'s transaction: on PostgreSQL in one statement
    (a data-modifying CTE per row, planned once per sequence of tables), elsewhere one INSERT
    per run of rows of a table. Rows go in the order given, so a row may refer to one before it.
    `alone`: these rows are all the transaction writes; `last`: they are its last (see
    `Prebuilt.all`)."""
    if connection.dialect.name == "postgresql":
        tables = tuple(type(row).__table__ for row in rows)
        params = {f"r{n}_{key}": value for n, row in enumerate(rows) for key, value in _values(row).items()}
        _inserting(tables).all(connection, params, alone=alone, last=last)
        return
    for table, run in groupby(rows, key=lambda row: type(row).__table__):
        connection.execute(insert(table), [_values(row) for row in run])


def _values(row) -> dict:
    """Every column of a new row, as set on it (a column left unset is a KeyError), but those
    the database fills."""
    return {c.key: row.__dict__[c.key] for c in _written(type(row).__table__)}


@functools.cache
def _written(table) -> tuple:
    """The columns an insert sets: not a counter's key, nor one with a default of the server's."""
    return tuple(c for c in table.columns if c.server_default is None and c is not table.autoincrement_column)


@functools.cache
def _inserting(tables):
    inserts = [
        insert(table).values({c.key: bindparam(f"r{n}_{c.key}", type_=c.type) for c in _written(table)}).cte(f"row{n}")
        for n, table in enumerate(tables)
    ]
    return Prebuilt(select(literal(1)).add_cte(*inserts))


_READS = re.compile(r"\s*(SELECT|WITH)\b", re.IGNORECASE)
# What writes, locks or moves a sequence stays in the transaction, whatever it starts with.
_WRITES = re.compile(
    r"\b(INSERT|UPDATE|DELETE|MERGE|FOR\s+SHARE|FOR\s+KEY\s+SHARE|LOCK|NEXTVAL|SETVAL|"
    r"PG_ADVISORY_\w+|PG_TRY_ADVISORY_\w+)\b",
    re.IGNORECASE,
)
_IDLE = 0  # psycopg.pq.TransactionStatus.IDLE: no transaction open on the connection
_OPEN = 2  # psycopg.pq.TransactionStatus.INTRANS: a transaction open, idle between statements
_ANSWERED = (1, 2)  # psycopg.pq.ExecStatus.COMMAND_OK, TUPLES_OK
_PLACEHOLDER = re.compile(r"%\(([^)]+)\)s|%%")


def _numbered(sql):
    """SQLAlchemy's psycopg text (`%(name)s`, `%%`) as libpq takes it (`$1`, `%`), and the
    names in the order of their numbers."""
    names = []

    def number(match):
        name = match.group(1)
        if name is None:
            return "%"
        if name not in names:
            names.append(name)
        return f"${names.index(name) + 1}"

    return _PLACEHOLDER.sub(number, sql).encode(), names


class _Wire:
    """What one psycopg connection keeps for the statements run on it here: the names of
    those it has prepared (by SQL and parameter types: a number's type depends on its size,
    a null's is left to the server), and a transformer each way of reading UUIDs, which keeps
    the dumpers and loaders it has found."""

    LIMIT = 100  # statements prepared on one connection (as psycopg would keep); past it, run unnamed

    @classmethod
    def of(cls, driver):
        # Kept on the connection, and gone with it.
        state = getattr(driver, "_fogx_wire", None)
        if state is None:
            state = driver._fogx_wire = cls(driver)
        return state

    def __init__(self, driver):
        self.encoding = driver.info.encoding
        self.names = {}
        self.transformers = {}

    def transformer(self, driver, ids_as_text):
        transformer = self.transformers.get(ids_as_text)
        if transformer is None:
            context = driver.cursor()  # never executed: its adapters, and the connection's time zone
            if ids_as_text:
                context.adapters.register_loader("uuid", TextLoader)
            transformer = self.transformers[ids_as_text] = Transformer(context)
        return transformer

    def prepared(self, pgconn, sql, types):
        name = self.names.get((sql, types))
        if name is None:
            name = f"fogx_{len(self.names)}".encode() if len(self.names) < self.LIMIT else b""
            result = pgconn.prepare(name, sql, types)
            if result.status not in _ANSWERED:
                raise errors.error_from_result(result, encoding=self.encoding)
            if name:
                self.names[(sql, types)] = name
        return name


_PLANNED = {}  # (dialect, cache key) -> _Plan: statements built per call, by their shape
_PLANNED_LIMIT = 256


def fetch_all(connection, statement, *, ids_as_text=False) -> list:
    """The rows of a statement built per call (its values bound inside it), run like a
    `Prebuilt` one: compiled once per shape, as SQLAlchemy's own cache would.

    `ids_as_text` reads UUIDs as the text PostgreSQL sends, for rows bound for JSON: a
    thousand-row page is spared making and printing thousands of `uuid.UUID`s (elsewhere
    they stay UUIDs)."""
    dialect = connection.dialect
    key = statement._generate_cache_key() if dialect.name == "postgresql" else None
    if key is None:
        return connection.execute(statement).all()
    plan = _PLANNED.get((dialect, key.key))
    if plan is None:
        if len(_PLANNED) >= _PLANNED_LIMIT:
            _PLANNED.clear()
        plan = _PLANNED[(dialect, key.key)] = _Plan(statement, dialect, key)
    if not plan.direct:
        return connection.execute(statement).all()
    return plan.run(connection, {}, key.bindparams, ids_as_text=ids_as_text)


class _Plan:
    """The SQL text, the bind processors and the row shape of one statement on PostgreSQL."""

    def __init__(self, statement, dialect, cache_key=None):
        compiled = statement.compile(dialect=dialect, cache_key=cache_key)
        self.compiled = compiled
        # Lists bound to IN and values rendered inline are spliced into the SQL per execution:
        # such a statement goes through SQLAlchemy.
        self.direct = not (compiled.post_compile_params or compiled.literal_execute_params)
        self.sql = compiled.string
        self.reads_only = _READS.match(self.sql) is not None and _WRITES.search(self.sql) is None
        self.binds = dict(compiled._bind_processors)
        self.columns = compiled._result_columns
        self.row = namedtuple("Row", [c.keyname for c in self.columns], rename=True) if self.columns else None
        self.processors = None  # from the first result's column types (a number's depends on them)
        self.wire_sql, self.names = _numbered(self.sql)
        self.formats = [PyFormat.AUTO] * len(self.names)

    def run(self, connection, params, extracted=None, *, ids_as_text=False, alone=False, last=False, ahead=()):
        values = self.compiled.construct_params(params, extracted_parameters=extracted, _check=False)
        for name, processor in self.binds.items():
            values[name] = processor(values[name])
        driver = connection.connection.driver_connection
        status = driver.pgconn.transaction_status
        if driver.autocommit or status not in (_IDLE, _OPEN):
            fetched = self._on_the_wire(connection, driver, values, ids_as_text, before=ahead)
        elif status == _IDLE and (ahead or not (self.reads_only or alone)):
            # The first write or lock of a transaction opens it, in the same round trip.
            fetched = self._on_the_wire(connection, driver, values, ids_as_text, before=(_begin(driver), *ahead))
        elif status == _OPEN and last:
            # The last write of the transaction commits it, in the same round trip.
            fetched = self._on_the_wire(connection, driver, values, ids_as_text, before=ahead, after=b"COMMIT")
        else:
            fetched = self._on_the_wire(connection, driver, values, ids_as_text, before=ahead)
        if not self.processors:
            return [self.row._make(r) for r in fetched] if self.row else []
        rows = []
        for fetched_row in fetched:
            row = list(fetched_row)
            for i, processor in self.processors:
                row[i] = processor(row[i])
            rows.append(self.row._make(row))
        return rows

    def _on_the_wire(self, connection, driver, values, ids_as_text, *, before=(), after=None):
        """The rows, the statement prepared once per connection and run
        on libpq's connection itself: a cursor's own work per execution (finding the dumpers
        for each value and the loaders for each column, its prepared-statement bookkeeping)
        cost as much CPU as the round trip. Outside a transaction this runs by itself;
        the commands `before` (BEGIN, a lock) and `after` (COMMIT) go with it in one round trip (psycopg reads the
        transaction's state from the connection, so it neither opens nor commits it again)."""
        state = _Wire.of(driver)
        transformer = state.transformer(driver, ids_as_text)
        try:
            arguments = transformer.dump_sequence([values[name] for name in self.names], self.formats)
            name = state.prepared(driver.pgconn, self.wire_sql, transformer.types)
            if before or after:
                result = _pipelined(driver.pgconn, name, arguments, transformer.formats, before, after)
            else:
                result = driver.pgconn.exec_prepared(name, arguments, transformer.formats)
            if result.status not in _ANSWERED:
                raise errors.error_from_result(result, encoding=state.encoding)
        except connection.dialect.loaded_dbapi.Error as error:
            raise _translated(connection, error, self.sql, values) from error
        if self.row is None:
            return []
        if self.processors is None:
            self._learn(connection.dialect, [result.ftype(i) for i in range(result.nfields)])
        transformer.set_pgresult(result)
        return transformer.load_rows(0, result.ntuples, tuple)

    def _learn(self, dialect, types):
        """The result processors of the columns, from the first result's column types."""
        found = [c.type._cached_result_processor(dialect, oid) for c, oid in zip(self.columns, types)]
        self.processors = [(i, p) for i, p in enumerate(found) if p is not None]


def _pipelined(pgconn, name, arguments, formats, before, after):
    """The prepared statement's result, sent after the commands `before` and before `after` (or
    None) in one pipeline: one round trip. A command that fails leaves the rest unrun (the
    transaction stays open, in error, for the session to roll back)."""
    pgconn.enter_pipeline_mode()
    try:
        for command in before:
            pgconn.send_query_params(command, None)
        pgconn.send_query_prepared(name, arguments, formats)
        if after:
            pgconn.send_query_params(after, None)
        pgconn.pipeline_sync()
        results = []
        for _ in range(len(before) + 1 + bool(after)):
            results.append(_next_result(pgconn))
            while _next_result(pgconn) is not None:  # the end of this command's results
                pass
        _next_result(pgconn)  # the sync
    finally:
        pgconn.exit_pipeline_mode()
    failed = [result for result in results if result.status not in _ANSWERED]
    return failed[0] if failed else results[len(before)]


def _begin(driver) -> bytes:
    """The BEGIN psycopg would send on this connection, with its isolation and access modes."""
    modes = []
    if driver.isolation_level is not None:
        modes.append("ISOLATION LEVEL " + driver.isolation_level.name.replace("_", " "))
    if driver.read_only is not None:
        modes.append("READ ONLY" if driver.read_only else "READ WRITE")
    if driver.deferrable is not None:
        modes.append("DEFERRABLE" if driver.deferrable else "NOT DEFERRABLE")
    return " ".join(["BEGIN", *modes]).encode()


def _next_result(pgconn):
    """libpq's next result, waited for with the interpreter's lock released: a statement may
    wait on a lock another thread of this process holds."""
    while pgconn.is_busy():
        os_select.select([pgconn.socket], [], [])
        pgconn.consume_input()
    return pgconn.get_result()


def _translated(connection, error, sql, values):
    """SQLAlchemy's exception for a driver error; a lost connection renews the whole pool,
    as SQLAlchemy does for the statements it runs itself."""
    dialect = connection.dialect
    dbapi_connection = connection.connection.dbapi_connection
    disconnect = dialect.is_disconnect(error, dbapi_connection, None)
    if disconnect:
        connection.invalidate(error)
        connection.engine.dispose(close=False)
    return DBAPIError.instance(
        sql, values, error, dialect.loaded_dbapi.Error, connection_invalidated=disconnect, dialect=dialect
    )
