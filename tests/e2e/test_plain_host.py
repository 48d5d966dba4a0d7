"""A plain static host under a sub-path (no COOP/COEP, no CSP header): the page isolates itself
through its service worker with one reload on the first visit, and never reloads in a loop.

Collected only in the plain-host run (`make test-e2e-plain`, LOOPLAB_E2E_HOST=plain), with the
tests of the other files marked `plain_host`.
"""

from __future__ import annotations

import functools
import http.server
import threading

import pytest
from playwright.sync_api import expect

from conftest import guard
from learner import FIXTURE, run, status, wait_ready

pytestmark = pytest.mark.plain_host


def loads_of(page) -> list[str]:
    """Every document load of the page from now on (a reload counts; a change of #/lesson does not)."""
    loads = []
    page.on("load", lambda: loads.append(page.url))
    return loads


def test_the_first_visit_reloads_once_and_is_isolated_from_then_on(fresh_profile, site_url):
    assert "/some/sub/path/" in site_url
    page = fresh_profile.new_page()
    loads = loads_of(page)
    page.goto(f"{site_url}#/{FIXTURE}")
    expect(page.get_by_test_id("lesson-text")).to_contain_text("E2E fixture: a tiny agent")  # the lesson shows at once
    wait_ready(page, FIXTURE)
    assert len(loads) == 2, loads  # the visit and one reload
    assert page.evaluate("crossOriginIsolated") is True
    assert "not cross-origin isolated" not in status(page)["text"]
    assert page.evaluate("() => navigator.serviceWorker.controller.scriptURL") == f"{site_url}sw.js"
    # The worker got the page's policy as a header from the service worker: no eval there.
    worker = page.workers[0]
    worker.evaluate("self.__timer = 'unset'; setTimeout(\"self.__timer = 'ran'\", 0)")  # text as code: refused
    page.wait_for_timeout(300)
    assert worker.evaluate("self.__timer") == "unset"

    page.reload()  # a later visit: no reload of its own
    wait_ready(page, FIXTURE)
    assert len(loads) == 3, loads
    assert page.evaluate("crossOriginIsolated") is True
    assert all(ok for ok, _, _ in run(page))


class UnsafeNoneHandler(http.server.SimpleHTTPRequestHandler):
    """A host that says outright the page must not be isolated (COEP unsafe-none on everything)."""

    def end_headers(self) -> None:
        self.send_header("Cross-Origin-Embedder-Policy", "unsafe-none")
        super().end_headers()

    def log_message(self, format, *args) -> None:
        pass


def test_a_host_whose_headers_win_gets_one_reload_and_a_page_that_says_so(fresh_profile, site_dir):
    server = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), functools.partial(UnsafeNoneHandler, directory=str(site_dir))
    )
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}/"
    try:
        page = fresh_profile.new_page()
        loads = loads_of(page)
        page.goto(f"{url}#/{FIXTURE}")
        wait_ready(page, FIXTURE)
        assert len(loads) == 2, loads  # it tried once ...
        assert page.evaluate("crossOriginIsolated") is False
        text = status(page)["text"]
        assert "Stop restarts Python (page is not cross-origin isolated: it was reloaded once" in text, text
        page.reload()  # ... and not again in this tab
        wait_ready(page, FIXTURE)
        assert len(loads) == 3, loads
        assert all(ok for ok, _, _ in run(page))  # the site still works, without shared memory
    finally:
        server.shutdown()
        server.server_close()


def test_without_service_workers_the_page_starts_at_once_and_says_why(browser, site_url):
    context = browser.new_context(service_workers="block")
    guard(context)
    try:
        page = context.new_page()
        loads = loads_of(page)
        page.goto(f"{site_url}#/{FIXTURE}")
        wait_ready(page, FIXTURE)
        assert len(loads) == 1
        assert page.evaluate("crossOriginIsolated") is False
        assert "not cross-origin isolated" in status(page)["text"]
        # Nor does its worker get a policy: only the service worker or the server can give it one.
        worker = page.workers[0]
        worker.evaluate("self.__timer = 'unset'; setTimeout(\"self.__timer = 'ran'\", 0)")
        page.wait_for_timeout(300)
        assert worker.evaluate("self.__timer") == "ran"
    finally:
        context.close()
