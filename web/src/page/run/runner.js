// The page's handle on the Python worker: start it, run a lesson, stop a run, restart after a crash
// (a worker comes from workerpool.js: the spare when there is one).
// Messages: shared/protocol.js. Stop tries the interrupt buffer first and terminates the worker last.
//
// Every run names the Python it may run in (page/lesson/foreign.js realmOf): code from elsewhere that is
// still marked runs in a worker that holds no key; the learner's own code in a worker that holds
// the key and that no code from elsewhere has touched. When the worker in use is not such a one,
// it is ended and a fresh one takes its place (`swap`: the spare, or one restored from the
// snapshot) before the run is sent — so nothing a run of foreign code left behind (timers, hooks,
// patched modules, globals) is there when a run holds the key.

import { ENV_KEYS, reader, toWorker } from "../../shared/protocol.js";
import { STOP_GRACE_MS, STOP_HEARD_MS, forget, press, pressed } from "../../shared/stop.js";
import { writeAnswer } from "../../shared/asking.js";
import { keyedFetch, refusal } from "./keyedfetch.js";
import { WorkerPool } from "../start/workerpool.js";
import { thisVisit } from "../start/visit.js";

/** How a run ended: its checks ran, Stop's KeyboardInterrupt ended it, Stop (or a new endpoint)
 * had to restart Python, Python crashed (and is restarted when it had loaded), or the runner
 * refused it (Python not ready, another run going on; `error` says which). */
export const OUTCOMES = ["checked", "interrupted", "restarted", "crashed", "refused"];

export class Runner {
  /**
   * @param {object} build  build.json
   * @param {object} on     callbacks: starting({restart}) (a worker is starting: the first one, or
   *                        a new one after a Stop that terminated or a crash), progress, ready,
   *                        crashed(message, {restart}); endpoint() -> {baseUrl, key}: the live
   *                        endpoint a new worker may reach and the key it holds (transport.js);
   *                        pool: a WorkerPool made before (early.js), or none
   */
  constructor(build, on) {
    this.build = build;
    this.on = on;
    this.endpoint = { baseUrl: "", key: "" };
    this.worker = null;
    this.hand = null; // the worker's Hand (workerpool.js): whether it holds the key, and was touched
    this.ready = false;
    this.swapping = false; // a fresh worker is taking the place of one that did not fit a run
    this.keyless = false; // the last run was of marked code: a restart starts a worker with no key
    this.current = null; // {id, resolve, timer, heard, on}
    this.filesAsked = new Map(); // id -> resolve, for the `files` questions not answered yet
    this.nextId = 1;
    // on.pool: the pool early.js made before the app loaded, its first worker started already
    this.pool = on.pool || new WorkerPool(build, { visit: thisVisit(), endpoint: on.endpoint });
    this.pool.adopt({ endpoint: on.endpoint, busy: () => this.running });
    this.start();
  }

  start() {
    const restart = this.worker !== null;
    this.swapping = false;
    // The first worker may hold no key (early.js starts one so for a link); after that, a restart
    // holds the key unless the last run was of marked code (the next run then fits it).
    const hand = this.take(restart ? !this.keyless : null);
    this.on.starting({ restart, spare: hand.spare });
  }

  /** A worker from the pool (`keyed`: true, false, null: either, for the first): it becomes the one in use. */
  take(keyed) {
    this.answerFiles({ error: "Python started again: the project is gone with it until the lesson runs" });
    this.ready = false;
    // The key goes to a worker once, in its init message, before Python exists (workerpool.js).
    this.endpoint = this.on.endpoint ? this.on.endpoint() : { baseUrl: "", key: "" };
    const hand = this.pool.take(this.endpoint, keyed); // the spare, when there is one for this endpoint
    ({ interrupt: this.interrupt, answers: this.answers } = hand);
    const worker = hand.worker;
    this.worker = worker;
    this.hand = hand;
    hand.listen(this.reader(worker), (message) => this.crash(worker, message));
    return hand;
  }

  /** Whether the worker in use may run code of `realm` (foreign.js realmOf). With no key set there
   * is no key to keep apart: any worker fits. */
  fits(realm, hand = this.hand) {
    if (!this.endpoint.key || !hand) return true;
    if (realm === "keyless") return !hand.keyed;
    if (realm === "elsewhere") return hand.keyed;
    return hand.keyed && !hand.touched;
  }

  /** End the worker in use and take a fresh one for `realm` (the spare when it fits): Python's
   * state goes with the old one, as after a restart (`on.swapped`), but this is no restart — the
   * run waiting for it (`current.waiting`) is sent when it is ready. */
  swap(realm) {
    if (!this.swapping) performance.mark("looplab:swap"); // (tests wait for as many looplab:swapped)
    this.worker.terminate();
    this.swapping = true;
    this.take(realm !== "keyless");
    this.on.swapped?.();
  }

  /** The lesson on screen now runs as `realm` (it was opened, the learner chose a model for its
   * code, or brought their own back): a worker that fits is started now, while they read. */
  prepare(realm) {
    if (this.current || !(this.ready || this.swapping) || this.fits(realm)) return;
    this.swap(realm);
  }

  /** What this worker's messages do; a message from a worker already replaced is dropped. */
  reader(worker) {
    const mine = (handle) => (message) => worker === this.worker && handle(message);
    const ofRun = (handle) =>
      mine((message) => this.current && message.id === this.current.id && handle(this.current, message));
    return reader("toPage", {
      progress: mine((message) => this.on.progress(message)),
      ready: mine((message) => {
        this.ready = true;
        if (!this.swapping) return this.on.ready(message);
        this.swapping = false; // a swap's worker: the run that waits for it goes now
        performance.mark("looplab:swapped");
        const waiting = this.current && this.current.waiting;
        if (waiting) {
          this.current.waiting = null;
          waiting();
        }
      }),
      stdout: ofRun((run, { text }) => run.on.stdout(text)),
      stderr: ofRun((run, { text }) => run.on.stderr(text)),
      event: ofRun((run, { event }) => run.on.event(event)),
      delta: ofRun((run, { text }) => this.delta(run, text)),
      ask: mine((message) => this.ask(this.current && message.id === this.current.id ? this.current : null, message)),
      done: ofRun((_run, { result, interrupted, extras }) =>
        this.finish({ ...result, outcome: interrupted ? "interrupted" : "checked", extras: extras || null }),
      ),
      kept: () => {
        // (workerpool.js keeps what a worker hands back: only the message it asked for)
      },
      files: mine(({ id, project, error }) => this.answerFiles({ project, error }, id)),
      fatal: mine(({ message }) => this.crash(worker, message)),
    });
  }

  /** A piece of the reply text of `run` (the current run), to its `on.delta`. */
  delta(run, text) {
    if (!run || run !== this.current || !text) return;
    if (run.on.delta) run.on.delta(text);
  }

  /** Between runs: the project the last run's lesson laid out (protocol.js `files`), "read" or
   * "reset" (laid out again first). Resolves {project, error}: project null when there is none. */
  files(op) {
    if (!this.ready)
      return Promise.resolve({
        project: null,
        error: "Python is starting (again, after a Stop or a crash): run the lesson to lay its project out",
      });
    const id = this.nextId++;
    return new Promise((resolve) => {
      this.filesAsked.set(id, resolve);
      this.worker.postMessage(toWorker.files(id, op));
    });
  }

  answerFiles(answer, id = null) {
    // one question's answer, or (no id) the same answer to all
    for (const [asked, resolve] of this.filesAsked) {
      if (id !== null && asked !== id) continue;
      this.filesAsked.delete(asked);
      resolve({ project: null, error: null, ...answer });
    }
  }

  /** Python asks the page (asking.js): the run's `on.ask(kind, request, {blocking, signal, delta})` answers
   * (`delta(text)`: the local model's tokens as the page's engine writes them, to the run's on.delta);
   * a blocking question's answer goes to the answer buffer, unless the run ended meanwhile. */
  ask(run, { kind, request, blocking }) {
    const controller = new AbortController();
    if (run && blocking) run.asking = controller; // a run that waits: its end or Stop takes the question away
    const handler = run && run.on.ask;
    Promise.resolve()
      .then(() =>
        kind === "fetch"
          ? this.keyedFetch(run, request, blocking, controller.signal)
          : handler
            ? handler(kind, request, { blocking, signal: controller.signal, delta: (text) => this.delta(run, text) })
            : { unavailable: `the page cannot answer a "${kind}" question` },
      )
      .catch((error) => ({
        unavailable: `the page could not answer: ${error && error.message ? error.message : error}`,
      }))
      .then((answer) => {
        if (run && run.asking === controller) run.asking = null;
        if (blocking && !controller.signal.aborted && (!run || this.current === run))
          writeAnswer(this.answers, answer || {});
      });
  }

  /** A request with the key that Python in a live run makes synchronously where it cannot wait for a
   * fetch (keyedfetch.js): made here, following no redirect, for the run in progress only. */
  keyedFetch(run, request, blocking, signal) {
    const why = refusal(request, {
      run,
      blocking,
      keyed: Boolean(this.hand && this.hand.keyed),
      endpoint: this.endpoint,
    });
    return why ? { error: "refused", why } : keyedFetch(request, { endpoint: this.endpoint, signal });
  }

  finish(result) {
    const run = this.current;
    if (!run) return;
    this.current = null;
    clearTimeout(run.timer);
    if (run.asking) run.asking.abort(); // a question still open (a dialog) goes away with its run
    run.resolve({ ok: false, error: null, checks: [], extras: null, ...result });
  }

  /** The worker failed: a fresh one when this one had loaded Python (a crash in a run); when
   * Python could not load at all, another worker would fail the same way, so none is started. */
  crash(worker, message) {
    if (worker !== this.worker) return;
    const restart = this.ready || this.swapping; // (a swap's worker: the one before it had loaded)
    worker.terminate();
    this.ready = false;
    this.on.crashed(message, { restart });
    this.finish({ outcome: "crashed", message });
    if (restart) this.start();
  }

  /**
   * Run a lesson's cells (`carried`: the saved cells of the lessons it reuses, page/run/carried.js, or a
   * Promise of them: the run is this runner's from now on, and goes to Python when they are here);
   * `on` receives this run's stdout(text), stderr(text), event(event) and delta(text) (a model
   * reply's text as it arrives; optional), and answers its questions: ask(kind, request, {blocking,
   * signal}) -> answer (or a Promise). Resolves with {outcome, ok, error, checks, extras, message?}
   * (never rejects): `outcome` is one of OUTCOMES, `message` says why Python crashed.
   */
  run(cells, { solution = false, carried = {}, env = {}, on, realm = "own" }) {
    return this.send(
      (id, known, given) => toWorker.run(id, { cells, solution, carried: given }, known),
      env,
      on,
      realm,
      carried,
    );
  }

  /** Fork a kept run from a step (shared/protocol.js `fork`): like a run, with the fork's events; the
   * result carries `fork` (protocol.js ForkOutcome). Kept runs live in the worker in use: a fork
   * that does not fit it is refused, not swapped. */
  fork(request, { env = {}, on, realm = "own" }) {
    if (!this.fits(realm))
      return Promise.resolve({
        outcome: "checked",
        ok: false,
        error: "This run was made in a Python your code may not share: run the lesson again, then fork it.",
        checks: [],
        extras: null,
      });
    return this.send((id, known) => toWorker.fork(id, request, known), env, on, realm);
  }

  /** One chat message to the lesson's agent (shared/protocol.js `chat`): like a run, with the turn's
   * events; the result carries `chat` (protocol.js ChatTurn). */
  chat(cells, { message = null, fresh = false, solution = false, env = {}, on, realm = "own" }) {
    return this.send((id, known) => toWorker.chat(id, { cells, solution, message, fresh }, known), env, on, realm);
  }

  /** Re-check one lesson (`only`, a slug) of a "built it" record (shared/protocol.js `replay`); the
   * result carries `verdicts`. `cells`: that lesson with the record's code, for the packages it needs.
   * A record's code is code from elsewhere: a Python with no key (proof/replayer.js starts one). */
  replay({ cells, record, texts, only }, { env = {}, on }) {
    return this.send((id, known) => toWorker.replay(id, { cells, record, texts, only }, known), env, on, "keyless");
  }

  /** Why a run cannot be taken now (null: it can). */
  refusal() {
    if (!(this.ready || this.swapping)) return "Python is starting (again): run it once the status line says Ready";
    if (this.current) return "another run is going on: stop it, or wait for its end";
    return null;
  }

  // The run is this runner's as soon as send returns (a Stop, a new endpoint or a crash ends it from
  // then on, with its outcome); its message goes to Python once `given` (what it waits for, e.g.
  // the carried lessons) is here and a worker that fits `realm` is ready. A run that cannot be
  // taken ends at once, "refused", saying why.
  send(message, env, on, realm = "own", given = null) {
    // message(id, env, given): the protocol's run, fork, chat or replay
    const why = this.refusal();
    if (why) return Promise.resolve({ outcome: "refused", ok: false, error: why, checks: [], extras: null });
    const id = this.nextId++;
    const known = Object.fromEntries(ENV_KEYS.filter((key) => key in env).map((key) => [key, env[key]]));
    return new Promise((resolve) => {
      const run = {
        id,
        resolve,
        timer: null,
        heard: false,
        sent: false,
        on,
        waiting: null,
        live: known.LOOPLAB_MODEL === "live",
      };
      this.current = run;
      if (!this.fits(realm)) this.swap(realm);
      Promise.resolve(given).then(
        (value) => {
          if (this.current !== run) return; // it ended before it began
          const go = () => {
            run.sent = true;
            if (realm === "elsewhere") this.hand.touched = true; // the learner's own code never runs here again
            this.keyless = realm === "keyless";
            // A Stop left over from the last run is forgotten here, not in the worker: a Stop pressed
            // before the worker has read this message must still interrupt the run.
            forget(this.interrupt);
            this.worker.postMessage(message(id, known, value));
          };
          if (this.swapping) run.waiting = go;
          else go();
        },
        (error) =>
          this.current === run &&
          this.finish({
            outcome: "refused",
            error: `the run could not begin: ${error && error.message ? error.message : error}`,
          }),
      );
    });
  }

  get running() {
    return Boolean(this.current);
  }

  /** Stop the run: KeyboardInterrupt first; if Python has not stopped after a grace period, a new worker. */
  stop() {
    const run = this.current;
    if (!run) return;
    if (!run.sent) return this.finish({ outcome: "interrupted", error: "KeyboardInterrupt: stopped before it began" });
    if (run.asking) run.asking.abort();
    if (this.interrupt) {
      press(this.interrupt); // again on a second Stop; the deadline stays the first one's
      run.timer = run.timer || setTimeout(() => this.overdue(run), STOP_GRACE_MS);
    } else {
      this.terminate(run);
    }
  }

  /** Stop's grace period is over and the run goes on. Python that never looked at the buffer is
   * ended now; Python that took the interrupt (it cleared the buffer) has STOP_HEARD_MS more, once. */
  overdue(run) {
    if (this.current !== run) return;
    if (!pressed(this.interrupt) && !run.heard) {
      run.heard = true;
      run.timer = setTimeout(() => this.terminate(run), STOP_HEARD_MS);
      return;
    }
    this.terminate(run);
  }

  /** The endpoint or the key changed (Settings): a new worker holds the new key under the new
   * policy (a run in progress ends as restarted). False when nothing changed. */
  renew() {
    const next = this.on.endpoint ? this.on.endpoint() : { baseUrl: "", key: "" };
    if (next.baseUrl === this.endpoint.baseUrl && next.key === this.endpoint.key) return false;
    this.worker.terminate();
    this.ready = false;
    this.finish({ outcome: "restarted", renewed: true }); // renewed: Settings, not Stop, ended it
    this.keyless = false; // a worker for the new key (a run of marked code swaps to one without)
    this.start();
    return true;
  }

  /** This runner is done (a record's replay): its worker ends and no other starts. */
  close() {
    if (this.current) this.finish({ outcome: "restarted" });
    this.worker.terminate();
    this.ready = false;
  }

  terminate(run) {
    if (this.current !== run) return;
    this.worker.terminate();
    this.finish({ outcome: "restarted", heard: run.heard }); // heard: Python took the interrupt and went on
    this.start();
  }
}
