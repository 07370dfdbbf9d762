"""The driver's phone app sending, in Chromium at 390 x 844: a filing whose first request is still
being filed waits and is filed once; one this phone filed already (its answer lost) is adopted,
never filed twice or shown refused; a sign-in left two hours still files, and another person
signed in on the phone does not send the driver's filings; the phone's clock 20 minutes fast is
corrected by the exchange's, and a time refused as in the future set right in the correction; a
scan the exchange refuses is shown on the stop's card; the DevTools offline emulation reaches the
service worker; a filing the exchange keeps failing does not hold the next stop's back; filed
filings a week old leave the phone."""

import hashlib
import time
from datetime import UTC, datetime, timedelta

import requests
from selenium.webdriver.support.ui import Select
from sqlalchemy import select, update
from sqlalchemy.orm import Session

from services.filing.idempotency import Lease
from storage.models import IdempotencyRecord
from storage.people import Membership, Person, RefreshToken
from tests.browser import accessible, api_token, by_css, chromium, text_of, waiting_for  # noqa: F401
from tests.driver_phone import (  # noqa: F401
    DRIVER,
    HOME,
    file_stop,
    hauler_manifests,
    kept_filings,
    offline,
    open_stop,
    phone,
    sign_in,
    stop_when,
    stops,
)


def the_stops(day):
    mesa = next(device for device, (name, _, _) in day.items() if name == "Mesa Grill")
    wok = next(device for device, (name, _, text) in day.items() if name == "Golden Wok" and "interceptor" in text)
    return mesa, wok


def cut(browser, line):
    line.cut()
    offline(browser, True)


def back(browser, line):
    line.connect()
    offline(browser, False)


def filed(direct, number):
    return [m for m in hauler_manifests(direct)[0] if m["manifest_number"] == number]


def test_a_filing_still_being_filed_waits_and_one_filed_already_is_adopted_each_filed_once(phone, app):
    browser, base, line, direct = phone
    mesa, wok = the_stops(sign_in(browser, base))
    cut(browser, line)
    number = file_stop(browser, mesa, 1460)
    [waiting] = kept_filings(browser)

    # The phone's first request is still being filed when it asks again (its answer slow, the
    # tab reopened meanwhile): the exchange holds the key's record in flight, and its lease.
    engine = app.extensions["fogx.engine"]
    with Session(bind=engine) as session:
        driver = session.scalar(select(Person).where(Person.email == DRIVER))
        client_pk = session.scalar(select(Membership.principal_id).where(Membership.person_id == driver.id))
        session.add(
            IdempotencyRecord(
                client_id=client_pk,
                key=waiting["idempotencyKey"],
                request_sha256=hashlib.sha256(f"POST /v1/manifests\n{waiting['body']}".encode()).hexdigest(),
            )
        )
        session.commit()
    lease = Lease(engine, app.config["LOCK_DIR"], client_pk, waiting["idempotencyKey"])
    assert lease.try_acquire()
    try:
        back(browser, line)
        waiting_for(browser, lambda b: kept_filings(b)[0].get("sent"), "the filing sent")
        time.sleep(3)
        # Answered 409, still being filed: it waits, it is not refused, nothing is filed twice.
        assert stops(browser)[mesa][1] == "waiting", kept_filings(browser)[0].get("reason")
        assert not filed(direct, number)
    finally:
        lease.release()  # the first request's process ended without an answer
    stop_when(browser, mesa, "filed", "Mesa Grill filed")
    [manifest] = filed(direct, number)
    assert manifest["revision"] == 1 and len(manifest["documents"]) == 1

    # The phone filed Golden Wok already under another key (the answer was lost before the
    # filing was sent again with a changed value): the exchange answers 409, filed with a
    # different body; the phone adopts the manifest filed and never files it again.
    cut(browser, line)
    number = file_stop(browser, wok, 980)
    [*_, waiting] = kept_filings(browser)
    earlier = {**waiting["manifest"], "gallons_removed": 970}
    hauler = {"Authorization": f"Bearer {api_token(direct, 'demo-hauler')}", "Idempotency-Key": "an-earlier-key"}
    first = requests.post(f"{direct}/v1/manifests", json=earlier, headers=hauler, timeout=10)
    assert first.status_code == 201, first.text
    back(browser, line)
    shown = stop_when(browser, wok, "filed", "Golden Wok adopted")
    assert "This phone had filed it already" in shown and f"Receipt: manifest {number}, revision 1" in shown
    [manifest] = filed(direct, number)
    assert manifest["id"] == first.json()["id"] and manifest["manifest"]["gallons_removed"] == 970
    assert [d["content_type"] for d in manifest["documents"]] == ["image/png"]  # the phone's scan joined it
    accessible(browser, "a filing adopted")


def test_a_sign_in_idle_two_hours_still_files_and_another_person_does_not_send_the_drivers_filings(phone, app):
    browser, base, line, direct = phone
    mesa, wok = the_stops(sign_in(browser, base))
    cut(browser, line)
    number = file_stop(browser, mesa, 1460)
    # Two hours between stops: the refresh token was issued two hours ago, the access token ran out.
    with Session(bind=app.extensions["fogx.engine"]) as session:
        session.execute(update(RefreshToken).values(issued_at=datetime.now(UTC) - timedelta(hours=2)))
        session.commit()
    browser.execute_async_script(
        "const done = arguments[arguments.length - 1]; const opening = indexedDB.open('fogx-driver', 1);"
        "opening.onsuccess = () => { const t = opening.result.transaction('kept', 'readwrite');"
        " const kept = t.objectStore('kept'); const r = kept.get('session');"
        " r.onsuccess = () => kept.put({ ...r.result, expiresAt: 0 }, 'session'); t.oncomplete = () => done(); };"
    )
    back(browser, line)
    stop_when(browser, mesa, "filed", "Mesa Grill filed two hours on")
    assert len(filed(direct, number)) == 1

    # Golden Wok signed with no signal; then the driver's sign-in ends (the phone forgets it).
    cut(browser, line)
    number = file_stop(browser, wok, 980, signer="Li Wei")
    browser.execute_async_script(
        "const done = arguments[arguments.length - 1]; const opening = indexedDB.open('fogx-driver', 1);"
        "opening.onsuccess = () => { const t = opening.result.transaction('kept', 'readwrite');"
        " t.objectStore('kept').delete('session'); t.oncomplete = () => done(); };"
    )
    browser.refresh()
    # Signed out, with no signal: the stops and what waits are there to read, nothing to open.
    shown = stop_when(browser, wok, "waiting", "Golden Wok waiting, signed out")
    assert by_css(browser, "#person-sign-in")[0].is_displayed()
    assert "sign in to send" in text_of(browser, "#sign-in-to-send")
    assert "Signed by Sam Ortiz: sign in to send it." in shown
    assert by_css(browser, "button[data-open]") == [] and by_css(browser, "#sign-out") == []
    accessible(browser, "the stops, signed out")

    # Another person of the hauler signs in on the phone: the driver's filing is not theirs to send.
    back(browser, line)
    sign_in(browser, base, email="dispatcher@demo.fogx.test")
    time.sleep(3)
    shown = stop_when(browser, wok, "waiting", "Golden Wok still waiting")
    assert "Signed by Sam Ortiz: sent when they sign in on this phone." in shown
    assert not filed(direct, number)
    assert not by_css(browser, f"button[data-open='{wok}']")
    Select(by_css(browser, "#language")[0]).select_by_value("es")
    shown = stop_when(browser, wok, "waiting", "in Spanish")
    assert "Firmado por Sam Ortiz: se envía cuando esa persona inicie sesión" in shown
    accessible(browser, "another's filing, in Spanish")
    Select(by_css(browser, "#language")[0]).select_by_value("en")


FAST = """
(() => {
  const shift = 20 * 60_000;
  const Real = Date;
  class Shifted extends Real {
    constructor(...values) { if (values.length) super(...values); else super(Real.now() + shift); }
    static now() { return Real.now() + shift; }
  }
  globalThis.Date = Shifted;
})();
"""


def test_a_phone_clock_twenty_minutes_fast_is_set_by_the_exchanges_and_a_refused_scan_is_shown(phone):
    browser, base, line, direct = phone
    script = browser.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": FAST})["identifier"]
    try:
        browser.refresh()  # the page's clock 20 minutes ahead from its first line
        mesa, wok = the_stops(sign_in(browser, base))
        assert browser.execute_script("return Date.now() - performance.timeOrigin - performance.now()") > 19 * 60_000
        warning = waiting_for(browser, lambda b: by_css(b, "#clock-warning") and text_of(b, "#clock-warning"), "warned")
        assert "20 min ahead of the exchange's" in warning, warning
        accessible(browser, "the clock's warning")

        # Filed on the exchange's clock: accepted, not refused as a service in the future.
        number = file_stop(browser, mesa, 1460)
        stop_when(browser, mesa, "filed", "Mesa Grill filed")
        [manifest] = filed(direct, number)
        completed = datetime.fromisoformat(manifest["manifest"]["service_completed_at"].replace("Z", "+00:00"))
        assert abs(completed - datetime.now(UTC)) < timedelta(minutes=2), completed

        # The signed page's hash spoiled on the phone: the exchange refuses that scan, and the card says so.
        cut(browser, line)
        file_stop(browser, wok, 980)
        kept_filings(browser, spoil=True)
        back(browser, line)
        shown = stop_when(browser, wok, "filed", "Golden Wok filed")
        assert "The signed page was not stored:" in shown and "Keep the paper copy." in shown, shown
        Select(by_css(browser, "#language")[0]).select_by_value("es")
        shown = stop_when(browser, wok, "filed", "in Spanish")
        assert "La página firmada no se guardó" in shown and "adelantado" in text_of(browser, "#clock-warning")
        accessible(browser, "a refused scan, in Spanish")
        Select(by_css(browser, "#language")[0]).select_by_value("en")

        # Before the phone knows the exchange's clock (its first answer still to come), a time
        # 20 minutes ahead is refused; the correction sets the completed time right, the start
        # moving with it.
        trap = next(device for device in stops(browser) if device not in (mesa, wok))
        cut(browser, line)
        browser.execute_async_script(
            "const done = arguments[arguments.length - 1]; const opening = indexedDB.open('fogx-driver', 1);"
            "opening.onsuccess = () => { const t = opening.result.transaction('kept', 'readwrite');"
            " t.objectStore('kept').delete('clock'); t.oncomplete = () => done(); };"
        )
        browser.refresh()
        waiting_for(browser, lambda b: trap in stops(b), "the stops, the clock unknown")
        assert not by_css(browser, "#clock-warning")
        number = file_stop(browser, trap, 50, signer="Li Wei")
        back(browser, line)
        shown = stop_when(browser, trap, "refused", "refused: in the future")
        # The exchange's refusal, in the driver's words beside the field it names.
        assert "Service completed: This is later than now; give the time it happened." in shown, shown
        open_stop(browser, trap)
        completed = by_css(browser, "#d-completed")[0]
        earlier = datetime.fromisoformat(completed.get_attribute("value")) - timedelta(minutes=20)
        browser.execute_script(
            "arguments[0].value = arguments[1]; arguments[0].dispatchEvent(new Event('input', { bubbles: true }))",
            completed,
            earlier.strftime("%Y-%m-%dT%H:%M"),
        )
        accessible(browser, "the correction's service time")
        by_css(browser, "#d-submit")[0].click()
        stop_when(browser, trap, "filed", "the trap filed on time")
        [manifest] = filed(direct, number)
        started, completed = (
            datetime.fromisoformat(manifest["manifest"][key].replace("Z", "+00:00"))
            for key in ("service_started_at", "service_completed_at")
        )
        assert abs(completed - datetime.now(UTC)) < timedelta(minutes=2) and started <= completed, manifest
    finally:
        browser.execute_cdp_cmd("Page.removeScriptToEvaluateOnNewDocument", {"identifier": script})


def test_the_devtools_offline_emulation_cuts_the_page_and_its_service_worker(phone):
    """The network cut as the DevTools protocol's offline emulation alone (the relay left up):
    the app starts again with no request reaching the exchange, from the page or its worker."""
    browser, base, line, _ = phone
    sign_in(browser, base)
    waiting_for(
        browser, lambda b: b.execute_script("return !!navigator.serviceWorker.controller"), "the worker in control"
    )
    time.sleep(1)  # the worker's updates in the background are done
    offline(browser, True)
    asked = len(line.asked)
    browser.refresh()
    waiting_for(browser, lambda b: len(stops(b)) == 3, "the stops with no signal")
    assert "No signal" in text_of(browser, "#network")
    time.sleep(2)
    # Only the browser's own check for a new version of the worker's script, which is no page's
    # or worker's request, went out.
    assert set(line.asked[asked:]) <= {b"/portal/driver/sw.js"}, line.asked[asked:]
    offline(browser, False)
    waiting_for(browser, lambda b: "Online" in text_of(b, "#network"), "the signal back")


def test_a_filing_the_exchange_keeps_failing_waits_and_the_next_stops_is_sent(phone):
    """A 5xx for one stop's filing: it waits longer each time (a backoff), the next stop's filing
    is sent meanwhile, and "Send now" tries it again at once."""
    browser, base, line, direct = phone
    mesa, wok = the_stops(sign_in(browser, base))
    cut(browser, line)
    failing = file_stop(browser, mesa, 1460)
    number = file_stop(browser, wok, 980)
    [first, _] = kept_filings(browser)
    line.failing.add(first["idempotencyKey"].encode())
    back(browser, line)
    stop_when(browser, wok, "filed", "Golden Wok filed past Mesa Grill's failing")
    [kept, _] = kept_filings(browser)
    assert kept["state"] == "waiting" and kept["failures"] >= 1 and kept["retryAt"] > time.time() * 1000
    assert len(filed(direct, number)) == 1 and not filed(direct, failing)
    # The exchange is back: the driver sends it now rather than wait out the backoff.
    line.failing.clear()
    waiting_for(browser, lambda b: by_css(b, "#send-now"), "Send now").pop().click()
    stop_when(browser, mesa, "filed", "Mesa Grill filed")
    assert len(filed(direct, failing)) == 1


AGED = """
const [changes, loadedAt, done] = arguments;
const opening = indexedDB.open("fogx-driver", 1);
opening.onsuccess = () => {
  const transaction = opening.result.transaction(["filings", "kept"], "readwrite");
  const filings = transaction.objectStore("filings");
  for (const [id, fields] of Object.entries(changes)) {
    const reading = filings.get(id);
    reading.onsuccess = () => filings.put({ ...reading.result, ...fields });
  }
  const kept = transaction.objectStore("kept");
  const day = kept.get("day");
  day.onsuccess = () => kept.put({ ...day.result, loadedAt }, "day");
  transaction.oncomplete = () => done();
};
"""


def ago(**delta):
    return (datetime.now(UTC) - timedelta(**delta)).isoformat()


def test_a_week_old_filing_is_dropped_and_a_filed_stop_stays_filed_while_the_due_list_is_older(phone):
    """Filed filings a week old leave the phone with their scans; a stop filed a day ago is not
    shown open again by a due list read before its filing."""
    browser, base, line, _ = phone
    mesa, wok = the_stops(sign_in(browser, base))
    file_stop(browser, mesa, 1460)
    stop_when(browser, mesa, "filed", "Mesa Grill filed")
    file_stop(browser, wok, 980)
    stop_when(browser, wok, "filed", "Golden Wok filed")
    old, yesterday = kept_filings(browser)
    cut(browser, line)
    browser.execute_async_script(
        AGED,
        {
            old["id"]: {"filedAt": ago(days=7, minutes=1), "signedAt": ago(days=7, minutes=2)},
            yesterday["id"]: {"filedAt": ago(hours=25), "signedAt": ago(hours=25)},
        },
        ago(hours=26),
    )
    browser.refresh()
    waiting_for(browser, lambda b: wok in stops(b), "the stops with no signal")
    assert [f["id"] for f in kept_filings(browser)] == [yesterday["id"]]
    assert stops(browser)[wok][1] == "filed"  # the due list, older than its filing, still lists it
