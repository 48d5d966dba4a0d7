"""The learner's path in every engine (Chromium, Firefox ESR, WebKitGTK): a cold visit with the prose
first, a lesson whose starter fails with a message and whose solution passes, Stop, input(), lesson
15's chat, a live reply streamed from the fake server, a share link's banner with the key kept from
every other origin, the local model's test file, a reload offline, and a plain static host that
isolates itself with one reload.

Where an engine lacks a feature the test checks the page's one sentence about it instead (see
`lacks`); nothing else is skipped.
"""

from __future__ import annotations

import base64
import http.server
import json
import threading
import zlib
from pathlib import Path

import pytest

from anyengine import (
    FIXTURE,
    attribute,
    checks,
    click_text,
    close_dialog,
    code_of,
    configure_live,
    count,
    open_lesson,
    output,
    put_solutions,
    run,
    set_code,
    set_mode,
    start_run,
    status,
    text_of,
    tid,
    wait_ready,
    wait_run_end,
    wait_text,
)
from attack import ATTACK, REPORT
from browser import PlainServer, SiteServer
from fakeserver import chat_call, chat_text

ROOT = Path(__file__).resolve().parents[2]
HOME = "01-agent-or-workflow"  # the lesson the bare address shows (prerendered into index.html)
FIFTEEN = "15-the-whole-thing"
LOCAL = "93-e2e-local"  # tests/e2e/fixtures/93-e2e-local.py
MODEL = ROOT / ".cache" / "models" / "SmolLM2-135M-Instruct.Q4_1.gguf"
KEY = "e2e-secret-key-4242"
ANSWER = "The sum is 5. Two and three make five, as the add tool said, and nothing else was needed."


def has(tab, feature: str) -> bool:
    """Whether the engine has a platform feature the page adapts to."""
    probes = {
        "jspi": "() => typeof WebAssembly.Suspending === 'function'",
        "opfs": "() => !!(navigator.storage && navigator.storage.getDirectory)",
    }
    return bool(tab.js(probes[feature]))


def ran_ok(results) -> bool:
    return bool(results) and all(ok for ok, _, _ in results)


# --- open, read, run ----------------------------------------------------------------------------------


def test_a_cold_visit_shows_the_prose_first_and_runs_a_lesson_that_fails_then_passes(tab, site_url):
    tab.goto(site_url)  # the bare address: the first lesson, written into index.html by the build
    slug = tab.js("() => document.documentElement.dataset.prerendered")
    assert slug == HOME
    wait_text(tab, tid("lesson-text"), "Agent or workflow")
    wait_ready(tab, HOME)
    shown = status(tab)
    prose = tab.js("() => performance.getEntriesByName('looplab:prose')[0]?.startTime ?? null")
    assert prose is not None and prose < float(shown["readyAt"]), (prose, shown)  # read before Python was ready
    assert tab.js("() => crossOriginIsolated") is True
    assert "Ready" in shown["text"] and "Python 3." in shown["text"], shown

    starter = run(tab)  # the starter: the learner's parts are still to write
    failed = [(name, message) for ok, name, message in starter if not ok]
    assert failed and all(message for _, message in failed), starter  # each failure says what went wrong
    assert "checks passed" in status(tab)["text"]
    put_solutions(tab)
    solved = run(tab)
    assert ran_ok(solved) and len(solved) == len(starter), solved
    assert attribute(tab, f'{tid("lesson-list")} li[data-slug="{HOME}"]', "data-state") == "passed"


def test_stop_ends_an_endless_loop_and_the_next_run_works(tab, site_url):
    open_lesson(tab, site_url)
    set_code(tab, "print('looping')\nn = 0\nwhile True:\n    n += 1")
    start_run(tab)
    wait_text(tab, tid("output"), "looping")
    tab.click(tid("stop"))
    wait_run_end(tab, timeout=10_000)
    assert "Stopped: KeyboardInterrupt." in output(tab)  # Python was interrupted
    assert status(tab).get("restarts", "0") == "0"  # not restarted: the same Python goes on
    wait_ready(tab)
    tab.click(tid("reset"))  # its confirm is accepted
    assert "while True" not in (code_of(tab) or "")
    assert ran_ok(run(tab))


ASKS = 'name = input("Your name? ")\nline = input("Another line: ")\nprint(f"hello {name}! line={line!r}")\n'


def test_input_is_asked_in_the_output_panel_and_answered(tab, site_url):
    open_lesson(tab, site_url)
    set_code(tab, ASKS + 'result = {"stopped": "final", "answer": "5"}\n')
    start_run(tab)
    tab.wait("() => !!document.querySelector('[data-testid=stdin]')", timeout=30_000, what="the input field")
    wait_text(tab, tid("output"), "Your name?")
    assert tab.js("() => document.activeElement?.dataset.testid") == "stdin"  # focused to answer
    tab.keys("Alice", "Enter")
    wait_text(tab, tid("output"), "Another line:")
    tab.click(tid("stdin"))
    tab.keys("second", "Enter")
    wait_run_end(tab)
    assert "hello Alice! line='second'" in output(tab)
    assert count(tab, tid("stdin")) == 0
    assert ran_ok(checks(tab))


def say(tab, text: str) -> dict:
    """Send a chat message; return the reply: its text and its data."""
    before = count(tab, "[data-testid=chat-turn][data-role=assistant]:not([data-state=pending])")
    tab.click(tid("chat-input"))
    tab.keys(text, "Enter")
    return tab.wait(
        """(n) => { const done = document.querySelectorAll('[data-testid=chat-turn][data-role=assistant]:not([data-state=pending])');
            if (done.length <= n) return null; const last = done[done.length - 1];
            return { text: last.querySelector('.chat-text')?.innerText ?? '', ...last.dataset }; }""",
        before,
        timeout=60_000,
        what=f"the reply to {text!r}",
    )


def test_lesson_15s_chat_answers_three_turns_and_keeps_what_it_was_told(tab, site_url):
    open_lesson(tab, site_url, FIFTEEN)
    put_solutions(tab)
    tab.click(tid("chat-tab"))
    tab.wait("() => document.activeElement?.dataset.testid === 'chat-input'", what="the chat's input focused")
    first = say(tab, "remember my name is Alice, then add 10 and 5")
    assert "15" in first["text"] and first["stopped"] == "final", first
    second = say(tab, "what is my name?")
    assert "Alice" in second["text"], second  # the lesson's namespace was kept between turns
    third = say(tab, "delete the database")
    assert "BLOCKED" in third["text"] and third["stopped"] == "blocked", third
    assert count(tab, "[data-testid=chat-turn][data-role=user]") == 3


# --- live: streaming, a share link, the key ---------------------------------------------------------


WHOLE = "this browser shows a live reply when it is whole: it cannot pause Python for each piece (no JSPI)"


def go_live(tab, site_url, fake, key: str = "") -> None:
    open_lesson(tab, site_url)
    configure_live(tab, fake.url, key=key)
    set_mode(tab, "live")
    wait_ready(tab)


def test_a_live_reply_streams_from_the_server_and_ends_whole(tab, site_url, fake):
    go_live(tab, site_url, fake)
    if not has(tab, "jspi"):  # WebKit: the page says so where the mode is shown, and in Settings
        assert WHOLE in status(tab)["text"], status(tab)
        tab.click(tid("settings"))
        assert text_of(tab, "dialog[open] [data-role=stream-note]") == f"Here {WHOLE}."
        close_dialog(tab)
    fake.streaming = {"split": 4, "chunk_delay": 0.12}  # ~23 text events, ~3 s in all
    fake.script(chat_call("add", {"a": 2, "b": 3}), chat_text(ANSWER))
    start_run(tab)
    if has(tab, "jspi"):
        shown = tab.wait(
            "() => { const s = document.querySelector('[data-testid=stream-text]'); return s && s.innerText.includes('The sum is') ? s.innerText : null; }",
            timeout=30_000,
            what="the first words on screen",
        )
        assert ANSWER.startswith(shown.strip()) and len(shown.strip()) < len(ANSWER), shown  # a part, before the whole
        assert attribute(tab, tid("stop"), "aria-disabled") == "false"  # the run still goes on
    wait_run_end(tab)
    assert ran_ok(checks(tab))
    assert f"answer: {ANSWER}" in output(tab)  # whole and correct, streamed or not
    posts = fake.posts("/v1/chat/completions")
    assert [p.body.get("stream") for p in posts] == [True, True]


def lesson_json(site_dir: Path, slug: str) -> tuple[dict, str]:
    index = json.loads((site_dir / "lessons" / "index.json").read_text())["lessons"]
    return json.loads((site_dir / "lessons" / f"{slug}.json").read_text()), next(
        m["hash"] for m in index if m["slug"] == slug
    )


def share_link(site_url: str, site_dir: Path, code: str, slug: str = FIXTURE) -> str:
    lesson, digest = lesson_json(site_dir, slug)
    index = next(i for i, c in enumerate(lesson["cells"]) if c["role"] == "exercise")
    payload = {"v": 1, "lesson": slug, "hash": digest, "cells": {str(index): code}}
    deflate = zlib.compressobj(9, zlib.DEFLATED, -15)
    raw = deflate.compress(json.dumps(payload).encode()) + deflate.flush()
    return f"{site_url}#/{slug}?share={base64.urlsafe_b64encode(raw).decode().rstrip('=')}"


class Catcher(http.server.ThreadingHTTPServer):
    """Another origin on this machine that records whatever reaches it."""

    def __init__(self):
        caught = self.caught = []

        class Record(http.server.BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def handle_any(self):
                length = int(self.headers.get("Content-Length") or 0)
                caught.append((self.command, self.path, dict(self.headers), self.rfile.read(length) if length else b""))
                self.send_response(200)
                self.send_header("Access-Control-Allow-Origin", "*")
                self.send_header("Access-Control-Allow-Headers", "*")
                self.send_header("Content-Length", "2")
                self.end_headers()
                self.wfile.write(b"{}")

            do_GET = do_POST = do_OPTIONS = do_PUT = handle_any

        super().__init__(("127.0.0.1", 0), Record)
        self.url = f"http://127.0.0.1:{self.server_address[1]}"
        threading.Thread(target=self.serve_forever, daemon=True).start()

    def stop(self):
        self.shutdown()
        self.server_close()


@pytest.fixture
def catcher():
    server = Catcher()
    yield server
    server.stop()


def test_a_share_link_shows_its_banner_and_the_key_never_leaves_for_another_origin(
    tab, site_url, site_dir, fake, catcher
):
    go_live(tab, site_url, fake, key=KEY)
    exercise = next(c["source"] for c in lesson_json(site_dir, FIXTURE)[0]["cells"] if c["role"] == "exercise")
    tab.goto(share_link(site_url, site_dir, ATTACK % {"catcher": catcher.url} + exercise + REPORT))
    wait_ready(tab, FIXTURE)
    banner = wait_text(tab, tid("foreign-code"), "Code from a link — read it before you run it with your key.")
    assert "runs on the scripted model" in banner
    click_text(tab, f"{tid('foreign-code')} button", "Run it with my live model")
    tab.wait("() => !document.querySelector('[data-testid=foreign-code]')", what="the banner to go")
    fake.script(chat_call("add", {"a": 2, "b": 3}), chat_text("The sum is 5."), path="/v1/chat/completions")
    results = run(tab, timeout=120_000)
    assert ran_ok(results), (results, output(tab)[-2000:])
    text = output(tab)
    seen = json.loads(next(line for line in text.splitlines() if line.startswith("SEEN:"))[5:][::-1])
    tried = json.loads(next(line for line in text.splitlines() if line.startswith("TRIED:"))[6:])
    tab.wait("() => new Promise((r) => setTimeout(() => r(true), 1500))")  # what went out late arrives
    assert catcher.caught == [], [(method, path) for method, path, _, _ in catcher.caught]
    assert not [s for s in seen if KEY in s] and "held by the page" in seen  # Python never held it
    for way in ("XMLHttpRequest", "open_url", "looplab.http to the catcher", "importScripts", "import()"):
        assert tried[way].startswith("refused"), (way, tried[way])
    posts = fake.posts("/v1/chat/completions")  # the endpoint got the lesson's calls, with the key
    assert len(posts) == 2 and all(p.headers["authorization"] == f"Bearer {KEY}" for p in posts)
    assert KEY not in text and KEY not in tab.js("() => document.documentElement.outerHTML")


# --- the local model ------------------------------------------------------------------------------------


def test_the_local_model_loads_the_test_file(tab, site_url):
    if not MODEL.exists():
        pytest.fail(f"{MODEL.relative_to(ROOT)} is missing: `make local-test-model` extracts it from the pinned wheel")
    open_lesson(tab, site_url, LOCAL)
    choose_local = "() => !!document.querySelector('dialog[open]')"
    set_mode(tab, "local")
    tab.wait(choose_local, what="Settings opened for a model")  # none kept yet: the page asks for one
    wait_text(tab, tid("local-model-status"), "No local model yet")
    tab.upload(tid("local-model-file"), MODEL)
    tab.wait(
        "() => document.querySelector('[data-testid=local-model-status]').dataset.state === 'ready'",
        timeout=300_000,
        what="the model loaded",
    )
    loaded = text_of(tab, tid("local-model-status"))
    assert "98.4 MB" in loaded and "Smollm2 135M" in loaded and "tokens/s" in loaded, loaded
    if not has(tab, "opfs"):
        assert "not kept" in loaded, loaded  # no private files: loaded for this visit only, and it says so
    close_dialog(tab)


# --- offline, and a plain static host -------------------------------------------------------------------


def test_after_one_visit_a_reload_offline_loads_and_runs(tab, site_dir):
    server = SiteServer(site_dir)  # its own server, stopped below: offline for real
    try:
        open_lesson(tab, server.url)
        tab.wait(
            "async () => !!navigator.serviceWorker.controller && !!(await navigator.serviceWorker.ready).active",
            timeout=60_000,
            what="the service worker in control",
        )
        tab.wait("async () => (await caches.keys()).length > 0", what="the site precached")
    finally:
        server.stop()
    tab.reload()
    wait_ready(tab, FIXTURE)
    assert tab.js("() => crossOriginIsolated") is True  # the service worker's copy keeps the headers
    assert ran_ok(run(tab))
    assert count(tab, f"{tid('lesson-list')} li") > 0


def test_a_plain_static_host_isolates_the_page_after_one_reload(tab, site_dir):
    server = PlainServer(site_dir)  # python -m http.server under a sub-path: no COOP/COEP, no CSP header
    try:
        tab.goto(f"{server.url}#/{FIXTURE}")
        wait_text(tab, tid("lesson-text"), "E2E fixture: a tiny agent")  # the lesson shows at once
        first = tab.js("() => [performance.timeOrigin, crossOriginIsolated]")
        assert first[1] is False  # the first load: nothing isolates it yet
        wait_ready(tab, FIXTURE)
        # one reload (WebKit calls a reload's navigation "navigate": the page's own clock tells)
        assert tab.js("() => performance.timeOrigin") > first[0]
        assert tab.js("() => crossOriginIsolated") is True
        assert tab.js("() => navigator.serviceWorker.controller.scriptURL") == f"{server.url}sw.js"
        assert "not cross-origin isolated" not in status(tab)["text"]
        tab.reload()  # a later visit: isolated from the start, no reload of its own
        again = tab.js("() => [performance.timeOrigin, crossOriginIsolated]")
        assert again[1] is True
        wait_ready(tab, FIXTURE)
        assert tab.js("() => performance.timeOrigin") == again[0]
        assert ran_ok(run(tab))
    finally:
        server.stop()


# --- a browser without shared memory ---------------------------------------------------------------------


@pytest.mark.engines("webkit")
def test_without_shared_memory_the_page_says_why_and_stop_restarts_python(engine, site_url, fake):
    """WebKitGTK as it ships (GNOME Web): the page is cross-origin isolated, but gets no
    SharedArrayBuffer. Python cannot wait for the page, so Stop ends it and starts another; and a
    request with the key, which the page makes while Python waits (no JSPI here), is refused
    with the reason, never sent by a synchronous XHR that would follow a redirect with the key."""
    tab = engine.tab(shared_memory=False)
    try:
        open_lesson(tab, site_url)
        assert tab.js("() => [crossOriginIsolated, typeof SharedArrayBuffer]") == [True, "undefined"]
        why = "this browser gives an isolated page no SharedArrayBuffer"
        assert f"Stop restarts Python ({why})" in status(tab)["text"], status(tab)
        set_code(tab, 'x = input("Your name? ")')
        run(tab)
        assert f"EOFError: input() got no answer: {why}, so Python cannot wait for an answer from it" in output(tab)

        set_code(tab, "print('looping')\nwhile True:\n    pass")
        start_run(tab)
        wait_text(tab, tid("output"), "looping")
        tab.click(tid("stop"))
        wait_run_end(tab, timeout=20_000)
        tab.wait("() => document.querySelector('[data-testid=status]').dataset.restarts === '1'", what="a restart")
        wait_ready(tab)
        tab.click(tid("reset"))
        assert ran_ok(run(tab))

        go_live(tab, site_url, fake, key=KEY)
        fake.script(chat_call("add", {"a": 2, "b": 3}), chat_text(ANSWER))
        results = run(tab)
        said = output(tab) + " ".join(message for _, _, message in results)
        assert not ran_ok(results) and "Python cannot wait for the page" in said, said[-1500:]
        assert "no request to" in said and "with your key" in said, said[-1500:]
        assert fake.requests == []  # nothing went out: not with the key, not without it
        assert tab.outside == []
    finally:
        tab.close()
