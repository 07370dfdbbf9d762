// The driver's service worker: it keeps the app's own files, so the app starts with no signal.
// Each file is served from the cache first (a bad connection does not delay the start) and
// asked of the network in the background: a new version is taken at the next start. The API is
// never cached here: the day's stops and the filings are the app's, in IndexedDB.
const CACHE = "fogx-driver-shell-v2";
const SHELL = [
  "/portal/driver/",
  "/portal/driver/app.js",
  "/portal/driver/checks.js",
  "/portal/driver/clock.js",
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
self.addEventListener("install", (event) => {
  event.waitUntil(caches.open(CACHE).then((cache) => cache.addAll(SHELL)).then(() => self.skipWaiting()));
});

self.addEventListener("activate", (event) => {
  event.waitUntil(caches.keys()
    .then((names) => Promise.all(names.filter((name) => name.startsWith("fogx-driver-") && name !== CACHE).map((name) => caches.delete(name))))
    .then(() => self.clients.claim()));
});

// The kept file at once, and the network's in the background for the next start; the network's
// only where nothing is kept yet.
async function kept(event) {
  const cache = await caches.open(CACHE);
  const key = new URL(event.request.url).pathname;
  const update = fetch(event.request).then(async (response) => {
    if (response.ok) await cache.put(key, response.clone());
    return response;
  });
  const copy = await cache.match(key);
  if (copy) {
    event.waitUntil(update.catch(() => null));
    return copy;
  }
  return update;
}

self.addEventListener("fetch", (event) => {
  const url = new URL(event.request.url);
  if (event.request.method !== "GET" || url.origin !== location.origin || !SHELL.includes(url.pathname)) return;
  event.respondWith(kept(event));
});
