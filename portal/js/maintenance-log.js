// A restaurant's own maintenance log of the grease traps its kitchen cleans itself: the days the
// city's text asked for a cleaning and the log shows none, the entries of the last thirty days,
// and a form to record a cleaning (for people and programs holding `maintenance:write`).
import { getJson, post, session } from "./api.js";
import { el, field, report, show, table } from "./dom.js";
import { t } from "./i18n.js";

export async function maintenanceLog(fse, traps) {
  const section = el("section", { class: "maintenance-log", "data-log": fse.id });
  const path = `/v1/fses/${fse.id}/maintenance-log`;
  const refresh = async () => section.replaceChildren(...parts(await getJson(path), traps, path, refresh));
  await refresh();
  return section;
}

function parts(log, traps, path, refresh) {
  const missing = log.missing.length
    ? el("ul", { class: "finding-list missing-days" }, log.missing.map((m) => el("li", { class: "violation" },
      t("log.missingDay", { device: m.device_tag, day: m.day }), " ", el("cite", {}, t("fse.rule", { citation: m.citation })))))
    : el("p", { class: "empty" }, log.rule ? t("log.noneMissing") : t("log.noRule"));
  const entries = table(t("log.entries", { from: log.from, to: log.to }), [
    [t("log.day"), (e) => e.cleaned_on, "date", true],
    [t("fse.device"), (e) => e.device_tag, null, true],
    [t("log.by"), (e) => e.cleaned_by],
    [t("log.note"), (e) => e.note || ""],
  ], [...log.items].reverse());
  const writes = session().scopes.includes("maintenance:write");
  return [
    el("h3", {}, t("log.title")),
    missing,
    log.items.length ? entries.grid : el("p", { class: "empty" }, t("log.noEntries")),
    writes ? form(log, traps, path, refresh) : null,
  ].filter(Boolean);
}

function form(log, traps, path, refresh) {
  const id = (name) => `log-${log.fse_id}-${name}`;
  const device = el("select", { id: id("device"), name: id("device") },
    traps.map((d) => el("option", { value: d.device_id }, d.device_tag)));
  const day = el("input", { id: id("day"), name: id("day"), type: "date", required: true, max: log.to, value: log.to });
  const by = el("input", { id: id("by"), name: id("by"), type: "text", required: true, maxlength: 200 });
  const note = el("input", { id: id("note"), name: id("note"), type: "text", maxlength: 2000 });
  const submit = el("button", { type: "submit" }, t("log.record"));
  const entry = el("form", { class: "log-form" },
    el("fieldset", {}, el("legend", {}, t("log.recordTitle")),
      field(t("fse.device"), device), field(t("log.day"), day), field(t("log.by"), by), field(t("log.note"), note)),
    el("div", { class: "actions" }, submit));
  entry.addEventListener("submit", async (event) => {
    event.preventDefault();
    submit.disabled = true;
    try {
      const answer = await post(path, { device_id: device.value, cleaned_on: day.value, cleaned_by: by.value,
        note: note.value || null });
      await refresh();
      show(t("log.recorded", { device: answer.body.device_tag, day: answer.body.cleaned_on }));
    } catch (error) {
      report(error);
    } finally {
      submit.disabled = false;
    }
  });
  return entry;
}
