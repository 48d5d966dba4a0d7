"""Memory: keep_last, budgets, never opening on a tool result, notes, the default token counter."""

from looplab import Memory, count_tokens
from looplab.tokens import message_tokens


def msg(role, tokens, **extra):
    return {"role": role, "content": role, "tokens": tokens, **extra}


def test_keep_last_and_leading_tool_results_dropped():
    memory = Memory("sys", keep_last=3)
    for m in [
        msg("user", 1),
        msg("assistant", 1, tool_calls=[{"id": "a"}]),
        msg("tool", 1, tool_call_id="a"),
        msg("tool", 1, tool_call_id="a"),
        msg("assistant", 1),
    ]:
        memory.add(m)
    window = memory.messages()
    assert [m["role"] for m in window] == ["system", "assistant"]
    assert len(memory) == 5 and window[0]["content"] == "sys"


def test_budget_walks_back_and_stops_at_first_that_does_not_fit():
    memory = Memory({"role": "system", "content": "s", "tokens": 10})
    for t in (5, 50, 5, 5):
        memory.add(msg("user", t))
    assert [m["tokens"] for m in memory.messages(30)[1:]] == [5, 5]  # the 5 before the 50 is not taken
    assert memory.tokens(30) == 20 and memory.tokens() == 75


def test_system_over_budget_returns_only_system():
    memory = Memory({"role": "system", "content": "s", "tokens": 100})
    memory.add(msg("user", 1))
    assert memory.messages(50) == [memory.system_message()]


def test_notes_are_rewritten_into_the_system_message():
    memory = Memory("You help.")
    memory.remember("name", "Alice")
    memory.remember("city", "Oslo")
    memory.remember("name", "Ann")
    memory.forget("city")
    system = memory.messages()[0]["content"]
    assert system == "You help.\n\nKnown facts:\n- name: Ann" and memory.notes == {"name": "Ann"}


def test_messages_are_copies():
    memory = Memory("s")
    memory.add({"role": "user", "content": "hi"})
    memory.messages()[1]["content"] = "changed"
    assert memory.history[0]["content"] == "hi"


def test_default_counter_is_a_documented_estimate():
    assert count_tokens("") == 0 and count_tokens("abcd") == 1 and count_tokens("abcde") == 2
    assert message_tokens({"role": "user", "content": "abcdefgh"}) == 4 + 2
    assert message_tokens({"role": "user", "content": "x", "tokens": 99}) == 99
    call = {
        "role": "assistant",
        "content": None,
        "tool_calls": [{"id": "1", "function": {"name": "f", "arguments": "{}"}}],
    }
    assert message_tokens(call) > 4


def test_custom_counter():
    memory = Memory("abc", counter=lambda text: len(text.split()))
    memory.add({"role": "user", "content": "one two three"})
    assert memory.size(memory.history[0]) == 4 + 3


def test_negative_keep_last_is_refused_and_odd_content_still_counts():
    import pytest

    with pytest.raises(ValueError, match="keep_last must be 0 or more"):
        Memory("s", keep_last=-1)
    assert message_tokens({"role": "user", "content": {"set": {1, 2}}}) > 4
