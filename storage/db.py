"""The database engine and the one session each request or command works in."""

import logging
import os
from concurrent.futures import ThreadPoolExecutor, wait
from pathlib import Path

from flask import current_app
from sqlalchemy import create_engine, event, text
from sqlalchemy.engine import make_url
from sqlalchemy.orm import Session, scoped_session

from storage import localtime, models  # noqa: F401  (every table on the one metadata)

log = logging.getLogger("fogx.db")

# Hosts whose PostgreSQL backends are processes of this machine.
_LOCAL_HOSTS = {None, "", "localhost", "127.0.0.1", "::1"}


def make_engine(url, *, nice=0, name=""):
    """An engine on `url`. With `nice`, each PostgreSQL backend it connects to runs at that
    niceness, where the server is on this machine and this process may lower its priority;
    `name` is the backends' application_name (pg_stat_activity shows it)."""
    url = make_url(url)
    if url.get_backend_name() == "sqlite":
        if url.database and url.database != ":memory:":
            Path(url.database).parent.mkdir(parents=True, exist_ok=True)
        engine = create_engine(url, connect_args={"timeout": 30})
        event.listen(engine, "connect", _sqlite_pragmas)
        return engine
    if url.drivername == "postgresql":
        url = url.set(drivername="postgresql+psycopg")
    # JIT compilation costs more than it saves on queries of this size (hundreds of ms). No
    # pre-ping (a round trip per request): a request that finds its connection gone answers
    # 503 and the pool is renewed (api/errors.py, storage/prebuilt.py). psycopg prepares
    # nothing of its own: the statements a request runs often are prepared by
    # storage/prebuilt.py, and psycopg deallocates every prepared statement on a rollback.
    engine = create_engine(
        url,
        pool_size=10,
        max_overflow=20,
        connect_args={"options": "-c jit=off", "prepare_threshold": None, "application_name": name},
    )
    if nice:
        _lower_backends(engine, url, nice)
    return engine


def _lower_backends(engine, url, nice):
    """Run the engine's backends at `nice`, so that the operating system gives the CPU to the
    backends of other engines first (filings, beside reads that may take seconds)."""
    host = url.query.get("host") or url.host
    if host not in _LOCAL_HOSTS and not str(host).startswith("/"):
        log.warning("PostgreSQL is on %s, not this machine: its backends keep their priority", host)
        return
    warned = []

    @event.listens_for(engine, "connect")
    def _lower(dbapi_connection, _record):
        pid = dbapi_connection.info.backend_pid
        try:
            os.setpriority(os.PRIO_PROCESS, pid, max(nice, os.getpriority(os.PRIO_PROCESS, pid)))
        except OSError as error:  # not ours to change (another user's, without CAP_SYS_NICE)
            if not warned:
                warned.append(error)
                log.warning("cannot lower the priority of PostgreSQL backends: %s", error)


def ping(session):
    """Raises the driver's error where the database does not answer."""
    session.execute(text("SELECT 1"))


def _sqlite_pragmas(dbapi_connection, _record):
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA busy_timeout=30000")
    cursor.close()
    localtime.register(dbapi_connection)


def _new_session():
    """Work that only reads (a request the API says reads, `Database.init_app`) runs each
    statement on its own (autocommit): it is spared `BEGIN` and `ROLLBACK`, two round trips of
    its own, and sees what it would inside a READ COMMITTED transaction, where every statement
    takes a fresh snapshot anyway. Its session refuses to write."""
    if current_app.extensions["fogx.only_reads"]():
        session = Session(bind=current_app.extensions["fogx.reading_engine"], expire_on_commit=False)
        event.listen(session, "before_flush", _refuse_writes)
        return session
    return Session(bind=current_app.extensions["fogx.engine"], expire_on_commit=False)


def _refuse_writes(session, _context, _instances):
    if session.new or session.dirty or session.deleted:
        raise RuntimeError("A request that only reads tried to write.")


class Database:
    """A session per app context, bound to the current app's engine; wired by `init_app`."""

    def __init__(self):
        self.session = scoped_session(_new_session)

    @property
    def engine(self):
        return current_app.extensions["fogx.engine"]

    def init_app(self, app, *, only_reads=lambda: False):
        """`only_reads()` tells, when a session is made, whether the work it is for only reads."""
        app.extensions["fogx.only_reads"] = only_reads
        engine = app.extensions["fogx.engine"] = make_engine(app.config["DATABASE_URL"])
        reads_nice = app.config["DATABASE_READS_NICE"]
        if reads_nice and engine.dialect.name == "postgresql":
            # Reads on a pool of their own, whose backends give way to the ones filings write on.
            engine = make_engine(app.config["DATABASE_URL"], nice=reads_nice, name="fogx reads")
            app.extensions["fogx.reads_engine"] = engine
        # Each connection in autocommit while a reading request holds it.
        app.extensions["fogx.reading_engine"] = engine.execution_options(isolation_level="AUTOCOMMIT")

        @app.teardown_appcontext
        def _remove_session(_exc):
            self.session.remove()


db = Database()


def streamed(session, query, *, batch=200):
    """The rows of `query` as the database sends them, for a list read whole: a page or a
    sheet starts before the last row is worked out. On PostgreSQL they come through a cursor
    of the server in a read-only transaction of their own (one snapshot for the whole list),
    on a connection held until the rows are read or the generator is closed."""
    engine = session.get_bind()
    if engine.dialect.name != "postgresql":
        yield from session.execute(query)
        return
    with engine.connect() as connection:
        connection = connection.execution_options(isolation_level="REPEATABLE READ")
        with connection.begin():
            connection.exec_driver_sql("SET TRANSACTION READ ONLY")
            yield from connection.execution_options(yield_per=batch).execute(query)


_THREADS = {}


def threads(name: str, workers: int) -> ThreadPoolExecutor:
    """This process's pool of `workers` threads called `name`, made again after a fork (threads
    do not survive one)."""
    pid, pool = _THREADS.get(name, (None, None))
    if pid != os.getpid():
        pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix=name)
        _THREADS[name] = (os.getpid(), pool)
    return pool


def all_rows(session, queries) -> list[list]:
    """The rows of each of `queries`, independent statements of a request that only reads.

    On PostgreSQL each but the first runs at the same time on a connection of its own: a
    reading session runs every statement on its own snapshot anyway (autocommit), so the
    answer is the one the statements would give in turn, in the time of the longest. Inside a
    transaction, or on SQLite, they run in turn on the session.
    """
    engine = session.get_bind()
    alone = engine.dialect.name != "postgresql" or engine.get_execution_options().get("isolation_level") != "AUTOCOMMIT"
    if alone or len(queries) < 2:
        return [session.execute(query).all() for query in queries]

    def run(query):
        with engine.connect() as connection:
            return connection.execute(query).all()

    others = [threads("fogx-read", 4).submit(run, query) for query in queries[1:]]
    try:
        first = session.execute(queries[0]).all()
    finally:
        wait(others)  # none still runs when the request answers, whatever it answers
    return [first, *(future.result() for future in others)]
