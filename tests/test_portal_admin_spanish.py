"""The city's admin reads every tab in Spanish, the city audit's lists within it too: no English
word of the portal's dictionaries (i18n.js and each view's words) is left on the page; and a
refusal that names no field is told in Spanish beside the form's button."""

import pytest
import requests

from tests.browser import (  # noqa: F401
    bearer,
    by_css,
    chromium,
    click,
    english_on_page,
    fits,
    on_screen,
    portal_at_size,
    rows,
    screen,
    sign_in,
    speak,
    text_of,
    type_into,
    waiting_for,
)

CITY_ADMIN = "admin@demo.fogx.test"
TITLE = "City of Victorville: personas y registro"


@pytest.fixture
def portal(portal_at_size):
    """The demo's portal at the screen's size, a desktop's and a phone's (`tests.browser`)."""
    return portal_at_size


def english_left(browser, screen, where):
    """No English on the page, and on a phone the page fits it (`tests.browser.fits`)."""
    found = english_on_page(browser, [("/portal/js/i18n.js", "wordsOf")], ["header", "#view"])
    assert found == [], f"{where}: {found}"
    fits(browser, screen, where)


def test_the_city_admins_every_tab_and_the_city_audit_read_in_spanish(portal, screen):
    browser, base = portal
    sign_in(browser, CITY_ADMIN)
    waiting_for(browser, lambda b: by_css(b, "#invite-submit") and rows(b, "#people"), "the city's people")
    speak(browser, "es", TITLE)
    waiting_for(browser, lambda b: by_css(b, "#invite-submit") and rows(b, "#people"), "the city's people in Spanish")
    # The test can fail: the dictionaries hold English that a Spanish page must not show.
    assert (
        browser.execute_async_script(
            "const done = arguments[arguments.length - 1];"
            "import('/portal/js/i18n.js').then(({ wordsOf }) => done(wordsOf('en')['audit.missed']));"
        )
        == "Missed services"
    )
    english_left(browser, screen, "the people")

    admin = bearer(base, "demo-admin")
    [mesa] = requests.get(f"{base}/v1/fses", params={"q": "Mesa Grill"}, headers=admin, timeout=10).json()["items"]
    [device] = requests.get(f"{base}/v1/fses/{mesa['id']}/devices", headers=admin, timeout=10).json()["items"]
    click(browser, "#admin-tab-restaurants")
    click(browser, f"button[data-fse='{mesa['id']}']")
    click(browser, f"button[data-device='{device['id']}']")
    waiting_for(browser, lambda b: by_css(b, "#frequency-submit"), "the frequency form")
    english_left(browser, screen, "a restaurant's permits and devices, with the frequency form")

    # A device tag the restaurant has already: refused as a whole (409), told in Spanish.
    type_into(browser, "#new-device-tag", device["tag"])
    type_into(browser, "#new-device-capacity_gallons", "1000")
    type_into(browser, "#new-device-liquid_depth_in", "48")
    click(browser, "#new-device-submit")
    waiting_for(browser, lambda b: text_of(b, "#new-device-error"), "the refusal beside the button")
    assert text_of(browser, "#new-device-error") == "No se guardó: choca con lo que ya está registrado."
    assert on_screen(browser, "#new-device-error"), "the refusal out of sight"
    english_left(browser, screen, "the device refused")

    click(browser, "#admin-tab-haulers")
    click(browser, "#haulers-tab tbody button")
    waiting_for(browser, lambda b: by_css(b, "#licence-submit"), "the licence form")
    english_left(browser, screen, "the haulers")
    click(browser, "#admin-tab-sites")
    click(browser, "#sites-tab tbody button")
    waiting_for(browser, lambda b: by_css(b, "#site-status-submit"), "the site's status form")
    english_left(browser, screen, "the disposal sites")
    click(browser, "#admin-tab-sign-in")
    waiting_for(browser, lambda b: by_css(b, "#policy-submit"), "the sign-in policy")
    english_left(browser, screen, "the sign-in policy")

    # The city audit, each of its lists.
    click(browser, "#admin-tab-audit")
    waiting_for(browser, lambda b: rows(b, "#audit-panel") and by_css(b, "#due-soon"), "the audit and its figures")
    english_left(browser, screen, "the city audit")
    for key in ("findings", "frequency", "reconciliation", "corrections", "haulers", "missed"):
        click(browser, f"#tab-{key}")
        waiting_for(
            browser,
            lambda b, key=key: (
                text_of(b, f"#tab-{key}")
                and by_css(b, f"#tab-{key}[aria-selected=true]")
                and (rows(b, "#audit-panel") or by_css(b, "#audit-panel .empty"))
            ),
            f"the list {key}",
        )
        english_left(browser, screen, f"the audit's list {key}")
    # A restaurant opened from a list: its record, in Spanish too.
    click(browser, "#audit-panel tbody button.link")
    waiting_for(browser, lambda b: by_css(b, "#audit-panel article[data-fse]"), "the restaurant's record")
    english_left(browser, screen, "a restaurant's record from the audit")
