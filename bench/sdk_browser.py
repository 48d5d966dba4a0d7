"""The openai SDK in the real page: install + import time, and what a call costs, lean adapter vs SDK.

Prints figures; asserts nothing. Run: `make bench`, or `python bench/sdk_browser.py [--runs 3] [--calls 20]`
(needs the "site" and "openai" wheels: `make wheels-site wheels-openai`).

The site is built into a temporary folder with one extra lesson (LESSON below) and served by
scripts/serve.py; the fake OpenAI-compatible server (tests/fakeserver.py) listens on another port,
so every request is cross-origin, as with a real endpoint. Each run uses a fresh Chromium profile:

  chat run        LLM_API=chat: per call, the lean adapter (chat_model over a synchronous XHR)
                  and a bare XHR POST of the same prepared body; the difference is the adapter's own
                  cost per call in the browser
  sdk run, cold   LLM_API=sdk, first time on this profile: the worker fetches and installs the
                  "openai" wheels (the page's status keeps the worker's loadPackage time), the lesson
                  imports openai, builds the client and calls; then the SDK's cost per call
  sdk run, again  the same worker: nothing left to install or import
  sdk run, warm   after a reload (a new worker; the wheels come from the service worker's cache)

"install" is loadPackage (fetch, sha256 check, unpack); "import" is `import openai` in Python;
"click -> done" is the page's own Run-to-result time for the whole lesson.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
from pathlib import Path

from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "tests"), str(ROOT / "tests" / "e2e")]

from fakeserver import FakeServer
from learner import configure_live, open_lesson, set_mode, wait_run_end

from browser import CHROMIUM, CHROMIUM_ARGS, SiteServer, build_site_of, wait_until

SLUG = "99-bench-models"

# importlib, not `import openai`: the worker loads the SDK for what a lesson imports, and the chat
# run must not get it. LLM_API=sdk makes the worker load it before the run.
LESSON = """# %% [markdown]
# # Bench: the live adapters from the page

# %%
import importlib, json, os, time
from looplab import http
from looplab.models.chat import chat_payload
from looplab.models.live import live_model

CALLS = int(os.environ.get("BENCH_CALLS", "__CALLS__"))
api = os.environ.get("LLM_API", "chat")
messages = [{"role": "system", "content": "You are terse."}]
for i in range(5):
    messages += [{"role": "user", "content": f"question {i}"}, {"role": "assistant", "content": f"answer {i}"}]
messages.append({"role": "user", "content": "one more"})
tools = [{"type": "function", "function": {"name": f"tool_{i}", "description": "A tool.", "parameters": {
    "type": "object", "properties": {"x": {"type": "string"}}, "required": ["x"]}}} for i in range(3)]

t = time.perf_counter()
if api == "sdk":
    importlib.import_module("openai")
import_ms = (time.perf_counter() - t) * 1000
t = time.perf_counter()
model = live_model()
model(messages, tools)
first_ms = (time.perf_counter() - t) * 1000

def per_call(fn):
    samples = []
    for _ in range(CALLS):
        t = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - t) * 1000)
    samples.sort()
    return samples[len(samples) // 2]

url = os.environ["LLM_BASE_URL"].rstrip("/") + "/chat/completions"
body = chat_payload(os.environ["LLM_MODEL"], messages, tools)
headers = {"Authorization": "Bearer " + os.environ.get("LLM_API_KEY", "")}
adapter_ms = per_call(lambda: model(messages, tools))
bare_ms = per_call(lambda: http.post_json(url, body, headers, 30))
print("BENCH " + json.dumps({"api": api, "import": import_ms, "first": first_ms,
                             "call": adapter_ms, "bare": bare_ms}))
"""


def run_once(page) -> dict:
    """Click Run; the lesson's BENCH figures plus the page's install time and click -> done."""
    page.get_by_test_id("run").click()
    wait_run_end(page, timeout=180_000)
    text = page.get_by_test_id("output").inner_text()
    lines = [line for line in text.splitlines() if line.startswith("BENCH ")]
    if not lines:
        raise RuntimeError(f"the bench lesson printed no figures:\n{text[-2000:]}")
    figures = json.loads(lines[-1][len("BENCH ") :])
    figures.update(
        page.evaluate("""() => { const s = document.querySelector('[data-testid=status]').dataset;
        return {done: Number(s.runEnded) - Number(s.runStarted), install: s.extrasMs ? Number(s.extrasMs) : null}; }""")
    )
    return figures


def median(values) -> float:
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else float("nan")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--calls", type=int, default=20)
    args = parser.parse_args(argv)

    rows: dict[str, list[dict]] = {"chat": [], "sdk cold": [], "sdk again": [], "sdk warm": []}
    with tempfile.TemporaryDirectory() as tmp:
        lessons = Path(tmp) / "lessons"
        lessons.mkdir()
        (lessons / f"{SLUG}.py").write_text(LESSON.replace("__CALLS__", str(args.calls)))
        site = build_site_of(lessons, Path(tmp) / "dist")
        server = SiteServer(site)
        url = server.url
        try:
            with sync_playwright() as p, FakeServer() as fake:
                for i in range(args.runs):
                    context = p.chromium.launch_persistent_context(
                        f"{tmp}/profile-{i}",
                        executable_path=CHROMIUM,
                        args=CHROMIUM_ARGS,
                        viewport={"width": 1280, "height": 800},
                    )
                    try:
                        page = context.new_page()
                        open_lesson(page, url, SLUG)
                        configure_live(page, fake.url, key="sk-bench-000000000000", api="chat")
                        set_mode(page, "live")
                        rows["chat"].append(run_once(page))
                        configure_live(page, fake.url, key="sk-bench-000000000000", api="sdk")
                        rows["sdk cold"].append(run_once(page))
                        rows["sdk again"].append(run_once(page))
                        wait_until(page, "() => !!navigator.serviceWorker.controller")
                        page.reload()
                        open_lesson(page, url, SLUG)
                        rows["sdk warm"].append(run_once(page))
                    finally:
                        context.close()
                    fake.requests.clear()
                    cold = rows["sdk cold"][-1]
                    print(
                        f"  run {i + 1}/{args.runs}: SDK install {cold['install']:.0f} ms + import "
                        f"{cold['import']:.0f} ms (cold); lean call {rows['chat'][-1]['call']:.2f} ms, "
                        f"SDK call {cold['call']:.2f} ms",
                        flush=True,
                    )
        finally:
            server.stop()

    def m(row: str, key: str) -> float:
        return median(r[key] for r in rows[row])

    print(
        f"\nsdk_browser: medians of {args.runs} runs, headless Chromium, page and fake server on 127.0.0.1 "
        f"(cross-origin), {args.calls} calls per figure"
    )
    print("  the openai SDK, installed in the page from the site's own wheels:")
    for row in ("sdk cold", "sdk again", "sdk warm"):
        install = m(row, "install")
        install_text = f"{install:7.0f}" if install == install else "      -"  # nan: nothing installed
        print(
            f"    {row:10} install {install_text} ms   import {m(row, 'import'):6.0f} ms   "
            f"client + first call {m(row, 'first'):6.0f} ms   click -> done {m(row, 'done'):6.0f} ms"
        )
    print(f"    (a chat run of the same lesson: click -> done {m('chat', 'done'):.0f} ms)")
    bare, lean, sdk = m("chat", "bare"), m("chat", "call"), m("sdk again", "call")
    print("  per call, same request (a 12-message memory, 3 tools) to the fake server:")
    print(f"    bare synchronous XHR POST      {bare:7.2f} ms")
    print(f"    lean adapter (chat_model)      {lean:7.2f} ms   overhead {lean - bare:+.2f} ms")
    print(f"    openai SDK (openai_model_fn)   {sdk:7.2f} ms   overhead {sdk - bare:+.2f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
