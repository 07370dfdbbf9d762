"""`flask --app wsgi notices run|send`: a city's daily pass by hand, and the queued notices sent."""

import click
from flask import current_app
from flask.cli import AppGroup
from sqlalchemy import select

notices_cli = AppGroup("notices", help="Notices by mail: the daily pass and the outbox.")


@notices_cli.command("run")
@click.option(
    "--as-of",
    "as_of",
    type=click.DateTime(formats=["%Y-%m-%d"]),
    help="One local day of the cities (default: today, after the days missed since their last pass).",
)
@click.option("--city", "code", help="One city's code (every city by default).")
@click.option("--send/--no-send", default=True, help="Send what is queued once the pass is done.")
def run(as_of, code, send):
    """Run the daily pass of each city for a local day, once: a day already run is left as it is.
    Without --as-of, the days missed since the city's last pass (a week at most) come first."""
    from services.notices import daily, events, outbox
    from storage.db import db
    from storage.models import Jurisdiction

    query = select(Jurisdiction).order_by(Jurisdiction.code)
    if code:
        query = query.where(Jurisdiction.code == code)
    cities = [(c.id, c.code, c.time_zone) for c in db.session.scalars(query)]
    if code and not cities:
        raise click.UsageError(f"no city {code}")
    for city_id, city_code, zone in cities:
        today = daily.today_in(zone)
        # Today's pass run already, the days are today's alone, to say so.
        days = [as_of.date()] if as_of else daily.days_to_run(db.session, city_id, today=today) or [today]
        for day in days:
            queued = daily.run_day(db.session, current_app.config, city_id=city_id, day=day, current=day == days[-1])
            if queued is None:
                click.echo(f"{city_code} {day}: already run")
            else:
                click.echo(f"{city_code} {day}: {queued} notices queued")
    if send:
        _send(events, outbox)


@notices_cli.command("send")
def send():
    """Turn new events into notices and send every notice that is due."""
    from services.notices import events, outbox

    _send(events, outbox)


def _send(events, outbox):
    from storage.db import db

    events.expand(db.session, current_app.config)
    counts = outbox.send_due(db.session, current_app.config, limit=10_000)
    click.echo(" ".join(f"{name}={count}" for name, count in counts.items()))
