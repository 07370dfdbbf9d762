// The admin views' forms: each field with its label, hint and a place for its error, shown
// beside it in words and in the page's language; a refusal of the API goes beside the field it
// names, and one that names no field beside the form's button in words of the page's language
// (problems.js), never in a banner far away.
import { request } from "./api.js";
import { el } from "./dom.js";
import { t } from "./i18n.js";
import { problemText } from "./problems.js";
import { toLocalInput } from "./time.js";

// A JSON request of any method: {status, body}.
export async function send(method, path, body) {
  const response = await request(path, {}, "application/json", {
    method,
    body: body === undefined ? undefined : JSON.stringify(body),
    headers: body === undefined ? {} : { "Content-Type": "application/json" },
  });
  return { status: response.status, body: await response.json() };
}

// A form whose fields name the API's, titled by a heading of `level`:
// {form, add(name, label, input, hint?), value(name), fail(name, words), clear()}.
export function apiForm(id, title, level = 3) {
  const form = el("form", { id, class: "admin-form", novalidate: true, "aria-labelledby": `${id}-title` });
  form.append(el(`h${level}`, { id: `${id}-title` }, title));
  const body = el("div", { class: "admin-fields" });
  const general = el("p", { class: "field-error", id: `${id}-error`, role: "alert", hidden: true });
  form.append(body);
  const add = (name, label, input, hint) => {
    input.id = input.id || `${id}-${name}`;
    input.name = name;
    input.dataset.field = name;
    const hintId = `${input.id}-hint`;
    const error = el("span", { class: "field-error", id: `${input.id}-error`, hidden: true });
    input.setAttribute("aria-describedby", [hint ? hintId : null, error.id].filter(Boolean).join(" "));
    const checkbox = input.type === "checkbox";
    const labelled = el("label", { for: input.id }, label);
    body.append(el("div", { class: checkbox ? "field check" : "field", "data-for": name },
      checkbox ? [input, labelled] : [labelled, input], hint ? el("span", { class: "small", id: hintId }, hint) : null, error));
    return input;
  };
  const value = (name) => {
    const input = form.elements.namedItem(name);
    if (!input) return "";
    return input.type === "checkbox" ? input.checked : String(input.value).trim();
  };
  // An error beside the field `name` (a path such as `fse_ids.0` names its first part), or
  // beside the button where the form has no such field.
  const fail = (name, words) => {
    const input = name && form.querySelector(`[data-field="${String(name).split(".")[0]}"]`);
    const slot = input ? form.querySelector(`#${input.id}-error`) : general;
    slot.textContent = words;
    slot.hidden = false;
    if (input) input.setAttribute("aria-invalid", "true");
    return input || general;
  };
  const clear = () => {
    for (const slot of form.querySelectorAll(".field-error")) {
      slot.textContent = "";
      slot.hidden = true;
    }
    for (const input of form.querySelectorAll("[aria-invalid]")) input.removeAttribute("aria-invalid");
  };
  return { form, body, general, add, value, fail, clear };
}

// The API's words for a field, in the page's language: its own sentence in English; in
// Spanish, that the value was refused, with the API's sentence kept as it was written.
function refusedWords(messages) {
  const said = [].concat(messages).join(" ");
  if (document.documentElement.lang === "en") return said;
  return `${t("admin.refused")} (${said})`;
}

// Run `submit` when the form is sent: the button waits, errors found before sending
// (`check` answers {field: words}) and those the API answers are shown beside their fields,
// and the first of them is scrolled to and focused.
export function onSubmit(parts, button, { check = () => ({}), submit }) {
  if (!button.id) button.id = `${parts.form.id}-submit`;
  parts.form.append(el("div", { class: "actions" }, button), parts.general);
  parts.form.addEventListener("submit", async (event) => {
    event.preventDefault();
    parts.clear();
    const found = Object.entries(check());
    if (found.length) {
      focusFirst(found.map(([name, words]) => parts.fail(name, words)));
      return;
    }
    button.disabled = true;
    button.setAttribute("aria-busy", "true");
    try {
      await submit();
    } catch (error) {
      if (error && error.status === 401) return; // signed out already, and told
      const fields = Object.entries((error.body && error.body.errors) || {});
      const shown = fields.length
        ? fields.map(([name, messages]) => parts.fail(name, refusedWords(messages)))
        : [parts.fail(null, problemText(error))];
      focusFirst(shown);
    } finally {
      button.disabled = false;
      button.removeAttribute("aria-busy");
    }
  });
}

function focusFirst(shown) {
  const first = shown.find(Boolean);
  if (!first) return;
  first.scrollIntoView({ block: "center" });
  if (first.matches("input, select, textarea")) first.focus();
}

// Simple controls.
export function input(type, attributes = {}) {
  return el("input", { type, ...attributes });
}

export function choice(values, words, attributes = {}) {
  return el("select", attributes, values.map((v) => el("option", { value: v }, words(v))));
}

export function textarea(attributes = {}) {
  return el("textarea", { rows: 2, maxlength: 2000, ...attributes });
}

// Required fields left empty: {field: words}.
export function required(parts, names) {
  const errors = {};
  for (const name of names) if (parts.value(name) === "") errors[name] = t("admin.required");
  return errors;
}

// Days as the city's calendar counts them (YYYY-MM-DD).
export function today(zone) {
  return toLocalInput(new Date().toISOString(), zone).slice(0, 10);
}

export function addDays(day, n) {
  const at = new Date(`${day}T00:00:00Z`);
  at.setUTCDate(at.getUTCDate() + n);
  return at.toISOString().slice(0, 10);
}

export function daysBetween(from, to) {
  return Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000);
}
