"""live_model() and live_embedder() from the LLM_* settings, end to end against the fake server."""

import pytest
from fakeserver import FakeServer, responses_call, responses_text

from looplab import FactStore, Memory, Toolbox, run_agent
from looplab.models import pick_model
from looplab.models.endpoint import Endpoint
from looplab.models.errors import ModelError
from looplab.models.live import live_embedder, live_model


def settings(monkeypatch, url, **more):
    monkeypatch.setenv("LOOPLAB_MODEL", "live")
    monkeypatch.setenv("LLM_BASE_URL", url)
    monkeypatch.setenv("LLM_API_KEY", "sk-live-0123456789abcdef")
    monkeypatch.setenv("LLM_MODEL", "fake-model")
    for name, value in more.items():
        monkeypatch.setenv(name, value)


def box():
    tools = Toolbox()
    tools.register(
        "echo",
        "Say it back.",
        {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]},
        lambda text: text.upper(),
    )
    return tools


@pytest.mark.parametrize("api", ["chat", "responses", "sdk"])
def test_pick_model_runs_a_lesson_live_with_the_default_rule(fake, monkeypatch, api):
    settings(monkeypatch, fake.url, LLM_API=api)
    model = pick_model([])  # the lesson's scripted replies are ignored in live mode
    result = run_agent('call echo {"text": "hi"}', model, box(), Memory("s"))
    assert result == {"answer": "result: HI", "steps": 2, "stopped": "final", "tool_calls": 1}
    assert fake.posts()[0].headers["authorization"] == "Bearer sk-live-0123456789abcdef"


def test_prompted_and_react_through_live_model(fake, monkeypatch):
    settings(monkeypatch, fake.url, LLM_API="react")
    fake.script(
        {
            "json": {
                "choices": [
                    {
                        "message": {
                            "role": "assistant",
                            "content": '{"type": "final_answer", "thought": "easy", "answer": "4"}',
                        }
                    }
                ]
            }
        }
    )
    assert live_model()([{"role": "user", "content": "2+2"}], box().schemas()) == {
        "role": "assistant",
        "content": "4",
        "thought": "easy",
    }
    sent = fake.posts()[0].body
    assert "tools" not in sent and '"thought"' in sent["messages"][0]["content"]


@pytest.mark.parametrize(
    "missing, says", [("LLM_BASE_URL", "live mode needs LLM_BASE_URL"), ("LLM_MODEL", "live mode needs LLM_MODEL")]
)
def test_missing_settings_are_named(monkeypatch, missing, says):
    settings(monkeypatch, "http://127.0.0.1:9/v1")
    monkeypatch.delenv(missing)
    with pytest.raises(ModelError, match=says):
        live_model()


def test_bad_settings_are_named(monkeypatch):
    settings(monkeypatch, "127.0.0.1:11434/v1")
    with pytest.raises(ModelError, match="must start with http"):
        live_model()
    settings(monkeypatch, "http://127.0.0.1:9/v1", LLM_API="grpc")
    with pytest.raises(ModelError, match="one of chat, responses, prompted, react, sdk"):
        live_model()
    settings(monkeypatch, "http://127.0.0.1:9/v1", LLM_API="chat", LLM_TIMEOUT="soon")
    with pytest.raises(ModelError, match="LLM_TIMEOUT must be a number"):
        live_model()
    settings(monkeypatch, "http://127.0.0.1:9/v1", LLM_API="chat", LLM_TIMEOUT="0")
    with pytest.raises(ModelError, match="LLM_TIMEOUT must be more than 0 seconds"):
        live_model()
    with pytest.raises(ValueError, match="attempts must be at least 1"):
        Endpoint("http://127.0.0.1:9/v1", attempts=0)


def test_a_local_server_needs_no_key(fake, monkeypatch):
    settings(monkeypatch, fake.url)
    monkeypatch.delenv("LLM_API_KEY")
    assert live_model()([{"role": "user", "content": "yo"}], [])["content"] == "echo: yo"
    assert "authorization" not in fake.posts()[0].headers


def test_live_embedder_feeds_the_fact_store(fake, monkeypatch):
    settings(monkeypatch, fake.url, LLM_EMBED_MODEL="fake-embed")
    store = FactStore(embedder=live_embedder())
    store.add(["The user's name is Chris.", "The user lives in Singapore."])
    assert store.search("The user's name is Chris.", k=1)[0][0] == "The user's name is Chris."
    first = fake.posts("/v1/embeddings")[0].body
    assert first == {"model": "fake-embed", "input": ["The user's name is Chris.", "The user lives in Singapore."]}


def test_responses_reasoning_rides_along_over_a_run(fake, monkeypatch):
    settings(monkeypatch, fake.url, LLM_API="responses")
    fake.script(responses_call("echo", {"text": "a"}, "call_1", reasoning="first think"), responses_text("done"))
    result = run_agent("go", live_model(), box(), Memory("s"))
    assert result["answer"] == "done"
    second = fake.posts()[1].body["input"]
    assert [i.get("type") for i in second[-3:]] == ["reasoning", "function_call", "function_call_output"]
    assert second[-1]["call_id"] == second[-2]["call_id"] == "call_1"


def test_models_endpoint_lists_models():
    with FakeServer(models=["a", "b"]) as server:
        from looplab.models.endpoint import Endpoint

        assert [m["id"] for m in Endpoint(server.url).get("/models")["data"]] == ["a", "b"]
