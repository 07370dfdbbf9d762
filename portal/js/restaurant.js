// Restaurant operators: each restaurant's devices and what is due, its services, its findings
// in words with the rule behind each, its record to download, and its own traps' cleaning log.
import { download, everything, getJson } from "./api.js";
import { action, el, table } from "./dom.js";
import { findingText, t } from "./i18n.js";
import { badge } from "./lists.js";
import { maintenanceLog } from "./maintenance-log.js";
import { when } from "./time.js";

// A record is an export, limited per client a minute: the services of a few restaurants are
// shown at once, those of a longer list when asked for.
const OPEN_AT_ONCE = 5;

export async function restaurants() {
  const fses = await everything("/v1/fses");
  if (!fses.length) return [el("h1", {}, t("fse.title.one")), el("p", { class: "empty" }, t("fse.none"))];
  const cards = [];
  for (const fse of fses) cards.push(await restaurant(fse, { open: fses.length <= OPEN_AT_ONCE }));
  return [el("h1", {}, fses.length === 1 ? t("fse.title.one") : t("fse.title.many")), ...cards];
}

export async function restaurant(fse, { open = true } = {}) {
  const path = `/v1/fses/${fse.id}/records`;
  const status = await getJson(`/v1/fses/${fse.id}/service-status`);
  const devices = table(t("fse.devicesOn", { day: status.as_of }), [
    [t("fse.device"), (d) => `${d.device_tag} (${t(`kind.${d.device_kind}`)})`, null, true],
    [t("fse.permit"), (d) => `${d.permit_number} (${t(`permit.${d.permit_status}`)})`],
    [t("fse.every"), (d) => t("fse.days", { n: d.frequency_days }), "number"],
    [t("fse.lastService"), (d) => (d.last_service_on ? `${d.last_service_on}, ${d.last_hauler_name}` : t("none"))],
    [t("fse.nextDue"), (d) => d.due_on, "date", true],
    [t("fse.status"), (d) => badge(d.status), null, true],
  ], status.items);
  const detail = el("div", { class: "record" });
  const card = el("article", { class: "card", "data-fse": fse.id },
    el("h2", {}, fse.name),
    el("p", { class: "muted" }, [fse.address, fse.apn && `APN ${fse.apn}`, fse.jurisdiction].filter(Boolean).join(" · ")),
    el("div", { class: "actions" },
      action(t("fse.binder"), () => download(path, { format: "pdf" }, "application/pdf")),
      action(t("fse.zip"), () => download(path, { format: "zip" }, "application/zip")),
      action(t("fse.csv"), () => download(path, { format: "csv" }, "text/csv"))),
    status.items.length ? devices.grid : el("p", { class: "empty" }, t("fse.noDevice")),
    detail);
  const traps = status.items.filter((d) => d.device_kind === "trap");
  if (traps.length) card.append(await maintenanceLog(fse, traps));
  const open_ = async () => detail.replaceChildren(...record(await getJson(path)));
  if (open) await open_();
  else detail.append(action(t("fse.openRecord"), open_, { class: "quiet" }));
  return card;
}

// The record's services with their findings, and what the measured depths say of each device.
function record(found) {
  const tags = Object.fromEntries(found.devices.map((d) => [d.id, d.tag]));
  const services = found.manifests.map((m) => ({ ...m, body: m.revisions[m.revisions.length - 1].document.manifest }))
    .sort((a, b) => b.body.service_completed_at.localeCompare(a.body.service_completed_at));
  const summary = found.summary;
  const history = table(t("fse.servicesFrom", { from: found.period.from, to: found.period.to }), [
    [t("fse.completed"), (m) => when(m.body.service_completed_at, found.time_zone), "date", true],
    [t("fse.manifest"), (m) => m.manifest_number + (m.current_revision > 1 ? ` (${t("fse.revision", { n: m.current_revision })})` : "")],
    [t("fse.device"), (m) => tags[m.device_id] || m.body.device_tag, null, true],
    [t("fse.gallons"), (m) => m.body.gallons_removed, "number"],
    [t("fse.received"), (m) => (m.disposal_receipt ? `${m.disposal_receipt.gallons_received} gal` : ""), "number"],
    [t("fse.full"), (m) => (m.body.full_pump_down ? t("yes") : t("no"))],
    [t("fse.findings"), (m) => findings(m.findings)],
    [t("fse.scans"), (m) => m.documents.length, "number"],
  ], services);
  const open = services.flatMap((m) => m.findings.filter((f) => !f.cleared_at).map((f) => ({ ...f, manifest: m })));
  return [
    el("p", {}, summary.manifests
      ? t("fse.summary", { n: summary.manifests, full: summary.qualifying_services, share: Math.round(summary.on_time_share * 100) })
      : t("fse.noServices")),
    el("ul", { class: "permits" },
      found.permits.map((p) => el("li", {}, t("fse.permitLine", { number: p.permit_number, status: t(`permit.${p.status}`) }),
        p.expires_on ? t("fse.expires", { day: p.expires_on }) : "")),
      found.devices.filter((d) => d.measured).map((d) => el("li", {}, `${d.tag}: ${measured(d.measured, d.frequency_days)}`))),
    el("h3", {}, t("fse.findingsTitle")),
    open.length ? el("ul", { class: "finding-list" }, open.map((f) => el("li", { class: f.severity },
      el("strong", {}, findingText(f)), " ",
      el("span", { class: "muted" }, `${f.manifest.manifest_number}, ${when(f.manifest.body.service_completed_at, found.time_zone)}`),
      el("br"), el("cite", {}, t("fse.rule", { citation: f.citation })))))
      : el("p", { class: "empty" }, t("fse.noFindings")),
    services.length ? history.grid : null,
  ].filter(Boolean);
}

function measured(found, frequency) {
  if (!found || !found.recommended_frequency_days) return t("measure.none");
  return t("measure.line", { change: t(`measure.${found.change}`), days: found.recommended_frequency_days,
    now: frequency, n: found.intervals });
}

export function findings(list) {
  const open = list.filter((f) => !f.cleared_at);
  if (!open.length) return t("none");
  return el("ul", { class: "findings" }, open.map((f) => el("li", { class: f.severity },
    el("span", {}, findingText(f)), " ", el("cite", {}, f.citation))));
}
