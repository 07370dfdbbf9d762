"""The driver's phone app, in Chromium at 390 x 844: installable and starting with no signal, three
stops filed with the network cut, the tab closed and opened again, and each filed once with its
signature and photos when the network returns; a refused filing shown with the exchange's reason,
corrected and sent again; a sign-in kept on the phone refreshed when its token has run out; the
phone's checks flagging what the exchange's flag; axe-core finds nothing, in English and Spanish."""

import hashlib
import io
import json
import posixpath
import re
import socket
import threading
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
import requests
from PIL import Image
from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.support.ui import Select
from sqlalchemy import update

from api.portal import POLICY
from services.demo_people import DEMO_APP, DEMO_PASSWORD
from storage.people import OAuthApp
from tests.conftest import _free_port, serve
from tests.test_portal import api_token, by_css, chromium, message, text_of, waiting_for  # noqa: F401
from tests.test_portal_roles import accessible, fits, type_into

DRIVER = "driver@demo.fogx.test"
LA = ZoneInfo("America/Los_Angeles")
HOME = "/portal/driver/"


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
    # ...and every module the app imports is one it keeps.
    for name in ("app", "day", "form", "scans", "send", "session", "store", "words", "checks"):
        source = client.get(f"/portal/driver/{name}.js").get_data(as_text=True)
        for imported in re.findall(r'from "(\.{1,2}/[^"]+)"', source):
            assert posixpath.normpath(posixpath.join("/portal/driver", imported)) in shell, (name, imported)


# The network, as the phone sees it ---------------------------------------------------------------


class Line:
    """A TCP relay between the browser and the app: cut, it refuses new connections and drops
    the open ones (kept-alive ones too), as a phone with no signal finds the network."""

    def __init__(self, target):
        self.target = target
        self.port = _free_port()
        self.open = set()
        self.lock = threading.Lock()
        self.listener = None

    def connect(self):
        listener = socket.socket()
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", self.port))
        listener.listen(64)
        self.listener = listener
        threading.Thread(target=self._accept, args=(listener,), daemon=True).start()

    def _accept(self, listener):
        while True:
            try:
                near, _ = listener.accept()
            except OSError:
                return
            far = socket.create_connection(("127.0.0.1", self.target))
            with self.lock:
                self.open |= {near, far}
            for source, sink in ((near, far), (far, near)):
                threading.Thread(target=self._pump, args=(source, sink), daemon=True).start()

    def _pump(self, source, sink):
        try:
            while data := source.recv(65536):
                sink.sendall(data)
        except OSError:
            pass
        finally:
            for end in (source, sink):
                try:
                    end.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass

    def cut(self):
        if self.listener is None:
            return
        self.listener.shutdown(socket.SHUT_RDWR)
        self.listener.close()
        self.listener = None
        with self.lock:
            for end in self.open:
                try:
                    end.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
                end.close()
            self.open.clear()


def offline(browser, cut):
    """The DevTools protocol's offline emulation: the page's own requests fail and
    `navigator.onLine` is false. It does not reach the page's service worker (with the page
    offline, the worker's own requests still reach the app), so the relay cuts those."""
    browser.execute_cdp_cmd("Network.enable", {})
    browser.execute_cdp_cmd(
        "Network.emulateNetworkConditions",
        {"offline": cut, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1},
    )


def as_phone(browser):
    """The browser's tab as a 390 x 844 phone."""
    browser.execute_cdp_cmd(
        "Emulation.setDeviceMetricsOverride", {"width": 390, "height": 844, "deviceScaleFactor": 3, "mobile": True}
    )


@pytest.fixture
def phone(app, chromium):
    """The demo served behind the relay, the browser a 390 x 844 phone: (browser, base, line,
    direct base)."""
    assert app.test_cli_runner().invoke(args=["demo", "load"]).exit_code == 0
    as_phone(chromium)
    with serve(app) as direct:
        line = Line(int(direct.rsplit(":", 1)[1]))
        line.connect()
        base = f"http://127.0.0.1:{line.port}"
        from sqlalchemy.orm import Session

        with Session(bind=app.extensions["fogx.engine"]) as session:
            session.execute(update(OAuthApp).where(OAuthApp.client_id == DEMO_APP).values(redirect_uris=[base + HOME]))
            session.commit()
        try:
            yield chromium, base, line, direct
        finally:
            offline(chromium, False)
            chromium.get("about:blank")
            chromium.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
            line.cut()


def sign_in(browser, base):
    browser.get(base + HOME)
    waiting_for(
        browser, lambda b: by_css(b, "#person-sign-in") and by_css(b, "#person-sign-in")[0].is_displayed(), "sign-in"
    )
    accessible(browser, "the driver's sign-in")
    fits(browser, "phone", "the driver's sign-in")
    by_css(browser, "#person-sign-in")[0].click()
    waiting_for(browser, lambda b: by_css(b, "#email"), "the sign-in page")
    by_css(browser, "#email")[0].send_keys(DRIVER)
    by_css(browser, "#password")[0].send_keys(DEMO_PASSWORD)
    by_css(browser, "#submit")[0].click()
    return waiting_for(browser, lambda b: len(by_css(b, "li[data-stop]")) == 3 and stops(b), "the day's three stops")


def stops(browser):
    """Each stop on the list: {device id: (restaurant, state, text)}."""
    return browser.execute_script(
        "return Object.fromEntries([...document.querySelectorAll('li[data-stop]')].map((li) =>"
        " [li.dataset.stop, [li.querySelector('h2').textContent, li.dataset.state, li.innerText]]))"
    )


def photo(tmp_path, name):
    """A camera's photo, 3000 x 2000 (larger than the phone sends), each of its own colour."""
    path = tmp_path / name
    shade = int(hashlib.sha256(name.encode()).hexdigest()[:2], 16)
    picture = Image.new("RGB", (3000, 2000), (40, shade, 160))
    picture.paste((200, 120, 40), (0, 0, 1500, 2000))
    picture.save(path, "JPEG", quality=90)
    return str(path)


def sign(browser):
    pad = by_css(browser, "#d-signature")[0]
    browser.execute_script("arguments[0].scrollIntoView({block: 'center'})", pad)
    ActionChains(browser).move_to_element_with_offset(pad, -100, 10).click_and_hold().move_by_offset(
        60, -40
    ).move_by_offset(60, 50).move_by_offset(60, -30).release().perform()


def stop_when(browser, device_id, state, what):
    """The stop's card's text once the stop is in `state`."""

    def found(b):
        name, now, text = stops(b).get(device_id, [None, None, None])
        return now == state and text

    return waiting_for(browser, found, what)


def open_stop(browser, device_id):
    """Open the stop's form, once the list has stopped drawing its button anew (the day's stops
    read afresh draw the list again)."""

    def clicked(b):
        try:
            by_css(b, f"button[data-open='{device_id}']")[0].click()
            return True
        except (IndexError, StaleElementReferenceException):
            return False

    waiting_for(browser, clicked, "the stop's button")
    return waiting_for(browser, lambda b: by_css(b, "#d-submit"), "the stop's form")


def checks(browser):
    return browser.execute_script(
        "return Object.fromEntries([...document.querySelectorAll('[data-check]')].map((li) =>"
        " [li.dataset.check, [li.className, li.innerText]]))"
    )


def hauler_manifests(direct):
    headers = {"Authorization": f"Bearer {api_token(direct, 'demo-hauler')}"}
    return requests.get(f"{direct}/v1/manifests?limit=200", headers=headers, timeout=10).json()["items"], headers


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
    assert "No such permit." in shown and "The exchange's reason:" in shown
    assert not [m for m in hauler_manifests(direct)[0] if m["manifest_number"] == number]
    # Still there after the page is opened again.
    browser.refresh()
    waiting_for(browser, lambda b: stops(b).get(wok, [None, None])[1] == "refused", "the refusal kept")
    accessible(browser, "a refused filing")

    # Corrected: the reason beside the field, the signature and photo kept, sent again.
    open_stop(browser, wok)
    assert "No such permit." in text_of(browser, "#d-permit-error")
    assert by_css(browser, "#d-permit")[0].get_attribute("aria-invalid") == "true"
    waiting_for(browser, lambda b: len(by_css(b, ".photos li")) == 1, "the photo kept")
    assert "signature taken at the service is kept" in text_of(browser, "#view")
    accessible(browser, "the correction")
    fits(browser, "phone", "the correction")
    type_into(browser, "#d-permit", "VV-FOG-0002")
    by_css(browser, "#d-submit")[0].click()
    shown = stop_when(browser, wok, "filed", "the correction filed")
    assert f"Receipt: manifest {number}, revision 1" in shown
    [filed] = [m for m in hauler_manifests(direct)[0] if m["manifest_number"] == number]
    assert filed["manifest"]["permit_number"] == "VV-FOG-0002"
    assert sorted(d["content_type"] for d in filed["documents"]) == ["image/jpeg", "image/png"]


# The phone's checks are the exchange's ---------------------------------------------------------

PHONE_CHECKS = {
    "check.capacity": "vehicle_unregistered",
    "check.twentyFive": "twenty_five_percent_exceeded",
    "check.clearance": "outlet_clearance",
    "check.full": "partial_pump_down",
    "check.decant": "decant_returned",
}
INTERCEPTOR = {"kind": "interceptor", "capacity_gallons": 1000, "liquid_depth_in": 48}
TRAP = {"kind": "trap", "capacity_gallons": 50, "liquid_depth_in": 12}
FULL = {"gallons": 900, "decant": 0, "full": True, "fog": 7.2, "solids": 4.8}
CASES = [
    ("victorville", INTERCEPTOR, FULL),  # 12 in of 48 is at the quarter, 900 of 1000 at 0.9
    ("victorville", INTERCEPTOR, {**FULL, "fog": 7.21}),
    ("victorville", INTERCEPTOR, {**FULL, "gallons": 899}),
    ("victorville", INTERCEPTOR, {**FULL, "full": False}),
    ("victorville", INTERCEPTOR, {**FULL, "gallons": 3001}),
    ("victorville", INTERCEPTOR, {**FULL, "decant": 5}),
    ("victorville", INTERCEPTOR, {**FULL, "clearance": 1}),  # Victorville sets no clearance
    ("san-clemente", INTERCEPTOR, {**FULL, "clearance": 2}),
    ("san-clemente", INTERCEPTOR, {**FULL, "clearance": 2.01}),
    ("san-clemente", TRAP, {**FULL, "gallons": 44, "clearance": 1, "fog": 9, "solids": 9}),
    ("tracy", TRAP, {**FULL, "gallons": 45}),
]


def exchange_flags(city, device, values, app):
    """What domain/checks.py flags of the same load, and the rule each cites."""
    from decimal import Decimal

    from domain import checks as rules
    from services.filing_facts import rules_of
    from storage.db import db
    from storage.models import Jurisdiction

    with app.app_context():
        city_rules = rules_of(db.session.query(Jurisdiction).filter_by(code=city).one())
    depth = lambda name: None if values.get(name) is None else Decimal(str(values[name]))  # noqa: E731
    now = datetime.now(UTC)
    load = rules.Load(
        service_started_at=now,
        service_completed_at=now,
        waste_type=f"grease_{device['kind']}_waste",
        gallons_removed=values["gallons"],
        decant_returned_gallons=values["decant"],
        full_pump_down=values["full"],
        vehicle_id="TRK-7",
        fog_depth_in=depth("fog"),
        solids_depth_in=depth("solids"),
        outlet_clearance_in=depth("clearance"),
    )
    facts = rules.DeviceFacts(device["kind"], device["capacity_gallons"], Decimal(device["liquid_depth_in"]), 90)
    hauler = rules.HaulerFacts(licences=(), registrations=(), vehicles={"TRK-7": 3000})
    found = [
        *rules.vehicle_unregistered(load, hauler, city_rules),
        *rules.twenty_five_percent_exceeded(load, facts, city_rules),
        *rules.outlet_clearance(load, facts, city_rules),
        *rules.partial_pump_down([load], facts, city_rules),
        *rules.decant_returned(load, city_rules),
    ]
    return sorted((f.code, f.citation) for f in found)


def test_the_phone_flags_what_the_exchange_flags_citing_the_same_rule(phone, app):
    browser, base, _, _ = phone
    browser.get(base + HOME)
    from schemas.jurisdiction import JurisdictionSchema
    from storage.db import db
    from storage.models import Jurisdiction

    with app.app_context():  # each city as /v1/jurisdictions gives it to its haulers
        cities = {
            row.code: json.loads(app.json.dumps(JurisdictionSchema().dump(row)))
            for row in db.session.query(Jurisdiction).filter(
                Jurisdiction.code.in_(["victorville", "san-clemente", "tracy"])
            )
        }
    phone_flags = browser.execute_async_script(
        "const [cases, cities, done] = arguments;"
        "import('/portal/driver/checks.js').then(({ preflight }) => done(cases.map(([city, device, values]) =>"
        " preflight({ city: cities[city], device, vehicles: [{ vehicle_id: 'TRK-7', tank: 3000 }],"
        "   values: { ...values, vehicle: 'TRK-7' } }).filter((c) => c.state === 'flag').map((c) => [c.key, c.citation]))),"
        " (error) => done(String(error)))",
        [list(case) for case in CASES],
        cities,
    )
    for (city, device, values), flagged in zip(CASES, phone_flags, strict=True):
        mine = sorted((PHONE_CHECKS[key], citation) for key, citation in flagged)
        assert mine == exchange_flags(city, device, values, app), (city, device, values)
    assert any(flagged for flagged in phone_flags) and not phone_flags[0]


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
        data={"grant_type": "refresh_token", "refresh_token": after["refreshToken"], "client_id": DEMO_APP},
        timeout=10,
    )
    assert refreshed.status_code == 400 and refreshed.json()["error"] == "invalid_grant"
