"""Prompt-based JSON tool calling and ReAct, over a scripted text model: parsing, rendering, repairs."""

import json

import pytest

from looplab import Memory, Toolbox, run_agent
from looplab.models import final, scripted
from looplab.models.errors import ModelError
from looplab.models.prompted import parse_action, prompted, render, system_prompt
from looplab.trace import Collector


def box():
    tools = Toolbox()
    tools.register(
        "add",
        "Add two numbers.",
        {"type": "object", "properties": {"a": {"type": "number"}, "b": {"type": "number"}}, "required": ["a", "b"]},
        lambda a, b: a + b,
    )
    return tools


def test_parse_the_two_actions():
    call, problem = parse_action(
        '{"type": "tool_call", "thought": "sum", "name": "add", "arguments": {"a": 1, "b": 2}}'
    )
    assert problem is None and call["thought"] == "sum" and call["content"] is None
    assert call["tool_calls"][0]["function"] == {"name": "add", "arguments": '{"a": 1, "b": 2}'}
    assert call["tool_calls"][0]["id"].startswith("call_")
    answer, _ = parse_action('Sure!\n```json\n{"type": "final_answer", "answer": "3"}\n```')
    assert answer == {"role": "assistant", "content": "3"}


@pytest.mark.parametrize(
    "text, problem",
    [
        ("", "empty"),
        ("The answer is 3.", "no JSON object"),
        ('{"type": "tool_call", "name": "add",', "no JSON object"),
        ('{"type": "tool_call" "name": 1}', "could not be read"),
        ('{"type": "dance"}', "must be"),
        ('{"type": "tool_call", "arguments": {}}', '"name"'),
        ('{"type": "tool_call", "name": "add", "arguments": [1]}', "JSON object"),
        ('{"type": "final_answer"}', '"answer"'),
    ],
)
def test_malformed_replies_are_named(text, problem):
    action, why = parse_action(text)
    assert action is None and problem in why


def test_memory_is_rendered_in_the_prompt_format():
    tools = box().schemas()
    memory = [
        {"role": "system", "content": "You help."},
        {"role": "user", "content": "1+2?"},
        {
            "role": "assistant",
            "content": None,
            "thought": "use add",
            "tool_calls": [
                {"id": "call_x", "type": "function", "function": {"name": "add", "arguments": '{"a": 1, "b": 2}'}}
            ],
        },
        {"role": "tool", "tool_call_id": "call_x", "content": "3"},
    ]
    sent = render(memory, tools, react=True)
    assert [m["role"] for m in sent] == ["system", "user", "assistant", "user"]
    assert sent[0]["content"].startswith("You help.\n\nYou can use these tools:\n- add: Add two numbers.")
    assert json.loads(sent[2]["content"]) == {
        "type": "tool_call",
        "thought": "use add",
        "name": "add",
        "arguments": {"a": 1, "b": 2},
    }
    assert sent[3]["content"] == "Tool result from add: 3"
    assert '"thought"' in system_prompt("", tools, react=True) and '"thought"' not in system_prompt("", tools)


def test_content_parts_are_rendered_as_their_text():
    parts = [{"type": "text", "text": "1+2"}, {"type": "text", "text": "?"}]
    sent = render(
        [{"role": "system", "content": [{"type": "text", "text": "You help."}]}, {"role": "user", "content": parts}], []
    )
    assert sent[0]["content"].startswith("You help.\n\n") and sent[1] == {"role": "user", "content": "1+2?"}


def test_a_react_run_with_thoughts_in_the_trace():
    inner = scripted(
        [
            final('{"type": "tool_call", "thought": "I need the sum", "name": "add", "arguments": {"a": 1, "b": 2}}'),
            final('{"type": "final_answer", "thought": "add said 3", "answer": "1 + 2 = 3"}'),
        ]
    )
    events = Collector()
    result = run_agent("1+2?", prompted(inner, react=True), box(), Memory("You help."), tracer=events)
    assert result["stopped"] == "final" and result["answer"] == "1 + 2 = 3"
    assert [e.get("thought") for e in events.of("model_reply")] == ["I need the sum", "add said 3"]
    assert inner.calls[1]["messages"][-1] == {"role": "user", "content": "Tool result from add: 3"}
    assert inner.calls[1]["tools"] == []  # the inner model never gets native tools


def test_a_malformed_reply_is_corrected_then_accepted():
    inner = scripted([final("It is 3."), final('{"type": "final_answer", "answer": "3"}')])
    assert prompted(inner)([{"role": "user", "content": "1+2?"}], box().schemas()) == {
        "role": "assistant",
        "content": "3",
    }
    retry = inner.calls[1]["messages"]
    assert retry[-2] == {"role": "assistant", "content": "It is 3."}
    assert retry[-1]["content"].startswith("Your last reply could not be used: the reply had no JSON object.")


def test_repeated_malformed_replies_stop_the_run_with_error():
    inner = scripted([final("nope")] * 3)
    with pytest.raises(ModelError, match="after 3 tries"):
        prompted(inner, repairs=2)([{"role": "user", "content": "x"}], [])
    inner = scripted([final("nope")] * 2)
    result = run_agent("x", prompted(inner, repairs=1), box(), Memory("s"))
    assert result["stopped"] == "error" and "JSON action format after 2 tries" in result["detail"]
    inner.assert_used()


@pytest.mark.parametrize("react", [False, True])
def test_the_prompt_states_the_rules_lesson_12_teaches(react):
    prompt = system_prompt("Be helpful.", box().schemas(), react=react)
    assert prompt.startswith("Be helpful.\n\n") and "- add: Add two numbers." in prompt
    for rule in (
        "Use only the tools listed above",
        "Call one tool at a time",
        "ask the user for it in a final_answer instead of guessing",
        "Never write a",
    ):
        assert rule in prompt, rule
    assert "tool result yourself" in prompt


def test_the_react_prompt_asks_for_a_short_reason_and_no_invented_observation():
    prompt = system_prompt("", box().schemas(), react=True)
    assert "short reason" in prompt and "step by step" not in prompt.lower()
    assert "Never write an observation or a tool result yourself" in prompt
    assert prompt.index('"thought"') < prompt.index('"name": "<tool name>"')
    plain = system_prompt("", box().schemas())
    assert '"thought"' not in plain and "observation" not in plain
