// What this visit is, read once and only here: whether the page is cross-origin isolated with shared
// memory (Stop as an interrupt, Python waiting for the page's answer; asked of shared/gaps.js, which
// the worker shares), whether it is warm (a visit
// after the first: this site's service worker controls the page and serves its files from the
// origin's cache), and the address's switches, which bend the start for a test or a bench
// (README.md here lists them). DOM-free: tests/site/test_start_readme.py runs readVisit in Node.js.

import { noSharedMemory } from "../../shared/gaps.js";

/** The switches and the values each takes; the first is the visit's without the switch (or with
 * a value not listed). */
export const SWITCHES = {
  early: ["on", "off"], // off: no worker before the app's Runner (bench/startup.py's "before")
  compile: ["page", "worker", "fail"], // who compiles Pyodide's wasm on a warm visit; fail: the page's compile fails
  snapshot: ["on", "off", "refuse"], // off: Python starts without the memory snapshot; refuse: it is spoilt
  spare: ["on", "off", "fail"], // off: no spare worker; fail: the spare's script is missing
  gpu: ["real", "any"], // any: the local model takes a software WebGPU adapter too
};

/**
 * The visit: {isolated, warm, early, compile, snapshot, spare, gpu}.
 * @param {{isolated?: boolean, controlled?: boolean, search?: string}} seen  cross-origin isolated
 *   with shared memory (shared/gaps.js), a service worker controls the page, location.search
 */
export function readVisit({ isolated = false, controlled = false, search = "" } = {}) {
  const query = new URLSearchParams(search);
  const visit = { isolated: Boolean(isolated), warm: Boolean(controlled) };
  for (const [name, values] of Object.entries(SWITCHES)) {
    const asked = query.get(name);
    visit[name] = values.includes(asked) ? asked : values[0];
  }
  return Object.freeze(visit);
}

let read = null;

/** This page's visit, read on the first call. (Each bundle reads it once: the inlined prestart.js,
 * the app, the local model's engine.) */
export function thisVisit() {
  read ??= readVisit({
    isolated: noSharedMemory() === null,
    controlled: Boolean(self.navigator && navigator.serviceWorker && navigator.serviceWorker.controller),
    search: self.location.search,
  });
  return read;
}
