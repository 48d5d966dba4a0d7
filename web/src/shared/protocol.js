// The one message protocol between the page (page/runner.js) and the Python worker
// (worker/worker.js). Every message is a plain object with a `type`, made by a constructor here and
// read through `reader`: neither side writes a message by hand, so the two cannot drift.
// tests/site/test_protocol.py holds both sides, and bridge.py's results, to this file.
//
// Stop is not a message: the page writes SIGINT (2) into the shared interrupt buffer, which
// Pyodide checks while Python runs, and terminates the worker if the run has not ended soon after.
// Python's questions are answered through the answer buffer (asking.js), not by a message.

// --- page -> worker ------------------------------------------------------------------------------

/**
 * @typedef {{kind: "code" | "markdown", source: string, tags: string[]}} Cell  a lesson's cell as run
 *   (its tags say its role: check, exercise, solution …; looplab.lesson.Cell)
 * @typedef {{run: number, step: number, reply: object} | {run: number, step: number, result: string, call_id: string}} ForkRequest
 *   re-run kept run `run` from `step` with one edit: the model's reply, or one tool call's result
 * @typedef {{type: "init", interrupt: SharedArrayBuffer | null, answers: SharedArrayBuffer | null, build: object, snapshot: string | null,
 *   baseUrl: string, key: string}} Init
 *   load Pyodide and looplab from this site; `build` is build.json (indexURL, lockFileURL, sizes);
 *   `interrupt` and `answers` are null when the page is not cross-origin isolated; `snapshot` is the
 *   address's ?snapshot= ("off": load normally, "refuse": spoil the site's snapshot, for its test);
 *   `baseUrl` and `key`: the live endpoint and the API key, which the worker keeps from Python
 *   (worker/transport.js); sent once, before Python exists: a new endpoint or key is a new worker
 * @typedef {{type: "run", id: number, cells: Cell[], solution: boolean, env: object, carried: Object<string, Cell[]>}} Run
 *   run a lesson's code cells then its checks (looplab.lesson.run_cells), after loading any package
 *   of the site's lock the code imports (and openai for LLM_API=sdk); `env` holds only ENV_KEYS
 *   (LLM_API_KEY: the worker sets its placeholder, never the key); `carried`: the learner's saved
 *   cells of the lessons the code reuses through mine(N), by lesson id (page/carried.js; bridge.py
 *   `carry` hands them to looplab.mine.provide)
 * @typedef {{type: "fork", id: number, fork: ForkRequest, env: object}} Fork
 *   re-run a run of the last lesson run from a step with one edit (looplab.replay; bridge.py keeps
 *   those runs): earlier steps replayed from the record, later ones live. Answered like a run.
 */

export const toWorker = {
  /** @returns {Init} */
  init: ({ interrupt, answers, build, snapshot, baseUrl = "", key = "" }) => ({ type: "init", interrupt, answers, build, snapshot, baseUrl, key }),
  /** @returns {Run} */
  run: (id, { cells, solution = false, carried = {} }, env) => ({ type: "run", id, cells, solution, env, carried }),
  /** @returns {Fork} */
  fork: (id, fork, env) => ({ type: "fork", id, fork, env }),
};

// --- worker -> page ------------------------------------------------------------------------------

/**
 * @typedef {{type: "progress", stage: string, loaded: number, total: number}} Progress
 *   loading: `stage` is a word for the status line, bytes loaded of the expected total
 * @typedef {{source: "build" | null, refused: string[]}} Start  how Python started: from the site's
 *   snapshot, or loaded (with why the snapshot was refused)
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
 * @typedef {{type: "ask", id: number, kind: "approval" | "model", request: object, blocking: boolean}} Ask
 *   Python asks the page and (when `blocking`) waits: "approval" {tool, arguments} -> {approved,
 *   reason}; "model" (looplab/models/local.py) {op: "describe"} -> {model, native_tools, ...} or
 *   {op: "chat", messages, tools?, response_format?, max_tokens} -> {message, finish_reason,
 *   timings} or {error}. Not blocking: the page is not isolated, Python went on without an answer.
 * @typedef {{name: string, ok: boolean, status: string, message: string}} Check
 * @typedef {{answer: any, steps: number, stopped: string, tool_calls: number, detail?: string, run: number,
 *   first_difference: number | null, fork_of: {run: number, step: number}}} ForkOutcome  a fork's run:
 *   run_agent's result (looplab/loop.py), its run number, where it first differs, what it forks (bridge.py `fork`)
 * @typedef {{ok: boolean, error: string | null, checks: Check[], events?: [], fork?: ForkOutcome}} Result
 *   a run's result (bridge.py `run`: looplab's LessonResult; its `events` is empty, each event was
 *   sent as it happened) or a fork's (with `fork`)
 * @typedef {{type: "done", id: number, result: Result, interrupted: boolean, extras: {packages: string[], ms: number} | null}} Done
 *   the run ended; `interrupted` when Stop's KeyboardInterrupt ended it; `extras` when this run
 *   first loaded extra packages
 * @typedef {{type: "fatal", message: string}} Fatal  the worker cannot go on (Pyodide failed to
 *   load, or crashed: out of memory ...); the page reports it and starts a fresh worker
 * (everything a run sends is redacted of keys first: redact.js)
 */

export const toPage = {
  /** @returns {Progress} */
  progress: (stage, loaded, total) => ({ type: "progress", stage, loaded, total }),
  /** @returns {Ready} */
  ready: ({ python, pyodide, isolated, fenced, start, times }) => ({ type: "ready", python, pyodide, isolated, fenced, start, times }),
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
  done: (id, result, { interrupted = false, extras = null } = {}) => ({ type: "done", id, result, interrupted, extras }),
  /** @returns {Fatal} */
  fatal: (message) => ({ type: "fatal", message }),
};

/** The message types each way, as the constructors make them. */
export const TYPES = { toWorker: Object.keys(toWorker), toPage: Object.keys(toPage) };

/** The keys of a run's result and of a fork's outcome, as bridge.py returns them (a fork's
 * outcome has `detail` too when run_agent gives one). */
export const RESULT_KEYS = ["ok", "error", "checks"];
export const RUN_KEYS = [...RESULT_KEYS, "events"];
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

export const SIGINT = 2;

/** The environment variables a run may set: runner.js sends only these, and bridge.py clears and
 * sets the same list (its ENV_KEYS; tests/site/test_protocol.py checks the two agree). */
export const ENV_KEYS = ["LOOPLAB_MODEL", "LLM_BASE_URL", "LLM_API_KEY", "LLM_MODEL", "LLM_API", "LLM_MAX_TOKENS", "LLM_STREAM"];

/** How long Stop waits for the interrupt before it terminates the worker (ms). Long enough for a
 * busy machine's first interrupt after a snapshot restore; short enough that Stop ends a run in
 * well under the 2 s the site promises. */
export const STOP_GRACE_MS = 1000;
