"""Bounded replies over HTTP, for every live adapter: the limit on the wire, a cut reply in the trace,
a tool call broken by the cut as a clear `error` stop — against the fake server, which obeys the
request's limit as a real server does (tests/fakeserver.py)."""

import json

import pytest
from fakeserver import chat_text, completion, error, responses_call, responses_text
from openai.types.chat import ChatCompletion
from openai.types.chat.completion_create_params import (
    CompletionCreateParamsNonStreaming,
    CompletionCreateParamsStreaming,
)
from openai.types.responses import Response
from openai.types.responses.response_create_params import (
    ResponseCreateParamsNonStreaming,
    ResponseCreateParamsStreaming,
)
from typecheck import problems

from looplab import Memory, Toolbox, run_agent
from looplab.models.errors import ModelError
from looplab.models.live import live_model
from looplab.trace import Collector

APIS = ["chat", "responses", "prompted", "react", "sdk"]
LIMIT_FIELD = {
    "chat": "max_tokens",
    "responses": "max_output_tokens",
    "prompted": "max_tokens",
    "react": "max_tokens",
    "sdk": "max_tokens",
}
PATH = {"responses": "/v1/responses"}


def settings(monkeypatch, url, **more):
    for name, value in {
        "LOOPLAB_MODEL": "live",
        "LLM_BASE_URL": url,
        "LLM_API_KEY": "sk-limit-0123456789abcdef",
        "LLM_MODEL": "fake-model",
        **more,
    }.items():
        monkeypatch.setenv(name, value)


def box(ran: list | None = None) -> Toolbox:
    tools = Toolbox()
    tools.register(
        "search_notes",
        "Search the notes.",
        {"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]},
        lambda query: (ran.append(query) if ran is not None else None) or f"found {query}",
    )
    return tools


def run(task, ran=None):
    events = Collector()
    result = run_agent(task, live_model(), box(ran), Memory("Be brief."), tracer=events)
    return result, events


@pytest.mark.parametrize("api", APIS)
def test_every_api_sends_the_limit_default_512_or_LLM_MAX_TOKENS(fake, monkeypatch, api):
    settings(monkeypatch, fake.url, LLM_API=api)
    fake.script(final_for(api, "ok"))
    live_model()([{"role": "user", "content": "hi"}], box().schemas())
    monkeypatch.setenv("LLM_MAX_TOKENS", "77")
    fake.script(final_for(api, "ok"))
    live_model()([{"role": "user", "content": "hi"}], box().schemas())
    field = LIMIT_FIELD[api]
    assert [p.body[field] for p in fake.posts()] == [512, 77]
    other = {"max_tokens", "max_output_tokens", "max_completion_tokens"} - {field}
    assert not other & set(fake.posts()[0].body)


def final_for(api: str, text: str) -> dict:
    """A whole final reply in the wire format of `api`."""
    if api == "responses":
        return responses_text(text)
    if api in ("prompted", "react"):
        return chat_text(json.dumps({"type": "final_answer", "thought": "t", "answer": text}))
    return chat_text(text)


@pytest.mark.parametrize("value", ["lots", "0", "-3", "2.5"])
def test_a_bad_LLM_MAX_TOKENS_is_named(monkeypatch, value):
    settings(monkeypatch, "http://127.0.0.1:9/v1", LLM_MAX_TOKENS=value)
    with pytest.raises(ModelError, match="LLM_MAX_TOKENS must be a whole number of tokens") as caught:
        live_model()
    assert caught.value.kind == "setup" and repr(value) in str(caught.value)


@pytest.mark.parametrize("api", ["chat", "responses", "sdk"])
def test_a_long_reply_is_cut_by_the_server_and_the_trace_says_so(fake, monkeypatch, api):
    settings(monkeypatch, fake.url, LLM_API=api, LLM_MAX_TOKENS="5")
    result, events = run("tell me everything about the notes, " * 10)
    assert result["stopped"] == "final" and result["answer"] == "echo: tell me everyt"  # 5 tokens x 4 characters
    assert [e.get("cut") for e in events.of("model_reply")] == ["length"]


@pytest.mark.parametrize("api", ["chat", "responses", "sdk"])
def test_a_call_broken_by_the_limit_stops_with_an_error_naming_it(fake, monkeypatch, api):
    settings(monkeypatch, fake.url, LLM_API=api, LLM_MAX_TOKENS="4")
    ran = []
    result, events = run('call search_notes {"query": "where do visitors park on weekdays?"}', ran)
    field = LIMIT_FIELD[api]
    assert result["stopped"] == "error" and result["tool_calls"] == 0 and ran == []
    assert f"cut at the token limit ({field}=4) in the middle of its call to 'search_notes'" in result["detail"]
    assert "LLM_MAX_TOKENS" in result["detail"] and "not valid JSON" not in result["detail"]
    assert events.of("tool_result") == [] and events.types()[-1] == "stop"


@pytest.mark.parametrize("api", ["prompted", "react"])
def test_prompted_json_broken_by_the_limit_stops_at_once(fake, monkeypatch, api):
    settings(monkeypatch, fake.url, LLM_API=api, LLM_MAX_TOKENS="12")
    fake.script(
        chat_text('{"type": "tool_call", "thought": "look", "name": "search_notes", "arg', finish_reason="length")
    )
    result, _ = run("where do visitors park?")
    assert result["stopped"] == "error" and len(fake.posts()) == 1  # not sent back for a repair
    assert "cut at the token limit (max_tokens=12) before its JSON action was complete" in result["detail"]
    assert "LLM_MAX_TOKENS" in result["detail"]


@pytest.mark.parametrize("api", ["prompted", "react"])
def test_prompted_whole_action_in_a_cut_reply_is_used_and_marked(fake, monkeypatch, api):
    settings(monkeypatch, fake.url, LLM_API=api, LLM_MAX_TOKENS="40")
    action = json.dumps(
        {"type": "tool_call", "thought": "look", "name": "search_notes", "arguments": {"query": "park"}}
    )
    fake.script(chat_text(action + " Then I will also", finish_reason="length"), final_for(api, "Lot B"))
    ran = []
    result, events = run("where do visitors park?", ran)
    assert result["stopped"] == "final" and result["answer"] == "Lot B" and ran == ["park"]
    assert [e.get("cut") for e in events.of("model_reply")] == ["length", None]


def test_the_cut_replies_are_real_api_objects_and_the_requests_valid_params(fake, monkeypatch):
    """The fake server's cut replies parse as the SDK's own types, and our bodies with a limit are valid params."""
    cut_chat = completion({"role": "assistant", "content": "a long st"}, "length")
    assert ChatCompletion.model_validate(cut_chat).choices[0].finish_reason == "length"
    for reply in (
        responses_text("a long st", cut="max_output_tokens"),
        responses_call("search_notes", '{"query": "pa', cut="max_output_tokens"),
    ):
        parsed = Response.model_validate(reply["json"])
        assert parsed.status == "incomplete" and parsed.incomplete_details.reason == "max_output_tokens"
    for api, stream, params in (
        ("chat", "0", CompletionCreateParamsNonStreaming),
        ("sdk", "0", CompletionCreateParamsNonStreaming),
        ("responses", "0", ResponseCreateParamsNonStreaming),
        ("chat", "1", CompletionCreateParamsStreaming),
        ("sdk", "1", CompletionCreateParamsStreaming),
        ("responses", "1", ResponseCreateParamsStreaming),
    ):
        settings(monkeypatch, fake.url, LLM_API=api, LLM_MAX_TOKENS="64", LLM_STREAM=stream)
        fake.reset()
        run('call search_notes {"query": "park"}')
        bodies = [p.body for p in fake.posts()]
        assert len(bodies) == 2 and all(problems(b, params) == [] for b in bodies), (api, bodies)
        assert all(b[LIMIT_FIELD[api]] == 64 for b in bodies)
        assert all(b.get("stream", False) is (stream == "1") for b in bodies), (api, stream)


REASONING_MODEL_SAYS = (
    "Unsupported parameter: 'max_tokens' is not supported with this model. "
    "Use 'max_completion_tokens' instead."
)  # OpenAI's 400 for its reasoning models


@pytest.mark.parametrize("api", ["chat", "sdk", "prompted"])
def test_a_model_that_asks_for_max_completion_tokens_gets_the_limit_under_that_name(fake, monkeypatch, api):
    settings(monkeypatch, fake.url, LLM_API=api, LLM_MAX_TOKENS="300")
    fake.script(
        error(400, REASONING_MODEL_SAYS, "invalid_request_error", "unsupported_parameter"),
        final_for(api, "one"),
        final_for(api, "two"),
    )
    model = live_model()
    answers = [model([{"role": "user", "content": "hi"}], box().schemas())["content"] for _ in range(2)]
    bodies = [p.body for p in fake.posts()]
    assert answers == ["one", "two"] and len(bodies) == 3
    assert bodies[0]["max_tokens"] == 300 and "max_completion_tokens" not in bodies[0]
    assert [b.get("max_completion_tokens") for b in bodies[1:]] == [300, 300]  # kept for later calls
    assert not any("max_tokens" in b for b in bodies[1:])


def test_another_400_is_not_retried(fake, monkeypatch):
    settings(monkeypatch, fake.url, LLM_API="chat")
    fake.script(error(400, "Invalid 'messages[1].content': string too long.", "invalid_request_error"))
    with pytest.raises(ModelError, match="400 from .*string too long"):
        live_model()([{"role": "user", "content": "hi"}], [])
    assert len(fake.posts()) == 1
