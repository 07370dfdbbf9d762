// Sending what waits on the phone, oldest first, one tab at a time (a Web Lock): each filing is
// posted with its own Idempotency-Key (a retry after a lost answer files nothing twice), then
// each scan is put to its SHA-256. A filing the exchange refuses (4xx) stays with its reason;
// a network failure or a busy exchange leaves it, and those after it, for the next attempt.
import { problem } from "../js/api.js";
import { SignedOut, call } from "./session.js";
import { filings, saveFiling } from "./store.js";

const RETRY_LATER = new Set([401, 408, 425, 429]);
const refused = (status) => status >= 400 && status < 500 && !RETRY_LATER.has(status);

async function refuse(filing, response) {
  const reason = await problem(response);
  filing.state = "refused";
  filing.reason = reason.message;
  filing.errors = reason.body?.errors || {};
  filing.problem = reason.body; // its type, for the refusal in the person's words
  await saveFiling(filing);
}

// One filing: true once it is settled (filed or refused), false to try again later.
async function send(filing) {
  if (filing.state === "waiting") {
    const response = await call("/v1/manifests", {
      method: "POST",
      headers: { "Content-Type": "application/json", "Idempotency-Key": filing.idempotencyKey },
      body: JSON.stringify(filing.manifest),
    });
    if (refused(response.status)) {
      await refuse(filing, response);
      return true;
    }
    if (!response.ok) return false;
    filing.receipt = await response.json();
    filing.state = "uploading";
    await saveFiling(filing);
  }
  for (const scan of filing.scans) {
    if (scan.stored) continue;
    const response = await call(`/v1/manifests/${filing.receipt.id}/documents/${scan.sha256}`, {
      method: "PUT",
      headers: { "Content-Type": scan.blob.type, "Content-Disposition": `attachment; filename="${scan.name}"` },
      body: scan.blob,
    });
    if (refused(response.status)) {
      scan.refused = (await problem(response)).message;
    } else if (!response.ok) {
      return false;
    } else {
      scan.stored = (await response.json()).id;
    }
    await saveFiling(filing);
  }
  filing.state = "filed";
  await saveFiling(filing);
  return true;
}

// Sends what waits, in order; `changed` runs after each filing settles. Answers false when the
// network (or the exchange) is not there, true when nothing waits any more.
export async function sendWaiting(changed) {
  const ran = await navigator.locks.request("fogx-driver-send", { ifAvailable: true }, async (lock) => {
    if (!lock) return null;
    for (const filing of await filings()) {
      if (filing.state !== "waiting" && filing.state !== "uploading") continue;
      let settled;
      try {
        settled = await send(filing);
      } catch (error) {
        if (error instanceof SignedOut) throw error;
        settled = false; // no network: fetch threw
      }
      await changed();
      if (!settled) return false;
    }
    return true;
  });
  return ran;
}
