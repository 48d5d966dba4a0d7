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
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "add",
            "description": "Add two numbers.",
            "parameters": {
                "type": "object",
                "properties": {"a": {"type": "number"}, "b": {"type": "number"}},
                "required": ["a", "b"],
            },
        },
    }
]
MEMORY = [
    {"role": "system", "content": "You add numbers.", "tokens": 6},
    {"role": "user", "content": "What is 1 + 2?", "tokens": 8},
    {
        "role": "assistant",
        "content": None,
        "thought": "use add",
        "tokens": 12,
        "_responses_output": [],
        "tool_calls": [
            {"id": "call_abc123", "type": "function", "function": {"name": "add", "arguments": '{"a": 1, "b": 2}'}}
        ],
    },
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
        "$.messages[0].tokens: not a field of ChatCompletionUserMessageParam"
    ]  # the checker does bite
    golden("chat_request", body)


def test_responses_request_body_is_a_valid_response_create_params():
    reply = read_output(responses_call("add", {"a": 1, "b": 2}, "call_abc123", reasoning="add them")["json"])
    memory = [*MEMORY[:2], reply, MEMORY[3]]
    body = responses_payload("gpt-5-mini", memory, TOOLS)
    assert problems(body, ResponseCreateParamsNonStreaming) == []
    assert [i.get("type", i.get("role")) for i in body["input"]] == [
        "system",
        "user",
        "reasoning",
        "function_call",
        "function_call_output",
    ]
    golden("responses_request", body)


@pytest.mark.parametrize(
    "reply", [chat_text("hi"), chat_call("add", {"a": 1, "b": 2}), chat_call("add", {}, finish_reason="stop")]
)
def test_fake_chat_replies_are_real_chat_completions_and_read_alike(reply):
    sdk_view = ChatCompletion.model_validate(reply["json"])
    ours = read_chat_reply(reply["json"])
    assert ours == {
        k: v
        for k, v in sdk_view.choices[0].message.model_dump(exclude_none=True).items()
        if k in ("role", "content", "tool_calls")
    } | {"content": ours["content"]}


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
        (
            chat_model,
            "/v1/chat/completions",
            CompletionCreateParamsNonStreaming,
            [chat_call("add", {"a": 1, "b": 2}, "call_x"), chat_text("3")],
        ),
        (
            responses_model,
            "/v1/responses",
            ResponseCreateParamsNonStreaming,
            [responses_call("add", {"a": 1, "b": 2}, "call_x", reasoning="adding"), responses_text("3")],
        ),
    ]:
        fake.reset()
        fake.script(*script)
        result = run_agent(
            "1+2?",
            model(Endpoint(fake.url, "sk-x", "m")),
            box,
            Memory({"role": "system", "content": "Add.", "tokens": 3}),
        )
        assert result["stopped"] == "final" and result["answer"] == "3"
        bodies = [r.body for r in fake.posts(path)]
        assert len(bodies) == 2 and all(problems(b, params) == [] for b in bodies)
        assert "call_x" in json.dumps(bodies[1])  # the call id went back intact
        assert "tokens" not in json.dumps(bodies) and "_responses_output" not in json.dumps(bodies)
    assert fake.posts()[-1].body["input"][2]["type"] == "reasoning"  # reasoning items carried forward


# --- structured outputs (lesson 19) and usage (lesson 20) ----------------------------------------

PERSON = {
    "type": "object",
    "properties": {"name": {"type": "string"}, "age": {"type": "integer"}},
    "required": ["name"],
}


def test_structured_output_request_bodies_are_valid_for_both_apis():
    from looplab.structured import response_format

    for fmt, name in [
        (response_format(PERSON, "person"), "chat_request_json_schema"),
        (response_format(), "chat_request_json_object"),
    ]:
        body = chat_payload("gpt-4o-mini", MEMORY[:2], None, response_format=fmt)
        assert problems(body, CompletionCreateParamsNonStreaming) == []
        golden(name, body)
        flat = responses_payload("gpt-5-mini", MEMORY[:2], None, fmt)
        assert problems(flat, ResponseCreateParamsNonStreaming) == []
        assert flat["text"]["format"]["type"] == fmt["type"]
    golden(
        "responses_request_json_schema",
        responses_payload("gpt-5-mini", MEMORY[:2], None, response_format(PERSON, "person")),
    )
    flat = {"type": "json_schema", "name": "person", "schema": PERSON}  # the Responses shape, sent to chat
    assert "$.response_format.schema: not a field of ResponseFormatJSONSchema" in problems(
        chat_payload("m", MEMORY[:2], None, response_format=flat), CompletionCreateParamsNonStreaming
    )  # it bites


def test_structured_runs_send_valid_requests_and_the_fake_answers_in_the_schema(fake):
    from looplab.structured import response_format, structured

    for model, path, params in [
        (chat_model, "/v1/chat/completions", CompletionCreateParamsNonStreaming),
        (responses_model, "/v1/responses", ResponseCreateParamsNonStreaming),
    ]:
        fake.reset()
        reply = structured(model(Endpoint(fake.url, "sk-x", "m")), PERSON, name="person")(MEMORY[:2], [])
        assert set(reply["parsed"]) == {"name", "age"} and reply["parsed"]["name"].startswith("echo: ")
        body = fake.posts(path)[0].body
        assert problems(body, params) == []
        sent = body.get("response_format") or {
            "type": "json_schema",
            "json_schema": {k: v for k, v in body["text"]["format"].items() if k != "type"},
        }
        assert sent == response_format(PERSON, "person")


def test_the_fake_refuses_what_the_api_refuses_for_structured_outputs(fake):
    from looplab.models.errors import ModelError

    model = chat_model(Endpoint(fake.url, "sk-x", "m", attempts=1))
    with pytest.raises(ModelError, match="must contain the word 'json'"):
        model([{"role": "user", "content": "hi"}], None, response_format={"type": "json_object"})
    loose = {"type": "json_schema", "json_schema": {"name": "person", "schema": PERSON, "strict": True}}
    with pytest.raises(ModelError, match="additionalProperties"):
        model([{"role": "user", "content": "hi"}], None, response_format=loose)
    assert [r.body["response_format"]["type"] for r in fake.posts()] == ["json_object", "json_schema"]


def test_usage_is_read_from_the_sdks_own_objects_and_kept_by_every_adapter(fake):
    from looplab.budget import read_usage

    assert read_usage(ChatCompletion.model_validate(chat_text("hi")["json"]).usage) == {
        "prompt": 10,
        "completion": 5,
        "total": 15,
    }
    assert read_usage(Response.model_validate(responses_text("hi")["json"]).usage) == {
        "prompt": 10,
        "completion": 5,
        "total": 15,
    }
    for model, path in [(chat_model, "/v1/chat/completions"), (responses_model, "/v1/responses")]:
        fake.reset()
        reply = model(Endpoint(fake.url, "sk-x", "m"))([{"role": "user", "content": "x" * 400}], None)
        usage = read_usage(reply["usage"])
        assert (
            usage["prompt"] > 100 and usage["total"] == usage["prompt"] + usage["completion"]
        )  # grows with the request
        assert (ChatCompletion if path.endswith("completions") else Response).model_validate(
            fake.default_reply(path, fake.posts(path)[0].body)["json"]
        )
