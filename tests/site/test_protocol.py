"""The page–worker protocol (web/src/shared/protocol.js, run in Node.js): every message either side
sends is made by one of its constructors, every type either side reads is one it defines, and the
results bridge.py returns (run in CPython here, as the worker runs it in Pyodide) have the keys it
documents."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from looplab._course import mine
from looplab._course.lessonfile import parse, solution_index


ROOT = Path(__file__).resolve().parents[2]
SRC = ROOT / "web" / "src"
SIDES = {
    "toWorker": [
        SRC / "page" / "run" / "runner.js",
        SRC / "page" / "start" / "workerpool.js",
        SRC / "page" / "start" / "prestart.js",
        SRC / "page" / "start" / "codecache.js",
    ],  # who sends what
    "toPage": [SRC / "worker" / "worker.js"],
}
READS = {"toPage": SRC / "page" / "run" / "runner.js", "toWorker": SRC / "worker" / "worker.js"}


@pytest.fixture(scope="module")
def types(protocol_js):
    return protocol_js.get("TYPES")


def documented(direction: str) -> set[str]:
    """The message types the protocol's typedefs name, for one direction (its section of the file)."""
    text = (SRC / "shared" / "protocol.js").read_text()
    page_part = text.index("// --- worker -> page")
    part = text[:page_part] if direction == "toWorker" else text[page_part:]
    found = set()
    for union in re.findall(r'@typedef \{\{type: ((?:"\w+"(?: \| )?)+)', part):
        found |= set(re.findall(r'"(\w+)"', union))
    return found


def test_each_constructor_makes_its_own_type_and_the_typedefs_name_exactly_those(protocol_js, types):
    assert types["toWorker"] == ["prefetch", "module", "init", "run", "fork", "chat", "replay", "files", "warm"]
    assert types["toPage"] == [
        "progress",
        "ready",
        "stdout",
        "stderr",
        "event",
        "delta",
        "ask",
        "done",
        "kept",
        "files",
        "fatal",
    ]
    for direction, names in types.items():
        assert documented(direction) == set(names), direction


def handler_names(source: str, direction: str) -> set[str] | None:
    """The keys of the table a side gives protocol.reader: `reader("toPage", {progress: ..., ...})`."""
    found = re.search(rf'reader\("{direction}", \{{', source)
    if not found:
        return None
    entries, depth, entry = [], 0, ""
    for char in source[found.end() :]:
        if char in "([{":
            depth += 1
        elif char in ")]}":
            if depth == 0:
                break
            depth -= 1
        if char == "," and depth == 0:
            entries.append(entry)
            entry = ""
        else:
            entry += char
    entries.append(entry)
    return {re.match(r"\s*(\w+)", e).group(1) for e in entries if e.strip()}


def test_sides_send_only_what_the_constructors_make(types):
    for direction, path in ((d, p) for d, paths in SIDES.items() for p in paths):
        source = path.read_text()
        assert "../shared/protocol.js" in source, path.name
        assert not re.search(r'\btype: "', source.replace('{ type: "module" }', "")), (
            f"{path.name} writes a message by hand"
        )
        used = set(re.findall(rf"\b{direction}\.(\w+)\(", source))
        assert used and used <= set(types[direction]), (path.name, used)
        for call in re.findall(r"\bpost(?:Message)?\(([^)]*)", source):
            assert re.match(rf"{direction}(\.\w+|\[\w+\])\(|message\(|message$", call.strip()), (path.name, call)


def test_sides_read_only_types_the_protocol_defines(types):
    page = handler_names(READS["toPage"].read_text(), "toPage")
    worker = handler_names(READS["toWorker"].read_text(), "toWorker")
    assert page == set(types["toPage"]), "the page handles every message the worker sends, and no other"
    assert worker == set(types["toWorker"]), "the worker handles every message the page sends, and no other"


def test_a_reader_refuses_a_type_the_protocol_lacks_and_ignores_an_unknown_message(tmp_path):
    script = tmp_path / "reader.mjs"
    script.write_text(
        f'import {{ reader, toPage }} from "{(SRC / "shared" / "protocol.js").as_uri()}";\n'
        "const seen = [];\n"
        'const read = reader("toPage", { done: (m) => seen.push(m.result.ok) });\n'
        'read(toPage.done(1, { ok: true, error: null, checks: [] })); read({ type: "nonsense" }); read(null);\n'
        "let refused = null;\n"
        'try { reader("toWorker", { stop() {} }); } catch (e) { refused = e.message; }\n'
        "console.log(JSON.stringify({ seen, refused }));\n"
    )
    out = json.loads(subprocess.run(["node", str(script)], capture_output=True, text=True, check=True).stdout)
    assert out == {"seen": [True], "refused": "protocol: no toWorker message stop"}


@pytest.fixture
def bridge():
    sys.path.insert(0, str(SRC / "worker"))
    try:
        import bridge
    finally:
        sys.path.remove(str(SRC / "worker"))
    environ = dict(os.environ)  # a run sets its environment in os.environ, as in the worker
    yield bridge
    os.environ.clear()
    os.environ.update(environ)


def run(cells, env=None, carried=None, **more) -> dict:
    """A `run` message as the page sends it (shared/protocol.js toWorker.run)."""
    return {
        "type": "run",
        "id": 1,
        "cells": cells,
        "solution": False,
        "env": env or {},
        "carried": carried or {},
        **more,
    }


def chat(cells, message, env, fresh=False) -> dict:
    """A `chat` message as the page sends it."""
    return {
        "type": "chat",
        "id": 1,
        "chat": {"cells": cells, "solution": False, "message": message, "fresh": fresh},
        "env": env,
    }


def fork(request) -> dict:
    """A `fork` message as the page sends it."""
    return {"type": "fork", "id": 1, "fork": request, "env": {}}


def handled(bridge, message, send=lambda e: None) -> dict:
    """bridge.handle's answer to `message`, read."""
    return json.loads(bridge.handle(json.dumps(message), send))


AGENT = """
from looplab import Memory, Toolbox, call, final, run_agent, scripted
box = Toolbox()
box.register("add", "Add two numbers.", {"type": "object", "properties": {"a": {"type": "number"}, "b": {"type": "number"}},
             "required": ["a", "b"]}, lambda a, b: a + b)
result = run_agent("What is 2 + 3?", scripted([call("add", a=2, b=3, id="c1"),
                   lambda messages, tools: final(f"The sum is {messages[-1]['content']}.")]), box, Memory("You add."))
print(result["answer"])
"""


def test_bridge_results_have_the_keys_the_protocol_documents(protocol_js, bridge, capsys):
    result_keys = protocol_js.get("RESULT_KEYS")
    cells = [
        {"kind": "code", "source": AGENT, "tags": []},
        {"kind": "code", "source": "assert result['answer'] == 'The sum is 5.', 'the answer'", "tags": ["check"]},
    ]
    events = []
    ran = handled(bridge, run(cells, {"LOOPLAB_MODEL": "scripted"}), lambda e: events.append(json.loads(e)))
    assert sorted(ran) == sorted(protocol_js.get("RUN_KEYS")) and ran["ok"] is True
    assert ran["events"] == [] and [e["type"] for e in events][:2] == ["run_start", "model_call"]  # sent one by one
    assert [sorted(c) for c in ran["checks"]] == [["message", "name", "ok", "status"]] and ran["checks"][0]["ok"]
    number = next(e["run"] for e in events if e["type"] == "run_start")
    forked = handled(bridge, fork({"run": number, "step": 1, "result": "7", "call_id": "c1"}))
    assert sorted(forked) == sorted(result_keys + ["fork"]) and forked["ok"] is True
    assert sorted(forked["fork"]) == sorted(protocol_js.get("FORK_KEYS"))
    assert forked["fork"]["answer"] == "The sum is 7." and forked["fork"]["fork_of"] == {"run": number, "step": 1}
    refused = handled(bridge, fork({"run": 999, "step": 1, "reply": "x"}))
    assert sorted(refused) == sorted(result_keys) and "not kept" in refused["error"]
    assert "The sum is 5." in capsys.readouterr().out


CHAT = """
from looplab import Memory, Toolbox, final, run_agent, scripted
from looplab import chat_with
memory = Memory("You talk.")
model = scripted([final("hello Alice"), final("still here")])
chat_with(lambda m: run_agent(m, model, Toolbox(), memory), name="talker", suggestions=["hi"], start=memory.history.clear)
print("the lesson ran")
"""


STREAMS = """
from looplab import chat_with
from looplab.models.stream import ChatStream

ChatStream("http://127.0.0.1:9/v1").show("the lesson's own call")

def agent(message):
    ChatStream("http://127.0.0.1:9/v1").show(f"the agent answers {message}")
    return f"the agent answers {message}"

chat_with(agent, name="streamer")
"""


def test_a_chat_runs_the_lessons_code_quietly_its_streamed_text_too(bridge):
    """The Chat tab showed the streamed text of the lesson's own live calls as the agent's reply (issue 37)."""
    shown = []
    stop = bridge.listen_deltas(shown.append)  # what the worker posts to the page as `delta`
    try:
        cells = [{"kind": "code", "source": STREAMS, "tags": []}]
        turn = handled(bridge, chat(cells, "hi", {"LOOPLAB_MODEL": "scripted"}, fresh=True))["chat"]
    finally:
        stop()
    assert turn["fresh"] is True and turn["reply"] == "the agent answers hi"
    assert shown == ["the agent answers hi"]  # the lesson's code ran first, and quietly


def test_a_chat_made_for_another_live_model_is_made_anew(bridge):
    """A lesson's code picks its model when it runs: after Settings named another model, the chat's
    namespace still held the old one, and the header named a model the turns did not use (issue 37)."""
    cells = [{"kind": "code", "source": STREAMS, "tags": []}]
    live = {"LOOPLAB_MODEL": "live", "LLM_BASE_URL": "http://127.0.0.1:9/v1", "LLM_MODEL": "first"}
    made = [
        handled(bridge, chat(cells, None, env))["chat"]["fresh"]
        for env in (live, live, {**live, "LLM_MODEL": "second"}, {**live, "LLM_MODEL": "second", "LLM_API_KEY": "k"})
    ]
    assert made == [True, False, True, False]  # the same model keeps it; another makes it anew; the key is not a model


def test_a_chat_turn_keeps_the_namespace_and_is_a_run_of_its_own(protocol_js, bridge, capsys):
    cells = [{"kind": "code", "source": CHAT, "tags": []}]
    env = {"LOOPLAB_MODEL": "scripted"}
    ready = handled(bridge, chat(cells, None, env))
    assert sorted(ready) == sorted(protocol_js.get("RESULT_KEYS") + ["chat"]) and ready["ok"] is True
    assert sorted(ready["chat"]) == sorted(protocol_js.get("CHAT_KEYS"))
    assert ready["chat"]["offer"] == {"name": "talker", "suggestions": ["hi"]} and ready["chat"]["fresh"] is True
    events = []
    first = handled(bridge, chat(cells, "my name is Alice", env), lambda e: events.append(json.loads(e)))["chat"]
    second = handled(bridge, chat(cells, "and now?", env))["chat"]
    assert (first["reply"], first["kind"], first["stopped"], first["fresh"]) == (
        "hello Alice",
        "answer",
        "final",
        False,
    )
    assert second["reply"] == "still here" and second["run"] > first["run"]  # the same model: the namespace was kept
    turn = [e for e in events if e["run"] == first["run"]]  # the turn is run_agent's run
    assert [e["type"] for e in turn][:2] == ["run_start", "model_call"] and turn[0]["task"] == "my name is Alice"
    assert {e["run"] for e in events} == {first["run"]}
    edited = [{"kind": "code", "source": CHAT.replace("still here", "changed"), "tags": []}]
    again = handled(bridge, chat(edited, "x", env))["chat"]
    assert again["fresh"] is True and again["reply"] == "hello Alice"  # an edit: the code ran again
    broken = handled(bridge, chat([{"kind": "code", "source": "1/0", "tags": []}], "x", env))
    assert broken["ok"] is False and broken["chat"] is None and "ZeroDivisionError" in broken["error"]
    assert "the lesson ran" not in capsys.readouterr().out  # the lesson's code ran quietly
    ran = handled(bridge, run(cells, env))
    assert ran["error"] is None and "the lesson ran" in capsys.readouterr().out  # a Run prints, as ever
    adopted = handled(bridge, chat(cells, "after the run", env))["chat"]
    assert adopted["fresh"] is True and adopted["reply"] == "hello Alice"  # the Run's namespace, new to the chat
    again = handled(bridge, chat(cells, "and again", env))["chat"]
    assert again["fresh"] is False and again["reply"] == "still here"  # no run between: the same namespace


def lesson_02_as_run(broken: bool = False) -> list[dict]:
    """Lesson 02's cells as the page sends them, every exercise holding its solution (`broken`: the
    first exercise's MyToolbox without register and run), as a learner's saved edits would."""
    cells = parse((SRC.parents[1] / "lessons" / "02-tools.py").read_text(encoding="utf-8"))
    out = []
    for i, cell in enumerate(cells):
        source = cell.source
        if cell.role == "exercise":
            source = cells[solution_index(cells, i)].source.replace('"""Tools', '"""Saved: tools', 1)
            if broken and not any(c.role == "exercise" for c in cells[:i]):
                source = "class MyToolbox:\n    def __init__(self):\n        self.tools = {}\n"
        if cell.role != "wrong":  # the site never serves them
            out.append({"kind": cell.kind, "tags": cell.tags, "source": source})
    return out


def test_a_run_carries_the_saved_cells_that_mine_then_uses(bridge, capsys):
    uses = [
        {"kind": "code", "tags": [], "source": "from looplab import mine\nmy = mine(2)\n"},
        {"kind": "code", "tags": ["check"], "source": "# mine\nassert 'MyToolbox' in my.yours, my.note\n"},
    ]
    try:
        ran = handled(bridge, run(uses, {"LOOPLAB_MODEL": "scripted"}, {"02": lesson_02_as_run()}))
        assert ran["ok"] is True, ran
        found = mine.mine(2)
        assert found.MyToolbox.__doc__.startswith("Saved: tools")  # the saved cells' class, not the site's
        assert "From lesson 02: MyToolbox" in capsys.readouterr().out and found.reference == []
        ran = handled(bridge, run(uses, {"LOOPLAB_MODEL": "scripted"}, {"02": lesson_02_as_run(broken=True)}))
        printed = capsys.readouterr().out
        assert ran["ok"] is False and "the reference solution: MyToolbox" in printed
        assert [c["ok"] for c in ran["checks"]] == [False] and "reference" in ran["checks"][0]["message"]
    finally:
        mine.provide(None)
        bridge.carried_last = None


def test_a_lesson_whose_saved_code_came_from_elsewhere_is_never_carried_only_named(bridge, capsys):
    uses = [
        {"kind": "code", "tags": [], "source": "from looplab import mine\nmy = mine(2)\n"},
        {"kind": "code", "tags": ["check"], "source": "# mine\nassert 'MyToolbox' in my.yours, my.note\n"},
    ]
    try:
        # page/run/carried.js: where it came from, no code
        ran = handled(bridge, run(uses, {"LOOPLAB_MODEL": "scripted"}, {"02": {"from": "link"}}))
        line = next(x for x in capsys.readouterr().out.splitlines() if x.startswith("From lesson 02:"))
        assert "the site's own code, the reference solution: MyToolbox" in line and "came from a link" in line, line
        assert ran["ok"] is False and "came from a link" in ran["checks"][0]["message"]
        found = mine.mine(2)
        assert found.yours == [] and not found.MyToolbox.__doc__.startswith("Saved")
        bridge.carry({"02": lesson_02_as_run()})  # the learner's own, later: used again
        assert mine.mine(2).MyToolbox.__doc__.startswith("Saved: tools")
    finally:
        mine.provide(None)
        bridge.carried_last = None


def test_the_bridge_hands_each_streamed_text_piece_to_the_worker_as_it_arrives(bridge):
    from looplab.models.stream import ChatStream

    pieces = []
    stop = bridge.listen_deltas(pieces.append)
    try:
        reader = ChatStream("http://fake/v1")
        for text in ("Hel", "lo, ", "wörld"):
            chunk = {"choices": [{"index": 0, "delta": {"content": text}, "finish_reason": None}]}
            reader.feed(f"data: {json.dumps(chunk)}\n\n".encode())
            assert pieces[-1] == text  # each piece as soon as its event is whole
        reader.feed(b"data: [DONE]\n\n")
    finally:
        stop()
    assert pieces == ["Hel", "lo, ", "wörld"]
    assert reader.finish()["choices"][0]["message"]["content"] == "Hello, wörld"


def test_the_bridge_has_one_entry_for_the_pages_messages(bridge):
    assert handled(bridge, {"type": "files", "id": 3, "op": "read"}) == {"project": None}
    wrong = handled(bridge, {"type": "files", "id": 4, "op": "shred"})
    assert "shred" in wrong["error"] and "read and reset" in wrong["error"]
    unknown = handled(bridge, {"type": "stop", "id": 5})
    assert unknown["ok"] is False and "'stop'" in unknown["error"] and unknown["checks"] == []
