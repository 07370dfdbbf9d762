"""The driver's phone for the browser tests: a network the test can cut, the demo served behind
it, the browser as a 390 x 844 phone, and the driver's steps at a stop."""

import hashlib
import json
import re
import socket
import threading

import pytest
import requests
import websocket
from PIL import Image
from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.common.action_chains import ActionChains
from sqlalchemy import update

from auth.people import DRIVER_APP
from services.demo.people import DEMO_PASSWORD
from storage.people import OAuthApp
from tests.browser import accessible, api_token, by_css, fits, type_into, waiting_for
from tests.conftest import _free_port, serve

DRIVER = "driver@demo.fogx.test"
HOME = "/portal/driver/"


# The network, as the phone sees it ---------------------------------------------------------------


FAILED = b"HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"


class Line:
    """A TCP relay between the browser and the app: cut, it refuses new connections and drops
    the open ones (kept-alive ones too), as a phone with no signal finds the network."""

    def __init__(self, target):
        self.target = target
        self.port = _free_port()
        self.open = set()
        self.lock = threading.Lock()
        self.listener = None
        self.connections = 0  # every connection the browser made through the relay
        self.asked = []  # every request's path that went through it
        self.failing = set()  # a request holding one of these bytes is answered 503

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
            self.connections += 1
            far = socket.create_connection(("127.0.0.1", self.target))
            with self.lock:
                self.open |= {near, far}
            for source, sink in ((near, far), (far, near)):
                threading.Thread(target=self._pump, args=(source, sink), daemon=True).start()

    def _pump(self, source, sink):
        try:
            while data := source.recv(65536):
                self.asked += re.findall(rb"^(?:GET|POST|PUT|PATCH|DELETE) (\S+) HTTP/1", data, re.M)
                if any(marker in data for marker in self.failing):
                    source.sendall(FAILED)  # the exchange failing this request, as a 503
                    break
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


class Worker:
    """The browser's own DevTools connection (its websocket), attached to the service worker's
    target: the emulation set through it lasts while it stays open."""

    def __init__(self, browser):
        address = browser.capabilities["goog:chromeOptions"]["debuggerAddress"]
        url = requests.get(f"http://{address}/json/version", timeout=10).json()["webSocketDebuggerUrl"]
        self.socket = websocket.create_connection(url, timeout=10, suppress_origin=True)
        self.number = 0
        self.sessions = {}

    def send(self, method, params=None, session=None):
        self.number += 1
        message = {"id": self.number, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        self.socket.send(json.dumps(message))
        while True:
            answer = json.loads(self.socket.recv())
            if answer.get("id") == self.number:
                assert "error" not in answer, answer
                return answer["result"]

    def emulate(self, conditions):
        workers = [t for t in self.send("Target.getTargets")["targetInfos"] if t["type"] == "service_worker"]
        self.sessions = {k: v for k, v in self.sessions.items() if k in {t["targetId"] for t in workers}}
        for target in workers:
            if target["targetId"] not in self.sessions:
                attached = self.send("Target.attachToTarget", {"targetId": target["targetId"], "flatten": True})
                self.sessions[target["targetId"]] = attached["sessionId"]
                self.send("Network.enable", session=attached["sessionId"])
        for session in self.sessions.values():
            self.send("Network.emulateNetworkConditions", conditions, session=session)


def offline(browser, cut):
    """The DevTools protocol's offline emulation, on the page and on its service worker's own
    target (the page's emulation alone does not reach the worker): the page's and the worker's
    requests fail and `navigator.onLine` is false. The relay, cut too, is a second guard."""
    conditions = {"offline": cut, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1}
    browser.execute_cdp_cmd("Network.enable", {})
    browser.execute_cdp_cmd("Network.emulateNetworkConditions", conditions)
    if not hasattr(browser, "worker"):
        browser.worker = Worker(browser)
    browser.worker.emulate(conditions)


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
            session.execute(
                update(OAuthApp).where(OAuthApp.client_id == DRIVER_APP).values(redirect_uris=[base + HOME])
            )
            session.commit()
        try:
            yield chromium, base, line, direct
        finally:
            offline(chromium, False)
            chromium.get("about:blank")
            chromium.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
            line.cut()


def sign_in(browser, base, email=DRIVER):
    browser.get(base + HOME)
    waiting_for(
        browser, lambda b: by_css(b, "#person-sign-in") and by_css(b, "#person-sign-in")[0].is_displayed(), "sign-in"
    )
    accessible(browser, "the driver's sign-in")
    fits(browser, "phone", "the driver's sign-in")
    by_css(browser, "#person-sign-in")[0].click()
    waiting_for(browser, lambda b: by_css(b, "#email"), "the sign-in page")
    by_css(browser, "#email")[0].send_keys(email)
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


# The phone's own storage, as the app keeps it -----------------------------------------------------

FILINGS = """
const [spoil, done] = [arguments[0], arguments[arguments.length - 1]];
const opening = indexedDB.open("fogx-driver", 1);
opening.onsuccess = () => {
  const transaction = opening.result.transaction("filings", "readwrite");
  const filings = transaction.objectStore("filings");
  const reading = filings.getAll();
  reading.onsuccess = () => {
    const all = reading.result.sort((a, b) => a.seq - b.seq);
    for (const filing of all.filter((f) => spoil && f.state === "waiting")) {
      filing.scans[0].sha256 = "0".repeat(64);
      filings.put(filing);
    }
    transaction.oncomplete = () => done(all.map(({ scans, signature, ...rest }) => ({
      ...rest, body: JSON.stringify(rest.manifest), scans: scans.map(({ blob, ...scan }) => scan) })));
  };
};
"""


def kept_filings(browser, spoil=False):
    """The filings kept on the phone (without their blobs; `body`, the manifest as sent), after
    spoiling, with `spoil`, the hash of the signed page of each waiting one."""
    return browser.execute_async_script(FILINGS, spoil)


def file_stop(browser, device_id, gallons, signer="Ana Ruiz"):
    """A stop's manifest signed on the phone, the pump-down full: its manifest number."""
    open_stop(browser, device_id)
    type_into(browser, "#d-gallons", gallons)
    by_css(browser, "#d-full")[0].click()
    type_into(browser, "#d-signer", signer)
    sign(browser)
    number = by_css(browser, "#d-number")[0].get_attribute("value")
    by_css(browser, "#d-submit")[0].click()
    waiting_for(browser, lambda b: device_id in stops(b), "the stops again")
    return number
