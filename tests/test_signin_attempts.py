"""A person's sign-in cannot be guessed or jammed (exchange policy): wrong second-factor codes
lock the account until a sign-in completes, whatever passwords come between; the code step is
limited per address; a stranger's wrong passwords keep out the stranger's address, not the
owner; tries sent at once are counted in turn; an invitation page is no way around the limits;
every refusal of a password, and every answer of the reset form, reads the same and costs the
same, account or not; reset mail to one address is limited."""

import re
import threading
from datetime import UTC, datetime, timedelta
from email import message_from_bytes
from email import policy as mail_policy
from pathlib import Path

import pyotp
import pytest
from argon2 import PasswordHasher
from sqlalchemy import event, select
from sqlalchemy.orm import Session

from domain import clock
from services.people.passwords import digest
from storage.people import PasswordReset, Person
from tests import factories
from tests import people_factories as pf
from tests.conftest import _free_port, https_client

NOON = datetime(2026, 6, 1, 12, tzinfo=UTC)
OWNER, STRANGER, THIRD, FOURTH = "203.0.113.9", "198.51.100.7", "192.0.2.33", "192.0.2.44"
_, CHALLENGE = pf.pkce()  # one authorization request, so that pages differ by their answers alone


def from_address(app, address):
    """A browser's HTTP client whose requests come from `address`."""
    http = https_client(app)
    http.environ_base["REMOTE_ADDR"] = address
    return http


@pytest.fixture
def make_world(make_app, frozen_clock):
    """An app with the limits a test sets, a session of the test's own, the portal and a city."""
    frozen_clock(NOON)
    sessions = []

    def build(**limits):
        app = make_app(**limits)
        session = Session(bind=app.extensions["fogx.engine"], expire_on_commit=False)
        sessions.append(session)
        return {
            "app": app,
            "session": session,
            "portal": pf.app(session)[0],
            "city": factories.jurisdiction(session).id,
        }

    yield build
    for session in sessions:
        session.close()


def person(world, email, *, totp=False):
    """A city auditor; with `totp`, their second factor on (enrolled a minute before noon) and its secret."""
    from services.people import twofactor

    session = world["session"]
    membership = pf.person(session, email=email, organisation="city", role="auditor", jurisdiction_id=world["city"])
    if not totp:
        return None
    row = session.get(Person, membership.person_id)
    secret = twofactor.enrolling(session, row)
    clock.freeze(NOON - timedelta(minutes=1))
    twofactor.confirm(session, row, code=pyotp.TOTP(secret).at(NOON - timedelta(minutes=1)))
    clock.freeze(NOON)
    return secret


def signing_in(world, email, password=pf.PASSWORD, *, address=OWNER):
    """A browser from `address` that opened the sign-in page and sent `email` and `password`;
    (the browser, the answer)."""
    browser = pf.Browser(from_address(world["app"], address))
    browser.open(pf.authorize_url(world["portal"], CHALLENGE, scope="audit:read"))
    return browser, browser.submit(email=email, password=password)


def stored(world, email):
    session = world["session"]
    session.expire_all()
    return session.scalar(select(Person).where(Person.email == email))


def code_at(secret, at):
    return pyotp.TOTP(secret).at(at)


def test_wrong_codes_lock_the_account_whatever_passwords_come_between(make_world, frozen_clock):
    world = make_world(SIGN_IN_FAILURE_LIMIT=3, SIGN_IN_LOCKOUT_SECONDS=900, AUTH_FAILURE_LIMIT=50)
    secret = person(world, "kim@v.example", totp=True)
    # The attack: two wrong codes, the (stolen) password again, one more wrong code.
    browser, asked = signing_in(world, "kim@v.example")
    assert asked.status_code == 200 and "second factor" in browser.page
    assert [browser.submit(code=code).status_code for code in ("000000", "111111")] == [401, 401]
    stale, asked = signing_in(world, "kim@v.example")
    assert asked.status_code == 200 and "second factor" in stale.page
    assert stale.submit(code="222222").status_code == 401
    # The code that locked it says so, and for how long.
    assert "Too many wrong codes: this account is locked for 15 minutes." in stale.page
    # Three wrong codes since the last sign-in that completed: locked, and the right password
    # is told for how long.
    _, locked = signing_in(world, "kim@v.example")
    assert locked.status_code == 403
    assert "locked for 15 minutes" in locked.get_data(as_text=True)
    # A code sent on the page of an earlier password is not tried while the lock lasts.
    right = code_at(secret, NOON)
    before = stored(world, "kim@v.example").totp_last_step
    refused = stale.submit(code=right)
    assert refused.status_code == 403 and "locked for 15 minutes" in refused.get_data(as_text=True)
    assert stored(world, "kim@v.example").totp_last_step == before

    # The lock ends; a sign-in with both factors completes and the count starts again.
    later = frozen_clock(NOON + timedelta(seconds=901))
    browser, _ = signing_in(world, "kim@v.example")
    assert pf.code_from(browser.submit(code=code_at(secret, later)))
    assert stored(world, "kim@v.example").failed_sign_ins == 0
    for _ in range(3):
        browser, _ = signing_in(world, "kim@v.example")
        assert browser.submit(code="333333").status_code == 401
    assert "locked for 15 minutes" in signing_in(world, "kim@v.example")[1].get_data(as_text=True)
    # With no sign-in completed between them, each lock lasts twice as long as the one before.
    frozen_clock(later + timedelta(seconds=901))
    for _ in range(3):
        browser, _ = signing_in(world, "kim@v.example")
        assert browser.submit(code="444444").status_code == 401
    assert "locked for 30 minutes" in signing_in(world, "kim@v.example")[1].get_data(as_text=True)


def test_the_code_step_is_limited_per_address(make_world):
    world = make_world(SIGN_IN_FAILURE_LIMIT=100, AUTH_FAILURE_LIMIT=3, AUTH_FAILURE_WINDOW_SECONDS=300)
    secrets = {email: person(world, email, totp=True) for email in ("kim@v.example", "lou@v.example")}
    # Three wrong codes from one address, spread over two accounts (under either's lock).
    for email in ("kim@v.example", "lou@v.example", "kim@v.example"):
        browser, _ = signing_in(world, email, address=STRANGER)
        assert browser.submit(code="000000").status_code == 401
    # That address now waits, whatever code it sends, and the code is not tried.
    browser, asked = signing_in(world, "lou@v.example", address=OWNER)
    assert asked.status_code == 200
    stranger = pf.Browser(from_address(world["app"], STRANGER))
    stranger.cookie, stranger.page, stranger.url = browser.cookie, browser.page, browser.url
    waited = stranger.submit(code=code_at(secrets["lou@v.example"], NOON))
    assert waited.status_code == 429 and 0 < int(waited.headers["Retry-After"]) <= 300
    assert "try again in 5 minutes" in stranger.page
    assert stored(world, "lou@v.example").totp_last_step < pyotp.TOTP(secrets["lou@v.example"]).timecode(NOON)
    # From another address the same step and code go through.
    assert pf.code_from(browser.submit(code=code_at(secrets["lou@v.example"], NOON)))


def test_a_strangers_wrong_passwords_do_not_keep_the_owner_out(make_world):
    world = make_world(SIGN_IN_FAILURE_LIMIT=3, SIGN_IN_LOCKOUT_SECONDS=900, AUTH_FAILURE_LIMIT=10)
    person(world, "lee@v.example")
    assert [
        signing_in(world, "lee@v.example", "wrong password!", address=STRANGER)[1].status_code for _ in range(3)
    ] == [401, 401, 401]
    # The stranger's address waits for that account, even with the right password ...
    _, waited = signing_in(world, "lee@v.example", address=STRANGER)
    assert waited.status_code == 429 and 0 < int(waited.headers["Retry-After"]) <= 900
    assert "try again in 15 minutes" in waited.get_data(as_text=True)
    # ... and so it would for an address with no account: the answer tells no one which has one.
    for _ in range(3):
        signing_in(world, "nobody@v.example", "wrong password!", address=STRANGER)
    _, nobody = signing_in(world, "nobody@v.example", address=STRANGER)
    assert nobody.status_code == 429
    assert without_email(nobody, "nobody@v.example") == without_email(waited, "lee@v.example")
    # The owner, from their own address, signs in.
    assert pf.code_from(signing_in(world, "lee@v.example", address=OWNER)[1])
    assert stored(world, "lee@v.example").locked_until is None


def test_a_right_password_clears_its_addresss_count(make_world):
    world = make_world(SIGN_IN_FAILURE_LIMIT=3, AUTH_FAILURE_LIMIT=10)
    person(world, "lee@v.example")
    for _ in range(2):
        assert [signing_in(world, "lee@v.example", "mistyped!", address=OWNER)[1].status_code for _ in range(2)] == [
            401,
            401,
        ]
        assert pf.code_from(signing_in(world, "lee@v.example", address=OWNER)[1])


def test_a_new_password_lets_its_owner_in_from_where_they_failed(make_world):
    world = make_world(SIGN_IN_FAILURE_LIMIT=3, AUTH_FAILURE_LIMIT=10)
    person(world, "lee@v.example")
    for _ in range(3):
        signing_in(world, "lee@v.example", "forgotten!", address=OWNER)
    assert signing_in(world, "lee@v.example", address=OWNER)[1].status_code == 429
    reset_asked(world["app"], "lee@v.example")[0].close()
    [mail] = mails_in(world["app"])
    link = re.search(r"https://fogx\.test(/signin/reset/\S+)", mail).group(1)
    browser = pf.Browser(from_address(world["app"], OWNER))
    browser.open(link)
    assert browser.submit(password="a whole new passphrase").status_code == 200
    assert pf.code_from(signing_in(world, "lee@v.example", "a whole new passphrase", address=OWNER)[1])


def test_an_account_failed_from_many_addresses_slows_only_the_addresses_that_failed(make_world):
    world = make_world(
        SIGN_IN_FAILURE_LIMIT=3, SIGN_IN_LOCKOUT_SECONDS=900, AUTH_FAILURE_LIMIT=4, AUTH_FAILURE_WINDOW_SECONDS=300
    )
    person(world, "lee@v.example")
    for address, failures in ((STRANGER, 3), (THIRD, 1)):
        for _ in range(failures):
            assert signing_in(world, "lee@v.example", "guess", address=address)[1].status_code == 401
    # Four failures for the account in the window: an address that failed for it waits, even
    # after one failure and with the right password.
    _, waited = signing_in(world, "lee@v.example", address=THIRD)
    assert waited.status_code == 429 and 0 < int(waited.headers["Retry-After"]) <= 300
    # A new address has one try: the owner's right password signs in ...
    assert pf.code_from(signing_in(world, "lee@v.example", address=OWNER)[1])
    # ... and a guesser's wrong one is its last while the account is under attack.
    assert signing_in(world, "lee@v.example", "guess", address=FOURTH)[1].status_code == 401
    assert signing_in(world, "lee@v.example", address=FOURTH)[1].status_code == 429


def test_an_address_that_failed_for_many_accounts_waits(make_world):
    world = make_world(SIGN_IN_FAILURE_LIMIT=3, AUTH_FAILURE_LIMIT=6)
    person(world, "lee@v.example")
    for n in range(6):
        assert signing_in(world, f"nobody{n}@v.example", "guess", address=STRANGER)[1].status_code == 401
    _, waited = signing_in(world, "lee@v.example", address=STRANGER)
    assert waited.status_code == 429 and int(waited.headers["Retry-After"]) > 0


def without_email(response, email):
    """The page, without the email address it echoes and its form's token (each browser's own)."""
    return re.sub(r'name="csrf_token" value="[^"]*"', "", response.get_data(as_text=True).replace(email, ""))


@pytest.fixture
def hashes_verified(monkeypatch):
    """How many Argon2id verifications the app has made (argon2's own, counted as it runs)."""
    counted = []
    verify = PasswordHasher.verify

    def counting(self, hashed, password):
        counted.append(hashed)
        return verify(self, hashed, password)

    monkeypatch.setattr(PasswordHasher, "verify", counting)
    return counted


def test_every_refusal_of_a_password_reads_the_same_and_costs_one_hash(make_world, hashes_verified):
    world = make_world(SIGN_IN_FAILURE_LIMIT=1, SIGN_IN_LOCKOUT_SECONDS=900, AUTH_FAILURE_LIMIT=50)
    person(world, "lee@v.example")
    person(world, "kim@v.example", totp=True)
    browser, _ = signing_in(world, "kim@v.example", address=THIRD)
    assert browser.submit(code="000000").status_code == 401  # kim's account is locked now
    assert stored(world, "kim@v.example").locked_until is not None
    # From an address each, so that no limit is near.
    answers = {}
    for email, address in (("nobody@v.example", STRANGER), ("lee@v.example", OWNER), ("kim@v.example", FOURTH)):
        hashes_verified.clear()
        _, answer = signing_in(world, email, "wrong password!", address=address)
        answers[email] = (answer.status_code, len(hashes_verified), without_email(answer, email))
    assert answers["nobody@v.example"] == answers["lee@v.example"] == answers["kim@v.example"]
    assert answers["nobody@v.example"][:2] == (401, 1)
    # The right password of the locked account alone learns of the lock, and for how long.
    hashes_verified.clear()
    _, locked = signing_in(world, "kim@v.example", address=OWNER)
    assert locked.status_code == 403 and "locked for 15 minutes" in locked.get_data(as_text=True)
    assert len(hashes_verified) == 1


def mails_in(app) -> list[str]:
    """The text of each message mailed, oldest first."""
    folder = Path(app.config["MAIL_DIR"])
    return [
        message_from_bytes(p.read_bytes(), policy=mail_policy.default).get_body(("plain",)).get_content()
        for p in sorted(folder.glob("*.eml"))
    ]


def mails_to(app) -> list:
    folder = Path(app.config["MAIL_DIR"])
    return (
        [message_from_bytes(p.read_bytes(), policy=mail_policy.default)["To"] for p in sorted(folder.glob("*.eml"))]
        if folder.exists()
        else []
    )


def reset_asked(app, address):
    """The reset form sent for `address`, its answer not yet closed (the server still sending it):
    (the answer, the SQL statements the request ran)."""
    browser = pf.Browser(https_client(app))
    browser.open("/signin/reset")
    statements = []
    engine = app.extensions["fogx.engine"]

    def ran(connection, cursor, statement, *_):
        statements.append(statement)

    event.listen(engine, "before_cursor_execute", ran)
    try:
        answer = browser.http.post(
            "/signin/reset",
            data={**pf.form_of(browser.page)[1], "email": address},
            headers=browser._headers(),
            buffered=False,
        )
        answer.get_data()
    finally:
        event.remove(engine, "before_cursor_execute", ran)
    return answer, statements


def test_the_reset_form_does_the_same_work_for_any_address(make_world):
    world = make_world()
    person(world, "olga@v.example")
    app = world["app"]
    answers = {}
    for address in ("nobody@v.example", "olga@v.example"):
        answer, statements = reset_asked(app, address)
        answers[address] = (answer.status_code, statements, without_email(answer, ""), mails_to(app))
        answer.close()  # sent: the mail, where there is one, goes now
    assert answers["olga@v.example"] == answers["nobody@v.example"]
    assert answers["olga@v.example"][0] == 200 and answers["olga@v.example"][3] == []
    assert mails_to(app) == ["olga@v.example"]


def test_a_mail_server_that_is_down_tells_no_one_which_addresses_have_accounts(make_world):
    world = make_world(SMTP_URL=f"smtp://127.0.0.1:{_free_port()}")
    person(world, "olga@v.example")
    answers = []
    for address in ("olga@v.example", "nobody@v.example"):
        answer, _ = reset_asked(world["app"], address)
        answers.append((answer.status_code, without_email(answer, "")))
        answer.close()
    assert answers[0] == answers[1] and answers[0][0] == 200


def test_reset_mail_is_limited_per_address_and_the_answer_does_not_say(make_world, frozen_clock):
    world = make_world()
    person(world, "olga@v.example")
    app = world["app"]
    answers = set()
    for _ in range(4):
        answer, _ = reset_asked(app, "olga@v.example")
        answers.add((answer.status_code, without_email(answer, "")))
        answer.close()
    assert len(answers) == 1 and answers.pop()[0] == 200
    assert mails_to(app) == ["olga@v.example"] * 3
    # An hour after the first, one more.
    frozen_clock(NOON + timedelta(hours=1, seconds=1))
    reset_asked(app, "olga@v.example")[0].close()
    assert mails_to(app) == ["olga@v.example"] * 4


def test_codes_sent_at_once_are_counted_in_turn(make_world):
    """A burst of wrong codes, each on a page of its own from an address of its own, sent at
    once: no more are tried than the lock allows."""
    world = make_world(SIGN_IN_FAILURE_LIMIT=3, SIGN_IN_LOCKOUT_SECONDS=900, AUTH_FAILURE_LIMIT=50)
    person(world, "kim@v.example", totp=True)
    burst = 12
    pages = [signing_in(world, "kim@v.example", address=f"198.51.100.{n}")[0] for n in range(burst)]
    start = threading.Barrier(burst)
    answers = []

    def guess(browser):
        start.wait()
        answers.append(browser.submit(code="000000").status_code)

    threads = [threading.Thread(target=guess, args=(browser,)) for browser in pages]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(answers) == [401] * 3 + [403] * (burst - 3)
    assert stored(world, "kim@v.example").failed_sign_ins == 3


@pytest.mark.parametrize(
    "setting", ["SIGN_IN_FAILURE_LIMIT", "SIGN_IN_LOCKOUT_SECONDS", "AUTH_FAILURE_LIMIT", "AUTH_FAILURE_WINDOW_SECONDS"]
)
def test_limits_that_would_never_let_anyone_in_or_never_count_are_refused(setting):
    from api.config import ConfigError, load_config

    assert load_config(environ={})[setting] > 0
    with pytest.raises(ConfigError, match=setting):
        load_config(environ={setting: "0"})


def test_passwords_sent_at_once_from_one_address_are_counted_in_turn(make_world):
    """A burst of wrong passwords for one account from one address, sent at once: no more are
    tried than that address's limit for the account."""
    world = make_world(SIGN_IN_FAILURE_LIMIT=3, SIGN_IN_LOCKOUT_SECONDS=900, AUTH_FAILURE_LIMIT=50)
    person(world, "lee@v.example")
    burst = 12
    pages = []
    for _ in range(burst):
        browser = pf.Browser(from_address(world["app"], STRANGER))
        browser.open(pf.authorize_url(world["portal"], CHALLENGE, scope="audit:read"))
        pages.append(browser)
    start = threading.Barrier(burst)
    answers = []

    def guess(browser):
        start.wait()
        answers.append(browser.submit(email="lee@v.example", password="a guess at once").status_code)

    threads = [threading.Thread(target=guess, args=(browser,)) for browser in pages]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(answers) == [401] * 3 + [429] * (burst - 3)


def test_a_reset_link_works_as_soon_as_its_mail_is_out(make_world):
    """The mail server looks the link up as it takes the message: the reset is stored already."""
    from aiosmtpd.controller import Controller

    found = []

    class Inbox:
        async def handle_DATA(self, server, smtp_session, envelope):
            text = message_from_bytes(envelope.content, policy=mail_policy.default).get_body(("plain",)).get_content()
            token = re.search(r"/signin/reset/(\S+)", text).group(1)
            with Session(bind=engine) as own:
                found.append(own.scalar(select(PasswordReset.id).where(PasswordReset.token_sha256 == digest(token))))
            return "250 OK"

    controller = Controller(Inbox(), hostname="127.0.0.1", port=_free_port())
    controller.start()
    try:
        world = make_world(SMTP_URL=f"smtp://127.0.0.1:{controller.port}")
        engine = world["app"].extensions["fogx.engine"]
        person(world, "olga@v.example")
        reset_asked(world["app"], "olga@v.example")[0].close()
    finally:
        controller.stop()
    assert len(found) == 1 and found[0] is not None


def test_an_invitation_to_an_existing_account_limits_guesses_at_its_password(make_world):
    world = make_world(SIGN_IN_FAILURE_LIMIT=3, AUTH_FAILURE_LIMIT=50)
    person(world, "lee@v.example")
    app, http = world["app"], https_client(world["app"])
    admin = factories.bearer(
        factories.token(http, *factories.oauth_client(world["session"], role="admin", subject=["victorville"]))
    )
    assert (
        http.post(
            "/v1/invitations",
            headers=admin,
            json={"email": "lee@v.example", "organisation": "city", "role": "admin", "jurisdiction": "victorville"},
        ).status_code
        == 201
    )
    [mail] = mails_in(app)
    link = re.search(r"https://fogx\.test(/signin/invitations/\S+)", mail).group(1)

    def accept(password, address):
        browser = pf.Browser(from_address(app, address))
        browser.open(link)
        return browser.submit(password=password)

    assert [accept("a guess at it", STRANGER).status_code for _ in range(3)] == [401, 401, 401]
    waited = accept(pf.PASSWORD, STRANGER)
    assert waited.status_code == 429 and "try again in 15 minutes" in waited.get_data(as_text=True)
    assert 0 < int(waited.headers["Retry-After"]) <= 900
    accepted = accept(pf.PASSWORD, OWNER)
    assert accepted.status_code == 200 and "You are now admin" in accepted.get_data(as_text=True)
