// The driver's service worker: it keeps the app's own files, so the app starts with no signal.
// Each file is asked of the network first (a new version is taken as soon as it is there) and
// read from the cache when the network does not answer in time. The API is never cached here:
// the day's stops and the filings are the app's, in IndexedDB.
const CACHE = "fogx-driver-shell-v1";
const SHELL = [
  "/portal/driver/",
  "/portal/driver/app.js",
  "/portal/driver/checks.js",
  "/portal/driver/day.js",
  "/portal/driver/form.js",
  "/portal/driver/scans.js",
  "/portal/driver/send.js",
  "/portal/driver/session.js",
  "/portal/driver/store.js",
  "/portal/driver/words.js",
  "/portal/driver/driver.css",
  "/portal/driver/manifest.webmanifest",
  "/portal/driver/icon-192.png",
  "/portal/driver/icon-512.png",
  "/portal/favicon.svg",
  "/portal/person.js",
  "/portal/js/api.js",
  "/portal/js/dom.js",
  "/portal/js/field-errors.js",
  "/portal/js/i18n.js",
  "/portal/js/problems.js",
  "/portal/js/time.js",
];
const PATIENCE_MS = 4000;

self.addEventListener("install", (event) => {
  event.waitUntil(caches.open(CACHE).then((cache) => cache.addAll(SHELL)).then(() => self.skipWaiting()));
});

self.addEventListener("activate", (event) => {
  event.waitUntil(caches.keys()
    .then((names) => Promise.all(names.filter((name) => name.startsWith("fogx-driver-") && name !== CACHE).map((name) => caches.delete(name))))
    .then(() => self.clients.claim()));
});

async function fresh(request) {
  const cache = await caches.open(CACHE);
  const key = new URL(request.url).pathname;
  try {
    const response = await Promise.race([
      fetch(request),
      new Promise((_, reject) => setTimeout(() => reject(new Error("no answer in time")), PATIENCE_MS)),
    ]);
    if (response.ok) await cache.put(key, response.clone());
    return response;
  } catch (error) {
    const kept = await cache.match(key);
    if (kept) return kept;
    throw error;
  }
}

self.addEventListener("fetch", (event) => {
  const url = new URL(event.request.url);
  if (event.request.method !== "GET" || url.origin !== location.origin || !SHELL.includes(url.pathname)) return;
  event.respondWith(fresh(event.request));
});
