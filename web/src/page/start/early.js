// Python's first worker, in a pool made by boot.js before the app bundle is evaluated (issue 23):
// the worker <head> started (prestart.js, handed over by handoff.js), or one started here; it
// fetches and restores while app.js is parsed and runs, and runner.js takes it when it loads.
// Made only when the page will not reload to isolate itself (a first visit on a host without
// COOP/COEP reloads once: isolation.js) and when build.json came. README.md here: steps 2 and 3.
//
// The key rule holds: the worker gets the endpoint and key in its init message (workerpool.js),
// read from storage as Settings reads them; the Runner uses it only while both are still those.

import { Settings } from "../model/settings.js";
import { WorkerPool } from "./workerpool.js";
import { willReload } from "./isolation.js";
import { foreignSource } from "../ui/storage.js";
import { receive } from "./handoff.js";
import { thisVisit } from "./visit.js";

/** Whether the address opens code from elsewhere that is still marked (a share link, or a lesson
 * whose saved code is): its first worker then holds no key (foreign.js realmOf; runner.js swaps
 * to a worker with the key for the learner's own code). A guess for speed only: runner.js checks
 * every run. */
function opensForeignCode(hash = location.hash) {
  if (/[?&]share=/.test(hash)) return true;
  try {
    const slug = decodeURIComponent(hash.replace(/^#\/?/, "").split("?")[0]);
    return Boolean(slug && foreignSource(slug));
  } catch {
    return false;
  }
}

const NOTHING = { painted: Promise.resolve(), take: () => null }; // what a <head> that started no worker hands over

/** build.json, fetched once for the page (main.js uses this one), its URLs made absolute. */
async function fetchBuild() {
  const response = await fetch("build.json", { cache: "no-cache" });
  if (!response.ok) throw new Error(`build.json: HTTP ${response.status}`);
  const build = await response.json();
  for (const key of ["indexURL", "lockFileURL"]) build[key] = new URL(build[key], document.baseURI).href;
  return build;
}

let started = null; // {build: Promise, pool: Promise<WorkerPool | null>}

/** Start the first worker now (once); `?early=off` leaves it to the Runner (bench/startup.py's "before"). */
export function startEarly() {
  if (started) return started;
  const visit = thisVisit();
  const first = receive() || NOTHING;
  const build = fetchBuild();
  // on a first visit, not before the page's first script started its worker (prestart.js)
  const pool = Promise.all([build, first.painted])
    .then(([info]) => {
      if (visit.early === "off" || willReload()) return null;
      const settings = new Settings();
      const made = new WorkerPool(info, { visit, first, endpoint: () => settings.endpoint() });
      const endpoint = settings.endpoint();
      made.prestart(opensForeignCode() ? { ...endpoint, key: "" } : endpoint);
      performance.mark("looplab:early-worker");
      return made;
    })
    .catch(() => null); // main.js reports a build.json that did not come
  started = { build, pool };
  return started;
}
