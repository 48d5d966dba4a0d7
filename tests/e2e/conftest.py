"""Fixtures for the browser tests: the site built once, served on a free port, driven by Chromium.

- `site_url`   the site (lessons/ plus tests/e2e/fixtures) built into a temporary folder (or the one
               LOOPLAB_E2E_SITE names, built once by `make e2e-site` for every browser suite) and
               served by scripts/serve.py, exactly as `make serve` serves web/dist; with
               LOOPLAB_E2E_HOST=plain by a plain `python -m http.server` under /some/sub/path/
               instead (`make test-e2e-plain`: the tests marked `plain_host`, and test_plain_host.py)
- `browser`    one Debian Chromium for the session (Playwright with executable_path)
- `context`    a fresh context per test; `fresh_profile` a persistent context on a new profile,
               for tests where a cold start (no cache, no service worker) matters
- `fake`       the OpenAI-compatible test server (tests/fakeserver.py) on another port

Every context guards the network: a request to anything but 127.0.0.1 is aborted and recorded,
and the test that made it fails (`no_outside_requests`, autouse).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import Error as PlaywrightError, expect, sync_playwright

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from browser import (  # noqa: F401 (re-exported for the tests)
    CHROMIUM,
    CHROMIUM_ARGS,
    PlainServer,
    SiteServer,
    build_site,
    site_for_tests,
)
from learner import serve_without_isolation

LOCAL_HOSTS = {"127.0.0.1", "localhost"}

# Which host serves the site: "serve" (scripts/serve.py) or "plain" (python -m http.server, a sub-path).
E2E_HOST = os.environ.get("LOOPLAB_E2E_HOST", "serve")
PLAIN = E2E_HOST == "plain"
collect_ignore = [] if PLAIN else ["test_plain_host.py"]  # what only a plain host shows runs in its run only


def pytest_configure(config):
    config.addinivalue_line("markers", "plain_host: runs once more against a plain static server (make test-e2e-plain)")


def serve(folder: Path, port: int = 0):
    """The built site in `folder`, served as this run serves it (E2E_HOST); `.url`, `.stop()`."""
    return PlainServer(folder, port) if PLAIN else SiteServer(folder, port)


# Service workers' own requests go through the context's routes only with this set (Chromium).
os.environ.setdefault("PW_EXPERIMENTAL_SERVICE_WORKER_NETWORK_EVENTS", "1")

expect.set_options(timeout=15_000)


@pytest.fixture(scope="session")
def site_dir(tmp_path_factory) -> Path:
    return site_for_tests(tmp_path_factory)


@pytest.fixture(scope="session")
def site_url(site_dir) -> str:
    server = serve(site_dir)
    yield server.url
    server.stop()


@pytest.fixture(scope="session")
def playwright():
    with sync_playwright() as p:
        yield p


@pytest.fixture(scope="session")
def browser(playwright):
    if not Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} is missing: `make chromium` (apt-get install chromium) installs it")
    browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
    yield browser
    browser.close()


# --- the network guard ---------------------------------------------------------------------------

OUTSIDE: list[str] = []


def guard(context) -> None:
    """Abort and record any request to a host other than 127.0.0.1 / localhost."""

    def handle(route):
        url = route.request.url
        parts = urlsplit(url)
        if parts.scheme in ("http", "https", "ws", "wss") and parts.hostname not in LOCAL_HOSTS:
            OUTSIDE.append(url)
            route.abort()
        else:
            route.fallback()

    context.route("**/*", handle)


@pytest.fixture(autouse=True)
def no_outside_requests():
    before = len(OUTSIDE)
    yield
    assert OUTSIDE[before:] == [], f"requests left 127.0.0.1: {OUTSIDE[before:]}"


@pytest.fixture
def context(browser):
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    guard(context)
    yield context
    context.close()


@pytest.fixture
def not_isolated_context(browser, site_url):
    """A context whose pages are not cross-origin isolated (Stop restarts Python there): the site's
    COOP/COEP are dropped, and service workers blocked, or sw.js would add them back on a reload."""
    context = browser.new_context(viewport={"width": 1280, "height": 800}, service_workers="block")
    guard(context)
    serve_without_isolation(context, site_url)
    yield context
    context.close()


@pytest.fixture
def page(context):
    page = context.new_page()
    page.on("dialog", lambda dialog: dialog.accept())  # Reset's confirm
    yield page


@pytest.fixture
def fresh_profile(playwright, tmp_path):
    """A persistent context on a brand-new profile: no HTTP cache, no service worker, no storage."""
    context = playwright.chromium.launch_persistent_context(
        str(tmp_path / "profile"), executable_path=CHROMIUM, args=CHROMIUM_ARGS, viewport={"width": 1280, "height": 800}
    )
    guard(context)
    yield context
    try:
        context.close()
    except PlaywrightError:
        pass


@pytest.fixture
def fake():
    from fakeserver import FakeServer

    with FakeServer() as server:
        yield server
