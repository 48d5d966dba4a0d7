// Python's first worker, started by the page's first script: the build bundles this file and writes
// it into index.html's <head> (the page's policy allows it by its hash: scripts/build_site.py), so
// the worker restores Python while the page is still parsed and laid out (on a first visit, from its
// first paint: below), not from the app's entry (boot.js, early.js), which runs later. It hands the
// worker to the app through handoff.js; early.js's pool takes it (workerpool.js) and sends it init:
// the key and the shared buffers come only then, and only then looplab starts and runs may come.
// README.md here numbers the whole start.
//
// Only on a cross-origin isolated page (one that is not may reload to become so: isolation.js) and
// not when the address asks for another start (visit.js: ?early=off, ?snapshot=...). The worker's
// address names the endpoint's origin exactly as the pool's would (its policy lets Python reach that
// origin); a pool that wants another address ends this worker and starts its own.

import { Settings } from "../model/settings.js";
import { workerScript } from "./workerpool.js";
import { offer } from "./handoff.js";
import { thisVisit } from "./visit.js";
import { toWorker } from "../../shared/protocol.js";

/* global PRESTART */ // the build's names, written in by scripts/build_site.py: build.json's worker, version, indexURL, prefetch, wheel, snapshot

function prestart(build, visit) {
  if (!visit.isolated || visit.early === "off" || visit.snapshot !== "on") return null;
  const script = workerScript(build, new Settings().endpoint());
  const worker = new Worker(script, { type: "module" });
  const started = { worker, script, failed: null };
  // a script that did not load is reported by the pool's own worker instead (workerpool.js)
  worker.onerror = (event) => {
    event.preventDefault();
    started.failed = event.message || "unknown error";
  };
  const absolute = (path) => new URL(path, document.baseURI).href;
  const pageCompiles = visit.warm && visit.compile !== "worker";
  worker.postMessage(
    toWorker.prefetch(
      { ...build, indexURL: absolute(build.indexURL), lockFileURL: absolute(build.lockFileURL) },
      pageCompiles,
    ),
  );
  if (pageCompiles) {
    try {
      compileForWorker(worker, absolute(`${build.indexURL}pyodide.asm.wasm`), visit.compile === "fail");
    } catch {
      worker.postMessage(toWorker.module(null)); // (a browser without an API it uses): the worker compiles
    }
  }
  performance.mark("looplab:prestart");
  return started;
}

/**
 * On a visit after the first (this site's service worker controls the page), the page compiles
 * Pyodide's wasm and posts the Module to the worker (worker/start/startup.js). Compiling its 9.6 MB is
 * 50–100 ms of one thread with no code cache to reuse (Chromium keeps one only for optimised code,
 * and a start makes none), and the worker's thread is what a warm start waits on. Begun once the
 * first contentful paint is on screen (at once on a page nobody sees), so the prose never waits for
 * it. On a first visit the worker compiles as the bytes arrive, beside their download.
 * `?compile=worker` leaves it to the worker (the bench's "before"); `?compile=fail` makes the
 * page's compile fail (the test of the worker's fallback: it compiles its own).
 */
function compileForWorker(worker, wasmURL, fail) {
  let begun = false;
  const begin = () => {
    if (begun) return;
    begun = true;
    performance.mark("looplab:page-compile");
    const url = fail ? new URL("no-such.wasm", wasmURL) : wasmURL;
    WebAssembly.compileStreaming(fetch(url)).then(
      (module) => worker.postMessage(toWorker.module(module)),
      () => worker.postMessage(toWorker.module(null)),
    );
  };
  afterFirstPaint(begin);
}

/** `then()` once the first contentful paint is on screen (at once on a page nobody sees; after a
 * frame where paints are not reported). It may be called more than once: guard it. */
function afterFirstPaint(then) {
  if (document.visibilityState === "hidden") return then();
  document.addEventListener("visibilitychange", then, { once: true });
  if (!(PerformanceObserver.supportedEntryTypes || []).includes("paint"))
    return requestAnimationFrame(() => setTimeout(then, 0));
  new PerformanceObserver((list, observer) => {
    if (!list.getEntriesByName("first-contentful-paint").length) return;
    observer.disconnect();
    then();
  }).observe({ entryTypes: ["paint"] });
}

// A warm visit (this site's service worker controls the page) starts the worker now: it reads what
// it needs from the origin's own storage, and a warm start waits on it. A first visit starts it
// once the first prose is on screen: it downloads and compiles 17 MB, which on two cores held the
// first paint back (first prose 116 -> 95 ms, medians of 8 fresh profiles; the cold start 639 ->
// 653 ms, of 6). early.js's pool waits for `painted` too, then takes this worker; a second at
// most, should no paint be reported.
const visit = thisVisit();
// first: {worker, script, failed}, the worker started here until the app takes it; begun: started
// (or declined), once; taken: the app asked, so a first visit's later start is not wanted any more
const head = { first: null, begun: false, taken: false };
const start = () => {
  if (head.begun || head.taken) return;
  head.begun = true;
  try {
    head.first = prestart(PRESTART, visit);
  } catch {
    head.first = null; // (storage or workers refused): the app's pool starts the worker as before
  }
};
const painted = visit.warm
  ? Promise.resolve(start())
  : new Promise((resolve) => {
      const go = () => {
        start();
        resolve();
      };
      afterFirstPaint(go);
      setTimeout(go, 1000);
    });
offer({
  painted,
  take(script) {
    head.taken = true;
    const started = head.first;
    head.first = null;
    if (!started) return null;
    if (started.script === script && !started.failed) return started.worker;
    started.worker.terminate(); // for another endpoint, or its script did not load: the pool starts one
    return null;
  },
});
