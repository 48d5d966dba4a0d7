"""The Responses API adapter's translation, both ways, with call ids and reasoning items intact."""

import pytest

from looplab.models.errors import ModelError
from looplab.models.responses import OUTPUT_KEY, input_items, read_output, responses_payload, responses_tools

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "add",
            "description": "Add two numbers.",
            "parameters": {"type": "object", "properties": {"a": {"type": "number"}}},
        },
    }
]
REASONING = {
    "type": "reasoning",
    "id": "rs_1",
    "summary": [{"type": "summary_text", "text": "I should add."}],
    "encrypted_content": "gAAAA",
}
CALL_ITEM = {
    "type": "function_call",
    "id": "fc_1",
    "call_id": "call_1",
    "name": "add",
    "arguments": '{"a": 1}',
    "status": "completed",
}


def test_tools_are_flattened():
    assert responses_tools(TOOLS) == [
        {
            "type": "function",
            "name": "add",
            "description": "Add two numbers.",
            "parameters": TOOLS[0]["function"]["parameters"],
            "strict": False,
        }
    ]


def test_output_becomes_an_assistant_message_and_goes_back_in_order():
    reply = read_output({"output": [REASONING, CALL_ITEM]})
    assert reply["tool_calls"] == [
        {"id": "call_1", "type": "function", "function": {"name": "add", "arguments": '{"a": 1}'}}
    ]
    assert reply["thought"] == "I should add." and reply["content"] is None
    memory = [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "1+?", "tokens": 4},
        reply,
        {"role": "tool", "tool_call_id": "call_1", "content": "1"},
    ]
    assert input_items(memory) == [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "1+?"},
        REASONING,
        CALL_ITEM,
        {"type": "function_call_output", "call_id": "call_1", "output": "1"},
    ]


def test_memory_without_output_items_is_rebuilt_from_the_chat_fields():
    scripted = {
        "role": "assistant",
        "content": "Let me add.",
        "tool_calls": [{"id": "c7", "type": "function", "function": {"name": "add", "arguments": "{}"}}],
    }
    assert input_items([scripted]) == [
        {"role": "assistant", "content": "Let me add."},
        {"type": "function_call", "call_id": "c7", "name": "add", "arguments": "{}"},
    ]
    renamed = dict(read_output({"output": [REASONING, CALL_ITEM]}))
    renamed["tool_calls"] = [{"id": "call_1_1", "type": "function", "function": {"name": "add", "arguments": "{}"}}]
    assert [i.get("call_id") for i in input_items([renamed])] == ["call_1_1"]  # ids always match memory


def test_text_reply_and_payload():
    data = {
        "output": [
            {
                "type": "message",
                "id": "m1",
                "role": "assistant",
                "status": "completed",
                "content": [
                    {"type": "output_text", "text": "Hello", "annotations": []},
                    {"type": "output_text", "text": " there", "annotations": []},
                ],
            }
        ]
    }
    reply = read_output(data)
    assert reply["content"] == "Hello there" and "tool_calls" not in reply and OUTPUT_KEY in reply
    body = responses_payload("m", [{"role": "user", "content": "hi"}], [])
    assert body == {"model": "m", "input": [{"role": "user", "content": "hi"}]}


def test_a_reply_without_output_is_a_clear_error():
    with pytest.raises(ModelError, match="Responses API"):
        read_output({"choices": []})
    with pytest.raises(ModelError, match="could not answer: overloaded"):
        read_output({"output": [], "status": "failed", "error": {"message": "overloaded"}})
