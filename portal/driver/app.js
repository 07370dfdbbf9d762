// The driver's phone app: the day's stops, a manifest at each signed on the screen and
// photographed, kept on the phone until the network takes it, then each stop's receipt or the
// exchange's findings. It installs (its web app manifest and service worker) and starts with no
// signal; the sign-in, the stops and the filings are kept in IndexedDB.
import { el, report, show } from "../js/dom.js";
import { LANGUAGES, findingText, lang, setLang, use } from "../js/i18n.js";
import { when } from "../js/time.js";
import { WARN_MS, clockOffset, loadClock } from "./clock.js";
import { WITHIN_DAYS, keptDay, loadDay } from "./day.js";
import { stopForm } from "./form.js";
import { mine, sendWaiting } from "./send.js";
import { SignedOut, current, signIn, signOut } from "./session.js";
import { dropFilings, filings, persist, prune } from "./store.js";
import { citationWords, refusalText, w } from "./words.js";

const RETRY_MS = 10_000;
const SHOWN_FOR_MS = 24 * 3600_000; // a filed stop stays on the list for a day
const DAY_FRESH_MS = 3600_000; // the due list is read again, with a signal, once it is older
const REDRAW_MS = 60_000; // the hours left are redrawn, with no signal too
const view = () => document.getElementById("view");

let day = null;
let dayIsFresh = false;
let formOpen = false;
let person = null; // the signed-in person on this phone ({ name, sub }), or null

function network() {
  const line = document.getElementById("network");
  line.textContent = navigator.onLine ? w("online") : w("offline");
  line.className = `network ${navigator.onLine ? "on" : "off"}`;
}

function words() {
  use(lang());
  document.title = w("title");
  document.getElementById("app-name").textContent = w("appName");
  document.getElementById("sign-in-title").textContent = w("signInTitle");
  document.getElementById("sign-in-text").textContent = w("signInText");
  document.getElementById("person-sign-in").textContent = w("signIn");
  document.querySelector("label[for=language]").textContent = w("language");
  network();
}

// Signed out: the sign-in, and under it the day's stops and what waits, to read (nothing is
// sent, nothing opened) until someone signs in.
function signedOutPage(message) {
  formOpen = false;
  person = null;
  document.getElementById("sign-in").hidden = false;
  view().hidden = !day;
  if (day) drawStops().catch(report);
  else view().replaceChildren();
  if (message) show(message, "info");
}

function left(filing) {
  const end = new Date(filing.manifest.service_completed_at).getTime() + filing.deadlineHours * 3600_000;
  const minutes = Math.floor(Math.abs(end - Date.now()) / 60_000);
  const values = { h: Math.floor(minutes / 60), m: minutes % 60, limit: filing.deadlineHours };
  return end >= Date.now() ? w("left", values) : w("late", values);
}

function outcome(filing) {
  const state = el("p", { class: `state ${filing.state}` }, el("strong", {}, w(`state.${filing.state}`)), ` · ${filing.manifest.manifest_number}`);
  const signed = el("p", {}, w("signedAt", { when: when(filing.manifest.service_completed_at, filing.zone) }));
  const whose = filing.person && !(person && mine(filing, person))
    ? el("p", { class: "note whose" }, w(person ? "othersFiling" : "signInToSendIt", { name: filing.person.name })) : null;
  if (filing.state === "waiting" || filing.state === "uploading") return [state, signed, el("p", { class: "left" }, left(filing)), whose];
  if (filing.state === "refused") {
    return [state, el("p", { class: "refusal" }, w("reason", { reason: refusalText(filing) })), signed, el("p", { class: "left" }, left(filing))];
  }
  const receipt = filing.receipt;
  const open = (receipt.findings || []).filter((f) => !f.cleared_at);
  return [
    state,
    el("p", { class: "receipt" }, w("receipt", { number: receipt.manifest_number, revision: receipt.revision, when: when(receipt.received_at, filing.zone) })),
    el("p", {}, w("scansStored", { n: filing.scans.filter((s) => s.stored).length })),
    filing.adopted ? el("p", { class: "note" }, w("adopted")) : null,
    ...filing.scans.filter((s) => s.refused).map((s) => el("p", { class: "refusal", "data-refused-scan": s.sha256 },
      w(s.photo ? "photoRefused" : "pageRefused", { reason: s.refused }))),
    open.length
      ? el("ul", { class: "findings" }, open.map((f) => el("li", { class: f.severity, "data-code": f.code }, findingText(f), el("br"), el("cite", {}, citationWords(f.citation)))))
      : el("p", { class: "ok" }, w("answer.clean")),
  ];
}

async function openStop(stop, filing) {
  formOpen = true; // the list is not drawn again under the form
  const city = day.cities[stop.jurisdiction];
  const all = await filings();
  const { parts, ready } = stopForm({
    stop, city, cities: day.cities, known: day.stops, vehicles: day.vehicles, sites: day.sites,
    driver: (await current())?.name || "", filing, seq: (all.at(-1)?.seq || 0) + 1,
    person: person && { name: person.name, sub: person.sub || null },
    onCity: (code) => openStop({ ...stop, jurisdiction: code }, filing).catch(report),
    onDone: async () => {
      formOpen = false;
      await drawStops();
      kick();
    },
  });
  view().replaceChildren(...parts);
  ready();
  window.scrollTo(0, 0);
  view().querySelector("#form-title").focus();
}

// A stop not on the due list: its city that of the hauler's first truck, its permit and device typed.
function anotherStop() {
  return {
    other: true, device_id: `other-${crypto.randomUUID()}`, jurisdiction: day.vehicles[0]?.jurisdiction || Object.keys(day.cities)[0],
    permit_number: "", device_tag: "", device_kind: "interceptor", device: null, fse_name: "", address: "",
  };
}

async function drawStops() {
  if (formOpen || !day) return;
  const all = await filings();
  if (formOpen) return;
  const latest = new Map();
  for (const filing of all) {
    // A filed stop leaves the list after a day, once the due list read since knows of its filing.
    const filedAt = Date.parse(filing.filedAt || filing.signedAt);
    if (filing.state === "filed" && Date.now() - filedAt > SHOWN_FOR_MS && Date.parse(day.loadedAt) > filedAt) continue;
    latest.set(filing.stop.device_id, filing);
  }
  const stops = new Map(day.stops.map((stop) => [stop.device_id, stop]));
  for (const filing of latest.values()) if (!stops.has(filing.stop.device_id)) stops.set(filing.stop.device_id, filing.stop);
  const waiting = all.filter((f) => (f.state === "waiting" || f.state === "uploading") && person && mine(f, person)).length;
  const offBy = clockOffset();
  const cards = [...stops.values()].map((stop) => {
    const filing = latest.get(stop.device_id);
    const name = stop.other ? w("otherStopTitle", { permit: stop.permit_number, tag: stop.device_tag }) : `${stop.fse_name} ${stop.device_tag}`;
    const button = !person || (filing && !mine(filing, person)) ? null : !filing ? el("button", { type: "button", class: "big", "data-open": stop.device_id, onclick: () => openStop(stop, null).catch(report) }, w("open", { name }))
      : filing.state === "refused" ? el("button", { type: "button", class: "big", "data-open": stop.device_id, onclick: () => openStop(stop, filing).catch(report) }, w("correct", { name }))
        : null;
    return el("li", { class: "stop card", "data-stop": stop.device_id, "data-state": filing?.state || "open" },
      el("h2", {}, stop.other ? [w("otherStop"), stop.fse_name ? `: ${stop.fse_name}` : ""] : stop.fse_name),
      stop.address ? el("p", {}, stop.address) : null,
      stop.device ? el("p", {}, w("device", { tag: stop.device_tag, kind: w(`kind.${stop.device_kind}`), gallons: stop.device.capacity_gallons }), ` · ${stop.permit_number}`)
        : el("p", {}, `${stop.device_tag} · ${stop.permit_number}`),
      stop.other ? null : el("p", {}, w("due", { day: stop.due_on }), " · ", w(`status.${stop.status}`)),
      filing ? outcome(filing) : null,
      button);
  });
  view().replaceChildren(...[
    el("h1", {}, w("stops")),
    el("p", { class: "note" }, w("stopsAsOf", { n: WITHIN_DAYS, when: when(day.loadedAt, Object.values(day.cities)[0]?.zone || "America/Los_Angeles") })),
    offBy !== null && Math.abs(offBy) > WARN_MS
      ? el("p", { class: "clock-warning", id: "clock-warning" }, w(offBy > 0 ? "clockSlow" : "clockFast", { m: Math.round(Math.abs(offBy) / 60_000) })) : null,
    person ? null : el("p", { class: "note", id: "sign-in-to-send" }, w("signInToSend")),
    waiting ? el("p", { class: "waiting" }, w("waitingCount", { n: waiting }), " ",
      el("button", { type: "button", class: "quiet", id: "send-now", onclick: () => kick(true) }, w("sendNow"))) : null,
    cards.length ? el("ul", { class: "stops" }, cards) : el("p", {}, w("noStops")),
    person ? el("button", { type: "button", class: "big quiet", id: "other-stop", onclick: () => openStop(anotherStop(), null).catch(report) }, w("otherStopOpen")) : null,
    person ? el("p", {}, el("button", { type: "button", class: "quiet", id: "sign-out", onclick: () => leave().catch(report) }, w("signOut"))) : null,
  ].filter(Boolean));
}

// Signing out waits until the person's own filings are sent; another's stay on the phone.
async function leave() {
  const all = await filings();
  const open = (f) => f.state === "waiting" || f.state === "uploading" || f.state === "refused";
  if (all.some((f) => open(f) && mine(f, person))) return show(w("signOutWaiting"), "error");
  await signOut();
  await dropFilings(all.filter((f) => !open(f)).map((f) => f.id));
  day = null;
  signedOutPage(w("signedOut"));
}

let kicking = null;

// Send what waits and, the first time the network is there (and each hour after), read the
// day's stops afresh. `now`: the driver asked, so a filing the exchange failed is not kept waiting.
function kick(now = false) {
  network();
  if (!navigator.onLine || !person) return Promise.resolve();
  kicking ||= (async () => {
    try {
      if (!dayIsFresh || !day || Date.now() - Date.parse(day.loadedAt) > DAY_FRESH_MS) {
        day = await loadDay();
        dayIsFresh = true;
        await drawStops();
      }
      await sendWaiting(drawStops, person, now);
    } catch (error) {
      if (error instanceof SignedOut) signedOutPage(w("signInAgain"));
      // A TypeError: no network yet; a DOMException: no answer in time.
      else if (!(error instanceof TypeError) && error?.name !== "TimeoutError" && error?.name !== "AbortError") report(error);
    } finally {
      kicking = null;
    }
  })();
  return kicking;
}

function languageSwitch() {
  const choice = document.getElementById("language");
  choice.replaceChildren(...Object.entries(LANGUAGES).map(([code, name]) => el("option", { value: code, lang: code }, name)));
  choice.value = lang();
  choice.addEventListener("change", () => {
    setLang(choice.value);
    words();
    if (!formOpen) drawStops().catch(report);
  });
}

async function start() {
  words();
  languageSwitch();
  if ("serviceWorker" in navigator) navigator.serviceWorker.register("/portal/driver/sw.js", { scope: "/portal/driver/" }).catch(report);
  document.getElementById("person-sign-in").addEventListener("click", () => signIn().catch(report));
  window.addEventListener("online", () => kick());
  window.addEventListener("offline", network);
  persist().catch(() => {});
  await Promise.all([loadClock(), prune()]);
  day = (await keptDay()) || null;
  setInterval(() => drawStops().catch(report), REDRAW_MS);
  person = await current();
  if (!person) return signedOutPage("");
  document.getElementById("sign-in").hidden = true;
  view().hidden = false;
  if (day) await drawStops();
  else view().replaceChildren(el("p", {}, navigator.onLine ? w("loading") : w("noDay")));
  await kick();
  setInterval(kick, RETRY_MS);
}

start().catch(report);
