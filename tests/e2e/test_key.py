"""The key stays in the page: code from a link, with the learner's key set and the live model on,
reaches nothing but the site and the endpoint, and never the key (web/src/worker/transport.js, the
worker's Content-Security-Policy); the endpoint gets the lesson's requests with the key, by the
raw chat adapter, the openai SDK and Test connection alike."""

from __future__ import annotations

import base64
import http.server
import json
import threading
import zlib

import pytest
from playwright.sync_api import expect

from attack import ATTACK, REPORT
from browser import PlainServer
from conftest import guard
from fakeserver import chat_call, chat_text
from learner import (
    FIXTURE,
    code_of,
    configure_live,
    open_lesson,
    run,
    set_code,
    set_mode,
    try_connection,
    wait_ready,
    wait_swapped,
)

KEY = "e2e-secret-key-4242"  # not shaped like a real key: only the worker's masking by value hides it
PLACEHOLDER = "held by the page"


class CatcherHandler(http.server.BaseHTTPRequestHandler):
    """Records every request, whatever it is, and answers it with open CORS."""

    def log_message(self, *args):
        pass

    def handle_any(self):
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length).decode("utf-8", "replace") if length else ""
        self.server.caught.append(
            {"method": self.command, "path": self.path, "headers": dict(self.headers), "body": body}
        )
        self.send_response(200)
        self.send_header("Access-Control-Allow-Origin", "*")
        self.send_header("Access-Control-Allow-Headers", "*")
        self.send_header("Content-Length", "2")
        self.end_headers()
        self.wfile.write(b"{}")

    do_GET = do_POST = do_OPTIONS = do_PUT = handle_any


@pytest.fixture
def catcher():
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), CatcherHandler)
    server.caught = []
    server.url = f"http://127.0.0.1:{server.server_address[1]}"
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield server
    server.shutdown()
    server.server_close()


def lesson_of(site_dir, slug: str = FIXTURE) -> tuple[dict, str]:
    """A lesson's JSON as the site serves it, and its hash from the index."""
    index = json.loads((site_dir / "lessons" / "index.json").read_text())["lessons"]
    return json.loads((site_dir / "lessons" / f"{slug}.json").read_text()), next(
        m["hash"] for m in index if m["slug"] == slug
    )


def share_link(site_url: str, site_dir, code: str, slug: str = FIXTURE) -> str:
    """A share link (web/src/share.js's format) whose exercise cell holds `code`."""
    lesson, digest = lesson_of(site_dir, slug)
    index = next(i for i, c in enumerate(lesson["cells"]) if c["role"] == "exercise")
    payload = {"v": 1, "lesson": slug, "hash": digest, "cells": {str(index): code}}
    deflate = zlib.compressobj(9, zlib.DEFLATED, -15)
    raw = deflate.compress(json.dumps(payload).encode()) + deflate.flush()
    return f"{site_url}#/{slug}?share={base64.urlsafe_b64encode(raw).decode().rstrip('=')}"


def exercise_source(site_dir) -> str:
    lesson, _ = lesson_of(site_dir)
    return next(c["source"] for c in lesson["cells"] if c["role"] == "exercise")


def report_of(page) -> tuple[list[str], dict]:
    """What the attack saw (un-reversed) and what became of each way out."""
    text = page.get_by_test_id("output").inner_text()
    seen = next(line for line in text.splitlines() if line.startswith("SEEN:"))[5:]
    tried = next(line for line in text.splitlines() if line.startswith("TRIED:"))[6:]
    return json.loads(seen[::-1]), json.loads(tried)


@pytest.mark.plain_host
@pytest.mark.parametrize("api", ["chat", "sdk"])
def test_code_from_a_link_cannot_send_the_key_anywhere_and_the_endpoint_still_gets_it(
    page, site_url, site_dir, fake, catcher, api
):
    open_lesson(page, site_url)
    configure_live(page, fake.url, key=KEY, api=api)
    set_mode(page, "live")
    page.goto(share_link(site_url, site_dir, ATTACK % {"catcher": catcher.url} + exercise_source(site_dir) + REPORT))
    wait_ready(page, FIXTURE)
    page.get_by_test_id("foreign-code").get_by_role("button", name="Run it with my live model").click()
    expect(page.get_by_test_id("foreign-code")).to_have_count(0)
    wait_swapped(page)  # chosen: a fresh worker with the key (the link's code never ran in it)
    for worker in page.workers:
        worker.evaluate("""() => { self.__refused = [];
            self.addEventListener("securitypolicyviolation", (e) => self.__refused.push([e.effectiveDirective, e.blockedURI])); }""")
    fake.script(chat_call("add", {"a": 2, "b": 3}), chat_text("The sum is 5."), path="/v1/chat/completions")

    results = run(page)
    assert [ok for ok, _, _ in results] == [True, True], results  # the lesson's checks pass live
    seen, tried = report_of(page)
    page.wait_for_timeout(1500)  # what went out asynchronously arrives
    assert catcher.caught == [], [(c["method"], c["path"]) for c in catcher.caught]
    # The worker's policy refused them: every way out to the catcher, and every worker of Python's own.
    refused = [seen for worker in page.workers for seen in worker.evaluate("self.__refused || []")]
    host = catcher.url.split("//")[1]
    to_catcher = [(directive, uri.split("?")[0]) for directive, uri in refused if f"//{host}/" in uri]
    assert {directive for directive, _ in to_catcher} == {"connect-src"}, refused
    assert {f"ws://{host}/ws", f"http://{host}/events", f"http://{host}/pyfetch", f"http://{host}/xhr"} <= {
        uri for _, uri in to_catcher
    }
    assert len([1 for directive, _ in refused if directive == "worker-src"]) == 2, (
        refused
    )  # the site's worker.js, a blob
    # The endpoint got the lesson's requests with the key, set by the worker.
    posts = fake.posts("/v1/chat/completions")
    assert len(posts) == 2 and all(p.headers["authorization"] == f"Bearer {KEY}" for p in posts)
    outside = [r for r in fake.requests if r.path == "/outside" and r.method == "GET"]
    assert [r.headers.get("authorization") for r in outside] == [
        f"Bearer {PLACEHOLDER}"
    ]  # outside the prefix: Python's own
    # Python never had the key: not in the environment, the globals, the modules, the spies' catch.
    assert PLACEHOLDER in seen and len(seen) > 100
    assert not [s for s in seen if KEY in s]
    for way in (
        "XMLHttpRequest",
        "open_url",
        "looplab.http to the catcher",
        "importScripts",
        "import()",
        "run_js import()",
        "Cache API",
        "private files",
    ):
        assert tried[way].startswith("refused"), (way, tried[way])
    assert tried["looplab_transport to the catcher"] == "ok: blocked"
    for kind in ("key", "settings"):  # the page answers only the questions it defines
        assert (
            f'the page has no answer to a \\"{kind}\\" question'
            in tried[f"ask the page for the {kind}" if kind == "key" else f"ask the page for {kind}"]
        ), tried
    text = page.get_by_test_id("output").inner_text()
    assert KEY not in text and KEY not in page.content()


def test_test_connection_sends_the_key_to_the_endpoint_only_and_a_new_endpoint_restarts_python(
    page, site_url, fake, catcher
):
    open_lesson(page, site_url)
    configure_live(page, fake.url, key=KEY)
    outcome, message = try_connection(page)
    assert outcome == "works" and message.startswith("Works: fake-model answered")
    assert [p.headers["authorization"] for p in fake.posts("/v1/chat/completions")] == [f"Bearer {KEY}"]
    assert catcher.caught == []

    probe = (
        "import js\ndef reach(url):\n    x = js.XMLHttpRequest.new()\n    try:\n        x.open('GET', url, False)\n"
        "        x.send()\n        return x.status\n    except Exception as exc:\n        return type(exc).__name__\n"
        f"print('REACH', reach({catcher.url!r} + '/v1/models'), reach({fake.url!r} + '/models'))\n"
    )
    set_code(page, probe)
    run(page)
    expect(page.get_by_test_id("output")).to_contain_text("REACH JsException 200")  # the catcher is fenced off
    assert catcher.caught == []

    configure_live(page, catcher.url + "/v1", key=KEY)  # a new endpoint: Python starts again
    wait_ready(page)
    run(page)
    expect(page.get_by_test_id("output")).to_contain_text("REACH 200 JsException")  # now the other way round
    assert [c["path"] for c in catcher.caught] == ["/v1/models"]
    assert "authorization" not in {k.lower() for k in catcher.caught[0]["headers"]}  # scripted mode: no key


def test_without_a_worker_policy_the_page_says_so_and_python_still_never_holds_the_key(browser, site_dir, fake):
    # A plain static host whose service worker cannot run: nothing gives the worker a policy.
    server = PlainServer(site_dir)
    context = browser.new_context(service_workers="block")
    guard(context)
    try:
        page = context.new_page()
        open_lesson(page, server.url)
        expect(page.get_by_test_id("status")).to_contain_text("Python's network is not fenced in here")
        configure_live(page, fake.url, key=KEY)
        set_mode(page, "live")
        set_code(page, 'import os\nprint("ENV", os.environ["LLM_API_KEY"][::-1])\n' + code_of(page))
        fake.script(chat_call("add", {"a": 2, "b": 3}), chat_text("The sum is 5."))
        assert [ok for ok, _, _ in run(page)] == [True, True]
        expect(page.get_by_test_id("output")).to_contain_text("ENV " + PLACEHOLDER[::-1])
        assert [p.headers["authorization"] for p in fake.posts("/v1/chat/completions")] == [f"Bearer {KEY}"] * 2
    finally:
        context.close()
        server.stop()
