// A refusal's field errors shown beside the fields they concern, in the person's language and
// in words, the first of them scrolled into view and focused.
import { show } from "./dom.js";
import { addWords, t } from "./i18n.js";

addWords({
  en: {
    "error.some": "Nothing was sent: check the fields marked below.",
    "error.noPermit": "No permit of that number is on record in your cities.",
    "error.ambiguousPermit": "That permit number is used in more than one city; ask the city which one to name.",
    "error.noDevice": "Permit {permit} lists no device tagged {tag}.",
    "error.required": "Fill this in.",
    "error.number": "Give a number.",
    "error.range": "Give a number from {min} to {max}.",
    "error.time": "Give a date and a time.",
    "error.future": "This is later than now; give the time it happened.",
    "error.length": "Too long: at most {max} characters.",
    "error.choice": "Choose one of the options.",
    "error.scan": "This file is not a scan fogx can keep (PDF, JPEG, PNG or TIFF).",
    "error.other": "This was not accepted: {message}",
  },
  es: {
    "error.some": "No se envió nada: revise los campos marcados abajo.",
    "error.noPermit": "No hay ningún permiso con ese número en sus ciudades.",
    "error.ambiguousPermit": "Ese número de permiso se usa en más de una ciudad; pregunte a la ciudad cuál indicar.",
    "error.noDevice": "El permiso {permit} no incluye ningún equipo con la etiqueta {tag}.",
    "error.required": "Complete este campo.",
    "error.number": "Indique un número.",
    "error.range": "Indique un número entre {min} y {max}.",
    "error.time": "Indique una fecha y una hora.",
    "error.future": "Es posterior a este momento; indique la hora en que ocurrió.",
    "error.length": "Demasiado largo: como máximo {max} caracteres.",
    "error.choice": "Elija una de las opciones.",
    "error.scan": "Este archivo no es un escaneo que fogx pueda guardar (PDF, JPEG, PNG o TIFF).",
    "error.other": "Este dato no fue aceptado.",
  },
});

// The API's messages, as the words of a person's language.
const MESSAGES = [
  [/^No such permit\.$/, () => ["error.noPermit"]],
  [/^Used in several jurisdictions\.$/, () => ["error.ambiguousPermit"]],
  [/^No device '(.*)' on permit (.*)\.$/, (m) => ["error.noDevice", { tag: m[1], permit: m[2] }]],
  [/^Missing data for required field\.$|^Field may not be null\.$|^Shorter than minimum length 1\.$/, () => ["error.required"]],
  [/^Not a valid (number|integer)\.$/, () => ["error.number"]],
  [/^Must be greater than or equal to (\S+) and less than or equal to (\S+)\.$/, (m) => ["error.range", { min: m[1], max: m[2] }]],
  [/date-?time|^Not a valid datetime\.$/i, () => ["error.time"]],
  [/^Must not be in the future\.$/, () => ["error.future"]],
  [/^Longer than maximum length (\d+)\.$|^Length must be between \d+ and (\d+)\.$/, (m) => ["error.length", { max: m[1] || m[2] }]],
  [/^Must be one of:/, () => ["error.choice"]],
];

export function inWords(message) {
  for (const [pattern, words] of MESSAGES) {
    const found = pattern.exec(message);
    if (found) {
      const [key, values] = words(found);
      return t(key, values);
    }
  }
  return t("error.other", { message });
}

export function clearFieldErrors(form) {
  for (const old of form.querySelectorAll(".field-error[data-for]")) old.remove();
  for (const control of form.querySelectorAll("[aria-invalid]")) {
    control.removeAttribute("aria-invalid");
    const described = (control.getAttribute("aria-describedby") || "").split(" ").filter((id) => id && id !== `${control.id}-error`);
    if (described.length) control.setAttribute("aria-describedby", described.join(" "));
    else control.removeAttribute("aria-describedby");
  }
}

// The refusal's `errors` beside the controls `controlOf(path)` names (an id, or null): whether
// any was shown there. The first is scrolled to and focused; the message box says to look.
export function showFieldErrors(form, error, controlOf) {
  clearFieldErrors(form);
  const errors = (error && error.body && error.body.errors) || {};
  let first = null;
  for (const [path, messages] of Object.entries(errors)) {
    const id = controlOf(path);
    const control = id && form.querySelector(`#${CSS.escape(id)}`);
    if (!control) continue;
    const note = document.createElement("p");
    note.className = "field-error";
    note.id = `${control.id}-error`;
    note.dataset.for = control.id;
    note.textContent = [].concat(messages).map(inWords).join(" ");
    const holder = control.closest(".field") || control.parentElement;
    holder.append(note);
    control.setAttribute("aria-invalid", "true");
    const described = (control.getAttribute("aria-describedby") || "").split(" ").filter(Boolean);
    control.setAttribute("aria-describedby", [...described, note.id].join(" "));
    first ??= control;
  }
  if (!first) return false;
  show(t("error.some"), "error");
  first.scrollIntoView({ block: "center" });
  first.focus({ preventScroll: true });
  return true;
}
