"""`flask jurisdictions` and `flask import`: cities from their presets, the registry from CSV."""

import json
import sys

import click
from flask.cli import AppGroup, with_appcontext

from storage.db import db

jurisdictions_cli = AppGroup("jurisdictions", help="Jurisdictions and their rule presets.")


@jurisdictions_cli.command("presets")
def jurisdictions_presets():
    """List the shipped presets: every rule, its value, and the city's section with its words,
    or exchange policy."""
    from domain.presets import ORDINANCE, PRESETS, table

    for code, preset in PRESETS.items():
        click.echo(f"{code}: {preset['name']}")
        for row in table(code):
            basis = f"ordinance: {row['citation']}" if row["basis"] == ORDINANCE else "exchange policy"
            click.echo(f"  {row['rule']} = {json.dumps(row['value'])}  [{basis}]")
            if row["quote"]:
                click.echo(f'      "{row["quote"]}"')


@jurisdictions_cli.command("add")
@click.option("--preset", "code", required=True, help="Preset code, e.g. victorville.")
def jurisdictions_add(code):
    """Create a jurisdiction from a preset (nothing changes if it exists)."""
    from services.registry.jurisdictions import UnknownPreset, add_from_preset

    try:
        jurisdiction, created = add_from_preset(db.session, code=code)
    except UnknownPreset:
        raise click.BadParameter(f"no preset {code!r}; see `jurisdictions presets`", param_hint="--preset") from None
    click.echo(f"{'created' if created else 'exists'}: {jurisdiction.code} {jurisdiction.id}")


@jurisdictions_cli.command("list")
def jurisdictions_list():
    from services.registry.jurisdictions import all_jurisdictions

    for row in all_jurisdictions(db.session):
        click.echo(f"{row.code}\t{row.id}\t{row.name}")


@click.command("import")
@with_appcontext
@click.argument("kind", type=click.Choice(["fses", "permits", "devices", "haulers", "vehicles", "disposal-sites"]))
@click.argument("path", type=click.Path(exists=True, dir_okay=False))
@click.option("--jurisdiction", "code", required=True, help="The city the rows belong to.")
@click.option("--json", "as_json", is_flag=True, help="Print the whole report as JSON.")
def import_csv(kind, path, code, as_json):
    """Import a registry CSV (see samples/); re-running the same file changes nothing."""
    from services.registry.fses import jurisdiction_by_code
    from services.registry.import_rows import ImportError_, read_rows
    from services.registry.imports import run_import

    jurisdiction = jurisdiction_by_code(db.session, code)
    if jurisdiction is None:
        raise click.BadParameter(f"no jurisdiction {code!r}", param_hint="--jurisdiction")
    with open(path, "rb") as handle:
        total = max(sum(1 for _ in handle) - 1, 0)
    with open(path, "rb") as handle:
        try:
            rows = read_rows(handle, kind)
        except ImportError_ as error:
            raise click.UsageError(str(error)) from error
        with click.progressbar(length=total, label=f"importing {kind}", file=sys.stderr) as bar:
            report = run_import(
                db.session,
                jurisdiction=jurisdiction,
                kind=kind,
                rows=rows,
                progress=bar.update,
                command=f"flask import {kind}",
            )
    if as_json:
        click.echo(json.dumps(report.as_dict(), indent=2))
        return
    click.echo(
        f"{report.rows} rows: {report.created} created, {report.updated} updated, "
        f"{report.unchanged} unchanged, {report.rejected} rejected"
    )
    for rejection in report.rejections:
        click.echo(f"  row {rejection['row']}: {rejection['reason']}")
    for warning in report.warnings:
        click.echo(f"  row {warning['row']} warning: {warning['message']}")
