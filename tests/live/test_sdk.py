"""The openai SDK adapter (the course's openai_model_fn) against the fake server, and the lean adapter's twin."""

import json

from live_adapters import build
from live_adapters import KEY
from fakeserver import chat_call, chat_text

from looplab import Memory, Toolbox, run_agent
from looplab.models.chat import chat_model
from looplab.models.endpoint import Endpoint
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


def run(model):
    memory = Memory({"role": "system", "content": "You add.", "tokens": 3})
    events = Collector()
    return run_agent("1+2?", model, box(), memory, tracer=events), events


def test_sdk_and_lean_adapters_send_the_same_conversation(keyed):
    keyed.script(
        chat_call("add", {"a": 1, "b": 2}, "call_q"),
        chat_text("3"),
        chat_call("add", {"a": 1, "b": 2}, "call_q"),
        chat_text("3"),
    )
    sdk_result, _ = run(build("sdk", keyed.url, key=KEY))
    lean_result, _ = run(chat_model(Endpoint(keyed.url, KEY, "fake-model")))
    assert sdk_result == lean_result == {"answer": "3", "steps": 2, "stopped": "final", "tool_calls": 1}
    sdk_a, sdk_b, lean_a, lean_b = keyed.posts("/v1/chat/completions")
    for sdk, lean in ((sdk_a, lean_a), (sdk_b, lean_b)):
        assert sdk.body["messages"] == lean.body["messages"] and sdk.body["tools"] == lean.body["tools"]
        assert sdk.headers["authorization"] == lean.headers["authorization"] == f"Bearer {KEY}"
    assert sdk_b.body["messages"][2]["tool_calls"][0]["id"] == "call_q"
    assert sdk_b.body["messages"][3] == {"role": "tool", "content": "3", "tool_call_id": "call_q"}
    assert "tokens" not in json.dumps(sdk_b.body)


def test_sdk_reply_is_the_seed_shape(fake):
    fake.script(chat_call("add", {"a": 1, "b": 2}, "call_z", finish_reason="stop"))
    reply = build("sdk", fake.url)([{"role": "user", "content": "hi"}], box().schemas())
    assert reply["role"] == "assistant"
    assert reply["tool_calls"] == [
        {"id": "call_z", "type": "function", "function": {"name": "add", "arguments": '{"a": 1, "b": 2}'}}
    ]


def test_sdk_wrong_key_stops_with_the_sentence(keyed):
    result, events = run(build("sdk", keyed.url, key="sk-wrong-0000000000000000"))
    assert result["stopped"] == "error"
    assert result["detail"].endswith(f"401 from {keyed.url}: the API key was refused — check it in Settings")
    assert "sk-wrong-0000000000000000" not in json.dumps(events.events)


def test_sdk_reply_with_no_choices_is_one_sentence(fake):
    fake.script({"json": {"id": "x", "object": "chat.completion", "created": 0, "model": "m", "choices": []}})
    result, _ = run(build("sdk", fake.url))
    assert result["stopped"] == "error"
    assert f"the reply from {fake.url} had no choices" in result["detail"]


def test_sdk_and_lean_adapters_ask_for_the_same_structured_output_and_report_usage(keyed):
    from looplab.structured import structured

    schema = {"type": "object", "properties": {"answer": {"type": "integer"}}, "required": ["answer"]}
    replies = {}
    for name, model in [
        ("sdk", build("sdk", keyed.url, key=KEY)),
        ("lean", chat_model(Endpoint(keyed.url, KEY, "fake-model"))),
    ]:
        replies[name] = structured(model, schema, name="sum")([{"role": "user", "content": "1+2?"}], [])
    sdk_body, lean_body = [r.body for r in keyed.posts("/v1/chat/completions")]
    assert (
        sdk_body["response_format"] == lean_body["response_format"]
        and sdk_body["response_format"]["type"] == "json_schema"
    )
    assert replies["sdk"]["parsed"] == replies["lean"]["parsed"] == {"answer": len("echo: 1+2?")}
    assert replies["sdk"]["usage"]["total_tokens"] == replies["lean"]["usage"]["total_tokens"] > 0
