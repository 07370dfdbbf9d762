// What the phone keeps in IndexedDB, so that nothing is lost when the tab closes or the phone
// restarts: the sign-in, the day's stops, and each filing (its manifest, Idempotency-Key, scans
// as blobs, and what the exchange answered).
const NAME = "fogx-driver";

let opened = null;

function database() {
  opened ||= new Promise((resolve, reject) => {
    const request = indexedDB.open(NAME, 1);
    request.onupgradeneeded = () => {
      request.result.createObjectStore("kept");
      request.result.createObjectStore("filings", { keyPath: "id" });
    };
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });
  return opened;
}

async function read(store, ask) {
  const request = ask((await database()).transaction(store, "readonly").objectStore(store));
  return new Promise((resolve, reject) => {
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });
}

// Resolves once the transaction is committed: a filing said to be kept is on the disk.
async function write(store, change) {
  const transaction = (await database()).transaction(store, "readwrite", { durability: "strict" });
  change(transaction.objectStore(store));
  return new Promise((resolve, reject) => {
    transaction.oncomplete = () => resolve();
    transaction.onerror = transaction.onabort = () => reject(transaction.error);
  });
}

export const kept = (key) => read("kept", (s) => s.get(key));
export const keep = (key, value) => write("kept", (s) => s.put(value, key));
export const forget = (key) => write("kept", (s) => s.delete(key));

// Every filing, in the order it was signed.
export async function filings() {
  return (await read("filings", (s) => s.getAll())).sort((a, b) => a.seq - b.seq);
}

export const saveFiling = (filing) => write("filings", (s) => s.put(filing));
export const dropFilings = (ids) => write("filings", (s) => ids.forEach((id) => s.delete(id)));

const KEPT_FOR_MS = 7 * 86_400_000; // a filed filing, with its scans, is kept on the phone a week

// Filed filings older than a week go, with their photos and pages: the phone's storage does not grow.
export async function prune() {
  const old = (await filings()).filter((f) => f.state === "filed" && Date.now() - Date.parse(f.filedAt || f.signedAt) > KEPT_FOR_MS);
  if (old.length) await dropFilings(old.map((f) => f.id));
  return old.length;
}

// Asks the browser to keep this site's storage under pressure (where it grants it).
export async function persist() {
  if (!navigator.storage?.persist) return false;
  return (await navigator.storage.persisted()) || navigator.storage.persist();
}
