// Haulers: the devices they service coming due, filing a manifest with its scan, and their
// recent manifests, each to correct.
import { everything, getJson } from "./api.js";
import { action, el, table } from "./dom.js";
import { findingText, t } from "./i18n.js";
import { badge, filteredList } from "./lists.js";
import { manifestForm } from "./manifest-form.js";
import { sentCorrections } from "./review.js";
import { toLocalInput, when } from "./time.js";

const RECENT = 20;
const RECENT_DAYS = 90; // the services a dispatcher may still be correcting

export async function hauler() {
  const [cities, sites, due] = await Promise.all([
    getJson("/v1/jurisdictions"), everything("/v1/disposal-sites"), getJson("/v1/haulers/me/due", { within_days: 365 })]);
  const zone = cities.items[0]?.time_zone || "America/Los_Angeles";
  const choices = {
    permits: [...new Set(due.items.map((r) => r.permit_number))],
    devices: [...new Set(due.items.map((r) => r.device_tag))],
    // The restaurant each permit is for, so rows name the restaurant rather than a permit.
    restaurants: new Map(due.items.map((r) => [r.permit_number, r.fse_name])),
  };
  const list = {
    key: "due",
    title: t("hauler.due"),
    path: "/v1/haulers/me/due",
    filters: [["within_days", t("hauler.within"), "number", { min: 0, max: 365, placeholder: "30" }]],
    columns: [
      [t("hauler.restaurant"), (r) => r.fse_name],
      [t("hauler.address"), (r) => r.address],
      [t("fse.permit"), (r) => r.permit_number],
      [t("fse.device"), (r) => `${r.device_tag} (${t(`kind.${r.device_kind}`)})`, null, true],
      [t("fse.lastService"), (r) => r.last_service_on || t("none")],
      [t("hauler.dueOn"), (r) => r.due_on, "date", true],
      [t("fse.status"), (r) => badge(r.status), null, true],
    ],
    empty: t("hauler.dueEmpty"),
    caption: (page) => t("hauler.due.caption", { n: page.within_days }),
  };
  const recent = el("section", { class: "card", id: "recent", "aria-labelledby": "recent-title" });
  const editor = el("div", { id: "correction" });
  const sent = el("section", { class: "card", id: "sent-corrections", "aria-labelledby": "sent-title" });
  const refresh = async () => {
    const [list, corrections] = await Promise.all([manifests(zone, sites, choices, editor, refresh), sentCorrections(zone)]);
    recent.replaceChildren(...list);
    sent.replaceChildren(...corrections);
    sent.hidden = !corrections.length;
  };
  const filing = el("section", { class: "card", "aria-labelledby": "file-title" },
    el("h2", { id: "file-title" }, t("hauler.file")),
    ...manifestForm({ zone, sites, choices, onFiled: refresh }));
  await refresh();
  return [el("h1", {}, t("hauler.title")), el("section", { class: "card", id: "due" }, ...(await filteredList(list))),
    filing, editor, sent, recent];
}

async function manifests(zone, sites, choices, editor, refresh) {
  const since = toLocalInput(new Date(Date.now() - RECENT_DAYS * 86_400_000).toISOString(), zone).slice(0, 10);
  const all = await everything("/v1/manifests", { from: since });
  const newest = all.sort((a, b) => b.received_at.localeCompare(a.received_at)).slice(0, RECENT);
  const heading = el("h2", { id: "recent-title" }, t("hauler.recent"));
  if (!newest.length) return [heading, el("p", { class: "empty" }, t("hauler.noManifests"))];
  const correct = (receipt) => {
    const close = () => editor.replaceChildren();
    editor.replaceChildren(el("section", { class: "card", "aria-labelledby": "fix-title" },
      el("h2", { id: "fix-title", tabindex: "-1" }, t("form.correcting", { number: receipt.manifest_number })),
      ...manifestForm({ zone, sites, choices, correcting: receipt, onFiled: refresh, onCancel: close })));
    editor.querySelector("h2").focus();
  };
  return [heading, table(t("hauler.recent"), [
    [t("fse.manifest"), (m) => `${m.manifest_number} (${t("fse.revision", { n: m.revision })})`, null, true],
    [t("fse.completed"), (m) => when(m.manifest.service_completed_at, zone), "date", true],
    [t("fse.device"), (m) => `${choices.restaurants.get(m.manifest.permit_number) || m.manifest.permit_number} · ${m.manifest.device_tag}`, null, true],
    [t("fse.gallons"), (m) => m.manifest.gallons_removed, "number"],
    [t("fse.findings"), (m) => {
      const open = m.findings.filter((f) => !f.cleared_at);
      return open.length ? el("ul", { class: "findings" }, open.map((f) => el("li", { class: f.severity },
        findingText(f), " ", el("cite", {}, f.citation)))) : t("none");
    }],
    [t("hauler.correct"), (m) => action(t("hauler.correct"), async () => correct(m), { class: "quiet", "aria-label": `${t("hauler.correct")} ${m.manifest_number}` })],
  ], newest).grid];
}
