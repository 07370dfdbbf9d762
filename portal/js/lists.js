// A list the API pages: its filters, its rows (a table, cards on a phone), more pages when
// asked, and the same list as CSV.
import { download, getJson } from "./api.js";
import { action, el, field, report, show, table } from "./dom.js";
import { t } from "./i18n.js";

export function badge(status) {
  return el("span", { class: `badge ${status}` }, t(`status.${status}`));
}

// list: {key, title, path, filters: [[name, label, kind (type or [values]), attributes?, words?]],
// columns, empty, caption?, counts?, load? (rows made here), csv? (a sheet made here)}
export async function filteredList(list) {
  const form = el("form", { class: "filters" });
  for (const [name, label, kind, limits = {}, words = (v) => t(`status.${v}`)] of list.filters) {
    const id = `${list.key}-${name}`;
    const input = Array.isArray(kind)
      ? el("select", { id, name }, kind.map((v) => el("option", { value: v }, v ? words(v) : t("any"))))
      : el("input", { id, name, type: kind, ...limits });
    form.append(field(label, input));
  }
  const results = el("div", { class: "results" });
  const params = () => Object.fromEntries(new FormData(form).entries());
  let shown = null;
  const sheet = list.csv ? () => list.csv(shown, params())
    : () => download(list.path, { ...params(), format: "csv" }, "text/csv");
  form.append(el("div", { class: "field buttons" }, el("button", { type: "submit" }, t("show")),
    action(t("downloadCsv"), sheet, { class: "quiet" })));
  const run = async () => {
    const [parts, first] = await pages(list, params());
    shown = first;
    results.replaceChildren(...parts);
  };
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
  if (!first.items.length) return [[el("p", { class: "empty" }, list.empty)], first];
  const { grid, add } = table(list.caption ? list.caption(first) : list.title, list.columns, first.items);
  const parts = [];
  if (list.counts) parts.push(list.counts(first));
  parts.push(grid);
  let cursor = first.next_cursor;
  if (cursor) {
    const more = action(t("showMore"), async () => {
      const page = await getJson(list.path, { ...params, limit: 100, cursor });
      add(page.items);
      first.items.push(...page.items);
      cursor = page.next_cursor;
      more.hidden = !cursor;
    }, { class: "quiet" });
    parts.push(more);
  }
  return [parts, first];
}
