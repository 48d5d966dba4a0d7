"""Lessons run in CPython with the scripted model unless a test says otherwise.

`solved` is the solution namespace of a lesson, by its number: what a learner ends up with, for
tests of the parts the lessons build (`solved("02")["MyToolbox"]`). Each lesson runs once per
session; `solved.fresh("15")` runs it again, for parts that keep state between calls.

Every test runs with its address space capped (`MEMORY`): lesson code runs in this process, and a
wrong answer or mutant with no end to its loop (a check's model that keeps a copy of every call)
once grew a run to 17.7 GB; capped, it ends in a MemoryError, which fails a check like any mistake.
"""

import contextlib
import io
import resource
import tempfile
from pathlib import Path

import pytest

from looplab._course import mine as carried
from looplab._course.course import find_in
from looplab._course.lesson import parse, run_cells

LESSONS = Path(__file__).resolve().parents[2] / "lessons"
MEMORY = 4 << 30  # bytes of address space a test may use (a whole lesson runs in well under 1 GB)


class Solutions:
    """Lesson namespaces run with their solutions (printing silenced), kept by lesson number."""

    def __init__(self):
        self.kept: dict[str, dict] = {}

    def __call__(self, number: str) -> dict:
        if number not in self.kept:
            self.kept[number] = self.fresh(number)
        return self.kept[number]

    def fresh(self, number: str) -> dict:
        """The lesson run anew: a namespace no other test has touched."""
        path = find_in(LESSONS, number)
        namespace = {"__name__": "__lesson__"}
        with contextlib.redirect_stdout(io.StringIO()):
            result = run_cells(parse(path.read_text(encoding="utf-8")), solution=True, namespace=namespace)
        assert result.error is None and result.ok, result.error or [
            (c.name, c.message) for c in result.checks if not c.ok
        ]
        return namespace


@pytest.fixture(scope="session")
def solved() -> Solutions:
    return Solutions()


@pytest.fixture
def provided():
    """Hand mine() lesson texts as the page's bridge would (`provided["02"] = text`); reset afterwards."""
    texts = {}
    carried.provide(texts.get)
    yield texts
    carried.provide(None)


@pytest.fixture(autouse=True)
def temp_files_in_the_tests_folder(tmp_path, monkeypatch):
    """What a test makes with tempfile, itself or through a lesson's parts it calls after the lesson
    ran (`solved("25")["new_project"]()`), goes in the test's own folder, which pytest clears: the
    suite leaves the system's temp folder as it found it (test_temp_files.py proves it)."""
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))


@pytest.fixture(autouse=True)
def scripted_mode(monkeypatch):
    """Every lesson test starts in scripted mode, with no live settings that could leak in."""
    monkeypatch.setenv("LOOPLAB_MODEL", "scripted")
    for name in ("LLM_BASE_URL", "LLM_API_KEY", "LLM_MODEL", "LLM_API"):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture(autouse=True)
def bounded_memory():
    """Cap this process's address space for the test (children it starts inherit the cap), then restore it."""
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    cap = MEMORY if hard == resource.RLIM_INFINITY else min(MEMORY, hard)
    resource.setrlimit(resource.RLIMIT_AS, (cap if soft == resource.RLIM_INFINITY else min(cap, soft), hard))
    yield
    resource.setrlimit(resource.RLIMIT_AS, (soft, hard))
