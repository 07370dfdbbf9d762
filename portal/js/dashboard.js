// The city at a glance: missed services, late filings and findings month by month, drawn here
// as SVG from GET /v1/audit/trends, and how many devices come due within two weeks.
import { getJson } from "./api.js";
import { el, svg } from "./dom.js";

const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
const WIDTH = 360;
const HEIGHT = 150;
const BASE = 122; // the bars stand on this line; the month names are under it

function monthName(month) {
  return MONTHS[Number(month.slice(5, 7)) - 1];
}

// A bar a month; its name and its figures are read out as one image's description.
function chart(id, title, months, key, tone) {
  const top = Math.max(1, ...months.map((m) => m[key]));
  const step = WIDTH / months.length;
  const width = Math.max(4, step - 6);
  const said = months.map((m) => `${monthName(m.month)} ${m.month.slice(0, 4)}: ${m[key]}`).join(", ");
  const total = months.reduce((sum, m) => sum + m[key], 0);
  return el("figure", { class: "chart", "data-chart": key },
    el("figcaption", { id: `${id}-title` }, title, " ", el("span", { class: "muted" }, `(${total} in all)`)),
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
  const body = el("div", { class: "charts" }, el("p", { class: "loading" }, "Counting…"));
  const section = el("section", { class: "card dashboard", "aria-labelledby": "glance-title", "aria-busy": "true" },
    el("h2", { id: "glance-title" }, "How the city is doing"), body);
  getJson("/v1/audit/trends", { months: 12 }).then((trends) => {
    const months = trends.months;
    body.replaceChildren(
      // The figure opens its list: the devices coming due (the auditor's view listens).
      el("button", { type: "button", class: "due-soon link", id: "due-soon",
        onclick: (event) => event.target.dispatchEvent(new CustomEvent("fogx:due-soon", { bubbles: true })) },
        el("span", { class: "figure" }, String(trends.due_soon)),
        el("span", {}, trends.due_soon === 1 ? "device comes due within 14 days" : "devices come due within 14 days")),
      chart("chart-missed", "Missed services", months, "missed_services", "late"),
      chart("chart-late", "Late filings", months, "late_filings", "soon"),
      chart("chart-findings", "Open findings", months, "findings", "brand"));
    section.insertBefore(el("p", { class: "muted" }, `The last 12 months to ${trends.as_of}, by the city's local month.`), body);
  }).catch((error) => body.replaceChildren(el("p", { class: "empty" }, `The figures could not be counted: ${error.message}`)))
    .finally(() => section.removeAttribute("aria-busy"));
  return section;
}
