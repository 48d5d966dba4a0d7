"""run_agent: the five stops, approvals, gates, the tool-call cap, malformed replies and events."""

import json

import pytest

from looplab import Collector, Gate, Memory, Toolbox, call, calls, final, forbid, run_agent, scripted


def box() -> Toolbox:
    b = Toolbox()
    b.register(
        "add",
        "Add two numbers.",
        {"type": "object", "properties": {"a": {"type": "number"}, "b": {"type": "number"}}, "required": ["a", "b"]},
        lambda a, b: a + b,
    )
    b.register("wipe", "Delete everything.", None, lambda: "wiped", needs_approval=True)
    return b


def answered(memory: Memory) -> dict[str, int]:
    """call id -> number of tool messages answering it, for every call in memory."""
    counts = {c["id"]: 0 for m in memory.history if m["role"] == "assistant" for c in m.get("tool_calls", [])}
    for m in memory.history:
        if m["role"] == "tool":
            counts[m["tool_call_id"]] = counts.get(m["tool_call_id"], 0) + 1
    return counts


def test_final_answer_after_a_tool_round_trip():
    memory, events = Memory("s"), Collector()
    result = run_agent("2+3?", scripted([call("add", a=2, b=3), final("5")]), box(), memory, tracer=events)
    assert result == {"answer": "5", "steps": 2, "stopped": "final", "tool_calls": 1}
    assert events.types() == [
        "run_start",
        "model_call",
        "model_reply",
        "tool_call",
        "tool_result",
        "model_call",
        "model_reply",
        "stop",
    ]
    assert events.of("tool_result")[0]["ok"] is True and events.of("tool_result")[0]["result"] == "5"
    assert events.of("stop")[0]["stopped"] == "final"
    second = events.of("model_call")[1]
    assert [m["role"] for m in second["context"]] == ["system", "user", "assistant", "tool"]
    assert second["context_tokens"] == sum(memory.size(m) for m in second["context"])


def test_parallel_calls_all_answered_in_order():
    memory = Memory("s")
    result = run_agent(
        "sums",
        scripted([calls(("add", {"a": 1, "b": 2}, "x"), ("add", {"a": 3, "b": 4}, "y")), final("3 and 7")]),
        box(),
        memory,
    )
    assert result["stopped"] == "final" and result["tool_calls"] == 2
    assert [(m["tool_call_id"], m["content"]) for m in memory.history if m["role"] == "tool"] == [
        ("x", "3"),
        ("y", "7"),
    ]


def test_approval_refused_skips_later_calls_and_answers_all():
    memory, events = Memory("s"), Collector()
    reply = calls(("wipe", {}, "w1"), ("add", {"a": 1, "b": 1}, "a1"))
    result = run_agent("wipe then add", scripted([reply]), box(), memory, approve=lambda name: False, tracer=events)
    assert result["stopped"] == "needs_person" and "wipe" in result["detail"]
    assert answered(memory) == {"w1": 1, "a1": 1}
    assert memory.history[-1]["content"].startswith("error: skipped")
    assert events.of("approval_needed")[0]["approved"] is False


def test_approval_callback_may_see_arguments():
    seen = []
    result = run_agent(
        "wipe",
        scripted([call("wipe"), final("ok")]),
        box(),
        Memory("s"),
        approve=lambda name, arguments: seen.append((name, arguments)) or True,
    )
    assert result["stopped"] == "final" and seen == [("wipe", "{}")]


def test_approval_callback_that_raises_fails_closed():
    result = run_agent("wipe", scripted([call("wipe")]), box(), Memory("s"), approve=lambda name: 1 / 0)
    assert result["stopped"] == "needs_person" and "approval check failed" in result["detail"]


def test_tool_call_cap_is_separate_from_steps():
    memory = Memory("s")
    replies = [calls(("add", {"a": 1, "b": 1}, "p"), ("add", {"a": 2, "b": 2}, "q"), ("add", {"a": 3, "b": 3}, "r"))]
    result = run_agent("many", scripted(replies), box(), memory, max_tool_calls=2)
    assert result["stopped"] == "step_limit" and result["tool_calls"] == 2
    assert "tool-call limit of 2" in result["detail"] and answered(memory) == {"p": 1, "q": 1, "r": 1}


def test_input_gate_blocks_before_the_model_sees_the_task():
    model, memory, events = scripted([final("never")]), Memory("s"), Collector()
    gate = Gate(forbid("delete", reason="blocked: no delete"))
    result = run_agent("delete the database", model, box(), memory, input_gate=gate, tracer=events)
    assert result == {"answer": None, "steps": 0, "stopped": "blocked", "tool_calls": 0, "detail": "blocked: no delete"}
    assert model.calls == [] and memory.history == []
    assert events.of("policy_block")[0]["gate"] == "input"


def test_output_gate_blocks_or_redacts():
    blocked = run_agent(
        "pw?",
        scripted([final("the password is hunter2")]),
        box(),
        Memory("s"),
        output_gate=Gate(forbid("password", reason="redacted: contains password")),
    )
    assert blocked["stopped"] == "blocked" and blocked["answer"] is None and "password" in blocked["detail"]
    redacted = run_agent(
        "mail?",
        scripted([final("write to ann@example.org")]),
        box(),
        Memory("s"),
        output_gate=Gate(redactions={r"\S+@\S+": "[e-mail]"}),
    )
    assert redacted["stopped"] == "final" and redacted["answer"] == "write to [e-mail]"


@pytest.mark.parametrize(
    "reply,detail",
    [
        (None, "was NoneType, not an assistant message dict"),
        ("just text", "was str, not an assistant message dict"),
        ({"role": "assistant", "content": None}, "no text and no tool calls"),
        ({"role": "assistant", "content": "  "}, "no text and no tool calls"),
        ({"content": "x", "tool_calls": "add"}, "tool_calls was str, not a list"),
    ],
)
def test_malformed_replies_stop_with_error(reply, detail):
    memory = Memory("s")
    result = run_agent("t", scripted([reply]), box(), memory)
    assert result["stopped"] == "error" and detail in result["detail"]
    assert len(memory.history) == 1  # only the task: the broken reply is not stored


def test_malformed_calls_are_answered_with_errors():
    memory = Memory("s")
    bad = {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {"type": "function", "function": {"name": "add", "arguments": "{}"}},  # no id
            {"id": "k", "type": "function", "function": {"arguments": "{}"}},  # no name
            "not a call",  # not a dict
            {"id": "k", "type": "function", "function": {"name": "add", "arguments": {"a": 1, "b": 2}}},  # reused id
            {"id": "m", "type": "function", "function": {"name": "add", "arguments": {"a": 1, "b": 2}}},  # dict args
        ],
    }
    result = run_agent("t", scripted([bad, final("done")]), box(), memory)
    assert result["stopped"] == "final" and result["tool_calls"] == 1
    results = [m["content"] for m in memory.history if m["role"] == "tool"]
    assert [r.startswith("error:") for r in results] == [True, True, True, True, False]
    assert "had no id" in results[0] and "no function name" in results[1] and "reused the id" in results[3]
    assert all(n == 1 for n in answered(memory).values()) and len(answered(memory)) == 5


def test_content_parts_and_single_call_dict_are_accepted():
    memory = Memory("s")
    one = {
        "role": "assistant",
        "tool_calls": {"id": "z", "type": "function", "function": {"name": "add", "arguments": '{"a":1,"b":1}'}},
    }
    parts = {"role": "assistant", "content": [{"type": "text", "text": "two"}, {"type": "text", "text": "!"}]}
    result = run_agent("t", scripted([one, parts]), box(), memory)
    assert result["answer"] == "two!" and answered(memory) == {"z": 1}


def test_error_detail_never_holds_the_key(monkeypatch):
    monkeypatch.setenv("LLM_API_KEY", "sk-test-SECRET-0123456789abcdef")
    events = Collector()

    def leaky(messages, tools):
        raise RuntimeError("auth failed for sk-test-SECRET-0123456789abcdef")

    result = run_agent("t", leaky, box(), Memory("s"), tracer=events)
    assert result["stopped"] == "error" and "SECRET" not in result["detail"]
    assert "SECRET" not in repr(events.events) and "[redacted]" in result["detail"]


def test_step_limit_and_budget_passed_to_memory():
    memory = Memory({"role": "system", "content": "s", "tokens": 10})
    model = scripted([call("add", a=i, b=1) for i in range(4)])
    result = run_agent("loop", model, box(), memory, max_steps=4, context_window=60)
    assert result["stopped"] == "step_limit" and result["steps"] == 4 and result["tool_calls"] == 4
    assert all(sum(memory.size(m) for m in c["messages"]) <= 60 for c in model.calls)


def test_thought_reaches_the_trace():
    events = Collector()
    run_agent(
        "t",
        scripted([{"role": "assistant", "content": "hi", "thought": "no tool needed"}]),
        box(),
        Memory("s"),
        tracer=events,
    )
    assert events.of("model_reply")[0]["thought"] == "no tool needed"
    assert events.of("stop")[0]["answer"] == "hi"


def test_odd_content_parts_and_unencodable_arguments_never_crash():
    memory = Memory("s")
    odd = {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {"id": "s", "type": "function", "function": {"name": "add", "arguments": {1, 2}}},  # a set: not JSON
            {"id": "d", "type": "function", "function": {"name": "add", "arguments": {"a": 1, "b": 2}}},
        ],
    }
    parts = {
        "role": "assistant",
        "content": [{"type": "text", "text": None}, {"type": "image_url"}, {"type": "text", "text": "ok"}],
    }
    result = run_agent("t", scripted([odd, parts]), box(), memory, context_window=1000)
    assert result["stopped"] == "final" and result["answer"] == "ok"
    stored = [c["function"]["arguments"] for c in memory.history[1]["tool_calls"]]
    assert all(isinstance(a, str) for a in stored) and json.loads(stored[1]) == {"a": 1, "b": 2}
    results = [m["content"] for m in memory.history if m["role"] == "tool"]
    assert results[0].startswith("error: arguments for add must be a JSON object") and results[1] == "3"
    json.dumps(memory.history)  # memory holds what the contract says: arguments as JSON text


def test_ids_of_ours_never_take_an_id_the_model_sent():
    memory = Memory("s")
    reply = {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {"type": "function", "function": {"name": "add", "arguments": '{"a": 1, "b": 1}'}},  # no id
            {"id": "call_1_1", "type": "function", "function": {"name": "add", "arguments": '{"a": 2, "b": 2}'}},
            {"id": 7, "type": "function", "function": {"name": "add", "arguments": '{"a": 3, "b": 3}'}},
        ],
    }  # not text
    result = run_agent("t", scripted([reply, final("done")]), box(), memory)
    results = {m["tool_call_id"]: m["content"] for m in memory.history if m["role"] == "tool"}
    assert result["stopped"] == "final" and result["tool_calls"] == 1 and len(results) == 3
    assert results["call_1_1"] == "4"  # the model's own id kept and its call run
    assert sorted(r.split(";")[0] for r in results.values() if r != "4") == [
        "error: the tool call had an id that is not text (7)",
        "error: the tool call had no id",
    ]
    assert all(n == 1 for n in answered(memory).values())
