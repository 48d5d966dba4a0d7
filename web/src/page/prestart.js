// Python's first worker, started by the page's first script: the build bundles this file and writes
// it into index.html's <head> (the page's policy allows it by its hash: scripts/build_site.py), so
// the worker fetches, compiles and restores Python while the page is still parsed and laid out,
// not from the app's entry (boot.js, early.js), which runs only after the first layout. early.js's
// pool takes this worker (workerpool.js) and sends it init: the key and the shared buffers come
// only then, and only then looplab starts and runs may come.
//
// Only on a cross-origin isolated page (one that is not may reload to become so: isolation.js) and
// not when the address asks for another start (?early=off, ?snapshot=...). The worker's address
// names the endpoint's origin exactly as the pool's would (its policy lets Python reach that
// origin); a pool that wants another address ends this worker and starts its own.

import { Settings } from "./settings.js";
import { workerScript } from "./workerpool.js";
import { toWorker } from "../shared/protocol.js";

/* global PRESTART */ // the build's names, written in by scripts/build_site.py: build.json's worker, version, indexURL, prefetch, wheel, snapshot

function prestart(build) {
  if (!self.crossOriginIsolated || /[?&](early=off|snapshot=)/.test(location.search)) return null;
  const script = workerScript(build, new Settings().endpoint());
  const worker = new Worker(script, { type: "module" });
  const started = { worker, script, failed: null };
  // a script that did not load is reported by the pool's own worker instead (workerpool.js)
  worker.onerror = (event) => {
    event.preventDefault();
    started.failed = event.message || "unknown error";
  };
  const absolute = (path) => new URL(path, document.baseURI).href;
  worker.postMessage(toWorker.prefetch({ ...build, indexURL: absolute(build.indexURL), lockFileURL: absolute(build.lockFileURL) }));
  performance.mark("looplab:prestart");
  return started;
}

try {
  self.looplabPrestarted = prestart(PRESTART);
} catch {
  self.looplabPrestarted = null; // (storage or workers refused): early.js starts the worker as before
}
