// Corrections that would move a manifest: the city's reviewers read who asked, why and what
// changes, and approve or reject each with a reason; the hauler's dispatcher sees which of
// theirs wait for the city, and what the city decided.
import { getJson, post } from "./api.js";
import { action, el, field, report, show, table } from "./dom.js";
import { addWords, t } from "./i18n.js";
import "./audit-words.js";
import { when } from "./time.js";

addWords({
  en: {
    "moves.fse": "to another restaurant", "moves.permit": "to another permit", "moves.device": "to another device",
    "moves.service_time": "its service moved past the filing deadline",
    "correction.pending": "Waiting for the city", "correction.approved": "Approved", "correction.rejected": "Rejected",
    "sent.title": "Your corrections the city reviews", "sent.caption": "Corrections sent to the city, newest first",
    "sent.none": "No correction of yours waits for the city, or was decided by it.",
    "sent.manifest": "Manifest", "sent.sent": "Sent", "sent.changes": "What it changes", "sent.state": "The city's review",
    "sent.why": "Your reason", "sent.waiting": "{n} of your corrections wait for the city's review.",
    "sent.approvedAs": "now revision {n}", "sent.because": "The city's reason: {reason}",
    "change.permit_number": "Permit", "change.device_tag": "Device",
    "change.service_started_at": "Service started", "change.service_completed_at": "Service completed",
    "change.none": "no change to the permit, device or times",
  },
  es: {
    "moves.fse": "a otro restaurante", "moves.permit": "a otro permiso", "moves.device": "a otro equipo",
    "moves.service_time": "su servicio se movió más allá del plazo de presentación",
    "correction.pending": "Esperando a la ciudad", "correction.approved": "Aprobada", "correction.rejected": "Rechazada",
    "sent.title": "Sus correcciones que revisa la ciudad", "sent.caption": "Correcciones enviadas a la ciudad, las más recientes primero",
    "sent.none": "Ninguna corrección suya espera a la ciudad ni fue decidida por ella.",
    "sent.manifest": "Manifiesto", "sent.sent": "Enviada", "sent.changes": "Qué cambia", "sent.state": "Revisión de la ciudad",
    "sent.why": "Su motivo", "sent.waiting": "{n} de sus correcciones esperan la revisión de la ciudad.",
    "sent.approvedAs": "ahora revisión {n}", "sent.because": "Motivo de la ciudad: {reason}",
    "change.permit_number": "Permiso", "change.device_tag": "Equipo",
    "change.service_started_at": "Inicio del servicio", "change.service_completed_at": "Fin del servicio",
    "change.none": "sin cambios en el permiso, el equipo ni las horas",
  },
});

const NAMED = ["permit_number", "device_tag", "service_started_at", "service_completed_at"];
const TIMES = new Set(["service_started_at", "service_completed_at"]);

// Why a correction waits for the city, in words.
export function movesWords(moves) {
  return (moves || []).map((m) => t(`moves.${m}`)).join("; ");
}

// What the correction changes of what the current revision names, as "Device: GI-1 → GI-2".
function changes(row, zone) {
  const shown = (name, value) => (TIMES.has(name) ? when(value, zone) : value);
  const differs = (name, a, b) => (TIMES.has(name) ? new Date(a).getTime() !== new Date(b).getTime() : a !== b);
  const changed = NAMED.filter((name) => differs(name, row.current[name], row.manifest[name]));
  if (!changed.length) return t("change.none");
  return el("ul", { class: "findings" }, changed.map((name) =>
    el("li", {}, `${t(`change.${name}`)}: ${shown(name, row.current[name])} → ${shown(name, row.manifest[name])}`)));
}

function who(actor) {
  if (!actor) return "";
  return actor.person_name || actor.client_id || actor.role || "";
}

function state(row) {
  return el("span", { class: `badge correction-${row.status}` }, t(`correction.${row.status}`));
}

function decision(row, zone) {
  const parts = [state(row)];
  if (row.status === "approved" && row.revision) parts.push(" ", t("sent.approvedAs", { n: row.revision }));
  if (row.decided_at) parts.push(" ", el("span", { class: "muted" }, `${who(row.decided_by)}, ${when(row.decided_at, zone)}`));
  if (row.decision_reason) parts.push(el("br"), t("sent.because", { reason: row.decision_reason }));
  return el("span", {}, ...parts);
}

// The city's reviewers --------------------------------------------------------------------------

const STATUSES = ["pending", "approved", "rejected"];

// The review tab of the auditor's view: its parts.
export async function review(zone) {
  const panel = el("div", { id: "review-decision" });
  const results = el("div", { class: "results" });
  const status = el("select", { id: "corrections-status", name: "status" },
    STATUSES.map((value) => el("option", { value }, t(`review.${value}`))));
  const filters = el("form", { class: "filters" }, field(t("review.corrections"), status),
    el("div", { class: "field buttons" }, el("button", { type: "submit" }, t("show"))));
  const load = async () => {
    const page = await getJson("/v1/audit/corrections", { status: status.value, limit: 200 });
    if (!page.items.length) {
      results.replaceChildren(el("p", { class: "empty" },
        t(status.value === "pending" ? "review.nonePending" : "review.none")));
      return;
    }
    const columns = [
      [t("review.manifest"), (r) => t("review.revisionOf", { number: r.manifest_number, n: r.based_on_revision }), null, true],
      [t("review.sent"), (r) => `${who(r.submitted_by)}, ${when(r.submitted_at, zone)}`, "date"],
      [t("review.whyWaits"), (r) => movesWords(r.moves), null, true],
      [t("review.changes"), (r) => changes(r, zone)],
      [t("review.haulerReason"), (r) => r.reason],
      [t("review.decision"), (r) => (r.status === "pending"
        ? action(t("review.review", { number: r.manifest_number }), async () => choose(r, zone, panel, load),
          { class: "quiet", "data-correction": r.id })
        : decision(r, zone)), null, true],
    ];
    results.replaceChildren(table(t("review.caption", { status: t(`review.${status.value}`) }), columns, page.items).grid);
  };
  filters.addEventListener("submit", (event) => {
    event.preventDefault();
    show("");
    load().catch(report);
  });
  await load();
  return [el("h2", {}, t("review.title")), el("p", { class: "muted" }, t("review.intro")), panel, filters, results];
}

// The correction chosen: approved (a reason if the reviewer wants one) or rejected (with one).
function choose(row, zone, panel, reload) {
  const reason = el("textarea", { id: "decision-reason", name: "reason", rows: 3, maxlength: 2000,
    "aria-describedby": "decision-reason-hint decision-reason-error" });
  const error = el("p", { id: "decision-reason-error", class: "field-error", hidden: true });
  const done = async (message) => {
    panel.replaceChildren();
    await reload();
    show(message);
    document.getElementById("message").scrollIntoView({ block: "nearest" });
  };
  const approve = action(t("review.approve"), async () => {
    const { body } = await post(`/v1/audit/corrections/${row.id}/approve`, reason.value.trim() ? { reason: reason.value.trim() } : {});
    await done(t("review.approvedDone", { number: row.manifest_number, n: body.revision }));
  }, { id: "approve-correction" });
  const reject = action(t("review.reject"), async () => {
    if (!reason.value.trim()) {
      error.textContent = t("review.needReason");
      error.hidden = false;
      reason.setAttribute("aria-invalid", "true");
      reason.focus();
      return;
    }
    await post(`/v1/audit/corrections/${row.id}/reject`, { reason: reason.value.trim() });
    await done(t("review.rejectedDone", { number: row.manifest_number }));
  }, { id: "reject-correction", class: "danger" });
  reason.addEventListener("input", () => {
    error.hidden = true;
    reason.removeAttribute("aria-invalid");
  });
  panel.replaceChildren(el("section", { class: "card", "aria-labelledby": "decision-title" },
    el("h3", { id: "decision-title", tabindex: "-1" }, t("review.of", { number: row.manifest_number })),
    el("p", {}, t("review.sentBy", { who: who(row.submitted_by), at: when(row.submitted_at, zone), n: row.based_on_revision }),
      t("review.waitsBecause", { moves: movesWords(row.moves) })),
    el("p", {}, el("strong", {}, t("review.haulerSaid")), row.reason),
    el("div", {}, el("strong", {}, t("review.changesAre")), changes(row, zone)),
    field(t("review.yourReason"), reason, t("review.reasonHint")),
    error,
    el("div", { class: "actions" }, approve, reject,
      el("button", { type: "button", class: "quiet", onclick: () => panel.replaceChildren() }, t("review.close")))));
  panel.querySelector("h3").focus();
}

// The hauler's dispatcher ---------------------------------------------------------------------

const SENT = 20;

// The hauler's corrections the city reviews: a card of parts (none where there are none).
export async function sentCorrections(zone) {
  const page = await getJson("/v1/corrections", { limit: SENT });
  if (!page.items.length) return [];
  const waiting = page.items.filter((r) => r.status === "pending").length;
  return [
    el("h2", { id: "sent-title" }, t("sent.title")),
    waiting ? el("p", { class: "warning" }, t("sent.waiting", { n: waiting })) : null,
    table(t("sent.caption"), [
      [t("sent.manifest"), (r) => r.manifest_number, null, true],
      [t("sent.state"), (r) => decision(r, zone), null, true],
      [t("sent.sent"), (r) => when(r.submitted_at, zone), "date"],
      [t("sent.changes"), (r) => changes(r, zone)],
      [t("sent.why"), (r) => r.reason],
    ], page.items).grid,
  ];
}
