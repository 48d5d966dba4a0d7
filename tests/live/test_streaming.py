"""Streamed replies over real HTTP against the fake server: the same messages as unstreamed, faults, timing.

The fake server streams any reply a request asks to stream (tests/fakeserver.py), cut into
7-byte network writes here, so splits fall inside lines, events and multibyte characters.
"""

import json
import time

import pytest
from fakeserver import (
    FakeServer,
    chat_call,
    chat_calls,
    chat_text,
    responses_call,
    responses_text,
)
from live_adapters import KEY
from looplab import Memory, Toolbox, run_agent
from looplab.messages import read_reply
from looplab.models.chat import chat_model
from looplab.models.endpoint import Endpoint
from looplab.models.live import live_model
from looplab.models.responses import responses_model
from looplab.models.sdk import openai_model_fn
from looplab.trace import Collector

AWKWARD = {"chunk_bytes": 7, "split": 2}


@pytest.fixture
def server():
    with FakeServer(streaming=AWKWARD) as fake:
        yield fake


def build(kind: str, url: str, stream: bool, on_delta=None, timeout: float = 5.0):
    if kind == "sdk":
        from openai import OpenAI

        client = OpenAI(base_url=url, api_key=KEY, timeout=timeout, max_retries=0)
        return openai_model_fn(client, "fake-model", stream=stream, on_delta=on_delta)
    endpoint = Endpoint(url, api_key=KEY, model="fake-model", timeout=timeout, attempts=1)
    make = responses_model if kind == "responses" else chat_model
    return make(endpoint, stream=stream, on_delta=on_delta)


CHAT_REPLIES = [
    chat_text("Grüße — 3 😀 ok"),
    chat_call("remember", '{"name": "Zoë 🦊", "note": "naïve"}', "call_r"),
    chat_calls(
        ("add", {"a": 10, "b": 5}, "call_a"),
        ("upper", '{"text": "crème brûlée"}', "call_u"),
        ("remember", '{"k": "日本語"}', "call_k"),
        content="Doing three things.",
    ),
    chat_text("cut sh", finish_reason="length"),
]
RESPONSES_REPLIES = [
    responses_text("Grüße 😀", reasoning="think first"),
    responses_call("remember", '{"name": "Zoë 🦊"}', "call_r", reasoning="a plan"),
]


def kept(reply: dict) -> dict:
    """What memory keeps of a reply (the loop's own reading), and its usage."""
    message, _, problem = read_reply(reply, 1, set())
    return {"message": message, "usage": reply.get("usage"), "problem": problem}


@pytest.mark.parametrize("kind", ["chat", "sdk", "responses"])
def test_streamed_replies_are_the_unstreamed_ones(server, kind):
    replies = RESPONSES_REPLIES if kind == "responses" else CHAT_REPLIES
    results = {}
    for stream in (False, True):
        server.script(*replies)
        model, shown = None, []
        model = build(kind, server.url, stream, shown.append)
        results[stream] = [kept(model([{"role": "user", "content": "hi"}], [])) for _ in replies]
        if stream:
            texts = [r["message"].get("content") or "" for r in results[True]]
            assert "".join(shown) == "".join(texts)  # every text piece was shown, once, in order
    assert results[True] == results[False]
    bodies = [p.body for p in server.posts()]
    assert [b.get("stream", False) for b in bodies] == [False] * len(replies) + [True] * len(replies)


def test_text_is_shown_as_it_arrives_not_when_the_reply_is_whole(server):
    server.streaming = {"split": 4, "chunk_delay": 0.05}
    server.script(chat_text("one two three four five six seven"))
    arrivals = []
    started = time.perf_counter()
    reply = build("chat", server.url, True, lambda text: arrivals.append(time.perf_counter() - started))(
        [{"role": "user", "content": "hi"}], []
    )
    total = time.perf_counter() - started
    assert len(arrivals) == 9 and arrivals[0] < total - 0.3  # the first piece came long before the end
    assert reply["stream"]["first_token_ms"] < reply["stream"]["ms"] - 300 and reply["stream"]["chunks"] >= 12


FAULTS = {
    "cut": "it ended in the middle of an event",
    "hangup": "the connection closed in the middle of it",
    "not_json": "a data: line was not JSON",
    "error": "the server sent an error in the middle of it: The server had an error",
    "stall": "stopped: nothing arrived for 0.5 s after",
    "unfinished_call": "the model's call to 'add' never completed (its arguments stop at",
}


@pytest.mark.parametrize("kind", ["chat", "sdk", "responses"])
@pytest.mark.parametrize("fault", FAULTS)
def test_a_broken_stream_ends_the_run_with_one_sentence(server, kind, fault):
    reply = (responses_call if kind == "responses" else chat_call)("add", {"a": 10, "b": 55555}, "call_1")
    server.script({**reply, "stream": {"fault": fault, "stall": 2, "split": 2}})
    box = Toolbox()
    box.register(
        "add",
        "Add.",
        {"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}}},
        lambda a, b: str(a + b),
    )
    events = Collector()
    result = run_agent("add", build(kind, server.url, True, timeout=0.5), box, Memory("s"), tracer=events)
    assert result["stopped"] == "error" and events.types()[-1] == "stop"
    detail = result["detail"]
    expected = "it ended before the reply was complete" if (kind, fault) == ("sdk", "cut") else FAULTS[fault]
    assert expected in detail, detail  # the SDK reads the events itself: it drops a half-sent one
    if fault in ("cut", "hangup", "unfinished_call"):
        assert "never completed" in detail  # the call left unfinished is named
    assert detail.count(" — ") == 1 and "\n" not in detail and KEY not in detail
    assert events.of("tool_call") == []  # nothing half-made was run


@pytest.mark.parametrize("api", ["chat", "responses", "sdk"])
def test_a_server_that_refuses_stream_is_asked_once_without_and_then_never(server, api, monkeypatch):
    for name, value in {
        "LOOPLAB_MODEL": "live",
        "LLM_BASE_URL": server.url,
        "LLM_API_KEY": KEY,
        "LLM_MODEL": "fake-model",
        "LLM_API": api,
    }.items():
        monkeypatch.setenv(name, value)
    good = responses_text if api == "responses" else chat_text
    server.script({**good("refused"), "refuse_stream": True}, good("one"), good("two"))
    model = live_model()
    answers = [model([{"role": "user", "content": "hi"}], [])["content"] for _ in range(2)]
    assert answers == ["one", "two"]
    assert [p.body.get("stream") for p in server.posts()] == [True, None, None]


def test_llm_stream_0_sends_whole_requests(server, monkeypatch):
    for name, value in {"LLM_BASE_URL": server.url, "LLM_MODEL": "fake-model", "LLM_STREAM": "0"}.items():
        monkeypatch.setenv(name, value)
    reply = live_model()([{"role": "user", "content": "hi"}], [])
    assert reply["content"] == "echo: hi" and "stream" not in reply
    assert "stream" not in server.posts()[0].body and "stream_options" not in server.posts()[0].body


def test_the_default_brain_streams_a_whole_run_with_parallel_calls(server, monkeypatch):
    """The live loop end to end, streamed: tool calls from the default rule, results back, a final answer."""
    for name, value in {"LLM_BASE_URL": server.url, "LLM_MODEL": "fake-model"}.items():
        monkeypatch.setenv(name, value)
    box = Toolbox()
    box.register(
        "shout",
        "Shout a word.",
        {"type": "object", "properties": {"word": {"type": "string"}}},
        lambda word: word.upper(),
    )
    events = Collector()
    result = run_agent('call shout {"word": "héllo wörld"}', live_model(), box, Memory("s"), tracer=events)
    assert result["stopped"] == "final" and result["answer"] == "result: HÉLLO WÖRLD"
    assert [e["stream"]["chunks"] > 3 for e in events.of("model_reply")] == [True, True]
    assert json.loads(events.of("tool_call")[0]["arguments"]) == {"word": "héllo wörld"}
