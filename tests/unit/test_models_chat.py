"""The lean chat adapter without a network: wire payloads, reply reading, and Endpoint retries (transport faked)."""

import pytest

from looplab import Memory, Toolbox, run_agent
from looplab import http
from looplab.models.chat import chat_model, chat_payload, read_chat_reply, wire_message
from looplab.models.endpoint import Endpoint
from looplab.models.errors import ModelError
from looplab.trace import Collector

CALL = {"id": "call_abc", "type": "function", "function": {"name": "add", "arguments": '{"a": 1, "b": 2}'}}


def test_wire_messages_keep_only_accepted_fields():
    memory = [
        {"role": "system", "content": "Be brief.", "tokens": 7},
        {"role": "user", "content": "hi", "tokens": 3},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [CALL],
            "thought": "add them",
            "tokens": 9,
            "_responses_output": [{"type": "reasoning"}],
        },
        {"role": "tool", "tool_call_id": "call_abc", "content": "3", "name": "add", "tokens": 2},
    ]
    sent = [wire_message(m) for m in memory]
    assert sent == [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": None, "tool_calls": [CALL]},
        {"role": "tool", "content": "3", "tool_call_id": "call_abc"},
    ]
    assert memory[2]["tokens"] == 9  # memory itself untouched


def test_dict_arguments_become_json_text_and_ids_stay():
    call = {"id": "c-9", "function": {"name": "add", "arguments": {"a": 1}}}
    assert wire_message({"role": "assistant", "tool_calls": [call]})["tool_calls"] == [
        {"id": "c-9", "type": "function", "function": {"name": "add", "arguments": '{"a": 1}'}}
    ]


def test_payload_leaves_out_empty_tools():
    assert "tools" not in chat_payload("m", [{"role": "user", "content": "x"}], [])
    tools = [{"type": "function", "function": {"name": "add", "parameters": {"type": "object"}}}]
    assert chat_payload("m", [], tools, temperature=0)["tools"] == tools
    assert chat_payload("m", [], tools, temperature=0)["temperature"] == 0


def reply(message, finish="stop"):
    return {"choices": [{"index": 0, "message": message, "finish_reason": finish}]}


def test_tool_calls_are_used_whatever_finish_reason_says():
    got = read_chat_reply(reply({"role": "assistant", "content": "", "tool_calls": [CALL]}, "stop"))
    assert got["tool_calls"] == [CALL]
    assert read_chat_reply(reply({"role": "assistant", "content": "hi"}, "tool_calls")) == {
        "role": "assistant",
        "content": "hi",
    }
    assert read_chat_reply(reply({"role": "assistant", "content": "4", "reasoning_content": "2+2"}))["thought"] == "2+2"
    assert "refused" in read_chat_reply(reply({"role": "assistant", "content": None, "refusal": "no"}))["content"]
    with pytest.raises(ModelError, match="no choices"):
        read_chat_reply({"object": "list"})


class FakeTransport:
    """Stands in for looplab.http.request: hands out prepared (status, headers, text) or raises."""

    def __init__(self, *answers):
        self.answers, self.sent = list(answers), []

    def __call__(self, method, url, data, headers, timeout):
        self.sent.append({"method": method, "url": url, "data": data, "headers": headers})
        answer = self.answers.pop(0)
        if isinstance(answer, Exception):
            raise answer
        return answer


OK = (200, {}, '{"choices": [{"message": {"role": "assistant", "content": "fine"}}]}')


def endpoint(monkeypatch, *answers, **kw):
    transport = FakeTransport(*answers)
    monkeypatch.setattr(http, "request", transport)
    waits = []
    return (
        Endpoint(
            "http://x.test/v1/",
            api_key="sk-unit-0123456789abcdef",
            model="m",
            sleep=waits.append,
            rand=lambda: 0.5,
            **kw,
        ),
        transport,
        waits,
    )


def test_retries_then_succeeds(monkeypatch):
    api, transport, waits = endpoint(
        monkeypatch, (429, {"retry-after": "2"}, "{}"), http.NetworkError("dropped", "u"), OK
    )
    assert chat_model(api)([{"role": "user", "content": "x"}], []) == {"role": "assistant", "content": "fine"}
    assert waits == [2.0, 0.75] and len(transport.sent) == 3
    assert transport.sent[0]["url"] == "http://x.test/v1/chat/completions"
    assert transport.sent[0]["headers"]["Authorization"] == "Bearer sk-unit-0123456789abcdef"


@pytest.mark.parametrize("status", [400, 401, 403, 404, 422])
def test_no_retry_on_client_errors(monkeypatch, status):
    api, transport, waits = endpoint(monkeypatch, (status, {}, '{"error": {"message": "no"}}'), OK)
    with pytest.raises(ModelError) as caught:
        chat_model(api)([{"role": "user", "content": "x"}], [])
    assert caught.value.status == status and len(transport.sent) == 1 and waits == []


def test_gives_up_after_the_last_attempt(monkeypatch):
    api, transport, waits = endpoint(monkeypatch, *[(503, {}, "busy")] * 3)
    with pytest.raises(ModelError, match=r"503 from http://x.test/v1: the server failed \(tried 3 times\)"):
        chat_model(api)([{"role": "user", "content": "x"}], [])
    assert len(transport.sent) == 3 and len(waits) == 2


def test_a_long_retry_after_is_not_waited_for(monkeypatch):
    api, transport, waits = endpoint(monkeypatch, (429, {"retry-after": "3600"}, "{}"), OK)
    with pytest.raises(ModelError, match="asks to wait 3600 s"):
        chat_model(api)([{"role": "user", "content": "x"}], [])
    assert waits == [] and len(transport.sent) == 1


def test_a_failed_model_call_stops_the_loop_with_the_sentence_and_no_key(monkeypatch):
    api, _, _ = endpoint(monkeypatch, (401, {}, '{"error": {"message": "key sk-unit-0123456789abcdef is wrong"}}'))
    events = Collector()
    result = run_agent("hi", chat_model(api), Toolbox(), Memory("Be brief."), tracer=events)
    assert result["stopped"] == "error"
    assert (
        result["detail"]
        == "the model call failed: 401 from http://x.test/v1: the API key was refused — check it in Settings"
    )
    assert "0123456789abcdef" not in repr(events.events)
