// The driver's sign-in, kept on the phone (IndexedDB) so that filings signed offline can be sent
// after the tab closes: an access token, refreshed with its one-use refresh token under a lock,
// so that two tabs never spend the same refresh token (which would end the sign-in).
import { PORTAL_CLIENT, endSignIn, finishSignIn, startSignIn } from "../person.js";
import { forget, keep, kept } from "./store.js";

export const HOME = "/portal/driver/";

export class SignedOut extends Error {}

export const signIn = () => startSignIn(HOME);

async function begin(token, name) {
  const session = {
    name, token: token.access_token, refreshToken: token.refresh_token,
    expiresAt: Date.now() + (token.expires_in - 30) * 1000,
  };
  await keep("session", session);
  return session;
}

// The session on this phone: the sign-in the address brings back, or the one kept.
export async function current() {
  const answer = await finishSignIn(HOME);
  if (answer) return begin(answer.token, answer.name);
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
      body: new URLSearchParams({ grant_type: "refresh_token", refresh_token: session.refreshToken, client_id: PORTAL_CLIENT }),
    });
    if (response.status === 400 || response.status === 401) {
      await forget("session");
      throw new SignedOut();
    }
    if (!response.ok) throw new Error(`${response.status} ${response.statusText}`);
    return begin(await response.json(), session.name);
  });
}

// A request with the session's token, refreshed when it has run out. A network failure
// throws a TypeError, as fetch does; an ended sign-in, SignedOut.
export async function call(path, init = {}) {
  let session = await fresh();
  for (let attempt = 0; ; attempt++) {
    const response = await fetch(path, {
      ...init,
      credentials: "omit",
      headers: { ...(init.headers || {}), Authorization: `Bearer ${session.token}`, Accept: "application/json" },
    });
    if (response.status !== 401) return response;
    if (attempt) throw new SignedOut();
    session = await fresh(session.token);
  }
}

export async function signOut() {
  const session = await kept("session");
  await forget("session");
  await forget("day");
  if (session) await endSignIn(session);
}
