"""`flask demo`: the demo's data."""

import click
from flask.cli import AppGroup

from storage.db import db

demo_cli = AppGroup("demo", help="Demo data.")


@demo_cli.command("load")
def demo_load():
    """Load the demo FSEs, hauler, site and one client per role (idempotent)."""
    from flask import current_app

    from services.demo.data import load

    click.echo(load(db.session, current_app.config["PUBLIC_BASE_URL"]))
