// Signing a person in: the authorization code grant with PKCE (S256), the portal being a public,
// first-party app (`fogx-portal`). The verifier waits in this tab's sessionStorage for the answer.
export const PORTAL_CLIENT = "fogx-portal";
export const DRIVER_CLIENT = "fogx-driver"; // the driver's phone app: its sign-in lasts a working day
const PENDING = "fogx.portal.authorization";
const SCOPE = "openid profile email manifests:write manifests:read records:read audit:read registry:write receipts:write maintenance:write corrections:review";

function base64url(bytes) {
  return btoa(String.fromCharCode(...bytes)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

// `home`: the page the sign-in comes back to (the portal, or the driver's app).
function redirectUri(home) {
  return `${location.origin}${home}`;
}

export async function startSignIn(home = "/portal/", client = PORTAL_CLIENT) {
  const verifier = base64url(crypto.getRandomValues(new Uint8Array(48)));
  const state = base64url(crypto.getRandomValues(new Uint8Array(16)));
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier));
  sessionStorage.setItem(PENDING, JSON.stringify({ verifier, state }));
  const query = new URLSearchParams({
    response_type: "code", client_id: client, redirect_uri: redirectUri(home), scope: SCOPE, state,
    code_challenge: base64url(new Uint8Array(digest)), code_challenge_method: "S256",
    ui_locales: document.documentElement.lang || "en", // the sign-in page in the person's language
  });
  location.assign(`/oauth/authorize?${query}`);
}

// The answer the sign-in pages sent back in the address: the token and the person's name, or
// null where the address holds no answer.
export async function finishSignIn(home = "/portal/", client = PORTAL_CLIENT) {
  const params = new URLSearchParams(location.search);
  if (!params.has("code") && !params.has("error")) return null;
  const pending = JSON.parse(sessionStorage.getItem(PENDING) || "null");
  // A sign-in another program started (a terminal's, say) is left in the address for it to take.
  if (!pending || params.get("state") !== pending.state) {
    throw new Error("That sign-in was not started on this page: the program that started it takes the address above.");
  }
  sessionStorage.removeItem(PENDING);
  history.replaceState(null, "", home);
  if (params.has("error")) {
    throw new Error(params.get("error") === "access_denied" ? "Sign-in was cancelled."
      : `Sign-in failed: ${params.get("error_description") || params.get("error")}`);
  }
  const response = await fetch("/oauth/token", {
    method: "POST",
    credentials: "omit",
    body: new URLSearchParams({
      grant_type: "authorization_code", code: params.get("code"), redirect_uri: redirectUri(home),
      code_verifier: pending.verifier, client_id: client,
    }),
  });
  if (!response.ok) throw new Error("Sign-in failed; sign in again.");
  const token = await response.json();
  const who = await fetch("/oauth/userinfo", { credentials: "omit", headers: { Authorization: `Bearer ${token.access_token}` } });
  const claims = who.ok ? await who.json() : {};
  return { token, name: claims.name || claims.email || "you", sub: claims.sub || claims.email || null };
}

// A new access token (and the next refresh token: each is used once) for a sign-in, or null
// where the sign-in has ended.
export async function renewSignIn(refreshToken) {
  try {
    const response = await fetch("/oauth/token", {
      method: "POST",
      credentials: "omit",
      body: new URLSearchParams({ grant_type: "refresh_token", refresh_token: refreshToken, client_id: PORTAL_CLIENT }),
    });
    return response.ok ? await response.json() : null;
  } catch {
    return null;
  }
}

// Ends the sign-in by revoking its refresh token (RFC 7009), which ends every access and
// refresh token it issued; the portal is a public app, so its client id is all it sends.
// `keepalive` lets the revocation finish should the page be closed at once.
export async function endSignIn(session, client = PORTAL_CLIENT) {
  const token = session.refreshToken || session.token;
  await fetch("/oauth/revoke", {
    method: "POST",
    credentials: "omit",
    keepalive: true,
    body: new URLSearchParams({
      token, token_type_hint: session.refreshToken ? "refresh_token" : "access_token", client_id: client,
    }),
  }).catch(() => {});
}
