// Half-typed forms kept in this tab: across a redraw of the view (a language switch: in memory,
// the chosen scan too) and across a sign-in that ended (sessionStorage, until the same person
// signs in again; a scan too where it is small enough to keep as text).
import { session } from "./api.js";
import { addWords, t } from "./i18n.js";
import { el } from "./dom.js";

const KEPT = "fogx.portal.drafts";
const SCAN_LIMIT = 1_500_000; // bytes; a larger scan is chosen again after signing in

addWords({
  en: {
    "draft.restored": "What you were typing before your session ended is back in the form. Check it, then send it.",
    "draft.scanAgain": "Choose the scan again: it was too large to keep in this tab.",
  },
  es: {
    "draft.restored": "Lo que escribía antes de que terminara su sesión está de nuevo en el formulario. Revíselo y envíelo.",
    "draft.scanAgain": "Elija el escaneo de nuevo: era demasiado grande para guardarlo en esta pestaña.",
  },
});

let held = {}; // key: {fields, files}, for the view about to be drawn again

function forms() {
  return [...document.querySelectorAll("form[data-draft][data-typed]")];
}

function capture(form) {
  const fields = {};
  const files = {};
  for (const control of form.elements) {
    if (!control.id || ["submit", "button", "fieldset"].includes(control.type)) continue;
    if (control.type === "file") files[control.id] = [...control.files];
    else if (control.type === "checkbox") fields[control.id] = control.checked;
    else fields[control.id] = control.value;
  }
  return { fields, files };
}

function stored() {
  try {
    return JSON.parse(sessionStorage.getItem(KEPT)) || {};
  } catch {
    return {};
  }
}

// The forms being typed in, held while the view is drawn again.
export function hold() {
  held = Object.fromEntries(forms().map((form) => [form.dataset.draft, capture(form)]));
}

function base64(bytes) {
  let text = "";
  for (let at = 0; at < bytes.length; at += 0x8000) text += String.fromCharCode(...bytes.subarray(at, at + 0x8000));
  return btoa(text);
}

// A sign-in ended by itself (api.js): its forms being typed in are kept for the same person.
document.addEventListener("fogx:session-ended", (event) => {
  const kept = stored();
  const scans = [];
  for (const form of forms()) {
    const { fields, files } = capture(form);
    const draft = { owner: event.detail.owner, fields, scans: {}, scanDropped: false };
    kept[form.dataset.draft] = draft;
    for (const [id, [file]] of Object.entries(files)) {
      if (!file) continue;
      if (file.size > SCAN_LIMIT) draft.scanDropped = true;
      else scans.push(file.arrayBuffer().then((data) => {
        draft.scans[id] = { name: file.name, type: file.type, data: base64(new Uint8Array(data)) };
      }));
    }
    event.detail.kept += 1;
  }
  if (!event.detail.kept) return;
  sessionStorage.setItem(KEPT, JSON.stringify(kept));
  Promise.all(scans).then(() => sessionStorage.setItem(KEPT, JSON.stringify(kept)), () => {});
});

function choose(input, files) {
  const chosen = new DataTransfer();
  for (const file of files) chosen.items.add(file);
  input.files = chosen.files;
}

function fill(form, { fields, files = {}, scans = {} }) {
  for (const [id, value] of Object.entries(fields)) {
    const control = form.querySelector(`#${CSS.escape(id)}`);
    if (!control) continue;
    if (control.type === "checkbox") control.checked = value;
    else control.value = value;
  }
  for (const [id, list] of Object.entries(files)) {
    const input = form.querySelector(`#${CSS.escape(id)}`);
    if (input && list.length) choose(input, list);
  }
  for (const [id, scan] of Object.entries(scans)) {
    const input = form.querySelector(`#${CSS.escape(id)}`);
    const bytes = Uint8Array.from(atob(scan.data), (c) => c.charCodeAt(0));
    if (input) choose(input, [new File([bytes], scan.name, { type: scan.type })]);
  }
}

// A form whose typing is kept under `key`, filled again from a draft held or kept for this
// person; a note for the person where a kept draft came back (null else).
export function draftable(form, key) {
  form.dataset.draft = key;
  form.addEventListener("input", () => { form.dataset.typed = ""; });
  if (held[key]) {
    fill(form, held[key]);
    delete held[key];
    form.dataset.typed = "";
    return null;
  }
  const kept = stored();
  const draft = kept[key];
  if (!draft) return null;
  delete kept[key];
  sessionStorage.setItem(KEPT, JSON.stringify(kept));
  if (draft.owner !== session()?.clientId) return null;
  fill(form, draft);
  form.dataset.typed = "";
  return el("p", { class: "draft-note", role: "status" }, t("draft.restored"), draft.scanDropped ? ` ${t("draft.scanAgain")}` : "");
}

// The form was sent: nothing of it is left to keep.
export function settled(form) {
  delete form.dataset.typed;
}

// Signing out on purpose leaves nothing typed behind.
document.addEventListener("fogx:signed-out", () => {
  sessionStorage.removeItem(KEPT);
  held = {};
});
