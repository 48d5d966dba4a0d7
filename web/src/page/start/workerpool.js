// Python's workers, as runner.js takes them: every new worker gets what the first one compiled and
// inflated (the Pyodide WebAssembly.Module — posting it shares the compiled code — and the snapshot's
// bytes), so a restart neither fetches, compiles nor gunzips; and one spare worker, restored while
// the page is idle, makes a restart (Stop on a page that is not isolated, a crash, a new endpoint)
// a swap to an interpreter that is ready already. Messages: shared/protocol.js.
//
// The key rule holds for a spare too: it gets the endpoint and key in its init message, before
// Python exists (worker/transport.js), and is used only while both are still the ones it holds.

import { toWorker } from "../../shared/protocol.js";
import { answerBuffer } from "../../shared/asking.js";
import { endpointOrigin } from "../../shared/keyscope.js";

/** How long after ready a spare is started (then in idle time). */
export const SPARE_AFTER_MS = 1000;

/** A spare is dropped when the tab has been hidden this long (a new one comes when it is shown). */
export const HIDDEN_MS = 5 * 60 * 1000;

/**
 * Whether this device gets a spare worker. What one costs: a second Pyodide heap (the 30 MiB snapshot
 * restored, ~36 MB more memory in all) for as long as the page is open, and about half a second of a
 * core while it restores. Not on phones, on devices with little memory (navigator.deviceMemory is
 * rounded: 4 means 4 GB or more) or when the browser asks to save data. `?spare=off` turns it off
 * (bench/startup.py's "without the spare").
 */
export function spareWanted(nav = navigator, query = "") {
  if (/[?&]spare=off\b/.test(query)) return false;
  if (nav.userAgentData ? nav.userAgentData.mobile : /Mobi|Android/i.test(nav.userAgent || "")) return false;
  if (typeof nav.deviceMemory === "number" && nav.deviceMemory < 4) return false;
  return !(nav.connection && nav.connection.saveData);
}

/**
 * The address of Python's worker script for `endpoint` (its policy lets Python reach the site and
 * the endpoint's origin, named in the address: looplab/_course/serve.py, sw.js). `build.worker`: named by
 * its bytes (build.json).
 */
export function workerScript(build, endpoint, name = build.worker || "worker.js") {
  const script = new URL(name, document.baseURI);
  const origin = endpointOrigin(endpoint.baseUrl);
  if (origin) script.searchParams.set("connect", origin);
  return script.href;
}

/**
 * The worker page/start/prestart.js started for `script` before the app was here, taken once; null when
 * there is none, or it was for another address, or it failed to load (then it is ended).
 */
function takePrestarted(script) {
  const started = self.looplabPrestarted;
  self.looplabPrestarted = null;
  if (!started || started.later) return null; // (one still to start after the first paint: not now)
  if (started.script === script && !started.failed) return started.worker;
  started.worker.terminate();
  return null;
}

/** One worker and what belongs to it; its messages wait in `queue` until runner.js listens. */
class Hand {
  constructor(worker, { interrupt, answers, endpoint, spare }) {
    Object.assign(this, {
      worker,
      interrupt,
      answers,
      endpoint,
      spare,
      ready: false,
      failed: null,
      queue: [],
      listener: null,
      onError: null,
    });
  }

  /** Runner.js listens from now on: what came before is handed over first, in order, in a task of
   * its own — after what the restart that took this worker still has to do (its run's end). */
  listen(receive, onError) {
    this.onError = onError;
    setTimeout(() => {
      for (const message of this.queue.splice(0)) receive(message);
      this.listener = receive;
      if (this.failed) onError(this.failed);
    }, 0);
  }
}

export class WorkerPool {
  /**
   * @param {object} build  build.json
   * @param {object} options  {isolated, endpoint: () => {baseUrl, key}, busy: () => whether a run is
   *                         going, query: the page's location.search}
   */
  constructor(build, { isolated, endpoint, busy = () => false, query = "" }) {
    this.build = build;
    this.busy = busy;
    this.isolated = isolated;
    this.endpoint = endpoint;
    this.query = new URLSearchParams(query);
    this.kept = { module: null, snapshot: null };
    this.current = null; // the Hand runner.js uses
    this.spare = null; // at most one
    this.early = null; // the first worker, until runner.js takes it (prestart)
    this.wanted = typeof navigator !== "undefined" && spareWanted(navigator, query);
    this.idle = null; // a spare scheduled for idle time
    this.hiddenTimer = null;
    if (this.wanted && typeof document !== "undefined")
      document.addEventListener("visibilitychange", () => this.visibility());
  }

  /** The first worker, started before the app is here (early.js): take() hands it out. */
  prestart(endpoint) {
    this.early = this.spawn(endpoint, false);
  }

  /** The Runner's callbacks, when it takes a pool made before it (early.js). */
  adopt({ endpoint, busy }) {
    Object.assign(this, { endpoint, busy });
  }

  /** A worker for `endpoint`: the early one or the spare when it holds that endpoint and key and
   * has not failed, else a new one. */
  take(endpoint) {
    const other = (hand) => hand.endpoint.baseUrl !== endpoint.baseUrl || hand.endpoint.key !== endpoint.key;
    // An early worker that failed is handed over all the same: runner.js reports it (another
    // worker would fail the same way, as a first one that did not load).
    let hand = this.early || this.spare;
    if (this.early) this.early = null;
    else this.spare = null;
    if (hand && ((hand.failed && hand.spare) || other(hand))) {
      hand.worker.terminate();
      hand = null;
    }
    this.current = hand || this.spawn(endpoint, false);
    if (this.current.ready) this.later();
    return this.current;
  }

  /** A worker's `kept` message: the Module and the snapshot's bytes, for every worker after it. */
  keep({ module, snapshot }) {
    if (module) this.kept.module = module;
    if (snapshot) this.kept.snapshot = snapshot;
    this.later();
  }

  spawn(endpoint, spare) {
    // `?spare=fail` gives a spare a script that is not there, as a broken deploy would (the
    // fallback's test). The first worker may have been started by the page's first script already.
    const failing = spare && this.query.get("spare") === "fail";
    const script = workerScript(this.build, endpoint, failing ? "no-such-worker.js" : undefined);
    const worker = (!spare && takePrestarted(script)) || new Worker(script, { type: "module" });
    const interrupt = this.isolated ? new Uint8Array(new SharedArrayBuffer(1)) : null;
    const answers = answerBuffer(this.isolated);
    const hand = new Hand(worker, { interrupt, answers, endpoint: { ...endpoint }, spare });
    worker.onmessage = (event) => this.deliver(hand, event.data);
    worker.onerror = (event) => {
      event.preventDefault();
      this.fail(
        hand,
        `Python's worker failed (${event.message || "unknown error"}); it was restarted. Your code is kept.`,
      );
    };
    const { module, snapshot } = this.kept;
    // `?snapshot=off` starts Python without a memory snapshot, `?snapshot=refuse` spoils the one it
    // tries (the fallback's test: Firefox, where a snapshot might be refused, is not at hand).
    // The Module is shared; so is the kept snapshot on an isolated page (the first worker put it in
    // shared memory), else it is copied into the message (tens of ms of this thread for 30 MiB).
    worker.postMessage(
      toWorker.init({
        interrupt: interrupt ? interrupt.buffer : null,
        answers,
        build: this.build,
        snapshot: this.query.get("snapshot"),
        baseUrl: endpoint.baseUrl,
        key: endpoint.key,
        kept: module || snapshot ? { module, snapshot } : null,
        keep: !module || !snapshot,
        spare,
      }),
    );
    return hand;
  }

  // performance marks looplab:spare-ready and looplab:spare-failed: for tests and bench/startup.py
  deliver(hand, message) {
    if (message && message.type === "ready") hand.ready = true;
    if (hand.spare && !hand.onError && message && message.type === "ready") performance.mark("looplab:spare-ready");
    if (message && message.type === "fatal" && !hand.onError) return this.fail(hand, message.message);
    if (hand.listener) hand.listener(message);
    else hand.queue.push(message);
    if (hand === this.current && hand.ready && message.type === "ready") this.later();
  }

  /** A worker failed: runner.js hears of it if it uses the worker; a spare is dropped (the next
   * restart then starts a worker as without one). */
  fail(hand, message) {
    if (hand.onError) return hand.onError(message);
    hand.failed = message;
    hand.worker.terminate();
    if (hand.spare) performance.mark("looplab:spare-failed");
    if (this.spare === hand) this.spare = null;
  }

  /** A spare in idle time, once the worker in use is ready and the kept parts are here. */
  later() {
    if (!this.wanted || this.spare || this.idle || !this.current || !this.current.ready) return;
    if (!this.kept.module || (typeof document !== "undefined" && document.hidden)) return;
    const start = () => {
      this.idle = null;
      if (this.spare || !this.current || !this.current.ready || document.hidden) return;
      // Isolated, Stop interrupts and needs no spare: it waits until no run is going, so its
      // restore never slows a run (or the Stop of one) on a 2-core machine.
      if (this.isolated && this.busy()) return void (this.idle = { id: setTimeout(start, SPARE_AFTER_MS) });
      this.spare = this.spawn(this.endpoint ? this.endpoint() : { baseUrl: "", key: "" }, true);
    };
    // A second after ready first (a Run clicked at once is not slowed by the spare's restore on a
    // 2-core machine), then when the page is idle.
    const idle = () =>
      (this.idle = self.requestIdleCallback
        ? { id: requestIdleCallback(start, { timeout: 3000 }), idle: true }
        : { id: setTimeout(start, 0) });
    this.idle = { id: setTimeout(idle, SPARE_AFTER_MS) };
  }

  visibility() {
    clearTimeout(this.hiddenTimer);
    if (!document.hidden) return this.later();
    this.hiddenTimer = setTimeout(() => {
      if (this.idle) (this.idle.idle ? cancelIdleCallback : clearTimeout)(this.idle.id);
      this.idle = null;
      if (this.spare) this.spare.worker.terminate();
      this.spare = null;
    }, HIDDEN_MS);
  }
}
