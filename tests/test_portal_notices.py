"""A person chooses, in the portal, the language of their notices and which kinds they get: in
Chromium, at desktop size and on a phone, in English and Spanish, axe-clean."""

import pytest
import requests
from selenium.webdriver.support.ui import Select

from tests.browser import (  # noqa: F401
    OPERATOR,
    accessible,
    by_css,
    chromium,
    fits,
    message,
    portal_at_size,
    screen,
    sign_in,
    text_of,
    waiting_for,
)


@pytest.fixture
def portal(portal_at_size):
    """The demo's portal at the screen's size (`tests.browser.portal_at_size`)."""
    return portal_at_size


def test_a_restaurant_operator_chooses_the_notices_they_get(portal, screen):
    browser, base = portal
    sign_in(browser, OPERATOR)
    waiting_for(browser, lambda b: by_css(b, "#notice-choices input[type=checkbox]"), "the notice choices")
    assert text_of(browser, "#notice-choices h2") == "Notices by email"
    kinds = [box.get_attribute("name") for box in by_css(browser, "#notice-choices input[type=checkbox]")]
    assert kinds == ["device_due_soon", "device_overdue", "manifest_findings"]
    assert all(box.is_selected() for box in by_css(browser, "#notice-choices input[type=checkbox]"))
    accessible(browser, "the notice choices")
    fits(browser, screen, "the notice choices")

    Select(by_css(browser, "#language")[0]).select_by_value("es")
    waiting_for(browser, lambda b: text_of(b, "#notice-choices h2") == "Avisos por correo", "the choices in Spanish")
    assert "Un dispositivo que vence pronto" in text_of(browser, "#notice-choices")
    accessible(browser, "the notice choices in Spanish")
    fits(browser, screen, "the notice choices in Spanish")
    Select(by_css(browser, "#notice-language")[0]).select_by_value("es")
    by_css(browser, "#notice-device_due_soon")[0].click()
    by_css(browser, "#notice-save")[0].click()
    waiting_for(browser, lambda b: message(b) == "Sus preferencias de avisos están guardadas.", "the choices saved")

    token = browser.execute_script("return JSON.parse(sessionStorage.getItem('fogx.portal.session')).token")
    kept = requests.get(f"{base}/v1/me/notice-choices", headers={"Authorization": f"Bearer {token}"}, timeout=10).json()
    assert kept["language"] == "es"
    assert kept["notices"]["device_due_soon"] is False and kept["notices"]["device_overdue"] is True
