// One stop's manifest on the phone: the fields of the dispatcher's form, the checks the exchange
// will make (shown as the driver types, and what it would refuse told beside each field), the
// restaurant's signature and up to four photos. Signing queues the filing on the phone; the
// service starts when the stop is opened (the driver may change it) and is completed at signing.
// A correction keeps the page the restaurant signed, unless it changes what they attested: then
// they sign again.
import { el, field, show } from "../js/dom.js";
import { fromLocalInput, toLocalInput, when } from "../js/time.js";
import { attestedChanges, fieldProblems, number, preflight } from "./checks.js";
import { now } from "./clock.js";
import { manifestPage, resized, sha256, signaturePad, thumbnail } from "./scans.js";
import { saveFiling } from "./store.js";
import { citationWords, refusalText, refusedWords, w } from "./words.js";

export const MAX_PHOTOS = 4;
const WASTE = { interceptor: "grease_interceptor_waste", trap: "grease_trap_waste" };
// The form's fields by the manifest's names, for the exchange's field errors.
const FIELDS = {
  manifest_number: "number", permit_number: "permit", device_tag: "device", vehicle_id: "vehicle",
  driver_name: "driver", waste_type: "waste", gallons_removed: "gallons", decant_returned_gallons: "decant",
  "measurements.fog_depth_in": "fog", "measurements.solids_depth_in": "solids",
  "measurements.liquid_depth_in": "liquid", "measurements.outlet_clearance_in": "clearance",
  fse_signer_name: "signer", "disposal.site_id": "site", "disposal.ticket_number": "ticket",
  "disposal.delivered_at": "delivered", "disposal.gallons_delivered": "delivered-gallons",
  service_started_at: "started",
};

// An instant as RFC 3339 in the zone's wall clock with its offset, to the minute.
export const stamp = (instant, zone) => fromLocalInput(toLocalInput(instant.toISOString(), zone), zone);

function manifestNumber(now) {
  const digits = now.toISOString().replace(/\D/g, "").slice(2, 12);
  const tail = crypto.getRandomValues(new Uint16Array(1))[0].toString(16).toUpperCase().padStart(4, "0");
  return `D${digits}-${tail}`;
}

// In a correction only: the service's completed time, to set right where the phone's clock was off.
function correctedTime(was, zone) {
  if (!was) return null;
  return field(w("completedAt"), input("completed", "datetime-local", { value: toLocalInput(was.service_completed_at, zone), required: true }),
    w("completedHint", { zone }));
}

const input = (name, type, attributes = {}) => el("input", { id: `d-${name}`, name, type, ...attributes });
const decimalInput = (name, attributes = {}) => input(name, "number", { min: 0, max: 600, step: "0.01", inputmode: "decimal", ...attributes });

// stop: the day's stop, or another stop (stop.other: its permit and device as typed); city: its
// parameters, rules and zone; cities: every city (another stop's choice); known: the day's stops
// (the devices the phone knows); vehicles, sites: the day's; driver: the signed-in person's name;
// filing: a refused filing to correct, or null; onCity(code): another stop's city chosen anew;
// person: who signs the filing in (only theirs are sent).
export function stopForm({ stop, city, cities = {}, known = [], vehicles, sites, driver, filing, seq, onDone, onCity, person = null }) {
  const zone = city.zone;
  const was = filing ? filing.manifest : null;
  const openedAt = was ? was.service_started_at : stamp(now(), zone);
  const trucks = vehicles.filter((v) => v.jurisdiction === stop.jurisdiction);
  const photos = filing ? filing.scans.filter((s) => s.photo).map((s) => s.blob) : [];
  const name = stop.other ? w("otherStop") : `${stop.fse_name} ${stop.device_tag}`;
  const clearanceRule = city.parameters.min_outlet_clearance_in;

  const form = el("form", { class: "stop-form", novalidate: true, "data-city": stop.jurisdiction });
  const text = (key, label, value, attributes = {}) =>
    field(label, input(key, "text", { value: value ?? "", autocomplete: "off", ...attributes }));
  const numberField = (key, label, value, attributes = {}) =>
    field(label, input(key, "number", { min: 0, max: 100000, step: 1, inputmode: "numeric", value: value ?? "", ...attributes }));
  const depth = (key, label, value) => field(label, decimalInput(key, { value: value ?? "" }));
  const measured = was?.measurements || {};
  const disposal = was?.disposal || {};
  // Another stop's device tags the phone knows, offered as the driver types the permit.
  const tags = el("datalist", { id: "d-device-tags" }, [...new Set(known.map((s) => s.device_tag))].map((tag) => el("option", { value: tag })));

  form.append(
    el("fieldset", {}, el("legend", {}, w("form.service")),
      stop.other ? field(w("form.city"), el("select", { id: "d-city", name: "city", onchange: (event) => onCity(event.target.value) },
        Object.entries(cities).map(([code, c]) => el("option", { value: code, selected: code === stop.jurisdiction }, c.name)))) : null,
      text("number", w("form.number"), was ? was.manifest_number : manifestNumber(new Date()), { maxlength: 60, required: true }),
      text("permit", w("form.permit"), was ? was.permit_number : stop.permit_number, { maxlength: 60, required: true }),
      text("device", w("form.device"), was ? was.device_tag : stop.device_tag, { maxlength: 40, required: true, list: stop.other ? "d-device-tags" : null }),
      stop.other ? tags : null,
      field(w("truck"), el("select", { id: "d-vehicle", name: "vehicle", required: true },
        trucks.map((v) => el("option", { value: v.vehicle_id, selected: was?.vehicle_id === v.vehicle_id }, `${v.vehicle_id} (${v.tank} gal)`)))),
      text("driver", w("form.driver"), was ? was.driver_name : driver, { maxlength: 200, required: true }),
      field(w("form.started"), input("started", "datetime-local", { value: toLocalInput(openedAt, zone), required: true }), w("startedHint", { zone })),
      field(w("form.waste"), el("select", { id: "d-waste", name: "waste" },
        Object.values(WASTE).map((waste) => el("option", {
          value: waste, selected: (was ? was.waste_type : WASTE[stop.device_kind]) === waste,
        }, w(`waste.${waste}`))))),
      numberField("gallons", w("form.gallons"), was?.gallons_removed, { required: true }),
      numberField("decant", w("form.decant"), was ? was.decant_returned_gallons : 0),
      el("div", { class: "field check" }, input("full", "checkbox", { checked: was ? was.full_pump_down : false }),
        el("label", { for: "d-full" }, w("form.full")))),
    el("fieldset", {}, el("legend", {}, w("measured")),
      depth("fog", w("form.fog"), measured.fog_depth_in),
      depth("solids", w("form.solids"), measured.solids_depth_in),
      depth("liquid", w("form.liquid"), measured.liquid_depth_in),
      clearanceRule === null || clearanceRule === undefined ? null : depth("clearance", w("clearance"), measured.outlet_clearance_in)),
    el("fieldset", {}, el("legend", {}, w("disposal")),
      field(w("form.site"), el("select", { id: "d-site", name: "site" }, el("option", { value: "" }, w("form.noSite")),
        sites.map((s) => el("option", { value: s.id, selected: disposal.site_id === s.id }, s.name)))),
      text("ticket", w("form.ticket"), disposal.ticket_number, { maxlength: 60 }),
      field(w("deliveredAt"), input("delivered", "datetime-local", { value: toLocalInput(disposal.delivered_at, zone) }), w("form.localTime", { zone })),
      numberField("delivered-gallons", w("form.deliveredGallons"), disposal.gallons_delivered)));

  const checkList = el("ul", { class: "checks" });
  form.append(el("section", { class: "checks-box", "aria-labelledby": "checks-title" },
    el("h2", { id: "checks-title" }, w("checks")), el("div", { "aria-live": "polite" }, checkList)));

  const canvas = el("canvas", { id: "d-signature", class: "signature", role: "img", "aria-label": w("signHere") });
  const pad = signaturePad(canvas);
  const thumbs = el("ul", { class: "photos" });
  const camera = input("photos", "file", { accept: "image/*", capture: "environment", multiple: true });
  const signedNote = el("p", { class: "note", id: "d-signed-note", "aria-live": "polite" });
  form.append(
    el("fieldset", {}, el("legend", {}, w("signature")),
      text("signer", w("form.signer"), was?.fse_signer_name, { maxlength: 200, required: true, autocomplete: "name" }),
      filing ? signedNote : null,
      el("p", { class: "note", id: "d-signature-hint" }, w("signHere")), canvas,
      el("button", { type: "button", class: "quiet", id: "d-clear", onclick: () => pad.clear() }, w("clearSignature"))),
    el("fieldset", {}, el("legend", {}, w("photos")),
      el("label", { for: "d-photos", class: "camera" }, w("addPhotos")), camera, thumbs));

  const times = el("div", { class: "times" },
    el("p", {}, was ? w("completedWas", { when: when(was.service_completed_at, zone) }) : w("completedAtSigning", { zone })));
  const submit = el("button", { type: "submit", id: "d-submit", class: "big" }, filing ? w("sendAgain") : w("fileIt"));
  form.append(...[times, correctedTime(was, zone), el("div", { class: "actions" }, submit)].filter(Boolean));
  // A correction's completed time set right moves the start shown with it (the service keeps
  // its length); the driver may still set the start on its own.
  const completedField = form.querySelector("#d-completed");
  if (completedField) {
    let last = completedField.value;
    completedField.addEventListener("input", () => {
      const started = form.querySelector("#d-started");
      if (started?.value && last && completedField.value) {
        const moved = Date.parse(fromLocalInput(completedField.value, zone)) - Date.parse(fromLocalInput(last, zone));
        started.value = toLocalInput(new Date(Date.parse(fromLocalInput(started.value, zone)) + moved).toISOString(), zone);
      }
      last = completedField.value;
    });
  }
  // A correction's completed time as set in its field.
  const corrected = (body) => {
    if (!completedField) return body;
    body.service_completed_at = fromLocalInput(value("completed"), zone);
    return body;
  };

  const value = (key) => form.querySelector(`#d-${key}`)?.value.trim() ?? "";
  const kind = () => (value("waste") === WASTE.trap ? "trap" : "interceptor");
  // The device the checks judge: the stop's, or the one the phone knows by another stop's permit and tag.
  const knownStop = () => known.find((s) => s.permit_number === value("permit") && s.device_tag === value("device")) || null;
  const device = () => (stop.other ? knownStop()?.device || null : stop.device);
  const values = () => ({
    vehicle: value("vehicle"), gallons: value("gallons"), decant: value("decant"), full: form.querySelector("#d-full").checked,
    fog: value("fog"), solids: value("solids"), clearance: value("clearance"), kind: kind(),
  });
  const recheck = () => checkList.replaceChildren(...preflight({ city, device: device(), vehicles: trucks, values: values() })
    .map((check) => el("li", { class: check.state, "data-check": check.key },
      el("strong", {}, w(check.key)), " ",
      check.state === "pending" ? (check.words ? w(...check.words) : w("checkPending")) : w(...check.words),
      check.state === "flag" ? el("span", { class: "flag-note" }, " ", w("willFlag")) : null,
      el("br"), el("cite", {}, w("rule", { citation: citationWords(check.citation) })))));

  const manifest = (completedAt) => {
    const body = {
      manifest_number: value("number"), permit_number: value("permit"), device_tag: value("device"),
      vehicle_id: value("vehicle"), driver_name: value("driver"), service_started_at: fromLocalInput(value("started"), zone),
      service_completed_at: completedAt, waste_type: value("waste"), gallons_removed: Number(value("gallons")),
      decant_returned_gallons: Number(value("decant") || 0), full_pump_down: form.querySelector("#d-full").checked,
      fse_signer_name: value("signer"),
    };
    if (value("fog") !== "" || value("solids") !== "") {
      body.measurements = { fog_depth_in: number(value("fog")), solids_depth_in: number(value("solids")) };
      if (value("liquid") !== "") body.measurements.liquid_depth_in = number(value("liquid"));
      if (value("clearance") !== "") body.measurements.outlet_clearance_in = number(value("clearance"));
    }
    if (value("site")) {
      body.disposal = {
        site_id: value("site"), ticket_number: value("ticket"), delivered_at: fromLocalInput(value("delivered"), zone),
        gallons_delivered: number(value("delivered-gallons")),
      };
    }
    return body;
  };

  // A correction: whether it changes what the restaurant's person signed for, said above the pad.
  // A phone's clock set right moves both times alike: the service signed for is the same one.
  const changed = () => {
    if (!was) return [];
    const now = corrected(manifest(was.service_completed_at));
    const moved = Date.parse(now.service_completed_at) - Date.parse(was.service_completed_at);
    const started = new Date(Date.parse(now.service_started_at) - moved).toISOString();
    return attestedChanges(was, { ...now, service_started_at: started });
  };
  const resign = () => {
    if (!filing) return;
    const keys = changed();
    signedNote.textContent = keys.length ? w("signAgain", { fields: keys.map((key) => w(key)).join(", ") }) : w("signedPageKept");
    signedNote.className = keys.length ? "note flag-note" : "note";
  };

  // What the exchange would refuse, beside each field; the exchange's own reasons for a refusal
  // stay beside theirs until the field is changed.
  const told = new Map();
  for (const [path, messages] of Object.entries(filing?.errors || {})) {
    if (FIELDS[path]) told.set(FIELDS[path], refusedWords(messages));
  }
  const problems = () => fieldProblems({
    values: Object.fromEntries(["gallons", "decant", "delivered-gallons", "site", "ticket", "delivered"].map((key) => [key, value(key)])),
    started: value("started") ? new Date(fromLocalInput(value("started"), zone)).getTime() : null,
    completed: completedField?.value ? Date.parse(fromLocalInput(completedField.value, zone))
      : was ? new Date(was.service_completed_at).getTime() : Date.now(),
    completedWords: was ? when(was.service_completed_at, zone) : null,
  });
  const tell = () => {
    const notes = new Map(told);
    for (const [key, words, values] of problems()) notes.set(key, w(words, values));
    for (const old of form.querySelectorAll(".field-error")) old.remove();
    for (const control of form.querySelectorAll("[aria-invalid]")) {
      control.removeAttribute("aria-invalid");
      control.removeAttribute("aria-describedby");
    }
    for (const [key, words] of notes) {
      const control = form.querySelector(`#d-${key}`);
      if (!control) continue;
      const note = el("span", { class: "field-error", id: `d-${key}-error` }, words);
      control.after(note);
      control.setAttribute("aria-invalid", "true");
      control.setAttribute("aria-describedby", note.id);
    }
    return [...notes.keys()].map((key) => form.querySelector(`#d-${key}`)).filter(Boolean);
  };
  form.addEventListener("input", () => {
    recheck();
    resign();
  });
  form.addEventListener("change", (event) => {
    told.delete(event.target.id.replace(/^d-/, ""));
    recheck();
    resign();
    tell();
  });
  recheck();
  resign();
  tell();

  const drawPhotos = async () => {
    const items = [];
    for (const [index, blob] of photos.entries()) {
      const n = index + 1;
      items.push(el("li", {}, await thumbnail(blob, w("photoAlt", { n })),
        el("button", { type: "button", class: "quiet", onclick: () => { photos.splice(index, 1); drawPhotos(); } }, w("removePhoto", { n }))));
    }
    thumbs.replaceChildren(...items);
  };
  camera.addEventListener("change", async () => {
    const files = [...camera.files];
    if (photos.length + files.length > MAX_PHOTOS) show(w("tooMany"), "error");
    for (const file of files.slice(0, MAX_PHOTOS - photos.length)) photos.push(await resized(file));
    camera.value = "";
    await drawPhotos();
  });
  drawPhotos();

  const missing = () => [...form.querySelectorAll("[required]")].filter((control) => {
    const empty = control.value.trim() === "";
    if (empty) control.setAttribute("aria-invalid", "true");
    return empty;
  }).map((control) => form.querySelector(`label[for=${control.id}]`).textContent);

  // The signed page: the one the restaurant signed, kept as it is, or drawn anew under a new signature.
  const signedPage = async (body) => {
    if (!pad.strokes) return { page: filing.scans.find((s) => !s.photo), signature: filing.signature };
    const signature = await pad.blob();
    const lines = [
      [w("form.number"), body.manifest_number], [w("hauler.restaurant"), stop.other ? knownStop()?.fse_name : stop.fse_name],
      [w("hauler.address"), stop.other ? knownStop()?.address : stop.address],
      [w("form.permit"), body.permit_number], [w("form.device"), body.device_tag], [w("truck"), body.vehicle_id],
      [w("form.driver"), body.driver_name], [w("form.started"), when(body.service_started_at, zone)],
      [w("form.completed"), when(body.service_completed_at, zone)], [w("form.waste"), w(`waste.${body.waste_type}`)],
      [w("form.gallons"), body.gallons_removed], [w("form.decant"), body.decant_returned_gallons],
      [w("form.full"), body.full_pump_down ? w("yes") : w("no")],
      [w("form.fog"), body.measurements?.fog_depth_in], [w("form.solids"), body.measurements?.solids_depth_in],
      [w("form.liquid"), body.measurements?.liquid_depth_in], [w("form.signer"), body.fse_signer_name],
    ];
    const page = await manifestPage(w("sheetTitle"), lines, signature);
    return { page: { name: `${body.manifest_number}-signed.png`, blob: page, sha256: await sha256(page) }, signature };
  };

  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    show("");
    const marked = tell();
    const gaps = missing();
    if (gaps.length) return show(w("needFields", { fields: gaps.join(", ") }), "error");
    if (marked.length) {
      marked[0].focus();
      return show(w("fixFields"), "error");
    }
    if (!filing && !pad.strokes) return show(w("needSignature"), "error");
    if (filing && changed().length && !pad.strokes) return show(w("needSignAgain"), "error");
    submit.disabled = true;
    try {
      const body = corrected(manifest(was ? was.service_completed_at : stamp(now(), zone)));
      const { page, signature } = await signedPage(body);
      const scans = [page];
      for (const [index, blob] of photos.entries()) {
        scans.push({ name: `${body.manifest_number}-photo-${index + 1}.jpg`, blob, sha256: await sha256(blob), photo: true });
      }
      const found = stop.other ? knownStop() : null;
      const kept = stop.other ? {
        ...stop, permit_number: body.permit_number, device_tag: body.device_tag, device_kind: kind(),
        device: found?.device || null, fse_name: found?.fse_name || "", address: found?.address || "",
      } : stop;
      await saveFiling({
        id: filing ? filing.id : crypto.randomUUID(), idempotencyKey: crypto.randomUUID(), seq: filing ? filing.seq : seq,
        stop: kept, zone, deadlineHours: city.parameters.manifest_deadline_hours, manifest: body, scans, signature,
        state: "waiting", signedAt: filing && !pad.strokes ? filing.signedAt : new Date().toISOString(),
        person: filing ? filing.person : person,
      });
      show(w("queued", { number: body.manifest_number }), "info");
      await onDone();
    } finally {
      submit.disabled = false;
    }
  });

  const header = [
    el("button", { type: "button", class: "quiet back", onclick: onDone }, w("back")),
    el("h1", { id: "form-title", tabindex: "-1" }, w("formTitle", { name })),
    stop.other ? el("p", { class: "note" }, w("otherStopNote")) : el("p", {}, stop.address),
    filing?.reason ? el("p", { class: "refusal" }, w("reason", { reason: refusalText(filing) })) : null,
  ];
  return { parts: [...header, form].filter(Boolean), ready: () => pad.fit() };
}
