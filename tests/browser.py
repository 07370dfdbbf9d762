"""The portal in a real browser: one headless Chromium for the run, the demo served to it, and
how the tests read and drive its pages."""

import os
import re
import shutil
import time
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
import requests
from sqlalchemy import update

from services.demo.people import DEMO_APP, DEMO_PASSWORD
from storage.people import OAuthApp
from tests.conftest import serve

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMEDRIVER = shutil.which("chromedriver")
WAIT = 20


@pytest.fixture(scope="session")
def chromium(tmp_path_factory):
    """One headless Chromium for the run, saving downloads to a folder of its own."""
    if not (CHROMIUM and CHROMEDRIVER):
        message = "Chromium and chromedriver are not installed (apt-get install chromium chromium-driver)"
        if os.environ.get("FOGX_BROWSER_TESTS") == "required":
            pytest.fail(message)
        pytest.skip(message)
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    downloads = tmp_path_factory.mktemp("downloads")
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1400,1000"):
        options.add_argument(argument)
    options.add_experimental_option(
        "prefs", {"download.default_directory": str(downloads), "download.prompt_for_download": False}
    )
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    driver.execute_cdp_cmd("Browser.setDownloadBehavior", {"behavior": "allow", "downloadPath": str(downloads)})
    driver.downloads = downloads
    yield driver
    driver.quit()


def portal_app_at(app, base):
    """The demo's portal app, registered for the address the test serves it at."""
    from sqlalchemy.orm import Session

    with Session(bind=app.extensions["fogx.engine"]) as session:
        session.execute(
            update(OAuthApp).where(OAuthApp.client_id == DEMO_APP).values(redirect_uris=[f"{base}/portal/"])
        )
        session.commit()


@pytest.fixture
def portal(app, chromium):
    """The demo served over HTTP, and the browser on a fresh portal page: (browser, base URL)."""
    assert app.test_cli_runner().invoke(args=["demo", "load"]).exit_code == 0
    with serve(app) as base:
        portal_app_at(app, base)
        chromium.get(f"{base}/portal/")
        chromium.execute_script("sessionStorage.clear()")
        for old in chromium.downloads.iterdir():
            old.unlink()
        yield chromium, base
        chromium.get("about:blank")


def by_css(browser, selector):
    from selenium.webdriver.common.by import By

    return browser.find_elements(By.CSS_SELECTOR, selector)


def waiting_for(browser, found, what):
    """`found(browser)` once it is truthy."""
    deadline = time.monotonic() + WAIT
    while time.monotonic() < deadline:
        value = found(browser)
        if value:
            return value
        time.sleep(0.1)
    raise AssertionError(f"never saw {what}; the message: {message(browser)!r}")


def message(browser):
    box = by_css(browser, "#message")
    return box[0].text if box else ""


# The demo's people, one a role (services/demo/people.py).
OPERATOR, AUDITOR = "operator@demo.fogx.test", "auditor@demo.fogx.test"
DISPATCHER, CLERK = "dispatcher@demo.fogx.test", "clerk@demo.fogx.test"


def sign_in(browser, email, password=DEMO_PASSWORD):
    """A person signs in from the portal on fogx's sign-in page, and is back in the portal."""
    waiting_for(
        browser,
        lambda b: by_css(b, "#person-sign-in") and by_css(b, "#person-sign-in")[0].is_displayed(),
        "the portal's sign-in",
    )
    by_css(browser, "#person-sign-in")[0].click()
    waiting_for(browser, lambda b: by_css(b, "#email"), "the sign-in page")
    by_css(browser, "#email")[0].send_keys(email)
    by_css(browser, "#password")[0].send_keys(password)
    by_css(browser, "#submit")[0].click()
    waiting_for(
        browser,
        lambda b: b.execute_script("return sessionStorage.getItem('fogx.portal.session')"),
        "the portal signed in",
    )


def active(base, token):
    """Whether the API still takes the portal's access token."""
    return (
        requests.get(f"{base}/v1/jurisdictions", headers={"Authorization": f"Bearer {token}"}, timeout=10).status_code
        == 200
    )


def text_of(browser, selector):
    """The text of the first element `selector` finds now, read in one script ("" if none)."""
    return browser.execute_script(
        "const e = document.querySelector(arguments[0]); return e ? e.innerText : ''", selector
    )


def button(browser, label, within="#view"):
    return next(b for b in by_css(browser, f"{within} button") if b.text == label)


def rows(browser, within="#view"):
    # Read in one script: a table the page is replacing meanwhile cannot go stale halfway.
    return browser.execute_script(
        "return [...document.querySelectorAll(arguments[0] + ' tbody tr')]"
        ".map((tr) => [...tr.querySelectorAll('td')].map((td) => td.innerText.trim()))",
        within,
    )


def downloaded(browser):
    def whole(_):
        files = [f for f in browser.downloads.iterdir() if not f.name.endswith(".crdownload")]
        return files[0] if files and not any(browser.downloads.glob("*.crdownload")) else None

    return waiting_for(browser, whole, "a download")


def api_token(base, client_id):
    response = requests.post(
        f"{base}/oauth/token",
        data={"grant_type": "client_credentials"},
        auth=(client_id, f"{client_id}-secret"),
        timeout=10,
    )
    return response.json()["access_token"]


def fill(browser, **fields):
    for name, value in fields.items():
        box = by_css(browser, f"#{name}")[0]
        box.clear()
        box.send_keys(value)
    by_css(browser, "#submit")[0].click()


def portal_sign_in(browser, email_address, password):
    """From the portal to the sign-in page, through the password step."""
    waiting_for(
        browser,
        lambda b: by_css(b, "#person-sign-in") and by_css(b, "#person-sign-in")[0].is_displayed(),
        "the portal's sign-in",
    )
    by_css(browser, "#person-sign-in")[0].click()
    waiting_for(browser, lambda b: by_css(b, "#email"), "the sign-in page")
    assert "code_challenge_method=S256" in browser.current_url
    fill(browser, email=email_address, password=password)


def sign_out(browser):
    by_css(browser, "#sign-out")[0].click()
    waiting_for(browser, lambda b: message(b) == "You are signed out.", "the sign-out")


# The page's requests counted from the moment each is made to a macrotask after its body is read,
# by then whatever the page does with the answer is done.
_COUNT_FETCHES = """
if (!window.fogxFetches) {
  const state = (window.fogxFetches = { pending: 0, made: 0 });
  const original = window.fetch;
  window.fetch = function (...args) {
    state.pending += 1;
    state.made += 1;
    let ended = false;
    const end = () => {
      if (!ended) { ended = true; setTimeout(() => { state.pending -= 1; }, 0); }
    };
    return original.apply(this, args).then((response) => {
      for (const name of ["json", "text", "blob", "arrayBuffer"]) {
        const read = response[name].bind(response);
        response[name] = () => read().finally(end);
      }
      return response;
    }, (error) => { end(); throw error; });
  };
}
"""


def count_fetches(browser):
    """Count the page's requests from now on (`fetches_pending`)."""
    browser.execute_script(_COUNT_FETCHES)


def fetches_pending(browser) -> int:
    """The page's requests made since `count_fetches` whose answer is not yet read and used."""
    return browser.execute_script("return window.fogxFetches.pending")


def fetches_made(browser) -> int:
    """The page's requests made since `count_fetches`."""
    return browser.execute_script("return window.fogxFetches.made")


AXE = Path(__file__).parent / "axe" / "axe.min.js"


def accessible(browser, what):
    """axe-core's rules (WCAG 2.x A and AA, and its best practices) find nothing on the page."""
    if not browser.execute_script("return !!window.axe"):
        browser.execute_script(AXE.read_text())
    violations = browser.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        "axe.run(document, {resultTypes: ['violations']}).then((r) => done(r.violations.map((v) =>"
        " ({id: v.id, help: v.help, nodes: v.nodes.slice(0, 3).map((n) => n.target.join(' '))}))));"
    )
    assert violations == [], f"{what}: {violations}"
    # Nor a value the page failed to fill in.
    shown = browser.execute_script("return document.body.innerText")
    assert not re.search(r"\b(undefined|null|NaN)\b|\[object ", shown), f"{what}: {shown}"


def fits(browser, screen, what):
    """On a phone: no sideways scroll, every list a stack of cards with its key fields first,
    every control 44 px or more each way."""
    if screen != "phone":
        return
    assert browser.execute_script("return document.documentElement.scrollWidth") <= 390, what
    small = browser.execute_script("""
        return [...document.querySelectorAll('button, input, select, textarea, [role=tab]')]
          .filter((e) => e.offsetParent !== null && e.type !== 'hidden')
          .map((e) => [e.id || e.textContent.trim() || e.name, e.getBoundingClientRect()])
          .filter(([, r]) => r.height < 44 || r.width < 44).map(([name, r]) => `${name} ${r.width}x${r.height}`);""")
    assert small == [], f"{what}: {small}"
    cards = browser.execute_script("""
        return [...document.querySelectorAll('#view table.list tbody tr')].slice(0, 3).map((tr) => {
          const top = (cells) => Math.min(...[...cells].map((td) => td.getBoundingClientRect().top));
          const keys = tr.querySelectorAll('td.key'), rest = tr.querySelectorAll('td:not(.key)');
          return {card: getComputedStyle(tr).display, keysFirst: !keys.length || !rest.length || top(keys) < top(rest),
                  head: getComputedStyle(tr.closest('table').querySelector('thead')).position};
        });""")
    assert all(c == {"card": "flex", "keysFirst": True, "head": "absolute"} for c in cards), (what, cards)


def type_into(browser, selector, value):
    field = by_css(browser, selector)[0]
    field.clear()
    field.send_keys(str(value))


@pytest.fixture(params=["desktop", "phone"])
def screen(request):
    return request.param


@pytest.fixture
def portal_at_size(s3_app, chromium, screen):
    """The demo served over HTTP (scans kept in S3, moto's server), the browser on a fresh
    portal page at the screen's size: (browser, base URL)."""
    assert s3_app.test_cli_runner().invoke(args=["demo", "load"]).exit_code == 0
    if screen == "phone":
        chromium.execute_cdp_cmd(
            "Emulation.setDeviceMetricsOverride", {"width": 390, "height": 844, "deviceScaleFactor": 3, "mobile": True}
        )
    with serve(s3_app) as base:
        portal_app_at(s3_app, base)
        chromium.get(f"{base}/portal/")
        chromium.execute_script("sessionStorage.clear(); localStorage.clear()")
        chromium.refresh()
        for old in chromium.downloads.iterdir():
            old.unlink()
        try:
            yield chromium, base
        finally:
            chromium.get("about:blank")
            chromium.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})


def set_value(browser, selector, value):
    field = by_css(browser, selector)[0]
    browser.execute_script("arguments[0].value = arguments[1]", field, value)


LA = ZoneInfo("America/Los_Angeles")


def bearer(base, client_id):
    return {"Authorization": f"Bearer {api_token(base, client_id)}"}


def scan(tmp_path):
    from reportlab.pdfgen import canvas

    path = tmp_path / "manifest-scan.pdf"
    page = canvas.Canvas(str(path))
    page.drawString(72, 720, "Manifest IGS-PORTAL-1, signed by Ana Ruiz")
    page.save()
    return path


# The admins' views: the language chosen in the header, a click on what is there, a field's error.
def speak(browser, language, heading):
    """Choose the page's language in the header; the view is drawn again in it."""
    from selenium.webdriver.support.ui import Select

    if language == "en":
        return
    waiting_for(browser, lambda b: by_css(b, "#language")[0].is_displayed(), "the language switch")
    Select(by_css(browser, "#language")[0]).select_by_value(language)
    waiting_for(browser, lambda b: heading in text_of(b, "#view"), "the view in the language chosen")


def click(browser, selector):
    """Click the first element `selector` finds, once it is there; found again where the page
    drew it anew meanwhile (a list redrawn as its load ends)."""
    from selenium.common.exceptions import StaleElementReferenceException

    def clicked(b):
        found = by_css(b, selector)
        if not found:
            return False
        try:
            b.execute_script("arguments[0].scrollIntoView({block: 'center'})", found[0])
            found[0].click()
        except StaleElementReferenceException:
            return False
        return True

    waiting_for(browser, clicked, selector)


def error_beside(browser, form, field):
    """The words shown beside the field, and whether the field is marked invalid."""
    return browser.execute_script(
        "const input = document.querySelector(`#${arguments[0]} [data-field=${arguments[1]}]`);"
        "const error = document.getElementById(`${input.id}-error`);"
        "return [error.hidden ? '' : error.innerText, input.getAttribute('aria-invalid'),"
        " input.closest('.field').contains(error)];",
        form,
        field,
    )


def error_in_view(browser, form, field):
    """The error beside the field as a person sees it: shown, on the screen (the form brings
    the field into view), and next to its field (its top within 80 px of the field's bottom)."""
    return browser.execute_script(
        "const input = document.querySelector(`#${arguments[0]} [data-field=${arguments[1]}]`);"
        "const error = document.getElementById(`${input.id}-error`);"
        "const e = error.getBoundingClientRect(), f = input.getBoundingClientRect();"
        "const width = document.documentElement.clientWidth;"
        "return !error.hidden && e.width > 0 && e.height > 0 && e.left >= 0 && e.right <= width"
        " && e.top >= 0 && e.bottom <= window.innerHeight && Math.abs(e.top - f.bottom) <= 80;",
        form,
        field,
    )


def on_screen(browser, selector):
    """Whether what `selector` finds is shown whole within the screen (a phone's too)."""
    return browser.execute_script(
        "const r = document.querySelector(arguments[0]).getBoundingClientRect();"
        "return r.width > 0 && r.left >= 0 && r.right <= document.documentElement.clientWidth"
        " && r.top >= 0 && r.bottom <= window.innerHeight;",
        selector,
    )


# Each English phrase of the given dictionaries (the fixed parts of one with {values}) that the
# Spanish says otherwise, and each of `also` (the exchange's own English), found as words on the
# page's selectors; addresses are data, not words.
_ENGLISH_LEFT = r"""
const [dictionaries, selectors, also, done] = arguments;
Promise.all(dictionaries.map(([path, name]) => import(path).then((module) => module[name]))).then((readers) => {
  const en = Object.assign({}, ...readers.map((read) => read('en')));
  const es = Object.assign({}, ...readers.map((read) => read('es')));
  const page = selectors.map((s) => document.querySelector(s)?.innerText || '').join('\n').replace(/\S+@\S+/g, ' ');
  const found = also.filter((words) => page.includes(words));
  for (const [key, words] of Object.entries(en)) {
    if (es[key] === words) continue;
    for (const part of words.split(/\{\w+\}/)) {
      const fixed = part.replace(/^[\s,.;:()<>]+|[\s,.;:()<>]+$/g, '');
      if (fixed.length < 4 || !/\p{L}{3}/u.test(fixed)) continue;
      const escaped = fixed.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      if (new RegExp(`(^|[^\\p{L}])${escaped}($|[^\\p{L}])`, 'u').test(page)) found.push(`${key}: ${fixed}`);
    }
  }
  done(found);
}, (error) => done([`words not read: ${error}`]));
"""


def english_on_page(browser, dictionaries, selectors, also=()):
    """The English left on a Spanish page: `dictionaries` are (module path, words-of export)."""
    return browser.execute_async_script(_ENGLISH_LEFT, [list(d) for d in dictionaries], list(selectors), list(also))
