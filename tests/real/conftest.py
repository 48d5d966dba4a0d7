"""Fixtures for the tests against a real model server (make test-real): llama-server with SmolLM2-135M.

- `llama`     llama-server (tests/llamaserver.py) on a free port of 127.0.0.1, started once for the
              session with a fake API key it requires, and stopped at the end whatever happened
- `recorder`  a recording pass-through in front of it: each reply's tokens and finish reason
- the browser fixtures of tests/e2e (site_url, page, the guard that fails a test whose page
  reaches past 127.0.0.1), loaded from its conftest rather than copied

Per-lesson figures (time, checks, longest reply) collected by test_curriculum.py are printed
after the run, and written to .cache/real/figures.json for bench/real_server.py to read.
"""

import importlib.util
import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "tests" / "real"))

from llamaserver import LlamaServer, Recorder  # noqa: E402
from curriculum import FIGURES, KEY, table  # noqa: E402


def load_e2e_fixtures():
    """tests/e2e/conftest.py as a module: its browser fixtures serve the page tests here too."""
    spec = importlib.util.spec_from_file_location("e2e_conftest", ROOT / "tests" / "e2e" / "conftest.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_e2e = load_e2e_fixtures()
site_dir, site_url, playwright, browser = _e2e.site_dir, _e2e.site_url, _e2e.playwright, _e2e.browser
context, page, no_outside_requests = _e2e.context, _e2e.page, _e2e.no_outside_requests


@pytest.fixture(scope="session")
def llama():
    server = LlamaServer(key=KEY)
    try:
        yield server.start()
    finally:
        server.stop()


@pytest.fixture(scope="session")
def recorder(llama):
    with Recorder(llama) as proxy:
        yield proxy


def pytest_terminal_summary(terminalreporter):
    if FIGURES:
        terminalreporter.section("the curriculum live against llama-server (SmolLM2-135M)")
        terminalreporter.write_line(table(FIGURES))
        out = ROOT / ".cache" / "real" / "figures.json"
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(FIGURES, indent=1))
