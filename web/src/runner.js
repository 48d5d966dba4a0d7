// The page's handle on the Python worker: start it, run a lesson, stop a run, restart after a crash.
// Messages: see protocol.js. Stop tries the interrupt buffer first and terminates the worker last.

import { ENV_KEYS, SIGINT, STOP_GRACE_MS } from "./protocol.js";

export class Runner {
  /**
   * @param {object} build  build.json
   * @param {object} on     callbacks: progress, ready, stdout, stderr, event, crashed(message, {restart})
   */
  constructor(build, on) {
    this.build = build;
    this.on = on;
    this.worker = null;
    this.ready = false;
    this.current = null; // {id, resolve}
    this.nextId = 1;
    this.isolated = self.crossOriginIsolated && typeof SharedArrayBuffer !== "undefined";
    this.start();
  }

  start() {
    this.ready = false;
    this.interrupt = this.isolated ? new Uint8Array(new SharedArrayBuffer(1)) : null;
    const worker = new Worker(new URL("worker.js", document.baseURI), { type: "module" });
    this.worker = worker;
    worker.onmessage = (event) => this.receive(worker, event.data);
    worker.onerror = (event) => {
      event.preventDefault();
      this.crash(worker, `Python's worker failed (${event.message || "unknown error"}); it was restarted. Your code is kept.`);
    };
    worker.postMessage({ type: "init", interrupt: this.interrupt ? this.interrupt.buffer : null, build: this.build });
  }

  receive(worker, message) {
    if (worker !== this.worker) return; // a message from a worker we already replaced
    const run = this.current;
    switch (message.type) {
      case "progress":
        this.on.progress(message);
        break;
      case "ready":
        this.ready = true;
        this.on.ready(message);
        break;
      case "stdout":
      case "stderr":
        if (run && message.id === run.id) this.on[message.type](message.text);
        break;
      case "event":
        if (run && message.id === run.id) this.on.event(message.event);
        break;
      case "done":
        if (run && message.id === run.id) this.finish({ ...message.result, interrupted: message.interrupted, extras: message.extras || null });
        break;
      case "fatal":
        this.crash(worker, message.message);
        break;
    }
  }

  finish(result) {
    const run = this.current;
    if (!run) return;
    this.current = null;
    clearTimeout(run.timer);
    run.resolve(result);
  }

  /** The worker failed: a fresh one when this one had loaded Python (a crash in a run); when
   * Python could not load at all, another worker would fail the same way, so none is started. */
  crash(worker, message) {
    if (worker !== this.worker) return;
    const restart = this.ready;
    worker.terminate();
    this.ready = false;
    this.on.crashed(message, { restart });
    this.finish({ ok: false, error: null, checks: [], crashed: message });
    if (restart) this.start();
  }

  /** Run a lesson; resolves with {ok, error, checks, interrupted?, terminated?, crashed?, extras?}. */
  run(cells, { solution = false, env = {} } = {}) {
    if (!this.ready || this.current) return Promise.reject(new Error("Python is not ready"));
    const id = this.nextId++;
    return new Promise((resolve) => {
      this.current = { id, resolve, timer: null };
      const known = Object.fromEntries(ENV_KEYS.filter((key) => key in env).map((key) => [key, env[key]]));
      this.worker.postMessage({ type: "run", id, cells, solution, env: known });
    });
  }

  get running() {
    return Boolean(this.current);
  }

  /** Stop the run: KeyboardInterrupt first; if Python has not stopped after a grace period, a new worker. */
  stop() {
    const run = this.current;
    if (!run) return;
    if (this.interrupt) {
      this.interrupt[0] = SIGINT;
      run.timer = setTimeout(() => this.terminate(run), STOP_GRACE_MS);
    } else {
      this.terminate(run);
    }
  }

  terminate(run) {
    if (this.current !== run) return;
    this.worker.terminate();
    this.finish({ ok: false, error: null, checks: [], interrupted: true, terminated: true });
    this.start();
  }
}
