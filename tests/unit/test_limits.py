"""Bounded replies without a network: the token limit on every request, and what a reply cut by it becomes.

The transport is faked (looplab.http.request), so these run in CPython and inside Pyodide alike;
tests/live/test_limits_live.py runs the same over HTTP against the fake server, for every adapter.
"""

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from looplab import Memory, Toolbox, run_agent
from looplab import http
from looplab.models.chat import chat_model, read_chat_reply
from looplab.models.endpoint import Endpoint
from looplab.models.errors import ModelError
from looplab.models.limits import DEFAULT_MAX_TOKENS, check_cut, limit_of, use_completion_tokens
from looplab.models.prompted import prompted
from looplab.models.responses import read_output, responses_model
from looplab.trace import Collector, describe


def box() -> Toolbox:
    tools = Toolbox()
    tools.register(
        "search_notes",
        "Search the notes.",
        {"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]},
        lambda query: f"found {query}",
    )
    return tools


def completion(message: dict, finish: str) -> str:
    return json.dumps({"choices": [{"index": 0, "message": message, "finish_reason": finish}]})


def call(arguments: str) -> dict:
    return {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {"id": "call_1", "type": "function", "function": {"name": "search_notes", "arguments": arguments}}
        ],
    }


def served(monkeypatch, *texts: str) -> list[dict]:
    """Make looplab.http answer each request with the next text (status 200); returns the sent bodies."""
    sent, answers = [], list(texts)

    def request(method, url, data, headers, timeout):
        sent.append(json.loads(data))
        return 200, {}, answers.pop(0)

    monkeypatch.setattr(http, "request", request)
    return sent


def api() -> Endpoint:
    return Endpoint("http://x.test/v1", model="m", sleep=lambda s: None)


def test_the_limit_goes_in_every_chat_request_and_a_cut_reply_is_marked(monkeypatch):
    sent = served(monkeypatch, completion({"role": "assistant", "content": "a long story, and th"}, "length"))
    got = chat_model(api(), max_tokens=64)([{"role": "user", "content": "tell me"}], [])
    assert sent[0]["max_tokens"] == 64
    assert got == {"role": "assistant", "content": "a long story, and th", "cut": "length"}
    assert (
        read_chat_reply(json.loads(completion({"role": "assistant", "content": "x"}, "content_filter")))["cut"]
        == "content_filter"
    )
    assert "cut" not in read_chat_reply(json.loads(completion({"role": "assistant", "content": "x"}, "stop")))


def test_a_tool_call_broken_by_the_limit_is_an_error_naming_the_limit(monkeypatch):
    served(monkeypatch, completion(call('{"query": "parki'), "length"))
    with pytest.raises(ModelError) as caught:
        chat_model(api(), max_tokens=32)([{"role": "user", "content": "find parking"}], box().schemas())
    assert caught.value.kind == "length"
    assert "max_tokens=32" in str(caught.value) and "LLM_MAX_TOKENS" in str(caught.value)
    assert "'search_notes'" in str(caught.value)


def test_a_whole_tool_call_in_a_cut_reply_still_runs(monkeypatch):
    served(
        monkeypatch,
        completion(call('{"query": "parking"}'), "length"),
        completion({"role": "assistant", "content": "done"}, "stop"),
    )
    events = Collector()
    result = run_agent("find parking", chat_model(api(), max_tokens=32), box(), Memory("Be brief."), tracer=events)
    assert result["stopped"] == "final" and result["tool_calls"] == 1
    assert [e.get("cut") for e in events.of("model_reply")] == ["length", None]
    assert events.of("tool_result")[0]["result"] == "found parking"


def test_the_loop_stops_with_a_clear_error_not_an_invalid_json_tool_result(monkeypatch):
    served(monkeypatch, completion(call('{"query": '), "length"))
    events = Collector()
    result = run_agent("find parking", chat_model(api(), max_tokens=16), box(), Memory("Be brief."), tracer=events)
    assert result["stopped"] == "error" and result["tool_calls"] == 0
    assert "cut at the token limit (max_tokens=16)" in result["detail"] and "LLM_MAX_TOKENS" in result["detail"]
    assert events.of("tool_result") == [] and events.types()[-1] == "stop"


def test_a_reply_cut_before_any_text_says_so(monkeypatch):
    served(monkeypatch, completion({"role": "assistant", "content": "", "reasoning_content": "hmm, let me"}, "length"))
    with pytest.raises(ModelError, match=r"cut at the token limit \(max_tokens=8\) before it wrote anything"):
        chat_model(api(), max_tokens=8)([{"role": "user", "content": "x"}], [])


def test_the_trace_line_says_the_reply_was_cut():
    line = describe(
        {"type": "model_reply", "step": 2, "ms": 5, "content": "a long st", "tool_calls": 0, "cut": "length"}
    )
    assert line == "step 2 model_reply 5 ms: a long st (cut short by the token limit)"
    assert "cut" not in describe({"type": "model_reply", "step": 1, "ms": 5, "content": "ok", "tool_calls": 0})
    assert "(cut short: content_filter)" in describe({"type": "model_reply", "content": "x", "cut": "content_filter"})


def incomplete(output: list[dict], reason: str | None) -> str:
    return json.dumps(
        {
            "id": "resp_1",
            "object": "response",
            "status": "incomplete" if reason else "completed",
            "incomplete_details": {"reason": reason} if reason else None,
            "output": output,
        }
    )


def test_responses_carry_max_output_tokens_and_read_an_incomplete_reply(monkeypatch):
    text = [
        {
            "type": "message",
            "role": "assistant",
            "status": "incomplete",
            "content": [{"type": "output_text", "text": "a long st"}],
        }
    ]
    sent = served(monkeypatch, incomplete(text, "max_output_tokens"))
    got = responses_model(api(), max_output_tokens=100)([{"role": "user", "content": "x"}], [])
    assert sent[0]["max_output_tokens"] == 100 and "max_tokens" not in sent[0]
    assert got["content"] == "a long st" and got["cut"] == "length"
    assert read_output(json.loads(incomplete(text, "content_filter")))["cut"] == "content_filter"
    assert "cut" not in read_output(json.loads(incomplete(text, None)))


def test_a_responses_call_broken_by_the_limit_names_max_output_tokens(monkeypatch):
    broken = [
        {
            "type": "function_call",
            "call_id": "call_9",
            "name": "search_notes",
            "arguments": '{"query": "pa',
            "status": "incomplete",
        }
    ]
    served(monkeypatch, incomplete(broken, "max_output_tokens"))
    with pytest.raises(ModelError, match=r"max_output_tokens=100\) in the middle of its call to 'search_notes'"):
        responses_model(api(), max_output_tokens=100)([{"role": "user", "content": "x"}], box().schemas())


def test_prompted_json_cut_by_the_limit_is_not_repaired(monkeypatch):
    sent = served(
        monkeypatch,
        completion(
            {
                "role": "assistant",
                "content": '{"type": "tool_call", "name": "search_notes", "arguments": {"query": "par',
            },
            "length",
        ),
    )
    with pytest.raises(ModelError) as caught:
        prompted(chat_model(api(), max_tokens=24))([{"role": "user", "content": "x"}], box().schemas())
    assert len(sent) == 1 and sent[0]["max_tokens"] == 24 and "tools" not in sent[0]  # no repair round
    assert "max_tokens=24" in str(caught.value) and "JSON action was complete" in str(caught.value)


def test_prompted_keeps_a_whole_action_from_a_cut_reply_and_marks_it(monkeypatch):
    served(
        monkeypatch,
        completion({"role": "assistant", "content": '{"type": "final_answer", "answer": "3"} and then I'}, "length"),
    )
    got = prompted(chat_model(api(), max_tokens=24), react=True)([{"role": "user", "content": "x"}], [])
    assert got["content"] == "3" and got["cut"] == "length"


def test_check_cut_leaves_whole_replies_alone():
    reply = {"role": "assistant", "content": "hi"}
    assert check_cut(reply, 10) is reply and "cut" not in reply
    filtered = {"role": "assistant", "content": "", "cut": "content_filter"}
    assert check_cut(filtered, 10) is filtered  # only the token limit breaks a reply here
    assert DEFAULT_MAX_TOKENS == 512


ARGUMENTS = st.dictionaries(
    st.text(min_size=1, max_size=8),
    st.one_of(st.text(max_size=20), st.integers(), st.booleans()),
    min_size=1,
    max_size=4,
)


@given(ARGUMENTS, st.data())
def test_a_cut_never_reaches_a_tool_as_broken_arguments(arguments, data):
    """Wherever the limit cuts a call's arguments, the tool never runs on them: whole ones run, broken ones stop the run."""
    text = json.dumps(arguments)
    cut_at = data.draw(st.integers(0, len(text)))
    reply = completion(call(text[:cut_at]), "length")
    answers = [reply, completion({"role": "assistant", "content": "done"}, "stop")]
    saved = http.request
    http.request = lambda *a: (200, {}, answers.pop(0))
    try:
        seen = []
        tools = Toolbox()
        tools.register(
            "search_notes",
            "Search.",
            {"type": "object", "additionalProperties": True},
            lambda **kw: seen.append(kw) or "ok",
        )
        result = run_agent("go", chat_model(api(), max_tokens=5), tools, Memory("s"))
    finally:
        http.request = saved
    whole = cut_at == len(text)
    assert result["stopped"] == ("final" if whole else "error")
    assert seen == ([arguments] if whole else [])
    assert whole or "LLM_MAX_TOKENS" in result["detail"]


def test_the_limit_is_renamed_only_for_a_400_that_asks_for_max_completion_tokens():
    asks = ModelError("400 from x: the request was refused: Use 'max_completion_tokens' instead.", status=400)
    options = {"max_tokens": 300, "temperature": 0}
    assert use_completion_tokens(asks, options) is True
    assert options == {"max_completion_tokens": 300, "temperature": 0} and limit_of(options) == 300
    assert use_completion_tokens(asks, options) is False  # nothing left to rename
    other = {"max_tokens": 300}
    assert use_completion_tokens(ModelError("400: string too long", status=400), other) is False
    assert use_completion_tokens(ModelError("max_completion_tokens", status=429), other) is False
    assert other == {"max_tokens": 300}


def test_a_cut_reply_with_no_json_begun_is_repaired_as_a_format_problem(monkeypatch):
    sent = served(
        monkeypatch,
        completion({"role": "assistant", "content": "Read note n1:\n\nNote n2:\n\nNote"}, "length"),
        completion({"role": "assistant", "content": '{"type": "final_answer", "answer": "Lot B"}'}, "stop"),
    )
    got = prompted(chat_model(api(), max_tokens=24))([{"role": "user", "content": "x"}], box().schemas())
    assert got == {"role": "assistant", "content": "Lot B"} and len(sent) == 2
    assert "Your last reply could not be used: the reply had no JSON object" in sent[1]["messages"][-1]["content"]
