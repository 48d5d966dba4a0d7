"""Replay: record a run, replay its prefix from the record, go on from a step with one thing changed."""

import json

import pytest
from hypothesis import given, strategies as st

from looplab import Collector, Memory, Toolbox, call, final, run_agent, scripted
from looplab.approvals import Decision
from looplab.models.rules import rule_model
from looplab.replay import Keeper, first_difference, record, steps
from looplab.trace import keep_runs


def adder(ran: list) -> Toolbox:
    box = Toolbox()
    box.register(
        "add",
        "Add two numbers.",
        {"type": "object", "properties": {"a": {"type": "number"}, "b": {"type": "number"}}, "required": ["a", "b"]},
        lambda a, b: ran.append((a, b)) or a + b,
    )
    return box


def says_the_result(messages, tools):
    return final(f"The sum is {messages[-1]['content']}.")


def test_a_forked_tool_result_changes_the_answer_and_the_prefix_calls_nothing():
    ran = []
    model = scripted([call("add", a=2, b=3, id="c1"), says_the_result])
    original = record("What is 2 + 3?", model, adder(ran), Memory("You add."))
    assert original.result["answer"] == "The sum is 5." and ran == [(2, 3)]
    forked = original.fork(1, result="7", call_id="c1")
    assert forked.result == {"answer": "The sum is 7.", "steps": 2, "stopped": "final", "tool_calls": 1}
    assert ran == [(2, 3)], "a replayed or edited step runs no tool"
    assert len(model.calls) == 2, "the original model is not called by the fork: a copy continues after step 1"
    assert forked.first_difference == 1 and forked.fork_of == (original.run, 1)
    assert [e["type"] for e in forked.events].count("model_call") == 2
    assert forked.run != original.run and all(e["run"] == forked.run for e in forked.events)


def test_a_forked_reply_replaces_the_step_and_the_tools_it_asked_for():
    ran = []
    original = record("What is 2 + 3?", scripted([call("add", a=2, b=3), final("5")]), adder(ran), Memory("s"))
    forked = original.fork(1, reply="I will not use tools today.")
    assert forked.result["stopped"] == "final" and forked.result["answer"] == "I will not use tools today."
    assert forked.result["steps"] == 1 and ran == [(2, 3)]
    again = original.fork(1, reply=json.dumps(call("add", a=10, b=1)))
    assert ran == [(2, 3), (10, 1)], "a new reply's tool calls run for real"
    assert again.result["answer"] == "5", "the scripted model goes on from its second reply"
    assert again.first_difference == 1 and first_difference(original.events, original.events) is None


def test_later_steps_call_the_model_which_sees_the_edit():
    ran = []
    original = record("add 10 and 5, then add 3 to the result", rule_model, adder(ran), Memory("s"))
    assert original.result["stopped"] == "final" and "18" in original.result["answer"]
    first_call = next(e["call_id"] for e in original.events if e["type"] == "tool_call")
    forked = original.fork(1, result="100", call_id=first_call)
    assert "103" in forked.result["answer"] and forked.result["steps"] == original.result["steps"]
    assert ran == [(10, 5), (3, 15), (3, 100)], "step 2 ran again with the edited result"
    assert forked.first_difference == 1
    assert [s["reply"] for s in steps(forked.events)][0] == [s["reply"] for s in steps(original.events)][0]


def test_a_fork_of_a_fork_replays_the_fork():
    ran = []
    model = scripted([call("add", a=1, b=1, id="a"), call("add", a=2, b=2, id="b"), says_the_result])
    original = record("sum twice", model, adder(ran), Memory("s"))
    first = original.fork(1, result="10", call_id="a")
    second = first.fork(2, result="40", call_id="b")
    assert original.result["answer"] == "The sum is 4." and first.result["answer"] == "The sum is 4."
    assert second.result["answer"] == "The sum is 40." and second.first_difference == 2
    assert [r for s in steps(second.events) for r in s["results"]] == [("add", "10"), ("add", "40")]
    assert ran == [(1, 1), (2, 2), (2, 2)], "only the first fork's step 2 ran a tool"


def test_a_refused_call_forked_with_a_result_goes_on_without_asking_again():
    asked, deleted = [], []
    box = Toolbox()
    box.register(
        "delete_note",
        "Delete a note.",
        {"type": "object", "properties": {"note_id": {"type": "string"}}},
        lambda note_id: deleted.append(note_id) or f"deleted {note_id}",
        needs_approval=True,
    )

    def approve(name, arguments):
        asked.append(name)
        return Decision(False, "not now")

    original = record(
        "Delete n5.",
        scripted([call("delete_note", note_id="n5", id="d"), final("Done.")]),
        box,
        Memory("s"),
        approve=approve,
    )
    assert original.result["stopped"] == "needs_person" and asked == ["delete_note"]
    forked = original.fork(1, result="deleted n5 (by hand)", call_id="d")
    assert forked.result["stopped"] == "final" and forked.result["answer"] == "Done."
    assert asked == ["delete_note"] and deleted == [], "the replayed call asks no one and runs nothing"
    assert steps(forked.events)[0]["results"] == [("delete_note", "deleted n5 (by hand)")]


def test_an_edit_the_record_cannot_take_is_a_clear_error():
    original = record("2+3?", scripted([call("add", a=2, b=3, id="c1"), final("5")]), adder([]), Memory("s"))
    with pytest.raises(ValueError, match=r"no tool result for call 'zz'; its calls are \['c1'\]"):
        original.fork(1, result="7", call_id="zz")
    with pytest.raises(ValueError, match="no model reply for step 3"):
        original.fork(3, result="7", call_id="c1")
    with pytest.raises(ValueError, match="changes one thing"):
        original.fork(1)


def test_the_memory_is_taken_as_it_was_when_the_run_started():
    memory = Memory("s")
    memory.add({"role": "user", "content": "earlier question"})
    memory.add({"role": "assistant", "content": "earlier answer"})
    original = record("2+3?", scripted([call("add", a=2, b=3, id="c1"), says_the_result]), adder([]), memory)
    memory.add({"role": "user", "content": "something later"})
    forked = original.fork(1, result="9", call_id="c1")
    sent = [e for e in forked.events if e["type"] == "model_call"][-1]["context"]
    assert [m["content"] for m in sent[1:3]] == ["earlier question", "earlier answer"]
    assert "something later" not in json.dumps(sent) and sent[-1]["content"] == "9"


def test_the_keeper_keeps_each_run_by_number_and_forks_it():
    keeper = Keeper(limit=2)
    keeper.start()
    try:
        for task in ("one", "two", "three"):
            run_agent(task, scripted([call("add", a=1, b=2, id="k"), says_the_result]), adder([]), Memory("s"))
        runs = keeper.runs()
        assert len(runs) == 2 and [keeper.inputs[r].task for r in runs] == ["two", "three"]
        assert {e["run"] for e in keeper.events} == set(runs)
        out = keeper.fork(runs[0], 1, result="42", call_id="k")
        assert out.result["answer"] == "The sum is 42." and out.run in keeper.runs()
        assert out.fork_of == (runs[0], 1) and out.first_difference == 1
        assert out.events and all(e["run"] == out.run for e in out.events)
    finally:
        keeper.stop()
    with pytest.raises(ValueError, match="not kept"):
        keeper.fork(runs[0] - 1, 1, result="1", call_id="k")


def test_keepers_get_each_runs_inputs_and_events_carry_the_run_number():
    kept = []
    stop = keep_runs(lambda run, inputs: kept.append((run, inputs["task"], inputs["max_steps"])))
    events = Collector()
    try:
        run_agent("hello", scripted([final("hi")]), adder([]), Memory("s"), max_steps=3, tracer=events)
    finally:
        stop()
    assert kept == [(events.events[0]["run"], "hello", 3)]
    assert {e["run"] for e in events} == {kept[0][0]}


def test_the_model_call_says_what_the_window_left_out():
    memory = Memory("s", keep_last=2)
    for i in range(4):
        memory.add({"role": "user", "content": f"old {i}", "tokens": 10})
    events = Collector()
    run_agent("now", scripted([final("ok")]), adder([]), memory, tracer=events)
    call_event = events.of("model_call")[0]
    assert call_event["left_out"] == {"messages": 3, "tokens": 30}
    assert [m["content"] for m in call_event["context"][1:]] == ["old 3", "now"]
    assert sum(call_event["context_sizes"]) == call_event["context_tokens"] and call_event["context_sizes"][1] == 10


TOOLS = st.lists(st.tuples(st.integers(-50, 50), st.integers(-50, 50)), min_size=0, max_size=5)


@given(pairs=TOOLS, data=st.data())
def test_forking_with_the_recorded_result_replays_the_same_run(pairs, data):
    ran = []
    replies = [call("add", a=a, b=b, id=f"c{i}") for i, (a, b) in enumerate(pairs)] + [says_the_result]
    original = record("sum", scripted(replies), adder(ran), Memory("s"), max_steps=len(pairs) + 1)
    assert original.result["stopped"] == "final"
    if not pairs:
        return
    step = data.draw(st.integers(1, len(pairs)))
    same = [e["result"] for e in original.events if e["type"] == "tool_result" and e["step"] == step][0]
    ran.clear()
    forked = original.fork(step, result=same, call_id=f"c{step - 1}")
    assert forked.first_difference is None and forked.result == original.result
    assert ran == pairs[step:], "only the steps after the fork ran their tools"
