// Sending what waits on the phone, oldest first, one tab at a time (a Web Lock): each filing is
// posted with its own Idempotency-Key (a retry after a lost answer files nothing twice), then
// each scan is put to its SHA-256. A filing the exchange refuses (4xx) stays with its reason;
// a network failure leaves it, and those after it, for the next attempt. A filing that meets a
// busy exchange (5xx) waits a while longer each time and the next stop's is tried meanwhile;
// a stop's own filings stay in order. Only the signed-in person's filings are sent.
import { problem } from "../js/api.js";
import { SignedOut, call } from "./session.js";
import { filings, saveFiling } from "./store.js";

const RETRY_LATER = new Set([401, 408, 425, 429]);
const refused = (status) => status >= 400 && status < 500 && !RETRY_LATER.has(status);
const BACKOFF_MS = [30_000, 60_000, 120_000, 300_000, 600_000]; // after each 5xx in a row
const UPLOAD_TIMEOUT_MS = 60_000; // a photo on a slow connection takes longer than a request

async function refuse(filing, response) {
  const reason = await problem(response);
  filing.state = "refused";
  filing.reason = reason.message;
  filing.errors = reason.body?.errors || {};
  filing.problem = reason.body; // its type, for the refusal in the person's words
  await saveFiling(filing);
}

// The manifest this phone filed already under the filing's number (its answer was lost, and
// the filing was then sent again with another body), null where the number is another's (the
// same stop, serviced from the same start, is this phone's), undefined where the exchange did
// not answer the question.
async function filedAlready(filing) {
  const { manifest, stop } = filing;
  const from = new Date(new Date(manifest.service_started_at).getTime() - 2 * 86_400_000).toISOString().slice(0, 10);
  const response = await call(`/v1/manifests?device_id=${stop.device_id}&from=${from}&limit=200`);
  if (!response.ok) return undefined;
  const { items } = await response.json();
  return items.find((m) => m.manifest_number === manifest.manifest_number
    && Date.parse(m.manifest.service_started_at) === Date.parse(manifest.service_started_at)) || null;
}

// One filing: "settled" (filed or refused), "later" (to try again, and those after it too), or
// "busy" (the exchange failed: this stop's filings wait, others may go).
async function send(filing) {
  if (filing.state === "waiting") {
    filing.sent = true; // from now on its answer may be lost: the manifest may be filed
    await saveFiling(filing);
    const response = await call("/v1/manifests", {
      method: "POST",
      headers: { "Content-Type": "application/json", "Idempotency-Key": filing.idempotencyKey },
      body: JSON.stringify(filing.manifest),
    });
    if (response.status === 409 && response.headers.has("Retry-After")) return "later"; // still being filed
    if (response.status === 409) {
      const filed = await filedAlready(filing);
      if (filed === undefined) return "later";
      if (!filed) {
        await refuse(filing, response);
        return "settled";
      }
      filing.receipt = filed;
      filing.adopted = true;
    } else if (refused(response.status)) {
      await refuse(filing, response);
      return "settled";
    } else if (response.status >= 500) {
      return "busy";
    } else if (!response.ok) {
      return "later";
    } else {
      filing.receipt = await response.json();
    }
    filing.state = "uploading";
    filing.failures = 0;
    await saveFiling(filing);
  }
  for (const scan of filing.scans) {
    if (scan.stored || scan.refused) continue;
    const response = await call(`/v1/manifests/${filing.receipt.id}/documents/${scan.sha256}`, {
      method: "PUT",
      headers: { "Content-Type": scan.blob.type, "Content-Disposition": `attachment; filename="${scan.name}"` },
      body: scan.blob,
      signal: AbortSignal.timeout(UPLOAD_TIMEOUT_MS),
    });
    if (refused(response.status)) {
      scan.refused = (await problem(response)).message;
    } else if (response.status >= 500) {
      return "busy";
    } else if (!response.ok) {
      return "later";
    } else {
      scan.stored = (await response.json()).id;
    }
    await saveFiling(filing);
  }
  filing.state = "filed";
  filing.filedAt = new Date().toISOString();
  await saveFiling(filing);
  return "settled";
}

// Whose filing: the person who signed it on this phone (an older filing, whoever is signed in).
export const mine = (filing, person) => !filing.person?.sub || !person?.sub || filing.person.sub === person.sub;

// Sends what waits, in order; `changed` runs after each filing is tried; `now`: the driver
// asked, so a filing the exchange failed is tried at once. Answers false when the network (or
// the exchange) is not there, true when nothing of the person's waits any more.
export async function sendWaiting(changed, person, now = false) {
  const ran = await navigator.locks.request("fogx-driver-send", { ifAvailable: true }, async (lock) => {
    if (!lock) return null;
    const held = new Set(); // stops whose earlier filing waits: theirs wait behind it
    let all = true;
    for (const filing of await filings()) {
      if (filing.state !== "waiting" && filing.state !== "uploading") continue;
      if (!mine(filing, person)) continue;
      const stop = filing.stop.device_id;
      if (held.has(stop) || (!now && Date.now() < (filing.retryAt || 0))) {
        held.add(stop);
        all = false;
        continue;
      }
      let outcome;
      try {
        outcome = await send(filing);
      } catch (error) {
        if (error instanceof SignedOut) throw error;
        outcome = "later"; // no network, or no answer in time: fetch threw
      }
      if (outcome === "busy") {
        filing.failures = (filing.failures || 0) + 1;
        filing.retryAt = Date.now() + BACKOFF_MS[Math.min(filing.failures, BACKOFF_MS.length) - 1];
        await saveFiling(filing);
        held.add(stop);
        all = false;
      }
      await changed();
      if (outcome === "later") return false;
    }
    return all;
  });
  return ran;
}
