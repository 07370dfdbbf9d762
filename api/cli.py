"""Operator commands: `flask --app wsgi db|jurisdictions|clients|demo ...`."""

import json
import sys

import click
from flask.cli import AppGroup, with_appcontext

from storage.db import db

db_cli = AppGroup("db", help="Database migrations.")
jurisdictions_cli = AppGroup("jurisdictions", help="Jurisdictions and their rule presets.")
clients_cli = AppGroup("clients", help="OAuth clients.")
people_cli = AppGroup("people", help="People of a whole hauler or disposal site (no city grants these).")
demo_cli = AppGroup("demo", help="Demo data.")
manifests_cli = AppGroup("manifests", help="Manifests and their findings.")
storage_cli = AppGroup("storage", help="The object store for scans.")
outbox_cli = AppGroup("outbox", help="Work that follows commits (object locks).")
webhooks_cli = AppGroup("webhooks", help="Webhook deliveries of the change feed.")


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


@outbox_cli.command("run")
@click.option("--once", is_flag=True, help="Drain what is due, then stop.")
@click.option("--interval", type=float, default=5.0, help="Seconds between rounds.")
def outbox_run(once, interval):
    """Apply pending object locks (retrying failures with backoff)."""
    import time

    from services.outbound import outbox

    while True:
        total = outbox.pending(db.session)
        with click.progressbar(length=total, label="outbox", file=sys.stderr) as bar:
            counts = outbox.drain(db.session, _store(), limit=max(total, 1), progress=bar.update)
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


@manifests_cli.command("reevaluate")
def manifests_reevaluate():
    """Raise findings that time brings: `disposal_unconfirmed` once a deadline passes."""
    from domain.clock import now
    from services.filing.manifests import confirm_disposals

    raised = confirm_disposals(db.session, now=now())
    click.echo(f"disposal_unconfirmed raised on {raised} manifest(s)")


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


@clients_cli.command("create")
@click.option(
    "--role",
    type=click.Choice(["hauler", "fse", "auditor", "admin", "site"]),
    help="A client acting for one principal (client credentials).",
)
@click.option(
    "--subject",
    "subjects",
    multiple=True,
    help="Hauler id; FSE id (repeat for several); jurisdiction code for auditor/admin; disposal site id for site.",
)
@click.option("--scope", "scopes", multiple=True, help="Scope to grant (repeat); default: all of the role's.")
@click.option("--name", help="A label for the client.")
@click.option(
    "--redirect-uri",
    "redirect_uris",
    multiple=True,
    help="An app people sign in through (authorization code + PKCE): its redirect URI (repeat).",
)
@click.option("--public", is_flag=True, help="With --redirect-uri: an app that keeps no secret (PKCE alone).")
@click.option(
    "--first-party", is_flag=True, help="With --redirect-uri: fogx's own app; people are not asked to consent."
)
@click.option("--client-id", help="With --redirect-uri: the app's client id (the portal's is fogx-portal).")
def clients_create(role, subjects, scopes, name, redirect_uris, public, first_party, client_id):
    """Create a client; prints its client_id and client_secret (shown once)."""
    from services.people.clients import ClientError, create_client, describe

    scopes = [s for value in scopes for s in value.split()]
    try:
        if redirect_uris:
            from services.people import apps

            if role or subjects:
                raise ClientError("an app people sign in through acts for them: no --role or --subject")
            row, secret = apps.create_app(
                db.session,
                name=name,
                redirect_uris=redirect_uris,
                public=public,
                first_party=first_party,
                scopes=scopes,
                client_id=client_id,
            )
            click.echo(json.dumps({**apps.describe(row), "client_secret": secret}, indent=2))
            return
        if not role or not subjects:
            raise ClientError("give --role and --subject, or --redirect-uri for an app people sign in through")
        row, secret = create_client(db.session, role=role, subject=subjects, scopes=scopes, name=name)
    except ClientError as error:
        raise click.UsageError(str(error)) from error
    click.echo(json.dumps({**describe(row), "client_secret": secret}, indent=2))


@clients_cli.command("list")
def clients_list():
    from services.people.clients import all_clients, describe

    click.echo(json.dumps([describe(row) for row in all_clients(db.session)], indent=2))


@clients_cli.command("revoke")
@click.argument("client_id")
def clients_revoke(client_id):
    """Revoke a client and all its tokens."""
    from services.people.clients import ClientError, revoke_client

    try:
        revoke_client(db.session, client_id)
    except ClientError as error:
        raise click.UsageError(str(error)) from error
    click.echo(f"revoked {client_id}")


@clients_cli.command("rotate-secret")
@click.argument("client_id")
def clients_rotate(client_id):
    """Give a client a new secret (printed once); the old one stops working."""
    from services.people.clients import ClientError, rotate_secret

    try:
        row, secret = rotate_secret(db.session, client_id)
    except ClientError as error:
        raise click.UsageError(str(error)) from error
    click.echo(json.dumps({"client_id": row.client_id, "client_secret": secret}, indent=2))


@demo_cli.command("load")
def demo_load():
    """Load the demo FSEs, hauler, site and one client per role (idempotent)."""
    from flask import current_app

    from services.demo.data import load

    click.echo(load(db.session, current_app.config["PUBLIC_BASE_URL"]))


@click.command("import")
@with_appcontext
@click.argument("kind", type=click.Choice(["fses", "permits", "devices", "haulers", "vehicles", "disposal-sites"]))
@click.argument("path", type=click.Path(exists=True, dir_okay=False))
@click.option("--jurisdiction", "code", required=True, help="The city the rows belong to.")
@click.option("--json", "as_json", is_flag=True, help="Print the whole report as JSON.")
def import_csv(kind, path, code, as_json):
    """Import a registry CSV (see samples/); re-running the same file changes nothing."""
    from services.registry.fses import jurisdiction_by_code
    from services.registry.imports import ImportError_, read_rows, run_import

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
            report = run_import(db.session, jurisdiction=jurisdiction, kind=kind, rows=rows, progress=bar.update)
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
    problems = records.verify(db.session, _store(), fse)
    for problem in problems:
        click.echo(f"MISMATCH {problem}")
    if problems:
        raise SystemExit(1)
    click.echo(f"{fse.name}: every revision hash and scan verified")


@people_cli.command("invite")
@click.option("--email", required=True, help="Where the invitation link is mailed.")
@click.option("--hauler", "hauler_id", help="The hauler's id: a person of the whole hauler, in every city.")
@click.option("--site", "site_id", help="The disposal site's id: a clerk of the whole site, in every city.")
@click.option("--role", required=True, help="hauler: admin, dispatcher or driver; site: clerk or admin.")
def people_invite(email, hauler_id, site_id, role):
    """Invite a person to a hauler or site as a whole; a city's admin can scope only to its city."""
    from flask import current_app

    from services.errors import Invalid, NotFound
    from services.people import accounts

    if bool(hauler_id) == bool(site_id):
        raise click.UsageError("give --hauler or --site")
    try:
        invitation = accounts.invite_for_company(
            db.session, email=email, role=role, hauler_id=hauler_id, site_id=site_id, config=current_app.config
        )
    except (Invalid, NotFound) as error:
        raise click.UsageError(str(error)) from error
    from api.worker import send_soon

    send_soon(current_app)
    click.echo(f"invited {invitation.email} as {invitation.role}; the link is mailed (invitation {invitation.id})")


@people_cli.command("remove")
@click.argument("membership_id")
def people_remove(membership_id):
    """Take a person out of a hauler or site (any membership); its tokens stop working at once."""
    from services.errors import NotFound
    from services.people import accounts

    try:
        membership = accounts.remove_for_company(db.session, membership_id)
    except NotFound as error:
        raise click.UsageError(str(error)) from error
    click.echo(f"removed membership {membership.id}")


@people_cli.command("withdraw")
@click.argument("invitation_id")
def people_withdraw(invitation_id):
    """Withdraw a pending invitation; its link no longer works."""
    from services.errors import Conflict, NotFound
    from services.people import invitations

    try:
        invitation = invitations.withdraw_for_company(db.session, invitation_id)
    except (Conflict, NotFound) as error:
        raise click.UsageError(str(error)) from error
    click.echo(f"withdrew invitation {invitation.id}")


def init_app(app):
    for group in (
        db_cli,
        jurisdictions_cli,
        clients_cli,
        people_cli,
        demo_cli,
        manifests_cli,
        storage_cli,
        outbox_cli,
        webhooks_cli,
        retention_cli,
        records_cli,
        import_csv,
    ):
        app.cli.add_command(group)
