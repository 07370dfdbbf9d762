// A dispatcher files a manifest (with its scan) or corrects one, and sees its findings at once.
// Times are typed as the city's wall clock and sent with its offset.
import { post } from "./api.js";
import { el, field, report, show } from "./dom.js";
import { draftable, settled } from "./drafts.js";
import { clearFieldErrors, showFieldErrors } from "./field-errors.js";
import { movesWords } from "./review.js";
import { findingText, t } from "./i18n.js";
import { fromLocalInput, toLocalInput, when } from "./time.js";

const WASTES = ["grease_interceptor_waste", "grease_trap_waste"];
// Each field of the API's manifest (a path in a refusal's `errors`) and the form's control.
const CONTROLS = {
  manifest_number: "number", permit_number: "permit", device_tag: "device", vehicle_id: "vehicle",
  driver_name: "driver", service_started_at: "started", service_completed_at: "completed", waste_type: "waste",
  gallons_removed: "gallons", decant_returned_gallons: "decant", full_pump_down: "full",
  "measurements.fog_depth_in": "fog", "measurements.solids_depth_in": "solids", "measurements.liquid_depth_in": "liquid",
  fse_signer_name: "signer", "disposal.site_id": "site", "disposal.ticket_number": "ticket",
  "disposal.delivered_at": "delivered", "disposal.gallons_delivered": "delivered-gallons", reason: "reason",
  documents: "scan",
};

function input(id, type, attributes = {}) {
  return el("input", { id, name: id, type, ...attributes });
}

// options: {zone, sites, choices: {permits, devices}, correcting (a receipt) or null, onFiled}
export function manifestForm({ zone, sites, choices, correcting = null, onFiled, onCancel }) {
  const was = correcting ? correcting.manifest : {};
  const prefix = correcting ? "fix" : "file";
  const id = (name) => `${prefix}-${name}`;
  const local = t("form.localTime", { zone });
  const form = el("form", { class: "manifest-form", novalidate: false });
  const lists = el("div", {},
    el("datalist", { id: id("permits") }, choices.permits.map((p) => el("option", { value: p }))),
    el("datalist", { id: id("devices") }, choices.devices.map((d) => el("option", { value: d }))));
  const text = (name, label, attributes = {}) => field(label, input(id(name), "text", { required: true, ...attributes }));
  const number = (name, label, attributes = {}) => field(label, input(id(name), "number", { min: 0, max: 100000, ...attributes }));
  const site = el("select", { id: id("site"), name: id("site") },
    el("option", { value: "" }, t("form.noSite")), sites.map((s) => el("option", { value: s.id }, s.name)));
  if (correcting) {
    form.append(field(t("form.reason"), el("textarea", { id: id("reason"), name: id("reason"), required: true, maxlength: 2000, rows: 2 })));
  }
  form.append(
    el("fieldset", {}, el("legend", {}, t("form.service")),
      correcting ? null : text("number", t("form.number"), { maxlength: 60 }),
      text("permit", t("form.permit"), { list: id("permits"), maxlength: 60 }),
      text("device", t("form.device"), { list: id("devices"), maxlength: 40 }),
      text("vehicle", t("form.vehicle"), { maxlength: 60 }),
      text("driver", t("form.driver"), { maxlength: 200 }),
      field(t("form.started"), input(id("started"), "datetime-local", { required: true }), local),
      field(t("form.completed"), input(id("completed"), "datetime-local", { required: true }), local),
      field(t("form.waste"), el("select", { id: id("waste"), name: id("waste") },
        WASTES.map((w) => el("option", { value: w }, t(`waste.${w}`))))),
      number("gallons", t("form.gallons"), { required: true }),
      number("decant", t("form.decant"), { value: 0 }),
      el("div", { class: "field check" }, input(id("full"), "checkbox", { checked: true }),
        el("label", { for: id("full") }, t("form.full"))),
      number("fog", t("form.fog"), { step: "0.1", max: 600 }),
      number("solids", t("form.solids"), { step: "0.1", max: 600 }),
      number("liquid", t("form.liquid"), { step: "0.1", max: 600 }),
      text("signer", t("form.signer"), { maxlength: 200 })),
    el("fieldset", {}, el("legend", {}, t("form.site")),
      field(t("form.site"), site),
      text("ticket", t("form.ticket"), { required: false, maxlength: 60 }),
      field(t("form.delivered"), input(id("delivered"), "datetime-local"), local),
      number("delivered-gallons", t("form.deliveredGallons")),
      field(t("form.scan"), input(id("scan"), "file", { accept: "application/pdf,image/jpeg,image/png,image/tiff" }))),
    lists);
  const submit = el("button", { type: "submit", id: id("submit") }, correcting ? t("form.submitCorrection") : t("form.submit"));
  form.append(el("div", { class: "actions" }, submit,
    onCancel ? el("button", { type: "button", class: "quiet", onclick: onCancel }, t("form.cancel")) : null));
  const answer = el("div", { class: "answer", id: id("answer"), role: "status", "aria-live": "polite" });
  const value = (name) => form.querySelector(`#${id(name)}`).value.trim();
  const set = (name, v) => { if (v !== undefined && v !== null) form.querySelector(`#${id(name)}`).value = v; };

  if (correcting) {
    set("permit", was.permit_number); set("device", was.device_tag); set("vehicle", was.vehicle_id);
    set("driver", was.driver_name); set("started", toLocalInput(was.service_started_at, zone));
    set("completed", toLocalInput(was.service_completed_at, zone)); set("waste", was.waste_type);
    set("gallons", was.gallons_removed); set("decant", was.decant_returned_gallons); set("signer", was.fse_signer_name);
    form.querySelector(`#${id("full")}`).checked = !!was.full_pump_down;
    if (was.measurements) {
      set("fog", was.measurements.fog_depth_in); set("solids", was.measurements.solids_depth_in);
      set("liquid", was.measurements.liquid_depth_in);
    }
    if (was.disposal) {
      set("site", was.disposal.site_id); set("ticket", was.disposal.ticket_number);
      set("delivered", toLocalInput(was.disposal.delivered_at, zone)); set("delivered-gallons", was.disposal.gallons_delivered);
    }
  }

  const restored = draftable(form, correcting ? `manifest-fix-${correcting.id}` : "manifest-file");
  if (restored) form.prepend(restored);

  const body = () => {
    const manifest = {
      manifest_number: correcting ? correcting.manifest_number : value("number"),
      permit_number: value("permit"), device_tag: value("device"), vehicle_id: value("vehicle"),
      driver_name: value("driver"), service_started_at: fromLocalInput(value("started"), zone),
      service_completed_at: fromLocalInput(value("completed"), zone), waste_type: value("waste"),
      gallons_removed: Number(value("gallons")), decant_returned_gallons: Number(value("decant") || 0),
      full_pump_down: form.querySelector(`#${id("full")}`).checked, fse_signer_name: value("signer"),
    };
    if (value("fog") !== "" || value("solids") !== "") {
      manifest.measurements = { fog_depth_in: Number(value("fog")), solids_depth_in: Number(value("solids")) };
      if (value("liquid") !== "") manifest.measurements.liquid_depth_in = Number(value("liquid"));
    }
    if (value("site")) {
      manifest.disposal = { site_id: value("site"), ticket_number: value("ticket"),
        delivered_at: fromLocalInput(value("delivered"), zone), gallons_delivered: Number(value("delivered-gallons")) };
    }
    return manifest;
  };

  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    submit.disabled = true;
    show("");
    clearFieldErrors(form);
    answer.replaceChildren();
    try {
      const manifest = body();
      const scan = form.querySelector(`#${id("scan")}`).files[0];
      let sent;
      if (correcting) {
        sent = await post(`/v1/manifests/${correcting.id}/corrections`, { reason: value("reason"), ...manifest });
        if (scan) {
          const files = new FormData();
          files.append("documents", scan, scan.name);
          await post(`/v1/manifests/${correcting.id}/documents`, files);
        }
      } else if (scan) {
        const parts = new FormData();
        parts.append("manifest", JSON.stringify(manifest));
        parts.append("documents", scan, scan.name);
        sent = await post("/v1/manifests", parts);
      } else {
        sent = await post("/v1/manifests", manifest);
      }
      settled(form);
      answer.replaceChildren(...outcome(sent, zone));
      if (onFiled) await onFiled(sent);
    } catch (error) {
      // A field's refusal is shown beside it; a scan's (`documents.0`) beside the scan.
      const control = (path) => {
        const name = CONTROLS[path] || CONTROLS[path.replace(/^manifest\./, "")] || (path.startsWith("documents") ? "scan" : null);
        return name && id(name);
      };
      if (!showFieldErrors(form, error, control)) report(error);
    } finally {
      submit.disabled = false;
    }
  });
  return [form, answer];
}

// What the API answered, in words: filed (and its findings, each with its rule) or waiting.
export function outcome({ status, body }, zone) {
  if (status === 202) return [el("p", { class: "warning" }, t("answer.pending", { moves: movesWords(body.moves) }))];
  const open = (body.findings || []).filter((f) => !f.cleared_at);
  return [
    el("p", { class: "filed" }, t("answer.filed", { number: body.manifest_number, revision: body.revision }), " ",
      el("span", { class: "muted" }, when(body.received_at, zone))),
    el("p", {}, body.qualifying ? t("answer.qualifying", { day: body.due_by }) : t("answer.notQualifying")),
    open.length
      ? el("ul", { class: "finding-list" }, open.map((f) => el("li", { class: f.severity, "data-code": f.code },
        el("strong", {}, findingText(f)), el("br"), el("cite", {}, f.citation))))
      : el("p", { class: "ok" }, t("answer.clean")),
  ];
}
