"""LOOPLAB_MODEL=local in CPython with LOOPLAB_LOCAL_URL: the page engine's requests sent to a
llama-server (looplab/models/localserver.py), here the fake server playing one. The request is
the page's (thinking off, the KV cache kept, greedy, the JSON action schema when the chat
template knows no tools) and the reply is read as the page reads it."""

from __future__ import annotations

import json

import pytest
from fakeserver import FakeServer, completion

from looplab.models import pick_model
from looplab.models.errors import ModelError
from looplab.tools import Toolbox


@pytest.fixture
def fake():
    with FakeServer() as server:
        yield server


def toolbox() -> Toolbox:
    tools = Toolbox()
    tools.register("add", "Add two numbers.", {"a": {"type": "number"}, "b": {"type": "number"}}, lambda a, b: a + b)
    return tools


def test_a_local_model_in_cpython_asks_the_server_what_the_page_engine_is_asked(fake, monkeypatch):
    monkeypatch.setenv("LOOPLAB_MODEL", "local")
    monkeypatch.setenv("LOOPLAB_LOCAL_URL", fake.url)  # .../v1 is accepted too
    action = json.dumps({"type": "tool_call", "name": "add", "arguments": {"a": 2, "b": 3}})
    reply = completion({"role": "assistant", "content": action})
    reply["timings"] = {"prompt_n": 40, "cache_n": 10, "prompt_ms": 20.0, "predicted_n": 12, "predicted_ms": 100.0}
    fake.script({"json": reply}, path="/v1/chat/completions")
    model = pick_model([])
    answer = model([{"role": "user", "content": "2 + 3?"}], toolbox().schemas())
    call = answer["tool_calls"][0]["function"]
    assert (call["name"], json.loads(call["arguments"])) == ("add", {"a": 2, "b": 3})
    assert model.last == {
        "prompt_tokens": 40,
        "prompt_cached": 10,
        "prompt_ms": 20.0,
        "tokens": 12,
        "generate_ms": 100.0,
    }
    sent = fake.posts("/v1/chat/completions")[0].body
    assert sent["chat_template_kwargs"] == {"enable_thinking": False} and sent["cache_prompt"] is True
    assert sent["temperature"] == 0 and sent["stream"] is False and "op" not in sent
    assert sent["response_format"]["type"] == "json_schema"  # the fake's /props has no template with tools
    assert sent["max_tokens"] == 384


def test_a_server_that_fails_is_a_model_error_that_says_where(fake, monkeypatch):
    monkeypatch.setenv("LOOPLAB_MODEL", "local")
    monkeypatch.setenv("LOOPLAB_LOCAL_URL", fake.url)
    fake.script({"status": 500, "json": {"error": {"message": "boom"}}}, path="/v1/chat/completions")
    model = pick_model([])
    with pytest.raises(ModelError) as raised:
        model([{"role": "user", "content": "hi"}], [])
    assert "the local model: llama-server answered HTTP 500" in str(raised.value) and "boom" in str(raised.value)


def test_without_the_variable_cpython_says_where_the_local_model_runs(monkeypatch):
    monkeypatch.setenv("LOOPLAB_MODEL", "local")
    monkeypatch.delenv("LOOPLAB_LOCAL_URL", raising=False)
    with pytest.raises(ModelError) as raised:
        pick_model([])
    assert "runs in the browser" in str(raised.value) and "LOOPLAB_LOCAL_URL" in str(raised.value)
