"""Rules the page (JavaScript, run here in Node.js) and looplab (Python) must share: which key
shapes are redacted, which environment variables a run may set, how a lesson number reads, when a
lesson passed, which cells the learner edits, and how Stop reaches Python. Where a rule can live on
one side only, it does, and the other side is shown to take it from there."""

from __future__ import annotations

import ast
import json
import os
import re
import sys
from pathlib import Path

from hypothesis import given, settings, strategies as st

import pytest

from conftest import node_module
from looplab import http
from looplab._course import course, mine
from looplab._course.lesson import parse
from looplab.trace import KEY_SHAPES, REDACTED, redact_text

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))
import build_site

lessonformat_js = node_module("web/src/page/lesson/lessonformat.js")
carried_js = node_module("web/src/page/run/carried.js")
report_js = node_module("web/src/page/run/report.js")
stop_js = node_module("web/src/shared/stop.js")

KEYS = [
    "sk-proj-" + "Ab3_-" * 5,
    "sk-ant-api03-" + "x" * 20,
    "Bearer abc.def-ghi_jkl==",
    "Bearer  tok~en+/12",
    "gsk_" + "A1" * 10,
    "xai-" + "z" * 16,
    "hf_" + "Q" * 30,
    "ghp_" + "9" * 36,
    "github_pat_" + "11AB" * 6,
    "AIza" + "Sy" * 10,
]
NOT_KEYS = [
    "sk-short",
    "task-abcdefghijklmnopqrstu",
    "Bearer short",
    "gsk_tooshort",
    "ask-abcdefghijklmnopq",
    "the skeleton key",
    "AIzb" + "a" * 20,
]


def test_the_page_redacts_the_key_shapes_of_looplab_trace(redact_js):
    shapes = redact_js.get("KEY_SHAPES")
    assert shapes["source"] == KEY_SHAPES.pattern and shapes["flags"] == "g"
    assert redact_js.get("REDACTED") == REDACTED
    for key in KEYS:
        text = f"before {key} after"
        assert redact_js.call("redact", text) == redact_text(text, []) == f"before {REDACTED} after", key
    for text in NOT_KEYS:
        assert redact_js.call("redact", text) == redact_text(text, []) == text, text


def test_the_page_hides_the_runs_own_key_even_when_it_has_no_key_shape(redact_js):
    assert redact_js.call("redact", "my key is hunter2-ok!", "hunter2-ok") == "my key is [redacted]!"
    assert redact_js.call("redact", "a b c", "abc") == "a b c"  # "abc" is not in the text
    assert redact_js.call("redact", "pin 123 in", "123") == "pin 123 in"  # under 4 characters: not a key
    assert redact_js.call("redact", None) == ""


# Texts built from pieces of keys and what surrounds them in output, JSON and headers. ASCII only:
# JavaScript's \b and \s know only ASCII, Python's know Unicode (around a non-ASCII letter the page
# redacts a key-shaped run that Python leaves, never the other way round).
PIECES = st.sampled_from(
    [
        "sk-",
        "sk-proj-",
        "Bearer",
        "Bearer ",
        "gsk_",
        "xai-",
        "hf_",
        "ghp_",
        "github_pat_",
        "AIza",
        " ",
        "\n",
        "\t",
        '"',
        "=",
        "==",
        ":",
        "/",
        ".",
        "-",
        "_",
        "~",
        "+",
        "[redacted]",
    ]
)
RUNS = st.text(alphabet="abcXYZ0189_-.~+/=", min_size=1, max_size=24)
TEXTS = st.lists(st.one_of(PIECES, RUNS), max_size=12).map("".join)


@settings(max_examples=1500, deadline=None, derandomize=True, database=None)
@given(text=TEXTS, secret=st.one_of(st.just(""), RUNS, st.sampled_from(["sk-", "Bearer x", "abc"])))
def test_page_and_looplab_redact_every_text_alike(redact_js, text, secret):
    expected = redact_text(text, [secret] if len(secret) >= 4 else [])
    assert redact_js.call("redact", text, secret) == expected
    assert KEY_SHAPES.search(expected) is None and (len(secret) < 4 or secret not in expected or secret in REDACTED)


def bridge_env_keys() -> list[str]:
    """ENV_KEYS as web/src/worker/bridge.py writes it (read from its source: it runs inside Pyodide)."""
    tree = ast.parse((ROOT / "web" / "src" / "worker" / "bridge.py").read_text())
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "ENV_KEYS" for t in node.targets):
            return list(ast.literal_eval(node.value))
    raise AssertionError("web/src/worker/bridge.py has no ENV_KEYS")


def test_the_worker_bridge_sets_exactly_the_keys_the_page_sends(protocol_js, monkeypatch):
    keys = protocol_js.get("ENV_KEYS")
    assert keys == bridge_env_keys()
    assert "LLM_API_KEY" in keys and len(set(keys)) == len(keys)
    # The bridge itself: it clears every one of them, then sets those the run gives.
    sys.path.insert(0, str(ROOT / "web" / "src" / "worker"))
    try:
        import bridge
    finally:
        sys.path.remove(str(ROOT / "web" / "src" / "worker"))
    for key in keys:
        monkeypatch.setenv(key, "left over from the last run")
    check = (
        "import os\n"
        "# the model is the one given\n"
        "assert os.environ.get('LLM_MODEL') == 'given-model'\n"
        f"# nothing else survives\nassert [k for k in {keys!r} if k in os.environ] == ['LLM_MODEL']\n"
    )
    cells = [{"kind": "code", "source": "x = 1", "tags": []}, {"kind": "code", "source": check, "tags": ["check"]}]
    run = {"type": "run", "id": 1, "cells": cells, "env": {"LLM_MODEL": "given-model"}, "carried": {}}
    result = json.loads(bridge.handle(json.dumps(run), lambda e: None))
    assert [(c["name"], c["ok"]) for c in result["checks"]] == [
        ("the model is the one given", True),
        ("nothing else survives", True),
    ]
    assert os.environ.get("LLM_API_KEY") is None


NUMBERS = st.one_of(
    st.integers(0, 120).map(str),
    st.from_regex(r"[ \t]?[0-9]{1,3}[a-cA-C]?[ \t]?", fullmatch=True),
    st.text(alphabet="0123456789abAB -_x", max_size=5),
)


@settings(max_examples=300, deadline=None)
@given(NUMBERS)
def test_the_page_and_looplab_read_a_lesson_number_alike(lessonformat_js, number):
    assert lessonformat_js.call("lessonId", number) == course.number_id(number)


def test_mine_1b_finds_the_saved_cells_the_page_sends_as_01b(lessonformat_js, carried_js):
    assert [lessonformat_js.call("lessonId", n) for n in ("1b", " 1B ", "4", "04", "loop")] == [
        "01b",
        "01b",
        "04",
        "04",
        None,
    ]
    cells = [{"kind": "code", "source": 'a = mine("1b")\nb = mine(2)\nc = mine("02")\n'}]
    assert carried_js.call("minedIds", cells) == ["01b", "02"]  # the ids the page carries the saved cells under
    asked = []
    mine.provide(lambda lesson_id: asked.append(lesson_id))  # gives nothing: the lesson file is read
    try:
        wanted, text = mine.lesson_text("1b")
    finally:
        mine.provide(None)
    assert asked == ["01b"] and wanted == "01b" and "Workflows" in text  # mine("1b") asks for what the page sent


def test_the_page_takes_a_lessons_pass_from_looplab(report_js):
    from looplab._course.checks import FAILED, NOT_CHECKED, PASSED, Check
    from looplab._course.lesson import LessonResult

    results = {
        "passed": LessonResult([Check("a", True), Check("b", False, "live", status=NOT_CHECKED)]),
        "one failed": LessonResult([Check("a", True), Check("b", False, "b is 2", status=FAILED)]),
        "none checked": LessonResult([Check("a", False, "live", status=NOT_CHECKED)]),
        "raised": LessonResult([Check("a", True)], error="ValueError: x"),
        "no checks": LessonResult([]),
    }
    for name, result in results.items():
        record = report_js.call("progressRecord", result.to_dict())
        assert record["passed"] is result.ok, name
        assert record["checks"] == result.count(PASSED) and record["total"] == len(result.checks), name
    assert [name for name, r in results.items() if r.ok] == ["passed"]
    # the page reads looplab's verdict, it does not work it out again from the checks
    verdict = {**results["passed"].to_dict(), "ok": False}
    assert report_js.call("progressRecord", verdict)["passed"] is False


def test_the_page_edits_the_cells_looplab_says_are_editable():
    seen = set()
    for path in course.lesson_files(ROOT / "lessons"):
        for cell in parse(path.read_text(encoding="utf-8")):
            built = build_site.lesson_cell(cell, path)
            assert built["editable"] is cell.editable is (cell.role in ("code", "exercise")), (path.name, cell.role)
            seen.add((cell.role, cell.editable))
    assert {("code", True), ("exercise", True), ("check", False), ("solution", False), ("markdown", False)} <= seen
    # the page never works it out again from the roles (it reads `editable` from the built lesson)
    pattern = re.compile(r'\["code",\s*"exercise"\]|role\s*[!=]==\s*"(code|exercise)"\s*(\|\||&&)\s*\w+\.role')
    found = [p.name for p in (ROOT / "web" / "src").rglob("*.js") if pattern.search(p.read_text(encoding="utf-8"))]
    assert found == []


def test_stop_reaches_python_as_the_word_looplab_raises(stop_js):
    assert stop_js.get("STOPPED") == http.STOPPED
    with pytest.raises(KeyboardInterrupt):
        http._fail_if(stop_js.get("STOPPED"), "https://x/v1", "30 s", "dropped", "")
    sigint = stop_js.get("SIGINT")
    assert stop_js.call("pressed", [sigint]) is True and stop_js.call("take", [sigint]) is True
    assert stop_js.call("pressed", [0]) is False and stop_js.call("take", [0]) is False
    assert stop_js.call("pressed", None) is False and stop_js.call("take", None) is False  # not isolated
    assert stop_js.get("STOP_GRACE_MS") + stop_js.get("STOP_HEARD_MS") < 2000  # Stop ends any run within 2 s
