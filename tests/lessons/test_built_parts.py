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




# === lessons 09-16 (cur2's sections; lessons 02-08 above are cur1's) ==============================

import re  # noqa: E402

import pytest  # noqa: E402

from looplab.models.rules import rule_model  # noqa: E402


def fresh(prefix: str) -> dict:
    """A new solved namespace, for parts that keep state (memory, queue) between calls."""
    solved.cache_clear()
    try:
        return solved(prefix)
    finally:
        solved.cache_clear()


# --- lesson 10: check_gate, the learner's rules, approve ---------------------------------------

def check_gate():
    return solved("10")["check_gate"]


def test_check_gate_with_no_rules_or_passing_rules_lets_the_text_through():
    gate = check_gate()
    assert gate("anything", []) == (True, None)
    assert gate("", [lambda t: True, lambda t: True]) == (True, None)


def test_check_gate_fails_closed_when_a_rule_raises_and_runs_nothing_after_it():
    ran = []

    def exploding(text):
        raise KeyError("boom")

    def later(text):
        ran.append(text)
        return True

    ok, reason = check_gate()("fine text", [exploding, later])
    assert ok is False and isinstance(reason, str) and reason
    assert "boom" in reason and "exploding" in reason
    assert ran == []


@pytest.mark.parametrize("verdict", [None, False, 0, 1, "", [], "True"])
def test_check_gate_lets_only_true_through(verdict):
    ok, reason = check_gate()("text", [lambda t: verdict])
    assert ok is False
    assert isinstance(reason, str) and reason, reason


@given(st.lists(st.one_of(st.none(), st.text(min_size=1, max_size=12)), max_size=8), st.text(max_size=40))
@PROPERTY
def test_check_gate_first_refusal_wins(plan, text):
    """Each rule passes (None in the plan) or refuses with its reason; the first refusal decides."""
    ran = []

    def rule_for(index, reason):
        def rule(t):
            ran.append(index)
            return True if reason is None else reason
        return rule

    verdict = check_gate()(text, [rule_for(i, r) for i, r in enumerate(plan)])
    first = next((i for i, r in enumerate(plan) if r is not None), None)
    if first is None:
        assert verdict == (True, None) and ran == list(range(len(plan)))
    else:
        assert verdict == (False, plan[first]) and ran == list(range(first + 1))


@given(st.text(max_size=30), st.sampled_from(["delete", "DELETE", "Delete", "drop table", "DROP TABLE", "Drop Table"]),
       st.text(max_size=30))
@PROPERTY
def test_the_learners_input_rules_refuse_delete_and_drop_table_anywhere(before, word, after):
    ns = solved("10")
    ok, reason = ns["check_gate"](before + word + after, ns["INPUT_RULES"])
    assert ok is False and reason.startswith("blocked:")


@given(st.from_regex(r"[a-z][a-z.]{0,8}@[a-z]{1,8}\.(org|com|net)", fullmatch=True), st.text(max_size=20))
@PROPERTY
def test_the_learners_output_rules_refuse_any_email_address(address, around):
    ns = solved("10")
    assert ns["check_gate"](f"{around} {address} {around}", ns["OUTPUT_RULES"])[0] is False
    assert ns["check_gate"](around.replace("@", "") + " no address here", ns["OUTPUT_RULES"]) == (True, None) \
        or "password" in around.lower()


@given(st.integers(min_value=0, max_value=500), st.floats(min_value=0, max_value=500, allow_nan=False))
@PROPERTY
def test_approve_allows_exactly_the_orders_within_the_limit(amount, price):
    approve = solved("10")["approve"]
    arguments = json.dumps({"symbol": "MSFT", "amount": amount, "price": price})
    assert approve("buy_shares", arguments) is (amount * price <= 1000)
    assert approve("add_numbers", arguments) is False


@given(st.text(max_size=60))
@PROPERTY
def test_approve_never_raises_on_unreadable_arguments(arguments):
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


def test_agent_remembers_across_tasks_through_the_system_message():
    ns = fresh("15")
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
def test_agent_blocks_before_any_model_call(task):
    ns = fresh("15")
    turns, events = ns["state"]["turns"], len(ns["events"])
    assert with_model(ns, failing("must not be called"), task) == "BLOCKED: blocked: no delete"
    assert ns["state"]["turns"] == turns
    assert ns["events"][events:] == [("policy_block", "blocked: no delete")]


def test_agent_output_gate_and_the_other_endings():
    ns = fresh("15")
    assert with_model(ns, scripted([final("The Password is 1234.")]), "tell me") == "REDACTED: redacted: contains password"
    assert with_model(ns, scripted([final("")]), "say nothing") == ""
    assert with_model(ns, failing("connection refused"), "add 1 and 2") == "ERROR: connection refused"
    looping = scripted([call("add", a=i, b=1) for i in range(3)])
    assert with_model(ns, looping, "count", max_turns=3) == "Max turns reached"
    assert with_model(ns, rule_model, "add 1 and 2, then add 3 to the result", max_turns=2) == "Max turns reached"
    assert "6" in with_model(ns, rule_model, "add 1 and 2, then add 3 to the result", max_turns=3)


def test_agent_schedules_work_that_the_queue_runs_later():
    ns = fresh("15")
    ns["task_queue"].clear()
    answer = with_model(ns, rule_model, "schedule a follow-up: uppercase the word later")
    assert "scheduled" in answer.lower() and ns["task_queue"] == ["uppercase the word later"]
    assert with_model(ns, rule_model, ns["task_queue"].pop(0)) == "LATER"


CALL_KINDS = st.sampled_from(["add", "upper", "unknown", "bad_json", "raises"])


def make_call(kind: str, index: int) -> dict:
    arguments = {"add": '{"a": 2, "b": 3}', "upper": '{"text": "hi"}', "unknown": "{}",
                 "bad_json": "{a: 1", "raises": '{"a": "x"}'}[kind]
    name = {"unknown": "fly", "bad_json": "add", "raises": "upper"}.get(kind, kind)
    return {"id": f"c{index}", "type": "function", "function": {"name": name, "arguments": arguments}}


@given(st.lists(st.lists(CALL_KINDS, min_size=1, max_size=3), max_size=4))
@PROPERTY
def test_agent_answers_every_call_once_with_its_id_and_never_raises(turns):
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


# --- lesson 16: the project on the learner's own MyToolbox, my_run_agent, MyMemory ---------------

def project():
    return solved("16")


def bench_box(ns: dict):
    box = ns["MyToolbox"]()
    box.register("divide", "Divide a by b.", {"type": "object", "properties": {
        "a": {"type": "number"}, "b": {"type": "number"}}, "required": ["a", "b"]}, lambda a, b: a / b)
    box.register("wipe", "Wipe everything.", {"type": "object", "properties": {}}, lambda: "wiped",
                 needs_approval=True)
    return box


def test_the_project_toolbox_never_raises_and_says_what_would_work():
    box = bench_box(project())
    assert box.run("divide", '{"a": 1, "b": 4}') == "0.25"
    assert box.run("wipe", "") == "wiped"                       # no arguments at all: an empty object
    for name, arguments in [("nope", "{}"), ("divide", None), ("divide", "null"), ("divide", '"6"'),
                            ("divide", '{"a": 1}'), ("divide", '{"a": 1, "b": 0}'), ("divide", '{"a": 1, "b": 2, "c": 3}')]:
        assert box.run(name, arguments).startswith("error:"), (name, arguments)
    assert "divide" in box.run("nope", "{}") and "wipe" in box.run("nope", "{}")
    assert [box.needs_approval(n) for n in ("wipe", "divide", "nope")] == [True, False, False]


def pairing_holds(messages: list[dict]) -> bool:
    """Each message's calls are answered, each exactly once, by the block of tool messages right after it."""
    i = 0
    while i < len(messages):
        message = messages[i]
        if message["role"] == "tool":
            return False                     # a result with no call just before it
        asked = sorted(c["id"] for c in message.get("tool_calls") or []) if message["role"] == "assistant" else []
        j = i + 1
        while j < len(messages) and messages[j]["role"] == "tool":
            j += 1
        if sorted(m["tool_call_id"] for m in messages[i + 1:j]) != asked:
            return False
        i = j
    return True


STEP = st.one_of(st.just("final"), st.just("raise"),
                 st.lists(st.sampled_from(["divide", "wipe", "fly", "zero"]), min_size=1, max_size=3))


@given(st.lists(STEP, min_size=1, max_size=6), st.integers(min_value=1, max_value=5), st.booleans())
@PROPERTY
def test_the_project_loop_pairs_every_call_and_always_names_its_stop(steps, max_steps, approving):
    ns = project()
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
                name, args = {"divide": ("divide", {"a": 6, "b": 3}), "wipe": ("wipe", {}),
                              "fly": ("fly", {}), "zero": ("divide", {"a": 1, "b": 0})}[kind]
                batch.append((name, args, f"c{index}"))
            replies.append(calls(*batch))
    memory = ns["MyMemory"]("Test the loop.")
    approve = (lambda name: True) if approving else None
    result = ns["my_run_agent"]("go", scripted(replies + [final("spare")] * 6), bench_box(ns), memory,
                                max_steps, approve)
    messages = memory.messages()
    assert result["stopped"] in ("final", "step_limit", "error", "needs_person")
    assert pairing_holds(messages)
    assert 1 <= result["steps"] <= max_steps
    assert (result["answer"] is None) == (result["stopped"] != "final")
    if result["stopped"] == "needs_person":
        assert not approving and messages[-1]["role"] == "tool" and messages[-1]["content"].startswith("error:")
        refused = [m for m in messages if m["role"] == "tool" and "not approved" in m["content"]]
        assert len(refused) == 1
    if result["stopped"] == "error":
        assert result["detail"] == "network down"
    wiped = [m for m in messages if m["role"] == "tool" and m["content"] == "wiped"]
    assert approving or not wiped


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


@given(st.lists(st.tuples(st.sampled_from(["user", "assistant", "tool"]), st.integers(min_value=0, max_value=700)),
                max_size=15), st.integers(min_value=0, max_value=4000), st.dictionaries(
                    st.sampled_from(["city", "name", "March winner"]), st.text(min_size=1, max_size=8), max_size=2))
@PROPERTY
def test_my_memory_keeps_the_newest_messages_that_fit_and_its_facts(rows, budget, facts):
    memory = project()["MyMemory"]("Be brief.")
    for key, value in facts.items():
        memory.remember(key, value)
    for position, (role, tokens) in enumerate(rows, start=1):
        message = {"role": role, "content": f"m{position}", "tokens": tokens, "position": position}
        if role == "tool":
            message["tool_call_id"] = f"c{position}"
        memory.add(message)
    window = memory.messages(budget)
    kept = [m["position"] for m in window[1:]]
    assert kept == window_oracle(rows, budget)
    assert kept == list(range(len(rows) - len(kept) + 1, len(rows) + 1))            # a suffix, no gaps
    assert not kept or rows[kept[0] - 1][0] != "tool"
    assert not kept or 400 + sum(rows[p - 1][1] for p in kept) <= budget
    for system in (window[0], memory.messages()[0]):
        assert system["role"] == "system" and system["content"].startswith("Be brief.")
        assert all(key in system["content"] and value in system["content"] for key, value in facts.items())
    assert [m["position"] for m in memory.messages()[1:]] == list(range(1, len(rows) + 1))


def test_the_project_budgets_give_the_seeds_windows():
    ns = project()
    assert ns["windows"] == {1300: ([10, 11, 12], 1290), 1500: ([9, 10, 11, 12], 1380),
                             2100: ([8, 9, 10, 11, 12], 1530)}
    # a budget that is exactly the total keeps it; one token less loses 10, so 11 is an orphan and goes
    assert {b: ns["window"](ns["helper_memory"], b)[0] for b in (1290, 1289, 5000)} == {
        1290: [10, 11, 12], 1289: [12], 5000: list(range(1, 13))}


def test_the_approvals_check_accepts_another_decision_with_reasons_that_answer_both_questions():
    path = next((ROOT / "lessons").glob("16-*.py"))
    cells = parse(path.read_text(encoding="utf-8"))
    table = next(i for i, c in enumerate(cells) if c.role == "solution" and "APPROVALS = {" in c.source)
    other = cells[table].source.replace(
        '"rename_note": (False, "It changes a title outside the program, but the change can be undone by renaming it back."),',
        '"rename_note": (True, "It changes a title outside the program; it can be undone, yet we want a person to see it."),')
    other = other.replace('"send_summary": (True,', '"send_summary": (True,')
    assert other != cells[table].source
    cells[table] = type(cells[table])(cells[table].kind, other, cells[table].tags)
    with contextlib.redirect_stdout(io.StringIO()):
        result = run_cells(cells, solution=True)
    assert result.ok, [(c.name, c.message) for c in result.checks if not c.ok]
    ns = project()
    assert ns["answers_both"]("It reaches people outside the program and cannot be taken back.")
    assert not ns["answers_both"]("It changes nothing outside the program.")            # one question only
    assert not ns["well_formed"]((1, "It changes nothing outside the program, nothing to undo."))
    assert not ns["well_formed"]((False, "Changes nothing; nothing to undo"))            # no full stop


# --- lessons 12 and 13: read_action, to_message, check_react --------------------------------------

@given(st.text(max_size=80))
@PROPERTY
def test_read_action_never_raises_and_keeps_only_the_two_types(text):
    action = solved("12")["read_action"](text)
    assert action is None or (isinstance(action, dict) and action["type"] in ("tool_call", "final_answer"))


@given(st.text(min_size=1, max_size=20), st.dictionaries(st.text(min_size=1, max_size=5), st.integers(), max_size=3))
@PROPERTY
def test_to_message_makes_a_call_the_loop_accepts(name, arguments):
    message = solved("12")["to_message"]({"type": "tool_call", "name": name, "arguments": arguments}, "call_9")
    assert message["role"] == "assistant" and message["content"] is None
    [call_] = message["tool_calls"]
    assert call_["id"] == "call_9" and call_["function"]["name"] == name
    assert json.loads(call_["function"]["arguments"]) == arguments


@given(st.sampled_from(["tool_call", "final_answer"]), st.text(min_size=1, max_size=20).filter(str.strip),
       st.booleans())
@PROPERTY
def test_check_react_accepts_a_thought_first_and_refuses_it_last(kind, thought, type_first):
    check_react = solved("13")["check_react"]
    action = {"name": "get_temperature", "arguments": {"city": "Oslo"}} if kind == "tool_call" else {"answer": "Yes."}
    head = {"type": kind, "thought": thought} if type_first else {"thought": thought, "type": kind}
    assert check_react(json.dumps({**head, **action})) is None or "Tool result from" in thought
    late = check_react(json.dumps({"type": kind, **action, "thought": thought}))
    assert isinstance(late, str) and ("thought" in late or "observation" in late)
    assert "observation" in check_react(json.dumps({**head, **action, "observation": "4°C"}))
