// Python for the page (start/README.md, steps 2 to 5): the worker boot.js began, taken by a Runner
// once the page knows whether it is cross-origin isolated (a first visit on a host without
// COOP/COEP reloads once, first); meanwhile Pyodide's code is warmed for the next visit.

import { Runner } from "./runner.js";
import { startEarly } from "../start/early.js";
import { warmCodeOnTakeOver } from "../start/codecache.js";
import { isolate } from "../start/isolation.js";

/**
 * @param {object} page  {store, status, say (report.js), settings, register () (the service
 *   worker, chrome.js), listed (build) (the lessons, fetched once build.json came), swapped () (a new
 *   worker replaced the one that kept the runs)}
 * @returns {Promise<{runner: Runner, notIsolated: string} | null>}  null: the build's names did not
 *   come, or the page reloads to isolate itself. `notIsolated`: why it is not, when it is not.
 */
export async function startPython({ store, status, say, settings, register, listed, swapped }) {
  const early = startEarly(); // boot.js started it (the worker with it) before this bundle ran
  const build = await early.build.catch(
    (error) =>
      void status.show(`The site could not load its build information (${error.message}). Reload the page.`, "crashed"),
  );
  if (!build) return null;
  warmCodeOnTakeOver(build); // before the service worker can take over (isolate below, or at ready)
  listed(build);
  const isolation = await isolate(register, (text) => status.show(text, "loading", { stage: "isolating" }));
  if (isolation.reloading) return null; // a first visit on a host without COOP/COEP: Python starts after the reload
  const runner = new Runner(build, {
    pool: await early.pool, // Python loads in the worker while the lesson renders
    endpoint: () => settings.endpoint(), // what a new worker may reach, and the key it holds
    starting(event) {
      say.starting(event);
      store.dispatch({ type: "starting", ...event });
    },
    progress: (event) => store.state.python !== "ready" && say.progress(event),
    ready: (info) => store.dispatch({ type: "ready", info }),
    swapped, // a worker replaced another (runner.js): the runs kept for forks went with it
    crashed: (message, { restart }) => store.dispatch({ type: "crashed", message, restart }),
  });
  return { runner, notIsolated: isolation.why || "" };
}
