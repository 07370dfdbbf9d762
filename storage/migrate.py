"""Applies the Alembic migrations in `migrations/` to an engine."""
from alembic import command
from alembic.config import Config as AlembicConfig

from api.config import ROOT


def alembic_config(connection):
    config = AlembicConfig()
    config.set_main_option("script_location", str(ROOT / "migrations"))
    config.attributes["connection"] = connection
    return config


def upgrade(engine, revision="head"):
    with engine.begin() as connection:
        command.upgrade(alembic_config(connection), revision)


def downgrade(engine, revision):
    with engine.begin() as connection:
        command.downgrade(alembic_config(connection), revision)


def current(engine):
    from alembic.runtime.migration import MigrationContext

    with engine.connect() as connection:
        return MigrationContext.configure(connection).get_current_revision()
