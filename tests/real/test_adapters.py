"""Every live adapter against llama-server with SmolLM2-135M (--jinja): what a real chat template and a
real tool-call parser give our adapters, the token limit honoured by a real server, and the keys."""

import json
import urllib.error
import urllib.request

import pytest
from curriculum import KEY
from llamaserver import MODEL_NAME

from looplab import Memory, Toolbox, run_agent
from looplab.models.live import live_model
from looplab.trace import Collector

STOPS = {"final", "step_limit", "error", "needs_person"}
NOTES = {"n1": "Parking: visitors park in Lot B.", "n2": "Hours: the office opens at 9."}


def box(ran: list) -> Toolbox:
    tools = Toolbox()
    tools.register(
        "read_note",
        "Read one note by its id (n1 or n2).",
        {
            "type": "object",
            "properties": {"note_id": {"type": "string", "enum": sorted(NOTES)}},
            "required": ["note_id"],
        },
        lambda note_id: ran.append(note_id) or NOTES[note_id],
    )
    return tools


@pytest.fixture
def live(llama, monkeypatch):
    for name, value in {
        "LOOPLAB_MODEL": "live",
        "LLM_BASE_URL": llama.url,
        "LLM_API_KEY": KEY,
        "LLM_MODEL": MODEL_NAME,
        "LLM_TIMEOUT": "120",
    }.items():
        monkeypatch.setenv(name, value)
    for name in ("LLM_API", "LLM_MAX_TOKENS"):
        monkeypatch.delenv(name, raising=False)
    return monkeypatch


def run(task: str, ran: list, max_steps: int = 4):
    events, memory = Collector(), Memory("You answer questions about the office notes. Use the tools.")
    result = run_agent(task, live_model(), box(ran), memory, max_steps=max_steps, tracer=events)
    return result, events, memory


@pytest.mark.parametrize("api", ["chat", "prompted", "react", "responses", "sdk"])
def test_each_adapter_runs_the_loop_to_a_stop_on_a_real_model(live, api):
    live.setenv("LLM_API", api)
    ran = []
    result, events, memory = run("Where do visitors park? Read note n1 with read_note, then answer.", ran)
    assert result["stopped"] in STOPS, result
    if result["stopped"] == "error":  # a model too small for the format fails with a sentence, never a crash
        assert result["detail"].startswith("the model call failed: ") and "Traceback" not in result["detail"]
    calls = [c["id"] for m in memory.history for c in m.get("tool_calls") or []]
    answered = [m["tool_call_id"] for m in memory.history if m["role"] == "tool"]
    assert sorted(calls) == sorted(answered)  # every call has exactly one answer
    assert len(ran) == len(events.of("tool_result")) - sum(not e["ok"] for e in events.of("tool_result"))
    assert KEY not in json.dumps(events.events, default=str) and KEY not in json.dumps(result)
    print(
        f"\n{api}: stopped {result['stopped']} after {result['steps']} steps, tools run: {ran}; "
        f"answer {str(result['answer'])[:120]!r}; detail {result.get('detail', '')[:200]!r}"
    )


@pytest.mark.parametrize("api, field", [("chat", "max_tokens"), ("sdk", "max_tokens"), ("prompted", "max_tokens")])
def test_the_real_server_cuts_a_reply_at_LLM_MAX_TOKENS_and_the_trace_says_so(live, api, field):
    live.setenv("LLM_API", api)
    live.setenv("LLM_MAX_TOKENS", "6")
    model = live_model()
    events = Collector()
    result = run_agent(
        "Write a long story about a dragon who learns to cook, with many chapters.",
        model,
        Toolbox(),
        Memory("You are a storyteller."),
        tracer=events,
    )
    replies = events.of("model_reply")
    if api == "prompted":  # the cut JSON action is an error naming the limit, not a repair loop
        assert result["stopped"] in ("final", "error")
        assert (
            result["stopped"] == "final"
            or "LLM_MAX_TOKENS" in result["detail"]
            or "JSON action format" in result["detail"]
        )
    else:
        assert result["stopped"] == "final" and replies[0]["cut"] == "length"
        assert 0 < len(result["answer"]) < 80  # six tokens of story, not a chapter


def test_the_server_requires_the_key_and_allows_the_page_origin(llama):
    body = json.dumps(
        {"model": MODEL_NAME, "messages": [{"role": "user", "content": "Say OK."}], "max_tokens": 4}
    ).encode()
    origin = "http://127.0.0.1:8123"

    def post(key):
        request = urllib.request.Request(
            llama.url + "/chat/completions",
            data=body,
            method="POST",
            headers={
                "Content-Type": "application/json",
                "Origin": origin,
                **({"Authorization": f"Bearer {key}"} if key else {}),
            },
        )
        try:
            with urllib.request.urlopen(request, timeout=60) as reply:
                return reply.status, dict(reply.headers), json.loads(reply.read())
        except urllib.error.HTTPError as error:
            return error.code, dict(error.headers), None

    status, headers, data = post(KEY)
    assert status == 200 and data["choices"][0]["finish_reason"] in ("stop", "length")
    assert data["usage"]["completion_tokens"] <= 4
    assert headers.get("Access-Control-Allow-Origin") in ("*", origin)
    assert post(None)[0] == 401 and post("sk-wrong-key-000000000000")[0] == 401
    preflight = urllib.request.Request(
        llama.url + "/chat/completions",
        method="OPTIONS",
        headers={
            "Origin": origin,
            "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": "authorization, content-type",
        },
    )
    with urllib.request.urlopen(preflight, timeout=10) as reply:
        allowed = {k.lower(): v for k, v in reply.headers.items()}
    assert reply.status == 200 and allowed["access-control-allow-origin"] in ("*", origin)
    assert "POST" in allowed["access-control-allow-methods"]
