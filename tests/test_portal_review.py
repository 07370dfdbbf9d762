"""The portal where people must act, in Chromium at desktop size and on a phone: an auditor
approves one correction and rejects another while the dispatcher who sent them reads the
city's decisions; a dispatcher's form survives the access token's expiry (the refresh token
renews it) and the end of the sign-in (the draft, scan and all, waits in the tab); a refused
filing says why beside the field it concerns, in the person's language."""

from datetime import UTC, datetime, timedelta

import pytest
import requests
from selenium.webdriver.support.ui import Select

from services.demo.people import DEMO_APP
from tests.browser import (  # noqa: F401
    AUDITOR,
    CLERK,
    DISPATCHER,
    LA,
    OPERATOR,
    accessible,
    active,
    bearer,
    button,
    by_css,
    chromium,
    fits,
    message,
    portal_at_size,
    rows,
    scan,
    screen,
    set_value,
    sign_in,
    text_of,
    type_into,
    waiting_for,
)


@pytest.fixture
def portal(portal_at_size):
    """The demo's portal at the screen's size (`tests.browser.portal_at_size`)."""
    return portal_at_size


@pytest.fixture
def clock(frozen_clock):
    """The app's clock, from now; call it with seconds to move it on."""
    at = {"now": frozen_clock(datetime.now(UTC).replace(microsecond=0))}

    def later(seconds):
        at["now"] = frozen_clock(at["now"] + timedelta(seconds=seconds))
        return at["now"]

    return later


@pytest.fixture
def page(portal, screen, monkeypatch):
    """The portal at the screen's size: a desk's 1366 x 900, or the phone's 390 x 844; each
    wait as long as a busy machine needs to draw a view."""
    monkeypatch.setattr("tests.browser.WAIT", 60)
    browser, _ = portal
    if screen == "desktop":
        browser.execute_cdp_cmd(
            "Emulation.setDeviceMetricsOverride",
            {"width": 1366, "height": 900, "deviceScaleFactor": 1, "mobile": False},
        )
    return portal


def kept(browser):
    return browser.execute_script("return JSON.parse(sessionStorage.getItem('fogx.portal.session'))")


def value_of(browser, selector):
    return browser.execute_script("return document.querySelector(arguments[0]).value", selector)


# Correction review ----------------------------------------------------------------------------


def propose(base, headers, manifest):
    """The hauler's program moves a service back 30 days: past Victorville's 72 hours, so it
    waits for the city."""
    body = manifest["manifest"]
    moved = {
        name: (datetime.fromisoformat(body[name]) - timedelta(days=30)).isoformat()
        for name in ("service_started_at", "service_completed_at")
    }
    response = requests.post(
        f"{base}/v1/manifests/{manifest['id']}/corrections",
        headers=headers,
        json={**body, **moved, "reason": f"{manifest['manifest_number']} was keyed a month late"},
        timeout=60,
    )
    assert response.status_code == 202, response.text
    return response.json()


def test_an_auditor_approves_one_correction_and_rejects_another_and_the_dispatcher_reads_both(page, screen):
    browser, base = page
    hauler = bearer(base, "demo-hauler")
    manifests = requests.get(f"{base}/v1/manifests?limit=200", headers=hauler, timeout=60).json()["items"]
    approved, rejected, waiting = (propose(base, hauler, m) for m in manifests[:3])

    sign_in(browser, AUDITOR)
    waiting_for(browser, lambda b: rows(b), "the missed services")
    button(browser, "Corrections to review").click()
    waiting_for(browser, lambda b: len(rows(b)) == 3, "the three corrections waiting")
    listed = {row[0]: row for row in rows(browser)}
    first = listed[f"{approved['manifest_number']} (revision {approved['based_on_revision']})"]
    # Who asked, why it waits and what changes, in words and local times.
    assert "demo-hauler" in first[1] and "its service moved past the filing deadline" in first[2]
    assert "Service completed: " in first[3] and " → " in first[3] and "-0" in first[3]
    assert first[4] == approved["reason"]
    accessible(browser, "the corrections to review")
    fits(browser, screen, "the corrections to review")

    button(browser, f"Review {approved['manifest_number']}").click()
    waiting_for(browser, lambda b: by_css(b, "#approve-correction"), "the decision")
    accessible(browser, "a correction being decided")
    fits(browser, screen, "a correction being decided")
    type_into(browser, "#decision-reason", "The disposal ticket shows the earlier day.")
    by_css(browser, "#approve-correction")[0].click()
    waiting_for(browser, lambda b: "is approved" in message(b), "the approval")
    receipt = requests.get(f"{base}/v1/manifests/{approved['manifest_id']}", headers=hauler, timeout=60).json()
    assert receipt["revision"] == approved["based_on_revision"] + 1
    assert message(browser) == (
        f"The correction of manifest {approved['manifest_number']} is approved: it is now revision {receipt['revision']}."
    )
    waiting_for(browser, lambda b: len(rows(b)) == 2, "two corrections left")

    # A rejection needs its reason, asked for beside the field.
    button(browser, f"Review {rejected['manifest_number']}").click()
    waiting_for(browser, lambda b: by_css(b, "#reject-correction"), "the decision")
    by_css(browser, "#reject-correction")[0].click()
    waiting_for(browser, lambda b: by_css(b, "#decision-reason-error")[0].is_displayed(), "the reason asked for")
    assert browser.execute_script("return document.activeElement.id") == "decision-reason"
    accessible(browser, "a rejection without its reason")
    type_into(browser, "#decision-reason", "No service is on the restaurant's log that month.")
    by_css(browser, "#reject-correction")[0].click()
    waiting_for(browser, lambda b: "is rejected" in message(b), "the rejection")
    waiting_for(browser, lambda b: len(rows(b)) == 1, "one correction left")
    decided = requests.get(f"{base}/v1/corrections", headers=hauler, timeout=60).json()["items"]
    statuses = {c["id"]: (c["status"], c["decision_reason"]) for c in decided}
    assert statuses[approved["id"]] == ("approved", "The disposal ticket shows the earlier day.")
    assert statuses[rejected["id"]] == ("rejected", "No service is on the restaurant's log that month.")
    assert statuses[waiting["id"]] == ("pending", None)
    # The decided ones, filtered.
    Select(by_css(browser, "#corrections-status")[0]).select_by_value("rejected")
    button(browser, "Show").click()
    waiting_for(browser, lambda b: len(rows(b)) == 1 and "Rejected" in rows(b)[0][-1], "the rejected one")
    assert "No service is on the restaurant's log that month." in rows(browser)[0][-1]
    accessible(browser, "the rejected corrections")

    # The dispatcher is told which wait and what the city decided.
    button(browser, "Sign out", within="#who").click()
    waiting_for(browser, lambda b: message(b) == "You are signed out.", "the sign-out")
    sign_in(browser, DISPATCHER)
    waiting_for(browser, lambda b: len(rows(b, "#sent-corrections")) == 3, "the dispatcher's corrections")
    assert "1 of your corrections wait for the city's review." in text_of(browser, "#sent-corrections")
    told = {row[0]: row[1] for row in rows(browser, "#sent-corrections")}
    assert told[approved["manifest_number"]].startswith(f"Approved now revision {receipt['revision']}")
    assert "The city's reason: No service is on the restaurant's log that month." in told[rejected["manifest_number"]]
    assert told[waiting["manifest_number"]] == "Waiting for the city"
    accessible(browser, "the dispatcher's corrections")
    fits(browser, screen, "the dispatcher's corrections")


# Sessions kept alive, and drafts kept when one ends ---------------------------------------------


def fill_manifest(browser, tmp_path, number, permit="VV-FOG-0002"):
    day = (datetime.now(LA) - timedelta(days=1)).date().isoformat()
    for selector, value in (
        ("#file-number", number),
        ("#file-permit", permit),
        ("#file-device", "GI-1"),
        ("#file-vehicle", "TRK-7"),
        ("#file-driver", "Ray Delgado"),
        ("#file-gallons", 1400),
        ("#file-signer", "Ana Ruiz"),
    ):
        type_into(browser, selector, value)
    set_value(browser, "#file-started", f"{day}T09:00")
    set_value(browser, "#file-completed", f"{day}T09:45")
    by_css(browser, "#file-scan")[0].send_keys(str(scan(tmp_path)))


def test_a_dispatchers_form_survives_the_tokens_expiry_and_the_end_of_the_sign_in(clock, page, screen, tmp_path):
    browser, base = page
    sign_in(browser, DISPATCHER)
    waiting_for(browser, lambda b: by_css(b, "#file-submit") and rows(b, "#recent"), "the filing form")
    fill_manifest(browser, tmp_path, "IGS-SLOW-1")
    before = kept(browser)
    # 16 minutes over the form: the 15-minute access token has expired on the server's clock.
    clock(16 * 60)
    assert not active(base, before["token"])
    by_css(browser, "#file-submit")[0].click()
    waiting_for(browser, lambda b: "is filed" in text_of(b, "#file-answer"), "the filing, renewed")
    after = kept(browser)
    assert after["token"] != before["token"] and after["refreshToken"] != before["refreshToken"]
    assert active(base, after["token"])
    # The manifests list names the restaurant, not the permit.
    waiting_for(
        browser,
        lambda b: any(r[0].startswith("IGS-SLOW-1") and r[2] == "Golden Wok · GI-1" for r in rows(b, "#recent")),
        "the filed manifest, by its restaurant",
    )

    # The sign-in ends for good (revoked, as from another tab) while the next one is typed.
    requests.post(
        f"{base}/oauth/revoke",
        data={"token": after["refreshToken"], "token_type_hint": "refresh_token", "client_id": DEMO_APP},
        timeout=60,
    )
    type_into(browser, "#file-number", "IGS-SLOW-2")
    type_into(browser, "#file-driver", "Luz Navarro")
    by_css(browser, "#file-submit")[0].click()
    waiting_for(browser, lambda b: by_css(b, "#sign-in")[0].is_displayed(), "the sign-in card")
    assert message(browser) == (
        "Your session has ended. Sign in again. What you were typing is kept in this tab until you sign in again."
    )
    assert "while you use this tab" in text_of(browser, "#sign-in")
    sign_in(browser, DISPATCHER)
    waiting_for(browser, lambda b: by_css(b, "#file-number") and value_of(b, "#file-number"), "the draft back")
    assert value_of(browser, "#file-number") == "IGS-SLOW-2" and value_of(browser, "#file-driver") == "Luz Navarro"
    assert value_of(browser, "#file-gallons") == "1400"
    assert browser.execute_script("return document.querySelector('#file-scan').files[0].name") == "manifest-scan.pdf"
    assert "is back in the form" in text_of(browser, ".draft-note")
    accessible(browser, "the draft restored")
    fits(browser, screen, "the draft restored")
    by_css(browser, "#file-submit")[0].click()
    waiting_for(browser, lambda b: "IGS-SLOW-2 is filed" in text_of(b, "#file-answer"), "the draft filed")
    filed = {
        m["manifest_number"]: m
        for m in requests.get(f"{base}/v1/manifests?limit=200", headers=bearer(base, "demo-hauler"), timeout=60).json()[
            "items"
        ]
    }
    assert [d["filename"] for d in filed["IGS-SLOW-2"]["documents"]] == ["manifest-scan.pdf"]
    assert filed["IGS-SLOW-2"]["manifest"]["driver_name"] == "Luz Navarro"
    # Kept once: signing in again later finds no draft.
    assert browser.execute_script("return sessionStorage.getItem('fogx.portal.drafts')") in (None, "{}")


# Errors beside their field ----------------------------------------------------------------------


def in_view(browser, selector):
    return browser.execute_script(
        "const r = document.querySelector(arguments[0]).getBoundingClientRect();"
        "return r.top >= 0 && r.bottom <= window.innerHeight",
        selector,
    )


def test_a_refused_filing_says_why_beside_the_field_in_the_persons_language(page, screen, tmp_path):
    browser, base = page
    sign_in(browser, DISPATCHER)
    waiting_for(browser, lambda b: by_css(b, "#file-submit") and rows(b, "#recent"), "the filing form")
    fill_manifest(browser, tmp_path, "IGS-NOPE-1", permit="NO-SUCH-PERMIT")
    by_css(browser, "#file-submit")[0].click()
    waiting_for(browser, lambda b: by_css(b, "#file-permit-error"), "the permit's error")
    assert text_of(browser, "#file-permit-error") == "No permit of that number is on record in your cities."
    # Beside the field, in sight and with the focus, wherever the form is on the page.
    assert browser.execute_script("return document.activeElement.id") == "file-permit"
    assert in_view(browser, "#file-permit-error") and in_view(browser, "#file-permit")
    assert by_css(browser, "#file-permit")[0].get_attribute("aria-invalid") == "true"
    assert "permit_number" not in text_of(browser, "#view") + message(browser)
    accessible(browser, "a refused filing")
    fits(browser, screen, "a refused filing")

    # In Spanish: the half-typed form stays as it was, and the refusal is in Spanish.
    type_into(browser, "#file-driver", "Luz Navarro")
    Select(by_css(browser, "#language")[0]).select_by_value("es")
    waiting_for(browser, lambda b: text_of(b, "#file-submit") == "Presentar el manifiesto", "the view in Spanish")
    assert value_of(browser, "#file-number") == "IGS-NOPE-1" and value_of(browser, "#file-driver") == "Luz Navarro"
    assert browser.execute_script("return document.querySelector('#file-scan').files[0].name") == "manifest-scan.pdf"
    by_css(browser, "#file-submit")[0].click()
    waiting_for(browser, lambda b: by_css(b, "#file-permit-error"), "the permit's error in Spanish")
    assert text_of(browser, "#file-permit-error") == "No hay ningún permiso con ese número en sus ciudades."
    assert message(browser) == "No se envió nada: revise los campos marcados abajo."
    assert in_view(browser, "#file-permit-error")
    accessible(browser, "a refused filing in Spanish")
    # Nothing was filed.
    numbers = [
        m["manifest_number"]
        for m in requests.get(f"{base}/v1/manifests?limit=200", headers=bearer(base, "demo-hauler"), timeout=60).json()[
            "items"
        ]
    ]
    assert "IGS-NOPE-1" not in numbers


# The page's edges ---------------------------------------------------------------------------------


def test_a_sign_in_another_program_started_is_left_in_the_address_and_the_header_link_is_seen(page, screen):
    browser, base = page
    # A terminal's sign-in comes back to the portal's address: the page leaves its code there.
    browser.get(f"{base}/portal/?code=the-terminals-code&state=the-terminals-state")
    waiting_for(browser, lambda b: "not started on this page" in message(b), "the page's word")
    assert browser.current_url.endswith("?code=the-terminals-code&state=the-terminals-state")
    sign_in(browser, DISPATCHER)
    waiting_for(browser, lambda b: by_css(b, "#second-factor")[0].is_displayed(), "the second factor's link")
    colours = browser.execute_script(
        "const link = getComputedStyle(document.getElementById('second-factor'));"
        "return [link.color, getComputedStyle(document.querySelector('header.bar')).backgroundColor]"
    )
    assert colours == ["rgb(255, 255, 255)", "rgb(15, 95, 115)"]


# The auditor's figures open their lists -------------------------------------------------------


def test_the_devices_coming_due_open_from_their_figure_and_the_reconciliation_shows_the_year(page, screen):
    browser, base = page
    auditor = bearer(base, "demo-auditor")
    trends = requests.get(f"{base}/v1/audit/trends?months=12", headers=auditor, timeout=60).json()
    due = requests.get(f"{base}/v1/audit/missed-services?status=due_soon", headers=auditor, timeout=60).json()
    assert trends["due_soon"] >= 1 and len(due["items"]) == trends["due_soon"]
    assert {d["status"] for d in due["items"]} == {"due_soon"}
    sign_in(browser, AUDITOR)
    waiting_for(browser, lambda b: text_of(b, "#due-soon .figure") == str(trends["due_soon"]), "the figure")
    by_css(browser, "#due-soon")[0].click()
    waiting_for(
        browser, lambda b: text_of(b, "#view caption").startswith("Coming due within 14 days of "), "the devices due"
    )
    shown = rows(browser)
    assert len(shown) == trends["due_soon"] and all("Due soon" in row for row in shown)
    assert sorted(row[3] for row in shown) == sorted(d["device_tag"] for d in due["items"])
    accessible(browser, "the devices coming due")
    fits(browser, screen, "the devices coming due")
    # The reconciliation's default year holds the load the site never reported (108 days ago).
    button(browser, "Disposal reconciliation").click()
    waiting_for(browser, lambda b: any("no receipt" in cell for row in rows(b) for cell in row), "the unreported load")


# A site's clerk ---------------------------------------------------------------------------------


def test_a_clerk_enters_when_the_load_came_through_the_gate_and_the_list_is_latest_first(page, screen):

    browser, base = page
    site = bearer(base, "demo-site")
    listed = requests.get(f"{base}/v1/deliveries?limit=200", headers=site, timeout=60).json()["items"]
    assert [d["delivered_at"] for d in listed] == sorted((d["delivered_at"] for d in listed), reverse=True)
    [awaiting] = [d for d in listed if d["state"] == "awaiting"]
    sign_in(browser, CLERK)
    waiting_for(browser, lambda b: len(rows(b)) > 5, "the deliveries")
    assert [row[0] for row in rows(browser)] == [d["ticket_number"] or "none" for d in listed]
    button(browser, f"Confirm or dispute {awaiting['ticket_number']}").click()
    waiting_for(browser, lambda b: by_css(b, "#received-at"), "the chosen delivery")
    delivered = datetime.fromisoformat(awaiting["delivered_at"].replace("Z", "+00:00")).astimezone(LA)
    gate = delivered + timedelta(minutes=25)
    assert value_of(browser, "#received-at") == delivered.strftime("%Y-%m-%dT%H:%M")
    set_value(browser, "#received-at", gate.strftime("%Y-%m-%dT%H:%M"))
    accessible(browser, "a delivery with its received time")
    fits(browser, screen, "a delivery with its received time")
    by_css(browser, "#confirm-delivery")[0].click()
    waiting_for(browser, lambda b: "is confirmed as received" in message(b), "the receipt")
    [receipt] = [
        d["receipt"]
        for d in requests.get(f"{base}/v1/deliveries?limit=200", headers=site, timeout=60).json()["items"]
        if d["manifest_id"] == awaiting["manifest_id"]
    ]
    received = datetime.fromisoformat(receipt["received_at"].replace("Z", "+00:00")).astimezone(LA)
    assert received.strftime("%Y-%m-%dT%H:%M") == gate.strftime("%Y-%m-%dT%H:%M")


def test_the_spanish_view_keeps_the_figures_measured(page, screen):

    browser, _ = page
    sign_in(browser, OPERATOR)
    waiting_for(browser, lambda b: len(by_css(b, "article[data-fse]")) == 2, "both restaurants")
    Select(by_css(browser, "#language")[0]).select_by_value("es")
    waiting_for(browser, lambda b: text_of(b, "#view h1") == "Sus restaurantes", "the view in Spanish")
    view = text_of(browser, "#view")
    assert "Grasa y sólidos sobre el 25% de la profundidad: grasa y sólidos medidos: " in view
    assert "el 29.6% de la profundidad de diseño de 48 pulg. (no se permite más del 25%)." in view
    assert "design depth" not in view
    accessible(browser, "the restaurant's figures in Spanish")


def test_a_clerk_corrects_a_receipt_made_in_error(page, screen):

    browser, base = page
    sign_in(browser, CLERK)
    waiting_for(browser, lambda b: len(rows(b)) > 5, "the deliveries")
    button(browser, "Confirm or dispute HDR-00015").click()
    waiting_for(browser, lambda b: by_css(b, "#correct-receipt"), "the receipt's correction")
    assert value_of(browser, "#fix-gallons") == "40"
    accessible(browser, "a receipt to correct")
    fits(browser, screen, "a receipt to correct")
    type_into(browser, "#fix-gallons", 48)
    by_css(browser, "#correct-receipt")[0].click()
    waiting_for(browser, lambda b: "Say why" in message(b), "the reason asked for")
    type_into(browser, "#fix-receipt-reason", "The scale was read with the hose still on.")
    by_css(browser, "#correct-receipt")[0].click()
    waiting_for(browser, lambda b: "is corrected" in message(b), "the correction")
    site = bearer(base, "demo-site")
    [load] = [
        d
        for d in requests.get(f"{base}/v1/deliveries?limit=200", headers=site, timeout=60).json()["items"]
        if d["ticket_number"] == "HDR-00015"
    ]
    assert load["receipt"]["gallons_received"] == 48
    differ = requests.get(
        f"{base}/v1/audit/disposal-reconciliation?code=gallons_differ",
        headers=bearer(base, "demo-auditor"),
        timeout=60,
    ).json()["items"]
    assert "HDR-00015" not in [row["ticket_number"] for row in differ]
