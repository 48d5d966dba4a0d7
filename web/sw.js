// The service worker: the whole site precached under one versioned cache, so after one visit
// Loop Lab loads and runs lessons with the network off. A new build has a new VERSION (a hash
// of everything it serves): it installs its cache beside the old one and deletes the old one
// when it takes over. Requests to other origins (a live model) are never touched.
// The heavy extras (the openai SDK's wheels, the local model's engine: LAZY) are not precached: the worker loads them only
// when a run needs them, and they are kept in the same cache from that first use on.

const VERSION = "__VERSION__";
const CACHE = `looplab-${VERSION}`;
const PRECACHE = ["__PRECACHE__"];
const LAZY = new Set(["__LAZY__"].map((path) => new URL(path, self.location).pathname));

self.addEventListener("install", (event) => {
  event.waitUntil((async () => {
    const cache = await caches.open(CACHE);
    await cache.addAll(PRECACHE);
    await self.skipWaiting();
  })());
});

self.addEventListener("activate", (event) => {
  event.waitUntil((async () => {
    for (const name of await caches.keys()) {
      if (name.startsWith("looplab-") && name !== CACHE) await caches.delete(name);
    }
    await self.clients.claim();
  })());
});

self.addEventListener("fetch", (event) => {
  const request = event.request;
  const url = new URL(request.url);
  if (request.method !== "GET" || url.origin !== self.location.origin || url.pathname.includes("/bench/")) return;
  if (url.pathname.endsWith(".wasm")) {
    // Pyodide's wasm (immutable, its version in the path) through the HTTP cache first: the
    // browser then reuses the code it compiled last time, which it does not for a response from
    // the Cache API (measured by bench/startup.py). Offline with no HTTP copy, the precache serves.
    event.respondWith(fetch(request).then(async (response) => {
      // a lazy wasm (the local model's engine) is kept from its first use, for offline visits
      if (response.ok && LAZY.has(url.pathname)) await caches.open(CACHE).then((cache) => cache.put(request, response.clone()));
      return response;
    }).catch(() => caches.match(request, { cacheName: CACHE })));
    return;
  }
  event.respondWith((async () => {
    const cache = await caches.open(CACHE);
    const key = request.mode === "navigate" ? new URL("./", self.location).href : request;
    const hit = await cache.match(key, { ignoreSearch: true });
    if (hit) return hit;
    const response = await fetch(request);
    if (response.ok && LAZY.has(url.pathname)) await cache.put(request, response.clone());
    return response;
  })());
});

// Test connection asks whether anything answers at a URL, when the page's own request failed:
// a no-cors request reaches the server even when it does not allow this origin (CORS), so
// "reachable" here means the server is up and refused the page.
self.addEventListener("message", (event) => {
  const message = event.data || {};
  if (message.type !== "probe" || !event.ports[0]) return;
  const port = event.ports[0];
  // Served with COEP (some hosts add it to every file), this worker's no-cors request would be
  // blocked whatever the server does: then it cannot tell, and says so.
  if (self.crossOriginIsolated) return port.postMessage({ reachable: null });
  fetch(message.url, { mode: "no-cors", credentials: "omit", cache: "no-store" })
    .then(() => port.postMessage({ reachable: true }), () => port.postMessage({ reachable: false }));
});
