// The service worker: the whole site precached under one versioned cache, so after one visit
// Loop Lab loads and runs lessons with the network off. A new build has a new VERSION (a hash
// of everything it serves): it installs its cache beside the old one and deletes the old one
// when it takes over. Requests to other origins (a live model) are never touched.
// The heavy extras (the openai SDK's wheels, the local model's engine: LAZY) are not precached: the worker loads them only
// when a run needs them, and they are kept in the same cache from that first use on.
//
// Isolation on any host: the page and Python's worker need `Cross-Origin-Opener-Policy` and
// `Cross-Origin-Embedder-Policy` to be cross-origin isolated (shared memory: Stop interrupts
// Python, approvals pause a run). A host that cannot send them (GitHub Pages, a plain static
// server) still gets them: this worker adds them to the page and the worker script it serves,
// so from the second load on the page is isolated (isolation.js reloads once on a first visit).
// The worker script also gets its own Content-Security-Policy as a header (a <meta> policy does
// not reach a worker, and the header is the only way a static host can give it one): the page's,
// with connect-src only the site and the live endpoint's origin the page names in the script's
// address (worker.js?connect=<origin>), and no worker of its own. It replaces whatever policy
// the response had (the precached copy has the one without an endpoint).

const VERSION = "__VERSION__";
const CACHE = `looplab-${VERSION}`;
const PRECACHE = ["__PRECACHE__"];
const LAZY = new Set(["__LAZY__"].map((path) => new URL(path, self.location).pathname));
const WORKER_POLICY = "__CSP__";
const WORKER_SCRIPT = "__WORKER__"; // Python's worker (build.json's `worker`): its headers are added below
// An origin and nothing else: no path, no spaces, no ";" or "," that could add to the policy.
const ORIGIN = /^https?:\/\/(?:[a-z0-9-]+(?:\.[a-z0-9-]+)*|\[[0-9a-f:.]+\])(?::\d{1,5})?$/i;

/** The worker's policy for its script's address: the endpoint's origin appended to connect-src
 * (the policy's last directive). The same rule as looplab/_course/serve.py's worker_policy. */
function workerPolicy(url) {
  const wanted = new URL(url).searchParams.get("connect") || "";
  return ORIGIN.test(wanted) ? `${WORKER_POLICY} ${wanted}` : WORKER_POLICY;
}

const ISOLATION = {
  "Cross-Origin-Opener-Policy": "same-origin",
  "Cross-Origin-Embedder-Policy": "require-corp", // every file is this site's own; a live model's requests are CORS
};

// Static routing (InstallEvent.addRoutes, Chromium 123+; a named cache as the source since 131):
// the browser answers the precached files straight from this build's cache, without starting this
// worker or running its fetch handler — on a warm visit every request the page and Python's worker
// make was a round trip through this worker's thread. Pyodide's wasm too: Chromium keeps no compiled
// code for it (a start makes no optimised code, the only kind it caches), so the HTTP cache's copy
// gave nothing the cache's does not, and the route saved 18-34 ms of a warm start (medians of 8
// fresh profiles, twice). Left to the handler: the page itself and Python's worker script (they
// get headers added), the lazy files (kept on first use) and any address with a query (the
// handler ignores it). A file missing from the cache goes to the network. Where the API is missing
// or refuses the rules, the fetch handler serves everything as before.
function routes() {
  const special = /[\\:*?+(){}]/g; // URLPattern's syntax characters, matched literally
  const paths = PRECACHE.filter((path) => path !== "./" && path !== WORKER_SCRIPT).map((path) => ({
    pathname: new URL(path, self.location).pathname.replace(special, "\\$&"),
    search: "",
  }));
  return [{ condition: { or: paths.map((pattern) => ({ urlPattern: pattern })) }, source: { cacheName: CACHE } }];
}

async function addRoutes(event) {
  if (typeof event.addRoutes !== "function" || typeof URLPattern !== "function") return;
  try {
    await event.addRoutes(routes());
  } catch {
    // an older router (no cacheName, no `or`): the fetch handler serves everything
  }
}

self.addEventListener("install", (event) => {
  const routed = addRoutes(event); // while the event is being dispatched, as the API asks
  event.waitUntil(
    (async () => {
      const cache = await caches.open(CACHE);
      await cache.addAll(PRECACHE);
      await routed;
      await self.skipWaiting();
    })(),
  );
});

self.addEventListener("activate", (event) => {
  event.waitUntil(
    (async () => {
      for (const name of await caches.keys()) {
        if (name.startsWith("looplab-") && name !== CACHE) await caches.delete(name);
      }
      await self.clients.claim();
    })(),
  );
});

/** The page or a worker script with the isolation headers it lacks (what a host already sends is
 * kept), a worker script with its policy; every other file is passed on untouched. */
function withHeaders(request, response) {
  const page = request.mode === "navigate";
  if ((!page && request.destination !== "worker") || response.type === "opaque" || response.type === "error")
    return response;
  const missing = Object.entries(ISOLATION).filter(([name]) => !response.headers.has(name));
  if (!missing.length && page) return response;
  const headers = new Headers(response.headers);
  for (const [name, value] of missing) headers.set(name, value);
  if (!page) headers.set("Content-Security-Policy", workerPolicy(request.url));
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
}

self.addEventListener("fetch", (event) => {
  const request = event.request;
  const url = new URL(request.url);
  if (request.method !== "GET" || url.origin !== self.location.origin || url.pathname.includes("/bench/")) return;
  if (url.pathname.endsWith(".wasm")) {
    // A wasm the routes above do not serve (the local model's engine; Pyodide's where the browser
    // has no static routing), immutable (its version in the path): through the HTTP cache first,
    // where a browser that keeps compiled code for a wasm keys it. Offline with no HTTP copy, the
    // precache serves.
    event.respondWith(
      fetch(request)
        .then(async (response) => {
          // a lazy wasm (the local model's engine) is kept from its first use, for offline visits
          if (response.ok && LAZY.has(url.pathname))
            await caches.open(CACHE).then((cache) => cache.put(request, response.clone()));
          return response;
        })
        .catch(() => caches.match(request, { cacheName: CACHE })),
    );
    return;
  }
  event.respondWith(
    (async () => {
      const cache = await caches.open(CACHE);
      // an exact key: a match with ignoreSearch reads every entry of the cache (~100) to compare
      // (the worker script's address carries ?connect=, the page's a query of the page's own)
      const key = request.mode === "navigate" ? new URL("./", self.location).href : url.origin + url.pathname;
      const hit = await cache.match(key);
      if (hit) return withHeaders(request, hit);
      const response = await fetch(request);
      if (response.ok && LAZY.has(url.pathname)) await cache.put(request, response.clone());
      return withHeaders(request, response);
    })(),
  );
});

// Test connection asks whether anything answers at a URL, when the page's own request failed:
// a no-cors request reaches the server even when it does not allow this origin (CORS), so
// "reachable" here means the server is up and refused the page.
self.addEventListener("message", (event) => {
  const message = event.data || {};
  // Only the page asks (never Python's worker: its requests stay under its own policy).
  if (message.type !== "probe" || !event.ports[0] || !event.source || event.source.type !== "window") return;
  const port = event.ports[0];
  // Served with COEP (some hosts add it to every file), this worker's no-cors request would be
  // blocked whatever the server does: then it cannot tell, and says so.
  if (self.crossOriginIsolated) return port.postMessage({ reachable: null });
  fetch(message.url, { mode: "no-cors", credentials: "omit", cache: "no-store" }).then(
    () => port.postMessage({ reachable: true }),
    () => port.postMessage({ reachable: false }),
  );
});
