// The phone's clock against the exchange's: each answer's Date header gives the offset, kept on
// the phone, so that a service time is stamped on the exchange's clock when the phone's is off.
import { keep, kept } from "./store.js";

export const WARN_MS = 2 * 60_000; // a clock off by more than this is shown on the stops page

let offset = null; // the exchange's clock minus the phone's, in ms; null until an answer says

export async function loadClock() {
  offset = (await kept("clock"))?.offset ?? offset;
}

// An answer's Date header (to the second) against the phone's clock when it came.
export function noteClock(response) {
  const server = Date.parse(response.headers.get("Date") || "");
  if (Number.isNaN(server)) return;
  const measured = server + 500 - Date.now(); // the header drops the milliseconds: half a second on average
  offset = Math.abs(measured) < 1500 ? 0 : measured;
  keep("clock", { offset, at: new Date().toISOString() }).catch(() => {});
}

export const clockOffset = () => offset;

// The time now on the exchange's clock where the offset is known, else the phone's.
export const now = () => new Date(Date.now() + (offset || 0));
