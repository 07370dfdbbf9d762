"""The web portal: its pages as served, and the portal itself in a real browser (Chromium, driven
by Selenium) against the app over HTTP with the demo loaded."""

import re
from datetime import UTC

import pytest
import requests
from pypdf import PdfReader
from sqlalchemy import update

from api.portal import POLICY
from services.demo.people import DEMO_APP
from storage.models import Fse
from tests.browser import (  # noqa: F401
    AUDITOR,
    DISPATCHER,
    OPERATOR,
    active,
    api_token,
    button,
    by_css,
    chromium,
    count_fetches,
    downloaded,
    fetches_made,
    fetches_pending,
    message,
    portal,
    rows,
    sign_in,
    text_of,
    waiting_for,
)

# The pages as served ------------------------------------------------------------------------


def test_the_root_leads_to_the_portal(client):
    response = client.get("/")
    assert response.status_code == 302 and response.headers["Location"].endswith("/portal/")


def test_the_portal_page_runs_only_its_own_files(client):
    response = client.get("/portal/")
    assert response.status_code == 200 and response.mimetype == "text/html"
    assert response.headers["Content-Security-Policy"] == POLICY
    assert "script-src 'self'" in POLICY and "'unsafe-inline'" not in POLICY and "frame-ancestors 'none'" in POLICY
    assert response.headers["X-Frame-Options"] == "DENY"
    page = response.get_data(as_text=True)
    # Every script is a file of the portal's; none is written inline, which the policy would refuse.
    assert page.count("<script") == page.count('<script type="module" src="/portal/') == 1
    script = client.get("/portal/portal.js")
    assert script.status_code == 200 and script.mimetype in ("text/javascript", "application/javascript")
    assert client.get("/portal/portal.css").mimetype == "text/css"


@pytest.mark.parametrize("path", ["/portal/nothing.js", "/portal/../api/app.py", "/portal/%2e%2e/wsgi.py"])
def test_a_file_the_portal_does_not_have_is_a_problem_404(client, path):
    response = client.get(path)
    assert response.status_code == 404
    assert response.mimetype == "application/problem+json"


# The portal in a browser --------------------------------------------------------------------


def test_an_operator_sees_each_restaurant_as_its_record_has_it_and_downloads_the_binder(portal):
    browser, base = portal
    sign_in(browser, OPERATOR)
    cards = waiting_for(
        browser,
        lambda b: len(by_css(b, "article[data-fse]")) == 2 and by_css(b, "article[data-fse]"),
        "both restaurants",
    )
    assert "Ana Ruiz · restaurant operator" in by_css(browser, "#who-name")[0].text
    # Each device's status and due date are the ones its record gives.
    bearer = {"Authorization": f"Bearer {api_token(base, 'demo-fse')}"}
    for card in cards:
        record = requests.get(
            f"{base}/v1/fses/{card.get_attribute('data-fse')}/records", headers=bearer, timeout=10
        ).json()
        assert by_css(card, "h2")[0].text == record["fse"]["name"]
        devices, services = by_css(card, "table")
        shown = {
            row[0].split(" (")[0]: row
            for row in [[cell.text for cell in by_css(tr, "td")] for tr in by_css(devices, "tbody tr")]
        }
        for device in record["devices"]:
            assert shown[device["tag"]][4] == device["next_due_on"]
        assert len(by_css(services, "tbody tr")) == len(record["manifests"])
    golden = next(card for card in cards if by_css(card, "h2")[0].text == "Golden Wok")
    assert "Missed" in golden.text and "Victorville 10.03.160(f)(1)" in golden.text
    # Beside each load, what the disposal site says it received (its receipt of the ticket).
    light = next(
        row
        for row in [[cell.text for cell in by_css(tr, "td")] for tr in by_css(by_css(golden, "table")[1], "tbody tr")]
        if row[1] == "IGS-0015"
    )
    assert (light[3], light[4]) == ("48", "40 gal")
    button(browser, "Binder (PDF)", within=f"article[data-fse='{golden.get_attribute('data-fse')}']").click()
    binder = downloaded(browser)
    assert binder.suffix == ".pdf" and binder.name.startswith("Golden Wok - fogx records 0479-031-22")
    text = "".join(page.extract_text() for page in PdfReader(binder).pages[:3])
    assert "Golden Wok" in text


def test_the_portal_asks_no_one_for_a_client_secret(client):
    """A browser is a public client: people sign in as people, and a program keeps its secret
    on its own server. The page has no field for a client's ID or secret, and no script of it
    asks for a token with one (the client credentials grant)."""
    page = client.get("/portal/").get_data(as_text=True)
    assert 'id="person-sign-in"' in page
    for asked in ("client-id", "client-secret", "client_secret", "Client secret", 'type="password"'):
        assert asked not in page, asked
    scripts = ["/portal/portal.js", "/portal/person.js"] + [
        f"/portal/js/{name}"
        for name in (
            "api.js",
            "auditor.js",
            "dashboard.js",
            "dom.js",
            "hauler.js",
            "i18n.js",
            "lists.js",
            "manifest-form.js",
            "restaurant.js",
            "site.js",
            "time.js",
        )
    ]
    for path in scripts:
        script = client.get(path)
        assert script.status_code == 200, path
        assert "client_credentials" not in script.get_data(as_text=True), path
        assert "client_secret" not in script.get_data(as_text=True), path


def test_an_auditor_filters_the_lists_and_downloads_the_same_csv_as_the_api(portal):
    browser, base = portal
    sign_in(browser, AUDITOR)
    waiting_for(browser, lambda b: rows(b), "the missed services")
    assert rows(browser)[0][:4] == [
        "Golden Wok",
        "12120 Hesperia Rd, Victorville, CA 92395",
        "VV-FOG-0002 (active)",
        "GI-1",
    ]
    assert rows(browser)[0][-1] == "Missed"
    button(browser, "Download CSV").click()
    csv = downloaded(browser)
    bearer = {"Authorization": f"Bearer {api_token(base, 'demo-auditor')}"}
    assert (
        csv.read_bytes()
        == requests.get(f"{base}/v1/audit/missed-services?format=csv", headers=bearer, timeout=10).content
    )
    # A restaurant in the list opens its record in place, and the list comes back as it was.
    button(browser, "Golden Wok").click()
    waiting_for(browser, lambda b: by_css(b, "#view article[data-fse]"), "Golden Wok's record")
    assert by_css(browser, "#view article h2")[0].text == "Golden Wok" and button(browser, "Binder (PDF)")
    button(browser, "Back to the list").click()
    waiting_for(browser, lambda b: rows(b) and rows(b)[0][0] == "Golden Wok", "the list again")
    # Filtered: none of the city's past-due devices is merely overdue.
    from selenium.webdriver.support.ui import Select

    Select(by_css(browser, "#missed-status")[0]).select_by_value("overdue")
    button(browser, "Show").click()
    waiting_for(browser, lambda b: by_css(b, "#view .empty"), "the empty list")
    assert by_css(browser, "#view .empty")[0].text == "No device is past due."
    button(browser, "Disposal reconciliation").click()
    waiting_for(browser, lambda b: any("HDR-00015" in row for row in rows(b)), "the reconciliation")
    light = next(row for row in rows(browser) if "HDR-00015" in row)
    assert light[:2] == ["High Desert Renewables", "HDR-00015"] and light[5].startswith("48 gal")
    assert light[6].startswith("40 gal")
    # The tabs answer the keys of a tab list: from the first, Left wraps to the last.
    from selenium.webdriver.common.keys import Keys

    first = by_css(browser, "[role=tab]")[0]
    first.click()
    waiting_for(browser, lambda b: rows(b) and rows(b)[0][0] == "Golden Wok", "the missed services again")
    assert [t.get_attribute("tabindex") for t in by_css(browser, "[role=tab]")] == ["0", "-1", "-1", "-1", "-1", "-1"]
    first.send_keys(Keys.ARROW_LEFT)
    waiting_for(
        browser,
        lambda b: b.switch_to.active_element.text == "Haulers" and text_of(b, "#audit-panel h2") == "Haulers",
        "the last tab by the keys",
    )
    assert by_css(browser, "#tab-haulers")[0].get_attribute("aria-selected") == "true"
    # Tabs run through faster than their lists load: the panel shows the last one chosen, once
    # every list asked for has answered and been read (none left to draw over it).
    count_fetches(browser)
    for _ in range(3):
        browser.switch_to.active_element.send_keys(Keys.ARROW_RIGHT)
    waiting_for(browser, lambda b: text_of(b, "#audit-panel h2") == "Frequency recommendations", "the last chosen")
    waiting_for(browser, lambda b: fetches_pending(b) == 0, "every list asked for answered and read")
    assert fetches_made(browser) >= 3  # a list for each tab passed through
    assert text_of(browser, "#audit-panel h2") == "Frequency recommendations"
    button(browser, "Haulers").click()
    waiting_for(browser, lambda b: any(row[0] == "Inland Grease Services" for row in rows(b)), "the scorecards")
    [hauler] = requests.get(f"{base}/v1/haulers", headers=bearer, timeout=10).json()["items"]
    card = requests.get(f"{base}/v1/audit/haulers/{hauler['id']}/scorecard", headers=bearer, timeout=10).json()
    [shown] = rows(browser)
    assert shown[2] == str(card["manifests"]) and shown[3] == f"{round(card['on_time_share'] * 100)}%"
    # The scorecards as a sheet too, with the figures shown.
    csv.unlink()
    button(browser, "Download CSV").click()
    sheet = downloaded(browser)
    header, line = sheet.read_text().splitlines()[:2]
    assert header.startswith("hauler,licence,from,to,manifests")
    assert line.startswith(f"{hauler['name']},{hauler['licence_number']},") and f",{card['manifests']}," in line


@pytest.mark.parametrize("lead", ["=", "\t="])
def test_a_sheet_the_portal_makes_quotes_cells_a_spreadsheet_would_run(portal, session, lead):
    """The scorecards' CSV is made in the page: a hauler's name a spreadsheet would run as a
    formula (led by `=`, or by a TAB it skips) is quoted as the API's own sheets quote it."""
    from storage.models import Hauler

    name = lead + 'HYPERLINK("http://evil","x")'
    session.execute(update(Hauler).where(Hauler.name == "Inland Grease Services").values(name=name))
    session.commit()
    browser, _ = portal
    sign_in(browser, AUDITOR)
    waiting_for(browser, lambda b: rows(b), "the missed services")
    button(browser, "Haulers").click()
    waiting_for(browser, lambda b: any(row[0] == name.strip() for row in rows(b)), "the scorecards")
    button(browser, "Download CSV").click()
    import csv

    sheet = list(csv.reader(downloaded(browser).read_text().splitlines()))
    assert sheet[1][0] == "'" + name


def test_a_hauler_sees_the_devices_coming_due(portal):
    browser, _ = portal
    sign_in(browser, DISPATCHER)
    waiting_for(browser, lambda b: rows(b, "#due"), "the due list")
    assert [(row[0], row[3], row[-1]) for row in rows(browser, "#due")] == [
        ("Golden Wok", "GI-1 (interceptor)", "Missed"),
        ("Mesa Grill", "GI-1 (interceptor)", "Due soon"),
        ("Golden Wok", "GT-1 (trap)", "Due soon"),
    ]
    within = by_css(browser, "#due-within_days")[0]
    within.send_keys("400")
    button(browser, "Show").click()
    # The browser holds the form back by the field's limits...
    assert within.get_attribute("validationMessage") and message(browser) == ""
    # ...and what the API refuses anyway is shown as the API words it.
    browser.execute_script("arguments[0].removeAttribute('max')", within)
    button(browser, "Show").click()
    waiting_for(browser, lambda b: "within_days" in message(b), "the refusal")
    assert message(browser).startswith("Validation failed. within_days: ") and "365" in message(browser)
    assert len(rows(browser, "#due")) == 3  # the list shown before stays


def test_names_from_the_registry_are_shown_as_text(portal, session):
    browser, _ = portal
    hostile = "<img src=x onerror=\"document.title='taken'\">Mesa Grill"
    session.execute(update(Fse).where(Fse.name == "Mesa Grill").values(name=hostile))
    session.commit()
    sign_in(browser, OPERATOR)
    waiting_for(browser, lambda b: len(by_css(b, "article[data-fse]")) == 2, "both restaurants")
    assert hostile in [h2.text for h2 in by_css(browser, "article h2")]
    assert by_css(browser, "#view img") == [] and browser.title == "fogx portal"


def test_signing_out_revokes_the_token_and_a_revoked_one_signs_the_portal_out(portal):
    browser, base = portal
    sign_in(browser, AUDITOR)
    waiting_for(browser, lambda b: rows(b), "the missed services")
    token = browser.execute_script("return JSON.parse(sessionStorage.getItem('fogx.portal.session')).token")
    button(browser, "Sign out", within="#who").click()
    waiting_for(browser, lambda b: message(b) == "You are signed out.", "the sign-out")
    assert browser.execute_script("return sessionStorage.length") == 0
    # Nobody is shown as signed in, and there is no sign-out button to press.
    assert not browser.find_element("id", "who").is_displayed()
    waiting_for(browser, lambda _: not active(base, token), "the token revoked")
    # A sign-in ended elsewhere (its refresh token revoked, as from another tab): the next
    # thing asked of the API returns the portal to sign-in.
    sign_in(browser, AUDITOR)
    waiting_for(browser, lambda b: rows(b), "the missed services")
    kept = browser.execute_script("return JSON.parse(sessionStorage.getItem('fogx.portal.session'))")
    requests.post(
        f"{base}/oauth/revoke",
        timeout=10,
        data={"token": kept["refreshToken"], "token_type_hint": "refresh_token", "client_id": DEMO_APP},
    )
    assert not active(base, kept["token"])
    button(browser, "Findings").click()
    waiting_for(browser, lambda b: b.find_element("id", "sign-in").is_displayed(), "the sign-in form")
    assert message(browser) == "Your session has ended. Sign in again."


def test_signing_out_after_a_reload_still_revokes_the_token(portal):
    """The page reloaded keeps the session in the tab; signing out ends the token all the same."""
    browser, base = portal
    sign_in(browser, AUDITOR)
    waiting_for(browser, lambda b: rows(b), "the missed services")
    token = browser.execute_script("return JSON.parse(sessionStorage.getItem('fogx.portal.session')).token")
    browser.refresh()
    waiting_for(browser, lambda b: rows(b), "the missed services after the reload")
    button(browser, "Sign out", within="#who").click()
    waiting_for(browser, lambda b: message(b) == "You are signed out.", "the sign-out")
    waiting_for(browser, lambda _: not active(base, token), "the token revoked")


def test_an_operator_of_many_restaurants_opens_each_record_when_asked(portal, session):
    from tests import factories
    from tests import people_factories as pf

    browser, _ = portal
    fses = [factories.fse(session, name=f"Taqueria {n}") for n in range(6)]
    pf.person(
        session,
        email="many@taquerias.example",
        organisation="restaurant",
        role="operator",
        fse_ids=[f.id for f in fses],
    )
    sign_in(browser, "many@taquerias.example", pf.PASSWORD)
    cards = waiting_for(
        browser,
        lambda b: len(by_css(b, "article[data-fse]")) == 6 and by_css(b, "article[data-fse]"),
        "six restaurants",
    )
    # A record is an export (limited per client a minute): none is asked for until it is wanted.
    assert [by_css(card, ".record button")[0].text for card in cards] == ["Services, findings and measurements"] * 6
    assert all(by_css(card, ".empty")[0].text == "No grease control device on record." for card in cards)
    by_css(cards[0], ".record button")[0].click()
    waiting_for(browser, lambda b: "No services in the period." in cards[0].text, "the first record")
    assert "null" not in cards[0].text  # no list of services, and nothing in its place
    assert by_css(cards[1], ".record button")


def _local(value, zone):
    """An RFC 3339 instant of the API as `domain.dates.human` writes it for people."""
    from datetime import datetime

    from domain.dates import human

    return human(datetime.fromisoformat(value.replace("Z", "+00:00")), zone)


def test_an_operator_reads_each_service_time_in_the_citys_local_time_with_its_offset(portal):
    """The one way a time is written for people, in the portal as in the binder and the CSV:
    the city's wall clock and its offset (2026-06-30 23:30 -07:00), never UTC."""
    browser, base = portal
    sign_in(browser, OPERATOR)
    cards = waiting_for(
        browser,
        lambda b: len(by_css(b, "article[data-fse]")) == 2 and by_css(b, "article[data-fse]"),
        "both restaurants",
    )
    bearer = {"Authorization": f"Bearer {api_token(base, 'demo-fse')}"}
    for card in cards:
        record = requests.get(
            f"{base}/v1/fses/{card.get_attribute('data-fse')}/records", headers=bearer, timeout=10
        ).json()
        shown = [by_css(tr, "td")[0].text for tr in by_css(by_css(card, "table")[1], "tbody tr")]
        completed = sorted(
            (m["revisions"][-1]["document"]["manifest"]["service_completed_at"] for m in record["manifests"]),
            reverse=True,
        )
        assert shown == [_local(value, record["time_zone"]) for value in completed]
        assert all(re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d -0[78]:00", text) for text in shown)


def test_an_auditor_reads_findings_and_deliveries_in_the_citys_local_time(portal):
    browser, base = portal
    sign_in(browser, AUDITOR)
    waiting_for(browser, lambda b: rows(b), "the missed services")
    bearer = {"Authorization": f"Bearer {api_token(base, 'demo-auditor')}"}
    button(browser, "Findings").click()
    findings = requests.get(f"{base}/v1/audit/findings", headers=bearer, timeout=10).json()["items"]
    waiting_for(
        browser, lambda b: text_of(b, "#audit-panel h2") == "Findings" and len(rows(b)) == len(findings), "the findings"
    )
    assert [row[0] for row in rows(browser)] == [
        _local(f["service_completed_at"], "America/Los_Angeles") for f in findings
    ]
    button(browser, "Disposal reconciliation").click()
    waiting_for(browser, lambda b: any("HDR-00015" in row for row in rows(b)), "the reconciliation")
    light = next(row for row in rows(browser) if "HDR-00015" in row)
    answer = requests.get(f"{base}/v1/audit/disposal-reconciliation", headers=bearer, timeout=10).json()["items"]
    load = next(item for item in answer if item["ticket_number"] == "HDR-00015")
    assert light[5] == f"48 gal, {_local(load['delivered_at'], 'America/Los_Angeles')}"
    assert light[6] == f"40 gal, {_local(load['received_at'], 'America/Los_Angeles')}"


def test_the_portals_modules_are_served_as_javascript_under_its_policy(client):
    """portal.js imports its views from js/: each is served as a script the policy allows, and
    every module any of them imports is there."""
    seen, waiting = set(), ["/portal/portal.js"]
    while waiting:
        path = waiting.pop()
        if path in seen:
            continue
        seen.add(path)
        response = client.get(path)
        assert response.status_code == 200, path
        assert response.mimetype in ("text/javascript", "application/javascript"), path
        assert response.headers["Content-Security-Policy"] == POLICY
        base = path.rsplit("/", 1)[0]
        for imported in re.findall(r'^import .* from "(\.{1,2}/[^"]+)";$', response.get_data(as_text=True), re.M):
            parts = f"{base}/{imported}".split("/")
            resolved = []
            for part in parts:
                if part == "..":
                    resolved.pop()
                elif part != ".":
                    resolved.append(part)
            waiting.append("/".join(resolved))
    assert {
        "/portal/person.js",
        "/portal/js/api.js",
        "/portal/js/time.js",
        "/portal/js/i18n.js",
        "/portal/js/site.js",
        "/portal/js/auditor.js",
        "/portal/js/dashboard.js",
    } <= seen


def test_a_kitchen_logs_its_trap_cleaning_and_the_missing_day_is_gone(portal, session):
    """Placentia 16.24 Facilities Requirements (c)(3): "Grease traps shall be maintained in
    efficient operating conditions by removing accumulated grease on a daily basis." The
    restaurant's card lists each day since its permit's first without a cleaning in its log;
    logging today's cleaning in the form takes today off the list and shows the entry."""
    from datetime import datetime, timedelta

    from domain.dates import local_date
    from tests import factories
    from tests import people_factories as pf

    browser, base = portal
    today = local_date(datetime.now(UTC), "America/Los_Angeles")
    permit = factories.permit(
        session,
        fse_row=factories.fse(session, city="placentia", name="Kitchen Uno"),
        issued_on=today - timedelta(days=2),
        expires_on=today + timedelta(days=300),
    )
    trap = factories.device(
        session, permit_row=permit, tag="GT-1", kind="trap", capacity_gallons=50, liquid_depth_in=12, frequency_days=30
    )
    cook = pf.person(
        session, email="cook@kitchen-uno.example", organisation="restaurant", role="operator", fse_ids=[permit.fse_id]
    )
    sign_in(browser, "cook@kitchen-uno.example", pf.PASSWORD)
    log = f"section[data-log='{permit.fse_id}']"
    waiting_for(browser, lambda b: "no cleaning logged on" in text_of(b, log), "the missing days")
    assert [f"GT-1: no cleaning logged on {today - timedelta(days=n)}" in text_of(browser, log) for n in (2, 1, 0)] == [
        True
    ] * 3
    assert "Placentia 16.24 Facilities Requirements (c)(3)" in text_of(browser, log)
    by_css(browser, f"#log-{permit.fse_id}-by")[0].send_keys("Luis, line cook")
    button(browser, "Log the cleaning", within=log).click()
    waiting_for(browser, lambda b: "Luis, line cook" in text_of(b, log), "the logged cleaning")
    assert f"no cleaning logged on {today}" not in text_of(browser, log)
    assert f"no cleaning logged on {today - timedelta(days=1)}" in text_of(browser, log)
    # Read back by the restaurant's program: the entry was recorded by the person who signed in.
    client_id, secret = factories.oauth_client(session, role="fse", subject=[permit.fse_id])
    bearer = {"Authorization": f"Bearer {_token(base, client_id, secret)}"}
    [entry] = requests.get(f"{base}/v1/fses/{permit.fse_id}/maintenance-log", headers=bearer, timeout=10).json()[
        "items"
    ]
    assert (entry["device_id"], entry["cleaned_on"], entry["recorded_by"]["person_id"]) == (
        str(trap.id),
        today.isoformat(),
        str(cook.person_id),
    )


def _token(base, client_id, secret):
    response = requests.post(
        f"{base}/oauth/token", data={"grant_type": "client_credentials"}, auth=(client_id, secret), timeout=10
    )
    return response.json()["access_token"]
