"""chat_with: a lesson's entry point, offered in its namespace; what a message to it answers."""

import pytest
from looplab import Memory, Toolbox, run_agent
from looplab._course.chat import KEY, begin, chat_with, offered, reply_text, say
from looplab.models import final, scripted


def test_chat_with_offers_the_entry_in_the_callers_namespace_and_returns_it():
    namespace = {"chat_with": chat_with}
    exec("def agent(task):\n    return 'got ' + task\nback = chat_with(agent, suggestions=['hi', '', 3])", namespace)
    offer = offered(namespace)
    assert offer is not None and namespace["back"] is namespace["agent"]
    assert offer.name == "agent" and offer.suggestions == ["hi"] and say(offer, "x") == "got x"
    assert offered({}) is None and offered({KEY: "not an offer"}) is None


def test_the_namespace_persists_and_start_resets_it():
    memory = Memory("s")
    model = scripted([final("one"), final("two")])
    namespace = {}
    chat_with(
        lambda m: run_agent(m, model, Toolbox(), memory), name="brain", start=memory.history.clear, namespace=namespace
    )
    offer = offered(namespace)
    memory.add({"role": "user", "content": "left by the lesson"})
    begin(offer)
    assert memory.history == []
    assert [say(offer, "a"), say(offer, "b")] == ["one", "two"]
    assert [m["content"] for m in memory.history] == ["a", "one", "b", "two"]  # one memory across messages


@pytest.mark.parametrize(
    "result, text",
    [
        ("plain", "plain"),
        ({"stopped": "final", "answer": "42", "steps": 1}, "42"),
        ({"stopped": "blocked", "detail": "no delete", "answer": None}, "(the run stopped: blocked: no delete)"),
        ({"stopped": "step_limit", "answer": None}, "(the run stopped: step_limit)"),
        ({"role": "assistant", "content": "hello"}, "hello"),
        (None, ""),
        (15, "15"),
    ],
)
def test_reply_text_reads_what_entry_points_return(result, text):
    assert reply_text(result) == text


def test_chat_with_needs_a_function():
    with pytest.raises(TypeError, match="needs a function"):
        chat_with("agent", namespace={})
