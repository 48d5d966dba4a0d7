"""The inspector's files, made by the page's own modules in Node.js and read by the reference tools in
CPython: a run as OpenTelemetry spans (opentelemetry-proto parses it), a lesson as a notebook
(nbformat validates it), and a run file that reads back as it was written."""

from __future__ import annotations

import json
from pathlib import Path

import sys

import nbformat
import pytest

from conftest import node_module
from looplab import Collector, Memory, Toolbox, call, final, run_agent, scripted
from looplab._course.lesson import parse
from looplab._course.course import lesson_files

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests"))
from otlp import parse_otlp, spans as all_spans

KEY = "sk-proj-runfilesKEY0123456789abcdef"


otel_js = node_module("web/src/page/inspector/otel.js")


runs_js = node_module("web/src/page/inspector/runs.js")


notebook_js = node_module("web/src/page/lesson/notebook.js")


def nested_run(monkeypatch) -> list[dict]:
    """A writer whose tool asks a researcher (another run_agent): the events of both, as the page gets them."""
    monkeypatch.setenv("LLM_API_KEY", KEY)
    events = Collector()
    researcher_tools = Toolbox()
    researcher_tools.register(
        "search",
        "Search notes.",
        {"type": "object", "properties": {"q": {"type": "string"}}},
        lambda q: f"notes about {q} (key {KEY})",
    )
    writer_tools = Toolbox()

    def ask_researcher(question: str) -> str:
        out = run_agent(
            question,
            scripted([call("search", q="visits", id="s1"), final("Eastside had more.")]),
            researcher_tools,
            Memory("You research."),
            name="researcher",
            tracer=events,
        )
        return out["answer"]

    writer_tools.register(
        "ask_researcher",
        "Ask the researcher.",
        {"type": "object", "properties": {"question": {"type": "string"}}},
        ask_researcher,
    )
    run_agent(
        "Write a line on visits.",
        scripted([call("ask_researcher", question="which branch?", id="w1"), final("Eastside led.")]),
        writer_tools,
        Memory("You write."),
        name="writer",
        tracer=events,
    )
    return events.events


def spans_of(text: str):
    request = parse_otlp(text)
    spans = all_spans(request)
    return request, spans, {s.span_id: {a.key: a.value for a in s.attributes} for s in spans}


def test_a_nested_run_exports_as_otlp_genai_spans(otel_js, monkeypatch):
    events = nested_run(monkeypatch)
    text = json.dumps(otel_js.call("eventsToOtlp", events, {}))
    request, spans, attrs = spans_of(text)
    op = lambda s: attrs[s.span_id]["gen_ai.operation.name"].string_value  # noqa: E731
    assert [op(s) for s in spans].count("invoke_agent") == 2 and [op(s) for s in spans].count("chat") == 4
    assert [op(s) for s in spans].count("execute_tool") == 2
    agents = {attrs[s.span_id]["gen_ai.agent.name"].string_value: s for s in spans if op(s) == "invoke_agent"}
    by_id = {s.span_id: s for s in spans}
    tool = by_id[agents["researcher"].parent_span_id]
    assert op(tool) == "execute_tool" and attrs[tool.span_id]["gen_ai.tool.name"].string_value == "ask_researcher"
    assert attrs[tool.span_id]["gen_ai.tool.call.id"].string_value == "w1"
    assert tool.parent_span_id == agents["writer"].span_id and agents["writer"].parent_span_id == b""
    chat = next(s for s in spans if op(s) == "chat")
    assert attrs[chat.span_id]["gen_ai.request.model"].string_value == "scripted"
    assert attrs[chat.span_id]["gen_ai.usage.input_tokens"].int_value > 0
    assert len(spans[0].trace_id) == 16 and all(s.trace_id == spans[0].trace_id for s in spans)
    assert all(s.end_time_unix_nano >= s.start_time_unix_nano > 0 for s in spans)
    assert request.resource_spans[0].resource.attributes[0].value.string_value == "looplab"
    assert KEY not in text and "[redacted]" in text  # the key never reaches an export


def test_usage_reported_by_the_model_becomes_the_spans_tokens(otel_js):
    events = [
        {"type": "run_start", "t": 0, "run": 7, "task": "hi", "tools": []},
        {"type": "model_call", "t": 0.1, "run": 7, "step": 1, "messages": 2, "context_tokens": 40},
        {
            "type": "model_reply",
            "t": 0.5,
            "run": 7,
            "step": 1,
            "ok": True,
            "content": "hello",
            "tool_calls": 0,
            "model": "gpt-test",
            "usage": {"prompt_tokens": 41, "completion_tokens": 3},
        },
        {"type": "stop", "t": 0.5, "run": 7, "stopped": "final", "steps": 1, "answer": "hello"},
    ]
    _, spans, attrs = spans_of(json.dumps(otel_js.call("eventsToOtlp", events, {})))
    chat = next(s for s in spans if attrs[s.span_id]["gen_ai.operation.name"].string_value == "chat")
    assert attrs[chat.span_id]["gen_ai.usage.input_tokens"].int_value == 41
    assert attrs[chat.span_id]["gen_ai.usage.output_tokens"].int_value == 3
    assert chat.name == "chat gpt-test" and "looplab.tokens.estimated" not in attrs[chat.span_id]
    assert chat.end_time_unix_nano - chat.start_time_unix_nano == 400_000_000


def test_a_run_file_reads_back_and_a_wrong_file_says_why(runs_js, monkeypatch):
    events = nested_run(monkeypatch)
    document = {
        "format": "looplab-run",
        "version": 1,
        "lesson": "x",
        "run": events[0]["run"],
        "runs": [],
        "events": events,
    }
    assert runs_js.call("readRunFile", document) == json.loads(json.dumps(document))
    with pytest.raises(RuntimeError, match='no "format": "looplab-run"'):
        runs_js.call("readRunFile", {"events": events})
    with pytest.raises(RuntimeError, match="not a list of events"):
        runs_js.call("readRunFile", {**document, "events": [{"no": "type"}]})
    with pytest.raises(RuntimeError, match="version 2"):
        runs_js.call("readRunFile", {**document, "version": 2})


def lesson_json(path: Path) -> dict:
    cells = parse(path.read_text(encoding="utf-8"))
    return {
        "slug": path.stem,
        "title": cells[0].source.splitlines()[0].lstrip("# "),
        "cells": [{"kind": c.kind, "role": c.role, "tags": c.tags, "source": c.source} for c in cells],
    }


def test_every_lesson_downloads_as_a_valid_notebook_with_the_edits(notebook_js):
    for path in lesson_files(ROOT / "lessons"):
        lesson = lesson_json(path)
        edited = [None] * len(lesson["cells"])
        exercise = next((i for i, c in enumerate(lesson["cells"]) if c["role"] in ("exercise", "code")), None)
        edited[exercise] = "print('my own edit')\nx = 1\n"
        notebook = nbformat.reads(json.dumps(notebook_js.call("toNotebook", lesson, edited)), as_version=4)
        nbformat.validate(notebook)  # raises when not nbformat 4 valid
        code = [c for c in notebook.cells if c.cell_type == "code"]
        assert code[[c.id for c in code].index(f"cell-{exercise + 1}")].source == "print('my own edit')\nx = 1\n"
        solutions = [c["source"] for c in lesson["cells"] if c["role"] == "solution"]
        assert not any(c.source == s for c in code for s in solutions if s.strip()), path.name
        assert notebook.metadata["looplab"]["lesson"] == path.stem


SYNTHETIC = """# %% [markdown]
# # 9 · A lesson
# %%
x = 1
# %% tags=["exercise"]
def double(n):
    return n
# %% [markdown] tags=["hint"]
# Multiply.
# %% tags=["solution"]
def double(n):
    return 2 * n
# %% tags=["wrong"]
# wrong: adds instead
# expect: double
def double(n):
    return n + 2
# %% tags=["check"]
# double doubles
assert double(3) == 6, "double(3) should be 6"
"""


def test_the_page_and_looplab_notebook_give_the_same_cells(notebook_js, tmp_path):
    from looplab._course.notebook import lesson_dict, lesson_notebook

    (tmp_path / "09-a-lesson.py").write_text(SYNTHETIC, encoding="utf-8")
    for path in [*lesson_files(ROOT / "lessons"), tmp_path / "09-a-lesson.py"]:
        page = notebook_js.call("toNotebook", lesson_dict(path), [])
        cli = lesson_notebook(path)
        assert page["cells"][1:] == cli["cells"][1:], path.name  # all but the "about" cell
        assert page["metadata"] == cli["metadata"]
    by_id = {c["id"]: c for c in cli["cells"]}
    assert [c["id"] for c in cli["cells"]] == [
        "looplab-about",
        "looplab-setup",
        "cell-1",
        "cell-2",
        "cell-3",
        "cell-4",
        "cell-5",
        "cell-7",
    ]
    assert by_id["cell-4"]["metadata"] == {"tags": ["hint"], "jupyter": {"source_hidden": True}}
    assert by_id["cell-5"]["cell_type"] == "markdown" and "return 2 * n" in "".join(by_id["cell-5"]["source"])
    assert not any("n + 2" in "".join(c["source"]) for c in cli["cells"])  # the wrong answer never appears
    solved = {c["id"]: c for c in lesson_notebook(tmp_path / "09-a-lesson.py", solution=True)["cells"]}
    assert "cell-3" not in solved and solved["cell-5"]["cell_type"] == "code"
    assert solved["cell-5"]["metadata"] == {"tags": ["solution"]} and "cell-6" not in solved
