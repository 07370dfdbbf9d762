"""Operator commands, `flask --app wsgi db|jurisdictions|import|clients|people|demo|...`: a module a capability."""

from api.cli.database import db_cli
from api.cli.demo import demo_cli
from api.cli.filing import manifests_cli
from api.cli.notices import notices_cli
from api.cli.outbound import outbox_cli, webhooks_cli
from api.cli.people import clients_cli, people_cli
from api.cli.records import records_cli, retention_cli, storage_cli
from api.cli.registry import import_csv, jurisdictions_cli


def init_app(app):
    for group in (
        db_cli,
        jurisdictions_cli,
        clients_cli,
        people_cli,
        demo_cli,
        manifests_cli,
        notices_cli,
        storage_cli,
        outbox_cli,
        webhooks_cli,
        retention_cli,
        records_cli,
        import_csv,
    ):
        app.cli.add_command(group)
