"""The driver's form, in Chromium at 390 x 844: another stop, one not on the due list, filed with
no signal by the permit number and device tag the driver types; a correction that keeps the page
the restaurant signed when it changes only clerical values, and asks the restaurant's person to
sign again when it changes what they attested; the service's start, editable and checked; what
the exchange would refuse of gallons and a disposal told beside the field before filing; and the
whole of it, the sign-in page too, in Spanish with no English left."""

import hashlib
import re
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

import requests
from selenium.webdriver.support.ui import Select

from tests.browser import (  # noqa: F401
    accessible,
    by_css,
    chromium,
    english_on_page,
    fits,
    message,
    text_of,
    type_into,
    waiting_for,
)
from tests.driver_phone import (  # noqa: F401
    DRIVER,
    HOME,
    hauler_manifests,
    offline,
    open_stop,
    phone,
    sign,
    sign_in,
    stop_when,
    stops,
)

LA = ZoneInfo("America/Los_Angeles")

# What the phone keeps of each filing: its state, manifest number and scans' SHA-256.
KEPT_FILINGS = """
const done = arguments[arguments.length - 1];
const opening = indexedDB.open("fogx-driver", 1);
opening.onsuccess = () => {
  const reading = opening.result.transaction("filings").objectStore("filings").getAll();
  reading.onsuccess = () => done(reading.result.map((f) => ({
    state: f.state, number: f.manifest.manifest_number, stop: f.stop.device_id,
    page: f.scans.find((s) => !s.photo).sha256,
  })));
};
"""


def kept(browser, number):
    return next(f for f in browser.execute_async_script(KEPT_FILINGS) if f["number"] == number)


def set_value(browser, selector, value):
    """A field's value as the driver sets it (a date and time picker's too), then left."""
    browser.execute_script(
        "const e = document.querySelector(arguments[0]); e.value = arguments[1];"
        "e.dispatchEvent(new Event('input', {bubbles: true})); e.dispatchEvent(new Event('change', {bubbles: true}));",
        selector,
        value,
    )


def leave(browser, selector):
    """The driver moves on from the field (its change is told)."""
    browser.execute_script(
        "document.querySelector(arguments[0]).dispatchEvent(new Event('change', {bubbles: true}))", selector
    )


def signed_page(direct, headers, number):
    [filed] = [m for m in hauler_manifests(direct)[0] if m["manifest_number"] == number]
    [page] = [d for d in filed["documents"] if d["content_type"] == "image/png"]
    body = requests.get(f"{direct}/v1/manifests/{filed['id']}/documents/{page['id']}", headers=headers, timeout=10)
    assert hashlib.sha256(body.content).hexdigest() == page["sha256"]
    return filed, page["sha256"]


def another_stop(browser):
    by_css(browser, "#other-stop")[0].click()
    return waiting_for(browser, lambda b: by_css(b, "#d-city"), "another stop's form")


def test_another_stop_is_filed_offline_by_permit_and_tag_and_a_clerical_correction_keeps_the_signed_page(phone):
    browser, base, line, direct = phone
    _, headers = hauler_manifests(direct)
    sign_in(browser, base)
    # Taqueria El Sol, in Tracy, is a new customer: not on the driver's due list.
    assert "Taqueria El Sol" not in str(stops(browser))
    line.cut()
    offline(browser, True)
    another_stop(browser)
    assert "permit number and the device's tag" in text_of(browser, "#view")
    Select(by_css(browser, "#d-city")[0]).select_by_value("tracy")
    waiting_for(browser, lambda b: by_css(b, "form[data-city='tracy'] #d-city"), "Tracy's form")
    assert Select(by_css(browser, "#d-city")[0]).first_selected_option.get_attribute("value") == "tracy"
    accessible(browser, "another stop's form")
    fits(browser, "phone", "another stop's form")
    type_into(browser, "#d-permit", "TR-FOG-0101")
    type_into(browser, "#d-device", "GI 1")  # mistyped: the tag is GI-1
    type_into(browser, "#d-gallons", 1800)
    by_css(browser, "#d-full")[0].click()
    found = browser.execute_script("return document.querySelector('[data-check=\"check.full\"]').innerText")
    assert "not on this phone" in found, found  # the device's capacity is the exchange's to check
    type_into(browser, "#d-signer", "Rosa Díaz")
    sign(browser)
    number = by_css(browser, "#d-number")[0].get_attribute("value")
    by_css(browser, "#d-submit")[0].click()
    waiting_for(browser, lambda b: "waiting" in [s[1] for s in stops(b).values()], "another stop waiting")
    other = next(device for device, (_, state, _) in stops(browser).items() if state == "waiting")
    assert "Another stop" in stops(browser)[other][0] and "GI 1 · TR-FOG-0101" in stops(browser)[other][2]
    signed = kept(browser, number)["page"]

    # The network returns: the exchange refuses the tag, and says so in words.
    line.connect()
    offline(browser, False)
    shown = stop_when(browser, other, "refused", "another stop refused")
    assert "Device tag: Permit TR-FOG-0101 lists no device tagged GI 1." in shown, shown
    accessible(browser, "another stop refused")
    fits(browser, "phone", "another stop refused")

    # A clerical correction: the tag. The page the restaurant signed goes as signed.
    open_stop(browser, other)
    assert "Permit TR-FOG-0101 lists no device tagged GI 1." in text_of(browser, "#d-device-error")
    assert "kept exactly as signed" in text_of(browser, "#d-signed-note")
    type_into(browser, "#d-device", "GI-1")
    leave(browser, "#d-device")
    assert by_css(browser, "#d-device-error") == []
    assert "kept exactly as signed" in text_of(browser, "#d-signed-note")
    by_css(browser, "#d-submit")[0].click()
    shown = stop_when(browser, other, "filed", "another stop filed")
    assert f"Receipt: manifest {number}, revision 1" in shown
    filed, page = signed_page(direct, headers, number)
    assert (filed["manifest"]["permit_number"], filed["manifest"]["device_tag"]) == ("TR-FOG-0101", "GI-1")
    assert page == signed == kept(browser, number)["page"]
    assert "Taqueria El Sol" in stops(browser)[other][0] or "GI-1 · TR-FOG-0101" in stops(browser)[other][2]


def test_a_correction_of_what_the_restaurant_attested_asks_them_to_sign_again(phone):
    browser, base, _, direct = phone
    _, headers = hauler_manifests(direct)
    day = sign_in(browser, base)
    wok = next(device for device, (name, _, text) in day.items() if name == "Golden Wok" and "interceptor" in text)
    open_stop(browser, wok)
    type_into(browser, "#d-permit", "VV-FOG-0020")
    type_into(browser, "#d-gallons", 980)
    by_css(browser, "#d-full")[0].click()
    type_into(browser, "#d-signer", "Li Wei")
    sign(browser)
    number = by_css(browser, "#d-number")[0].get_attribute("value")
    by_css(browser, "#d-submit")[0].click()
    stop_when(browser, wok, "refused", "the refusal")
    signed = kept(browser, number)["page"]

    open_stop(browser, wok)
    type_into(browser, "#d-permit", "VV-FOG-0002")
    type_into(browser, "#d-gallons", 900)  # the gallons the restaurant signed for, changed
    note = waiting_for(
        browser,
        lambda b: "must sign again" in text_of(b, "#d-signed-note") and text_of(b, "#d-signed-note"),
        "sign again",
    )
    assert "(Gallons removed)" in note, note
    accessible(browser, "a correction to sign again")
    by_css(browser, "#d-submit")[0].click()
    waiting_for(
        browser, lambda b: "must sign again for the changed values" in message(b), "the new signature asked for"
    )
    assert kept(browser, number)["state"] == "refused"
    # Changed back, the signed page would do; changed again, the restaurant's person signs.
    type_into(browser, "#d-gallons", 980)
    waiting_for(browser, lambda b: "kept exactly as signed" in text_of(b, "#d-signed-note"), "the page kept")
    type_into(browser, "#d-gallons", 900)
    sign(browser)
    by_css(browser, "#d-submit")[0].click()
    stop_when(browser, wok, "filed", "the correction filed")
    filed, page = signed_page(direct, headers, number)
    assert filed["manifest"]["gallons_removed"] == 900
    assert page != signed and page == kept(browser, number)["page"]


def test_the_service_start_gallons_and_disposal_are_checked_beside_their_fields_before_filing(phone):
    browser, base, _, direct = phone
    day = sign_in(browser, base)
    mesa = next(device for device, (name, _, _) in day.items() if name == "Mesa Grill")
    opened = datetime.now(LA)
    open_stop(browser, mesa)
    # The start: the moment the stop was opened, in Victorville's time (Pacific), to the minute.
    started = datetime.fromisoformat(by_css(browser, "#d-started")[0].get_attribute("value")).replace(tzinfo=LA)
    assert opened.replace(second=0, microsecond=0) - timedelta(minutes=1) <= started <= datetime.now(LA)
    assert "Local time (America/Los_Angeles)" in text_of(browser, "#view")

    # After the service is completed (signing is now): not taken.
    later = (datetime.now(LA) + timedelta(minutes=10)).strftime("%Y-%m-%dT%H:%M")
    set_value(browser, "#d-started", later)
    assert text_of(browser, "#d-started-error") == "The service cannot start later than now."
    # More than 48 hours before: not taken (schemas/manifest.py MAX_SERVICE); just within, taken.
    set_value(browser, "#d-started", (datetime.now(LA) - timedelta(hours=48, minutes=2)).strftime("%Y-%m-%dT%H:%M"))
    assert text_of(browser, "#d-started-error") == "A service cannot last more than 48 hours."
    start = (datetime.now(LA) - timedelta(hours=47, minutes=58)).strftime("%Y-%m-%dT%H:%M")
    set_value(browser, "#d-started", start)
    assert by_css(browser, "#d-started-error") == []

    # Gallons are whole numbers; a disposal site needs its ticket, delivery time and gallons.
    type_into(browser, "#d-gallons", "1460.5")
    leave(browser, "#d-gallons")
    assert text_of(browser, "#d-gallons-error") == "Whole gallons only, no decimals."
    Select(by_css(browser, "#d-site")[0]).select_by_index(1)
    assert text_of(browser, "#d-ticket-error") == "A disposal site is chosen: give its ticket number."
    assert text_of(browser, "#d-delivered-error") == "A disposal site is chosen: give when the load was delivered."
    assert "give the gallons delivered" in text_of(browser, "#d-delivered-gallons-error")
    by_css(browser, "#d-full")[0].click()
    type_into(browser, "#d-signer", "Ana Ruiz")
    sign(browser)
    by_css(browser, "#d-submit")[0].click()
    waiting_for(browser, lambda b: message(b) == "Nothing was filed: check the fields marked.", "nothing filed")
    assert by_css(browser, "#d-gallons")[0].get_attribute("aria-invalid") == "true"
    accessible(browser, "the fields marked")
    fits(browser, "phone", "the fields marked")
    # In Spanish too.
    Select(by_css(browser, "#language")[0]).select_by_value("es")
    leave(browser, "#d-gallons")
    assert text_of(browser, "#d-gallons-error") == "Solo galones enteros, sin decimales."
    assert text_of(browser, "#d-ticket-error") == "Se eligió un sitio de disposición: indique el número del boleto."
    Select(by_css(browser, "#language")[0]).select_by_value("en")

    type_into(browser, "#d-gallons", 1460)
    type_into(browser, "#d-ticket", "HDR-1")
    set_value(browser, "#d-delivered", datetime.now(LA).strftime("%Y-%m-%dT%H:%M"))
    type_into(browser, "#d-delivered-gallons", 1460)
    leave(browser, "#d-delivered-gallons")
    assert by_css(browser, ".field-error") == []
    number = by_css(browser, "#d-number")[0].get_attribute("value")
    by_css(browser, "#d-submit")[0].click()
    stop_when(browser, mesa, "filed", "Mesa Grill filed")
    [filed] = [m for m in hauler_manifests(direct)[0] if m["manifest_number"] == number]
    assert datetime.fromisoformat(filed["manifest"]["service_started_at"]) == datetime.fromisoformat(start).replace(
        tzinfo=LA
    )
    assert filed["manifest"]["disposal"]["ticket_number"] == "HDR-1"


def english_left(browser, where):
    found = english_on_page(
        browser,
        [("/portal/js/i18n.js", "wordsOf"), ("/portal/driver/words.js", "driverWordsOf")],
        ["header", "#network", "#message", "#view"],
        also=["exchange policy", "Validation failed", "No such permit", "lists no device", "Must not be"],
    )
    assert found == [], f"{where}: {found}"
    accessible(browser, where)
    fits(browser, "phone", where)


def test_the_driver_reads_every_view_in_spanish_from_the_sign_in_page_on(phone):
    browser, base, _, direct = phone
    browser.get(base + HOME)
    waiting_for(browser, lambda b: by_css(b, "#person-sign-in")[0].is_displayed(), "the driver's sign-in")
    Select(by_css(browser, "#language")[0]).select_by_value("es")
    english_left(browser, "the driver's sign-in")
    by_css(browser, "#person-sign-in")[0].click()
    # fogx's sign-in page, asked for in Spanish, with targets for a finger.
    waiting_for(browser, lambda b: by_css(b, "#email"), "the sign-in page")
    assert browser.execute_script("return document.documentElement.lang") == "es"
    assert "Iniciar sesión en" in text_of(browser, "h1") and "¿Olvidó su contraseña?" in text_of(browser, "main")
    heights = browser.execute_script(
        "return [...document.querySelectorAll('main button, main input:not([type=hidden]), main a')]"
        ".map((e) => [e.id || e.textContent, e.getBoundingClientRect().height])"
    )
    assert heights and all(height >= 48 for _, height in heights), heights
    accessible(browser, "the sign-in page in Spanish")
    fits(browser, "phone", "the sign-in page in Spanish")
    by_css(browser, "#email")[0].send_keys(DRIVER)
    by_css(browser, "#password")[0].send_keys("no es esta")
    by_css(browser, "#submit")[0].click()
    waiting_for(browser, lambda b: "no son correctos" in text_of(b, "#message"), "the refusal in Spanish")
    from services.demo.people import DEMO_PASSWORD

    by_css(browser, "#password")[0].send_keys(DEMO_PASSWORD)
    by_css(browser, "#submit")[0].click()
    day = waiting_for(browser, lambda b: len(stops(b)) == 3 and stops(b), "the day's three stops")
    english_left(browser, "the stops")

    wok = next(device for device, (name, _, text) in day.items() if name == "Golden Wok" and "interceptor" in text)
    open_stop(browser, wok)
    type_into(browser, "#d-permit", "VV-FOG-0020")
    type_into(browser, "#d-gallons", 980)
    type_into(browser, "#d-fog", 9)
    type_into(browser, "#d-solids", 6)
    by_css(browser, "#d-full")[0].click()
    type_into(browser, "#d-signer", "Li Wei")
    sign(browser)
    english_left(browser, "the form")
    by_css(browser, "#d-submit")[0].click()
    shown = stop_when(browser, wok, "refused", "the refusal")
    assert re.search(
        r"Motivo del sistema: No se guardó: revise lo que escribió\. Número de permiso: No hay ningún permiso", shown
    ), shown
    english_left(browser, "a refused filing")

    open_stop(browser, wok)
    assert "No hay ningún permiso con ese número" in text_of(browser, "#d-permit-error")
    english_left(browser, "the correction")
    type_into(browser, "#d-permit", "VV-FOG-0002")
    by_css(browser, "#d-submit")[0].click()
    shown = stop_when(browser, wok, "filed", "the correction filed")
    assert "Recibo: manifiesto" in shown and "Victorville 10.03.160(f)(1)" in shown, shown
    english_left(browser, "a filed one")
