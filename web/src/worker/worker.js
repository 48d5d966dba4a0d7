// The Python worker: Pyodide and looplab, loaded from this site only (start/startup.js); one run at
// a time, through bridge.py's one entry (handle). Messages: shared/protocol.js. Python's output goes
// out through output.js, Stop is heard through stop.js.

import bridgeSource from "./bridge.py";
import { reader, toPage } from "../shared/protocol.js";
import { REDACTED, redact } from "../shared/redact.js";
import { clearAnswer, waitForAnswer } from "../shared/asking.js";
import { KEY_PLACEHOLDER } from "../shared/keyscope.js";
import { noSharedMemory } from "../shared/gaps.js";
import {
  handBack,
  loadedAll,
  mayBegin,
  moduleFromPage,
  prefetch,
  progress,
  startPython,
  stopCounting,
  times,
} from "./start/startup.js";
import { keepInflated } from "./start/inflated.js";
import { Output } from "./output.js";
import { Stop } from "./stop.js";
import {
  close_stream,
  hasKey,
  holdKey,
  maskKey,
  open_stream,
  read_stream,
  send,
  send_async,
  setLive,
  setPageAsk,
  setStopCheck,
  waited,
} from "./transport.js";

const postMessage = self.postMessage.bind(self); // taken before Python, which could replace self.postMessage
const post = (message) => postMessage(message);

/** Python in this worker, once init has started it (the start's own state: start/startup.js). */
const py = {
  pyodide: null,
  bridge: null, // bridge.py, imported as looplab_bridge
  stop: new Stop(null), // the page's interrupt buffer (none: not cross-origin isolated)
  answers: null, // the answer buffer (asking.js), shared with the page, or null
  runId: null, // the run in progress
  unsettled: null, // why looplab's session could not be set up after ready (each run says so)
};
// Everything a run sends the page passes through hide() first (below).
const output = new Output((stream, text) => post(toPage[stream](py.runId, text)));

const BRIDGE = "/home/pyodide/looplab_bridge.py";

/** Take a built-in away from Python: from `owner` (the global) and its prototypes, for good. The
 * Cache API would let code from a link rewrite the site's cached files, which the page then runs
 * with the key; navigator.storage (the origin's private files) would let it leave a snapshot of its
 * own that every later visit restores (inflated.js). */
function withdraw(name, owner = self) {
  for (let at = owner; at; at = Object.getPrototypeOf(at)) {
    if (Object.hasOwn(at, name)) delete at[name];
  }
  Object.defineProperty(owner, name, { value: undefined, writable: false, configurable: false });
}

/** Whether this worker runs under its own Content-Security-Policy (a header on worker.js, from
 * looplab/_course/serve.py or the service worker): the policy refuses text as code, so a Function made
 * of text throws. Without it, Python's network is not fenced in (the page says so). */
function fenced() {
  try {
    new Function("return 1");
    return false;
  } catch {
    return true;
  }
}

async function init(message) {
  // The key first, before anything else runs, and out of the message at once (transport.js).
  holdKey(message.baseUrl, message.key);
  message.key = null;
  times.init = performance.now();
  withdraw("caches"); // startup.js took its own copy, for a spoilt snapshot's cached copies
  withdraw("storage", self.navigator); // inflated.js took its own, for the kept snapshot
  const { interrupt, answers, build, snapshot: wish, kept, keep, spare } = message;
  py.stop = new Stop(interrupt);
  py.answers = answers || null;
  setPageAsk(py.answers ? askPageToFetch : null); // a keyed synchronous request, made by the page (transport.js)
  let pyodide, start, mendTrampoline;
  try {
    // (a worker the page's first script started is restoring Python already: startup.js prefetch)
    ({ pyodide, start, mendTrampoline } = await startPython(build, wish, post, kept || {}));
    start.spare = Boolean(spare);
    mendTrampoline(pyodide); // after a restore: calls without a JavaScript frame, so run_sync works
    progress("starting looplab");
    pyodide.FS.writeFile(BRIDGE, bridgeSource); // after a restore too: tracebacks read it
    if (!start.source) pyodide.runPython("import sys; sys.path.insert(0, '/home/pyodide')"); // a restore has it
    py.stop.listen(pyodide);
    pyodide.setStdout({ batched: (text) => output.write("stdout", hide(text + "\n")) });
    pyodide.setStderr({ batched: (text) => output.write("stderr", hide(text + "\n")) });
    pyodide.registerJsModule("looplab_page", { ask: askPage }); // looplab/page.py
    pyodide.registerJsModule("looplab_transport", { send, send_async, open_stream, read_stream, close_stream, waited }); // looplab/http.py, httpx2_jsfetch
    setStopCheck(
      () => py.stop.take(),
      () => py.stop.hush(),
      () => py.stop.hear(),
    );
    py.bridge = pyodide.pyimport("looplab_bridge");
    py.pyodide = pyodide;
    py.bridge.listen_deltas(sendDelta);
    times.looplab = performance.now(); // looplab imported; its session is set up just after ready
  } catch (error) {
    post(toPage.fatal(`Python could not be loaded: ${error && error.message ? error.message : error}`));
    return;
  } finally {
    stopCounting();
  }
  loadedAll();
  post(
    toPage.ready({
      python: pyodide.runPython("import sys; sys.version.split()[0]"),
      pyodide: pyodide.version,
      isolated: py.stop.possible,
      fenced: fenced(), // Python can reach only the site and the endpoint (the worker's CSP)
      start, // {source: "build" | null, refused: [why the snapshot was refused]}
      times, // ms since the worker started: script evaluated, prefetch and init (their messages came), the
      //        start begun, imported pyodide.mjs (and .asm.mjs), wasm compiled (or the page's came) and
      //        instantiated, inflated copy looked up, snapshot read, Pyodide loaded or restored, looplab
      //        imported (settle() sets up its session next); `start` is ms since the time origin (the start's moment)
    }),
  );
  settle();
  if (start.source) warmStopPath();
  // For the page's next workers (page/start/workerpool.js), and the next visit (inflated.js keepInflated):
  // isolated, the snapshot goes to the page in shared memory, copied here: the page's message to
  // each new worker then shares it instead of copying 30 MiB on the page's main thread (~20 ms, a
  // long task on a busy machine). Else its buffer moves to the page (a buffer posted as a copy is
  // copied again when the message is read); when this visit still keeps the bytes, a copy moves.
  const { module, snapshot, fetched } = await handBack();
  const shared = snapshot && keep && py.stop.possible ? sharedCopy(snapshot) : null;
  const given = shared || (snapshot && keep && snapshot === fetched ? snapshot.slice() : snapshot);
  if (keep) postMessage(toPage.kept(module, given), given && !shared ? [given.buffer] : []);
  if (fetched) keepInflated(build, fetched);
}

/** looplab's session, set up after ready is posted and in the same task, so before any run's
 * message is read: the page hears ready ~15 ms sooner (a warm start 401 → 386 ms, medians of 8
 * interleaved fresh profiles). A failure here is not a crash (the page would start a new worker,
 * which would fail the same way): every run ends with it instead. */
function settle() {
  try {
    // Packages whose files the bridge laid again count as loaded (else the first run installs them).
    for (const name of JSON.parse(py.bridge.start(py.stop.possible, layFiles())))
      py.pyodide.loadedPackages[name] ??= "default channel";
  } catch (error) {
    py.unsettled = `Python's session could not be set up (${hide(String(error && error.message ? error.message : error))}). Reload the page to try again.`;
  }
}

/** Lay looplab's files again where a restore lost them (a snapshot holds no file; bridge.py
 * `prepare` kept their bytes), with the file system's own calls: 63 files in 8-10 ms of a warm start
 * against 24-28 ms through Python's io (bridge.start lays them so where this did not). Returns
 * whether it laid any. */
function layFiles() {
  const { FS } = py.pyodide;
  const files = py.bridge.files_to_lay();
  let laid = false;
  try {
    for (const [path, bytes] of files.toJs({ dict_converter: Array.from })) {
      if (FS.analyzePath(path).exists) continue;
      FS.mkdirTree(path.slice(0, path.lastIndexOf("/")));
      FS.writeFile(path, bytes);
      laid = true;
    }
  } finally {
    files.destroy();
  }
  return laid;
}

/** After a restore none of the code a Stop runs has run yet (a KeyboardInterrupt raised in a sleep,
 * turned into a JavaScript error), and its first use is slow (the engine compiles each wasm
 * function on its first call) — long enough, on a busy machine, to outlast Stop's grace period and
 * restart Python instead. Run it once now, while the learner reads; a run asked for
 * meanwhile waits the few tens of milliseconds this takes. */
function warmStopPath() {
  const { pyodide } = py;
  try {
    pyodide.runPython("import time\ntime.sleep(0.001)\nraise KeyboardInterrupt('warming up')");
  } catch {
    // expected: the KeyboardInterrupt, which Pyodide keeps as sys.last_exc: forgotten again
    pyodide.runPython(
      "import sys\nfor name in ('last_exc', 'last_type', 'last_value', 'last_traceback'):\n    sys.__dict__.pop(name, None)",
    );
  }
}

// Everything a run sends the page passes here: output, events, the result, error messages. The
// key is never shown, even when an endpoint echoes it back (transport.js holds and masks it).
function hide(text) {
  return redact(maskKey(String(text ?? ""), REDACTED));
}

// A piece of a model reply's text as it arrives (looplab/models/stream.py): to the page at once,
// for the screen; the trace's model_reply event carries the whole reply.
function sendDelta(text) {
  if (py.runId !== null && text) post(toPage.delta(py.runId, hide(text)));
}

// --- one run -------------------------------------------------------------------------------

// Extra packages come only from this site's lock file, and only when a run needs them: what the
// lesson's code imports (e.g. `import openai`; Pyodide maps import names to packages through the
// lock's `imports`), and the openai SDK for LLM_API=sdk in live mode. loadPackage follows the
// lock's `depends` (read from each wheel's metadata at build time) and checks every wheel's
// sha256. Returns {packages, ms} when it loaded something, else null.
async function loadExtras(id, cells, env) {
  let code = cells
    .filter((c) => c.kind === "code")
    .map((c) => c.source)
    .join("\n");
  if (env && env.LOOPLAB_MODEL === "live" && env.LLM_API === "sdk") code += "\nimport openai";
  const started = performance.now();
  const errors = [];
  const packages = await py.pyodide.loadPackagesFromImports(code, {
    // "Loading a, b, c" comes first, naming every package about to load, dependencies included.
    messageCallback: (text) => {
      if (text.startsWith("Loading ")) post(toPage.stdout(id, `(loading ${text.slice(8)} from this site, once…)\n`));
    },
    errorCallback: (text) => errors.push(text),
  });
  if (errors.length) throw new Error(errors.join("; "));
  if (!packages.length) return null;
  const ms = Math.round(performance.now() - started);
  post(toPage.stdout(id, `(loaded in ${(ms / 1000).toFixed(1)} s)\n`));
  return { packages: packages.map((p) => p.name), ms };
}

// With JavaScript Promise integration (Chromium), Python runs on a stack that can be suspended:
// looplab/http.py then reads a live reply's body piece by piece (pyodide.ffi.run_sync on
// transport.js's read_stream), and its text reaches the page as it arrives. Without it, a call is
// plain and a reply comes whole (still read as a stream, in one piece).
const JSPI = typeof WebAssembly === "object" && "Suspending" in WebAssembly;

function callPython(fn, ...args) {
  return JSPI ? fn.callPromising(...args) : fn(...args);
}

// A lesson run, a fork of a kept run (`fork`: {run, step, reply | result + call_id}), a chat turn
// (`chat`: shared/protocol.js ChatRequest) or a record's lesson re-checked (`replay`): the message
// goes to bridge.handle as it came, with the run's environment.
async function run(message) {
  const { id } = message;
  if (py.unsettled)
    return post(toPage.done(id, { ok: false, error: py.unsettled, checks: [] }, { interrupted: false, extras: null }));
  const cells = message.type === "chat" ? message.chat.cells : message.cells || [];
  py.runId = id;
  py.stop.hear(); // (a stream Python asked for and never waited on leaves it off)
  // Python sees where the key is, never the key; only a live run's requests may carry it.
  const env = { ...(message.env || {}), LLM_API_KEY: hasKey() ? KEY_PLACEHOLDER : "" };
  setLive(env.LOOPLAB_MODEL === "live"); // and off before the page hears the run ended (`ended`)
  // (the page clears the interrupt buffer before it sends a run: a Stop pressed meanwhile stands)
  let result = null;
  let interrupted = false;
  let extras = null;
  try {
    if (message.type !== "fork") extras = await loadExtras(id, cells, env);
  } catch (error) {
    const text = String(error && error.message ? error.message : error);
    if (/KeyboardInterrupt/.test(text)) {
      // a Stop pressed while the run was still being prepared
      ended(id, { ok: false, error: "KeyboardInterrupt: stopped", checks: [] }, { interrupted: true, extras });
      return;
    }
    post(toPage.stderr(id, hide(`Could not load a package: ${text}\n`)));
  }
  const sendEvent = (text) => {
    output.flush(); // output printed before an event shows before it
    post(toPage.event(id, JSON.parse(hide(text))));
  };
  try {
    result = JSON.parse(hide(await callPython(py.bridge.handle, JSON.stringify({ ...message, env }), sendEvent)));
  } catch (error) {
    const text = hide(String(error && error.message ? error.message : error));
    interrupted = /KeyboardInterrupt/.test(text);
    if (!interrupted && error && error.name !== "PythonError") {
      // A JavaScript-level failure (Pyodide fatal error, out of memory): this worker is done.
      setLive(false);
      output.flush();
      post(toPage.fatal(describeCrash(text)));
      return;
    }
    result = { ok: false, error: interrupted ? "KeyboardInterrupt: stopped" : text, checks: [] };
  }
  ended(id, result, { interrupted, extras });
}

/** A run's end: the key is off before anything else (nothing the run left behind may use it),
 * then what it printed last, then `done`. */
function ended(id, result, how) {
  setLive(false);
  output.flush();
  post(toPage.done(id, result, how));
  py.runId = null;
}

// Python asks the page and waits for its answer (asking.js; looplab/page.py calls this). Without
// an answer buffer (the page is not cross-origin isolated) the page is told, and Python hears at
// once that it cannot wait. Stop raises KeyboardInterrupt in Python while it waits.
function askPage(kind, requestJson) {
  output.flush(); // what was printed before the question shows before it
  const request = JSON.parse(hide(requestJson));
  if (!py.answers) {
    post(toPage.ask(py.runId, kind, request, false));
    return JSON.stringify({
      unavailable: `${noSharedMemory() || "the page gave no answer buffer"}, so Python cannot wait for an answer from it`,
    });
  }
  clearAnswer(py.answers);
  post(toPage.ask(py.runId, kind, request, true));
  return waitForAnswer(py.answers, () => py.stop.raiseIfPressed());
}

// A request with the key that Python makes synchronously where it cannot wait for a fetch (no
// JSPI): the page makes it (page/run/keyedfetch.js) while Python waits on the answer buffer, Stop
// raising KeyboardInterrupt meanwhile. The question holds no key; the answer has it masked out.
function askPageToFetch(request) {
  output.flush();
  clearAnswer(py.answers);
  post(toPage.ask(py.runId, "fetch", request, true));
  return JSON.parse(waitForAnswer(py.answers, () => py.stop.raiseIfPressed()));
}

// Between runs: the lesson's project read from Python's file system, or laid out again
// (bridge.files). Python is never asked while a run goes on (a message can arrive while a run
// waits for its packages to load).
function files(message) {
  const { id } = message;
  if (py.runId !== null || !py.bridge) {
    post(
      toPage.files(id, {
        error: py.bridge ? "a run is going on; the project is read when it ends" : "Python is not ready yet",
      }),
    );
    return;
  }
  try {
    post(toPage.files(id, JSON.parse(hide(py.bridge.handle(JSON.stringify(message))))));
  } catch (error) {
    post(toPage.files(id, { error: hide(String(error && error.message ? error.message : error)) }));
  }
}

function describeCrash(message) {
  if (/memory|Maximum call stack|RangeError/i.test(message)) {
    return "Python ran out of memory (or recursed too deep) and had to be restarted. Your code is kept.";
  }
  return `Python crashed and had to be restarted (${message.split("\n")[0]}). Your code is kept.`;
}

/** `bytes` in a SharedArrayBuffer of their own (posting it shares the memory, nothing is copied). */
function sharedCopy(bytes) {
  const copy = new Uint8Array(new SharedArrayBuffer(bytes.byteLength));
  copy.set(bytes);
  return copy;
}

// Only the page's messages: Python can dispatch a MessageEvent of its own on `self`, but not a
// trusted one. Init comes once; a prefetch only before it (startup.js mayBegin).
// Runs and questions wait for init's end: the `kept` message goes to the page before any code of a
// run does, so the page can refuse any later one (workerpool.js), whoever posted it.
let initialised = null;
const afterInit = (handle) => (message) => {
  const go = () => handle(message);
  if (initialised) initialised.then(go, go);
};
// A prefetch starts Python at once: fetching, compiling and restoring do not wait for the app's
// init (measured: init came 60–270 ms into a warm start). Python runs no code of anyone's before
// init: the restore runs only Pyodide's start and the snapshot's own, and the key, the shared
// buffers, the withdrawn Cache API and looplab's bridge all come with init, before any run.
const receive = reader("toWorker", {
  prefetch(message) {
    if (mayBegin("prefetch")) prefetch(message.build, message.pageCompiles, post);
  },
  module(message) {
    moduleFromPage(message.module);
  },
  init(message) {
    if (mayBegin("init")) initialised = init(message);
  },
  run: afterInit(run),
  fork: afterInit(run),
  chat: afterInit(run),
  replay: afterInit(run),
  files: afterInit(files),
  warm(message) {
    // a worker that starts no Python (page/start/codecache.js): Pyodide's modules imported once, from this
    // site only, so the browser keeps their compiled code for the next visit; then it ends itself
    if (!mayBegin("warm")) return;
    const own = (url) => new URL(url, self.location.href).origin === self.location.origin;
    // (the browser keeps a module's code in a task of its own after the module ran: a moment later)
    Promise.allSettled(message.urls.filter(own).map((url) => import(url))).then(() =>
      setTimeout(() => self.close(), 1000),
    );
  },
});
self.addEventListener("message", (event) => {
  if (event.isTrusted) receive(event.data);
});
