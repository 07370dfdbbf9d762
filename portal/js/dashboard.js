// The city at a glance: missed services, late filings and findings month by month, drawn here
// as SVG from GET /v1/audit/trends, and how many devices come due within two weeks.
import { getJson } from "./api.js";
import { el, svg } from "./dom.js";
import { t } from "./i18n.js";
import "./audit-words.js";
const WIDTH = 360;
const HEIGHT = 150;
const BASE = 122; // the bars stand on this line; the month names are under it

// A month's short name in the page's language ("Jan", "ene").
function monthName(month) {
  const day = new Date(Date.UTC(Number(month.slice(0, 4)), Number(month.slice(5, 7)) - 1, 15));
  return new Intl.DateTimeFormat(document.documentElement.lang, { month: "short", timeZone: "UTC" }).format(day).replace(".", "");
}

// A bar a month; its name and its figures are read out as one image's description.
function chart(id, title, months, key, tone) {
  const top = Math.max(1, ...months.map((m) => m[key]));
  const step = WIDTH / months.length;
  const width = Math.max(4, step - 6);
  const said = months.map((m) => `${monthName(m.month)} ${m.month.slice(0, 4)}: ${m[key]}`).join(", ");
  const total = months.reduce((sum, m) => sum + m[key], 0);
  return el("figure", { class: "chart", "data-chart": key },
    el("figcaption", { id: `${id}-title` }, title, " ", el("span", { class: "muted" }, t("glance.inAll", { n: total }))),
    svg("svg", { viewBox: `0 0 ${WIDTH} ${HEIGHT}`, role: "img", "aria-labelledby": `${id}-title ${id}-desc`, class: `bars ${tone}` },
      svg("desc", { id: `${id}-desc` }, said),
      svg("line", { x1: 0, x2: WIDTH, y1: BASE, y2: BASE, class: "axis" }),
      months.map((m, index) => {
        const height = Math.round((m[key] / top) * 96);
        const x = index * step + (step - width) / 2;
        return svg("g", { "data-month": m.month, "data-value": m[key] },
          svg("title", {}, `${monthName(m.month)} ${m.month.slice(0, 4)}: ${m[key]}`),
          svg("rect", { x, y: BASE - height, width, height, class: "bar" }),
          m[key] ? svg("text", { x: x + width / 2, y: BASE - height - 3, class: "value" }, m[key]) : null,
          svg("text", { x: x + width / 2, y: BASE + 14, class: "month" }, monthName(m.month)));
      })));
}

// The section at once, its figures when the API has counted them: the lists below need not wait.
export function dashboard() {
  const body = el("div", { class: "charts" }, el("p", { class: "loading" }, t("glance.counting")));
  const section = el("section", { class: "card dashboard", "aria-labelledby": "glance-title", "aria-busy": "true" },
    el("h2", { id: "glance-title" }, t("glance.title")), body);
  getJson("/v1/audit/trends", { months: 12 }).then((trends) => {
    const months = trends.months;
    body.replaceChildren(
      // The figure opens its list: the devices coming due (the auditor's view listens).
      el("button", { type: "button", class: "due-soon link", id: "due-soon",
        onclick: (event) => event.target.dispatchEvent(new CustomEvent("fogx:due-soon", { bubbles: true })) },
        el("span", { class: "figure" }, String(trends.due_soon)),
        el("span", {}, t(trends.due_soon === 1 ? "glance.dueOne" : "glance.dueMany"))),
      chart("chart-missed", t("glance.missed"), months, "missed_services", "late"),
      chart("chart-late", t("glance.late"), months, "late_filings", "soon"),
      chart("chart-findings", t("glance.findings"), months, "findings", "brand"));
    section.insertBefore(el("p", { class: "muted" }, t("glance.months", { day: trends.as_of })), body);
  }).catch((error) => body.replaceChildren(el("p", { class: "empty" }, t("glance.failed", { message: error.message }))))
    .finally(() => section.removeAttribute("aria-busy"));
  return section;
}
