"""The scripted model: one reply per call, records calls, never cycles, can assert it was used."""

import json

import pytest

from looplab import call, calls, failing, final, scripted
from looplab.models.scripted import ScriptExhausted


def test_replies_in_order_and_calls_recorded():
    model = scripted([call("f", id="c1", x=1), final("done")])
    first = model([{"role": "user", "content": "go"}], [{"type": "function"}])
    assert first["tool_calls"][0]["id"] == "c1" and json.loads(first["tool_calls"][0]["function"]["arguments"]) == {
        "x": 1
    }
    assert model.remaining == 1 and model.calls[0]["messages"][0]["content"] == "go"
    assert model([], [])["content"] == "done" and model.remaining == 0


def test_runs_out_with_a_clear_error_and_never_cycles():
    model = scripted([final("only")])
    model([], [])
    with pytest.raises(ScriptExhausted, match="only 1 replies and was called a 2nd time"):
        model([], [])
    with pytest.raises(ScriptExhausted):
        model([], [])


def test_a_tool_argument_may_be_called_name():
    reply = call("greet", name="Ann")
    assert json.loads(reply["tool_calls"][0]["function"]["arguments"]) == {"name": "Ann"}
    assert reply["tool_calls"][0]["function"]["name"] == "greet"


def test_assert_used():
    model = scripted([final("a"), final("b")])
    model([], [])
    with pytest.raises(AssertionError, match="1 of its 2 replies were never used"):
        model.assert_used()
    model([], [])
    model.assert_used()


def test_helpers_build_wire_shaped_replies():
    reply = calls(("a", {"x": 1}), ("b", {}, "fixed"))
    assert [c["function"]["name"] for c in reply["tool_calls"]] == ["a", "b"]
    assert reply["tool_calls"][1]["id"] == "fixed" and reply["tool_calls"][0]["id"] != reply["tool_calls"][1]["id"]
    assert reply["role"] == "assistant" and reply["content"] is None
    assert final("x") == {"role": "assistant", "content": "x"}


def test_replies_are_copies_and_callables_see_messages():
    shared = final("x")
    model = scripted([shared, lambda messages, tools: final(f"saw {len(messages)}")])
    model([], [])["content"] = "changed"
    assert shared["content"] == "x"
    assert model([{}, {}], [])["content"] == "saw 2"


def test_failing_model_raises():
    with pytest.raises(ConnectionError, match="network down"):
        failing()([], [])
    with pytest.raises(TimeoutError, match="slow"):
        failing("slow", TimeoutError)([], [])
