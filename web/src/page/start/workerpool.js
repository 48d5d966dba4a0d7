// Python's workers, as runner.js takes them: every new worker gets what the first one compiled and
// inflated (the Pyodide WebAssembly.Module — posting it shares the compiled code — and the snapshot's
// bytes), so a restart neither fetches, compiles nor gunzips; and one spare worker, restored while
// the page is idle, makes a restart (Stop on a page that is not isolated, a crash, a new endpoint)
// a swap to an interpreter that is ready already. Messages: shared/protocol.js.
//
// The key rule holds for a spare too: it gets the endpoint and key in its init message, before
// Python exists (worker/transport.js), and is used only while both are still the ones it holds.
// A worker may also be made to hold no key (code from elsewhere runs there: page/lesson/foreign.js); the
// spare holds the key, for the run after such code (the learner's own, or their choice to run it live).
//
// The pool trusts only the `kept` message it asked for: once, from a worker told to keep, before
// anything of its first run arrived (worker.js posts it before any run's code starts), and its
// snapshot only when its bytes are the site's (build.json's sha256). Python can post any message
// a worker can; one it forged later is dropped.

import { toWorker } from "../../shared/protocol.js";
import { answerBuffer } from "../../shared/asking.js";
import { endpointOrigin } from "../../shared/keyscope.js";

/** What a worker says before its first run (any other message: a run has begun, or Python posted it). */
const BEFORE_RUNS = ["progress", "ready", "fatal"];

/** A moment the page has nothing else to do (a second at most). */
function idle() {
  return new Promise((resolve) =>
    self.requestIdleCallback ? requestIdleCallback(resolve, { timeout: 1000 }) : setTimeout(resolve, 0),
  );
}

/** Whether `bytes` are the site's snapshot (build.json `snapshot`: its sha256). False where the
 * page cannot hash (no crypto.subtle: not a secure context): then no snapshot is kept. */
async function theSites(bytes, snapshot) {
  if (!snapshot || !snapshot.sha256 || !(self.crypto && crypto.subtle)) return false;
  try {
    // a snapshot in shared memory is hashed from a copy (digest refuses shared memory)
    const own =
      typeof SharedArrayBuffer !== "undefined" && bytes.buffer instanceof SharedArrayBuffer ? bytes.slice() : bytes;
    const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", own));
    return Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("") === snapshot.sha256;
  } catch {
    return false;
  }
}

/** How long after ready a spare is started (then in idle time). */
export const SPARE_AFTER_MS = 1000;

/** A spare is dropped when the tab has been hidden this long (a new one comes when it is shown). */
export const HIDDEN_MS = 5 * 60 * 1000;

/**
 * Whether this device gets a spare worker. What one costs: a second Pyodide heap (the 30 MiB snapshot
 * restored, ~36 MB more memory in all) for as long as the page is open, and about half a second of a
 * core while it restores. Not on phones, on devices with little memory (navigator.deviceMemory is
 * rounded: 4 means 4 GB or more) or when the browser asks to save data. `?spare=off` turns it off
 * (visit.js; bench/startup.py's "without the spare").
 */
export function spareWanted(nav, visit) {
  if (visit.spare === "off") return false;
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

/** One worker and what belongs to it; its messages wait in `queue` until runner.js listens.
 * `keyed`: it holds the key; `touched`: code from elsewhere ran in it (runner.js sets it);
 * `keep`: it was asked to hand back its parts (`kept`), `kept`: it did; `ran`: a message of a run came. */
class Hand {
  constructor(worker, { interrupt, answers, endpoint, spare, keep }) {
    Object.assign(this, {
      worker,
      interrupt,
      answers,
      endpoint,
      spare,
      keyed: Boolean(endpoint.key),
      touched: false,
      keep,
      kept: false,
      ran: false,
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
   * @param {object} options  {visit (visit.js), endpoint: () => {baseUrl, key}, busy: () => whether a
   *                         run is going, first: what <head> handed over (handoff.js), or none}
   */
  constructor(build, { visit, endpoint, busy = () => false, first = null }) {
    this.build = build;
    this.busy = busy;
    this.visit = visit;
    this.isolated = visit.isolated;
    this.endpoint = endpoint;
    this.first = first; // its take(script): the worker <head> started, once
    this.kept = { module: null, snapshot: null };
    this.verifying = null; // the kept snapshot's hash being checked (keep)
    this.current = null; // the Hand runner.js uses
    this.spare = null; // at most one
    this.early = null; // the first worker, until runner.js takes it (prestart)
    this.wanted = typeof navigator !== "undefined" && spareWanted(navigator, visit);
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

  /** A worker for `endpoint`: the early one or the spare when it holds that endpoint and key (`keyed`
   * false: no key; null: the key or none, for the first worker) and has not failed, else a new one.
   * A spare that holds the endpoint as Settings have it now stays for later. */
  take(endpoint, keyed = true) {
    const key = keyed === false ? "" : endpoint.key;
    const fits = (hand) =>
      hand.endpoint.baseUrl === endpoint.baseUrl &&
      (hand.endpoint.key === key || (keyed === null && hand.endpoint.key === ""));
    let hand = null;
    // An early worker that failed is handed over all the same: runner.js reports it (another
    // worker would fail the same way, as a first one that did not load).
    if (this.early) {
      hand = this.early;
      this.early = null;
      if (!fits(hand)) {
        hand.worker.terminate();
        hand = null;
      }
    }
    if (!hand && this.spare) {
      const spare = this.spare;
      const configured = this.endpoint ? this.endpoint() : { baseUrl: "", key: "" };
      if (fits(spare) && !spare.failed) {
        hand = spare;
        this.spare = null;
      } else if (
        spare.failed ||
        spare.endpoint.baseUrl !== configured.baseUrl ||
        spare.endpoint.key !== configured.key
      ) {
        spare.worker.terminate();
        this.spare = null;
      }
    }
    this.current = hand || this.spawn({ ...endpoint, key }, false);
    if (this.current.ready) this.later();
    return this.current;
  }

  /** A worker's `kept` message: the Module and the snapshot's bytes, for every worker after it —
   * only the one asked for (see above). */
  keep(hand, { module, snapshot }) {
    if (!hand.keep || hand.kept || hand.ran) return;
    hand.kept = true;
    if (module instanceof WebAssembly.Module) this.kept.module = module;
    // The hash of 30 MiB (copied first when shared): in idle time, and the spare waits for it.
    if (snapshot instanceof Uint8Array)
      this.verifying = idle().then(async () => {
        if (await theSites(snapshot, this.build.snapshot)) this.kept.snapshot = snapshot;
        this.verifying = null;
        this.later();
      });
    this.later();
  }

  spawn(endpoint, spare) {
    // `?spare=fail` gives a spare a script that is not there, as a broken deploy would (the
    // fallback's test). The first worker may have been started by the page's first script already.
    const failing = spare && this.visit.spare === "fail";
    const script = workerScript(this.build, endpoint, failing ? "no-such-worker.js" : undefined);
    const worker = (!spare && this.first && this.first.take(script)) || new Worker(script, { type: "module" });
    const interrupt = this.isolated ? new Uint8Array(new SharedArrayBuffer(1)) : null;
    const answers = answerBuffer(this.isolated);
    const { module, snapshot } = this.kept;
    const keep = !module || !snapshot;
    const hand = new Hand(worker, { interrupt, answers, endpoint: { ...endpoint }, spare, keep });
    worker.onmessage = (event) => this.deliver(hand, event.data);
    worker.onerror = (event) => {
      event.preventDefault();
      this.fail(
        hand,
        `Python's worker failed (${event.message || "unknown error"}); it was restarted. Your code is kept.`,
      );
    };
    // `?snapshot=off` starts Python without a memory snapshot, `?snapshot=refuse` spoils the one it
    // tries (the fallback's test: Firefox, where a snapshot might be refused, is not at hand).
    // The Module is shared; so is the kept snapshot on an isolated page (the first worker put it in
    // shared memory), else it is copied into the message (tens of ms of this thread for 30 MiB).
    worker.postMessage(
      toWorker.init({
        interrupt: interrupt ? interrupt.buffer : null,
        answers,
        build: this.build,
        snapshot: this.visit.snapshot === "on" ? null : this.visit.snapshot,
        baseUrl: endpoint.baseUrl,
        key: endpoint.key,
        kept: module || snapshot ? { module, snapshot } : null,
        keep,
        spare,
      }),
    );
    return hand;
  }

  // performance marks looplab:spare-ready and looplab:spare-failed: for tests and bench/startup.py
  deliver(hand, message) {
    if (message && message.type === "kept") return this.keep(hand, message);
    if (message && !BEFORE_RUNS.includes(message.type)) hand.ran = true;
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
    if (!this.wanted || this.spare || this.idle || this.verifying || !this.current || !this.current.ready) return;
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
