"""Fixtures for the engine matrix: the learner's path in Chromium, Firefox and WebKit.

- `engine`    one engine for the session, each test run once in each (LOOPLAB_ENGINES=firefox,webkit
              to run some); the driver layer is tests/e2e/engines.py, the steps tests/e2e/anyengine.py
- `tab`       a fresh tab (a fresh profile: no cache, no service worker, no storage) per test;
              the test fails if the page or its workers asked for anything past 127.0.0.1
- `site_dir`  the site with tests/e2e/fixtures, built once (or LOOPLAB_E2E_SITE, `make e2e-site`);
  `site_url`  served by scripts/serve.py, as `make serve` serves it
- `fake`      the OpenAI-compatible test server (tests/fakeserver.py)
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "tests" / "e2e"))

from browser import SiteServer, site_for_tests
from engines import Engine, engines_asked
from fakeserver import FakeServer

ENGINES = engines_asked()


def pytest_configure(config):
    config.addinivalue_line("markers", "engines(*names): runs in these engines only (a browser that is theirs alone)")


def pytest_collection_modifyitems(config, items):
    """A test marked engines("webkit") runs in WebKit only: the others are deselected, not skipped."""
    keep, drop = [], []
    for item in items:
        marker = item.get_closest_marker("engines")
        engine = getattr(item, "callspec", None) and item.callspec.params.get("engine")
        (drop if marker and engine and engine not in marker.args else keep).append(item)
    if drop:
        config.hook.pytest_deselected(items=drop)
        items[:] = keep


@pytest.fixture(scope="session", params=ENGINES)
def engine(request):
    try:
        engine = Engine(request.param)
    except FileNotFoundError as missing:
        pytest.fail(str(missing))
    print(f"\n{engine.name} {engine.version}")
    yield engine
    engine.close()


@pytest.fixture
def tab(engine):
    tab = engine.tab()
    yield tab
    outside = tab.outside
    tab.close()
    assert outside == [], f"{engine.name}: requests left 127.0.0.1: {outside}"


@pytest.fixture(scope="session")
def site_dir(tmp_path_factory) -> Path:
    return site_for_tests(tmp_path_factory)


@pytest.fixture(scope="session")
def site_url(site_dir) -> str:
    server = SiteServer(site_dir)
    yield server.url
    server.stop()


@pytest.fixture
def fake():
    with FakeServer() as server:
        yield server
