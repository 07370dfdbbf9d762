"""Applies the Alembic migrations in `migrations/` to an engine."""

import contextlib
from pathlib import Path

from alembic import command
from alembic.config import Config as AlembicConfig

MIGRATIONS = Path(__file__).resolve().parent.parent / "migrations"


def alembic_config(connection):
    config = AlembicConfig()
    config.set_main_option("script_location", str(MIGRATIONS))
    config.attributes["connection"] = connection
    return config


@contextlib.contextmanager
def _migrating(engine):
    """A connection in a transaction, for the migrations.

    SQLite changes a table's constraints by building the table anew (Alembic's batch mode),
    and dropping the old one would trip the foreign keys of every row that refers to it. As
    SQLite's documentation prescribes for such a rebuild, they are switched off (outside the
    transaction, where alone that can be done), checked before the commit, and switched on
    again."""
    with engine.connect() as connection:
        sqlite = connection.dialect.name == "sqlite"
        if sqlite:
            connection.connection.dbapi_connection.execute("PRAGMA foreign_keys=OFF")
        try:
            with connection.begin():
                yield connection
                if sqlite:
                    broken = connection.exec_driver_sql("PRAGMA foreign_key_check").fetchall()
                    if broken:
                        raise RuntimeError(f"rows refer to rows that are not there: {broken[:5]}")
        finally:
            if sqlite:
                connection.connection.dbapi_connection.execute("PRAGMA foreign_keys=ON")


def upgrade(engine, revision="head"):
    with _migrating(engine) as connection:
        command.upgrade(alembic_config(connection), revision)


def downgrade(engine, revision):
    with _migrating(engine) as connection:
        command.downgrade(alembic_config(connection), revision)


def current(engine):
    from alembic.runtime.migration import MigrationContext

    with engine.connect() as connection:
        return MigrationContext.configure(connection).get_current_revision()
