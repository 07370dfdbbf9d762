// The API as the portal calls it: the signed-in session (its token kept in this tab's
// sessionStorage alone), requests with its bearer token, pages, downloads, and signing out.
// A person's short-lived access token is renewed with the refresh token while the tab is used.
import { endSignIn, renewSignIn } from "../person.js";
import { el, show } from "./dom.js";
import { use } from "./i18n.js";

const KEPT = "fogx.portal.session";
export const ENDED = "Your session has ended. Sign in again.";
export const KEPT_DRAFT = "What you were typing is kept in this tab until you sign in again.";
// A tab nobody has used for this long renews nothing: its sign-in ends at the access token's end.
// The server holds the same limit (SESSION_IDLE_SECONDS), so a copied refresh token ends too.
export const IDLE_MS = 60 * 60 * 1000;

let current = null; // {clientId (a person's name), person, token, refreshToken, expiresAt, scopes, usedAt}
let renewing = null; // the one renewal under way: a refresh token is used once

export class ApiError extends Error {
  constructor(message, status, body = null) {
    super(message);
    this.status = status;
    this.body = body;
  }
}

export function session() {
  return current;
}

function tokens(token) {
  return {
    token: token.access_token, refreshToken: token.refresh_token,
    expiresAt: Date.now() + (token.expires_in - 30) * 1000, scopes: (token.scope || "").split(" "),
  };
}

export function begin(token, clientId, person = false) {
  current = { clientId, person, ...tokens(token), usedAt: Date.now() };
  sessionStorage.setItem(KEPT, JSON.stringify(current));
}

// The person pressed a key or pointed in the tab: the sign-in is in use (noted once a minute).
// An access token run out meanwhile is renewed now: the server ends a sign-in not renewed for
// the idle limit (SESSION_IDLE_SECONDS), however long a form takes to type without a request.
function used() {
  if (current && Date.now() - (current.usedAt || 0) > 60_000) {
    current.usedAt = Date.now();
    sessionStorage.setItem(KEPT, JSON.stringify(current));
    if (Date.now() >= current.expiresAt) renewed(current).catch(() => false);
  }
}
for (const kind of ["keydown", "pointerdown"]) addEventListener(kind, used, { capture: true, passive: true });

// A new access token for a sign-in in use, by its refresh token: whether there is one now.
function renewed(session) {
  if (!session.refreshToken || Date.now() - (session.usedAt || 0) > IDLE_MS) return Promise.resolve(false);
  renewing ??= renewSignIn(session.refreshToken).then((token) => {
    if (!token || current !== session) return false;
    Object.assign(session, tokens(token));
    sessionStorage.setItem(KEPT, JSON.stringify(session));
    return true;
  }).finally(() => { renewing = null; });
  return renewing;
}

// A sign-in that ended on its own: the forms being typed are kept for the next sign-in.
function ended(session) {
  if (current !== session) return;
  const ending = new CustomEvent("fogx:session-ended", { detail: { owner: session.clientId, kept: 0 } });
  document.dispatchEvent(ending);
  signedOut(ending.detail.kept ? `${ENDED} ${KEPT_DRAFT}` : ENDED);
}

export function resume() {
  try {
    const kept = JSON.parse(sessionStorage.getItem(KEPT));
    if (kept && kept.token && (Date.now() < kept.expiresAt || kept.refreshToken)) current = kept;
  } catch {
    sessionStorage.removeItem(KEPT);
  }
  return current;
}

export async function problem(response) {
  let text = `${response.status} ${response.statusText}`;
  let body = null;
  try {
    body = await response.json();
    if (body.title) {
      // A field's errors say more than "see `errors`".
      const fields = Object.entries(body.errors || {}).map(([name, messages]) => `${name}: ${[].concat(messages).join(" ")}`);
      text = fields.length ? `${body.title}. ${fields.join("; ")}` : [body.title, body.detail].filter(Boolean).join(". ");
    } else if (body.error) {
      text = body.error_description || body.error;
    }
  } catch {
    // not JSON: the status says it
  }
  return new ApiError(text, response.status, body);
}

// A request with the session's token; `init` as fetch's (method, body, headers).
export async function request(path, params = {}, accept = "application/json", init = {}) {
  const session = current;
  // Signed out while a view was still loading: the sign-out said so; nothing more to tell.
  if (!session) throw new ApiError(ENDED, 401);
  if (Date.now() >= session.expiresAt && !(await renewed(session))) {
    ended(session);
    throw new ApiError(ENDED, 401);
  }
  const url = new URL(path, location.origin);
  for (const [name, value] of Object.entries(params)) {
    if (value !== "" && value !== null && value !== undefined) url.searchParams.set(name, value);
  }
  const send = () => fetch(url, {
    ...init,
    credentials: "omit",
    headers: { ...(init.headers || {}), Authorization: `Bearer ${session.token}`, Accept: accept },
  });
  const sent = session.token;
  let response = await send();
  // Refused as expired (the server's clock is the one that counts): renewed once, and sent again.
  if (response.status === 401 && current === session && (session.token !== sent || await renewed(session))) {
    response = await send();
  }
  if (response.status === 401) {
    ended(session);
    throw new ApiError(ENDED, 401);
  }
  if (!response.ok) throw await problem(response);
  return response;
}

export async function getJson(path, params) {
  return (await request(path, params)).json();
}

// A POST of JSON (an object) or of a multipart form (a FormData): {status, body}.
export async function post(path, body) {
  const json = !(body instanceof FormData);
  const response = await request(path, {}, "application/json", {
    method: "POST",
    body: json ? JSON.stringify(body) : body,
    headers: json ? { "Content-Type": "application/json" } : {},
  });
  return { status: response.status, body: await response.json() };
}

// Every page of a registry list (at most 200 a page).
export async function everything(path, params = {}) {
  const items = [];
  let cursor = null;
  do {
    const page = await getJson(path, { ...params, limit: 200, cursor });
    items.push(...page.items);
    cursor = page.next_cursor;
  } while (cursor);
  return items;
}

function save(blob, name) {
  const link = el("a", { href: URL.createObjectURL(blob), download: name });
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(link.href), 60_000);
}

export async function download(path, params, accept) {
  const response = await request(path, params, accept);
  save(await response.blob(), filename(response));
}

// A cell a spreadsheet would run as a formula (led by = + - @, or a TAB or CR it skips) is
// quoted with a leading apostrophe, as the API's own CSV does; numbers stay numbers.
function unformula(text) {
  return /^[=+\-@\t\r]/.test(text) && !Number.isFinite(Number(text)) ? `'${text}` : text;
}

// A sheet made here, of rows the page already holds (RFC 4180 quoting).
export function downloadCsv(name, header, rows) {
  const cell = (value) => {
    const text = unformula(value === null || value === undefined ? "" : String(value));
    return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
  };
  const lines = [header, ...rows].map((row) => row.map(cell).join(","));
  save(new Blob([lines.join("\r\n") + "\r\n"], { type: "text/csv" }), name);
}

function filename(response) {
  const header = response.headers.get("Content-Disposition") || "";
  const encoded = /filename\*=UTF-8''([^;]+)/i.exec(header);
  if (encoded) return decodeURIComponent(encoded[1]);
  const plain = /filename="([^"]+)"/i.exec(header);
  return plain ? plain[1] : "fogx-download";
}

// Signing in with a program's client ID and secret. No credentials of the browser's: a
// refusal's `WWW-Authenticate: Basic` would otherwise have the browser ask for a password.
// Signing out ends the person's sign-in: every token it issued is revoked.
export async function signOut() {
  const ending = current;
  document.dispatchEvent(new CustomEvent("fogx:signed-out"));
  signedOut("You are signed out.");
  if (ending) await endSignIn(ending);
}

// The page with nobody signed in: the header names no one and offers no sign-out.
export function signedOut(message) {
  current = null;
  sessionStorage.removeItem(KEPT);
  document.getElementById("who").hidden = true;
  document.getElementById("who-name").textContent = "";
  document.getElementById("language-switch").hidden = true;
  use("en"); // the sign-in page is written in English
  document.getElementById("view").hidden = true;
  document.getElementById("view").replaceChildren();
  document.getElementById("sign-in").hidden = false;
  show(message, "info");
}
