"""`flask manifests`: findings that time brings."""

import click
from flask.cli import AppGroup

from storage.db import db

manifests_cli = AppGroup("manifests", help="Manifests and their findings.")


@manifests_cli.command("reevaluate")
def manifests_reevaluate():
    """Raise findings that time brings: `disposal_unconfirmed` once a deadline passes."""
    from domain.clock import now
    from services.filing.manifests import confirm_disposals

    raised = confirm_disposals(db.session, now=now())
    click.echo(f"disposal_unconfirmed raised on {raised} manifest(s)")
