// The people an admin manages: who belongs and who was removed, inviting someone to a role,
// the invitations still pending and withdrawing one. A city's admin manages its own staff and
// the people it made of its restaurants, haulers and disposal sites; a hauler's admin its staff.
import { getJson, post } from "./api.js";
import { action, el, table } from "./dom.js";
import { lang, t } from "./i18n.js";
import "./admin-words.js";
import { apiForm, choice, input, onSubmit, required } from "./forms.js";
import { when } from "./time.js";

// The roles each organisation gives (storage/people.py ORGANISATION_ROLES).
export const ROLES = {
  city: ["auditor", "admin"],
  hauler: ["dispatcher", "driver", "admin"],
  restaurant: ["operator", "admin"],
  site: ["clerk", "admin"],
};
const SUBJECT = { hauler: "hauler_id", site: "site_id", restaurant: "fse_ids" };
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

// options: {manager: "city" | "hauler", city (the admin's jurisdiction, for a city), zone,
// haulers, sites, fses (what a city's admin may invite people of)}
export async function staff({ manager, city = null, zone, haulers = [], sites = [], fses = [] }) {
  const names = {
    hauler: Object.fromEntries(haulers.map((h) => [h.id, h.name])),
    site: Object.fromEntries(sites.map((s) => [s.id, s.name])),
    fse: Object.fromEntries(fses.map((f) => [f.id, f.name])),
  };
  const where = (row) => {
    const kind = t(`org.${row.organisation}`);
    if (manager !== "city") return kind;
    const name = row.organisation === "city" ? city.name
      : row.organisation === "restaurant" ? row.fse_ids.map((id) => names.fse[id] || id).join(", ")
        : names[row.organisation][row[SUBJECT[row.organisation]]];
    return name ? `${kind}: ${name}` : kind;
  };
  const done = el("p", { class: "done", role: "status", "aria-live": "polite" });
  const people = el("section", { class: "card", id: "people", "aria-labelledby": "people-title" });
  const pending = el("section", { class: "card", id: "invitations", "aria-labelledby": "invitations-title" });
  const reload = async () => {
    const [members, invited] = await Promise.all([getJson("/v1/memberships"), getJson("/v1/invitations")]);
    people.replaceChildren(...memberships(members.items, { zone, where, reload, done }));
    pending.replaceChildren(...invitations(invited.items, { zone, where, reload, done }));
  };
  const invite = inviteForm({ manager, city, zone, haulers, sites, fses, reload, done });
  await reload();
  return [el("section", { class: "card", "aria-labelledby": "invite-title" }, invite, done), people, pending];
}

function inviteForm({ manager, city, zone, haulers, sites, fses, reload, done }) {
  const parts = apiForm("invite", t("staff.invite"), 2);
  const organisations = manager === "city" ? ["city", "hauler", "restaurant", "site"] : [manager];
  parts.add("email", t("staff.email"), input("email", { autocomplete: "off", maxlength: 254, required: true }));
  const organisation = parts.add("organisation", t("staff.organisation"), choice(organisations, (o) => t(`org.${o}`)));
  organisation.closest(".field").hidden = organisations.length === 1;
  const subjects = {};
  if (manager === "city") {
    const pick = (rows) => [["", t("staff.choose")], ...rows.map((r) => [r.id, r.name])];
    const select = (rows) => el("select", {}, pick(rows).map(([v, words]) => el("option", { value: v }, words)));
    subjects.hauler = parts.add("hauler_id", t("staff.hauler"), select(haulers));
    subjects.restaurant = parts.add("fse_ids", t("staff.restaurant"), select(fses));
    subjects.site = parts.add("site_id", t("staff.site"), select(sites));
  }
  const role = parts.add("role", t("staff.role"), el("select"));
  // The language the invitation is written in (and the person's mail after, until they choose).
  const language = parts.add("language", t("staff.language"), choice(["en", "es"], (code) => t(`staff.language.${code}`)));
  language.value = lang();
  const fit = () => {
    const chosen = organisation.value;
    role.replaceChildren(...ROLES[chosen].map((r) => el("option", { value: r }, t(`staffrole.${r}`))));
    for (const [kind, select] of Object.entries(subjects)) select.closest(".field").hidden = kind !== chosen;
  };
  organisation.addEventListener("change", fit);
  fit();
  const button = el("button", { type: "submit", id: "invite-submit" }, t("staff.send"));
  onSubmit(parts, button, {
    check: () => {
      const errors = required(parts, ["email"]);
      if (!errors.email && !EMAIL.test(parts.value("email"))) errors.email = t("staff.badEmail");
      const chosen = organisation.value;
      if (manager === "city" && SUBJECT[chosen] && !parts.value(SUBJECT[chosen])) {
        errors[SUBJECT[chosen]] = t(`staff.choose.${chosen}`);
      }
      return errors;
    },
    submit: async () => {
      const chosen = organisation.value;
      const body = { email: parts.value("email"), organisation: chosen, role: role.value, language: language.value };
      if (chosen === "city") body.jurisdiction = city.code;
      if (manager === "city" && chosen === "hauler") body.hauler_id = parts.value("hauler_id");
      if (manager === "city" && chosen === "site") body.site_id = parts.value("site_id");
      if (manager === "city" && chosen === "restaurant") body.fse_ids = [parts.value("fse_ids")];
      const sent = await post("/v1/invitations", body);
      parts.form.reset();
      language.value = lang();
      fit();
      await reload();
      done.textContent = t("staff.sent", {
        email: sent.body.email, role: t(`staffrole.${sent.body.role}`), until: when(sent.body.expires_at, zone) });
    },
  });
  return parts.form;
}

function memberships(items, { zone, where, reload, done }) {
  const heading = el("h2", { id: "people-title" }, t("staff.people"));
  if (!items.length) return [heading, el("p", { class: "empty" }, t("staff.nobody"))];
  return [heading, table(t("staff.people.caption"), [
    [t("staff.name"), (m) => m.person.name, null, true],
    [t("staff.email"), (m) => m.person.email],
    [t("staff.where"), where],
    [t("staff.role"), (m) => t(`staffrole.${m.role}`), null, true],
    [t("staff.since"), (m) => when(m.created_at, zone), "date"],
    [t("staff.state"), (m) => (m.removed_at ? t("staff.removedOn", { at: when(m.removed_at, zone) }) : t("staff.active")), null, true],
    [t("staff.remove"), (m) => (m.removed_at ? "" : twoStep(t("staff.remove"), t("staff.confirmRemove", { name: m.person.name }), async () => {
      await post(`/v1/memberships/${m.id}/removal`, {});
      await reload();
      done.textContent = t("staff.removed", { name: m.person.name });
    }, m.person.name, { "data-membership": m.id }))],
  ], items).grid];
}

function invitations(items, { zone, where, reload, done }) {
  const heading = el("h2", { id: "invitations-title" }, t("staff.pending"));
  if (!items.length) return [heading, el("p", { class: "empty" }, t("staff.noPending"))];
  return [heading, table(t("staff.pending"), [
    [t("staff.email"), (i) => i.email, null, true],
    [t("staff.where"), where],
    [t("staff.role"), (i) => t(`staffrole.${i.role}`), null, true],
    [t("staff.sentOn"), (i) => when(i.created_at, zone), "date"],
    [t("staff.expires"), (i) => when(i.expires_at, zone), "date"],
    [t("staff.withdraw"), (i) => twoStep(t("staff.withdraw"), t("staff.confirmWithdraw", { email: i.email }), async () => {
      await post(`/v1/invitations/${i.id}/withdrawal`, {});
      await reload();
      done.textContent = t("staff.withdrawn", { email: i.email });
    }, i.email, { "data-invitation": i.id })],
  ], items).grid];
}

// A button that asks once more before it acts (removing someone ends their sign-ins at once).
export function twoStep(label, confirm, run, whom, attributes = {}) {
  const cell = el("div", { class: "two-step" });
  const first = el("button", { type: "button", class: "quiet", "aria-label": `${label}: ${whom}`, ...attributes }, label);
  first.addEventListener("click", () => {
    const no = el("button", { type: "button", class: "quiet" }, t("staff.keep"));
    const yes = action(confirm, run, { class: "danger", "data-confirm": "" });
    no.addEventListener("click", () => {
      cell.replaceChildren(first);
      first.focus();
    });
    cell.replaceChildren(yes, no);
    yes.focus();
  });
  cell.append(first);
  return cell;
}

// An organisation's admin sees its own view and, under it, its staff; its other people see
// the view alone (the API would refuse them the lists).
export function withStaff(view, organisation) {
  return async () => {
    const [parts, me, cities] = await Promise.all([
      view(), getJson("/oauth/userinfo").catch(() => ({})), getJson("/v1/jurisdictions")]);
    if (me.fogx_organisation !== organisation || me.fogx_role !== "admin") return parts;
    const zone = cities.items[0]?.time_zone || "America/Los_Angeles";
    const part = el("div", { id: "staff", "aria-labelledby": "staff-title", role: "region" },
      el("h2", { id: "staff-title", class: "part" }, t("staff.title")), ...(await staff({ manager: organisation, zone })));
    return [...parts, part];
  };
}
