"""`flask storage`, `flask retention` and `flask records`: the scans' store, purges and holds, a record's proof."""

import sys

import click
from flask.cli import AppGroup

from storage.db import db

storage_cli = AppGroup("storage", help="The object store for scans.")


def _store():
    from flask import current_app

    return current_app.extensions["fogx.store"]


@storage_cli.command("sweep")
@click.option(
    "--older-than-minutes", type=int, default=None, help="Only objects older than this (default SWEEP_DELAY_MINUTES)."
)
@click.option("--dry-run", is_flag=True, help="Count what would go; remove nothing.")
def storage_sweep(older_than_minutes, dry_run):
    """Remove objects no committed document references (after a delay)."""
    from datetime import timedelta

    from flask import current_app

    from services.records.sweep import sweep

    minutes = older_than_minutes if older_than_minutes is not None else current_app.config["SWEEP_DELAY_MINUTES"]
    with click.progressbar(length=0, label="sweeping", file=sys.stderr, show_pos=True) as bar:
        counts = sweep(
            db.session,
            _store(),
            older_than=timedelta(minutes=minutes),
            dry_run=dry_run,
            progress=lambda _key: bar.update(1),
        )
    verb = "would remove" if dry_run else "removed"
    click.echo(
        f"{verb} {counts['removed']} unreferenced object(s); kept {counts['kept']} referenced, "
        f"{counts['young']} younger than {minutes} min, {counts['refused']} refused by the store; "
        f"{verb} {counts['partials']} abandoned partial write(s)"
    )


@storage_cli.command("check")
def storage_check():
    """Is the store reachable?"""
    from storage.objects import StoreUnavailable

    try:
        _store().ping()
    except StoreUnavailable as error:
        raise click.ClickException(f"unreachable: {error}") from error
    click.echo("reachable")


retention_cli = AppGroup("retention", help="Retention purges and legal holds.")


records_cli = AppGroup("records", help="Per-FSE records.")


@retention_cli.command("purge")
@click.option("--dry-run", is_flag=True, help="Report what would be purged; remove nothing.")
def retention_purge(dry_run):
    """Remove records past their city's retention_years, counted from the first filing or the
    latest service any revision had, except those a legal hold or a correction in review keeps."""
    from domain.clock import now
    from services.records import retention

    candidates = retention.expired(db.session, now())
    with click.progressbar(
        length=len(candidates), label="purging" if not dry_run else "checking", file=sys.stderr
    ) as bar:
        summary = retention.purge(db.session, _store(), candidates=candidates, dry_run=dry_run, progress=bar.update)
    verb = "would purge" if dry_run else "purged"
    click.echo(
        f"{summary['expired']} manifest(s) past retention: {verb} {summary['purged']}, "
        f"kept {summary['held']} under legal hold; scans removed {summary['objects_removed']}, "
        f"refused by the store {summary['objects_refused']}; kept {summary['in_review']} with a "
        f"correction awaiting the city's review"
    )


@retention_cli.command("hold")
@click.argument("target_id")
@click.option("--reason", required=True, help="Why the records must be kept (case, order, ...).")
def retention_hold(target_id, reason):
    """Keep the records of an FSE, a permit or a manifest out of every purge until released
    (on an FSE or a permit: every manifest that ever named it)."""
    from services.records import retention

    try:
        row = retention.hold(db.session, target_id, reason=reason)
    except retention.HoldError as error:
        raise click.UsageError(str(error)) from error
    click.echo(f"hold {row.id} placed on {retention.target_kind(row)[0]} {target_id}")


@retention_cli.command("release")
@click.argument("target_id")
def retention_release(target_id):
    """Release the legal holds on an FSE, a permit or a manifest."""
    from services.records import retention

    try:
        count = retention.release(db.session, target_id)
    except retention.HoldError as error:
        raise click.UsageError(str(error)) from error
    click.echo(f"released {count} hold(s) on {target_id}")


@retention_cli.command("holds")
def retention_holds():
    """List the legal holds in force."""
    from services.records import retention

    for row in retention.active_holds(db.session):
        kind, target = retention.target_kind(row)
        click.echo(f"{row.placed_at:%Y-%m-%d}\t{kind} {target}\t{row.reason}")


@records_cli.command("verify")
@click.argument("fse_id")
def records_verify(fse_id):
    """Re-check every revision's hash chain, the columns that decide retention and holds
    against the hashed revisions, and every scan's SHA-256 against the store."""
    import uuid

    from services.records import record as records
    from storage.models import Fse

    try:
        fse = db.session.get(Fse, uuid.UUID(fse_id))
    except ValueError:
        fse = None
    if fse is None:
        raise click.UsageError(f"no FSE {fse_id}")
    problems = records.verify(db.session, _store(), fse=fse)
    for problem in problems:
        click.echo(f"MISMATCH {problem}")
    if problems:
        raise SystemExit(1)
    click.echo(f"{fse.name}: every revision hash and scan verified")
