"""Golden checks against the real reference: our request bodies and the replies we accept, by the openai package's own types."""

import json
from pathlib import Path

import pytest
from fakeserver import chat_call, chat_text, completion, responses_call, responses_text
from openai.types import CreateEmbeddingResponse
from openai.types.chat import ChatCompletion
from openai.types.chat.completion_create_params import CompletionCreateParamsNonStreaming
from openai.types.responses import Response
from openai.types.responses.response_create_params import ResponseCreateParamsNonStreaming
from typecheck import problems

from looplab import Memory, Toolbox, run_agent
from looplab.models.chat import chat_model, chat_payload, read_chat_reply
from looplab.models.endpoint import Endpoint
from looplab.models.responses import read_output, responses_model, responses_payload

GOLDEN = Path(__file__).parent / "golden"
TOOLS = [{"type": "function", "function": {"name": "add", "description": "Add two numbers.", "parameters": {
    "type": "object", "properties": {"a": {"type": "number"}, "b": {"type": "number"}}, "required": ["a", "b"]}}}]
MEMORY = [
    {"role": "system", "content": "You add numbers.", "tokens": 6},
    {"role": "user", "content": "What is 1 + 2?", "tokens": 8},
    {"role": "assistant", "content": None, "thought": "use add", "tokens": 12, "_responses_output": [],
     "tool_calls": [{"id": "call_abc123", "type": "function", "function": {"name": "add", "arguments": '{"a": 1, "b": 2}'}}]},
    {"role": "tool", "tool_call_id": "call_abc123", "content": "3", "tokens": 5},
]


def golden(name: str, value) -> None:
    """Compare with tests/live/golden/<name>.json (a missing one is written and the test fails: review it)."""
    path = GOLDEN / f"{name}.json"
    text = json.dumps(value, indent=2, sort_keys=True) + "\n"
    if not path.exists():
        path.parent.mkdir(exist_ok=True)
        path.write_text(text)
        pytest.fail(f"wrote the missing golden file {path.name}; check it, then run again")
    assert text == path.read_text()


def test_chat_request_body_is_a_valid_completion_create_params():
    body = chat_payload("gpt-4o-mini", MEMORY, TOOLS)
    assert problems(body, CompletionCreateParamsNonStreaming) == []
    assert problems({**body, "messages": [{**MEMORY[1]}]}, CompletionCreateParamsNonStreaming) == [
        "$.messages[0].tokens: not a field of ChatCompletionUserMessageParam"]   # the checker does bite
    golden("chat_request", body)


def test_responses_request_body_is_a_valid_response_create_params():
    reply = read_output(responses_call("add", {"a": 1, "b": 2}, "call_abc123", reasoning="add them")["json"])
    memory = [*MEMORY[:2], reply, MEMORY[3]]
    body = responses_payload("gpt-5-mini", memory, TOOLS)
    assert problems(body, ResponseCreateParamsNonStreaming) == []
    assert [i.get("type", i.get("role")) for i in body["input"]] == [
        "system", "user", "reasoning", "function_call", "function_call_output"]
    golden("responses_request", body)


@pytest.mark.parametrize("reply", [chat_text("hi"), chat_call("add", {"a": 1, "b": 2}), chat_call("add", {}, finish_reason="stop")])
def test_fake_chat_replies_are_real_chat_completions_and_read_alike(reply):
    sdk_view = ChatCompletion.model_validate(reply["json"])
    ours = read_chat_reply(reply["json"])
    assert ours == {k: v for k, v in sdk_view.choices[0].message.model_dump(exclude_none=True).items()
                    if k in ("role", "content", "tool_calls")} | {"content": ours["content"]}


def test_fake_responses_and_embeddings_are_real_api_objects():
    for reply in (responses_text("hi", reasoning="r"), responses_call("add", {"a": 1}, reasoning="r")):
        assert Response.model_validate(reply["json"]).output
    from fakeserver import FakeServer
    server = FakeServer()
    data = server.default_reply("/v1/embeddings", {"model": "e", "input": ["a", "b"]})["json"]
    assert len(CreateEmbeddingResponse.model_validate(data).data) == 2
    assert ChatCompletion.model_validate(completion({"role": "assistant", "content": "x"}))
    server.httpd.server_close()


def test_a_whole_run_sends_only_valid_requests(fake):
    """Every request of a tool-using run, as the server recorded it, conforms to the SDK's types."""
    box = Toolbox()
    box.register("add", "Add two numbers.", TOOLS[0]["function"]["parameters"], lambda a, b: a + b)
    for model, path, params, script in [
        (chat_model, "/v1/chat/completions", CompletionCreateParamsNonStreaming,
         [chat_call("add", {"a": 1, "b": 2}, "call_x"), chat_text("3")]),
        (responses_model, "/v1/responses", ResponseCreateParamsNonStreaming,
         [responses_call("add", {"a": 1, "b": 2}, "call_x", reasoning="adding"), responses_text("3")]),
    ]:
        fake.reset()
        fake.script(*script)
        result = run_agent("1+2?", model(Endpoint(fake.url, "sk-x", "m")), box, Memory({"role": "system", "content": "Add.", "tokens": 3}))
        assert result["stopped"] == "final" and result["answer"] == "3"
        bodies = [r.body for r in fake.posts(path)]
        assert len(bodies) == 2 and all(problems(b, params) == [] for b in bodies)
        assert "call_x" in json.dumps(bodies[1])          # the call id went back intact
        assert "tokens" not in json.dumps(bodies) and "_responses_output" not in json.dumps(bodies)
    assert fake.posts()[-1].body["input"][2]["type"] == "reasoning"   # reasoning items carried forward
