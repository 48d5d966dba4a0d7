"""Fixtures for the tests against a real model server (make test-real): llama-server with SmolLM2-135M.

- `llama`     llama-server (tests/llamaserver.py) on a free port of 127.0.0.1, started once for the
              session (once in each test process) with a fake API key it requires, and stopped at
              the end whatever happened
- `recorder`  a recording pass-through in front of it: each reply's tokens and finish reason
- the browser fixtures of tests/e2e (site_url, page, the guard that fails a test whose page
  reaches past 127.0.0.1), loaded from its conftest rather than copied

Per-lesson figures (time, checks, longest reply) collected by test_curriculum.py are printed
after the run, and written to .cache/real/figures.json for bench/real_server.py to read.
"""

import importlib.util
import json
import os
import shutil
import sys
import tempfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "tests" / "real"))

from llamaserver import LlamaServer, Recorder
from curriculum import FIGURES, KEY, table


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


# The tests run in two processes (make test-real: pytest-xdist), each with its own llama-server on
# one thread: the lessons are independent, and two servers use both cores where one left one idle.
# Each process leaves its lessons' figures in a folder the first process names; the first prints them.
PARTS = "LOOPLAB_REAL_FIGURES"


def pytest_configure(config):
    if not hasattr(config, "workerinput"):  # the controlling process (or the only one)
        os.environ[PARTS] = tempfile.mkdtemp(prefix="looplab-real-")


def pytest_sessionfinish(session):
    if FIGURES and os.environ.get(PARTS):
        part = Path(os.environ[PARTS]) / f"{os.getpid()}.json"
        part.write_text(json.dumps(FIGURES))


def pytest_terminal_summary(terminalreporter):
    folder = Path(os.environ.get(PARTS, ""))
    if hasattr(terminalreporter.config, "workerinput") or not folder.is_dir():
        return
    rows = sorted(
        (row for part in folder.glob("*.json") for row in json.loads(part.read_text())), key=lambda row: row["lesson"]
    )
    shutil.rmtree(folder, ignore_errors=True)
    if rows:
        terminalreporter.section("the curriculum live against llama-server (SmolLM2-135M)")
        terminalreporter.write_line(table(rows))
        out = ROOT / ".cache" / "real" / "figures.json"
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(rows, indent=1))
