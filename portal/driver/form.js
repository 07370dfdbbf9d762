// One stop's manifest on the phone: the fields of the dispatcher's form, the checks the exchange
// will make (shown as the driver types), the restaurant's signature and up to four photos.
// Signing queues the filing on the phone; the service time is the phone's clock at signing.
import { el, field, show } from "../js/dom.js";
import { fromLocalInput, toLocalInput, when } from "../js/time.js";
import { number, preflight } from "./checks.js";
import { now } from "./clock.js";
import { manifestPage, resized, sha256, signaturePad, thumbnail } from "./scans.js";
import { saveFiling } from "./store.js";
import { w } from "./words.js";

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

// stop: the day's stop; city: its parameters, rules and zone; vehicles, sites: the day's;
// driver: the signed-in person's name; filing: a refused filing to correct, or null.
export function stopForm({ stop, city, vehicles, sites, driver, filing, seq, onDone, person = null }) {
  const zone = city.zone;
  const was = filing ? filing.manifest : null;
  const openedAt = was ? was.service_started_at : stamp(now(), zone);
  const trucks = vehicles.filter((v) => v.jurisdiction === stop.jurisdiction);
  const photos = filing ? filing.scans.filter((s) => s.photo).map((s) => s.blob) : [];
  const name = `${stop.fse_name} ${stop.device_tag}`;
  const clearanceRule = city.parameters.min_outlet_clearance_in;

  const form = el("form", { class: "stop-form", novalidate: true });
  const text = (key, label, value, attributes = {}) =>
    field(label, input(key, "text", { value: value ?? "", autocomplete: "off", ...attributes }));
  const numberField = (key, label, value, attributes = {}) =>
    field(label, input(key, "number", { min: 0, max: 100000, inputmode: "numeric", value: value ?? "", ...attributes }));
  const depth = (key, label, value) => field(label, decimalInput(key, { value: value ?? "" }));
  const measured = was?.measurements || {};
  const disposal = was?.disposal || {};

  form.append(
    el("fieldset", {}, el("legend", {}, w("form.service")),
      text("number", w("form.number"), was ? was.manifest_number : manifestNumber(new Date()), { maxlength: 60, required: true }),
      text("permit", w("form.permit"), was ? was.permit_number : stop.permit_number, { maxlength: 60, required: true }),
      text("device", w("form.device"), was ? was.device_tag : stop.device_tag, { maxlength: 40, required: true }),
      field(w("truck"), el("select", { id: "d-vehicle", name: "vehicle", required: true },
        trucks.map((v) => el("option", { value: v.vehicle_id, selected: was?.vehicle_id === v.vehicle_id }, `${v.vehicle_id} (${v.tank} gal)`)))),
      text("driver", w("form.driver"), was ? was.driver_name : driver, { maxlength: 200, required: true }),
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
  form.append(
    el("fieldset", {}, el("legend", {}, w("signature")),
      text("signer", w("form.signer"), was?.fse_signer_name, { maxlength: 200, required: true, autocomplete: "name" }),
      filing ? el("p", { class: "note" }, w("signatureKept")) : null,
      el("p", { class: "note", id: "d-signature-hint" }, w("signHere")), canvas,
      el("button", { type: "button", class: "quiet", id: "d-clear", onclick: () => pad.clear() }, w("clearSignature"))),
    el("fieldset", {}, el("legend", {}, w("photos")),
      el("label", { for: "d-photos", class: "camera" }, w("addPhotos")), camera, thumbs));

  const times = el("div", { class: "times" },
    el("p", {}, w("startedNote", { when: when(openedAt, zone) })),
    el("p", {}, w("completedNote", { zone })));
  const submit = el("button", { type: "submit", id: "d-submit", class: "big" }, filing ? w("sendAgain") : w("fileIt"));
  form.append(...[times, correctedTime(was, zone), el("div", { class: "actions" }, submit)].filter(Boolean));
  // A correction's completed time as set in its field; the start moves with it (the service
  // keeps its length) where the form has no start of its own.
  const corrected = (body) => {
    if (!form.querySelector("#d-completed")) return body;
    const completed = fromLocalInput(value("completed"), zone);
    const moved = Date.parse(completed) - Date.parse(body.service_completed_at);
    if (!form.querySelector("#d-started")) body.service_started_at = stamp(new Date(Date.parse(body.service_started_at) + moved), zone);
    body.service_completed_at = completed;
    return body;
  };

  const value = (key) => form.querySelector(`#d-${key}`)?.value.trim() ?? "";
  const values = () => ({
    vehicle: value("vehicle"), gallons: value("gallons"), decant: value("decant"), full: form.querySelector("#d-full").checked,
    fog: value("fog"), solids: value("solids"), clearance: value("clearance"),
  });
  const recheck = () => checkList.replaceChildren(...preflight({ city, device: stop.device, vehicles: trucks, values: values() })
    .map((check) => el("li", { class: check.state, "data-check": check.key },
      el("strong", {}, w(check.key)), " ",
      check.state === "pending" ? w("checkPending") : w(...check.words),
      check.state === "flag" ? el("span", { class: "flag-note" }, " ", w("willFlag")) : null,
      el("br"), el("cite", {}, w("rule", { citation: check.citation })))));
  form.addEventListener("input", recheck);
  form.addEventListener("change", recheck);
  recheck();

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

  // The exchange's reasons for a refusal, beside the fields they concern.
  for (const [path, messages] of Object.entries(filing?.errors || {})) {
    const control = form.querySelector(`#d-${FIELDS[path]}`);
    if (!control) continue;
    const note = el("span", { class: "field-error", id: `d-${FIELDS[path]}-error` }, [].concat(messages).join(" "));
    control.after(note);
    control.setAttribute("aria-invalid", "true");
    control.setAttribute("aria-describedby", note.id);
  }

  const manifest = (completedAt) => {
    const body = {
      manifest_number: value("number"), permit_number: value("permit"), device_tag: value("device"),
      vehicle_id: value("vehicle"), driver_name: value("driver"), service_started_at: openedAt,
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

  const missing = () => [...form.querySelectorAll("[required]")].filter((control) => {
    const empty = control.value.trim() === "";
    if (empty) control.setAttribute("aria-invalid", "true");
    return empty;
  }).map((control) => form.querySelector(`label[for=${control.id}]`).textContent);

  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    show("");
    const gaps = missing();
    if (gaps.length) return show(w("needFields", { fields: gaps.join(", ") }), "error");
    if (!filing && !pad.strokes) return show(w("needSignature"), "error");
    submit.disabled = true;
    try {
      const signature = pad.strokes ? await pad.blob() : filing.signature;
      const body = corrected(manifest(was ? was.service_completed_at : stamp(now(), zone)));
      const lines = [
        [w("form.number"), body.manifest_number], [w("hauler.restaurant"), stop.fse_name], [w("hauler.address"), stop.address],
        [w("form.permit"), body.permit_number], [w("form.device"), body.device_tag], [w("truck"), body.vehicle_id],
        [w("form.driver"), body.driver_name], [w("form.started"), when(body.service_started_at, zone)],
        [w("form.completed"), when(body.service_completed_at, zone)], [w("form.waste"), w(`waste.${body.waste_type}`)],
        [w("form.gallons"), body.gallons_removed], [w("form.decant"), body.decant_returned_gallons],
        [w("form.full"), body.full_pump_down ? w("yes") : w("no")],
        [w("form.fog"), body.measurements?.fog_depth_in], [w("form.solids"), body.measurements?.solids_depth_in],
        [w("form.liquid"), body.measurements?.liquid_depth_in], [w("form.signer"), body.fse_signer_name],
      ];
      const page = await manifestPage(w("sheetTitle"), lines, signature);
      const scans = [{ name: `${body.manifest_number}-signed.png`, blob: page, sha256: await sha256(page) }];
      for (const [index, blob] of photos.entries()) {
        scans.push({ name: `${body.manifest_number}-photo-${index + 1}.jpg`, blob, sha256: await sha256(blob), photo: true });
      }
      await saveFiling({
        id: filing ? filing.id : crypto.randomUUID(), idempotencyKey: crypto.randomUUID(), seq: filing ? filing.seq : seq,
        stop, zone, deadlineHours: city.parameters.manifest_deadline_hours, manifest: body, scans, signature,
        state: "waiting", signedAt: new Date().toISOString(), person: filing ? filing.person : person,
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
    el("p", {}, stop.address),
    filing?.reason ? el("p", { class: "refusal" }, w("reason", { reason: filing.reason })) : null,
  ];
  return { parts: [...header, form].filter(Boolean), ready: () => pad.fit() };
}
