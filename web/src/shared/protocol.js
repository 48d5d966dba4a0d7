// The one message protocol between the page (runner.js) and the Python worker (worker.js).
// Every message is a plain object with a `type`; nothing else crosses the boundary.
//
// page -> worker
//   init   {interrupt, answers, build}                     load Pyodide and looplab from this site;
//                                                          `build` is build.json (indexURL, lockFileURL,
//                                                          sizes); `interrupt` and `answers` are
//                                                          SharedArrayBuffers (null when the page is not
//                                                          cross-origin isolated); `baseUrl` and `key`: the
//                                                          live endpoint and the API key, which the
//                                                          worker keeps from Python (transport.js); sent
//                                                          once, before Python exists: a new endpoint or
//                                                          key is a new worker
//   run    {id, cells: [{kind, source, tags}], solution, env}
//                                                          run a lesson's code cells then its checks
//                                                          (looplab.lesson.run_cells), after loading any
//                                                          package of the site's lock the code imports
//                                                          (and openai for LLM_API=sdk); `env` holds
//                                                          the ENV_KEYS below, set in os.environ for
//                                                          this run (LLM_API_KEY: the worker's placeholder)
//   fork   {id, fork: {run, step, reply} | {run, step, result, call_id}, env}
//                                                          re-run a run of the last lesson run from a
//                                                          step with one edit (looplab.replay; the
//                                                          worker keeps those runs' model, toolbox,
//                                                          memory as it was and options by run number,
//                                                          bridge.py `kept`): earlier steps replayed
//                                                          from the record, later ones live. Answered
//                                                          like a run: event/stdout/stderr/ask, then
//                                                          done, whose result has `fork` {answer, steps,
//                                                          stopped, run, first_difference, fork_of}
//                                                          (or ok false and an error saying why not)
//
// worker -> page
//   progress {stage, loaded, total}                        loading: stage is a word for the status
//                                                          line, bytes loaded of the expected total
//   ready    {python, pyodide, isolated, fenced, times}    Python is loaded; runs may start (`times`:
//                                                          ms marks of the load, for bench/startup.py;
//                                                          `fenced`: the worker runs under its own CSP)
//   stdout   {id, text}  /  stderr {id, text}              the learner's output, in batches
//   event    {id, event}                                   one trace event (looplab.trace)
//                                                          (everything a run sends is redacted of
//                                                          keys first: redact.js)
//   ask      {id, kind, request, blocking}                 Python asks the page and (when `blocking`)
//                                                          waits: kind "approval" {tool, arguments} ->
//                                                          {approved, reason}; kind "model" (the local
//                                                          model, looplab/models/local.py) {op:
//                                                          "describe"} -> {model, native_tools, ...}
//                                                          or {op: "chat", messages, tools?,
//                                                          response_format?, max_tokens} -> {message,
//                                                          finish_reason, timings} or {error}. The page answers by
//                                                          writing into the `answers` buffer (asking.js),
//                                                          not by a message; not blocking: the page was
//                                                          not isolated, Python went on without an answer
//   done     {id, result: {ok, error, checks, fork?}, interrupted, extras}
//                                                          the run ended; `interrupted` when Stop's
//                                                          KeyboardInterrupt ended it; `extras`
//                                                          {packages, ms} when this run first loaded
//                                                          extra packages (else null)
//   fatal    {message}                                     the worker cannot go on (Pyodide failed to
//                                                          load, or crashed: out of memory ...); the
//                                                          page reports it and starts a fresh worker
//
// Stop is not a message: the page writes SIGINT (2) into the shared interrupt buffer, which
// Pyodide checks while Python runs, and terminates the worker if the run has not ended soon after.

export const SIGINT = 2;

/** The environment variables a run may set: runner.js sends only these, and bridge.py clears and
 * sets the same list (its ENV_KEYS; tests/site/test_page_rules.py checks the two agree). */
export const ENV_KEYS = ["LOOPLAB_MODEL", "LLM_BASE_URL", "LLM_API_KEY", "LLM_MODEL", "LLM_API", "LLM_MAX_TOKENS"];

/** How long Stop waits for the interrupt before it terminates the worker (ms). Long enough for a
 * busy machine's first interrupt after a snapshot restore; short enough that Stop ends a run in
 * well under the 2 s the site promises. */
export const STOP_GRACE_MS = 1000;
