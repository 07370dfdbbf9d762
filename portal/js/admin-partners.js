// A city's admin and the haulers and disposal sites that work in it: the city's own record of a
// hauler's licence and of a site's approval, each changed from a date on, and new ones registered.
import { everything, post } from "./api.js";
import { el, table } from "./dom.js";
import { t } from "./i18n.js";
import "./admin-words.js";
import { apiForm, choice, input, onSubmit, required, send, textarea, today } from "./forms.js";

const LICENCE = ["valid", "lapsed", "suspended", "revoked"];
const SITE_STATUSES = ["approved", "suspended", "closed"];
const WASTES = ["grease_interceptor_waste", "grease_trap_waste"];

function history(lines) {
  return lines.length ? el("ul", { class: "findings" }, lines.map((line) => el("li", {}, line))) : t("none");
}

// A list, a place for the form a row opens, a status line and a form for a new one, redrawn
// after each change.
async function registryTab({ key, title, path, columns, empty, create }) {
  const section = el("div", { id: `${key}-tab` });
  const done = el("p", { class: "done", role: "status", "aria-live": "polite" });
  const place = el("div", { id: `${key}-action` });
  const draw = async (message) => {
    const rows = await everything(path);
    const put = (form) => {
      place.replaceChildren(form);
      form.scrollIntoView({ block: "start" });
      form.querySelector("input, select, textarea")?.focus();
    };
    section.replaceChildren(el("h2", {}, title), done,
      rows.length ? table(title, columns(put, draw), rows).grid : el("p", { class: "empty" }, empty),
      place, create(draw));
    place.replaceChildren();
    done.textContent = message || "";
  };
  await draw();
  return [section];
}

export function haulersTab({ city, zone }) {
  return registryTab({
    key: "haulers",
    title: t("partners.haulers"),
    path: "/v1/haulers",
    empty: t("partners.noHaulers"),
    columns: (put, draw) => [
      [t("reg.name"), (h) => h.name, null, true],
      [t("partners.licence"), (h) => h.licence_number],
      [t("partners.licenceState"), (h) => (h.licence_status
        ? t("partners.licenceUntil", { status: t(`licence.${h.licence_status}`), day: h.licence_expires_on })
        : t("partners.notRegistered")), null, true],
      [t("reg.history"), (h) => history((h.licence_history || []).map((r) => t("partners.licenceFrom", {
        status: t(`licence.${r.status}`), until: r.expires_on, day: r.effective_on })))],
      [t("reg.change"), (h) => el("button", { type: "button", class: "quiet", "aria-label": `${t("partners.changeLicence")}: ${h.name}`,
        onclick: () => put(licenceChange(h, zone, draw)) }, t("partners.changeLicence"))],
    ],
    create: (draw) => newHauler(city, zone, draw),
  });
}

function licenceChange(hauler, zone, draw) {
  const parts = apiForm("licence", t("partners.licenceTitle", { name: hauler.name }));
  const status = choice(LICENCE, (s) => t(`licence.${s}`));
  status.value = hauler.licence_status || "valid";
  parts.add("licence_status", t("reg.status"), status);
  parts.add("licence_expires_on", t("partners.expires"), input("date", { value: hauler.licence_expires_on || "" }));
  parts.add("effective_on", t("status.effective"), input("date", { value: today(zone) }));
  onSubmit(parts, el("button", { type: "submit", id: "licence-submit" }, t("status.save")), {
    check: () => required(parts, ["licence_status", "licence_expires_on", "effective_on"]),
    submit: async () => {
      await send("PATCH", `/v1/haulers/${hauler.id}`, {
        licence_status: parts.value("licence_status"), licence_expires_on: parts.value("licence_expires_on"),
        effective_on: parts.value("effective_on"),
      });
      await draw(t("partners.licenceDone", { name: hauler.name, day: parts.value("effective_on") }));
    },
  });
  return parts.form;
}

// A hauler registered in the city, it and its licence vouched for from a day on (today unless
// another is given).
function newHauler(city, zone, draw) {
  const parts = apiForm("new-hauler", t("partners.newHauler"));
  parts.add("name", t("reg.name"), input("text", { maxlength: 200 }));
  parts.add("licence_number", t("partners.licence"), input("text", { maxlength: 60 }));
  parts.add("licence_expires_on", t("partners.expires"), input("date"));
  parts.add("registered_on", t("partners.registeredOn"), input("date", { value: today(zone) }));
  onSubmit(parts, el("button", { type: "submit" }, t("reg.register")), {
    check: () => required(parts, ["name", "licence_number", "licence_expires_on", "registered_on"]),
    submit: async () => {
      const made = await post("/v1/haulers", {
        name: parts.value("name"), licence_number: parts.value("licence_number"),
        licence_expires_on: parts.value("licence_expires_on"), jurisdictions: [city.code],
        registered_on: parts.value("registered_on"), licence_issued_on: parts.value("registered_on"),
      });
      await draw(t("reg.registered", { name: made.body.name }));
    },
  });
  return parts.form;
}

export function sitesTab({ city, zone }) {
  return registryTab({
    key: "sites",
    title: t("partners.sites"),
    path: "/v1/disposal-sites",
    empty: t("partners.noSites"),
    columns: (put, draw) => [
      [t("reg.name"), (s) => s.name, null, true],
      [t("reg.address"), (s) => s.address],
      [t("partners.facilityPermit"), (s) => s.facility_permit_number],
      [t("partners.wastes"), (s) => (s.waste_types || []).map((w) => t(`waste.${w}`)).join(", ")],
      [t("reg.status"), (s) => t("partners.siteState", { status: t(`site.${s.status}`), from: s.approved_from,
        until: s.approved_until || t("partners.open") }), null, true],
      [t("reg.history"), (s) => history((s.status_history || []).map((r) =>
        t("reg.statusFrom", { status: t(`site.${r.status}`), day: r.effective_on }) + (r.reason ? ` (${r.reason})` : "")))],
      [t("reg.change"), (s) => el("button", { type: "button", class: "quiet", "aria-label": `${t("reg.changeStatus")}: ${s.name}`,
        onclick: () => put(siteStatus(s, zone, draw)) }, t("reg.changeStatus"))],
    ],
    create: (draw) => newSite(city, zone, draw),
  });
}

function siteStatus(site, zone, draw) {
  const parts = apiForm("site-status", t("status.title", { permit: site.name }));
  parts.add("status", t("reg.status"), choice(SITE_STATUSES, (s) => t(`site.${s}`)));
  parts.add("effective_on", t("status.effective"), input("date", { value: today(zone) }));
  parts.add("reason", t("freq.reason"), textarea());
  onSubmit(parts, el("button", { type: "submit", id: "site-status-submit" }, t("status.save")), {
    check: () => required(parts, ["status", "effective_on"]),
    submit: async () => {
      const body = { status: parts.value("status"), effective_on: parts.value("effective_on"), reason: parts.value("reason") || null };
      await send("PATCH", `/v1/disposal-sites/${site.id}`, body);
      await draw(t("status.done", { permit: site.name, status: t(`site.${body.status}`), day: body.effective_on }));
    },
  });
  return parts.form;
}

function newSite(city, zone, draw) {
  const parts = apiForm("new-site", t("partners.newSite"));
  parts.add("name", t("reg.name"), input("text", { maxlength: 200 }));
  parts.add("address", t("reg.address"), input("text", { maxlength: 300 }));
  parts.add("facility_permit_number", t("partners.facilityPermit"), input("text", { maxlength: 60 }));
  for (const waste of WASTES) parts.add(waste, t(`waste.${waste}`), input("checkbox", { checked: waste === WASTES[0] }));
  parts.add("approved_from", t("partners.approvedFrom"), input("date", { value: today(zone) }));
  parts.add("approved_until", t("partners.approvedUntil"), input("date"));
  onSubmit(parts, el("button", { type: "submit" }, t("reg.register")), {
    check: () => {
      const errors = required(parts, ["name", "address", "facility_permit_number", "approved_from"]);
      if (!WASTES.some((w) => parts.value(w))) errors[WASTES[0]] = t("partners.chooseWaste");
      return errors;
    },
    submit: async () => {
      const made = await post("/v1/disposal-sites", {
        name: parts.value("name"), address: parts.value("address"), facility_permit_number: parts.value("facility_permit_number"),
        waste_types: WASTES.filter((w) => parts.value(w)), approved_from: parts.value("approved_from"),
        approved_until: parts.value("approved_until") || null, jurisdictions: [city.code],
      });
      await draw(t("reg.registered", { name: made.body.name }));
    },
  });
  return parts.form;
}
