// A person's notices by mail: the language they are written in and which kinds they get, as
// `PATCH /v1/me/notice-choices` keeps them. Each role is shown the kinds it can be sent.
import { getJson, request } from "./api.js";
import { action, el, field, show } from "./dom.js";

const KINDS = {
  fse: ["device_due_soon", "device_overdue", "manifest_findings"],
  hauler: ["device_due_soon", "device_overdue", "manifest_findings", "delivery_disputed", "disposal_unrecorded", "delivery_unreceived", "correction_decided"],
  site: ["deliveries_awaiting"],
  auditor: ["auditor_digest"],
};

const WORDS = {
  en: {
    title: "Notices by email", intro: "fogx writes to {email} about:", language: "Language of the notices",
    save: "Save notice choices", saved: "Your notice choices are saved.",
    device_due_soon: "A device coming due", device_overdue: "A device overdue",
    manifest_findings: "Findings on a manifest", delivery_disputed: "A delivery a site disputes",
    disposal_unrecorded: "A manifest with no disposal on record", delivery_unreceived: "A delivery a site has no record of", correction_decided: "A correction approved or rejected", deliveries_awaiting: "Deliveries awaiting confirmation (daily)",
    auditor_digest: "The daily digest of what is new",
  },
  es: {
    title: "Avisos por correo", intro: "fogx escribe a {email} sobre:", language: "Idioma de los avisos",
    save: "Guardar avisos", saved: "Sus preferencias de avisos están guardadas.",
    device_due_soon: "Un dispositivo que vence pronto", device_overdue: "Un dispositivo vencido",
    manifest_findings: "Observaciones en un manifiesto", delivery_disputed: "Una entrega que un sitio impugna",
    disposal_unrecorded: "Un manifiesto sin disposición registrada", delivery_unreceived: "Una entrega que un sitio no tiene registrada", correction_decided: "Una corrección aprobada o rechazada", deliveries_awaiting: "Entregas por confirmar (diario)",
    auditor_digest: "El resumen diario de novedades",
  },
};

function words(key, values = {}) {
  const table = WORDS[document.documentElement.lang] || WORDS.en;
  return table[key].replace(/\{(\w+)\}/g, (_, name) => String(values[name] ?? ""));
}

export async function noticeChoices(role) {
  const mine = await getJson("/v1/me/notice-choices");
  const language = el("select", { id: "notice-language", name: "language" },
    [["en", "English"], ["es", "Español"]].map(([code, name]) =>
      el("option", { value: code, lang: code, selected: code === mine.language }, name)));
  const boxes = (KINDS[role] || []).map((kind) => {
    const box = el("input", { type: "checkbox", id: `notice-${kind}`, name: kind, checked: mine.notices[kind] });
    return { kind, box, row: el("div", { class: "field check" }, box, el("label", { for: box.id }, words(kind))) };
  });
  const save = action(words("save"), async () => {
    const body = { language: language.value, notices: Object.fromEntries(boxes.map(({ kind, box }) => [kind, box.checked])) };
    await request("/v1/me/notice-choices", {}, "application/json", {
      method: "PATCH", body: JSON.stringify(body), headers: { "Content-Type": "application/json" },
    });
    show(words("saved"));
  }, { id: "notice-save" });
  return el("section", { class: "card", id: "notice-choices", "aria-labelledby": "notice-choices-title" },
    el("h2", { id: "notice-choices-title" }, words("title")),
    field(words("language"), language),
    el("fieldset", {}, el("legend", {}, words("intro", { email: mine.email })), boxes.map(({ row }) => row)),
    el("div", { class: "field buttons" }, save));
}
