// City auditors: how the city is doing at a glance, and each of its lists, filtered, paged and
// as CSV, findings and differences always in words with the rule behind them; in English for
// the auditor, in the language chosen for the city's admin (audit-words.js).
import { downloadCsv, everything, getJson } from "./api.js";
import { action, el, report, show, tabKeys } from "./dom.js";
import { FINDING_CODES, findingText, findingWords, t } from "./i18n.js";
import "./admin-words.js";
import "./audit-words.js";
import { dashboard } from "./dashboard.js";
import { badge, filteredList } from "./lists.js";
import { restaurant } from "./restaurant.js";
import { review } from "./review.js";
import { when } from "./time.js";

const DIFFERENCES = ["receipt_missing", "manifest_missing", "gallons_differ", "hauler_differs", "vehicle_differs", "disputed"];
const CHANGES = ["shorten", "lengthen", "keep"];

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
  if (!row.licence_number) return t("audit.noLicence");
  const state = [row.licence_status && t(`licence.${row.licence_status}`),
    row.licence_expires_on && t("audit.until", { day: row.licence_expires_on })].filter(Boolean).join(", ");
  return state ? `${row.licence_number} (${state})` : row.licence_number;
}

// On a day, the device's last full service; over a period, where the missed interval was
// counted from (the last service or the permit's issue), its code in words as the sheet has them.
function lastService(row) {
  if (row.last_service_on) return `${row.last_service_on}, ${row.last_hauler_name}`;
  if (row.counted_from) return t("audit.counted", { words: t(`counted.${row.counted_from}`), day: row.from_on });
  return t("audit.none");
}

// What differs on a load: the API's own sentence in English, the code's words in another language.
function difference(row) {
  return document.documentElement.lang === "en" ? row.message : t(`difference.${row.code}`);
}

function haulerColumns() {
  return [
    [t("audit.hauler"), (r) => r.hauler_name || r.name, null, true],
    [t("audit.licence"), licence],
    [t("audit.manifests"), (r) => r.manifests, "number", true],
    [t("audit.onTime"), (r) => share(r.on_time_share), "number", true],
    [t("audit.full"), (r) => share(r.qualifying_share), "number"],
    [t("audit.lateDisposals"), (r) => r.late_disposals, "number"],
    [t("audit.unapproved"), (r) => r.unapproved_disposal_sites, "number"],
    [t("audit.short"), (r) => r.load_shortfalls, "number"],
    [t("audit.unregistered"), (r) => r.unregistered_vehicles, "number"],
  ];
}

// The lists, their words in the page's language when the view is drawn.
function auditLists() {
  return [
    {
      key: "missed",
      title: t("audit.missed"),
      path: "/v1/audit/missed-services",
      filters: [["as_of", t("audit.on"), "date"], ["from", t("audit.missedFrom"), "date"], ["to", t("audit.to"), "date"],
        ["status", t("audit.status"), ["", "overdue", "missed", "never_serviced", "due_soon"]], ["area", t("audit.addressHas"), "text"]],
      columns: [
        [t("audit.restaurant"), fseLink],
        [t("audit.address"), (r) => r.address],
        [t("audit.permit"), (r) => (r.permit_status ? `${r.permit_number} (${t(`permit.${r.permit_status}`)})` : r.permit_number)],
        [t("audit.device"), (r) => r.device_tag, null, true],
        [t("audit.every"), (r) => t("audit.days", { n: r.frequency_days }), "number"],
        [t("audit.lastService"), lastService],
        [t("audit.due"), (r) => r.due_on, "date", true],
        [t("audit.daysOverdue"), (r) => (r.status === "due_soon" ? "" : r.days_overdue ?? r.days_late), "number"],
        [t("audit.status"), (r) => badge(r.status || "missed"), null, true],
      ],
      empty: t("audit.noMissed"),
      caption: (page) => (page.mode !== "as_of" ? t("audit.missedPeriod", { from: page.from, to: page.to })
        : page.items.every((r) => r.status === "due_soon") ? t("audit.dueSoon", { day: page.as_of }) : t("audit.pastDue", { day: page.as_of })),
    },
    {
      key: "findings",
      title: t("audit.findings"),
      path: "/v1/audit/findings",
      filters: [["from", t("audit.servicedFrom"), "date"], ["to", t("audit.to"), "date"],
        ["severity", t("audit.severity"), ["", "violation", "warning"], {}, (v) => t(`severity.${v}`)],
        ["code", t("audit.finding"), ["", ...FINDING_CODES], {}, findingWords]],
      columns: [
        [t("audit.serviced"), (r) => when(r.service_completed_at, cityZone), "date", true],
        [t("audit.restaurant"), fseLink],
        [t("audit.device"), (r) => r.device_tag, null, true],
        [t("audit.manifest"), (r) => r.manifest_number],
        [t("audit.hauler"), (r) => r.hauler_name],
        [t("audit.finding"), (r) => el("span", { class: r.severity }, findingText(r)), null, true],
        [t("audit.rule"), (r) => el("cite", {}, r.citation)],
      ],
      empty: t("audit.noFindings"),
      counts: (page) => el("ul", { class: "counts" }, Object.entries(page.counts || {}).map(([code, n]) =>
        el("li", {}, `${findingWords(code)}: ${n}`))),
    },
    {
      key: "frequency",
      title: t("audit.frequency"),
      path: "/v1/audit/frequency-recommendations",
      filters: [["change", t("audit.change"), ["", ...CHANGES], {}, (v) => t(`measure.${v}`)]],
      columns: [
        [t("audit.restaurant"), fseLink],
        [t("audit.permit"), (r) => r.permit_number],
        [t("audit.device"), (r) => r.device_tag, null, true],
        [t("audit.everyNow"), (r) => t("audit.days", { n: r.frequency_days }), "number"],
        [t("audit.measured"), (r) => t("audit.measuredWas", { n: r.measured_intervals, from: r.measured_from, to: r.measured_to })],
        [t("audit.fog"), (r) => t("audit.perDay", { n: r.accumulation_in_per_day }), "number"],
        [t("audit.recommended"), (r) => t("audit.recommendedIs", { n: r.recommended_frequency_days, change: t(`measure.${r.change}`) }),
          null, true],
        [t("audit.rule"), (r) => el("cite", {}, r.citation)],
      ],
      empty: t("audit.noAdvice"),
      caption: (page) => t("audit.adviceOf", { day: page.as_of, n: page.min_intervals }),
    },
    {
      key: "reconciliation",
      title: t("audit.reconciliation"),
      path: "/v1/audit/disposal-reconciliation",
      filters: [["from", t("audit.from"), "date"], ["to", t("audit.to"), "date"],
        ["code", t("audit.differs"), ["", ...DIFFERENCES], {}, (v) => t(`difference.${v}`)]],
      columns: [
        [t("audit.site"), (r) => r.site_name],
        [t("audit.ticket"), (r) => r.ticket_number, null, true],
        [t("audit.hauler"), (r) => r.hauler_name],
        [t("audit.manifest"), (r) => r.manifest_number || t("audit.none")],
        [t("audit.restaurant"), fseLink],
        [t("audit.delivered"), (r) => (r.gallons_delivered == null ? ""
          : t("audit.gallonsAt", { gallons: r.gallons_delivered, at: when(r.delivered_at, cityZone) })), null, true],
        [t("audit.received"), (r) => (r.gallons_received == null ? t("audit.noReceipt")
          : t("audit.gallonsAt", { gallons: r.gallons_received, at: when(r.received_at, cityZone) }))],
        [t("audit.differs"), (r) => el("span", {}, difference(r), " ", el("cite", {}, r.citation)), null, true],
      ],
      empty: t("audit.allMatch"),
      caption: (page) => t("audit.mismatches", { from: page.from, to: page.to }),
    },
    {
      key: "corrections",
      title: t("audit.corrections"),
      view: () => review(cityZone), // its own view: each correction is decided in place
    },
    {
      key: "haulers",
      title: t("audit.haulers"),
      filters: [["from", t("audit.filedFrom"), "date"], ["to", t("audit.to"), "date"]],
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
      columns: haulerColumns(),
      empty: t("audit.noHaulers"),
      caption: (page) => t("audit.scorecards", { from: page.items[0].period.from, to: page.items[0].period.to }),
    },
  ];
}

export async function auditor() {
  [cityZone] = (await getJson("/v1/jurisdictions")).items.map((city) => city.time_zone);
  const lists = auditLists();
  const tabs = el("div", { class: "tabs", role: "tablist", "aria-label": t("audit.lists") });
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
  for (const list of lists) {
    // Not an `action`: a disabled button would lose the keyboard's focus while its list loads.
    tabs.append(el("button", {
      type: "button", role: "tab", id: `tab-${list.key}`, "data-list": list.key, class: "tab",
      "aria-controls": "audit-panel", onclick: () => { show(""); select(list).catch(report); },
    }, list.title));
  }
  tabKeys(tabs);
  // A restaurant named in a list opens its record in the panel, and the list comes back as it was.
  panel.addEventListener("fogx:fse", (event) => {
    const list = [...panel.childNodes];
    const back = action(t("audit.back"), async () => panel.replaceChildren(...list), { class: "quiet" });
    panel.replaceChildren(el("p", { class: "loading" }, t("loading")));
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
    select(lists[0]).then(() => {
      panel.querySelector("#missed-status").value = "due_soon";
      panel.querySelector("form.filters").requestSubmit();
      panel.focus();
    }).catch(report);
  });
  await select(lists[0]);
  return [el("h1", {}, t("audit.title")), glance, tabs, panel];
}
