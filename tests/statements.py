"""The statements a block of code sends to the database, and the rows it gets back, counted as
sent: on PostgreSQL read off the wire (libpq's trace of each connection the block checks out),
so that the prebuilt statements of `storage/prebuilt.py`, which go to libpq past SQLAlchemy's
events, are counted too; on SQLite, where every statement goes through SQLAlchemy, from the
engine's and the session's events."""

import contextlib
import os
import re
import tempfile
from dataclasses import dataclass, field

from sqlalchemy import event
from sqlalchemy.orm import Session

# Statements that only open, end or mark a transaction: not what a guard counts.
_CONTROL = re.compile(r"\s*(BEGIN|COMMIT|ROLLBACK|SAVEPOINT|RELEASE|START\s+TRANSACTION)\b", re.IGNORECASE)
_PARSE = re.compile(r'^\s*"(?P<name>[^"]*)" "(?P<sql>.*)" \d+(?: \d+)*\s*$', re.S)
_BIND = re.compile(r'^\s*"[^"]*" "(?P<name>[^"]*)"')
_QUERY = re.compile(r'^\s*"(?P<sql>.*)"\s*$', re.S)
_MESSAGE = re.compile(r"[FB]\t\d+\t\w+")
PQTRACE_SUPPRESS_TIMESTAMPS = 1


@dataclass
class Sent:
    """What the block sent: each statement's SQL (a statement prepared before the block, whose
    text went to the server earlier, as "(prepared NAME)"), and the rows it was answered with."""

    statements: list = field(default_factory=list)
    rows: int = 0

    def containing(self, text: str) -> list:
        return [statement for statement in self.statements if text in statement]


def _messages(path: str):
    """(direction, name, detail) of each message in a libpq trace; a statement's text keeps its
    line breaks, so a line that does not start a message continues the one before."""
    current = None
    with open(path, encoding="utf-8", errors="replace") as trace:
        for line in trace:
            if _MESSAGE.match(line):
                if current is not None:
                    yield current
                parts = line.rstrip("\n").split("\t", 3)
                current = [parts[0], parts[2], parts[3] if len(parts) > 3 else ""]
            elif current is not None:
                current[2] += "\n" + line.rstrip("\n")
    if current is not None:
        yield current


def _read_trace(path: str, sent: Sent):
    """Add the statements and rows of one connection's libpq trace to `sent`."""
    prepared = {}
    for direction, message, detail in _messages(path):
        if direction == "B" and message == "DataRow":
            sent.rows += 1
        elif direction != "F":
            continue
        elif message == "Parse" and (parsed := _PARSE.match(detail)):
            prepared[parsed["name"]] = parsed["sql"]
        elif message == "Bind" and (bound := _BIND.match(detail)):
            sql = prepared.get(bound["name"], f"(prepared {bound['name']})")
            if not _CONTROL.match(sql):
                sent.statements.append(sql)
        elif message == "Query" and (query := _QUERY.match(detail)) and not _CONTROL.match(query["sql"]):
            sent.statements.append(query["sql"])


@contextlib.contextmanager
def counted(bind):
    """A `Sent` filled with what the block sends through the connections of `bind`: an engine
    (those the block checks out of its pool), or a session (its own connection, and those)."""
    session = bind if isinstance(bind, Session) else None
    engine = session.get_bind() if session is not None else bind
    sent = Sent()
    if engine.dialect.name != "postgresql":
        yield from _through_sqlalchemy(engine, sent)
        return
    traced = {}
    folder = tempfile.mkdtemp(prefix="fogx-trace-")

    def trace(dbapi_connection, _record, _proxy):
        pgconn = dbapi_connection.pgconn
        if id(pgconn) in traced:
            return
        path = os.path.join(folder, f"{len(traced)}.trace")
        handle = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        pgconn.trace(handle)  # libpq writes through a stream of its own on this descriptor
        pgconn.set_trace_flags(PQTRACE_SUPPRESS_TIMESTAMPS)
        traced[id(pgconn)] = (pgconn, path, handle)

    event.listen(engine, "checkout", trace)
    if session is not None:
        trace(session.connection().connection.dbapi_connection, None, None)
    try:
        yield sent
    finally:
        event.remove(engine, "checkout", trace)
        for pgconn, path, handle in traced.values():
            pgconn.untrace()  # flushes what the stream holds
            os.close(handle)
            _read_trace(path, sent)
            os.unlink(path)
        os.rmdir(folder)


def _through_sqlalchemy(engine, sent: Sent):
    def statement(_conn, _cursor, sql, *_):
        if not _CONTROL.match(sql):
            sent.statements.append(sql)

    def rows(state):
        # The rows of each ORM read, counted as the session receives them.
        frozen = state.invoke_statement().freeze()
        sent.rows += len(frozen.data)
        return frozen()

    event.listen(engine, "before_cursor_execute", statement)
    event.listen(Session, "do_orm_execute", rows)
    try:
        yield sent
    finally:
        event.remove(engine, "before_cursor_execute", statement)
        event.remove(Session, "do_orm_execute", rows)
