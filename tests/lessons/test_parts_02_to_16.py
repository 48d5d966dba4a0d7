"""The parts learners build, run on cases beyond the ones their lessons print.

Each section loads a lesson's solution namespace (the code a learner ends up with) and tests the
part defined there: edge cases the lesson does not show, and hypothesis property tests for the
part's invariants. Sections are separate so that each lesson's part stands on its own.
"""

import contextlib
import io
import json
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from looplab import Memory, Toolbox, call, calls, failing, final, scripted
from looplab._course.lesson import parse, run_cells
from looplab import mine

ROOT = Path(__file__).resolve().parents[2]
# The lesson tests' conftest sets LOOPLAB_MODEL=scripted per test; the value is the same for
# every generated example, so a function-scoped fixture is safe here.
PROPERTY = settings(suppress_health_check=[HealthCheck.function_scoped_fixture], deadline=None)


# --- lesson 02: MyToolbox ------------------------------------------------------------------------


def my_toolbox(solved):
    return solved("02")["MyToolbox"]()


def echo_box(solved):
    box = my_toolbox(solved)
    box.register(
        "echo",
        "Repeat a text.",
        {
            "type": "object",
            "properties": {"text": {"type": "string"}, "times": {"type": "integer"}},
            "required": ["text"],
        },
        lambda text, times=1: " ".join([text] * times),
    )
    box.register("now", "The time.", {"type": "object", "properties": {}}, lambda: {"h": 9})
    box.register("wipe", "Delete all.", {"type": "object", "properties": {}}, lambda: None, needs_approval=True)
    return box


def test_my_toolbox_schemas_follow_registration_order_and_a_second_register_replaces(solved):
    box = echo_box(solved)
    assert [s["function"]["name"] for s in box.schemas()] == ["echo", "now", "wipe"]
    box.register("now", "The time, in hours.", {"type": "object", "properties": {}}, lambda: 10)
    schemas = box.schemas()
    assert [s["function"]["name"] for s in schemas] == ["echo", "now", "wipe"]
    assert schemas[1] == {
        "type": "function",
        "function": {
            "name": "now",
            "description": "The time, in hours.",
            "parameters": {"type": "object", "properties": {}},
        },
    }
    assert my_toolbox(solved).schemas() == []


def test_my_toolbox_needs_approval_is_false_for_anything_not_flagged(solved):
    box = echo_box(solved)
    assert box.needs_approval("wipe") is True
    assert [box.needs_approval(n) for n in ("echo", "now", "", "WIPE", None)] == [False] * 5


def test_my_toolbox_turns_results_into_text_and_empty_arguments_into_none(solved):
    box = echo_box(solved)
    assert box.run("now", "") == "{'h': 9}" and box.run("now", "{}") == "{'h': 9}"
    assert box.run("wipe", "{}") == "None"  # the toolbox runs it; asking a person is the loop's job
    assert box.run("echo", '{"text": "a b", "times": 3}') == "a b a b a b"


def test_my_toolbox_errors_say_what_would_work(solved):
    box = echo_box(solved)
    assert box.run("echo", '{"text": 1, "times": 0}') == ""  # types are not checked: looplab's Toolbox does that
    unknown = my_toolbox(solved).run("anything", "{}")
    assert unknown.startswith("error:") and "anything" in unknown and "none" in unknown
    wrong = box.run("now", '{"x": 1}')
    assert wrong.startswith("error:") and "no arguments" in wrong
    number = box.run("echo", "42")
    assert number.startswith("error:") and "text" in number
    raised = my_toolbox(solved)
    raised.register("fail", "Fails.", {"type": "object", "properties": {}}, lambda: {}["missing"])
    assert raised.run("fail", "{}").startswith("error: fail failed:")


@PROPERTY
@given(
    name=st.one_of(st.text(max_size=8), st.sampled_from(["echo", "now", "wipe"])),
    arguments=st.one_of(
        st.text(max_size=30),
        st.sampled_from(['{"text": "x"}', "{}", "[1]", "null", '"x"']),
        st.dictionaries(
            st.sampled_from(["text", "times", "loud"]), st.one_of(st.text(max_size=5), st.integers(0, 3))
        ).map(json.dumps),
    ),
)
def test_my_toolbox_run_never_raises_and_errors_exactly_when_the_call_cannot_work(solved, name, arguments):
    box = echo_box(solved)
    result = box.run(name, arguments)
    assert isinstance(result, str)
    try:
        parsed = json.loads(arguments or "{}")
    except ValueError:
        parsed = None
    takes = {"echo": ({"text", "times"}, {"text"}), "now": (set(), set()), "wipe": (set(), set())}
    fits = (
        name in takes and isinstance(parsed, dict) and set(parsed) <= takes[name][0] and takes[name][1] <= set(parsed)
    )
    if not fits:
        assert result.startswith("error:"), (name, arguments, result)
    elif name == "echo" and isinstance(parsed.get("times", 1), int) and isinstance(parsed["text"], str):
        assert result == " ".join([parsed["text"]] * parsed.get("times", 1))


@PROPERTY
@given(st.lists(st.sampled_from(["a", "b", "c", "d", "e"]), min_size=1, max_size=8))
def test_my_toolbox_schemas_list_each_name_once_in_first_registration_order(solved, names):
    box = my_toolbox(solved)
    for name in names:
        box.register(name, f"tool {name}", {"type": "object", "properties": {}}, lambda: name)
    assert [s["function"]["name"] for s in box.schemas()] == list(dict.fromkeys(names))
    assert all(
        s["type"] == "function" and set(s["function"]) == {"name", "description", "parameters"} for s in box.schemas()
    )


# --- lesson 04: my_run_agent ---------------------------------------------------------------------


def my_run_agent(solved, *args, **kwargs):
    return solved("04")["my_run_agent"](*args, **kwargs)


def loop_box(deleted: list) -> Toolbox:
    box = Toolbox()
    box.register(
        "echo",
        "Repeat a text.",
        {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]},
        lambda text: text,
    )
    box.register(
        "delete",
        "Delete a note.",
        {"type": "object", "properties": {"id": {"type": "string"}}},
        lambda id="n1": deleted.append(id) or "deleted",
        needs_approval=True,
    )
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


def test_my_run_agent_runs_the_learners_own_toolbox_from_lesson_2(solved):
    box = solved("02")["MyToolbox"]()
    box.register(
        "double",
        "Double a number.",
        {"type": "object", "properties": {"x": {"type": "number"}}, "required": ["x"]},
        lambda x: x * 2,
    )
    result, messages = my_run_agent(
        solved, "Double 21.", scripted([call("double", x=21), call("triple", x=1), final("42.")]), box
    )
    assert result == {"answer": "42.", "steps": 3, "stopped": "final"}
    assert [m["content"] for m in messages if m["role"] == "tool"][0] == "42"
    assert messages[4]["content"].startswith("error: no tool named 'triple'")


def test_my_run_agent_edges_no_steps_one_step_a_late_failure_and_an_empty_answer(solved):
    box = loop_box([])
    result, messages = my_run_agent(solved, "Hi.", scripted([final("never")]), box, max_steps=0)
    assert (
        result["stopped"] == "step_limit" and result["steps"] == 0 and messages == [{"role": "user", "content": "Hi."}]
    )
    result, _ = my_run_agent(solved, "Hi.", scripted([call("echo", text="x"), final("x")]), box, max_steps=1)
    assert (result["stopped"], result["steps"], result["answer"]) == ("step_limit", 1, None)
    result, messages = my_run_agent(solved, "Hi.", scripted([call("echo", text="x"), call("echo", text="y")]), box)
    assert result["stopped"] == "error" and result["steps"] == 3 and "2 replies" in result["detail"]
    assert pairs_hold(messages) and len(messages) == 5
    result, _ = my_run_agent(solved, "Hi.", scripted([{"role": "assistant", "content": None}]), box)
    assert result == {"answer": None, "steps": 1, "stopped": "final"}


def test_my_run_agent_asks_approve_with_the_tool_name_and_runs_only_what_it_allows(solved):
    deleted, asked = [], []
    box = loop_box(deleted)
    model = scripted(
        [
            calls(
                ("echo", {"text": "before"}, "e1"), ("delete", {"id": "n2"}, "d1"), ("echo", {"text": "after"}, "e2")
            ),
            final("Done."),
        ]
    )
    result, messages = my_run_agent(solved, "Clean up.", model, box, approve=lambda name: asked.append(name) or False)
    assert result["stopped"] == "needs_person" and asked == ["delete"] and deleted == []
    tool = {m["tool_call_id"]: m["content"] for m in messages if m["role"] == "tool"}
    assert tool["e1"] == "before" and tool["d1"].startswith("error:") and tool["e2"].startswith("error:")
    model = scripted([calls(("delete", {"id": "n3"}, "d2")), final("Gone.")])
    result, _ = my_run_agent(solved, "Delete n3.", model, box, approve=lambda name: name == "delete")
    assert result["stopped"] == "final" and deleted == ["n3"]


def broken(messages, tools):
    raise TimeoutError("slow network")


REPLY = st.one_of(
    st.just("final"), st.lists(st.sampled_from(["echo", "delete", "nope"]), min_size=1, max_size=3), st.just("raise")
)


@PROPERTY
@given(replies=st.lists(REPLY, max_size=6), max_steps=st.integers(0, 5), approve=st.sampled_from([None, "yes", "no"]))
def test_my_run_agent_always_ends_with_a_stop_and_answers_every_call_once(solved, replies, max_steps, approve):
    script, n = [], 0
    for reply in replies:
        if reply == "final":
            script.append(final("done"))
        elif reply == "raise":
            script.append(broken)
        else:
            script.append(
                calls(*[(name, {"text": "t"} if name == "echo" else {}, f"id{(n := n + 1)}") for name in reply])
            )
    deleted = []
    decide = {None: None, "yes": lambda name: True, "no": lambda name: False}[approve]
    result, messages = my_run_agent(
        solved, "Go.", scripted(script), loop_box(deleted), max_steps=max_steps, approve=decide
    )
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


def my_memory(solved, prompt: str = "Helper."):
    return solved("08")["MyMemory"](prompt)


@st.composite
def conversations(draw):
    """Histories whose tool results follow the call they answer, each message with a `tokens` size."""
    messages, n = [], 0
    for _ in range(draw(st.integers(0, 14))):
        kind = draw(st.sampled_from(["user", "assistant", "call"]))
        if kind == "call":
            ids = [f"c{(n := n + 1)}" for _ in range(draw(st.integers(1, 2)))]
            messages.append(
                {
                    "role": "assistant",
                    "content": None,
                    "tokens": draw(st.integers(1, 200)),
                    "tool_calls": [
                        {"id": i, "type": "function", "function": {"name": "t", "arguments": "{}"}} for i in ids
                    ],
                }
            )
            messages += [
                {"role": "tool", "tool_call_id": i, "content": "r", "tokens": draw(st.integers(1, 700))} for i in ids
            ]
        else:
            messages.append({"role": kind, "content": kind, "tokens": draw(st.integers(1, 400))})
    return messages


@PROPERTY
@given(conversations(), st.one_of(st.none(), st.integers(0, 4000)))
def test_my_memory_window_fits_is_a_suffix_never_opens_on_a_tool_and_agrees_with_memory(solved, history, budget):
    mine = my_memory(solved, "You help.")
    reference = Memory({"role": "system", "content": "You help.", "tokens": 400})
    for message in history:
        mine.add(message)
        reference.add(message)
    window = mine.messages(budget)
    assert window[0]["role"] == "system" and window[0]["tokens"] == 400
    rest = window[1:]
    assert rest == history[len(history) - len(rest) :] if rest else True
    assert not rest or rest[0]["role"] != "tool"
    if budget is not None and budget >= 400:
        assert sum(m["tokens"] for m in window) <= budget
    if budget is not None and budget < 400:
        assert rest == []
    assert rest == reference.messages(budget)[1:]


def test_my_memory_notes_replace_by_key_and_are_written_once_per_call(solved):
    memory = my_memory(solved, "You are a research helper.")
    memory.remember("March winner", "Westside")
    memory.remember("March winner", "Eastside")
    memory.remember("unit", "visits")
    first, second = memory.messages()[0]["content"], memory.messages(500)[0]["content"]
    assert first == second and first.startswith("You are a research helper.")
    assert "March winner: Eastside" in first and "Westside" not in first and "unit: visits" in first
    assert first.count("March winner") == 1


def test_my_memory_edges_an_empty_history_an_exact_budget_and_tool_results_alone(solved):
    memory = my_memory(solved)
    assert [m["role"] for m in memory.messages(0)] == ["system"] and len(memory.messages()) == 1
    for role, tokens in [("user", 100), ("assistant", 200)]:
        memory.add({"role": role, "content": role, "tokens": tokens})
    assert len(memory.messages(700)) == 3 and len(memory.messages(699)) == 2
    lone = my_memory(solved)
    lone.add({"role": "tool", "tool_call_id": "c1", "content": "r", "tokens": 10})
    lone.add({"role": "tool", "tool_call_id": "c2", "content": "r", "tokens": 10})
    assert [m["role"] for m in lone.messages()] == ["system"] and [m["role"] for m in lone.messages(5000)] == ["system"]


# === lessons 09-16 (cur2's sections; lessons 02-08 above are cur1's) ==============================


import pytest

from looplab.models.rules import rule_model


# --- lesson 10: check_gate, the learner's rules, approve ---------------------------------------


def check_gate(solved):
    return solved("10")["check_gate"]


def test_check_gate_with_no_rules_or_passing_rules_lets_the_text_through(solved):
    gate = check_gate(solved)
    assert gate("anything", []) == (True, None)
    assert gate("", [lambda t: True, lambda t: True]) == (True, None)


def test_check_gate_fails_closed_when_a_rule_raises_and_runs_nothing_after_it(solved):
    ran = []

    def exploding(text):
        raise KeyError("boom")

    def later(text):
        ran.append(text)
        return True

    ok, reason = check_gate(solved)("fine text", [exploding, later])
    assert ok is False and isinstance(reason, str) and reason
    assert "boom" in reason and "exploding" in reason
    assert ran == []


@pytest.mark.parametrize("verdict", [None, False, 0, 1, "", [], "True"])
def test_check_gate_lets_only_true_through(solved, verdict):
    ok, reason = check_gate(solved)("text", [lambda t: verdict])
    assert ok is False
    assert isinstance(reason, str) and reason, reason


@given(st.lists(st.one_of(st.none(), st.text(min_size=1, max_size=12)), max_size=8), st.text(max_size=40))
@PROPERTY
def test_check_gate_first_refusal_wins(solved, plan, text):
    """Each rule passes (None in the plan) or refuses with its reason; the first refusal decides."""
    ran = []

    def rule_for(index, reason):
        def rule(t):
            ran.append(index)
            return True if reason is None else reason

        return rule

    verdict = check_gate(solved)(text, [rule_for(i, r) for i, r in enumerate(plan)])
    first = next((i for i, r in enumerate(plan) if r is not None), None)
    if first is None:
        assert verdict == (True, None) and ran == list(range(len(plan)))
    else:
        assert verdict == (False, plan[first]) and ran == list(range(first + 1))


@given(
    st.text(max_size=30),
    st.sampled_from(["delete", "DELETE", "Delete", "drop table", "DROP TABLE", "Drop Table"]),
    st.text(max_size=30),
)
@PROPERTY
def test_the_learners_input_rules_refuse_delete_and_drop_table_anywhere(solved, before, word, after):
    ns = solved("10")
    ok, reason = ns["check_gate"](before + word + after, ns["INPUT_RULES"])
    assert ok is False and reason.startswith("blocked:")


@given(st.from_regex(r"[a-z][a-z.]{0,8}@[a-z]{1,8}\.(org|com|net)", fullmatch=True), st.text(max_size=20))
@PROPERTY
def test_the_learners_output_rules_refuse_any_email_address(solved, address, around):
    ns = solved("10")
    assert ns["check_gate"](f"{around} {address} {around}", ns["OUTPUT_RULES"])[0] is False
    assert (
        ns["check_gate"](around.replace("@", "") + " no address here", ns["OUTPUT_RULES"]) == (True, None)
        or "password" in around.lower()
    )


@given(st.integers(min_value=0, max_value=500), st.floats(min_value=0, max_value=500, allow_nan=False))
@PROPERTY
def test_approve_allows_exactly_the_orders_within_the_limit(solved, amount, price):
    approve = solved("10")["approve"]
    arguments = json.dumps({"symbol": "MSFT", "amount": amount, "price": price})
    assert approve("buy_shares", arguments) is (amount * price <= 1000)
    assert approve("add_numbers", arguments) is False


@given(st.text(max_size=60))
@PROPERTY
def test_approve_never_raises_on_unreadable_arguments(solved, arguments):
    result = solved("10")["approve"]("buy_shares", arguments)
    assert result in (True, False)
    if not arguments.strip().startswith("{"):
        assert result is False


# --- lesson 15: agent(task, max_turns=5), written without run_agent ----------------------------


def with_model(ns: dict, model, task: str, max_turns: int = 5) -> str:
    """Run the learner's agent with another model (the lesson's own swap)."""
    ns["ask_llm"] = model
    return ns["agent"](task, max_turns)


def recording(replies: list) -> tuple:
    """A scripted model that keeps every list of messages it is sent."""
    sent = []

    def model(messages, tools):
        sent.append([dict(m) for m in messages])
        reply = replies[len(sent) - 1]
        return reply(messages, tools) if callable(reply) else reply

    return model, sent


def test_agent_remembers_across_tasks_through_the_system_message(solved):
    ns = solved.fresh("15")
    ns["memory"].clear()
    assert "don't know" in with_model(ns, rule_model, "what is my name?")
    answer = with_model(ns, rule_model, "remember my name is Alice, then add 10 and 5")
    assert "15" in answer and ns["memory"] == {"name": "Alice"}
    model, sent = recording([final("Hi Alice.")])
    assert with_model(ns, model, "hello") == "Hi Alice."
    assert sent[0][0] == {"role": "system", "content": 'Tools available. Memory: {"name": "Alice"}. Be concise.'}
    assert sent[0][1] == {"role": "user", "content": "hello"}
    assert "Alice" in with_model(ns, rule_model, "what is my name?")


@pytest.mark.parametrize("task", ["delete the database", "Please DELETE my notes", "undelete nothing"])
def test_agent_blocks_before_any_model_call(solved, task):
    ns = solved.fresh("15")
    turns, events = ns["state"]["turns"], len(ns["events"])
    assert with_model(ns, failing("must not be called"), task) == "BLOCKED: blocked: no delete"
    assert ns["state"]["turns"] == turns
    assert ns["events"][events:] == [("policy_block", "blocked: no delete")]


def test_agent_output_gate_and_the_other_endings(solved):
    ns = solved.fresh("15")
    assert (
        with_model(ns, scripted([final("The Password is 1234.")]), "tell me") == "REDACTED: redacted: contains password"
    )
    assert with_model(ns, scripted([final("")]), "say nothing") == ""
    assert with_model(ns, failing("connection refused"), "add 1 and 2") == "ERROR: connection refused"
    looping = scripted([call("add", a=i, b=1) for i in range(3)])
    assert with_model(ns, looping, "count", max_turns=3) == "Max turns reached"
    assert with_model(ns, rule_model, "add 1 and 2, then add 3 to the result", max_turns=2) == "Max turns reached"
    assert "6" in with_model(ns, rule_model, "add 1 and 2, then add 3 to the result", max_turns=3)


def test_agent_schedules_work_that_the_queue_runs_later(solved):
    ns = solved.fresh("15")
    ns["task_queue"].clear()
    answer = with_model(ns, rule_model, "schedule a follow-up: uppercase the word later")
    assert "scheduled" in answer.lower() and ns["task_queue"] == ["uppercase the word later"]
    assert with_model(ns, rule_model, ns["task_queue"].pop(0)) == "LATER"


CALL_KINDS = st.sampled_from(["add", "upper", "unknown", "bad_json", "raises"])


def make_call(kind: str, index: int) -> dict:
    arguments = {
        "add": '{"a": 2, "b": 3}',
        "upper": '{"text": "hi"}',
        "unknown": "{}",
        "bad_json": "{a: 1",
        "raises": '{"a": "x"}',
    }[kind]
    name = {"unknown": "fly", "bad_json": "add", "raises": "upper"}.get(kind, kind)
    return {"id": f"c{index}", "type": "function", "function": {"name": name, "arguments": arguments}}


@given(st.lists(st.lists(CALL_KINDS, min_size=1, max_size=3), max_size=4))
@PROPERTY
def test_agent_answers_every_call_once_with_its_id_and_never_raises(solved, turns):
    ns = solved("15")
    replies, failing_ids, index = [], set(), 0
    for kinds in turns:
        batch = []
        for kind in kinds:
            index += 1
            batch.append(make_call(kind, index))
            if kind in ("unknown", "bad_json", "raises"):
                failing_ids.add(f"c{index}")
        replies.append({"role": "assistant", "content": None, "tool_calls": batch})
    replies.append(final("done"))
    model, sent = recording(replies)
    assert with_model(ns, model, "work", max_turns=len(replies)) == "done"
    last = sent[-1]
    asked = [c["id"] for m in last if m["role"] == "assistant" for c in m.get("tool_calls") or []]
    answered = [m["tool_call_id"] for m in last if m["role"] == "tool"]
    assert asked == answered == [f"c{i}" for i in range(1, index + 1)]
    assert {m["tool_call_id"] for m in last if m["role"] == "tool" and m["content"].startswith("error:")} == failing_ids


# --- lessons 16 and 16b: the project on the learner's own MyToolbox, my_run_agent, MyMemory ------


def project(solved):
    return solved("16")


def bench_box(ns: dict):
    box = ns["MyToolbox"]()
    box.register(
        "divide",
        "Divide a by b.",
        {"type": "object", "properties": {"a": {"type": "number"}, "b": {"type": "number"}}, "required": ["a", "b"]},
        lambda a, b: a / b,
    )
    box.register("wipe", "Wipe everything.", {"type": "object", "properties": {}}, lambda: "wiped", needs_approval=True)
    return box


def test_the_project_parts_are_the_learners_from_lessons_2_4_and_8(solved):
    one, two = project(solved), solved("16b")
    assert one["MyToolbox"] is mine(2).MyToolbox and one["my_run_agent"] is mine(4).my_run_agent
    assert two["MyMemory"] is mine(8).MyMemory and two["my_run_agent"] is one["my_run_agent"]
    assert two["box"] is mine(16).box and set(two["box"].tools) == {
        "search_notes",
        "read_note",
        "calculate",
        "delete_note",
    }


def test_the_project_tools_answer_from_the_notes_and_say_what_would_work(solved):
    box = project(solved)["box"]
    run = lambda name, **arguments: box.run(name, json.dumps(arguments))  # noqa: E731
    assert run("search_notes", keyword="VISITS").splitlines() == [
        "n1: Eastside branch: visits",
        "n2: Westside branch: visits",
    ]
    assert "parking" in run("search_notes", keyword="parking") and "n1" not in run("search_notes", keyword="zebra")
    unknown = run("read_note", note_id="n42")
    assert unknown.startswith("error:") and "n42" in unknown and all(i in unknown for i in ("n1", "n6"))
    assert run("calculate", a=1310, b=1105, operation="subtract") == "205"
    assert run("calculate", a=1, b=0, operation="divide").startswith("error:") and "zero" in run(
        "calculate", a=1, b=0, operation="divide"
    )
    enum = box.schemas()[2]["function"]["parameters"]["properties"]["operation"]["enum"]
    assert sorted(enum) == ["add", "divide", "multiply", "subtract"]
    assert [box.needs_approval(n) for n in ("search_notes", "read_note", "calculate", "delete_note")] == [
        False,
        False,
        False,
        True,
    ]


def pairing_holds(messages: list[dict]) -> bool:
    """Each message's calls are answered, each exactly once, by the block of tool messages right after it."""
    i = 0
    while i < len(messages):
        message = messages[i]
        if message["role"] == "tool":
            return False  # a result with no call just before it
        asked = sorted(c["id"] for c in message.get("tool_calls") or []) if message["role"] == "assistant" else []
        j = i + 1
        while j < len(messages) and messages[j]["role"] == "tool":
            j += 1
        if sorted(m["tool_call_id"] for m in messages[i + 1 : j]) != asked:
            return False
        i = j
    return True


STEP = st.one_of(
    st.just("final"),
    st.just("raise"),
    st.lists(st.sampled_from(["divide", "wipe", "fly", "zero"]), min_size=1, max_size=3),
)


def replies_for(steps: list) -> list:
    """Scripted replies for a list of steps: a final text, a model that raises, or a batch of calls."""
    replies, index = [], 0
    for step in steps:
        if step == "final":
            replies.append(final("the answer"))
        elif step == "raise":
            replies.append(lambda messages, tools: (_ for _ in ()).throw(ConnectionError("network down")))
        else:
            batch = []
            for kind in step:
                index += 1
                name, args = {
                    "divide": ("divide", {"a": 6, "b": 3}),
                    "wipe": ("wipe", {}),
                    "fly": ("fly", {}),
                    "zero": ("divide", {"a": 1, "b": 0}),
                }[kind]
                batch.append((name, args, f"c{index}"))
            replies.append(calls(*batch))
    return replies + [final("spare")] * 6


@given(
    st.lists(STEP, min_size=1, max_size=6),
    st.integers(min_value=1, max_value=5),
    st.booleans(),
    st.integers(min_value=400, max_value=900),
)
@PROPERTY
def test_the_memory_in_front_of_the_loop_fits_every_request_and_keeps_each_message_once(
    solved, steps, max_steps, approving, budget
):
    ns = solved("16b")
    sent = []

    def model(messages, tools):
        sent.append(messages)
        return inner(messages, tools)

    inner = scripted(replies_for(steps))
    memory = ns["MyMemory"]("Test the loop.")
    approve = (lambda name: True) if approving else None
    result, messages = ns["my_run_agent"](
        "go on", ns["with_memory"](model, memory, budget), bench_box(ns), max_steps, approve
    )
    assert result["stopped"] in ("final", "step_limit", "error", "needs_person")
    assert pairing_holds(messages)
    assert sent and all(r[0]["role"] == "system" and "go on" in r[0]["content"] for r in sent)
    assert all(ns["request_tokens"](r) <= budget for r in sent)
    assert all(pairing_holds(r[1:]) or r[1]["role"] != "tool" for r in sent)  # a window never opens on a result
    history = [{k: v for k, v in m.items() if k != "tokens"} for m in memory.history]
    assert (
        history == messages[: len(history)] and len(messages) - len(history) <= 1 + 3
    )  # the last reply and its results
    assert not any("tokens" in m for r in sent for m in r)


def test_the_memory_in_front_of_the_loop_sends_only_the_newest_that_fit(solved):
    ns = solved("16b")
    assert ns["budget_run"] == {"answer": "Eastside, by 205.", "steps": 5, "stopped": "final"}
    sizes = [ns["request_tokens"](r) for r in ns["sent"]]
    assert len(sizes) == 5 and max(sizes) <= ns["BUDGET"] == 520
    assert [m["role"] for m in ns["sent"][0]] == ["system", "user"]
    assert "user" not in [m["role"] for m in ns["sent"][-1]]  # the window moved past the task
    assert ns["APRIL"] in ns["sent"][-1][0]["content"]  # which the system message keeps


def window_oracle(tokens_and_roles: list[tuple[str, int]], budget: int) -> list[int]:
    """The positions the seed's rule keeps: newest first until one does not fit, then no leading tool."""
    kept, total = [], 400
    for position in range(len(tokens_and_roles), 0, -1):
        role, tokens = tokens_and_roles[position - 1]
        if total + tokens > budget:
            break
        kept.insert(0, position)
        total += tokens
    while kept and tokens_and_roles[kept[0] - 1][0] == "tool":
        kept.pop(0)
    return kept


@given(
    st.lists(
        st.tuples(st.sampled_from(["user", "assistant", "tool"]), st.integers(min_value=0, max_value=700)), max_size=15
    ),
    st.integers(min_value=0, max_value=4000),
)
@PROPERTY
def test_the_project_memory_keeps_the_newest_messages_that_fit(solved, rows, budget):
    memory = solved("16b")["MyMemory"]("Be brief.")
    for position, (role, tokens) in enumerate(rows, start=1):
        message = {"role": role, "content": f"m{position}", "tokens": tokens, "position": position}
        if role == "tool":
            message["tool_call_id"] = f"c{position}"
        memory.add(message)
    kept = [m["position"] for m in memory.messages(budget)[1:]]
    assert kept == window_oracle(rows, budget)
    assert kept == list(range(len(rows) - len(kept) + 1, len(rows) + 1))  # a suffix, no gaps


def test_the_project_budgets_give_the_seeds_windows(solved):
    ns = solved("16b")
    assert ns["windows"] == {
        1300: ([10, 11, 12], 1290),
        1500: ([9, 10, 11, 12], 1380),
        2100: ([8, 9, 10, 11, 12], 1530),
    }
    # a budget that is exactly the total keeps it; one token less loses 10, so 11 is an orphan and goes
    assert {b: ns["window"](ns["helper_memory"], b)[0] for b in (1290, 1289, 5000)} == {
        1290: [10, 11, 12],
        1289: [12],
        5000: list(range(1, 13)),
    }


def test_the_approvals_check_accepts_another_decision_with_reasons_that_answer_both_questions(solved):
    path = next((ROOT / "lessons").glob("16b-*.py"))
    cells = parse(path.read_text(encoding="utf-8"))
    table = next(i for i, c in enumerate(cells) if c.role == "solution" and "APPROVALS = {" in c.source)
    other = cells[table].source.replace(
        '"rename_note": (False, "It changes a title outside the program, but the change can be undone by renaming it back."),',
        '"rename_note": (True, "It changes a title outside the program; it can be undone, yet we want a person to see it."),',
    )
    other = other.replace('"send_summary": (True,', '"send_summary": (True,')
    assert other != cells[table].source
    cells[table] = type(cells[table])(cells[table].kind, other, cells[table].tags)
    with contextlib.redirect_stdout(io.StringIO()):
        result = run_cells(cells, solution=True)
    assert result.ok, [(c.name, c.message) for c in result.checks if not c.ok]
    ns = solved("16b")
    assert ns["answers_both"]("It reaches people outside the program and cannot be taken back.")
    assert not ns["answers_both"]("It changes nothing outside the program.")  # one question only
    assert not ns["well_formed"]((1, "It changes nothing outside the program, nothing to undo."))
    assert not ns["well_formed"]((False, "Changes nothing; nothing to undo"))  # no full stop


# --- lessons 12 and 13: read_action, to_message, check_react --------------------------------------


@given(st.text(max_size=80))
@PROPERTY
def test_read_action_never_raises_and_keeps_only_the_two_types(solved, text):
    action = solved("12")["read_action"](text)
    assert action is None or (isinstance(action, dict) and action["type"] in ("tool_call", "final_answer"))


@given(st.text(min_size=1, max_size=20), st.dictionaries(st.text(min_size=1, max_size=5), st.integers(), max_size=3))
@PROPERTY
def test_to_message_makes_a_call_the_loop_accepts(solved, name, arguments):
    message = solved("12")["to_message"]({"type": "tool_call", "name": name, "arguments": arguments}, "call_9")
    assert message["role"] == "assistant" and message["content"] is None
    [call_] = message["tool_calls"]
    assert call_["id"] == "call_9" and call_["function"]["name"] == name
    assert json.loads(call_["function"]["arguments"]) == arguments


@given(
    st.sampled_from(["tool_call", "final_answer"]), st.text(min_size=1, max_size=20).filter(str.strip), st.booleans()
)
@PROPERTY
def test_check_react_accepts_a_thought_first_and_refuses_it_last(solved, kind, thought, type_first):
    check_react = solved("13")["check_react"]
    action = {"name": "get_temperature", "arguments": {"city": "Oslo"}} if kind == "tool_call" else {"answer": "Yes."}
    head = {"type": kind, "thought": thought} if type_first else {"thought": thought, "type": kind}
    assert check_react(json.dumps({**head, **action})) is None or "Tool result from" in thought
    late = check_react(json.dumps({"type": kind, **action, "thought": thought}))
    assert isinstance(late, str) and ("thought" in late or "observation" in late)
    assert "observation" in check_react(json.dumps({**head, **action, "observation": "4°C"}))
