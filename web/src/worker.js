// The Python worker: Pyodide and looplab, loaded from this site only; one run at a time.
// Messages: see protocol.js.

import bridgeSource from "./bridge.py";
import { redact } from "./redact.js";
import { clearAnswer, waitForAnswer } from "./asking.js";

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

// Pyodide fetches its files with fetch(); a clone of each response is read alongside to count
// the bytes as they arrive. The original response goes to Pyodide untouched, so the browser
// still recognises a cached pyodide.asm.wasm and reuses its compiled code on the next visit.
const realFetch = self.fetch.bind(self);
let lastReport = 0;

async function count(body) {
  const reader = body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return;
    loaded += value.byteLength;
    const now = performance.now();
    if (now - lastReport > 50) {
      lastReport = now;
      progress();
    }
  }
}

function countingFetch(input, init) {
  return realFetch(input, init).then((response) => {
    if (response.ok && response.body) count(response.clone().body).catch(() => {});
    return response;
  });
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

async function init({ interrupt: buffer, answers: answerBuffer, build }) {
  total = build.startupBytes || 1;
  if (buffer) interrupt = new Uint8Array(buffer);
  answers = answerBuffer || null;
  self.fetch = countingFetch;
  try {
    progress("loading Python");
    times.start = performance.timeOrigin + performance.now();
    const { loadPyodide } = await import(build.indexURL + "pyodide.mjs");
    times.imported = performance.now();
    pyodide = await Promise.race([wasmFailure(), loadPyodide({
      indexURL: build.indexURL,
      lockFileURL: build.lockFileURL,
      packageBaseUrl: new URL(".", new URL(build.lockFileURL, self.location.href)).href,
      packages: ["looplab"],
      env: { HOME: "/home/pyodide", LOOPLAB_MODEL: "scripted" },
    })]);
    times.pyodide = performance.now();
    progress("starting looplab");
    if (interrupt) pyodide.setInterruptBuffer(interrupt);
    pyodide.setStdout({ batched: (text) => write("stdout", text + "\n") });
    pyodide.setStderr({ batched: (text) => write("stderr", text + "\n") });
    pyodide.FS.writeFile("/home/pyodide/looplab_bridge.py", bridgeSource);
    pyodide.runPython("import sys; sys.path.insert(0, '/home/pyodide')");
    pyodide.registerJsModule("looplab_page", { ask: askPage }); // looplab/page.py
    bridge = pyodide.pyimport("looplab_bridge");
    if (interrupt) bridge.interruptible_sleep();
    times.looplab = performance.now();
  } catch (error) {
    post({ type: "fatal", message: `Python could not be loaded: ${error && error.message ? error.message : error}` });
    return;
  } finally {
    self.fetch = realFetch; // live requests from lessons are not counted
    console.warn = realWarn;
  }
  loaded = total;
  progress("ready");
  post({
    type: "ready",
    python: pyodide.runPython("import sys; sys.version.split()[0]"),
    pyodide: pyodide.version,
    isolated: Boolean(interrupt),
    times, // ms since the worker started: imported pyodide.mjs, Pyodide loaded, looplab imported
  });
}

// --- output: sent as it comes, batched only when a print loop floods -------------------------
// A line goes to the page at once (Python may block right after it, e.g. in time.sleep); past
// 20 messages in 50 ms, lines are gathered and sent together, so a print loop cannot flood the page.

const WINDOW_MS = 50;
const PER_WINDOW = 20;
let pending = { stdout: "", stderr: "" };
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
  if (interrupt) interrupt[0] = 0;
  let result = null;
  let interrupted = false;
  let extras = null;
  try {
    if (!fork) extras = await loadExtras(id, cells, env);
  } catch (error) {
    post({ type: "stderr", id, text: hide(`Could not load a package: ${error && error.message ? error.message : error}\n`) });
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
