"""A second factor a person turns on: a TOTP code is taken once (RFC 6238 section 5.2), never
an older one; the voluntary enrolment page shows the key, asks a code, gives recovery codes."""

import re
from datetime import UTC, datetime, timedelta

import pyotp
from sqlalchemy import select

from storage.people import Person, RecoveryCode
from tests import factories
from tests import people_factories as pf
from tests.people_factories import city  # noqa: F401

NOON = datetime(2026, 6, 1, 12, tzinfo=UTC)


def enrolled(client, session, portal, frozen_clock, email="kim@v.example"):
    """A city admin whose city requires a second factor, enrolled at noon; (secret, url)."""
    frozen_clock(NOON)
    pf.person(
        session, email=email, organisation="city", role="admin", jurisdiction_id=factories.jurisdiction(session).id
    )
    from services.people import twofactor

    twofactor.set_policy(session, factories.jurisdiction(session).id, staff_totp_required=True)
    _, challenge = pf.pkce()
    url = pf.authorize_url(portal, challenge, scope="audit:read")
    browser = pf.Browser(client)
    browser.open(url)
    browser.submit(email=email, password=pf.PASSWORD)
    secret = re.search(r'<code id="secret">([A-Z2-7]+)</code>', browser.page).group(1)
    assert browser.submit(code=pyotp.TOTP(secret).at(NOON)).status_code == 200
    pf.code_from(browser.submit())
    return secret, url


def test_the_same_code_twice_is_refused_the_second_time(client, city, session, frozen_clock):
    secret, url = enrolled(client, session, city["portal"], frozen_clock)
    frozen_clock(NOON + timedelta(minutes=2))
    code = pyotp.TOTP(secret).at(NOON + timedelta(minutes=2))
    first = pf.Browser(client)
    first.open(url)
    first.submit(email="kim@v.example", password=pf.PASSWORD)
    assert pf.code_from(first.submit(code=code))
    again = pf.Browser(client)
    again.open(url)
    again.submit(email="kim@v.example", password=pf.PASSWORD)
    replayed = again.submit(code=code)
    assert replayed.status_code == 401 and "not right" in again.page
    # The next step's code is good.
    frozen_clock(NOON + timedelta(minutes=2, seconds=30))
    assert pf.code_from(again.submit(code=pyotp.TOTP(secret).at(NOON + timedelta(minutes=2, seconds=30))))


def test_the_code_used_to_enrol_cannot_sign_in_nor_can_an_earlier_one(client, city, session, frozen_clock):
    secret, url = enrolled(client, session, city["portal"], frozen_clock)
    totp = pyotp.TOTP(secret)
    browser = pf.Browser(client)
    browser.open(url)
    browser.submit(email="kim@v.example", password=pf.PASSWORD)
    # Thirty seconds on, noon's code is still within the window, but it turned the factor on.
    frozen_clock(NOON + timedelta(seconds=30))
    assert browser.submit(code=totp.at(NOON)).status_code == 401
    # A minute on, the code of the step after: good. Then that of the step between, earlier than it.
    frozen_clock(NOON + timedelta(seconds=60))
    assert pf.code_from(browser.submit(code=totp.at(NOON + timedelta(seconds=60))))
    browser = pf.Browser(client)
    browser.open(url)
    browser.submit(email="kim@v.example", password=pf.PASSWORD)
    assert browser.submit(code=totp.at(NOON + timedelta(seconds=30))).status_code == 401
    stored = session.scalar(select(Person.totp_last_step).where(Person.email == "kim@v.example"))
    assert stored == totp.timecode(NOON + timedelta(seconds=60))


def test_a_person_turns_a_second_factor_on_of_their_own_accord(client, session, frozen_clock):
    frozen_clock(NOON)
    hauler = factories.hauler(session)
    membership = pf.person(session, email="dee@h.example", organisation="hauler", role="driver", hauler_id=hauler.id)
    portal, _ = pf.app(session)
    browser = pf.Browser(client)
    assert browser.open("/signin/second-factor").status_code == 200
    assert browser.submit(email="dee@h.example", password="not the password").status_code == 401
    assert browser.submit(email="dee@h.example", password=pf.PASSWORD).status_code == 200
    secret = re.search(r'<code id="secret">([A-Z2-7]+)</code>', browser.page).group(1)
    uri = re.search(r'<code id="uri">([^<]+)</code>', browser.page).group(1)
    assert uri.startswith("otpauth://totp/fogx:dee%40h.example?secret=" + secret)
    assert browser.submit(code="000000").status_code == 400 and "not right" in browser.page
    assert browser.submit(code=pyotp.TOTP(secret).at(NOON)).status_code == 200
    codes = re.findall(r"<li><code>([0-9a-f]{5}-[0-9a-f]{5})</code></li>", browser.page)
    assert len(codes) == 10 and 'id="done"' in browser.page
    assert session.scalar(select(RecoveryCode.id).where(RecoveryCode.person_id == membership.person_id)) is not None
    # Signing in now asks for a code; a recovery code does, once.
    _, challenge = pf.pkce()
    url = pf.authorize_url(portal, challenge, scope="manifests:read")
    for code, answer in ((codes[3], 302), (codes[3], 401)):
        signing_in = pf.Browser(client)
        signing_in.open(url)
        assert signing_in.submit(email="dee@h.example", password=pf.PASSWORD).status_code == 200
        assert "second factor" in signing_in.page
        assert signing_in.submit(code=code).status_code == answer
    # Asked again, the page says it is on, and shows no new key or codes.
    again = pf.Browser(client)
    again.open("/signin/second-factor")
    assert again.submit(email="dee@h.example", password=pf.PASSWORD).status_code == 200
    assert "on already" in again.page and "secret" not in again.page


def test_an_enrolment_whose_pending_state_was_changed_is_refused(client, session, frozen_clock):
    frozen_clock(NOON)
    hauler = factories.hauler(session)
    membership = pf.person(session, email="dee@h.example", organisation="hauler", role="driver", hauler_id=hauler.id)
    browser = pf.Browser(client)
    browser.open("/signin/second-factor")
    browser.submit(email="dee@h.example", password=pf.PASSWORD)
    secret = re.search(r'<code id="secret">([A-Z2-7]+)</code>', browser.page).group(1)
    browser.page = browser.page.replace('name="pending" value="', 'name="pending" value="x')
    assert browser.submit(code=pyotp.TOTP(secret).at(NOON)).status_code == 400
    session.expire_all()
    assert session.get(Person, membership.person_id).totp_enabled_at is None


def test_setting_up_shows_the_key_as_a_qr_code_drawn_here_and_the_code_box_takes_letters(
    client, city, session, frozen_clock
):
    import html

    import segno

    frozen_clock(NOON)
    pf.person(
        session,
        email="kim@v.example",
        organisation="city",
        role="admin",
        jurisdiction_id=factories.jurisdiction(session).id,
    )
    from services.people import twofactor

    twofactor.set_policy(session, factories.jurisdiction(session).id, staff_totp_required=True)
    _, challenge = pf.pkce()
    browser = pf.Browser(client)
    browser.open(pf.authorize_url(city["portal"], challenge, scope="audit:read"))
    browser.submit(email="kim@v.example", password=pf.PASSWORD)
    uri = html.unescape(re.search(r'<code id="uri">([^<]+)</code>', browser.page).group(1))
    drawn = re.search(r'<div id="qr"[^>]*>(<svg.*?</svg>)</div>', browser.page, re.S)
    # The QR code of the very address shown, inline: no image host ever sees the key.
    assert drawn and drawn.group(1) == twofactor.provisioning_qr(uri)
    assert drawn.group(1) == segno.make(uri, error="m").svg_inline(
        scale=4, border=4, dark="#000", light="#fff", title="QR code of the key"
    )
    assert "<img" not in browser.page
    # Signing in later, the code box is a text box: recovery codes have letters.
    secret = re.search(r'<code id="secret">([A-Z2-7]+)</code>', browser.page).group(1)
    browser.submit(code=pyotp.TOTP(secret).at(NOON))
    pf.code_from(browser.submit())
    again = pf.Browser(client)
    again.open(pf.authorize_url(city["portal"], challenge, scope="audit:read"))
    again.submit(email="kim@v.example", password=pf.PASSWORD)
    box = re.search(r'<input name="code"[^>]*>', again.page).group(0)
    assert 'inputmode="text"' in box and "numeric" not in box


def test_a_code_used_already_is_told_so(client, city, session, frozen_clock):
    secret, url = enrolled(client, session, city["portal"], frozen_clock)
    frozen_clock(NOON + timedelta(minutes=2))
    code = pyotp.TOTP(secret).at(NOON + timedelta(minutes=2))
    first = pf.Browser(client)
    first.open(url)
    first.submit(email="kim@v.example", password=pf.PASSWORD)
    assert pf.code_from(first.submit(code=code))
    again = pf.Browser(client)
    again.open(url)
    again.submit(email="kim@v.example", password=pf.PASSWORD)
    assert again.submit(code=code).status_code == 401
    assert "it was used already. Wait for the next code your app shows." in again.page
    assert again.submit(code="123456").status_code == 401 and "used already" not in again.page
