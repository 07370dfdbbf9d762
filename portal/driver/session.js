// The driver's sign-in, kept on the phone (IndexedDB) so that filings signed offline can be sent
// after the tab closes: an access token, refreshed with its one-use refresh token under a lock,
// so that two tabs never spend the same refresh token (which would end the sign-in).
import { DRIVER_CLIENT, endSignIn, finishSignIn, startSignIn } from "../person.js";
import { noteClock } from "./clock.js";
import { forget, keep, kept } from "./store.js";

export const HOME = "/portal/driver/";

export class SignedOut extends Error {}

export const TIMEOUT_MS = 20_000; // a request with no answer by then is given up, to be tried again

export const signIn = () => startSignIn(HOME, DRIVER_CLIENT);

async function begin(token, name, sub) {
  const session = {
    name, sub, token: token.access_token, refreshToken: token.refresh_token,
    expiresAt: Date.now() + (token.expires_in - 30) * 1000,
  };
  await keep("session", session);
  return session;
}

// The session on this phone: the sign-in the address brings back, or the one kept.
export async function current() {
  const answer = await finishSignIn(HOME, DRIVER_CLIENT);
  if (answer) return begin(answer.token, answer.name, answer.sub);
  return (await kept("session")) || null;
}

async function fresh(stale = null) {
  return navigator.locks.request("fogx-driver-session", async () => {
    const session = await kept("session");
    if (!session) throw new SignedOut();
    if (session.token !== stale && Date.now() < session.expiresAt) return session;
    if (!session.refreshToken) throw new SignedOut();
    const response = await fetch("/oauth/token", {
      method: "POST",
      credentials: "omit",
      signal: AbortSignal.timeout(TIMEOUT_MS),
      body: new URLSearchParams({ grant_type: "refresh_token", refresh_token: session.refreshToken, client_id: DRIVER_CLIENT }),
    });
    if (response.status === 400 || response.status === 401) {
      await forget("session");
      throw new SignedOut();
    }
    if (!response.ok) throw new Error(`${response.status} ${response.statusText}`);
    return begin(await response.json(), session.name, session.sub);
  });
}

// A request with the session's token, refreshed when it has run out, given up after TIMEOUT_MS.
// A network failure throws a TypeError, as fetch does (a timeout, a DOMException); an ended
// sign-in, SignedOut. Each answer's Date header sets the clock's offset.
export async function call(path, init = {}) {
  let session = await fresh();
  for (let attempt = 0; ; attempt++) {
    const response = await fetch(path, {
      signal: AbortSignal.timeout(TIMEOUT_MS),
      ...init,
      credentials: "omit",
      headers: { ...(init.headers || {}), Authorization: `Bearer ${session.token}`, Accept: "application/json" },
    });
    noteClock(response);
    if (response.status !== 401) return response;
    if (attempt) throw new SignedOut();
    session = await fresh(session.token);
  }
}

export async function signOut() {
  const session = await kept("session");
  await forget("session");
  await forget("day");
  if (session) await endSignIn(session, DRIVER_CLIENT);
}
