// Starting Python in the worker, in named steps (startPython): fetch everything ahead in
// parallel, compile the wasm from its first byte, restore the site's memory snapshot or load
// normally, counting the bytes as they arrive for the status line. worker.js then sets up looplab.
// README.md in page/start numbers the whole start (here: steps 1, 4 and 7).

import { toPage } from "../../shared/protocol.js";
import { checkFits, forgetCopies, growFor, heapOf, readBuildSnapshot, reasonOf } from "./snapshot.js";
import { forgetInflated, readInflated } from "./inflated.js";
import { shareWrapperModules } from "./wrappers.js";
import { watchTrampoline } from "./trampoline.js";

/** Everything this worker's start knows, in this one object (nothing else here changes). */
const state = {
  begun: null, // the message that began this worker: "prefetch", "init" or "warm" (mayBegin)
  send: () => {}, // to the page (startPython's `send`)
  bytes: { loaded: 0, total: 1, stage: "starting", reported: 0 }, // for the status line
  ahead: new Map(), // absolute URL -> Promise<Response>: fetched before Pyodide asks, taken once
  wasm: null, // Promise of pyodide.asm.wasm's Module: compiled from its first byte, given, or the page's
  pageCompiled: false, // the Module came from the page (prestart.js)
  pageModule: () => {}, // hands the page's Module (or null) to what prefetch began
  restoring: null, // the snapshot about to be restored (snapshotBytes): the instance's memory grows to hold it
  head: null, // begin()'s parts, begun by prefetch before init came
  early: null, // Python started by prefetch (startWatched's promise), for init to take
  kept: { module: null, snapshot: null, fromSite: null }, // for the page's next workers (handBack)
  /** ms marks of the start since the worker started (`start`: since the time origin), for bench/startup.py */
  times: { evaluated: performance.now() }, // evaluated: this module ran (the worker script is in)
};

export const times = state.times;

/** Whether a `kind` message ("prefetch", "init" or "warm") may begin this worker now, noted if so.
 * Init comes once, after a prefetch or alone; a prefetch or a warm only as the first message. */
export function mayBegin(kind) {
  const may = kind === "init" ? state.begun === null || state.begun === "prefetch" : state.begun === null;
  if (may) state.begun = kind;
  return may;
}

// --- loading, with bytes counted for the status line ----------------------------------------

/** Tell the page how far loading is (a new `stage` word for the status line, or the same). */
export function progress(newStage) {
  const bytes = state.bytes;
  if (newStage) bytes.stage = newStage;
  state.send(toPage.progress(bytes.stage, bytes.loaded, bytes.total));
}

function counted(n) {
  const bytes = state.bytes;
  bytes.loaded += n;
  const now = performance.now();
  if (now - bytes.reported > 50) {
    bytes.reported = now;
    progress();
  }
}

async function count(body) {
  const reader = body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return;
    counted(value.byteLength);
  }
}

// Pyodide fetches its files with fetch(); a clone of each response is read alongside to count
// the bytes as they arrive. The original response goes to Pyodide untouched, so the browser
// still recognises a cached pyodide.asm.wasm and reuses its compiled code on the next visit.
// Files fetched ahead (`state.ahead`, from the worker's first moment) are handed over when Pyodide
// asks for them, so nothing waits on what came before it.
const realFetch = self.fetch.bind(self);
const cacheStorage = self.caches; // taken before worker.js withdraws the Cache API from Python

function countingFetch(input, init) {
  const url = input instanceof Request ? input.url : new URL(String(input), self.location.href).href;
  const ahead = state.ahead.get(url);
  if (ahead) state.ahead.delete(url);
  return countBytes(ahead || realFetch(input, init));
}

function countBytes(pending) {
  return pending.then((response) => {
    if (response.ok && response.body) count(response.clone().body).catch(() => {});
    return response;
  });
}

// pyodide.asm.wasm is compiled from the first byte, beside the snapshot's download: Pyodide only
// starts its own compile once the snapshot is in. Its instantiateStreaming gets the module
// compiled here (compiling also warms the browser's code cache as before).
// A restarted worker gets the first worker's compiled Module from the page instead (page/start/workerpool.js):
// posting a Module shares its compiled code, so nothing is fetched or compiled again.
// On a visit after the first, the page compiles it instead (page/start/prestart.js) and posts the Module
// (`pageModule`): this thread is what a warm start waits on. A page whose compile failed posts
// null, and this worker compiles its own.
const realInstantiateStreaming = WebAssembly.instantiateStreaming;

function compileEarly(wasmURL, given, fromPage = null) {
  const own = () => WebAssembly.compileStreaming(countBytes(realFetch(wasmURL))); // (not Pyodide's stand-in below)
  state.wasm = given
    ? Promise.resolve(given)
    : fromPage
      ? fromPage.then((module) => ((state.pageCompiled = Boolean(module)), module || own()))
      : own();
  state.wasm.then(
    () => (times.compiled = performance.now()),
    () => {},
  ); // a failure: reported through Pyodide's own attempt
  state.ahead.set(wasmURL, Promise.resolve(new Response(null, { status: 200 }))); // Pyodide's fetch of it: not needed
  WebAssembly.instantiateStreaming = async (_source, imports) => {
    const module = await state.wasm;
    const instance = await WebAssembly.instantiate(module, imports);
    times.instantiated = performance.now();
    // Pyodide has the snapshot's bytes before it instantiates: room for their heap, before the restore
    if (state.restoring) times.grownPages = growFor(instance.exports.memory, heapOf(state.restoring));
    state.restoring = null;
    return { module, instance };
  };
}

// When pyodide.asm.wasm cannot be fetched or compiled (a broken deploy, offline on a first
// visit), Pyodide only logs "wasm instantiation failed!" and the error, and loadPyodide never
// settles: those two warnings are turned into a failed load, which the page reports.
const realWarn = console.warn;

function wasmFailure() {
  return new Promise((_, reject) => {
    console.warn = (...args) => {
      realWarn(...args);
      if (args[0] === "wasm instantiation failed!") {
        let detail = "";
        console.warn = (...more) => {
          realWarn(...more);
          detail = detail || String(more[0] && more[0].message ? more[0].message : more[0]);
        };
        queueMicrotask(() =>
          reject(new Error(`its WebAssembly file could not be loaded (${detail || "unknown error"})`)),
        );
      }
    };
  });
}

// --- starting Python: from a snapshot when one restores, else a normal load -------------------

const at = (path) => new URL(path, self.location.href).href;

/** The bytes of the site's snapshot, checked to fit; `?snapshot=refuse` spoils their magic number
 * so that Pyodide itself refuses them (the fallback's test). */
function snapshotBytes(build, wish, response, given) {
  const read = given ? Promise.resolve(given) : readBuildSnapshot(response, build.snapshot.rawBytes, counted);
  return read.then((bytes) => {
    times.snapshot = performance.now();
    checkFits(bytes, build.heapMax);
    state.restoring = bytes;
    if (!given) state.kept.snapshot = wish === "refuse" ? null : bytes; // the page may keep them (handBack)
    if (!given) state.kept.fromSite = state.kept.snapshot; // and the next visit (keepInflated)
    if (wish === "refuse") new Uint32Array(bytes.buffer, bytes.byteOffset, 1)[0] = 0;
    return bytes;
  });
}

function loadPython(loadPyodide, build, snapshot = null) {
  return Promise.race([
    wasmFailure(),
    loadPyodide({
      indexURL: build.indexURL,
      lockFileURL: build.lockFileURL,
      packageBaseUrl: new URL(".", at(build.lockFileURL)).href,
      // A restore needs no package: looplab is imported already, and the bridge lays its files
      // again (a snapshot holds no file; laying them is faster than installing the wheel again).
      // No env: Python's environment is bridge.py's START_ENV, set by bridge.start either way.
      packages: snapshot ? [] : ["looplab"],
      ...(snapshot ? { _loadSnapshot: snapshot } : {}),
    }),
  ]);
}

/**
 * What the page may keep for the next worker, once Python is ready: {module, snapshot, fetched}
 * (each may be null; `fetched`: the snapshot when it was fetched and inflated here, not read from the kept
 * copy, for inflated.js keepInflated). The snapshot's buffer is Pyodide's no more after the restore (it copied
 * it into its heap), so it can be transferred, not copied.
 */
export async function handBack() {
  const module = await Promise.resolve(state.wasm).catch(() => null);
  const parts = { module: module || null, snapshot: state.kept.snapshot, fetched: state.kept.fromSite };
  state.kept.snapshot = null;
  state.kept.fromSite = null;
  return parts;
}

/**
 * The slow parts of a start that need nothing from the page but the build's names, begun at once and
 * in parallel: the wasm (compiled as it arrives, or the Module `given` or `fromPage`), both .mjs files, the small
 * files (handed to Pyodide when it asks), and the inflated snapshot kept by a visit before (inflated.js;
 * null when `given` has a snapshot or there is none), else the site's snapshot fetched. Returns
 * {version, useSnapshot, mjs, cached, response}.
 */
function begin(build, useSnapshot, given, fromPage = null) {
  compileEarly(at(build.indexURL + "pyodide.asm.wasm"), given.module, fromPage);
  // The modules and the small files first: they load while the inflated copy is read (a warm visit).
  const mjs = import(build.indexURL + "pyodide.mjs");
  import(build.indexURL + "pyodide.asm.mjs").then(
    () => (times.asm = performance.now()),
    () => {},
  );
  const prefetch = [...(build.prefetch || []), ...(useSnapshot ? [] : [build.wheel])]; // a restore needs no wheel
  for (const path of prefetch.filter(Boolean)) state.ahead.set(at(path), realFetch(at(path)));
  const cached = useSnapshot && !given.snapshot ? readInflated(build) : Promise.resolve(null);
  // none kept (a first visit): the site's snapshot, fetched at once (read below)
  const response = cached.then((hit) =>
    useSnapshot && !given.snapshot && !hit ? realFetch(at(build.snapshot.file)) : null,
  );
  response.catch(() => {}); // its failure is reported where it is read
  return { version: build.version, useSnapshot, mjs, cached, response };
}

/**
 * Begin before the init message: the page's first script (page/start/prestart.js) posts the build's names
 * while the page is still parsed and laid out, before the app's entry sends init (the key and the
 * shared buffers); Python starts at once (it runs no one's code before init: only Pyodide's start
 * and the snapshot's own). With `pageCompiles`, the wasm's Module comes from the page
 * (moduleFromPage). `send`: to the page.
 */
export function prefetch(build, pageCompiles, send) {
  if (state.head) return;
  times.prefetch = performance.now();
  self.fetch = countingFetch;
  const fromPage = pageCompiles ? new Promise((resolve) => (state.pageModule = resolve)) : null;
  state.head = begin(build, Boolean(build.snapshot), {}, fromPage);
  state.early = startWatched(build, null, send, {});
  state.early.catch(() => {}); // reported by init, which awaits it
}

/** The page's compiled Module for what prefetch began, or null: its compile failed. Once. */
export function moduleFromPage(module) {
  state.pageModule(module instanceof WebAssembly.Module ? module : null);
  state.pageModule = () => {};
}

/**
 * Start Python, or take the start a prefetch began (the page sends such a worker neither kept parts
 * nor a ?snapshot= wish: workerpool.js, prestart.js). Resolves to {pyodide, start, mendTrampoline}
 * (`start`: {source: "build" | null, refused: [why the site's snapshot was refused]};
 * `mendTrampoline(pyodide)`: trampoline.js, after a restore); rejects when Python cannot load.
 * Call stopCounting() afterwards, whatever happened.
 */
export function startPython(build, wish, send, given = {}) {
  const early = state.early;
  state.early = null;
  return early || startWatched(build, wish, send, given);
}

/** The steps in order, each its own function above, watching for the trampoline (trampoline.js)
 * while Pyodide starts; a failed start stops watching. */
async function startWatched(build, wish, send, given) {
  const mendTrampoline = watchTrampoline();
  const unshare = shareWrapperModules();
  try {
    return { ...(await startSteps(build, wish, send, given)), mendTrampoline };
  } catch (error) {
    mendTrampoline(null);
    throw error;
  } finally {
    unshare();
  }
}

async function startSteps(build, wish, send, given) {
  state.send = send;
  state.bytes.total = build.startupBytes || 1;
  self.fetch = countingFetch;
  const start = { source: null, refused: [] };
  progress("loading Python");
  times.begun = performance.now();
  times.start = performance.timeOrigin + times.begun;
  // `given`: the first worker's compiled Module and inflated snapshot, kept by the page (either may be missing).
  const useSnapshot = Boolean(build.snapshot) && wish !== "off";
  // what prefetch began serves when it began the same build the same way (else it is left to finish unused)
  const head = state.head;
  const prestarted =
    Boolean(head) &&
    head.version === build.version &&
    head.useSnapshot === useSnapshot &&
    !given.module &&
    !given.snapshot;
  const { mjs, cached: reading, response: siteResponse } = prestarted ? head : begin(build, useSnapshot, given);
  state.head = null;
  const cached = await reading;
  times.inflated = performance.now();
  // a snapshot in shared memory (the page's, for every worker) is copied first: Pyodide reads its
  // header with a TextDecoder, which refuses shared memory, and the page's copy stays whole
  const own = given.snapshot && isShared(given.snapshot) ? given.snapshot.slice() : given.snapshot;
  const givenSnapshot = useSnapshot ? own || cached : null;
  start.given = {
    module: Boolean(given.module),
    snapshot: Boolean(given.snapshot),
    shared: own !== given.snapshot,
    cached: Boolean(cached),
    prestarted,
  };
  if (cached && wish !== "refuse") state.kept.snapshot = cached; // for the page's next workers
  const { loadPyodide } = await mjs;
  times.imported = performance.now();
  let pyodide = null;
  if (useSnapshot) {
    state.bytes.total = build.snapshot.startupBytes;
    try {
      pyodide = await loadPython(loadPyodide, build, snapshotBytes(build, wish, siteResponse, givenSnapshot));
      start.source = "build";
    } catch (error) {
      start.refused.push(`the site's snapshot: ${reasonOf(error)}`);
      state.kept.snapshot = null;
      if (cached) forgetInflated(build);
      if (!givenSnapshot) forgetCopies(at(build.snapshot.file), cacheStorage).catch(() => {}); // e.g. a corrupt copy in a cache: fetched afresh next time
    }
  }
  if (!pyodide) {
    // no snapshot, or it was refused: a normal load
    state.restoring = null;
    state.bytes.total = build.startupBytes || 1;
    pyodide = await loadPython(loadPyodide, build);
  }
  times.pyodide = performance.now();
  performance.mark("looplab:python"); // Python is restored (or loaded): what tests/e2e/test_early.py waits for
  start.given.pageCompiled = state.pageCompiled;
  return { pyodide, start };
}

function isShared(bytes) {
  return typeof SharedArrayBuffer !== "undefined" && bytes.buffer instanceof SharedArrayBuffer;
}

/** Loading is over: live requests from lessons are not counted, and what was patched is restored. */
export function stopCounting() {
  self.fetch = realFetch;
  console.warn = realWarn;
  WebAssembly.instantiateStreaming = realInstantiateStreaming;
  state.ahead.clear();
}

/** The bar full: Python is ready. */
export function loadedAll() {
  state.bytes.loaded = state.bytes.total;
  progress("ready");
}
