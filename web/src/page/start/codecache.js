// Pyodide's two JavaScript modules (pyodide.mjs and pyodide.asm.mjs, 1.3 MB) run once more right
// after this site's service worker first takes over, in a worker that starts no Python, so the
// browser keeps their compiled code beside the service worker's copies for the next visit.
//
// Chromium keeps a module's compiled code only from its first run out of the service worker's
// cache. Without this, the first visit ran them before the service worker existed, and the second
// visit compiled pyodide.asm.mjs afresh: 49 ms of the Python worker's thread, on its way to ready,
// and 8 ms more to keep the code. Only the third visit was spared. Measured here: the second
// visit's start 458 -> 435 ms (median of 7 fresh profiles each). The cost is one short-lived
// worker, about 80 ms of a core, once, in idle time after the service worker took over.
// A page that a new build's service worker takes over is left alone (its build's names may be
// gone from the new cache); the next visit keeps the code itself, for the visit after.

import { toWorker } from "../../shared/protocol.js";
import { workerScript } from "./workerpool.js";
import { thisVisit } from "./visit.js";

/** When this site's service worker first takes over the page (a first visit), warm the code cache. */
export function warmCodeOnTakeOver(build) {
  if (!("serviceWorker" in navigator) || thisVisit().warm || !build.indexURL) return;
  navigator.serviceWorker.addEventListener(
    "controllerchange",
    () => {
      if (self.requestIdleCallback) requestIdleCallback(() => warm(build), { timeout: 5000 });
      else setTimeout(() => warm(build), 1000);
    },
    { once: true },
  );
}

function warm(build) {
  const script = new URL(workerScript(build, { baseUrl: "" }));
  script.searchParams.set("warm", "code"); // no endpoint, no key: it never starts Python
  performance.mark("looplab:code-warm"); // begun (for tests and bench/startup.py)
  try {
    const worker = new Worker(script, { type: "module" });
    worker.onerror = (event) => event.preventDefault(); // nothing to report: the next visit compiles as before
    const at = (name) => new URL(`${build.indexURL}${name}`, document.baseURI).href;
    worker.postMessage(toWorker.warm([at("pyodide.mjs"), at("pyodide.asm.mjs")]));
  } catch {
    // (workers refused): nothing is lost but the time saved
  }
}
