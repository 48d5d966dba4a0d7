// The Python worker: Pyodide and looplab, loaded from this site only; one run at a time.
// Messages: see protocol.js.

import bridgeSource from "./bridge.py";
import { redact } from "../shared/redact.js";
import { clearAnswer, waitForAnswer } from "../shared/asking.js";
import { checkFits, forgetCopies, readBuildSnapshot, reasonOf } from "./snapshot.js";

let pyodide = null;
let bridge = null;
let interrupt = null; // Uint8Array over the page's SharedArrayBuffer, or null
let answers = null; // the answer buffer (asking.js), shared with the page, or null
let runId = null;

const post = (message) => self.postMessage(message);

// --- loading, with bytes counted for the status line ----------------------------------------

let loaded = 0;
let total = 1;
let stage = "starting";
const times = {};

function progress(newStage) {
  if (newStage) stage = newStage;
  post({ type: "progress", stage, loaded, total });
}

let lastReport = 0;

function counted(bytes) {
  loaded += bytes;
  const now = performance.now();
  if (now - lastReport > 50) {
    lastReport = now;
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
// Files fetched ahead (`early`, from the worker's first moment) are handed over when Pyodide
// asks for them, so nothing waits on what came before it.
const realFetch = self.fetch.bind(self);
const early = new Map(); // absolute URL -> Promise<Response>, taken once

function countingFetch(input, init) {
  const url = input instanceof Request ? input.url : new URL(String(input), self.location.href).href;
  const ahead = early.get(url);
  if (ahead) early.delete(url);
  return (ahead || realFetch(input, init)).then((response) => {
    if (response.ok && response.body) count(response.clone().body).catch(() => {});
    return response;
  });
}

// pyodide.asm.wasm is compiled from the first byte, beside the snapshot's download: Pyodide only
// starts its own compile once the snapshot is in. Its instantiateStreaming gets the module
// compiled here (compiling also warms the browser's code cache as before).
let wasmModule = null;
const realInstantiateStreaming = WebAssembly.instantiateStreaming;

function compileEarly(wasmURL) {
  wasmModule = WebAssembly.compileStreaming(countingFetch(wasmURL));
  wasmModule.then(() => (times.compiled = performance.now()), () => {}); // a failure: reported through Pyodide's own attempt
  early.set(wasmURL, Promise.resolve(new Response(null, { status: 200 }))); // Pyodide's fetch of it: not needed
  WebAssembly.instantiateStreaming = async (_source, imports) => {
    const module = await wasmModule;
    return { module, instance: await WebAssembly.instantiate(module, imports) };
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
        queueMicrotask(() => reject(new Error(`its WebAssembly file could not be loaded (${detail || "unknown error"})`)));
      }
    };
  });
}

// --- starting Python: from a snapshot when one restores, else a normal load -------------------

const ENV = { HOME: "/home/pyodide", LOOPLAB_MODEL: "scripted" };
const BRIDGE = "/home/pyodide/looplab_bridge.py";
const at = (path) => new URL(path, self.location.href).href;

/** The bytes of the site's snapshot, checked to fit; `?snapshot=refuse` spoils their magic number
 * so that Pyodide itself refuses them (the fallback's test). */
function snapshotBytes(build, wish, response) {
  return readBuildSnapshot(response, build.snapshot.rawBytes, counted).then((bytes) => {
    times.snapshot = performance.now();
    checkFits(bytes, build.heapLimit);
    if (wish === "refuse") new Uint32Array(bytes.buffer, bytes.byteOffset, 1)[0] = 0;
    return bytes;
  });
}

function loadPython(loadPyodide, build, snapshot = null) {
  return Promise.race([wasmFailure(), loadPyodide({
    indexURL: build.indexURL,
    lockFileURL: build.lockFileURL,
    packageBaseUrl: new URL(".", at(build.lockFileURL)).href,
    // A restore needs no package: looplab is imported already, and the bridge lays its files
    // again (a snapshot holds no file; installing the wheel again took 0.35-0.7 s).
    packages: snapshot ? [] : ["looplab"],
    env: ENV,
    ...(snapshot ? { _loadSnapshot: snapshot } : {}),
  })]);
}

async function init({ interrupt: buffer, answers: answerBuffer, build, snapshot: wish }) {
  total = build.startupBytes || 1;
  if (buffer) interrupt = new Uint8Array(buffer);
  answers = answerBuffer || null;
  self.fetch = countingFetch;
  const start = { source: null, refused: [] };
  try {
    progress("loading Python");
    times.start = performance.timeOrigin + performance.now();
    // Everything from the first moment, in parallel: the wasm (compiled as it arrives), the
    // stdlib and the lock file (handed to Pyodide when it asks), both .mjs files, the site's snapshot.
    compileEarly(at(build.indexURL + "pyodide.asm.wasm"));
    const useSnapshot = Boolean(build.snapshot) && wish !== "off";
    const prefetch = [...(build.prefetch || []), ...(useSnapshot ? [] : [build.wheel])]; // a restore needs no wheel
    for (const path of prefetch.filter(Boolean)) early.set(at(path), realFetch(at(path)));
    const siteResponse = useSnapshot ? realFetch(at(build.snapshot.file)) : null;
    if (siteResponse) siteResponse.catch(() => {}); // read (and its failure reported) below
    const mjs = import(build.indexURL + "pyodide.mjs");
    import(build.indexURL + "pyodide.asm.mjs").then(() => (times.asm = performance.now()), () => {});
    const { loadPyodide } = await mjs;
    times.imported = performance.now();
    if (useSnapshot) {
      total = build.snapshot.startupBytes;
      try {
        pyodide = await loadPython(loadPyodide, build, snapshotBytes(build, wish, siteResponse));
        start.source = "build";
      } catch (error) {
        start.refused.push(`the site's snapshot: ${reasonOf(error)}`);
        forgetCopies(at(build.snapshot.file)).catch(() => {}); // e.g. a corrupt copy in a cache: fetched afresh next time
      }
    }
    if (!pyodide) { // no snapshot, or it was refused: a normal load
      total = build.startupBytes || 1;
      pyodide = await loadPython(loadPyodide, build);
    }
    times.pyodide = performance.now();
    progress("starting looplab");
    pyodide.FS.writeFile(BRIDGE, bridgeSource); // after a restore too: tracebacks read it
    if (!start.source) pyodide.runPython("import sys; sys.path.insert(0, '/home/pyodide')"); // a restore has it
    if (interrupt) pyodide.setInterruptBuffer(interrupt);
    pyodide.setStdout({ batched: (text) => write("stdout", text + "\n") });
    pyodide.setStderr({ batched: (text) => write("stderr", text + "\n") });
    pyodide.registerJsModule("looplab_page", { ask: askPage }); // looplab/page.py
    bridge = pyodide.pyimport("looplab_bridge");
    // Packages whose files the bridge laid again count as loaded (else the first run installs them).
    for (const name of JSON.parse(bridge.start(Boolean(interrupt)))) pyodide.loadedPackages[name] ??= "default channel";
    times.looplab = performance.now();
  } catch (error) {
    post({ type: "fatal", message: `Python could not be loaded: ${error && error.message ? error.message : error}` });
    return;
  } finally {
    self.fetch = realFetch; // live requests from lessons are not counted
    console.warn = realWarn;
    WebAssembly.instantiateStreaming = realInstantiateStreaming;
    early.clear();
  }
  loaded = total;
  progress("ready");
  post({
    type: "ready",
    python: pyodide.runPython("import sys; sys.version.split()[0]"),
    pyodide: pyodide.version,
    isolated: Boolean(interrupt),
    start, // {source: "build" | null, refused: [why the snapshot was refused]}
    times, // ms since the worker started: imported pyodide.mjs (and .asm.mjs), wasm compiled, snapshot
    //        read, Pyodide loaded or restored, looplab ready; `start` is ms since the time origin
  });
  if (start.source) warmStopPath();
}

/** After a restore none of the code a Stop runs has run yet (a KeyboardInterrupt raised in a sleep,
 * turned into a JavaScript error), and its first use took 0.1-0.3 s in Node (the engine compiles
 * each wasm function on its first call) — long enough, on a busy machine, to outlast Stop's grace
 * period and restart Python instead. Run it once now, while the learner reads; a run asked for
 * meanwhile waits the few tens of milliseconds this takes. */
function warmStopPath() {
  try {
    pyodide.runPython("import time\ntime.sleep(0.001)\nraise KeyboardInterrupt('warming up')");
  } catch {
    // expected: the KeyboardInterrupt, which Pyodide keeps as sys.last_exc: forgotten again
    pyodide.runPython("import sys\nfor name in ('last_exc', 'last_type', 'last_value', 'last_traceback'):\n    sys.__dict__.pop(name, None)");
  }
}

// --- output: sent as it comes, batched only when a print loop floods -------------------------
// A line goes to the page at once (Python may block right after it, e.g. in time.sleep); past
// 20 messages in 50 ms, lines are gathered and sent together, so a print loop cannot flood the page.

const WINDOW_MS = 50;
const PER_WINDOW = 20;
const pending = { stdout: "", stderr: "" };
let windowStart = 0;
let sentInWindow = 0;

let secret = ""; // this run's API key: never shown, even when the learner prints it

// Everything a run sends the page passes here: output, events, the result, error messages.
function hide(text) {
  return redact(text, secret);
}

function write(stream, text) {
  pending[stream] += hide(text);
  const now = performance.now();
  if (now - windowStart > WINDOW_MS) {
    windowStart = now;
    sentInWindow = 0;
  }
  if (sentInWindow < PER_WINDOW || pending[stream].length > 16384) flush();
}

function flush() {
  for (const stream of ["stdout", "stderr"]) {
    if (pending[stream]) {
      post({ type: stream, id: runId, text: pending[stream] });
      pending[stream] = "";
      sentInWindow++;
    }
  }
}

// --- one run -------------------------------------------------------------------------------

// Extra packages come only from this site's lock file, and only when a run needs them: what the
// lesson's code imports (e.g. `import openai`; Pyodide maps import names to packages through the
// lock's `imports`), and the openai SDK for LLM_API=sdk in live mode. loadPackage follows the
// lock's `depends` (read from each wheel's metadata at build time) and checks every wheel's
// sha256. Returns {packages, ms} when it loaded something, else null.
async function loadExtras(id, cells, env) {
  let code = cells.filter((c) => c.kind === "code").map((c) => c.source).join("\n");
  if (env && env.LOOPLAB_MODEL === "live" && env.LLM_API === "sdk") code += "\nimport openai";
  const started = performance.now();
  const errors = [];
  const loaded = await pyodide.loadPackagesFromImports(code, {
    // "Loading a, b, c" comes first, naming every package about to load, dependencies included.
    messageCallback: (text) => {
      if (text.startsWith("Loading ")) post({ type: "stdout", id, text: `(loading ${text.slice(8)} from this site, once…)\n` });
    },
    errorCallback: (text) => errors.push(text),
  });
  if (errors.length) throw new Error(errors.join("; "));
  if (!loaded.length) return null;
  const ms = Math.round(performance.now() - started);
  post({ type: "stdout", id, text: `(loaded in ${(ms / 1000).toFixed(1)} s)\n` });
  return { packages: loaded.map((p) => p.name), ms };
}

// A lesson run, or a fork of a kept run (`fork`: {run, step, reply | result + call_id}, bridge.fork).
async function run({ id, cells, solution, env, fork = null }) {
  runId = id;
  secret = env && env.LLM_API_KEY && env.LLM_API_KEY.length >= 4 ? env.LLM_API_KEY : "";
  // (the page clears the interrupt buffer before it sends a run: a Stop pressed meanwhile stands)
  let result = null;
  let interrupted = false;
  let extras = null;
  try {
    if (!fork) extras = await loadExtras(id, cells, env);
  } catch (error) {
    const message = String(error && error.message ? error.message : error);
    if (/KeyboardInterrupt/.test(message)) { // a Stop pressed while the run was still being prepared
      flush();
      post({ type: "done", id, result: { ok: false, error: "KeyboardInterrupt: stopped", checks: [] }, interrupted: true, extras });
      runId = null;
      return;
    }
    post({ type: "stderr", id, text: hide(`Could not load a package: ${message}\n`) });
  }
  const sendEvent = (text) => {
    flush(); // output printed before an event shows before it
    post({ type: "event", id, event: JSON.parse(hide(text)) });
  };
  try {
    const text = fork
      ? bridge.fork(JSON.stringify(fork), JSON.stringify(env || {}), sendEvent)
      : bridge.run(JSON.stringify(cells), Boolean(solution), JSON.stringify(env || {}), sendEvent);
    result = JSON.parse(hide(text));
  } catch (error) {
    const message = hide(String(error && error.message ? error.message : error));
    interrupted = /KeyboardInterrupt/.test(message);
    if (!interrupted && error && error.name !== "PythonError") {
      // A JavaScript-level failure (Pyodide fatal error, out of memory): this worker is done.
      flush();
      post({ type: "fatal", message: describeCrash(message) });
      return;
    }
    result = { ok: false, error: interrupted ? "KeyboardInterrupt: stopped" : message, checks: [] };
  }
  flush();
  post({ type: "done", id, result, interrupted, extras });
  runId = null;
}

// Python asks the page and waits for its answer (asking.js; looplab/page.py calls this). Without
// an answer buffer (the page is not cross-origin isolated) the page is told, and Python hears at
// once that it cannot wait. Stop raises KeyboardInterrupt in Python while it waits.
function askPage(kind, requestJson) {
  flush(); // what was printed before the question shows before it
  const request = JSON.parse(hide(requestJson));
  if (!answers) {
    post({ type: "ask", id: runId, kind, request, blocking: false });
    return JSON.stringify({ unavailable: "the page is not cross-origin isolated, so Python cannot wait for an answer from it" });
  }
  clearAnswer(answers);
  post({ type: "ask", id: runId, kind, request, blocking: true });
  return waitForAnswer(answers, () => {
    if (interrupt && interrupt[0] !== 0) pyodide.checkInterrupt(); // throws KeyboardInterrupt into Python
  });
}

function describeCrash(message) {
  if (/memory|Maximum call stack|RangeError/i.test(message)) {
    return "Python ran out of memory (or recursed too deep) and had to be restarted. Your code is kept.";
  }
  return `Python crashed and had to be restarted (${message.split("\n")[0]}). Your code is kept.`;
}

self.onmessage = (event) => {
  const message = event.data;
  if (message.type === "init") init(message);
  else if (message.type === "run" || message.type === "fork") run(message);
};
