"""`flask clients` and `flask people`: programs, and the people of a whole hauler or site."""

import json

import click
from flask.cli import AppGroup

from storage.db import db

clients_cli = AppGroup("clients", help="OAuth clients.")


people_cli = AppGroup("people", help="People of a whole hauler or disposal site (no city grants these).")


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
