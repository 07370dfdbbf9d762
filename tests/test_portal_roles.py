"""Each role does its whole job in the portal, in Chromium, at desktop size and on a phone
(390 x 844): a dispatcher files a manifest with its scan and corrects it, a restaurant reads
what is due and its findings (in Spanish too) and downloads its record, a site clerk confirms
one delivery and disputes another, an auditor reads the city at a glance and downloads every
list. axe-core finds no violation on any view; on the phone nothing scrolls sideways, every
list is cards with its key fields on top, and every control is a 44 px target."""

import csv
import io
import re
from datetime import datetime, timedelta

import pytest
import requests
from pypdf import PdfReader
from selenium.common.exceptions import StaleElementReferenceException

from tests.browser import (  # noqa: F401
    AUDITOR,
    CLERK,
    DISPATCHER,
    LA,
    OPERATOR,
    accessible,
    api_token,
    bearer,
    button,
    by_css,
    chromium,
    downloaded,
    fits,
    message,
    portal_app_at,
    portal_at_size,
    portal_sign_in,
    rows,
    scan,
    screen,
    set_value,
    sign_in,
    sign_out,
    text_of,
    type_into,
    waiting_for,
)


@pytest.fixture
def portal(portal_at_size):
    """The demo's portal at the screen's size (`tests.browser.portal_at_size`)."""
    return portal_at_size


HUMAN_TIME = r"\d{4}-\d\d-\d\d \d\d:\d\d -0[78]:00"


def click_when_drawn(browser, title):
    """Click the button `title` once the view has stopped drawing it anew (a list that finishes
    loading draws its buttons again, and a button found before that is gone)."""

    def clicked(b):
        try:
            button(b, title).click()
            return True
        except StaleElementReferenceException:
            return False

    waiting_for(browser, clicked, title)


def fresh_download(browser):
    for old in browser.downloads.iterdir():
        old.unlink()


# The signed-out page -------------------------------------------------------------------------


def test_after_sign_out_the_header_shows_nobody(portal, screen):
    browser, _ = portal
    accessible(browser, "the sign-in page")
    fits(browser, screen, "the sign-in page")
    sign_in(browser, OPERATOR)
    waiting_for(browser, lambda b: by_css(b, "article[data-fse]"), "the restaurants")
    assert by_css(browser, "#who")[0].is_displayed() and "Ana Ruiz" in text_of(browser, "#who-name")
    button(browser, "Sign out", within="#who").click()
    waiting_for(browser, lambda b: message(b) == "You are signed out.", "the sign-out")
    # Nobody named, no sign-out to press, the sign-in form back and nothing of the view left.
    assert not by_css(browser, "#who")[0].is_displayed() and not by_css(browser, "#sign-out")[0].is_displayed()
    assert browser.execute_script("return document.getElementById('who-name').textContent") == ""
    assert by_css(browser, "#sign-in")[0].is_displayed() and by_css(browser, "#view article") == []
    accessible(browser, "the signed-out page")
    fits(browser, screen, "the signed-out page")


# A hauler's dispatcher ---------------------------------------------------------------------------


def test_a_dispatcher_files_a_manifest_with_its_scan_and_corrects_it(portal, screen, tmp_path):
    browser, base = portal
    sign_in(browser, DISPATCHER)
    waiting_for(browser, lambda b: by_css(b, "#file-submit") and rows(b, "#recent"), "the filing form")
    accessible(browser, "the dispatcher's view")
    fits(browser, screen, "the dispatcher's view")
    # Yesterday morning in Victorville, as the dispatcher's clock reads it.
    day = (datetime.now(LA) - timedelta(days=1)).date().isoformat()
    for selector, value in (
        ("#file-number", "IGS-PORTAL-1"),
        ("#file-permit", "VV-FOG-0002"),
        ("#file-device", "GI-1"),
        ("#file-vehicle", "TRK-7"),
        ("#file-driver", "Ray Delgado"),
        ("#file-gallons", 1400),
        ("#file-fog", 10),
        ("#file-solids", 5),
        ("#file-liquid", 48),
        ("#file-signer", "Ana Ruiz"),
    ):
        type_into(browser, selector, value)
    set_value(browser, "#file-started", f"{day}T09:00")
    set_value(browser, "#file-completed", f"{day}T09:45")
    by_css(browser, "#file-scan")[0].send_keys(str(scan(tmp_path)))
    by_css(browser, "#file-submit")[0].click()
    answer = waiting_for(
        browser,
        lambda b: "is filed" in text_of(b, "#file-answer") and text_of(b, "#file-answer"),
        "the filing's answer",
    )
    # The findings at once, in words with their rule: 15 in of 48 is over the quarter.
    assert "Manifest IGS-PORTAL-1 is filed (revision 1)." in answer
    assert "Victorville 10.03.160(f)(1)" in answer and "twenty_five_percent_exceeded" not in answer
    assert re.search(HUMAN_TIME, answer)
    headers = bearer(base, "demo-hauler")
    [filed] = [
        m
        for m in requests.get(f"{base}/v1/manifests?limit=200", headers=headers, timeout=10).json()["items"]
        if m["manifest_number"] == "IGS-PORTAL-1"
    ]
    assert [d["filename"] for d in filed["documents"]] == ["manifest-scan.pdf"]
    # The time typed was the city's wall clock.
    completed = datetime.fromisoformat(filed["manifest"]["service_completed_at"].replace("Z", "+00:00"))
    assert completed.astimezone(LA).strftime("%Y-%m-%dT%H:%M") == f"{day}T09:45"
    assert "twenty_five_percent_exceeded" in [f["code"] for f in filed["findings"]]

    # Corrected from the list of recent manifests: the depths were misread.
    waiting_for(
        browser,
        lambda b: any(row[0].startswith("IGS-PORTAL-1") for row in rows(b, "#recent")),
        "the new manifest listed",
    )
    next(
        b for b in by_css(browser, "#recent button") if b.get_attribute("aria-label") == "Correct IGS-PORTAL-1"
    ).click()
    waiting_for(browser, lambda b: by_css(b, "#fix-reason"), "the correction form")
    assert by_css(browser, "#fix-started")[0].get_attribute("value") == f"{day}T09:00"
    accessible(browser, "the correction form")
    fits(browser, screen, "the correction form")
    type_into(browser, "#fix-reason", "FOG and solids were 5 and 3 in; the driver misread the rod.")
    type_into(browser, "#fix-fog", 5)
    type_into(browser, "#fix-solids", 3)
    by_css(browser, "#fix-submit")[0].click()
    fixed = waiting_for(
        browser,
        lambda b: "revision 2" in text_of(b, "#fix-answer") and text_of(b, "#fix-answer"),
        "the correction's answer",
    )
    assert "Victorville 10.03.160(f)(1)" not in fixed
    again = requests.get(f"{base}/v1/manifests/{filed['id']}", headers=headers, timeout=10).json()
    assert again["revision"] == 2 and "twenty_five_percent_exceeded" not in [f["code"] for f in again["findings"]]
    # A refusal is shown beside the field it concerns, in words, and nothing is filed.
    type_into(browser, "#file-number", "IGS-PORTAL-2")
    type_into(browser, "#file-permit", "NO-SUCH-PERMIT")
    by_css(browser, "#file-submit")[0].click()
    waiting_for(browser, lambda b: by_css(b, "#message.error") and by_css(b, "#file-permit-error"), "the refusal")
    assert "permit" in text_of(browser, "#file-permit-error").lower()
    # The driver's view in Spanish.
    from selenium.webdriver.support.ui import Select

    Select(by_css(browser, "#language")[0]).select_by_value("es")
    waiting_for(
        browser,
        lambda b: by_css(b, "#file-submit") and by_css(b, "#file-submit")[0].text == "Presentar el manifiesto",
        "the driver's view in Spanish",
    )
    view = browser.execute_script("return document.getElementById('view').textContent")
    assert "Equipos por vencer" in view and "Vence pronto" in view and "Hora local (America/Los_Angeles)" in view
    accessible(browser, "the driver's view in Spanish")
    fits(browser, screen, "the driver's view in Spanish")


# A restaurant operator ------------------------------------------------------------------------


def test_a_restaurant_reads_what_is_due_and_its_findings_and_downloads_its_record(portal, screen):
    browser, base = portal
    sign_in(browser, OPERATOR)
    cards = waiting_for(
        browser,
        lambda b: len(by_css(b, "article[data-fse]")) == 2 and by_css(b, "article[data-fse]"),
        "both restaurants",
    )
    accessible(browser, "the restaurant's view")
    fits(browser, screen, "the restaurant's view")
    golden = next(card for card in cards if by_css(card, "h2")[0].text == "Golden Wok")
    record = requests.get(
        f"{base}/v1/fses/{golden.get_attribute('data-fse')}/records", headers=bearer(base, "demo-fse"), timeout=10
    ).json()
    # Each device and when it is next due.
    devices = browser.execute_script(
        "return [...arguments[0].querySelectorAll('table')[0].querySelectorAll('tbody tr')]"
        ".map((tr) => [...tr.querySelectorAll('td')].map((td) => td.innerText.trim()))",
        golden,
    )
    assert sorted((row[0].split(" (")[0], row[4]) for row in devices) == sorted(
        (d["tag"], d["next_due_on"]) for d in record["devices"]
    )
    # Its findings in words, each with the rule behind it, no code in sight.
    findings = text_of(browser, f"article[data-fse='{golden.get_attribute('data-fse')}'] .finding-list")
    assert "Rule: Victorville 10.03.160(f)(1)" in findings and "29.6% of the 48-in design depth" in findings
    assert "_" not in text_of(browser, "#view")
    # The record with its scans.
    button(
        browser, "Records with scans (ZIP)", within=f"article[data-fse='{golden.get_attribute('data-fse')}']"
    ).click()
    import zipfile

    with zipfile.ZipFile(downloaded(browser)) as bundle:
        assert bundle.testzip() is None and bundle.namelist()
    fresh_download(browser)
    # In Spanish: the page says so, and reads so.
    from selenium.webdriver.support.ui import Select

    assert by_css(browser, "#language")[0].is_displayed()

    Select(by_css(browser, "#language")[0]).select_by_value("es")
    waiting_for(
        browser,
        lambda b: text_of(b, "#view h1") == "Sus restaurantes" and by_css(b, "article .finding-list"),
        "the view in Spanish",
    )
    assert browser.execute_script("return document.documentElement.lang") == "es"
    view = browser.execute_script("return document.getElementById('view').textContent")
    assert "Omitido" in view and "Próximo vencimiento" in view and "GT-1 (trampa)" in view and "(vigente)" in view
    assert "Grasa y sólidos sobre el 25% de la profundidad" in view and "Regla: Victorville 10.03.160(f)(1)" in view
    accessible(browser, "the restaurant's view in Spanish")
    fits(browser, screen, "the restaurant's view in Spanish")
    golden = next(card for card in by_css(browser, "article[data-fse]") if by_css(card, "h2")[0].text == "Golden Wok")
    button(browser, "Expediente (PDF)", within=f"article[data-fse='{golden.get_attribute('data-fse')}']").click()
    binder = downloaded(browser)
    assert binder.suffix == ".pdf" and "Golden Wok" in PdfReader(binder).pages[0].extract_text()


# A disposal site's clerk ------------------------------------------------------------------------


def delivery_rows(browser):
    return {row[0]: row for row in rows(browser)}


def test_a_site_clerk_confirms_one_delivery_and_disputes_another(portal, screen):
    browser, base = portal
    sign_in(browser, CLERK)
    waiting_for(browser, lambda b: len(rows(b)) > 5, "the deliveries")
    # Every load on one page here (fewer than a page's 50), and only those of a state when asked.
    from selenium.webdriver.support.ui import Select

    assert not [b for b in by_css(browser, "#view button") if b.is_displayed() and b.text == "Show more"]
    Select(by_css(browser, "#deliveries-state")[0]).select_by_value("received")
    button(browser, "Show").click()
    waiting_for(browser, lambda b: rows(b) and {row[2] for row in rows(b)} == {"Received"}, "the received loads")
    Select(by_css(browser, "#deliveries-state")[0]).select_by_value("")
    button(browser, "Show").click()
    waiting_for(browser, lambda b: {row[2] for row in rows(b)} == {"Received", "Awaiting the site"}, "every load")
    accessible(browser, "the clerk's view")
    fits(browser, screen, "the clerk's view")
    shown = delivery_rows(browser)
    site_side = requests.get(f"{base}/v1/deliveries?limit=200", headers=bearer(base, "demo-site"), timeout=10).json()
    awaiting = [d for d in site_side["items"] if d["state"] == "awaiting"]
    assert len(awaiting) == 1 and shown[awaiting[0]["ticket_number"]][2] == "Awaiting the site"
    # What the hauler says it brought, beside the site's receipt, in the city's time.
    light = shown["HDR-00015"]
    assert light[5] == "48 gal" and light[6].startswith("40 gal, ") and re.search(HUMAN_TIME, light[1])

    # Confirmed: the load weighed in as filed.
    ticket = awaiting[0]["ticket_number"]
    next(b for b in by_css(browser, "#view button") if b.text == f"Confirm or dispute {ticket}").click()
    waiting_for(browser, lambda b: by_css(b, "#confirm-delivery"), "the chosen delivery")
    accessible(browser, "a chosen delivery")
    fits(browser, screen, "a chosen delivery")
    by_css(browser, "#confirm-delivery")[0].click()
    waiting_for(browser, lambda b: delivery_rows(b).get(ticket, [None] * 3)[2] == "Received", "the receipt")
    assert message(browser) == f"Ticket {ticket} is confirmed as received."

    # Disputed: the light load, with the site's reason.
    next(b for b in by_css(browser, "#view button") if b.text == "Confirm or dispute HDR-00015").click()
    waiting_for(browser, lambda b: by_css(b, "#dispute-reason"), "the chosen delivery")
    by_css(browser, "#dispute-delivery")[0].click()
    waiting_for(browser, lambda b: "Say why" in message(b), "the reason asked for")
    reason = "The scale read 40 gallons; the driver agreed at the gate."
    type_into(browser, "#dispute-reason", reason)
    by_css(browser, "#dispute-delivery")[0].click()
    waiting_for(browser, lambda b: delivery_rows(b).get("HDR-00015", [None] * 3)[2] == "Disputed", "the dispute")
    assert reason in delivery_rows(browser)["HDR-00015"][7]
    accessible(browser, "the deliveries after a dispute")
    # The city reads it in its reconciliation.
    rows_ = requests.get(
        f"{base}/v1/audit/disposal-reconciliation?code=disputed&from=2000-01-01",
        headers=bearer(base, "demo-auditor"),
        timeout=10,
    ).json()["items"]
    assert [(r["ticket_number"], r["message"].endswith(reason)) for r in rows_] == [("HDR-00015", True)]
    assert not [
        d
        for d in requests.get(
            f"{base}/v1/deliveries?state=awaiting", headers=bearer(base, "demo-site"), timeout=10
        ).json()["items"]
    ]


# A city auditor ----------------------------------------------------------------------------------


TABS = ["Missed services", "Findings", "Frequency recommendations", "Disposal reconciliation", "Haulers"]


def test_an_auditor_reads_the_city_at_a_glance_and_downloads_every_list(portal, screen):
    browser, base = portal
    sign_in(browser, AUDITOR)
    waiting_for(browser, lambda b: rows(b) and by_css(b, "figure.chart"), "the dashboard and the first list")
    # The auditor's view is written in English alone: no language to choose.
    assert not by_css(browser, "#language")[0].is_displayed()
    headers = bearer(base, "demo-auditor")
    trends = requests.get(f"{base}/v1/audit/trends?months=12", headers=headers, timeout=10).json()
    # Each chart draws the API's months, a bar each.
    for key in ("missed_services", "late_filings", "findings"):
        drawn = browser.execute_script(
            "return [...document.querySelectorAll(`figure[data-chart='${arguments[0]}'] g[data-month]`)]"
            ".map((g) => [g.dataset.month, Number(g.dataset.value)])",
            key,
        )
        assert drawn == [[m["month"], m[key]] for m in trends["months"]], key
    assert text_of(browser, "#due-soon .figure") == str(trends["due_soon"])
    assert sum(m["findings"] for m in trends["months"]) > 0
    for title in TABS:
        button(browser, title).click()
        waiting_for(
            browser, lambda b: text_of(b, "#audit-panel h2") == title and (rows(b) or by_css(b, "#view .empty")), title
        )
        view = text_of(browser, "#view")
        assert "undefined" not in view and "null" not in view and not re.search(r"\b[a-z]+_[a-z_]+\b", view), title
        accessible(browser, f"the auditor's {title}")
        fits(browser, screen, f"the auditor's {title}")
        fresh_download(browser)
        click_when_drawn(browser, "Download CSV")
        sheet = downloaded(browser)
        lines = list(csv.reader(io.StringIO(sheet.read_text())))
        assert len(lines) - 1 == len(rows(browser)), title
    # The findings' counts in words.
    button(browser, "Findings").click()
    waiting_for(browser, lambda b: by_css(b, "#view ul.counts li"), "the counts")
    assert "FOG and solids over the depth limit: 5" in text_of(browser, "#view ul.counts")
    # Filtered by a finding named in words.
    from selenium.webdriver.support.ui import Select

    Select(by_css(browser, "#findings-code")[0]).select_by_visible_text("Manifest filed late")
    button(browser, "Show").click()
    waiting_for(browser, lambda b: by_css(b, "#view .empty"), "no late filing")
    Select(by_css(browser, "#findings-code")[0]).select_by_visible_text("FOG and solids over the depth limit")
    button(browser, "Show").click()
    waiting_for(browser, lambda b: len(rows(b)) == 5, "the five findings of that rule")
    assert {row[-1] for row in rows(browser)} == {"Victorville 10.03.160(f)(1)"}
    # Missed services over a period, not on a day.
    button(browser, "Missed services").click()
    waiting_for(browser, lambda b: by_css(b, "#missed-from"), "the missed services")
    set_value(browser, "#missed-from", f"{trends['months'][0]['month']}-01")
    button(browser, "Show").click()
    waiting_for(
        browser, lambda b: text_of(b, "#view caption").startswith("Missed from "), "the period's missed services"
    )
    missed = requests.get(
        f"{base}/v1/audit/missed-services",
        params={"from": f"{trends['months'][0]['month']}-01"},
        headers=headers,
        timeout=10,
    ).json()["items"]
    assert len(rows(browser)) == len(missed) >= sum(m["missed_services"] for m in trends["months"])
    assert "undefined" not in text_of(browser, "#view")


def test_a_clerk_signs_in_as_a_person_sees_the_deliveries_and_signs_out_to_nobody(portal, screen, session):
    from sqlalchemy import update

    from services.demo.people import DEMO_PASSWORD
    from storage.people import OAuthApp

    browser, base = portal
    session.execute(
        update(OAuthApp).where(OAuthApp.client_id == "fogx-portal").values(redirect_uris=[f"{base}/portal/"])
    )
    session.commit()
    portal_sign_in(browser, "clerk@demo.fogx.test", DEMO_PASSWORD)
    waiting_for(browser, lambda b: len(rows(b)) > 5, "the deliveries")
    assert text_of(browser, "#who-name") == "Gate Clerk · disposal site"
    assert text_of(browser, "#view h1") == "Deliveries to your site"
    fits(browser, screen, "the clerk's view, signed in as a person")
    sign_out(browser)
    assert not by_css(browser, "#who")[0].is_displayed() and text_of(browser, "#who-name") == ""
    assert by_css(browser, "#view tbody tr") == []
