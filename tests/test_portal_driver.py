"""The driver's phone app, in Chromium at 390 x 844: installable and starting with no signal, three
stops filed with the network cut, the tab closed and opened again, and each filed once with its
signature and photos when the network returns; a refused filing shown with the exchange's reason,
corrected and sent again; a sign-in kept on the phone refreshed when its token has run out, and
ended at sign-out; axe-core finds nothing, in English and Spanish."""

import hashlib
import io
import json
import posixpath
import re
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import requests
from PIL import Image
from selenium.webdriver.support.ui import Select

from api.portal import POLICY
from auth.people import DRIVER_APP
from tests.browser import accessible, api_token, by_css, chromium, fits, message, text_of, type_into, waiting_for  # noqa: F401
from tests.driver_phone import (  # noqa: F401
    HOME,
    as_phone,
    checks,
    hauler_manifests,
    offline,
    open_stop,
    phone,
    photo,
    sign,
    sign_in,
    stop_when,
    stops,
)

LA = ZoneInfo("America/Los_Angeles")


# The app as served ------------------------------------------------------------------------------


def test_the_driver_app_is_served_with_its_manifest_worker_and_icons(client):
    page = client.get(HOME)
    assert page.status_code == 200 and page.mimetype == "text/html"
    assert page.headers["Content-Security-Policy"] == POLICY
    assert "manifest-src 'self'" in POLICY and "worker-src 'self'" in POLICY and "'unsafe-inline'" not in POLICY
    html = page.get_data(as_text=True)
    assert '<link rel="manifest" href="/portal/driver/manifest.webmanifest">' in html
    assert html.count("<script") == html.count('<script type="module" src="/portal/driver/') == 1

    served = client.get("/portal/driver/manifest.webmanifest")
    assert served.mimetype == "application/manifest+json"
    manifest = json.loads(served.get_data())
    assert manifest["start_url"] == manifest["scope"] == HOME and manifest["display"] == "standalone"
    assert manifest["name"] and manifest["short_name"]
    for icon in manifest["icons"]:
        picture = Image.open(io.BytesIO(client.get(icon["src"]).get_data()))
        assert picture.format == "PNG" and f"{picture.width}x{picture.height}" == icon["sizes"]
    assert {icon["sizes"] for icon in manifest["icons"]} >= {"192x192", "512x512"}

    worker = client.get("/portal/driver/sw.js")
    assert worker.mimetype in ("text/javascript", "application/javascript")
    # Every file the worker keeps for an offline start is one fogx serves (one missing, and the
    # worker would never install).
    shell = re.findall(r'^\s+"(/portal/[^"]*)",$', worker.get_data(as_text=True), re.M)
    assert HOME in shell and "/portal/driver/app.js" in shell
    for path in shell:
        assert client.get(path).status_code == 200, path
    # ...and every module the app imports is one it keeps, and every module those import in turn.
    waiting = [
        f"/portal/driver/{name}.js"
        for name in ("app", "day", "form", "scans", "send", "session", "store", "words", "checks")
    ]
    seen = set()
    while waiting:
        module = waiting.pop()
        seen.add(module)
        source = client.get(module).get_data(as_text=True)
        for imported in re.findall(r'(?:from|import) "(\.{1,2}/[^"]+)"', source):
            path = posixpath.normpath(posixpath.join(posixpath.dirname(module), imported))
            assert path in shell, (module, imported)
            if path not in seen:
                waiting.append(path)


def test_a_driver_files_three_stops_offline_and_each_is_filed_once_when_the_network_returns(phone, tmp_path):
    browser, base, line, direct = phone
    before, headers = hauler_manifests(direct)
    day = sign_in(browser, base)
    by_name = {
        f"{name} {'trap' if 'trap' in text else 'interceptor'}": device for device, (name, _, text) in day.items()
    }
    mesa, wok, wok_trap = (
        by_name["Mesa Grill interceptor"],
        by_name["Golden Wok interceptor"],
        by_name["Golden Wok trap"],
    )
    accessible(browser, "the day's stops")
    fits(browser, "phone", "the day's stops")

    # Installable: Chrome finds nothing missing, and the worker controls the page.
    assert browser.execute_cdp_cmd("Page.getInstallabilityErrors", {})["installabilityErrors"] == []
    waiting_for(
        browser, lambda b: b.execute_script("return !!navigator.serviceWorker.controller"), "the worker in control"
    )
    scope = browser.execute_async_script(
        "const done = arguments[arguments.length - 1]; navigator.serviceWorker.ready.then((r) => done(r.scope))"
    )
    assert scope == base + HOME

    # The network cut: the page starts again from the phone alone.
    line.cut()
    offline(browser, True)
    browser.refresh()
    waiting_for(browser, lambda b: len(stops(b)) == 3, "the stops with no signal")
    assert "No signal" in text_of(browser, "#network")
    assert browser.execute_script("return navigator.onLine") is False
    # Offline indeed: the exchange does not answer the page.
    assert (
        browser.execute_async_script(
            "const done = arguments[arguments.length - 1];"
            "fetch('/health').then(() => done('answered'), () => done('no network'))"
        )
        == "no network"
    )

    # Mesa Grill: five photos offered, four kept; within the 25% rule; pumped out completely.
    open_stop(browser, mesa)
    assert by_css(browser, "#d-clearance") == []  # Victorville sets no outlet clearance
    accessible(browser, "the stop's form")
    fits(browser, "phone", "the stop's form")
    type_into(browser, "#d-gallons", 1460)
    type_into(browser, "#d-fog", 4)
    type_into(browser, "#d-solids", 2.5)
    type_into(browser, "#d-liquid", 48)
    found = checks(browser)
    assert found["check.full"][0] == "flag" and "not attested" in found["check.full"][1]
    by_css(browser, "#d-full")[0].click()
    found = checks(browser)
    assert found["check.twentyFive"][0] == "ok" and "6.5 in" in found["check.twentyFive"][1]
    assert "Victorville 10.03.160(f)(1)" in found["check.twentyFive"][1]
    assert found["check.full"][0] == "ok" and found["check.capacity"][0] == "ok"
    type_into(browser, "#d-signer", "Ana Ruiz")
    # Not without the restaurant's signature.
    by_css(browser, "#d-submit")[0].click()
    waiting_for(browser, lambda b: "must sign" in message(b), "the signature asked for")
    sign(browser)
    by_css(browser, "#d-photos")[0].send_keys("\n".join(photo(tmp_path, f"mesa-{n}.jpg") for n in range(5)))
    waiting_for(browser, lambda b: len(by_css(b, ".photos li")) == 4, "four photos")
    assert "Four photos at most" in message(browser)
    mesa_number = by_css(browser, "#d-number")[0].get_attribute("value")
    by_css(browser, "#d-submit")[0].click()
    waiting_for(browser, lambda b: stops(b).get(mesa, [None, None])[1] == "waiting", "Mesa Grill waiting")

    # Golden Wok's interceptor: over the 25% rule, flagged before filing; one photo.
    open_stop(browser, wok)
    type_into(browser, "#d-gallons", 980)
    type_into(browser, "#d-fog", 9)
    type_into(browser, "#d-solids", 6)
    by_css(browser, "#d-full")[0].click()
    found = checks(browser)
    assert found["check.twentyFive"][0] == "flag" and "The exchange will flag this." in found["check.twentyFive"][1]
    type_into(browser, "#d-signer", "Li Wei")
    sign(browser)
    by_css(browser, "#d-photos")[0].send_keys(photo(tmp_path, "wok.jpg"))
    waiting_for(browser, lambda b: len(by_css(b, ".photos li")) == 1, "one photo")
    wok_number = by_css(browser, "#d-number")[0].get_attribute("value")
    by_css(browser, "#d-submit")[0].click()
    waiting_for(browser, lambda b: stops(b).get(wok, [None, None])[1] == "waiting", "Golden Wok waiting")

    # Golden Wok's trap: a full pump-down short of the capacity; two photos, in Spanish.
    Select(by_css(browser, "#language")[0]).select_by_value("es")
    open_stop(browser, wok_trap)
    type_into(browser, "#d-gallons", 30)
    by_css(browser, "#d-full")[0].click()
    found = checks(browser)
    assert "check.twentyFive" not in found  # no 25% rule for a trap
    assert found["check.full"][0] == "flag" and "menos del 90%" in found["check.full"][1]
    accessible(browser, "the stop's form in Spanish")
    type_into(browser, "#d-gallons", 50)
    type_into(browser, "#d-signer", "Li Wei")
    sign(browser)
    by_css(browser, "#d-photos")[0].send_keys("\n".join(photo(tmp_path, f"trap-{n}.jpg") for n in range(2)))
    waiting_for(browser, lambda b: len(by_css(b, ".photos li")) == 2, "two photos")
    trap_number = by_css(browser, "#d-number")[0].get_attribute("value")
    signed_from = datetime.now(UTC) - timedelta(minutes=1)
    by_css(browser, "#d-submit")[0].click()
    waiting_for(browser, lambda b: stops(b).get(wok_trap, [None, None])[1] == "waiting", "the trap waiting")
    left = stops(browser)[wok_trap][2]
    assert re.search(r"Quedan (71 h \d+|72 h 0) min de las 72 horas", left), left
    assert re.search(r"Servicio terminado \d{4}-\d\d-\d\d \d\d:\d\d -0[78]:00", left), left
    accessible(browser, "three filings waiting, in Spanish")
    fits(browser, "phone", "three filings waiting")
    Select(by_css(browser, "#language")[0]).select_by_value("en")
    waiting_for(browser, lambda b: "3 filing(s) waiting to send." in text_of(b, "#view"), "three waiting")

    # The tab closed, and the app opened again in a new one, still with no signal.
    old = browser.current_window_handle
    browser.switch_to.new_window("tab")
    new = browser.current_window_handle
    browser.switch_to.window(old)
    browser.close()
    browser.switch_to.window(new)
    as_phone(browser)
    offline(browser, True)
    browser.get(base + HOME)
    waiting_for(
        browser, lambda b: [s[1] for s in stops(b).values()] == ["waiting"] * 3, "the three filings kept on the phone"
    )
    assert hauler_manifests(direct)[0] == before  # nothing reached the exchange

    # The network returns: each is filed, once, with its signature and photos.
    line.connect()
    offline(browser, False)
    waiting_for(browser, lambda b: [s[1] for s in stops(b).values()] == ["filed"] * 3, "the three filed")
    after, _ = hauler_manifests(direct)
    new_ones = [m for m in after if m["id"] not in {b["id"] for b in before}]
    assert sorted(m["manifest_number"] for m in new_ones) == sorted([mesa_number, wok_number, trap_number])
    photos_of = {mesa_number: 4, wok_number: 1, trap_number: 2}
    for filed in new_ones:
        number = filed["manifest_number"]
        assert filed["revision"] == 1
        completed = datetime.fromisoformat(filed["manifest"]["service_completed_at"].replace("Z", "+00:00"))
        assert signed_from - timedelta(minutes=5) <= completed <= datetime.now(UTC)
        kinds = sorted(d["content_type"] for d in filed["documents"])
        assert kinds == ["image/jpeg"] * photos_of[number] + ["image/png"], (number, kinds)
        for document in filed["documents"]:
            body = requests.get(
                f"{direct}/v1/manifests/{filed['id']}/documents/{document['id']}", headers=headers, timeout=10
            ).content
            assert hashlib.sha256(body).hexdigest() == document["sha256"]
            picture = Image.open(io.BytesIO(body))
            if document["content_type"] == "image/jpeg":
                assert max(picture.size) == 1600  # resized on the phone from 3000 x 2000
            else:
                assert picture.width == 1240  # the signed manifest's page
    # Each stop shows its receipt, or the exchange's findings with the rule behind each.
    shown = stops(browser)
    assert f"Receipt: manifest {wok_number}, revision 1" in shown[wok][2]
    assert "Victorville 10.03.160(f)(1)" in shown[wok][2]
    assert re.search(r"received \d{4}-\d\d-\d\d \d\d:\d\d -0[78]:00", shown[mesa][2])
    accessible(browser, "the three filed")
    fits(browser, "phone", "the three filed")


def test_a_refused_filing_stays_on_the_phone_with_the_reason_and_is_corrected_and_sent_again(phone, tmp_path):
    browser, base, _, direct = phone
    day = sign_in(browser, base)
    mesa = next(device for device, (name, _, _) in day.items() if name == "Mesa Grill")
    wok = next(device for device, (name, _, text) in day.items() if name == "Golden Wok" and "interceptor" in text)
    # Since the stops were read, the city recorded Mesa Grill's permit expired as of today.
    admin = {"Authorization": f"Bearer {api_token(direct, 'demo-admin')}"}
    permits = requests.get(f"{direct}/v1/permits?limit=200", headers=admin, timeout=10).json()["items"]
    permit = next(p for p in permits if p["permit_number"] == "VV-FOG-0001")
    today = datetime.now(LA).date().isoformat()
    changed = requests.patch(
        f"{direct}/v1/permits/{permit['id']}",
        headers=admin,
        json={"status": "expired", "effective_on": today},
        timeout=10,
    )
    assert changed.status_code == 200, changed.text

    # Filed on the expired permit: the exchange takes it (a late or flagged manifest is evidence)
    # and the stop shows why it is flagged, with the rule.
    open_stop(browser, mesa)
    type_into(browser, "#d-gallons", 1460)
    by_css(browser, "#d-full")[0].click()
    type_into(browser, "#d-signer", "Ana Ruiz")
    sign(browser)
    by_css(browser, "#d-submit")[0].click()
    shown = stop_when(browser, mesa, "filed", "Mesa Grill filed")
    assert f"Permit VV-FOG-0001 was expired on {today}." in shown, shown
    assert by_css(browser, f"li[data-stop='{mesa}'] li[data-code='permit_not_active'] cite")

    # A permit number the exchange does not know is refused: the filing stays, with the reason.
    open_stop(browser, wok)
    type_into(browser, "#d-permit", "VV-FOG-0020")
    type_into(browser, "#d-gallons", 980)
    by_css(browser, "#d-full")[0].click()
    type_into(browser, "#d-signer", "Li Wei")
    sign(browser)
    by_css(browser, "#d-photos")[0].send_keys(photo(tmp_path, "wok.jpg"))
    waiting_for(browser, lambda b: len(by_css(b, ".photos li")) == 1, "one photo")
    number = by_css(browser, "#d-number")[0].get_attribute("value")
    by_css(browser, "#d-submit")[0].click()
    shown = stop_when(browser, wok, "refused", "the refusal")
    assert "The exchange's reason: Not saved: check what you wrote." in shown
    assert "Permit number: No permit of that number is on record in your cities." in shown
    assert not [m for m in hauler_manifests(direct)[0] if m["manifest_number"] == number]
    # Still there after the page is opened again.
    browser.refresh()
    waiting_for(browser, lambda b: stops(b).get(wok, [None, None])[1] == "refused", "the refusal kept")
    accessible(browser, "a refused filing")

    # Corrected: the reason beside the field, the signature and photo kept, sent again.
    open_stop(browser, wok)
    assert "No permit of that number is on record" in text_of(browser, "#d-permit-error")
    assert by_css(browser, "#d-permit")[0].get_attribute("aria-invalid") == "true"
    waiting_for(browser, lambda b: len(by_css(b, ".photos li")) == 1, "the photo kept")
    assert "The page the restaurant signed is kept exactly as signed." in text_of(browser, "#view")
    accessible(browser, "the correction")
    fits(browser, "phone", "the correction")
    type_into(browser, "#d-permit", "VV-FOG-0002")
    by_css(browser, "#d-submit")[0].click()
    shown = stop_when(browser, wok, "filed", "the correction filed")
    assert f"Receipt: manifest {number}, revision 1" in shown
    [filed] = [m for m in hauler_manifests(direct)[0] if m["manifest_number"] == number]
    assert filed["manifest"]["permit_number"] == "VV-FOG-0002"
    assert sorted(d["content_type"] for d in filed["documents"]) == ["image/jpeg", "image/png"]


KEPT_SESSION = """
const [change, done] = [arguments[0], arguments[arguments.length - 1]];
const opening = indexedDB.open("fogx-driver", 1);
opening.onsuccess = () => {
  const transaction = opening.result.transaction("kept", "readwrite");
  const kept = transaction.objectStore("kept");
  const reading = kept.get("session");
  reading.onsuccess = () => {
    const session = reading.result;
    if (change) kept.put({ ...session, token: "ran-out", expiresAt: 0 }, "session");
    transaction.oncomplete = () => done(session);
  };
};
"""


def test_an_access_token_that_ran_out_is_refreshed_before_filing_and_sign_out_ends_the_sign_in(phone):
    browser, base, _, direct = phone
    day = sign_in(browser, base)
    mesa = next(device for device, (name, _, _) in day.items() if name == "Mesa Grill")
    # The phone was left overnight: its 15-minute access token has run out.
    before = browser.execute_async_script(KEPT_SESSION, True)
    open_stop(browser, mesa)
    type_into(browser, "#d-gallons", 1460)
    by_css(browser, "#d-full")[0].click()
    type_into(browser, "#d-signer", "Ana Ruiz")
    sign(browser)
    number = by_css(browser, "#d-number")[0].get_attribute("value")
    by_css(browser, "#d-submit")[0].click()
    stop_when(browser, mesa, "filed", "Mesa Grill filed")
    # Filed with a new access token, and the refresh token used once has its successor kept.
    after = browser.execute_async_script(KEPT_SESSION, False)
    assert after["token"] not in (before["token"], "ran-out") and after["refreshToken"] != before["refreshToken"]
    assert [m for m in hauler_manifests(direct)[0] if m["manifest_number"] == number]

    # Nothing left to send: signing out ends the sign-in and empties the phone.
    by_css(browser, "#sign-out")[0].click()
    waiting_for(browser, lambda b: message(b) == "You are signed out.", "the sign-out")
    assert browser.execute_async_script(KEPT_SESSION, False) is None
    refreshed = requests.post(
        f"{direct}/oauth/token",
        data={"grant_type": "refresh_token", "refresh_token": after["refreshToken"], "client_id": DRIVER_APP},
        timeout=10,
    )
    assert refreshed.status_code == 400 and refreshed.json()["error"] == "invalid_grant"
