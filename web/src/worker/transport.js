// The worker's network transport, and the one place the learner's API key lives in the worker.
//
// The key arrives once, in the worker's init message, before Python starts (`holdKey`), and stays
// in this module's closure: not on globalThis, not in os.environ, not in anything Python reaches
// through `js` or `pyodide.ffi`. Python gets these functions (`send`, `send_async`, and for a body
// read as it arrives `open_stream`, `read_stream`, `close_stream`; registered as the module
// `looplab_transport`; looplab/http.py and httpx2_jsfetch use them): a request goes out as
// Python wrote it, and only when it is for the configured endpoint (keyscope.js) during a live run
// does its Authorization header become `Bearer <key>`. Python's own value (the placeholder) goes
// anywhere else, which the worker's Content-Security-Policy limits to the site and the endpoint.
//
// Every built-in this module calls with the key or with a URL it checked is taken at module
// evaluation, before Python exists: Python can replace XMLHttpRequest.prototype.setRequestHeader
// or String.prototype.indexOf for everyone else, not for this module.

import { keyedURL, parseEndpoint } from "../shared/keyscope.js";
import { REDACTED } from "../shared/redact.js";
import { bytesOf, maskBytes, maskText, pieceMasker } from "../shared/keymask.js";
import { STOPPED } from "../shared/stop.js";
import { base64Of, bytesOfBase64 } from "../shared/asking.js";

const { apply } = Reflect;
const { parse } = JSON;
const { keys } = Object;
const XHR = XMLHttpRequest;
const method = (name) => XHR.prototype[name];
const accessor = (type, name) => Object.getOwnPropertyDescriptor(type.prototype, name);
const setter = (name) => accessor(XHR, name).set;
const reader = (type, name) => accessor(type, name).get;
const OPEN = method("open");
const SET_HEADER = method("setRequestHeader");
const SEND = method("send");
const ALL_HEADERS = method("getAllResponseHeaders");
const SET_TIMEOUT = setter("timeout");
const SET_TYPE = setter("responseType");
const STATUS = reader(XHR, "status");
const RESPONSE = reader(XHR, "response");
const fetchOnce = fetch.bind(self);
const { entries: HEADERS_ENTRIES } = Headers.prototype;
const NEXT_ENTRY = Object.getPrototypeOf(new Headers().entries()).next;
const RESPONSE_HEADERS = reader(Response, "headers");
const RESPONSE_STATUS = reader(Response, "status");
const RESPONSE_BODY = reader(Response, "body");
const ARRAY_BUFFER = Response.prototype.arrayBuffer;
const Controller = AbortController;
const ABORT = AbortController.prototype.abort;
const CONTROLLER_SIGNAL = reader(AbortController, "signal");
const Signal = AbortSignal;
const TIMEOUT = AbortSignal.timeout;
const GET_READER = ReadableStream.prototype.getReader;
const { read: READ, cancel: CANCEL } = ReadableStreamDefaultReader.prototype;
const { toLowerCase } = String.prototype;
const Bytes = Uint8Array;
const KIND = Object.getOwnPropertyDescriptor(Object.getPrototypeOf(Uint8Array.prototype), Symbol.toStringTag).get;
const Waiting = Promise;
const THEN = Promise.prototype.then;
const later = setTimeout;
const unlater = clearTimeout;
const every = setInterval;
const unevery = clearInterval;
// With JavaScript Promise integration Python can wait for a fetch (looplab/http.py, httpx2_jsfetch):
// a keyed request then goes by fetch, which can refuse a redirect; a synchronous XHR cannot.
const JSPI = typeof WebAssembly === "object" && "Suspending" in WebAssembly;

let endpoint = null; // {origin, path} of the configured base URL
let key = "";
let keyBytes = new Bytes(0);
const MASK = bytesOf(REDACTED);
let held = false;
let live = false; // a live run is in progress: only then may a request carry the key
let stopped = () => false; // whether Stop was pressed (and takes it): set by the worker
let askPage; // setPageAsk's: a keyed request asked of the page, while Python waits
let hush = () => {}; // Pyodide's own look at Stop off, while Python waits on a stream's Promise
let hear = () => {}; // and on again
const streams = { __proto__: null }; // open_stream's bodies being read: handle -> {reader, controller}
let nextStream = 1;
const STOP_POLL_MS = 50;

// Headers a browser sets itself; setting them from script only logs a warning.
const BROWSER_OWNED = {
  __proto__: null,
  "content-length": 1,
  host: 1,
  connection: 1,
  "accept-encoding": 1,
  "user-agent": 1,
  origin: 1,
};

/** Take the key and the endpoint it belongs to, once, before Python runs; later calls are refused. */
export function holdKey(baseUrl, apiKey) {
  if (held) throw new Error("the key is held already");
  held = true;
  endpoint = parseEndpoint(typeof baseUrl === "string" ? baseUrl : "");
  key = typeof apiKey === "string" && endpoint ? apiKey : "";
  keyBytes = bytesOf(key);
}

/** How a keyed synchronous request reaches the page (worker.js, before Python runs): `ask(request)`
 * posts it and waits for the page's answer (an object), or returns null when it cannot wait. */
export function setPageAsk(ask) {
  if (askPage !== undefined) throw new Error("the page's way is set already");
  askPage = typeof ask === "function" ? ask : null;
}

/** Whether a key is held (Python then sees KEY_PLACEHOLDER in LLM_API_KEY). */
export function hasKey() {
  return key !== "";
}

/** A live run begins (true) or ends (false, also after scripted and local runs): only requests made
 * while a live run is in progress may carry the key. Whatever a run leaves behind — a timer, a
 * callback, a pending request — runs outside it without the key. */
export function setLive(value) {
  live = value === true;
}

/** How a stream read hears Stop while Python waits for it: `take()` is true once after Stop was
 * pressed (and clears it, as Pyodide's own interrupt check does); `off()` and `on()` turn Pyodide's
 * own check of Stop off while Python waits and on again (see `waited`). */
export function setStopCheck(take, off, on) {
  stopped = typeof take === "function" ? take : () => false;
  hush = typeof off === "function" ? off : () => {};
  hear = typeof on === "function" ? on : () => {};
}

/** Python is back from run_sync on a Promise of open_stream or read_stream (it calls this in a
 * `finally`): Pyodide looks at Stop again, and a Stop pressed since raises KeyboardInterrupt in the
 * Python that runs next. While Python waited, Pyodide did not look: run_sync awaits a Future, and
 * Pyodide resolves it by calling Python from JavaScript twice (the Future's result, then its done
 * callback, a task later); a KeyboardInterrupt raised in either is lost with the piece, run_sync
 * then waits for good, and the page restarts Python after its grace (about one Stop in twenty
 * with pieces 2 ms apart). Meanwhile Stop is heard by `settle`'s look at it. */
export function waited() {
  hear();
}

/** The text with the key (when held, 4 characters or more) written as `mask` — without calling
 * anything Python could have replaced with the key as an argument (keymask.js). */
export function maskKey(text, mask) {
  return maskText(text, key, mask);
}

/** Python's headers (JSON text of an object of strings) as a record of names and values with no
 * prototype, without the ones the browser owns, and with the key's Authorization when `keyed`
 * (Python's own Authorization then dropped). The record is what fetch gets: fetch reads a record
 * with plain property reads, and with no prototype there is nothing for it to call that Python
 * could have replaced (a Headers object is read through Headers.prototype[Symbol.iterator]). The
 * key goes in last, after everything Python gave was read. */
function headerRecord(headersJson, keyed) {
  const given = typeof headersJson === "string" && headersJson ? parse(headersJson) : {};
  const names = given && typeof given === "object" ? keys(given) : [];
  const record = { __proto__: null };
  for (let i = 0; i < names.length; i++) {
    const name = names[i];
    const value = given[name];
    if (typeof name !== "string" || typeof value !== "string") continue;
    const lower = apply(toLowerCase, name, []);
    if (BROWSER_OWNED[lower] === 1 || (keyed && lower === "authorization")) continue;
    record[name] = value;
  }
  if (keyed) record.Authorization = "Bearer " + key;
  return record;
}

/** Where a request goes and whether it carries the key: {href, keyed}. */
function target(url) {
  const href = live && key ? keyedURL(endpoint, url) : null;
  return href === null ? { href: typeof url === "string" ? url : "", keyed: false } : { href, keyed: true };
}

/** A body Python gave: its text or its bytes (a Uint8Array, told by its internal slot, not by
 * anything Python can answer for it), else none. */
function bodyOf(body) {
  return typeof body === "string" || apply(KIND, body, []) === "Uint8Array" ? body : null;
}

const verbOf = (verb) => (typeof verb === "string" ? verb : "GET");

/** What Python gets of an answer: its header text and its body, the key masked out of both. */
function answer(status, headerText, bytes) {
  return {
    status,
    headers: maskText(headerText, key, REDACTED),
    body: key ? maskBytes(bytes, keyBytes, MASK) : bytes,
  };
}

/** A keyed request the page makes while Python waits (page/run/keyedfetch.js): {status, headers,
 * body} with the key masked out (by the page, and again here), or {error}. The question holds no
 * key; the page adds it. No way to wait for the page (not cross-origin isolated, or no
 * SharedArrayBuffer): "cannot wait". */
function sendByPage(verb, href, headersJson, body, timeoutMs) {
  const request = {
    method: verbOf(verb),
    url: href,
    headers: typeof headersJson === "string" ? headersJson : "{}",
    timeoutMs: typeof timeoutMs === "number" ? timeoutMs : 0,
  };
  if (typeof body === "string") request.body = body;
  else if (body !== null) request.body64 = base64Of(body);
  const got = askPage ? askPage(request) : null;
  if (!got) return { error: "cannot wait" };
  if (typeof got.unavailable === "string") return { error: "unanswered" }; // (an answer over the buffer's size)
  if (typeof got.status !== "number") return { error: typeof got.error === "string" ? got.error : "blocked" };
  return answer(got.status, typeof got.headers === "string" ? got.headers : "", bytesOfBase64(got.body64 || ""));
}

/**
 * One synchronous request: {status, headers (the raw header text), body (Uint8Array)}, or {error:
 * "timeout" | "blocked" | "redirected" | "fetch only" | "cannot wait" | "refused"} when no HTTP
 * answer came. A request with the key never follows a redirect, and a synchronous XHR follows one
 * before anything can refuse it, so a keyed request never goes by XHR: where Python can wait for a
 * fetch (JSPI) it goes by fetch only ("fetch only" here: looplab/http.py and httpx2_jsfetch wait
 * for one); elsewhere the page makes it with fetch while Python waits (`sendByPage`).
 */
export function send(verb, url, headersJson, body, timeoutMs) {
  const { href, keyed } = target(url);
  if (keyed && JSPI) return { error: "fetch only" };
  const given = bodyOf(body);
  if (keyed) return sendByPage(verb, href, headersJson, given, timeoutMs);
  const xhr = new XHR();
  apply(SET_TYPE, xhr, ["arraybuffer"]);
  if (typeof timeoutMs === "number" && timeoutMs > 0) apply(SET_TIMEOUT, xhr, [timeoutMs]);
  try {
    apply(OPEN, xhr, [verbOf(verb), href, false]);
    const headers = headerRecord(headersJson, false);
    const names = keys(headers);
    for (let i = 0; i < names.length; i++) apply(SET_HEADER, xhr, [names[i], headers[names[i]]]);
    apply(SEND, xhr, [given]);
  } catch (error) {
    return { error: error && error.name === "TimeoutError" ? "timeout" : "blocked" };
  }
  const status = apply(STATUS, xhr, []);
  if (status === 0) return { error: "blocked" };
  return answer(status, apply(ALL_HEADERS, xhr, []) || "", new Bytes(apply(RESPONSE, xhr, []) || new ArrayBuffer(0)));
}

/** fetch's options for a request (headers: headerRecord). No prototype either: fetch reads its
 * options with plain property reads, and a getter Python put on Object.prototype would otherwise
 * see this object. A keyed request refuses any redirect, so the key never follows one out of the
 * endpoint's prefix. */
function fetchInit(verb, headersJson, body, keyed, signal) {
  const method = verbOf(verb);
  const given = bodyOf(body);
  return {
    __proto__: null,
    method,
    body: given,
    credentials: "omit",
    cache: "no-store",
    redirect: keyed ? "error" : "follow",
    signal,
    headers: headerRecord(headersJson, keyed),
  };
}

function rawHeaders(response) {
  let raw = "";
  const entries = apply(HEADERS_ENTRIES, apply(RESPONSE_HEADERS, response, []), []);
  for (let step = apply(NEXT_ENTRY, entries, []); !step.done; step = apply(NEXT_ENTRY, entries, []))
    raw += step.value[0] + ": " + step.value[1] + "\r\n";
  return raw;
}

/** The same over fetch, for asynchronous Python (httpx2_jsfetch's async transport): a Promise. */
export async function send_async(verb, url, headersJson, body, timeoutMs) {
  const { href, keyed } = target(url);
  const init = fetchInit(
    verb,
    headersJson,
    body,
    keyed,
    typeof timeoutMs === "number" && timeoutMs > 0 ? apply(TIMEOUT, Signal, [timeoutMs]) : null,
  );
  let response;
  try {
    response = await fetchOnce(href, init);
  } catch (error) {
    return { error: error && error.name === "TimeoutError" ? "timeout" : "blocked" };
  }
  const headers = rawHeaders(response);
  return answer(apply(RESPONSE_STATUS, response, []), headers, new Bytes(await apply(ARRAY_BUFFER, response, [])));
}

// --- a body read as it arrives (looplab/http.py open_stream, through pyodide.ffi.run_sync) -------
// Python waits on each Promise with run_sync, suspended (JSPI), so the worker's thread is free
// meanwhile: the page's chunks reach Python as the network delivers them. While Python waits,
// nothing checks the interrupt buffer, so each wait here looks at Stop every STOP_POLL_MS and
// aborts the request when it was pressed.

/** `promise`, or {error: "timeout"} after `ms` (0: none), or {error: "stopped"} on Stop; `abort()`
 * runs when it is not the promise that settled. A Stop pressed since the last look wins over what
 * the promise brought: resolving with it would run Python (Pyodide's resolver of the Future that
 * run_sync waits on) with Stop pending, and Pyodide's own check would raise KeyboardInterrupt inside
 * that resolver, where it is lost with the piece; run_sync would then wait for good, and the page
 * restart Python after its grace (about one Stop in eight, mid-stream). */
function settle(promise, ms, abort) {
  return new Waiting((resolve) => {
    let over = false;
    const end = (value, aborting) => {
      if (over) return;
      over = true;
      unlater(timer);
      unevery(poll);
      const stop = !aborting && stopped();
      if (aborting || stop) abort();
      resolve(stop ? { error: STOPPED } : value);
    };
    const timer = ms > 0 ? later(() => end({ error: "timeout" }, true), ms) : null;
    const poll = every(() => stopped() && end({ error: STOPPED }, true), STOP_POLL_MS);
    apply(THEN, promise, [
      (value) => end(value, false),
      (error) => end({ error: error && error.name === "AbortError" ? STOPPED : "dropped" }, false),
    ]);
  });
}

/**
 * Start a request whose body Python reads piece by piece: a Promise of {status, headers, stream}
 * (`stream`: the handle for read_stream), or {error: "timeout" | "blocked" | "stopped"}.
 * `timeoutMs` bounds the wait for the answer's headers, and then each wait for a piece.
 */
export function open_stream(verb, url, headersJson, body, timeoutMs) {
  hush();
  const { href, keyed } = target(url);
  const controller = new Controller();
  const init = fetchInit(verb, headersJson, body, keyed, apply(CONTROLLER_SIGNAL, controller, []));
  const abort = () => apply(ABORT, controller, []);
  let handle = 0;
  const answered = apply(THEN, fetchOnce(href, init), [
    (response) => {
      handle = nextStream++;
      const stream = apply(RESPONSE_BODY, response, []);
      streams[handle] = {
        reader: stream ? apply(GET_READER, stream, []) : null,
        abort,
        ms: timeoutMs,
        masker: key ? pieceMasker(keyBytes, MASK) : null,
        ended: false,
      };
      const headers = maskText(rawHeaders(response), key, REDACTED);
      return { status: apply(RESPONSE_STATUS, response, []), headers, stream: handle };
    },
    (error) => {
      throw error;
    },
  ]);
  return apply(THEN, settle(answered, timeoutMs, abort), [
    (value) => {
      if (value.error && handle) delete streams[handle]; // answered, but Stop won: Python never sees it
      return value.error === "dropped" ? { error: "blocked" } : value;
    },
  ]);
}

/** The next piece of a stream's body: a Promise of {chunk: Uint8Array}, {done: true}, or {error:
 * "timeout" (nothing arrived for its timeout) | "dropped" (the connection failed) | "stopped"}. */
export function read_stream(handle) {
  hush();
  const open = streams[handle];
  if (!open) return Waiting.resolve({ error: "dropped" });
  if (!open.reader || open.ended) return Waiting.resolve({ done: true });
  const piece = apply(THEN, apply(READ, open.reader, []), [
    (got) => {
      if (!got.done) return { chunk: open.masker ? open.masker.piece(new Bytes(got.value)) : new Bytes(got.value) };
      open.ended = true; // what the masker held back (the start of a key that never came) goes last
      const rest = open.masker ? open.masker.end() : null;
      return rest && rest.length ? { chunk: rest } : { done: true };
    },
  ]);
  return settle(piece, open.ms, open.abort);
}

/** Done with a stream (read to its end, broken, or left): its request is aborted if still going. */
export function close_stream(handle) {
  const open = streams[handle];
  if (!open) return;
  delete streams[handle];
  if (open.reader) apply(THEN, apply(CANCEL, open.reader, []), [() => {}, () => {}]);
  open.abort();
}
