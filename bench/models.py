"""Benchmarks of the live adapters — figures printed, nothing asserted.

    python bench/models.py            # CPython: the lean adapter's own cost per call
    python bench/models.py --pyodide  # also: the openai SDK's install + import time in Pyodide (Node.js)

1. Lean adapter overhead: the same chat completion (a 20-message memory with tool calls, 3 tools)
   sent to the local fake server by `chat_model` and by a bare urllib POST of a prepared body;
   the difference is what the adapter adds (building the payload, JSON, reading the reply).
   Its pure part (payload + reply, no network) is timed on its own too.
2. SDK in Pyodide: unpack the "openai" group of wheels.lock.json plus our httpx2_jsfetch wheel
   from .cache/wheels (run `python scripts/wheels.py openai` and `python py-extra/build.py`
   first), import openai, and make one chat completion through httpx2_jsfetch's transport with
   a stand-in `send` (Node.js has no XMLHttpRequest). Node, not a browser: a proxy figure.
"""

import json
import statistics
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "py"), str(ROOT / "tests")]

from fakeserver import FakeServer, chat_call

from looplab.models.chat import chat_model, chat_payload, read_chat_reply
from looplab.models.endpoint import Endpoint

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": f"tool_{i}",
            "description": "A tool.",
            "parameters": {"type": "object", "properties": {"x": {"type": "string"}}, "required": ["x"]},
        },
    }
    for i in range(3)
]


def memory(n: int = 20) -> list[dict]:
    out = [{"role": "system", "content": "You are a careful research helper.", "tokens": 9}]
    for i in range(n // 2):
        call = {"id": f"call_{i}", "type": "function", "function": {"name": "tool_0", "arguments": '{"x": "a"}'}}
        out += [
            {"role": "assistant", "content": None, "tool_calls": [call], "tokens": 20},
            {"role": "tool", "tool_call_id": f"call_{i}", "content": "result text " * 20, "tokens": 60},
        ]
    return out


def timed(fn, repeat: int) -> list[float]:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return times


def lean_overhead(repeat: int = 300) -> None:
    messages = memory()
    with FakeServer() as server:
        reply = chat_call("tool_1", {"x": "b"}, "call_z")
        model = chat_model(Endpoint(server.url, "sk-bench-000000000000", "m"))
        body = json.dumps(chat_payload("m", messages, TOOLS)).encode()
        headers = {"Content-Type": "application/json", "Authorization": "Bearer sk-bench-000000000000"}

        def bare():
            request = urllib.request.Request(server.url + "/chat/completions", data=body, headers=headers)
            with urllib.request.urlopen(request, timeout=10) as answer:
                answer.read()

        def adapter():
            model(messages, TOOLS)

        for fn in (bare, adapter):  # warm up
            server.script(reply)
            fn()
        samples = {"bare urllib POST": [], "chat_model": []}
        for _ in range(repeat):  # interleaved, so drift hits both alike
            for name, fn in (("bare urllib POST", bare), ("chat_model", adapter)):
                server.script(reply)
                samples[name] += timed(fn, 1)
            server.requests.clear()
    pure = timed(lambda: read_chat_reply(reply["json"]) and chat_payload("m", messages, TOOLS), 2000)
    bare_ms = statistics.median(samples["bare urllib POST"]) * 1000
    lean_ms = statistics.median(samples["chat_model"]) * 1000
    print(f"lean adapter, {len(messages)}-message memory, {len(TOOLS)} tools, {repeat} calls each (median):")
    print(f"  bare urllib POST to the fake server   {bare_ms:8.3f} ms")
    print(f"  chat_model (same request and reply)   {lean_ms:8.3f} ms")
    print(f"  overhead per call                     {lean_ms - bare_ms:8.3f} ms ({lean_ms / bare_ms:.2f}x)")
    print(f"  payload + reply reading alone         {statistics.median(pure) * 1e6:8.1f} µs")


PYODIDE_SCRIPT = r"""
import { readFileSync } from "node:fs";
import { loadPyodide } from "pyodide";
const [wheels, files] = [process.argv[1], JSON.parse(process.argv[2])];
let t = performance.now();
const py = await loadPyodide({ indexURL: "node_modules/pyodide/" });
const ready = performance.now() - t;
t = performance.now();
const extractDir = py.runPython("import sysconfig; sysconfig.get_paths()['purelib']");
for (const f of files) py.unpackArchive(new Uint8Array(readFileSync(`${wheels}/${f}`)), "wheel", { extractDir });
const unpack = performance.now() - t;
t = performance.now();
py.runPython("import openai");
const imp = performance.now() - t;
t = performance.now();
const out = py.runPython(`
import json, httpx2
from httpx2_jsfetch import JavascriptFetchTransport
from openai import OpenAI
def send(method, url, headers, body, timeout):
    sent = json.loads(body)
    reply = {"id": "x", "object": "chat.completion", "created": 1, "model": sent["model"],
             "choices": [{"index": 0, "finish_reason": "stop",
                          "message": {"role": "assistant", "content": "hi " + sent["messages"][0]["content"]}}]}
    return 200, [("content-type", "application/json")], json.dumps(reply).encode()
client = OpenAI(base_url="http://127.0.0.1:1/v1", api_key="k",
                http_client=httpx2.Client(transport=JavascriptFetchTransport(send=send)))
assert isinstance(OpenAI(base_url="http://127.0.0.1:1/v1", api_key="k")._client._transport, JavascriptFetchTransport)
client.chat.completions.create(model="m", messages=[{"role": "user", "content": "there"}]).choices[0].message.content
`);
const call = performance.now() - t;
console.log(JSON.stringify({ ready, unpack, imp, call, out }));
"""


def sdk_in_pyodide() -> None:
    lock = json.loads((ROOT / "wheels.lock.json").read_text())
    files = [e["filename"] for e in lock["groups"]["openai"]] + ["httpx2_jsfetch-0.1.0-py3-none-any.whl"]
    wheels = ROOT / ".cache" / "wheels"
    missing = [f for f in files if not (wheels / f).exists()]
    if missing:
        print(f"SDK in Pyodide: skipped, missing {missing} — run scripts/wheels.py openai and py-extra/build.py")
        return
    size = sum((wheels / f).stat().st_size for f in files) / 1e6
    proc = subprocess.run(
        ["node", "--input-type=module", "-e", PYODIDE_SCRIPT, str(wheels), json.dumps(files)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    if proc.returncode:
        print("SDK in Pyodide failed:\n" + proc.stderr[-2000:])
        return
    r = json.loads(proc.stdout.strip().splitlines()[-1])
    print(f"openai SDK in Pyodide on Node.js ({len(files)} wheels, {size:.1f} MB):")
    print(
        f"  Pyodide ready {r['ready']:7.0f} ms   unpack wheels {r['unpack']:6.0f} ms   "
        f"import openai {r['imp']:6.0f} ms   first call {r['call']:5.0f} ms  -> {r['out']!r}"
    )


if __name__ == "__main__":
    lean_overhead()
    if "--pyodide" in sys.argv:
        sdk_in_pyodide()
