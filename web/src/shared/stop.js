// Stop, one rule for both sides. Stop is not a message (the worker may be busy in Python for a
// long while): the page writes SIGINT into the interrupt buffer it shares with the worker
// (`press`, page/run/runner.js). Pyodide looks at the buffer while Python runs; while Python waits
// on a Promise the worker looks instead (worker/stop.js, transport.js). Whoever sees it first takes
// it (`take`: the buffer is 0 again) and raises KeyboardInterrupt in Python, so a buffer back at 0
// after a press means Python heard it. A Stop heard while Python waited on the page's fetch reaches
// Python as the error STOPPED, which looplab/http.py raises as KeyboardInterrupt (the two words are
// held together by tests/site/test_page_rules.py). A page that is not cross-origin isolated has no
// buffer: its Stop ends the worker.

export const SIGINT = 2;

/** The word a wait answers with when Stop was pressed (looplab/http.py STOPPED). */
export const STOPPED = "stopped";

/** How long Stop waits for the interrupt before it terminates the worker (ms). Long enough for a
 * busy machine's first interrupt after a snapshot restore; short enough that Stop ends a run in
 * well under the 2 s the site promises. */
export const STOP_GRACE_MS = 1000;

/** How much longer Stop waits, once, when Python has taken the interrupt by the grace period's end
 * (its signal check clears the buffer) but the run has not ended: its KeyboardInterrupt is on its
 * way out (a `finally` at work, a first traceback on a busy machine). Both together stay inside
 * the 2 s. */
export const STOP_HEARD_MS = 800;

/** The page: Stop pressed (again on a second press). */
export function press(buffer) {
  buffer[0] = SIGINT;
}

/** The page, before a run: a Stop left over from the last run is forgotten. */
export function forget(buffer) {
  if (buffer) buffer[0] = 0;
}

/** Whether a Stop is pressed and not taken yet. */
export function pressed(buffer) {
  return Boolean(buffer) && buffer[0] !== 0;
}

/** The worker: true once after Stop was pressed, and the buffer is 0 again (as Pyodide's own
 * check leaves it). */
export function take(buffer) {
  if (!pressed(buffer)) return false;
  buffer[0] = 0;
  return true;
}
