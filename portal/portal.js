// The fogx portal: what an OAuth client may read, shown to the person holding its credentials,
// through the same API as any dispatch or city software. Text from the API is only ever set as
// text (never as HTML), and the access token is kept in this tab's sessionStorage alone.
import { endSignIn, finishSignIn, startSignIn } from "./person.js";

const STATUS = {
  compliant: "Up to date",
  due_soon: "Due soon",
  overdue: "Overdue",
  missed: "Missed",
  never_serviced: "Never serviced",
  permit_ended: "Permit ended",
};
const KEPT = "fogx.portal.session";
const ENDED = "Your session has ended. Sign in again.";

let current = null; // {clientId (a person's name), person, token, refreshToken, expiresAt, scopes}
let cityZone; // the auditor's city's time zone, which its lists' times are read in

class ApiError extends Error {
  constructor(message, status) {
    super(message);
    this.status = status;
  }
}

// Building the page ---------------------------------------------------------------------------

function el(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === null || value === undefined || value === false) continue;
    if (name.startsWith("on")) node.addEventListener(name.slice(2), value);
    else if (name === "class") node.className = value;
    else node.setAttribute(name, value === true ? "" : value);
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

function show(message, kind = "info") {
  const box = document.getElementById("message");
  box.textContent = message || "";
  box.className = `message ${kind}`;
  box.hidden = !message;
}

// A button that runs `run` once at a time, and shows what went wrong.
function action(label, run, attributes = {}) {
  const button = el("button", { type: "button", ...attributes }, label);
  button.addEventListener("click", async () => {
    button.disabled = true;
    button.setAttribute("aria-busy", "true");
    try {
      show("");
      await run();
    } catch (error) {
      report(error);
    } finally {
      button.disabled = false;
      button.removeAttribute("aria-busy");
    }
  });
  return button;
}

function report(error) {
  if (error instanceof ApiError && error.status === 401) return; // signed out already, and told
  show(error.message, "error");
}

// An FSE's name that opens its record in place (the auditor's lists).
function fseLink(row) {
  if (!row.fse_id) return row.fse_name || "";
  const open = (event) => event.target.dispatchEvent(new CustomEvent("fogx:fse", { bubbles: true, detail: row.fse_id }));
  return el("button", { type: "button", class: "link", onclick: open }, row.fse_name);
}

function badge(status) {
  return el("span", { class: `badge ${status}` }, STATUS[status] || status);
}

// An instant (RFC 3339) as a person reads it: the city's local time with its offset, the one
// way fogx writes a time for people (2026-06-30 23:30 -07:00).
function when(value, zone) {
  if (!value) return "";
  const instant = new Date(value);
  const parts = Object.fromEntries(new Intl.DateTimeFormat("en-US", {
    timeZone: zone, hourCycle: "h23", year: "numeric", month: "2-digit", day: "2-digit",
    hour: "2-digit", minute: "2-digit", second: "2-digit",
  }).formatToParts(instant).map((part) => [part.type, part.value]));
  const wall = Date.UTC(+parts.year, +parts.month - 1, +parts.day, +parts.hour, +parts.minute, +parts.second);
  const minutes = Math.round((wall - Math.floor(instant.getTime() / 1000) * 1000) / 60000);
  const two = (n) => String(n).padStart(2, "0");
  const offset = `${minutes < 0 ? "-" : "+"}${two(Math.floor(Math.abs(minutes) / 60))}:${two(Math.abs(minutes) % 60)}`;
  return `${parts.year}-${parts.month}-${parts.day} ${parts.hour}:${parts.minute} ${offset}`;
}

// columns: [heading, row => text or node, class?]
function table(caption, columns, rows) {
  const body = el("tbody");
  const grid = el("table", {},
    el("caption", {}, caption),
    el("thead", {}, el("tr", {}, columns.map(([heading, , cls]) => el("th", { scope: "col", class: cls }, heading)))),
    body);
  const add = (more) => body.append(...more.map((row) => el("tr", {},
    columns.map(([, cell, cls]) => el("td", { class: cls }, cell(row) ?? "")))));
  add(rows);
  return { grid: el("div", { class: "scroll" }, grid), add };
}

// The API -----------------------------------------------------------------------------------

async function problem(response) {
  let text = `${response.status} ${response.statusText}`;
  try {
    const body = await response.json();
    if (body.title) {
      // A field's errors say more than "see `errors`".
      const fields = Object.entries(body.errors || {}).map(([field, messages]) => `${field}: ${[].concat(messages).join(" ")}`);
      text = fields.length ? `${body.title}. ${fields.join("; ")}` : [body.title, body.detail].filter(Boolean).join(". ");
    } else if (body.error) {
      text = body.error_description || body.error;
    }
  } catch {
    // not JSON: the status says it
  }
  return new ApiError(text, response.status);
}

async function request(path, params = {}, accept = "application/json") {
  const session = current;
  // Signed out while a view was still loading: the sign-out said so; nothing more to tell.
  if (!session) throw new ApiError(ENDED, 401);
  if (Date.now() >= session.expiresAt) {
    signedOut(ENDED);
    throw new ApiError(ENDED, 401);
  }
  const url = new URL(path, location.origin);
  for (const [name, value] of Object.entries(params)) {
    if (value !== "" && value !== null && value !== undefined) url.searchParams.set(name, value);
  }
  const response = await fetch(url, {
    credentials: "omit",
    headers: { Authorization: `Bearer ${session.token}`, Accept: accept },
  });
  if (response.status === 401) {
    if (current === session) signedOut(ENDED);
    throw new ApiError(ENDED, 401);
  }
  if (!response.ok) throw await problem(response);
  return response;
}

async function getJson(path, params) {
  return (await request(path, params)).json();
}

// Every page of a registry list (at most 200 a page).
async function everything(path, params = {}) {
  const items = [];
  let cursor = null;
  do {
    const page = await getJson(path, { ...params, limit: 200, cursor });
    items.push(...page.items);
    cursor = page.next_cursor;
  } while (cursor);
  return items;
}

async function download(path, params, accept) {
  const response = await request(path, params, accept);
  const blob = await response.blob();
  const link = el("a", { href: URL.createObjectURL(blob), download: filename(response) });
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(link.href), 60_000);
}

function filename(response) {
  const header = response.headers.get("Content-Disposition") || "";
  const encoded = /filename\*=UTF-8''([^;]+)/i.exec(header);
  if (encoded) return decodeURIComponent(encoded[1]);
  const plain = /filename="([^"]+)"/i.exec(header);
  return plain ? plain[1] : "fogx-download";
}

// Signing in and out --------------------------------------------------------------------------

async function signIn(clientId, clientSecret) {
  // No credentials of the browser's: a refusal's `WWW-Authenticate: Basic` would otherwise have
  // the browser ask for a password itself.
  const response = await fetch("/oauth/token", {
    method: "POST",
    credentials: "omit",
    body: new URLSearchParams({ grant_type: "client_credentials", client_id: clientId, client_secret: clientSecret }),
  });
  if (response.status === 401) throw new Error("The client ID or secret is not right.");
  if (!response.ok) throw await problem(response);
  const token = await response.json();
  current = {
    clientId,
    token: token.access_token,
    expiresAt: Date.now() + (token.expires_in - 30) * 1000,
    scopes: (token.scope || "").split(" "),
  };
  sessionStorage.setItem(KEPT, JSON.stringify(current));
}

// The token's holder revokes it with the client ID alone, so that signing out ends the token
// however the page came to hold it (signed in here, or kept across a reload); `keepalive` lets
// the revocation finish should the page be closed at once.
async function signOut() {
  const ending = current;
  signedOut("You are signed out.");
  if (ending && ending.person) await endSignIn(ending);
  else if (ending) {
    await fetch("/oauth/revoke", {
      method: "POST",
      credentials: "omit",
      keepalive: true,
      body: new URLSearchParams({ token: ending.token, client_id: ending.clientId }),
    }).catch(() => {});
  }
}

function signedOut(message) {
  current = null;
  sessionStorage.removeItem(KEPT);
  document.getElementById("who").hidden = true;
  document.getElementById("view").hidden = true;
  document.getElementById("view").replaceChildren();
  document.getElementById("sign-in").hidden = false;
  document.getElementById("client-secret").value = "";
  show(message, "info");
}

function resume() {
  try {
    const kept = JSON.parse(sessionStorage.getItem(KEPT));
    if (kept && kept.token && Date.now() < kept.expiresAt) current = kept;
  } catch {
    sessionStorage.removeItem(KEPT);
  }
}

// What the client sees, by what it may read ---------------------------------------------------

async function showView() {
  const view = document.getElementById("view");
  document.getElementById("sign-in").hidden = true;
  document.getElementById("who").hidden = false;
  view.hidden = false;
  view.replaceChildren(el("p", { class: "loading" }, "Loading…"));
  const scopes = new Set(current.scopes);
  let role = "site";
  if (scopes.has("audit:read")) role = "auditor";
  else if (scopes.has("manifests:write")) role = "hauler";
  else if (scopes.has("records:read")) role = "fse";
  document.getElementById("who-name").textContent = `${current.clientId} · ${ROLE_NAMES[role]}`;
  document.getElementById("second-factor").hidden = !current.person;
  const showing = current;
  const parts = await VIEWS[role]();
  if (current === showing) view.replaceChildren(...parts);
}

const ROLE_NAMES = { auditor: "city auditor", hauler: "hauler", fse: "restaurant operator", site: "disposal site" };

const VIEWS = {
  fse: restaurants,
  auditor: audits,
  hauler: dueList,
  site: async () => [el("h1", {}, "Disposal site"), el("p", {},
    "A disposal site posts the loads it receives through the API (POST /v1/receipts); the portal has ",
    "nothing more to show it.")],
};

// Restaurant operators: each FSE's devices, services and records.

// A record is an export, limited per client a minute: the services of a few restaurants are
// shown at once, those of a longer list when asked for.
const OPEN_AT_ONCE = 5;

async function restaurants() {
  const fses = await everything("/v1/fses");
  if (!fses.length) return [el("h1", {}, "Your restaurants"), el("p", { class: "empty" }, "No restaurant is linked to this client yet.")];
  const cards = [];
  for (const fse of fses) cards.push(await restaurant(fse, { open: fses.length <= OPEN_AT_ONCE }));
  return [el("h1", {}, fses.length === 1 ? "Your restaurant" : "Your restaurants"), ...cards];
}

async function restaurant(fse, { open = true } = {}) {
  const path = `/v1/fses/${fse.id}/records`;
  const status = await getJson(`/v1/fses/${fse.id}/service-status`);
  const devices = table(`Grease control devices on ${status.as_of}`, [
    ["Device", (d) => `${d.device_tag} (${d.device_kind})`],
    ["Permit", (d) => `${d.permit_number} (${d.permit_status})`],
    ["Pumped every", (d) => `${d.frequency_days} days`, "number"],
    ["Last full service", (d) => (d.last_service_on ? `${d.last_service_on}, ${d.last_hauler_name}` : "none")],
    ["Next due", (d) => d.due_on, "date"],
    ["Status", (d) => badge(d.status)],
  ], status.items);
  const detail = el("div", { class: "record" });
  const card = el("article", { class: "card", "data-fse": fse.id },
    el("h2", {}, fse.name),
    el("p", { class: "muted" }, [fse.address, fse.apn && `APN ${fse.apn}`, fse.jurisdiction].filter(Boolean).join(" · ")),
    el("div", { class: "actions" },
      action("Binder (PDF)", () => download(path, { format: "pdf" }, "application/pdf")),
      action("Records with scans (ZIP)", () => download(path, { format: "zip" }, "application/zip")),
      action("Services (CSV)", () => download(path, { format: "csv" }, "text/csv"))),
    status.items.length ? devices.grid : el("p", { class: "empty" }, "No grease control device on record."),
    detail);
  const show = async () => detail.replaceChildren(...record(await getJson(path)));
  if (open) await show();
  else detail.append(action("Services, findings and measurements", show, { class: "quiet" }));
  return card;
}

// The record's services with their findings, and what the measured depths say of each device.
function record(found) {
  const tags = Object.fromEntries(found.devices.map((d) => [d.id, d.tag]));
  const services = found.manifests.map((m) => ({ ...m, body: m.revisions[m.revisions.length - 1].document.manifest }))
    .sort((a, b) => b.body.service_completed_at.localeCompare(a.body.service_completed_at));
  const summary = found.summary;
  const history = table(`Services from ${found.period.from} to ${found.period.to}`, [
    ["Completed", (m) => when(m.body.service_completed_at, found.time_zone)],
    ["Manifest", (m) => m.manifest_number + (m.current_revision > 1 ? ` (revision ${m.current_revision})` : "")],
    ["Device", (m) => tags[m.device_id] || m.body.device_tag],
    ["Gallons removed", (m) => m.body.gallons_removed, "number"],
    ["Site received", (m) => (m.disposal_receipt ? `${m.disposal_receipt.gallons_received} gal` : ""), "number"],
    ["Full pump-down", (m) => (m.body.full_pump_down ? "yes" : "no")],
    ["Findings", (m) => findings(m.findings)],
    ["Scans", (m) => m.documents.length, "number"],
  ], services);
  return [
    el("p", {}, summary.manifests
      ? `${summary.manifests} services in the period, ${summary.qualifying_services} of them full; ` +
        `${Math.round(summary.on_time_share * 100)}% filed on time.`
      : "No services in the period."),
    el("ul", { class: "permits" },
      found.permits.map((p) => el("li", {}, `Permit ${p.permit_number}: ${p.status}`, p.expires_on ? `, expires ${p.expires_on}` : "")),
      found.devices.filter((d) => d.measured).map((d) => el("li", {}, `${d.tag}: ${measured(d.measured, d.frequency_days)}`))),
    services.length ? history.grid : null,
  ];
}

function measured(found, frequency) {
  if (!found || !found.recommended_frequency_days) return "not enough services measured";
  const change = { shorten: "pump more often", lengthen: "could be pumped less often", keep: "frequency is right" };
  return `${change[found.change] || found.change}: every ${found.recommended_frequency_days} days ` +
    `(now ${frequency}; ${found.intervals} intervals measured)`;
}

function findings(list) {
  const open = list.filter((f) => !f.cleared_at);
  if (!open.length) return "none";
  return el("ul", { class: "findings" }, open.map((f) => el("li", { class: f.severity },
    el("span", {}, f.message), " ", el("cite", {}, f.citation))));
}

// City auditors: the lists, each filtered, paged, and as CSV.

const AUDIT_LISTS = [
  {
    key: "missed",
    title: "Missed services",
    path: "/v1/audit/missed-services",
    filters: [["as_of", "On", "date"], ["status", "Status", ["", "overdue", "missed", "never_serviced"]], ["area", "Address contains", "text"]],
    columns: [
      ["Restaurant", fseLink],
      ["Address", (r) => r.address],
      ["Permit", (r) => `${r.permit_number} (${r.permit_status})`],
      ["Device", (r) => r.device_tag],
      ["Every", (r) => `${r.frequency_days} days`, "number"],
      ["Last full service", (r) => (r.last_service_on ? `${r.last_service_on}, ${r.last_hauler_name}` : "none")],
      ["Due", (r) => r.due_on, "date"],
      ["Days overdue", (r) => r.days_overdue, "number"],
      ["Status", (r) => badge(r.status)],
    ],
    empty: "No device is past due.",
    caption: (page) => (page.mode === "as_of" ? `Past due on ${page.as_of}` : `Missed from ${page.from} to ${page.to}`),
  },
  {
    key: "findings",
    title: "Findings",
    path: "/v1/audit/findings",
    filters: [["from", "Serviced from", "date"], ["to", "to", "date"], ["severity", "Severity", ["", "violation", "warning"]]],
    columns: [
      ["Serviced", (r) => when(r.service_completed_at, cityZone)],
      ["Restaurant", fseLink],
      ["Device", (r) => r.device_tag],
      ["Manifest", (r) => r.manifest_number],
      ["Hauler", (r) => r.hauler_name],
      ["Finding", (r) => el("span", { class: r.severity }, r.message)],
      ["Ordinance", (r) => el("cite", {}, r.citation)],
    ],
    empty: "No open findings.",
    counts: (page) => Object.entries(page.counts || {}).map(([code, n]) => `${code.replaceAll("_", " ")}: ${n}`).join(" · "),
  },
  {
    key: "frequency",
    title: "Frequency recommendations",
    path: "/v1/audit/frequency-recommendations",
    filters: [["change", "Change", ["", "shorten", "lengthen", "keep"]]],
    columns: [
      ["Restaurant", fseLink],
      ["Permit", (r) => r.permit_number],
      ["Device", (r) => r.device_tag],
      ["Every now", (r) => `${r.frequency_days} days`, "number"],
      ["Measured", (r) => `${r.measured_intervals} intervals, ${r.measured_from} to ${r.measured_to}`],
      ["FOG and solids", (r) => `${r.accumulation_in_per_day} in a day`, "number"],
      ["Recommended", (r) => `every ${r.recommended_frequency_days} days (${r.change})`],
      ["Ordinance", (r) => el("cite", {}, r.citation)],
    ],
    empty: "No device has a recommendation.",
    caption: (page) => `As of ${page.as_of}, each interceptor with ${page.min_intervals} or more measured intervals`,
  },
  {
    key: "reconciliation",
    title: "Disposal reconciliation",
    path: "/v1/audit/disposal-reconciliation",
    filters: [["from", "From", "date"], ["to", "to", "date"]],
    columns: [
      ["Site", (r) => r.site_name],
      ["Ticket", (r) => r.ticket_number],
      ["Hauler", (r) => r.hauler_name],
      ["Manifest", (r) => r.manifest_number || "none"],
      ["Restaurant", fseLink],
      ["Delivered", (r) => (r.gallons_delivered == null ? "" : `${r.gallons_delivered} gal, ${when(r.delivered_at, cityZone)}`)],
      ["Received", (r) => (r.gallons_received == null ? "no receipt" : `${r.gallons_received} gal, ${when(r.received_at, cityZone)}`)],
      ["What differs", (r) => r.message],
    ],
    empty: "Every delivery matches the site's receipt.",
    caption: (page) => `Deliveries from ${page.from} to ${page.to} that do not match a receipt`,
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
    columns: [
      ["Hauler", (r) => r.hauler_name],
      ["Licence", (r) => `${r.licence_number} (${r.licence_status}, until ${r.licence_expires_on})`],
      ["Manifests", (r) => r.manifests, "number"],
      ["Filed on time", (r) => share(r.on_time_share), "number"],
      ["Full pump-downs", (r) => share(r.qualifying_share), "number"],
      ["Late disposals", (r) => r.late_disposals, "number"],
      ["Unapproved sites", (r) => r.unapproved_disposal_sites, "number"],
      ["Loads short", (r) => r.load_shortfalls, "number"],
      ["Unregistered trucks", (r) => r.unregistered_vehicles, "number"],
    ],
    empty: "No hauler works in the city.",
    caption: (page) => `Scorecards from ${page.items[0].period.from} to ${page.items[0].period.to}`,
  },
];

function share(value) {
  return value === null || value === undefined ? "" : `${Math.round(value * 100)}%`;
}

async function audits() {
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
    const parts = await auditList(list);
    if (asked === latest) panel.replaceChildren(...parts); // a tab chosen since has the panel
  };
  for (const list of AUDIT_LISTS) {
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
  await select(AUDIT_LISTS[0]);
  return [el("h1", {}, "City audit"), tabs, panel];
}

async function auditList(list) {
  const form = el("form", { class: "filters" });
  for (const [name, label, kind, limits = {}] of list.filters) {
    const id = `${list.key}-${name}`;
    const input = Array.isArray(kind)
      ? el("select", { id, name }, kind.map((v) => el("option", { value: v }, v ? (STATUS[v] || v) : "any")))
      : el("input", { id, name, type: kind, ...limits });
    form.append(el("div", { class: "field" }, el("label", { for: id }, label), input));
  }
  const results = el("div", { class: "results" });
  const params = () => Object.fromEntries(new FormData(form).entries());
  form.append(el("button", { type: "submit" }, "Show"),
    list.path && action("Download CSV", () => download(list.path, { ...params(), format: "csv" }, "text/csv")));
  const run = async () => results.replaceChildren(...(await pages(list, params())));
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    show("");
    run().catch(report);
  });
  await run();
  return [el("h2", {}, list.title), form, results];
}

async function pages(list, params) {
  const first = list.load ? await list.load(params) : await getJson(list.path, { ...params, limit: 100 });
  if (!first.items.length) return [el("p", { class: "empty" }, list.empty)];
  const { grid, add } = table(list.caption ? list.caption(first) : list.title, list.columns, first.items);
  const parts = [];
  if (list.counts) parts.push(el("p", { class: "counts" }, list.counts(first)));
  parts.push(grid);
  let cursor = first.next_cursor;
  if (cursor) {
    const more = action("Show more", async () => {
      const page = await getJson(list.path, { ...params, limit: 100, cursor });
      add(page.items);
      cursor = page.next_cursor;
      more.hidden = !cursor;
    }, { class: "quiet" });
    parts.push(more);
  }
  return parts;
}

// Haulers: the devices they service coming due.

async function dueList() {
  const list = {
    key: "due",
    title: "Devices coming due",
    path: "/v1/haulers/me/due",
    filters: [["within_days", "Within days", "number", { min: 0, max: 365, placeholder: "30" }]],
    columns: [
      ["Restaurant", (r) => r.fse_name],
      ["Address", (r) => r.address],
      ["Permit", (r) => r.permit_number],
      ["Device", (r) => `${r.device_tag} (${r.device_kind})`],
      ["Last full service", (r) => r.last_service_on || "none"],
      ["Due", (r) => r.due_on, "date"],
      ["Status", (r) => badge(r.status)],
    ],
    empty: "Nothing you service comes due in that time.",
    caption: (page) => `Due within ${page.within_days} days, or past due`,
  };
  return [el("h1", {}, "Your customers' devices"), el("section", { class: "card" }, ...(await auditList(list)))];
}

// Starting --------------------------------------------------------------------------------------

function start() {
  const form = document.getElementById("sign-in-form");
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const button = document.getElementById("sign-in-button");
    button.disabled = true;
    show("");
    try {
      await signIn(document.getElementById("client-id").value.trim(), document.getElementById("client-secret").value);
      document.getElementById("client-secret").value = "";
      await showView();
    } catch (error) {
      report(error);
    } finally {
      button.disabled = false;
    }
  });
  document.getElementById("sign-out").addEventListener("click", () => signOut());
  document.getElementById("person-sign-in").addEventListener("click", () => startSignIn().catch(report));
  resume();
  finishSignIn().then((signedIn) => {
    if (signedIn) {
      const { token, name } = signedIn;
      current = {
        clientId: name, person: true, token: token.access_token, refreshToken: token.refresh_token,
        expiresAt: Date.now() + (token.expires_in - 30) * 1000, scopes: (token.scope || "").split(" "),
      };
      sessionStorage.setItem(KEPT, JSON.stringify(current));
    }
    if (current) return showView();
  }).catch(report);
}

start();
