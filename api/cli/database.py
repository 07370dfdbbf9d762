"""`flask db`: the migrations."""

import click
from flask.cli import AppGroup

from storage.db import db

db_cli = AppGroup("db", help="Database migrations.")


@db_cli.command("upgrade")
@click.argument("revision", default="head")
def db_upgrade(revision):
    """Apply the migrations up to REVISION (default: head)."""
    from storage import migrate

    migrate.upgrade(db.engine, revision)
    click.echo(f"database at {migrate.current(db.engine)}")


@db_cli.command("downgrade")
@click.argument("revision")
def db_downgrade(revision):
    """Revert the migrations down to REVISION."""
    from storage import migrate

    migrate.downgrade(db.engine, revision)
    click.echo(f"database at {migrate.current(db.engine)}")


@db_cli.command("current")
def db_current():
    from storage import migrate

    click.echo(migrate.current(db.engine) or "empty")
