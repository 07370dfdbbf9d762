"""What the notice tests share: a real SMTP server in the test process (aiosmtpd) and its
mailbox, the demo city mailing to it, the daily pass run by its command, a person's token."""

import email
import email.policy
import threading
from datetime import UTC, datetime

import pytest
from aiosmtpd.controller import Controller
from sqlalchemy.orm import Session

from services.demo import data as demo
from services.demo.people import DEMO_APP, DEMO_PASSWORD
from services.notices import daily, events, outbox
from tests import people_factories as pf
from tests.conftest import _free_port, https_client

LOADED = datetime(2026, 6, 1, 12, 0, tzinfo=UTC)  # 05:00 in Victorville: the demo's load day
SIX_AM = datetime(2026, 6, 2, 13, 0, tzinfo=UTC)  # 06:00 PDT the day after


class Inbox:
    """An SMTP server's mailbox: refuses the first `refuse` messages with `answer`, then takes them."""

    def __init__(self, refuse=0, answer="451 4.3.0 Try again later"):
        self.refuse, self.answer, self.messages = refuse, answer, []

    async def handle_RCPT(self, server, smtp_session, envelope, address, rcpt_options):
        if address.startswith("nobody@"):
            return "550 5.1.1 No such mailbox"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server, smtp_session, envelope):
        if self.refuse:
            self.refuse -= 1
            return self.answer
        self.messages.append(
            (list(envelope.rcpt_tos), email.message_from_bytes(envelope.content, policy=email.policy.default))
        )
        return "250 OK"

    def to(self, address):
        return [m for rcpts, m in self.messages if rcpts == [address]]


@pytest.fixture
def smtp():
    def start(inbox):
        controller = Controller(inbox, hostname="127.0.0.1", port=_free_port())
        controller.start()
        started.append(controller)
        return controller.port

    started = []
    yield start
    for controller in started:
        controller.stop()


@pytest.fixture
def demo_city(make_app, smtp, frozen_clock):
    """The demo loaded on its day, its mail going to a real SMTP server."""
    inbox = Inbox()
    app = make_app(SMTP_URL=f"smtp://127.0.0.1:{smtp(inbox)}")
    frozen_clock(LOADED)
    with app.app_context():
        from storage.db import db

        demo.load(db.session, base_url="https://fogx.test")
    return app, inbox


def run_pass(app, day):
    result = app.test_cli_runner().invoke(args=["notices", "run", "--as-of", day.isoformat()])
    assert result.exit_code == 0, result.output
    return result.output


def person_token(app, address, scope):
    return pf.sign_in(https_client(app), DEMO_APP, email=address, password=DEMO_PASSWORD, scope=scope)["access_token"]


def two_instances(app):
    """Both instances' round at once, each with its own session: the passes due, then the
    sender; what each ran, [(city, day, queued)], in the order it ran them."""
    engine, config = app.extensions["fogx.engine"], app.config
    start, ran, errors = threading.Barrier(2), [], []

    def instance():
        with Session(bind=engine) as own:
            try:
                start.wait()
                ran.append(daily.run_due(own, config))
                events.expand(own, config)
                outbox.send_due(own, config)
            except Exception as error:  # reported by the test, not lost in the thread
                errors.append(error)

    threads = [threading.Thread(target=instance) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    return ran
