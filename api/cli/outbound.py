"""`flask outbox` and `flask webhooks`: the work that follows commits, from a process of its own."""

import sys

import click
from flask.cli import AppGroup

from storage.db import db

outbox_cli = AppGroup("outbox", help="Work that follows commits (object locks).")


webhooks_cli = AppGroup("webhooks", help="Webhook deliveries of the change feed.")


@outbox_cli.command("run")
@click.option("--once", is_flag=True, help="Drain what is due, then stop.")
@click.option("--interval", type=float, default=5.0, help="Seconds between rounds.")
def outbox_run(once, interval):
    """Apply pending object locks (retrying failures with backoff)."""
    import time

    from flask import current_app

    from services.outbound import outbox

    while True:
        total = outbox.pending(db.session)
        with click.progressbar(length=total, label="outbox", file=sys.stderr) as bar:
            counts = outbox.drain(
                db.session, current_app.extensions["fogx.store"], limit=max(total, 1), progress=bar.update
            )
        click.echo(f"applied {counts['done']}, to retry {counts['retry']}, pending {outbox.pending(db.session)}")
        if once:
            return
        time.sleep(interval)


@webhooks_cli.command("run")
@click.option("--once", is_flag=True, help="One delivery to each webhook that is due, then stop.")
@click.option("--interval", type=float, default=5.0, help="Seconds between rounds.")
def webhooks_run(once, interval):
    """Post each webhook what its change feed has that is new (retrying failures with backoff)."""
    import time

    from flask import current_app

    from api.config import webhook_signing_key
    from services.outbound import webhooks

    while True:
        with click.progressbar(length=webhooks.due_count(db.session), label="webhooks", file=sys.stderr) as bar:
            counts = webhooks.deliver(
                db.session,
                signing_key=webhook_signing_key(current_app.config),
                allow_local=current_app.config["WEBHOOK_ALLOW_LOCAL"],
                progress=bar.update,
            )
        click.echo(", ".join(f"{name} {count}" for name, count in counts.items()))
        if once:
            return
        time.sleep(interval)
