// A city's admin and its restaurants: each with its permits and devices, a permit's status
// changed from a date on, a device's frequency changed with the notice the city's ordinance asks
// (or the reason it is sooner), a device moved to a renewed permit, and new ones registered.
import { everything, post } from "./api.js";
import { el, report, show, table } from "./dom.js";
import { t } from "./i18n.js";
import "./admin-words.js";
import { addDays, apiForm, choice, daysBetween, input, onSubmit, required, send, textarea, today } from "./forms.js";

const KINDS = ["interim", "regular", "variance", "waiver"];
const STATUSES = ["active", "suspended", "revoked", "expired"];
const DEVICE_KINDS = ["interceptor", "trap"];

export async function restaurantsTab(context) {
  const detail = el("div", { id: "fse-detail" });
  const results = el("div", { class: "results" });
  const q = input("search", { id: "fse-q", name: "q", maxlength: 200 });
  const filters = el("form", { class: "filters", role: "search" },
    el("div", { class: "field" }, el("label", { for: "fse-q" }, t("reg.search")), q),
    el("div", { class: "field buttons" }, el("button", { type: "submit" }, t("show"))));
  const open = (fse) => openFse(fse, context, detail).catch(report);
  const load = async () => {
    const found = await everything("/v1/fses", { q: q.value.trim() });
    results.replaceChildren(found.length ? table(t("reg.fses"), [
      [t("reg.name"), (f) => f.name, null, true],
      [t("reg.address"), (f) => f.address],
      [t("reg.apn"), (f) => f.apn],
      [t("reg.operator"), (f) => `${f.operator_name} <${f.operator_email}>`],
      [t("reg.open"), (f) => el("button", {
        type: "button", class: "quiet", "aria-label": `${t("reg.open")}: ${f.name}`, "data-fse": f.id, onclick: () => open(f),
      }, t("reg.open")), null, true],
    ], found).grid : el("p", { class: "empty" }, t("reg.noFses")));
  };
  filters.addEventListener("submit", (event) => {
    event.preventDefault();
    show("");
    load().catch(report);
  });
  await load();
  return [el("h2", {}, t("reg.fses")), filters, results, detail, newFse(context, load)];
}

function newFse({ city }, reload) {
  const parts = apiForm("new-fse", t("reg.newFse"));
  parts.add("name", t("reg.name"), input("text", { maxlength: 200 }));
  parts.add("address", t("reg.address"), input("text", { maxlength: 300 }));
  parts.add("apn", t("reg.apn"), input("text", { maxlength: 40 }));
  parts.add("operator_name", t("reg.operatorName"), input("text", { maxlength: 200 }));
  parts.add("operator_email", t("reg.operatorEmail"), input("email", { maxlength: 254 }));
  const done = el("p", { class: "done", role: "status", "aria-live": "polite" });
  onSubmit(parts, el("button", { type: "submit" }, t("reg.register")), {
    check: () => required(parts, ["name", "address", "apn", "operator_name", "operator_email"]),
    submit: async () => {
      const names = ["name", "address", "apn", "operator_name", "operator_email"];
      const made = await post("/v1/fses", { ...Object.fromEntries(names.map((n) => [n, parts.value(n)])), jurisdiction: city.code });
      parts.form.reset();
      await reload();
      done.textContent = t("reg.registered", { name: made.body.name });
    },
  });
  return el("section", { class: "sub" }, parts.form, done);
}

// One restaurant: its permits and devices, and the forms that change them.
async function openFse(fse, context, detail) {
  const [permits, devices] = await Promise.all([
    everything("/v1/permits", { q: fse.name }).then((all) => all.filter((p) => p.fse_id === fse.id)),
    everything(`/v1/fses/${fse.id}/devices`),
  ]);
  const reopen = async (message) => {
    await openFse(fse, context, detail);
    const done = detail.querySelector("#fse-done");
    done.textContent = message;
  };
  const place = el("div", { id: "registry-action" });
  const put = (form) => {
    place.replaceChildren(form);
    const first = form.querySelector("input, select, textarea");
    form.scrollIntoView({ block: "start" });
    if (first) first.focus();
  };
  const numbers = Object.fromEntries(permits.map((p) => [p.id, p.permit_number]));
  const now = today(context.zone);
  // A change listed as it stands: withdrawn (counts nowhere), or scheduled with its withdrawal.
  const frequencyLine = (d, c) => c.withdrawn
    ? t("reg.freqWithdrawn", { from: c.from_days, to: c.frequency_days, day: c.effective_on, reason: c.withdrawn_reason })
    : [t("reg.freqChange", { from: c.from_days, to: c.frequency_days, day: c.effective_on, noticed: c.noticed_on }),
      ...(c.effective_on > now ? [" ", el("button", {
        type: "button", class: "quiet", "data-withdraw": c.id, "aria-label": `${t("reg.withdraw")}: ${d.tag}, ${c.effective_on}`,
        onclick: () => put(withdrawal(fse, d, c, reopen)),
      }, t("reg.withdraw"))] : [])];
  detail.replaceChildren(el("section", { class: "sub", "aria-labelledby": "fse-title" },
    el("h2", { id: "fse-title", tabindex: "-1" }, fse.name),
    el("p", { class: "muted" }, `${fse.address} · ${t("reg.apn")} ${fse.apn}`),
    el("p", { id: "fse-done", class: "done", role: "status", "aria-live": "polite" }),
    el("h3", {}, t("reg.permits")),
    permits.length ? table(t("reg.permitsOf", { name: fse.name }), [
      [t("reg.permit"), (p) => p.permit_number, null, true],
      [t("reg.kind"), (p) => t(`permitkind.${p.kind}`)],
      [t("reg.statusOn", { day: today(context.zone) }), (p) => t(`permit.${p.status}`), null, true],
      [t("reg.term"), (p) => `${p.issued_on} – ${p.expires_on}`, "date"],
      [t("reg.history"), (p) => history(p.status_history.map((h) =>
        t("reg.statusFrom", { status: t(`permit.${h.status}`), day: h.effective_on }) + (h.reason ? ` (${h.reason})` : "")))],
      [t("reg.change"), (p) => el("button", {
        type: "button", class: "quiet", "aria-label": `${t("reg.changeStatus")}: ${p.permit_number}`, "data-permit": p.id,
        onclick: () => put(permitStatus(p, context, reopen)),
      }, t("reg.changeStatus"))],
    ], permits).grid : el("p", { class: "empty" }, t("reg.noPermits")),
    el("h3", {}, t("reg.devices")),
    devices.length ? table(t("reg.devicesOf", { name: fse.name }), [
      [t("reg.device"), (d) => `${d.tag} (${t(`kind.${d.kind}`)})`, null, true],
      [t("reg.size"), (d) => t("reg.sizeIs", { gallons: d.capacity_gallons, depth: d.liquid_depth_in }), "number"],
      [t("reg.every"), (d) => t("reg.everyDays", { n: d.frequency_days }) +
        (d.frequency_source === "city_default" ? ` (${t("reg.cityDefault")})` : ""), "number", true],
      [t("reg.permit"), (d) => d.permit_number],
      [t("reg.changes"), (d) => history([
        ...(d.in_service_on ? [t("reg.inService", { day: d.in_service_on })] : []),
        ...(d.frequency_changes || []).map((c) => frequencyLine(d, c)),
        ...(d.permit_moves || []).map((m) => t("reg.moved", {
          from: numbers[m.from_permit_id] || "", to: numbers[m.permit_id] || "", day: m.effective_on })),
        ...(d.retired_on ? [t("reg.retired", { day: d.retired_on, reason: d.retired_reason })] : []),
      ])],
      [t("reg.change"), (d) => el("div", { class: "two-step" },
        el("button", { type: "button", class: "quiet", "aria-label": `${t("reg.changeFrequency")}: ${d.tag}`,
          "data-device": d.id, onclick: () => put(frequencyChange(fse, d, context, reopen)) }, t("reg.changeFrequency")),
        permits.length > 1 ? el("button", { type: "button", class: "quiet", "aria-label": `${t("reg.move")}: ${d.tag}`, "data-move": d.id,
          onclick: () => put(permitMove(fse, d, permits, reopen)) }, t("reg.move")) : null)],
    ], devices).grid : el("p", { class: "empty" }, t("reg.noDevices")),
    place,
    el("div", { class: "admin-grid" }, newPermit(fse, context, reopen), permits.length ? newDevice(fse, permits, reopen) : null)));
  detail.querySelector("#fse-title").focus();
}

function history(lines) {
  return lines.length ? el("ul", { class: "findings" }, lines.map((line) => el("li", {}, line))) : t("none");
}

function closeButton(form) {
  return el("button", { type: "button", class: "quiet", onclick: () => form.remove() }, t("form.cancel"));
}

// A device's frequency from a day on: the city's notice period (with its citation) is checked
// here as the API checks it, so the reason for a sooner day is asked for beside its field.
function frequencyChange(fse, device, { city, zone }, reopen) {
  const notice = city.parameters.frequency_change_notice_days;
  const citation = (city.citations || {}).frequency_change_notice_days || "exchange policy";
  const allowed = city.parameters.allowed_frequencies || [];
  const now = today(zone);
  const parts = apiForm("frequency", t("freq.title", { device: device.tag, n: device.frequency_days }));
  parts.add("frequency_days", t("freq.days"), allowed.length
    ? choice(allowed.map(String), (d) => t("reg.everyDays", { n: d }))
    : input("number", { min: 1, max: 3650, step: 1, inputmode: "numeric" }));
  parts.add("effective_on", t("freq.effective"), input("date", { value: addDays(now, notice), min: now }),
    t("freq.effectiveHint", { n: notice, citation }));
  parts.add("noticed_on", t("freq.noticed"), input("date", { value: now, max: now }), t("freq.noticedHint"));
  parts.add("reason", t("freq.reason"), textarea());
  parts.add("sooner_because", t("freq.sooner"), textarea(), t("freq.soonerHint", { n: notice }));
  onSubmit(parts, el("button", { type: "submit", id: "frequency-submit" }, t("freq.save")), {
    check: () => {
      const errors = required(parts, ["frequency_days", "effective_on", "reason"]);
      const effective = parts.value("effective_on");
      const noticed = parts.value("noticed_on") || now;
      if (noticed > now) errors.noticed_on = t("freq.noticedFuture");
      if (effective && effective < now) errors.effective_on = t("freq.past");
      else if (effective && daysBetween(noticed, effective) < notice && !parts.value("sooner_because")) {
        errors.sooner_because = t("freq.needReason", { days: daysBetween(noticed, effective), n: notice, citation });
      }
      return errors;
    },
    submit: async () => {
      const body = {
        frequency_days: Number(parts.value("frequency_days")), effective_on: parts.value("effective_on"),
        noticed_on: parts.value("noticed_on") || null, reason: parts.value("reason"),
      };
      if (parts.value("sooner_because")) body.sooner_because = parts.value("sooner_because");
      const changed = await post(`/v1/fses/${fse.id}/devices/${device.id}/frequency-changes`, body);
      await reopen(t("freq.done", { device: changed.body.tag, n: body.frequency_days, day: body.effective_on }));
    },
  });
  parts.form.querySelector(".actions").append(closeButton(parts.form));
  return parts.form;
}

// A scheduled frequency change withdrawn before it takes effect, with why.
function withdrawal(fse, device, change, reopen) {
  const parts = apiForm("withdrawal", t("withdraw.title", { device: device.tag, n: change.frequency_days, day: change.effective_on }));
  parts.add("reason", t("freq.reason"), textarea());
  onSubmit(parts, el("button", { type: "submit", id: "withdrawal-submit" }, t("withdraw.save")), {
    check: () => required(parts, ["reason"]),
    submit: async () => {
      await post(`/v1/fses/${fse.id}/devices/${device.id}/frequency-changes/${change.id}/withdrawal`, { reason: parts.value("reason") });
      await reopen(t("withdraw.done", { device: device.tag, day: change.effective_on }));
    },
  });
  parts.form.querySelector(".actions").append(closeButton(parts.form));
  return parts.form;
}

// A device moved to another of the restaurant's permits (a renewal) from a day on.
function permitMove(fse, device, permits, reopen) {
  const others = permits.filter((p) => p.id !== device.permit_id);
  const parts = apiForm("move", t("move.title", { device: device.tag, permit: device.permit_number }));
  parts.add("permit_number", t("move.to"), choice(others.map((p) => p.permit_number),
    (n) => { const p = others.find((o) => o.permit_number === n); return `${n} (${p.issued_on} – ${p.expires_on})`; }));
  parts.add("effective_on", t("move.effective"), input("date"), t("move.effectiveHint"));
  parts.add("reason", t("freq.reason"), textarea());
  onSubmit(parts, el("button", { type: "submit", id: "move-submit" }, t("move.save")), {
    check: () => required(parts, ["permit_number", "reason"]),
    submit: async () => {
      const body = { permit_number: parts.value("permit_number"), reason: parts.value("reason") };
      if (parts.value("effective_on")) body.effective_on = parts.value("effective_on");
      await post(`/v1/fses/${fse.id}/devices/${device.id}/permit-moves`, body);
      await reopen(t("move.done", { device: device.tag, permit: body.permit_number }));
    },
  });
  parts.form.querySelector(".actions").append(closeButton(parts.form));
  return parts.form;
}

// A permit's status from a day on (today or later, as the API asks), with why and the day
// written notice was given, where it was.
function permitStatus(permit, { zone }, reopen) {
  const now = today(zone);
  const parts = apiForm("permit-status", t("status.title", { permit: permit.permit_number }));
  parts.add("status", t("reg.status"), choice(STATUSES, (s) => t(`permit.${s}`)));
  parts.add("effective_on", t("status.effective"), input("date", { value: now, min: now }));
  parts.add("reason", t("freq.reason"), textarea());
  parts.add("notice_on", t("status.notice"), input("date", { max: now }), t("status.noticeHint"));
  onSubmit(parts, el("button", { type: "submit", id: "permit-status-submit" }, t("status.save")), {
    check: () => {
      const errors = required(parts, ["status", "effective_on"]);
      if (parts.value("effective_on") && parts.value("effective_on") < now) errors.effective_on = t("freq.past");
      if (parts.value("status") !== "expired" && !parts.value("reason")) errors.reason = t("status.needReason");
      return errors;
    },
    submit: async () => {
      const body = {
        status: parts.value("status"), effective_on: parts.value("effective_on"), reason: parts.value("reason") || null,
        notice_on: parts.value("notice_on") || null,
      };
      await send("PATCH", `/v1/permits/${permit.id}`, body);
      await reopen(t("status.done", { permit: permit.permit_number, status: t(`permit.${body.status}`), day: body.effective_on }));
    },
  });
  parts.form.querySelector(".actions").append(closeButton(parts.form));
  return parts.form;
}

function newPermit(fse, { zone }, reopen) {
  const parts = apiForm("new-permit", t("reg.newPermit"));
  parts.add("permit_number", t("reg.permit"), input("text", { maxlength: 60 }));
  parts.add("kind", t("reg.kind"), choice(KINDS, (k) => t(`permitkind.${k}`)));
  parts.add("issued_on", t("reg.issued"), input("date", { value: today(zone) }));
  parts.add("expires_on", t("reg.expires"), input("date"));
  onSubmit(parts, el("button", { type: "submit" }, t("reg.issue")), {
    check: () => {
      const errors = required(parts, ["permit_number", "issued_on", "expires_on"]);
      if (!errors.expires_on && parts.value("expires_on") <= parts.value("issued_on")) errors.expires_on = t("reg.expiresAfter");
      return errors;
    },
    submit: async () => {
      const made = await post("/v1/permits", {
        permit_number: parts.value("permit_number"), fse_id: fse.id, kind: parts.value("kind"), status: "active",
        issued_on: parts.value("issued_on"), expires_on: parts.value("expires_on"),
      });
      await reopen(t("reg.issuedDone", { permit: made.body.permit_number }));
    },
  });
  return parts.form;
}

function newDevice(fse, permits, reopen) {
  const parts = apiForm("new-device", t("reg.newDevice"));
  parts.add("tag", t("reg.tag"), input("text", { maxlength: 40 }));
  parts.add("kind", t("reg.kind"), choice(DEVICE_KINDS, (k) => t(`kind.${k}`)));
  parts.add("capacity_gallons", t("reg.capacity"), input("number", { min: 1, max: 100000, step: 1 }));
  parts.add("liquid_depth_in", t("reg.depth"), input("number", { min: 0.01, max: 600, step: 0.01 }));
  parts.add("frequency_days", t("freq.days"), input("number", { min: 1, max: 3650, step: 1 }), t("reg.frequencyHint"));
  parts.add("permit_number", t("reg.permit"), choice(permits.map((p) => p.permit_number), (n) => n));
  onSubmit(parts, el("button", { type: "submit" }, t("reg.register")), {
    check: () => required(parts, ["tag", "capacity_gallons", "liquid_depth_in", "permit_number"]),
    submit: async () => {
      const body = {
        tag: parts.value("tag"), kind: parts.value("kind"), capacity_gallons: Number(parts.value("capacity_gallons")),
        liquid_depth_in: Number(parts.value("liquid_depth_in")), permit_number: parts.value("permit_number"),
      };
      if (parts.value("frequency_days")) body.frequency_days = Number(parts.value("frequency_days"));
      await post(`/v1/fses/${fse.id}/devices`, body);
      await reopen(t("reg.deviceDone", { device: body.tag }));
    },
  });
  return parts.form;
}
