"""A city's admin registers in the portal what the city vouches for, each from the day given: a
hauler, a disposal site, a restaurant with its permit and device, and the device's frequency
changed from a later day. Each row is read back through the API, with the date given."""

from datetime import datetime, timedelta

import pytest
import requests
from selenium.webdriver.support.ui import Select

from tests.browser import (  # noqa: F401
    LA,
    bearer,
    by_css,
    chromium,
    click,
    error_beside,
    error_in_view,
    fits,
    portal_at_size,
    screen,
    set_value,
    sign_in,
    text_of,
    type_into,
    waiting_for,
)

CITY_ADMIN = "admin@demo.fogx.test"


@pytest.fixture
def portal(portal_at_size):
    """The demo's portal at the screen's size, a desktop's and a phone's (`tests.browser`)."""
    return portal_at_size


def listed(base, path, headers, **params):
    return requests.get(f"{base}{path}", params={"limit": 200, **params}, headers=headers, timeout=10).json()["items"]


def test_a_city_admin_registers_a_hauler_a_site_a_restaurant_its_permit_and_device_and_a_frequency_change(
    portal, screen
):
    browser, base = portal
    admin = bearer(base, "demo-admin")
    today = datetime.now(LA).date()
    sign_in(browser, CITY_ADMIN)
    waiting_for(browser, lambda b: by_css(b, "#invite-submit"), "the city's people")

    # A hauler, registered (and its licence vouched for) from a day before today.
    click(browser, "#admin-tab-haulers")
    waiting_for(browser, lambda b: by_css(b, "#new-hauler-submit"), "the hauler form")
    fits(browser, screen, "the hauler form")
    # Sent without a name: the error stands beside the field, in view on a phone too.
    click(browser, "#new-hauler-submit")
    waiting_for(browser, lambda b: error_beside(b, "new-hauler", "name")[0], "the error beside the name")
    assert error_beside(browser, "new-hauler", "name")[1:] == ["true", True]
    assert error_in_view(browser, "new-hauler", "name")
    fits(browser, screen, "the hauler form refused beside its field")
    type_into(browser, "#new-hauler-name", "Mojave Pumping")
    type_into(browser, "#new-hauler-licence_number", "MJP-2211")
    set_value(browser, "#new-hauler-licence_expires_on", (today + timedelta(days=300)).isoformat())
    set_value(browser, "#new-hauler-registered_on", (today - timedelta(days=3)).isoformat())
    click(browser, "#new-hauler-submit")
    waiting_for(
        browser, lambda b: "Mojave Pumping is registered." in text_of(b, "#haulers-tab"), "the hauler registered"
    )
    [hauler] = [h for h in listed(base, "/v1/haulers", admin) if h["name"] == "Mojave Pumping"]
    [approval] = hauler["approvals"]
    assert (approval["jurisdiction"], approval["registered_on"]) == (
        "victorville",
        (today - timedelta(days=3)).isoformat(),
    )
    assert [(r["licence_number"], r["effective_on"], r["expires_on"]) for r in approval["licence_history"]] == [
        ("MJP-2211", (today - timedelta(days=3)).isoformat(), (today + timedelta(days=300)).isoformat())
    ]

    # A disposal site, approved from a later day, for trap waste alone.
    click(browser, "#admin-tab-sites")
    waiting_for(browser, lambda b: by_css(b, "#new-site-submit"), "the site form")
    fits(browser, screen, "the site form")
    type_into(browser, "#new-site-name", "Adelanto Rendering")
    type_into(browser, "#new-site-address", "11600 Air Expressway, Adelanto, CA 92301")
    type_into(browser, "#new-site-facility_permit_number", "SB-FAC-77")
    click(browser, "#new-site-grease_interceptor_waste")
    click(browser, "#new-site-grease_trap_waste")
    set_value(browser, "#new-site-approved_from", (today + timedelta(days=7)).isoformat())
    click(browser, "#new-site-submit")
    waiting_for(browser, lambda b: "Adelanto Rendering is registered." in text_of(b, "#sites-tab"), "the site approved")
    [site] = [s for s in listed(base, "/v1/disposal-sites", admin) if s["name"] == "Adelanto Rendering"]
    assert (site["approved_from"], site["approved_until"], site["waste_types"]) == (
        (today + timedelta(days=7)).isoformat(),
        None,
        ["grease_trap_waste"],
    )

    # A restaurant, then its permit issued from a day given.
    click(browser, "#admin-tab-restaurants")
    waiting_for(browser, lambda b: by_css(b, "#new-fse-submit"), "the restaurant form")
    fits(browser, screen, "the restaurant form")
    for name, value in {
        "name": "Cactus Cantina",
        "address": "15000 Bear Valley Rd, Victorville, CA 92395",
        "apn": "3087-141-09",
        "operator_name": "Lena Ortiz",
        "operator_email": "lena@cactus.example",
    }.items():
        type_into(browser, f"#new-fse-{name}", value)
    click(browser, "#new-fse-submit")
    waiting_for(browser, lambda b: "Cactus Cantina is registered." in text_of(b, "#admin-panel"), "the restaurant")
    [fse] = listed(base, "/v1/fses", admin, q="Cactus Cantina")
    assert (fse["apn"], fse["operator_email"]) == ("3087-141-09", "lena@cactus.example")
    click(browser, f"button[data-fse='{fse['id']}']")
    waiting_for(browser, lambda b: by_css(b, "#new-permit-submit"), "the permit form")
    fits(browser, screen, "the permit form")
    type_into(browser, "#new-permit-permit_number", "VV-FOG-0900")
    Select(by_css(browser, "#new-permit-kind")[0]).select_by_value("regular")
    set_value(browser, "#new-permit-issued_on", (today - timedelta(days=10)).isoformat())
    set_value(browser, "#new-permit-expires_on", (today + timedelta(days=300)).isoformat())
    click(browser, "#new-permit-submit")
    waiting_for(browser, lambda b: "VV-FOG-0900" in text_of(b, "#fse-done"), "the permit issued")
    [permit] = [p for p in listed(base, "/v1/permits", admin, q="Cactus Cantina") if p["fse_id"] == fse["id"]]
    assert (permit["permit_number"], permit["kind"], permit["issued_on"], permit["status"]) == (
        "VV-FOG-0900",
        "regular",
        (today - timedelta(days=10)).isoformat(),
        "active",
    )

    # Its interceptor, on that permit, pumped every 90 days.
    waiting_for(browser, lambda b: by_css(b, "#new-device-submit"), "the device form")
    fits(browser, screen, "the device form")
    type_into(browser, "#new-device-tag", "GI-7")
    type_into(browser, "#new-device-capacity_gallons", "1500")
    type_into(browser, "#new-device-liquid_depth_in", "48.5")
    type_into(browser, "#new-device-frequency_days", "90")
    click(browser, "#new-device-submit")
    waiting_for(browser, lambda b: "GI-7" in text_of(b, "#fse-done"), "the device registered")
    [device] = listed(base, f"/v1/fses/{fse['id']}/devices", admin)
    assert (device["tag"], device["kind"], device["capacity_gallons"], device["liquid_depth_in"]) == (
        "GI-7",
        "interceptor",
        1500,
        48.5,
    )
    assert (device["permit_number"], device["frequency_days"], device["frequency_changes"]) == ("VV-FOG-0900", 90, [])

    # Every 60 days from a day past the city's notice period.
    click(browser, f"button[data-device='{device['id']}']")
    waiting_for(browser, lambda b: by_css(b, "#frequency-submit"), "the frequency form")
    fits(browser, screen, "the frequency form")
    Select(by_css(browser, "#frequency-frequency_days")[0]).select_by_value("60")
    effective = today + timedelta(days=40)
    set_value(browser, "#frequency-effective_on", effective.isoformat())
    type_into(browser, "#frequency-reason", "Measured depths call for more frequent pumping.")
    click(browser, "#frequency-submit")
    changed = f"GI-7 is pumped every 60 days from {effective.isoformat()}."
    waiting_for(browser, lambda b: changed in text_of(b, "#fse-done"), "the change recorded")
    fits(browser, screen, "the change recorded")
    read = requests.get(f"{base}/v1/fses/{fse['id']}/devices/{device['id']}", headers=admin, timeout=10).json()
    [change] = read["frequency_changes"]
    assert (change["from_days"], change["frequency_days"], change["effective_on"], change["noticed_on"]) == (
        90,
        60,
        effective.isoformat(),
        today.isoformat(),
    )
