// A city's admin: the city's people and invitations, its registry with the date each change
// takes effect (restaurants, permits and devices; haulers; disposal sites), the sign-in policy
// of its staff, and the auditor's lists of the city.
import { everything, getJson } from "./api.js";
import { el, report, show, tabKeys } from "./dom.js";
import { t } from "./i18n.js";
import "./admin-words.js";
import { apiForm, input, onSubmit, send } from "./forms.js";
import { restaurantsTab } from "./admin-registry.js";
import { haulersTab, sitesTab } from "./admin-partners.js";
import { auditor } from "./auditor.js";
import { staff } from "./staff.js";
import { when } from "./time.js";

export async function admin() {
  const city = (await getJson("/v1/jurisdictions")).items[0];
  const zone = city.time_zone;
  const context = { city, zone };
  const TABS = [
    ["people", t("admin.tab.people"), async () => staff({
      manager: "city", city, zone, ...(await registryNames()) })],
    ["restaurants", t("admin.tab.restaurants"), () => restaurantsTab(context)],
    ["haulers", t("admin.tab.haulers"), () => haulersTab(context)],
    ["sites", t("admin.tab.sites"), () => sitesTab(context)],
    ["sign-in", t("admin.tab.signIn"), () => signInPolicy(context)],
    // The auditor's lists, in the admin's language.
    ["audit", t("admin.tab.audit"), async () => [el("div", {}, ...(await auditor()))]],
  ];
  const tabs = el("div", { class: "tabs", role: "tablist", "aria-label": t("admin.tabs") });
  const panel = el("section", { class: "card", role: "tabpanel", id: "admin-panel", tabindex: "-1" });
  let latest = 0;
  const select = async (key) => {
    const asked = ++latest;
    for (const tab of tabs.children) {
      const chosen = tab.dataset.tab === key;
      tab.setAttribute("aria-selected", String(chosen));
      tab.tabIndex = chosen ? 0 : -1;
    }
    panel.setAttribute("aria-labelledby", `admin-tab-${key}`);
    panel.replaceChildren(el("p", { class: "loading" }, t("loading")));
    const parts = await TABS.find(([k]) => k === key)[2]();
    if (asked === latest) panel.replaceChildren(...parts);
  };
  for (const [key, title] of TABS) {
    tabs.append(el("button", {
      type: "button", role: "tab", id: `admin-tab-${key}`, "data-tab": key, class: "tab",
      "aria-controls": "admin-panel", onclick: () => { show(""); select(key).catch(report); },
    }, title));
  }
  tabKeys(tabs);
  await select("people");
  return [el("h1", {}, t("admin.title", { city: city.name })), tabs, panel];
}

// The haulers, sites and restaurants of the city, by name, for the invitation form.
async function registryNames() {
  const [haulers, sites, fses] = await Promise.all([
    everything("/v1/haulers"), everything("/v1/disposal-sites"), everything("/v1/fses")]);
  return { haulers, sites, fses };
}

async function signInPolicy({ city, zone }) {
  const path = `/v1/jurisdictions/${encodeURIComponent(city.code)}/sign-in-policy`;
  const policy = await getJson(path);
  const parts = apiForm("policy", t("policy.title"), 2);
  const required = parts.add("staff_totp_required", t("policy.required"),
    input("checkbox", { checked: policy.staff_totp_required }), t("policy.hint"));
  const state = el("p", { class: "done", role: "status", "aria-live": "polite" });
  const said = (p) => (p.updated_at ? t("policy.since", { at: when(p.updated_at, zone) }) : t("policy.never"));
  state.textContent = said(policy);
  onSubmit(parts, el("button", { type: "submit", id: "policy-submit" }, t("policy.save")), {
    submit: async () => {
      const saved = await send("PUT", path, { staff_totp_required: required.checked });
      state.textContent = `${t(saved.body.staff_totp_required ? "policy.on" : "policy.off")} ${said(saved.body)}`;
    },
  });
  return [parts.form, state];
}
