// Make the site's memory snapshot with Node.js: Pyodide from the built site's own files, looplab
// and what every lesson imports already imported. Called by scripts/snapshot.py (make build):
//
//   node scripts/make_snapshot.mjs REQUEST.json
//
// REQUEST: {site, indexURL, lockFile, wheel, bridge, modules, extras, seed, heapMax, lesson, out}; paths
// absolute, or relative to `site`; `extras`: packages of the lock loaded before the imports (pure
// Python only: their files are kept and laid again after a restore, like looplab's). Writes the raw snapshot to `out`, then restores it in a fresh Pyodide and
// runs a lesson there; prints one line of JSON: {heapBytes, bytes, failed, restored}.
//
// Nothing of this machine may reach the snapshot: Python sees no path of it (the wheel and the
// bridge are handed over as bytes, the program name is the browser's), its environment is emptied
// before the snapshot. While it is made the clock is fixed and the random bytes come from `seed`,
// so two builds of the same sources give the same bytes (file times, import-time timestamps, the
// hash secret, mimalloc's and the RNGs' states would differ otherwise).

import nodeCrypto from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { growingInstantiate } from "../web/src/worker/start/snapshot.js";

const request = JSON.parse(readFileSync(process.argv[2], "utf8"));
const at = (path) => resolve(request.site, path);
const indexURL = at(request.indexURL) + "/";
const HOME = "/home/pyodide";
const BRIDGE = `${HOME}/looplab_bridge.py`;
const PROGRAM = "./this.program"; // what Emscripten calls the program in a browser

function fail(message) {
  console.error(`make_snapshot: ${message}`);
  process.exit(1);
}

// Fixed clocks while the snapshot is made: a wall clock at 2000-01-01 (Emscripten stamps files
// with Date.now(), and Python keeps some of those times: import caches, logging's start time) and
// a monotonic clock that ticks 1 ms a reading (mimalloc seeds its main heap's keys from it).
const FIXED_NOW = 946684800000;
const realNow = Date.now;
const realMonotonic = performance.now;
let ticks = 0;
Date.now = () => FIXED_NOW;
performance.now = () => ++ticks;
// Random bytes from the seed (SHA-256 in counter mode): Emscripten draws them through
// node:crypto's randomFillSync. The worker reseeds Python's RNG after every restore.
const realFill = nodeCrypto.randomFillSync;
let counter = 0;
nodeCrypto.randomFillSync = (view) => {
  const bytes = new Uint8Array(view.buffer, view.byteOffset, view.byteLength);
  for (let at = 0; at < bytes.length; at += 32) {
    const block = nodeCrypto.createHash("sha256").update(`${request.seed}:${counter++}`).digest();
    bytes.set(block.subarray(0, Math.min(32, bytes.length - at)), at);
  }
  return view;
};

// Pyodide fixes at start-up whether pyodide.ffi.run_sync works (a C function pointer, which the
// snapshot keeps), by whether the runtime has JavaScript Promise integration; Node.js 20 has none,
// and a snapshot made without it refuses run_sync in every browser, which the page's streamed
// replies need (looplab/http.py). So Pyodide sees JSPI's two entry points while the snapshot is
// made: nothing here suspends (no run_sync, no callPromising), so plain stand-ins do. A browser
// builds the real wrappers on every restore; one without JSPI never enters Python through
// callPromising (worker.js), so can_run_sync() is false there and replies come whole.
if (!("Suspending" in WebAssembly)) {
  WebAssembly.Suspending = function Suspending(fn) {
    return fn;
  };
  WebAssembly.promising =
    (fn) =>
    (...args) =>
      Promise.resolve(fn(...args));
}

const { loadPyodide } = await import(indexURL + "pyodide.mjs");
const lockFileContents = readFileSync(at(request.lockFile), "utf8");
const quiet = { stdout: (line) => console.error(line), stderr: (line) => console.error(line) };
const most = request.heapMax; // the most the wasm module's memory can grow to (scripts/snapshot.py)
const extras = request.extras || [];

const maker = await loadPyodide({
  indexURL,
  lockFileContents,
  packageBaseUrl: at("py") + "/",
  _makeSnapshot: true,
  _sysExecutable: PROGRAM,
  env: { HOME },
  ...quiet,
});
maker.unpackArchive(new Uint8Array(readFileSync(at(request.wheel))), "wheel");
maker.FS.writeFile(BRIDGE, readFileSync(at(request.bridge)));
maker.runPython(`import sys; sys.path.insert(0, "${HOME}")`);
if (extras.length) await maker.loadPackage(extras, { messageCallback: quiet.stdout, errorCallback: (e) => fail(e) });
maker.runPython("import importlib; importlib.invalidate_caches()"); // the bridge written after a finder looked in HOME
const keep = ["looplab", ...Object.keys(maker.loadedPackages).filter((name) => name !== "looplab")];
const failed = JSON.parse(
  maker.pyimport("looplab_bridge").prepare(JSON.stringify(request.modules), JSON.stringify(keep)),
);
const heapBytes = maker._module.HEAP8.length;
if (heapBytes > most) {
  fail(
    `the heap grew to ${(heapBytes / 2 ** 20).toFixed(1)} MiB, over the ${most / 2 ** 20} MiB Python's memory can grow to: import less at build time`,
  );
}
// Pyodide's record of loaded packages is a JS object Python holds: it must be as a fresh start has
// it ({}) for the snapshot. The worker marks the extras loaded again after the restore (bridge.start).
for (const name of Object.keys(maker.loadedPackages)) delete maker.loadedPackages[name];
const snapshot = maker.makeMemorySnapshot();
writeFileSync(request.out, snapshot);
Date.now = realNow;
performance.now = realMonotonic;
nodeCrypto.randomFillSync = realFill;

// The proof: restore it as the page does (no package loaded: the bridge's start-up lays looplab's
// files again; the memory grown first to hold a heap over the 30 MiB it starts with, as the worker
// does), and run the first lesson's solution through the bridge.
const realInstantiate = WebAssembly.instantiate;
WebAssembly.instantiate = growingInstantiate(realInstantiate, () => snapshot);
const restored = await loadPyodide({
  indexURL,
  lockFileContents,
  packageBaseUrl: at("py") + "/",
  _loadSnapshot: snapshot,
  _sysExecutable: PROGRAM,
  env: { HOME },
  ...quiet,
});
// What the snapshot holds, before the page's start-up changes anything:
const state = JSON.parse(
  restored.runPython(`
import json, os, sys
json.dumps({"environ": dict(os.environ), "modules": len(sys.modules), "cwd": os.getcwd(),
            "executable": sys.executable, "looplab": "looplab.loop" in sys.modules})
`),
);
restored.FS.writeFile(BRIDGE, readFileSync(at(request.bridge)));
const bridge = restored.pyimport("looplab_bridge");
const laid = JSON.parse(bridge.start(false));
WebAssembly.instantiate = realInstantiate;
if (!laid.includes("looplab")) fail("the bridge's start-up laid no file of looplab's after the restore");
const lesson = request.lesson ? JSON.parse(readFileSync(at(request.lesson), "utf8")) : null;
let checks = null;
if (lesson) {
  const events = [];
  const run = { type: "run", id: 1, cells: lesson.cells, solution: true, env: {}, carried: {} }; // as the page sends it
  const result = JSON.parse(bridge.handle(JSON.stringify(run), (event) => events.push(event)));
  checks = {
    ok: result.ok,
    passed: result.checks.filter((c) => c.ok).length,
    total: result.checks.length,
    events: events.length,
  };
}
console.log(JSON.stringify({ heapBytes, bytes: snapshot.length, failed, kept: laid, restored: { ...state, checks } }));
