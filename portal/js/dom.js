// Building the page: elements, the message box, buttons that run once at a time, and lists
// that are tables on a wide screen and cards on a phone. Text from the API is only ever set as
// text, never as HTML.
import { problemText } from "./problems.js";

export function el(tag, attributes = {}, ...children) {
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

export function svg(tag, attributes = {}, ...children) {
  const node = document.createElementNS("http://www.w3.org/2000/svg", tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value !== null && value !== undefined) node.setAttribute(name, value);
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

export function show(message, kind = "info") {
  const box = document.getElementById("message");
  box.textContent = message || "";
  box.className = `message ${kind}`;
  box.hidden = !message;
}

export function report(error) {
  if (error && error.status === 401) return; // signed out already, and told
  show(problemText(error), "error");
}

// A button that runs `run` once at a time, and shows what went wrong.
export function action(label, run, attributes = {}) {
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

// A list: a table on a wide screen; on a phone each row is a card, its `key` fields on top and
// each value under its heading (portal.css). columns: [heading, row => text or node, class?, key?]
export function table(caption, columns, rows) {
  const body = el("tbody");
  const grid = el("table", { class: "list" },
    el("caption", {}, caption),
    el("thead", {}, el("tr", {}, columns.map(([heading, , cls]) => el("th", { scope: "col", class: cls }, heading)))),
    body);
  const add = (more) => body.append(...more.map((row) => el("tr", {},
    columns.map(([heading, cell, cls, key]) => el("td", {
      class: [cls, key ? "key" : null].filter(Boolean).join(" ") || null, "data-label": heading,
    }, cell(row) ?? "")))));
  add(rows);
  return { grid: el("div", { class: "scroll" }, grid), add };
}

// A field with its label; `input` is the control.
export function field(label, input, hint) {
  const id = input.id;
  return el("div", { class: "field" }, el("label", { for: id }, label), input,
    hint ? el("span", { class: "small", id: `${id}-hint` }, hint) : null);
}

// The keys of a tab list (WAI-ARIA): arrows to the previous or next tab, Home and End to the
// first and last; the tab reached is chosen.
export function tabKeys(tabs) {
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
}
