"""The whole curriculum in live mode, against the local fake OpenAI-compatible server.

With nothing scripted, the server echoes the last user message, answers a tool result with
"result: ...", and obeys "call <tool> {json}". So this pass proves what live mode can promise:
every lesson's solution runs to the end against a real HTTP endpoint, every check that holds
for a real model passes, and the API key never shows up in what a lesson prints or traces.
"""

import ast
import json
import sys
from pathlib import Path

import pytest

from looplab._course.lesson import FAILED, NOT_CHECKED, PASSED, check_statements, is_expect, parse, run_file
from looplab._course.testcells import check_name
from looplab._course.course import lesson_files

ROOT = Path(__file__).resolve().parents[2]
LESSONS = lesson_files(ROOT / "lessons")
KEY = "sk-curriculum-test-key-0123456789abcdef"

sys.path.insert(0, str(ROOT / "tests"))
from fakeserver import FakeServer


@pytest.fixture(scope="module")
def server():
    with FakeServer(key=KEY) as fake:
        yield fake


@pytest.fixture
def live(server, monkeypatch):
    server.reset()
    monkeypatch.setenv("LOOPLAB_MODEL", "live")
    monkeypatch.setenv("LLM_BASE_URL", server.url)
    monkeypatch.setenv("LLM_API_KEY", KEY)
    monkeypatch.setenv("LLM_MODEL", "fake-model")
    monkeypatch.setenv("LLM_TIMEOUT", "10")
    monkeypatch.delenv("LLM_API", raising=False)
    return server


def expect_names(path: Path) -> set[str]:
    """The names of a lesson's `expect(...)` checks: claims that hold only for prepared replies."""
    return {
        name
        for cell in parse(path.read_text(encoding="utf-8"))
        if cell.role == "check"
        for name, stmt in check_statements(cell)
        if is_expect(stmt)
    }


def expecting_tests(path: Path) -> set[str]:
    """The check names of a lesson's tests (tests cells) that call `expect(...)`."""
    names = set()
    for cell in parse(path.read_text(encoding="utf-8")):
        if "tests" in cell.tags and cell.role != "exercise":
            for stmt in ast.parse(cell.source).body:
                if (
                    isinstance(stmt, ast.FunctionDef)
                    and stmt.name.startswith("test")
                    and any(isinstance(n, ast.Call) and getattr(n.func, "id", "") == "expect" for n in ast.walk(stmt))
                ):
                    names.add(check_name(ast.get_docstring(stmt), stmt.name))
    return names


def is_expected(name: str, checks: set[str], tests: set[str]) -> bool:
    """Is this check an `expect` claim: a check cell's, or a test's (a parametrized one adds " [id]")?"""
    return name in checks or any(name == t or name.startswith(t + " [") for t in tests)


@pytest.mark.parametrize("path", LESSONS, ids=[p.stem for p in LESSONS])
def test_the_lesson_passes_in_live_mode(path, live, capsys):
    result = run_file(path, solution=True)
    printed = capsys.readouterr().out
    failed = [f"{c.name}: {c.message}" for c in result.checks if c.status == FAILED]
    assert result.error is None, result.error
    assert not failed, failed
    # a claim about prepared replies is never shown as passed with a live model, and says what happened
    expected, tests = expect_names(path), expecting_tests(path)
    for check in result.checks:
        if is_expected(check.name, expected, tests):
            assert check.status == NOT_CHECKED and not check.ok, f"{check.name}: {check.status}"
            assert check.message, f"{check.name}: no observed text"
    assert result.count(NOT_CHECKED) == len([c for c in result.checks if is_expected(c.name, expected, tests)])
    assert result.count(PASSED) + result.count(NOT_CHECKED) == len(result.checks)
    assert KEY not in printed, "the API key was printed"
    assert KEY not in json.dumps(result.events, default=str), "the API key reached the trace"


def test_the_model_lessons_really_called_the_server(live, capsys):
    for number in ("01", "04", "14"):
        live.reset()
        path = next(p for p in LESSONS if p.name.startswith(number))
        assert run_file(path, solution=True).ok
        posts = live.posts()
        assert posts, f"lesson {number} made no request in live mode"
        assert all(p.headers.get("authorization") == f"Bearer {KEY}" for p in posts)
    capsys.readouterr()
    assert {p.path for p in live.posts()} >= {"/v1/chat/completions", "/v1/responses"}
