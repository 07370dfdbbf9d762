// City auditors: how the city is doing at a glance, and each of its lists, filtered, paged and
// as CSV, findings and differences always in words with the rule behind them.
import { downloadCsv, everything, getJson } from "./api.js";
import { action, el, report, show } from "./dom.js";
import { FINDING_CODES, findingWords } from "./i18n.js";
import { dashboard } from "./dashboard.js";
import { badge, filteredList } from "./lists.js";
import { restaurant } from "./restaurant.js";
import { review } from "./review.js";
import { when } from "./time.js";

const DIFFERENCES = {
  receipt_missing: "No receipt from the site", manifest_missing: "No manifest for the load",
  gallons_differ: "Gallons differ", hauler_differs: "Another hauler", vehicle_differs: "Another truck",
  disputed: "Disputed by the site",
};
const CHANGES = { shorten: "pump more often", lengthen: "could be pumped less often", keep: "frequency is right" };

let cityZone; // the auditor's city's time zone, which its lists' times are read in

// An FSE's name that opens its record in place.
function fseLink(row) {
  if (!row.fse_id) return row.fse_name || "";
  const open = (event) => event.target.dispatchEvent(new CustomEvent("fogx:fse", { bubbles: true, detail: row.fse_id }));
  return el("button", { type: "button", class: "link", onclick: open }, row.fse_name);
}

function share(value) {
  return value === null || value === undefined ? "" : `${Math.round(value * 100)}%`;
}

function licence(row) {
  if (!row.licence_number) return "none on record";
  const state = [row.licence_status, row.licence_expires_on && `until ${row.licence_expires_on}`].filter(Boolean).join(", ");
  return state ? `${row.licence_number} (${state})` : row.licence_number;
}

// On a day, the device's last full service; over a period, where the missed interval began.
function lastService(row) {
  if (row.last_service_on) return `${row.last_service_on}, ${row.last_hauler_name}`;
  if (row.counted_from === "service") return row.from_on;
  if (row.counted_from === "permit_issued") return `none (permit issued ${row.from_on})`;
  return "none";
}

const HAULER_COLUMNS = [
  ["Hauler", (r) => r.hauler_name || r.name, null, true],
  ["Licence", licence],
  ["Manifests", (r) => r.manifests, "number", true],
  ["Filed on time", (r) => share(r.on_time_share), "number", true],
  ["Full pump-downs", (r) => share(r.qualifying_share), "number"],
  ["Late disposals", (r) => r.late_disposals, "number"],
  ["Unapproved sites", (r) => r.unapproved_disposal_sites, "number"],
  ["Loads short", (r) => r.load_shortfalls, "number"],
  ["Unregistered trucks", (r) => r.unregistered_vehicles, "number"],
];

const LISTS = [
  {
    key: "missed",
    title: "Missed services",
    path: "/v1/audit/missed-services",
    filters: [["as_of", "On", "date"], ["from", "Or missed from", "date"], ["to", "to", "date"],
      ["status", "Status", ["", "overdue", "missed", "never_serviced", "due_soon"]], ["area", "Address contains", "text"]],
    columns: [
      ["Restaurant", fseLink],
      ["Address", (r) => r.address],
      ["Permit", (r) => (r.permit_status ? `${r.permit_number} (${r.permit_status})` : r.permit_number)],
      ["Device", (r) => r.device_tag, null, true],
      ["Every", (r) => `${r.frequency_days} days`, "number"],
      ["Last full service", lastService],
      ["Due", (r) => r.due_on, "date", true],
      ["Days overdue", (r) => (r.status === "due_soon" ? "" : r.days_overdue ?? r.days_late), "number"],
      ["Status", (r) => badge(r.status || "missed"), null, true],
    ],
    empty: "No device is past due.",
    caption: (page) => (page.mode !== "as_of" ? `Missed from ${page.from} to ${page.to}`
      : page.items.every((r) => r.status === "due_soon") ? `Coming due within 14 days of ${page.as_of}` : `Past due on ${page.as_of}`),
  },
  {
    key: "findings",
    title: "Findings",
    path: "/v1/audit/findings",
    filters: [["from", "Serviced from", "date"], ["to", "to", "date"], ["severity", "Severity", ["", "violation", "warning"], {}, (v) => v],
      ["code", "Finding", ["", ...FINDING_CODES], {}, findingWords]],
    columns: [
      ["Serviced", (r) => when(r.service_completed_at, cityZone), "date", true],
      ["Restaurant", fseLink],
      ["Device", (r) => r.device_tag, null, true],
      ["Manifest", (r) => r.manifest_number],
      ["Hauler", (r) => r.hauler_name],
      ["Finding", (r) => el("span", { class: r.severity }, r.message), null, true],
      ["Rule", (r) => el("cite", {}, r.citation)],
    ],
    empty: "No open findings.",
    counts: (page) => el("ul", { class: "counts" }, Object.entries(page.counts || {}).map(([code, n]) =>
      el("li", {}, `${findingWords(code)}: ${n}`))),
  },
  {
    key: "frequency",
    title: "Frequency recommendations",
    path: "/v1/audit/frequency-recommendations",
    filters: [["change", "Change", ["", "shorten", "lengthen", "keep"], {}, (v) => CHANGES[v]]],
    columns: [
      ["Restaurant", fseLink],
      ["Permit", (r) => r.permit_number],
      ["Device", (r) => r.device_tag, null, true],
      ["Every now", (r) => `${r.frequency_days} days`, "number"],
      ["Measured", (r) => `${r.measured_intervals} intervals, ${r.measured_from} to ${r.measured_to}`],
      ["FOG and solids", (r) => `${r.accumulation_in_per_day} in a day`, "number"],
      ["Recommended", (r) => `every ${r.recommended_frequency_days} days (${CHANGES[r.change] || r.change})`, null, true],
      ["Rule", (r) => el("cite", {}, r.citation)],
    ],
    empty: "No device has a recommendation.",
    caption: (page) => `As of ${page.as_of}, each interceptor with ${page.min_intervals} or more measured intervals`,
  },
  {
    key: "reconciliation",
    title: "Disposal reconciliation",
    path: "/v1/audit/disposal-reconciliation",
    filters: [["from", "From", "date"], ["to", "to", "date"], ["code", "What differs", ["", ...Object.keys(DIFFERENCES)], {}, (v) => DIFFERENCES[v]]],
    columns: [
      ["Site", (r) => r.site_name],
      ["Ticket", (r) => r.ticket_number, null, true],
      ["Hauler", (r) => r.hauler_name],
      ["Manifest", (r) => r.manifest_number || "none"],
      ["Restaurant", fseLink],
      ["Delivered", (r) => (r.gallons_delivered == null ? "" : `${r.gallons_delivered} gal, ${when(r.delivered_at, cityZone)}`), null, true],
      ["Received", (r) => (r.gallons_received == null ? "no receipt" : `${r.gallons_received} gal, ${when(r.received_at, cityZone)}`)],
      ["What differs", (r) => el("span", {}, r.message, " ", el("cite", {}, r.citation)), null, true],
    ],
    empty: "Every delivery matches the site's receipt.",
    caption: (page) => `Deliveries from ${page.from} to ${page.to} that do not match a receipt`,
  },
  {
    key: "corrections",
    title: "Corrections to review",
    view: () => review(cityZone), // its own view: each correction is decided in place
  },
  {
    key: "haulers",
    title: "Haulers",
    filters: [["from", "Filed from", "date"], ["to", "to", "date"]],
    // A scorecard each (GET /v1/audit/haulers/{id}/scorecard), for every hauler the city sees.
    load: async (params) => {
      const items = [];
      for (const hauler of await everything("/v1/haulers")) {
        items.push({ ...hauler, ...(await getJson(`/v1/audit/haulers/${hauler.id}/scorecard`, params)) });
      }
      return { items, next_cursor: null };
    },
    csv: (page) => downloadCsv("haulers.csv",
      ["hauler", "licence", "from", "to", "manifests", "late_submissions", "on_time_share", "qualifying_share",
        "late_disposals", "unapproved_disposal_sites", "load_shortfalls", "unregistered_vehicles"],
      page.items.map((r) => [r.hauler_name, r.licence_number, r.period.from, r.period.to, r.manifests, r.late_submissions,
        r.on_time_share, r.qualifying_share, r.late_disposals, r.unapproved_disposal_sites, r.load_shortfalls,
        r.unregistered_vehicles])),
    columns: HAULER_COLUMNS,
    empty: "No hauler works in the city.",
    caption: (page) => `Scorecards from ${page.items[0].period.from} to ${page.items[0].period.to}`,
  },
];

export async function auditor() {
  [cityZone] = (await getJson("/v1/jurisdictions")).items.map((city) => city.time_zone);
  const tabs = el("div", { class: "tabs", role: "tablist", "aria-label": "The city's lists" });
  const panel = el("section", { class: "card", role: "tabpanel", id: "audit-panel", tabindex: "-1" });
  let latest = 0;
  const select = async (list) => {
    const asked = ++latest;
    for (const tab of tabs.children) {
      const chosen = tab.dataset.list === list.key;
      tab.setAttribute("aria-selected", String(chosen));
      tab.tabIndex = chosen ? 0 : -1; // one stop in the tab order; the arrows move between tabs
    }
    panel.setAttribute("aria-labelledby", `tab-${list.key}`);
    const parts = await (list.view ? list.view() : filteredList(list));
    if (asked === latest) panel.replaceChildren(...parts); // a tab chosen since has the panel
  };
  for (const list of LISTS) {
    // Not an `action`: a disabled button would lose the keyboard's focus while its list loads.
    tabs.append(el("button", {
      type: "button", role: "tab", id: `tab-${list.key}`, "data-list": list.key, class: "tab",
      "aria-controls": "audit-panel", onclick: () => { show(""); select(list).catch(report); },
    }, list.title));
  }
  // The keys of a tab list (WAI-ARIA): arrows to the previous or next tab, Home and End to the
  // first and last; the tab reached is chosen.
  tabs.addEventListener("keydown", (event) => {
    const all = [...tabs.children];
    const at = all.indexOf(document.activeElement);
    const to = { ArrowRight: at + 1, ArrowLeft: at - 1, Home: 0, End: all.length - 1 }[event.key];
    if (at < 0 || to === undefined) return;
    event.preventDefault();
    const tab = all[(to + all.length) % all.length];
    tab.focus();
    tab.click();
  });
  // A restaurant named in a list opens its record in the panel, and the list comes back as it was.
  panel.addEventListener("fogx:fse", (event) => {
    const list = [...panel.childNodes];
    const back = action("Back to the list", async () => panel.replaceChildren(...list), { class: "quiet" });
    panel.replaceChildren(el("p", { class: "loading" }, "Loading…"));
    getJson(`/v1/fses/${event.detail}`).then(restaurant).then((card) => panel.replaceChildren(back, card))
      .catch((error) => {
        panel.replaceChildren(...list);
        report(error);
      });
  });
  const glance = dashboard();
  // "N devices come due within 14 days" opens them: the missed services' list, due soon.
  glance.addEventListener("fogx:due-soon", () => {
    show("");
    select(LISTS[0]).then(() => {
      panel.querySelector("#missed-status").value = "due_soon";
      panel.querySelector("form.filters").requestSubmit();
      panel.focus();
    }).catch(report);
  });
  await select(LISTS[0]);
  return [el("h1", {}, "City audit"), glance, tabs, panel];
}
