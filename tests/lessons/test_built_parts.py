"""The parts learners build, run on cases beyond the ones their lessons print.

Each section loads a lesson's solution namespace (the code a learner ends up with) and tests the
part defined there: edge cases the lesson does not show, and hypothesis property tests for the
part's invariants. Sections are separate so that each lesson's part stands on its own.
"""

import contextlib
import io
import json
from functools import cache
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from looplab import Memory, Toolbox, call, calls, failing, final, scripted
from looplab.lesson import parse, run_cells

ROOT = Path(__file__).resolve().parents[2]
# The lesson tests' conftest sets LOOPLAB_MODEL=scripted per test; the value is the same for
# every generated example, so a function-scoped fixture is safe here.
PROPERTY = settings(suppress_health_check=[HealthCheck.function_scoped_fixture], deadline=None)


@cache
def solved(prefix: str) -> dict:
    """The namespace of a lesson run with its solutions (printing silenced)."""
    path = next((ROOT / "lessons").glob(f"{prefix}-*.py"))
    namespace = {"__name__": "__lesson__"}
    with contextlib.redirect_stdout(io.StringIO()):
        result = run_cells(parse(path.read_text(encoding="utf-8")), solution=True, namespace=namespace)
    assert result.error is None and result.ok, result.error
    return namespace


# --- lesson 02: MyToolbox ------------------------------------------------------------------------

def my_toolbox():
    return solved("02")["MyToolbox"]()


def echo_box():
    box = my_toolbox()
    box.register("echo", "Repeat a text.",
                 {"type": "object", "properties": {"text": {"type": "string"}, "times": {"type": "integer"}},
                  "required": ["text"]},
                 lambda text, times=1: " ".join([text] * times))
    box.register("now", "The time.", {"type": "object", "properties": {}}, lambda: {"h": 9})
    box.register("wipe", "Delete all.", {"type": "object", "properties": {}}, lambda: None, needs_approval=True)
    return box


def test_my_toolbox_schemas_follow_registration_order_and_a_second_register_replaces():
    box = echo_box()
    assert [s["function"]["name"] for s in box.schemas()] == ["echo", "now", "wipe"]
    box.register("now", "The time, in hours.", {"type": "object", "properties": {}}, lambda: 10)
    schemas = box.schemas()
    assert [s["function"]["name"] for s in schemas] == ["echo", "now", "wipe"]
    assert schemas[1] == {"type": "function", "function": {
        "name": "now", "description": "The time, in hours.", "parameters": {"type": "object", "properties": {}}}}
    assert my_toolbox().schemas() == []


def test_my_toolbox_needs_approval_is_false_for_anything_not_flagged():
    box = echo_box()
    assert box.needs_approval("wipe") is True
    assert [box.needs_approval(n) for n in ("echo", "now", "", "WIPE", None)] == [False] * 5


def test_my_toolbox_turns_results_into_text_and_empty_arguments_into_none():
    box = echo_box()
    assert box.run("now", "") == "{'h': 9}" and box.run("now", "{}") == "{'h': 9}"
    assert box.run("wipe", "{}") == "None"          # the toolbox runs it; asking a person is the loop's job
    assert box.run("echo", '{"text": "a b", "times": 3}') == "a b a b a b"


def test_my_toolbox_errors_say_what_would_work():
    box = echo_box()
    assert box.run("echo", '{"text": 1, "times": 0}') == ""   # types are not checked: looplab's Toolbox does that
    unknown = my_toolbox().run("anything", "{}")
    assert unknown.startswith("error:") and "anything" in unknown and "none" in unknown
    wrong = box.run("now", '{"x": 1}')
    assert wrong.startswith("error:") and "no arguments" in wrong
    number = box.run("echo", "42")
    assert number.startswith("error:") and "text" in number
    raised = my_toolbox()
    raised.register("fail", "Fails.", {"type": "object", "properties": {}}, lambda: {}["missing"])
    assert raised.run("fail", "{}").startswith("error: fail failed:")


@PROPERTY
@given(name=st.one_of(st.text(max_size=8), st.sampled_from(["echo", "now", "wipe"])),
       arguments=st.one_of(st.text(max_size=30), st.sampled_from(['{"text": "x"}', "{}", "[1]", "null", '"x"']),
                           st.dictionaries(st.sampled_from(["text", "times", "loud"]),
                                           st.one_of(st.text(max_size=5), st.integers(0, 3))).map(json.dumps)))
def test_my_toolbox_run_never_raises_and_errors_exactly_when_the_call_cannot_work(name, arguments):
    box = echo_box()
    result = box.run(name, arguments)
    assert isinstance(result, str)
    try:
        parsed = json.loads(arguments or "{}")
    except ValueError:
        parsed = None
    takes = {"echo": ({"text", "times"}, {"text"}), "now": (set(), set()), "wipe": (set(), set())}
    fits = (name in takes and isinstance(parsed, dict) and set(parsed) <= takes[name][0]
            and takes[name][1] <= set(parsed))
    if not fits:
        assert result.startswith("error:"), (name, arguments, result)
    elif name == "echo" and isinstance(parsed.get("times", 1), int) and isinstance(parsed["text"], str):
        assert result == " ".join([parsed["text"]] * parsed.get("times", 1))


@PROPERTY
@given(st.lists(st.sampled_from(["a", "b", "c", "d", "e"]), min_size=1, max_size=8))
def test_my_toolbox_schemas_list_each_name_once_in_first_registration_order(names):
    box = my_toolbox()
    for name in names:
        box.register(name, f"tool {name}", {"type": "object", "properties": {}}, lambda: name)
    assert [s["function"]["name"] for s in box.schemas()] == list(dict.fromkeys(names))
    assert all(s["type"] == "function" and set(s["function"]) == {"name", "description", "parameters"}
               for s in box.schemas())


# --- lesson 04: my_run_agent ---------------------------------------------------------------------

def my_run_agent(*args, **kwargs):
    return solved("04")["my_run_agent"](*args, **kwargs)


def loop_box(deleted: list) -> Toolbox:
    box = Toolbox()
    box.register("echo", "Repeat a text.", {"type": "object", "properties": {"text": {"type": "string"}},
                                             "required": ["text"]}, lambda text: text)
    box.register("delete", "Delete a note.", {"type": "object", "properties": {"id": {"type": "string"}}},
                 lambda id="n1": deleted.append(id) or "deleted", needs_approval=True)
    return box


def pairs_hold(messages: list[dict]) -> bool:
    """Every tool call has exactly one tool message with its id, after the reply that asked for it."""
    asked, answered = [], []
    for message in messages:
        if message["role"] == "assistant":
            asked += [c["id"] for c in message.get("tool_calls") or []]
        elif message["role"] == "tool":
            if message["tool_call_id"] not in asked or message["tool_call_id"] in answered:
                return False
            answered.append(message["tool_call_id"])
    return sorted(asked) == sorted(answered)


def test_my_run_agent_runs_the_learners_own_toolbox_from_lesson_2():
    box = solved("02")["MyToolbox"]()
    box.register("double", "Double a number.", {"type": "object", "properties": {"x": {"type": "number"}},
                                                 "required": ["x"]}, lambda x: x * 2)
    result, messages = my_run_agent("Double 21.", scripted([call("double", x=21), call("triple", x=1),
                                                            final("42.")]), box)
    assert result == {"answer": "42.", "steps": 3, "stopped": "final"}
    assert [m["content"] for m in messages if m["role"] == "tool"][0] == "42"
    assert messages[4]["content"].startswith("error: no tool named 'triple'")


def test_my_run_agent_edges_no_steps_one_step_a_late_failure_and_an_empty_answer():
    box = loop_box([])
    result, messages = my_run_agent("Hi.", scripted([final("never")]), box, max_steps=0)
    assert result["stopped"] == "step_limit" and result["steps"] == 0 and messages == [{"role": "user", "content": "Hi."}]
    result, _ = my_run_agent("Hi.", scripted([call("echo", text="x"), final("x")]), box, max_steps=1)
    assert (result["stopped"], result["steps"], result["answer"]) == ("step_limit", 1, None)
    result, messages = my_run_agent("Hi.", scripted([call("echo", text="x"), call("echo", text="y")]), box)
    assert result["stopped"] == "error" and result["steps"] == 3 and "2 replies" in result["detail"]
    assert pairs_hold(messages) and len(messages) == 5
    result, _ = my_run_agent("Hi.", scripted([{"role": "assistant", "content": None}]), box)
    assert result == {"answer": None, "steps": 1, "stopped": "final"}


def test_my_run_agent_asks_approve_with_the_tool_name_and_runs_only_what_it_allows():
    deleted, asked = [], []
    box = loop_box(deleted)
    model = scripted([calls(("echo", {"text": "before"}, "e1"), ("delete", {"id": "n2"}, "d1"),
                            ("echo", {"text": "after"}, "e2")), final("Done.")])
    result, messages = my_run_agent("Clean up.", model, box, approve=lambda name: asked.append(name) or False)
    assert result["stopped"] == "needs_person" and asked == ["delete"] and deleted == []
    tool = {m["tool_call_id"]: m["content"] for m in messages if m["role"] == "tool"}
    assert tool["e1"] == "before" and tool["d1"].startswith("error:") and tool["e2"].startswith("error:")
    model = scripted([calls(("delete", {"id": "n3"}, "d2")), final("Gone.")])
    result, _ = my_run_agent("Delete n3.", model, box, approve=lambda name: name == "delete")
    assert result["stopped"] == "final" and deleted == ["n3"]


def broken(messages, tools):
    raise TimeoutError("slow network")


REPLY = st.one_of(
    st.just("final"),
    st.lists(st.sampled_from(["echo", "delete", "nope"]), min_size=1, max_size=3),
    st.just("raise"))


@PROPERTY
@given(replies=st.lists(REPLY, max_size=6), max_steps=st.integers(0, 5),
       approve=st.sampled_from([None, "yes", "no"]))
def test_my_run_agent_always_ends_with_a_stop_and_answers_every_call_once(replies, max_steps, approve):
    script, n = [], 0
    for reply in replies:
        if reply == "final":
            script.append(final("done"))
        elif reply == "raise":
            script.append(broken)
        else:
            script.append(calls(*[(name, {"text": "t"} if name == "echo" else {}, f"id{(n := n + 1)}")
                                  for name in reply]))
    deleted = []
    decide = {None: None, "yes": lambda name: True, "no": lambda name: False}[approve]
    result, messages = my_run_agent("Go.", scripted(script), loop_box(deleted), max_steps=max_steps, approve=decide)
    assert result["stopped"] in {"final", "step_limit", "error", "needs_person"}
    assert pairs_hold(messages)
    assert messages[0] == {"role": "user", "content": "Go."}
    assistants = sum(m["role"] == "assistant" for m in messages)
    assert 0 <= result["steps"] <= max_steps
    assert assistants == result["steps"] - (result["stopped"] == "error")
    if result["stopped"] == "final":
        assert messages[-1]["role"] == "assistant" and not messages[-1].get("tool_calls")
    if result["stopped"] == "error":
        assert result["detail"] and result["answer"] is None
    if result["stopped"] == "needs_person":
        assert approve != "yes" and deleted == []
        assert any(m["role"] == "tool" and m["content"].startswith("error:") for m in messages)
    if approve != "yes":
        assert deleted == []


# --- lesson 08: MyMemory -------------------------------------------------------------------------

def my_memory(prompt: str = "Helper."):
    return solved("08")["MyMemory"](prompt)


@st.composite
def conversations(draw):
    """Histories whose tool results follow the call they answer, each message with a `tokens` size."""
    messages, n = [], 0
    for _ in range(draw(st.integers(0, 14))):
        kind = draw(st.sampled_from(["user", "assistant", "call"]))
        if kind == "call":
            ids = [f"c{(n := n + 1)}" for _ in range(draw(st.integers(1, 2)))]
            messages.append({"role": "assistant", "content": None, "tokens": draw(st.integers(1, 200)),
                             "tool_calls": [{"id": i, "type": "function",
                                             "function": {"name": "t", "arguments": "{}"}} for i in ids]})
            messages += [{"role": "tool", "tool_call_id": i, "content": "r", "tokens": draw(st.integers(1, 700))}
                         for i in ids]
        else:
            messages.append({"role": kind, "content": kind, "tokens": draw(st.integers(1, 400))})
    return messages


@PROPERTY
@given(conversations(), st.one_of(st.none(), st.integers(0, 4000)))
def test_my_memory_window_fits_is_a_suffix_never_opens_on_a_tool_and_agrees_with_memory(history, budget):
    mine = my_memory("You help.")
    reference = Memory({"role": "system", "content": "You help.", "tokens": 400})
    for message in history:
        mine.add(message)
        reference.add(message)
    window = mine.messages(budget)
    assert window[0]["role"] == "system" and window[0]["tokens"] == 400
    rest = window[1:]
    assert rest == history[len(history) - len(rest):] if rest else True
    assert not rest or rest[0]["role"] != "tool"
    if budget is not None and budget >= 400:
        assert sum(m["tokens"] for m in window) <= budget
    if budget is not None and budget < 400:
        assert rest == []
    assert rest == reference.messages(budget)[1:]


def test_my_memory_notes_replace_by_key_and_are_written_once_per_call():
    memory = my_memory("You are a research helper.")
    memory.remember("March winner", "Westside")
    memory.remember("March winner", "Eastside")
    memory.remember("unit", "visits")
    first, second = memory.messages()[0]["content"], memory.messages(500)[0]["content"]
    assert first == second and first.startswith("You are a research helper.")
    assert "March winner: Eastside" in first and "Westside" not in first and "unit: visits" in first
    assert first.count("March winner") == 1


def test_my_memory_edges_an_empty_history_an_exact_budget_and_tool_results_alone():
    memory = my_memory()
    assert [m["role"] for m in memory.messages(0)] == ["system"] and len(memory.messages()) == 1
    for role, tokens in [("user", 100), ("assistant", 200)]:
        memory.add({"role": role, "content": role, "tokens": tokens})
    assert len(memory.messages(700)) == 3 and len(memory.messages(699)) == 2
    lone = my_memory()
    lone.add({"role": "tool", "tool_call_id": "c1", "content": "r", "tokens": 10})
    lone.add({"role": "tool", "tool_call_id": "c2", "content": "r", "tokens": 10})
    assert [m["role"] for m in lone.messages()] == ["system"] and [m["role"] for m in lone.messages(5000)] == ["system"]
