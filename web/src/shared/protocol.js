// The one message protocol between the page (page/run/runner.js) and the Python worker
// (worker/worker.js). Every message is a plain object with a `type`, made by a constructor here and
// read through `reader`: neither side writes a message by hand, so the two cannot drift.
// tests/site/test_protocol.py holds both sides, and bridge.py's results, to this file.
//
// Stop is not a message: the page writes SIGINT into the shared interrupt buffer (shared/stop.js).
// Python's questions are answered through the answer buffer (asking.js), not by a message.

// --- page -> worker ------------------------------------------------------------------------------

/**
 * @typedef {{kind: "code" | "markdown", source: string, tags: string[]}} Cell  a lesson's cell as run
 *   (its tags say its role: check, exercise, solution …; looplab._course.lesson.Cell)
 * @typedef {{run: number, step: number, reply: object} | {run: number, step: number, result: string, call_id: string}} ForkRequest
 *   re-run kept run `run` from `step` with one edit: the model's reply, or one tool call's result
 * @typedef {{type: "init", interrupt: SharedArrayBuffer | null, answers: SharedArrayBuffer | null, build: object, snapshot: string | null,
 *   baseUrl: string, key: string, kept: {module: WebAssembly.Module | null, snapshot: Uint8Array | null} | null, keep: boolean,
 *   spare: boolean}} Init
 *   load Pyodide and looplab from this site; `build` is build.json (indexURL, lockFileURL, sizes);
 *   `interrupt` and `answers` are null when the page is not cross-origin isolated; `snapshot` is the
 *   address's ?snapshot= ("off": load normally, "refuse": spoil the site's snapshot, for its test);
 *   `baseUrl` and `key`: the live endpoint and the API key, which the worker keeps from Python
 *   (worker/transport.js); sent once, before Python exists: a new endpoint or key is a new worker;
 *   `kept`: an earlier worker's compiled Pyodide Module and inflated snapshot (page/start/workerpool.js),
 *   used instead of compiling and fetching; `keep`: hand them back (`kept`) once ready; `spare`: a
 *   worker started in idle time, to be swapped in at the next restart (the ready line says so)
 * @typedef {{type: "prefetch", pageCompiles: boolean, build: {version: string, indexURL: string, lockFileURL: string,
 *   prefetch: string[], wheel: string, startupBytes: number, heapMax: number,
 *   snapshot: {file: string, rawBytes: number, startupBytes: number} | null}}} Prefetch
 *   sent by the page's first script (page/start/prestart.js) before init: start Python from this build's
 *   files at once (the wasm, the .mjs files, the snapshot or its inflated copy); init's `build`
 *   names the same files, and init brings the key and the shared buffers before any run;
 *   `pageCompiles`: the wasm's Module comes from the page (a Module message)
 * @typedef {{type: "module", module: WebAssembly.Module | null}} CompiledModule
 *   the page's compile of pyodide.asm.wasm for a prefetch with `pageCompiles`; null: it failed, and
 *   the worker compiles its own
 * @typedef {{type: "run", id: number, cells: Cell[], solution: boolean, env: object, carried: Object<string, Cell[] | {from: string}>}} Run
 *   run a lesson's code cells then its checks (looplab._course.lesson.run_cells), after loading any package
 *   of the site's lock the code imports (and openai for LLM_API=sdk); `env` holds only ENV_KEYS
 *   (LLM_API_KEY: the worker sets its placeholder, never the key); `carried`: the learner's saved
 *   cells of the lessons the code reuses through mine(N), by lesson id, or {from} for a lesson whose
 *   saved code came from elsewhere, which never runs inside another run (page/run/carried.js; bridge.py
 *   `carry` hands them to looplab._course.mine.provide)
 * @typedef {{type: "fork", id: number, fork: ForkRequest, env: object}} Fork
 * @typedef {{type: "replay", id: number, cells: Cell[], replay: {record: object, texts: Object<string, string>, only: string}, env: object}} Replay
 *   re-check one lesson of a "built it" record (looplab._course.record): `texts` the lessons' files by slug,
 *   `cells` the lesson with the record's code (for the packages it imports); the result carries `verdicts`
 *   re-run a run of the last lesson run from a step with one edit (looplab.replay; bridge.py keeps
 *   those runs): earlier steps replayed from the record, later ones live. Answered like a run.
 * @typedef {{cells: Cell[], solution: boolean, message: string | null, fresh: boolean}} ChatRequest
 *   one Chat tab message to the agent the lesson offers (looplab/_course/chat.py's chat_with), in a namespace
 *   kept between messages (looplab/_course/conversation.py); the lesson's cells run first when they changed
 *   since that namespace was made, or when `fresh` (New conversation). `message` null: only make the
 *   chat ready (the offer's suggestions)
 * @typedef {{type: "chat", id: number, chat: ChatRequest, env: object}} Chat
 *   a chat turn: its events and output come like a run's; answered like a run, with `chat` in the result
 * @typedef {{type: "warm", urls: string[]}} Warm
 *   to a worker that starts no Python (page/start/codecache.js): import these modules of this site (Pyodide's
 *   .mjs files) once, so the browser keeps their compiled code for the next visit, then end itself
 * @typedef {{type: "files", id: number, op: "read" | "reset"}} Files
 *   between runs: the project the last run's lesson laid out (looplab._course.project, bridge.py `files`):
 *   "read" its files and what changed, "reset" lays it out again first. Answered by `files`.
 */

export const toWorker = {
  /** @returns {Prefetch} */
  prefetch: (
    { version, indexURL, lockFileURL, prefetch, wheel, startupBytes, heapMax, snapshot },
    pageCompiles = false,
  ) => ({
    type: "prefetch",
    pageCompiles,
    build: {
      version,
      indexURL,
      lockFileURL,
      prefetch,
      wheel,
      startupBytes,
      heapMax,
      snapshot: snapshot
        ? { file: snapshot.file, rawBytes: snapshot.rawBytes, startupBytes: snapshot.startupBytes }
        : null,
    },
  }),
  /** @returns {CompiledModule} */
  module: (module) => ({ type: "module", module }),
  /** @returns {Init} */
  init: ({
    interrupt,
    answers,
    build,
    snapshot,
    baseUrl = "",
    key = "",
    kept = null,
    keep = false,
    spare = false,
  }) => ({ type: "init", interrupt, answers, build, snapshot, baseUrl, key, kept, keep, spare }),
  /** @returns {Run} */
  run: (id, { cells, solution = false, carried = {} }, env) => ({ type: "run", id, cells, solution, env, carried }),
  /** @returns {Fork} */
  fork: (id, fork, env) => ({ type: "fork", id, fork, env }),
  /** @returns {Chat} */
  chat: (id, { cells, solution = false, message = null, fresh = false }, env) => ({
    type: "chat",
    id,
    chat: { cells, solution, message, fresh },
    env,
  }),
  /** @returns {Replay} */
  replay: (id, { cells, record, texts, only }, env) => ({
    type: "replay",
    id,
    cells,
    replay: { record, texts, only },
    env,
  }),
  /** @returns {Files} */
  files: (id, op) => ({ type: "files", id, op }),
  /** @returns {Warm} */
  warm: (urls) => ({ type: "warm", urls }),
};

// --- worker -> page ------------------------------------------------------------------------------

/**
 * @typedef {{type: "progress", stage: string, loaded: number, total: number}} Progress
 *   loading: `stage` is a word for the status line, bytes loaded of the expected total
 * @typedef {{source: "build" | null, refused: string[], given: {module: boolean, snapshot: boolean}, spare: boolean}} Start
 *   how Python started: from the site's snapshot, or loaded (with why the snapshot was refused);
 *   `given`: what of an earlier worker's it used (init's `kept`); `spare`: it was started as a spare
 * @typedef {{type: "ready", python: string, pyodide: string, isolated: boolean, fenced: boolean, start: Start, times: object}} Ready
 *   Python is loaded; runs may start (`times`: ms marks of the load since the worker started, for
 *   bench/startup.py; `times.start` is ms since the time origin; `fenced`: the worker runs under its
 *   own Content-Security-Policy)
 * @typedef {{type: "stdout" | "stderr", id: number, text: string}} Output  the learner's output, in batches
 * @typedef {{type: "event", id: number, event: object}} TraceEvent  one trace event (looplab.trace)
 * @typedef {{type: "delta", id: number, text: string}} Delta  a piece of a model reply's text as it
 *   arrives (a live stream's text delta, looplab/models/stream.py `listen`), for the screen only: the
 *   trace still gets one model_reply per call. The local model's tokens do not come this way (its
 *   engine runs in the page), yet runner.js gives them to the same listeners.
 * @typedef {{type: "ask", id: number, kind: "approval" | "model" | "stdin" | "fetch", request: object, blocking: boolean}} Ask
 *   Python asks the page and (when `blocking`) waits: "approval" {tool, arguments} -> {approved,
 *   reason}; "model" (looplab/models/local.py) {op: "describe"} -> {model, native_tools, ...} or
 *   {op: "chat", messages, tools?, response_format?, max_tokens} -> {message, finish_reason,
 *   timings} or {error}; "fetch" (transport.js, a keyed synchronous request where Python cannot
 *   wait for a fetch) {method, url, headers, body | body64, timeoutMs} -> {status, headers, body64}
 *   or {error} (page/run/keyedfetch.js: the run in progress only, live, keyed, in the key's scope).
 *   Not blocking: the page is not isolated, Python went on without an answer.
 * @typedef {{name: string, ok: boolean, status: string, message: string}} Check
 * @typedef {{answer: any, steps: number, stopped: string, tool_calls: number, detail?: string, run: number,
 *   first_difference: number | null, fork_of: {run: number, step: number}}} ForkOutcome  a fork's run:
 *   run_agent's result (looplab/loop.py), its run number, where it first differs, what it forks (bridge.py `fork`)
 * @typedef {{reply: string, kind: "answer" | "blocked" | "redacted" | "stopped" | "interrupted" | "error" | "ready", stopped: string,
 *   run: number, fresh: boolean, offer: {name: string, suggestions: string[]}}} ChatTurn  a chat turn's end:
 *   the reply, how it ended, its run number, whether the conversation started afresh (bridge.py `chat`)
 * @typedef {{ok: boolean, error: string | null, checks: Check[], events?: [], fork?: ForkOutcome, chat?: ChatTurn | null}} Result
 *   a run's result (bridge.py `run`: looplab's LessonResult; its `events` is empty, each event was
 *   sent as it happened), a fork's (with `fork`) or a chat turn's (with `chat`; null when the chat
 *   could not start, `error` says why)
 * @typedef {{type: "done", id: number, result: Result, interrupted: boolean, extras: {packages: string[], ms: number} | null}} Done
 *   the run ended; `interrupted` when Stop's KeyboardInterrupt ended it; `extras` when this run
 *   first loaded extra packages
 * @typedef {{type: "kept", module: WebAssembly.Module | null, snapshot: Uint8Array | null}} Kept  what the
 *   page may keep for its next workers (asked for by init's `keep`): the compiled Module and the
 *   inflated snapshot, sent once after ready and before any run's code starts; the page takes it
 *   only then, and the snapshot only when its sha256 is build.json's (page/start/workerpool.js)
 * @typedef {{root: string, files: Object<string, string>, diff: string}} Project  a lesson's project:
 *   its folder, its text files by path, the unified diff from the files as the lesson laid them out
 * @typedef {{type: "files", id: number, project: Project | null, error: string | null}} FilesAnswer
 *   the answer to a `files` message: the project (null when the lesson laid out none), or why not
 *   (a run is in progress: Python is busy)
 * @typedef {{type: "fatal", message: string}} Fatal  the worker cannot go on (Pyodide failed to
 *   load, or crashed: out of memory ...); the page reports it and starts a fresh worker
 * (everything a run sends is redacted of keys first: redact.js)
 */

export const toPage = {
  /** @returns {Progress} */
  progress: (stage, loaded, total) => ({ type: "progress", stage, loaded, total }),
  /** @returns {Ready} */
  ready: ({ python, pyodide, isolated, fenced, start, times }) => ({
    type: "ready",
    python,
    pyodide,
    isolated,
    fenced,
    start,
    times,
  }),
  /** @returns {Output} */
  stdout: (id, text) => ({ type: "stdout", id, text }),
  /** @returns {Output} */
  stderr: (id, text) => ({ type: "stderr", id, text }),
  /** @returns {TraceEvent} */
  event: (id, event) => ({ type: "event", id, event }),
  /** @returns {Delta} */
  delta: (id, text) => ({ type: "delta", id, text }),
  /** @returns {Ask} */
  ask: (id, kind, request, blocking) => ({ type: "ask", id, kind, request, blocking }),
  /** @returns {Done} */
  done: (id, result, { interrupted = false, extras = null } = {}) => ({
    type: "done",
    id,
    result,
    interrupted,
    extras,
  }),
  /** @returns {Kept} */
  kept: (module, snapshot) => ({ type: "kept", module, snapshot }),
  /** @returns {FilesAnswer} */
  files: (id, { project = null, error = null }) => ({ type: "files", id, project, error }),
  /** @returns {Fatal} */
  fatal: (message) => ({ type: "fatal", message }),
};

/** The message types each way, as the constructors make them. */
export const TYPES = { toWorker: Object.keys(toWorker), toPage: Object.keys(toPage) };

/** The keys of a run's result and of a fork's outcome, as bridge.py returns them (a fork's
 * outcome has `detail` too when run_agent gives one). */
export const RESULT_KEYS = ["ok", "error", "checks"];
export const RUN_KEYS = [...RESULT_KEYS, "events"];
export const CHAT_KEYS = ["reply", "kind", "stopped", "run", "fresh", "offer"];
export const FORK_KEYS = ["answer", "steps", "stopped", "tool_calls", "run", "first_difference", "fork_of"];

/**
 * A reader of the messages one side receives: `handlers` names what it does with each type (a
 * name that is no type of that direction is an error at once); a message of a type it does not
 * handle is ignored.
 * @param {"toWorker" | "toPage"} direction
 * @param {Object<string, (message: object) => void>} handlers
 */
export function reader(direction, handlers) {
  const unknown = Object.keys(handlers).filter((name) => !TYPES[direction].includes(name));
  if (unknown.length) throw new Error(`protocol: no ${direction} message ${unknown.join(", ")}`);
  return (message) => {
    const handle = handlers[message && message.type];
    if (handle) handle(message);
  };
}

/** The environment variables a run may set: runner.js sends only these, and bridge.py clears and
 * sets the same list (its ENV_KEYS; tests/site/test_protocol.py checks the two agree). */
export const ENV_KEYS = [
  "LOOPLAB_MODEL",
  "LLM_BASE_URL",
  "LLM_API_KEY",
  "LLM_MODEL",
  "LLM_API",
  "LLM_MAX_TOKENS",
  "LLM_STREAM",
];
