"""Streamed replies without a network: SSE split anywhere, chunks assembled into the unstreamed reply, faults.

The streams here are built by this file's own encoder (not the fake server's), with hypothesis
choosing the replies, how text and arguments are cut into deltas, how parallel calls' pieces
interleave, and where the bytes are split — inside lines, events and multibyte characters.
"""

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from looplab import Memory, Toolbox, http, run_agent
from looplab.models import stream as streams
from looplab.models.chat import chat_model, read_chat_reply
from looplab.models.endpoint import Endpoint
from looplab.models.errors import ModelError
from looplab.models.responses import read_output, responses_model
from looplab.models.responses_stream import ResponsesStream
from looplab.models.stream import ChatStream, streams_by_default
from looplab.sse import SSEParser
from looplab.trace import Collector, describe

TEXT = st.text(alphabet=st.sampled_from('ab é€😀\n"\\{}:,\u2028'), max_size=30)
URL = "http://127.0.0.1:9/v1"


def split_at(data: bytes, cuts: list[int]) -> list[bytes]:
    """Bytes cut at the given offsets (any offset: inside a UTF-8 character too)."""
    points = sorted({c % (len(data) + 1) for c in cuts})
    return [data[a:b] for a, b in zip([0, *points], [*points, len(data)])]


def cut_text(text: str, sizes: list[int]) -> list[str]:
    """A text in pieces whose sizes come from `sizes` (cycled; 0 makes an empty piece)."""
    out, i, k = [], 0, 0
    sizes = sizes if any(sizes) else [len(text) or 1]
    while i < len(text):
        size = sizes[k % len(sizes)] if sizes else len(text)
        out.append(text[i : i + size])
        i, k = i + size, k + 1
    return out


def sse(data) -> str:
    return "data: " + (data if isinstance(data, str) else json.dumps(data, ensure_ascii=False)) + "\n\n"


# -- the SSE parser ---------------------------------------------------------------------------


@given(
    st.lists(st.tuples(st.sampled_from(["", "x", "response.completed"]), TEXT), max_size=6),
    st.sampled_from(["\n", "\r\n", "\r"]),
    st.lists(st.integers(0, 400), max_size=12),
)
def test_events_are_the_same_however_the_bytes_are_split(events, newline, cuts):
    body = "".join(
        (f"event: {name}{newline}" if name else "")
        + ": a comment"
        + newline
        + "".join(f"data: {line}{newline}" for line in text.split("\n"))
        + newline
        for name, text in events
    ).encode()
    parser = SSEParser()
    got = [e for piece in split_at(body, cuts) for e in parser.feed(piece)]
    assert [(e.event, e.data) for e in got] == [(name or "message", text) for name, text in events]
    assert parser.close() == ""


def test_an_event_left_half_sent_is_what_close_returns():
    parser = SSEParser()
    assert [e.data for e in parser.feed(b'data: {"a": 1}\n\ndata: {"b"')] == ['{"a": 1}']
    assert parser.close() == '{"b"' and parser.close() == ""


# -- chat completions -------------------------------------------------------------------------

CALLS = st.lists(
    st.tuples(
        st.sampled_from(["add", "upper", "remember"]),
        st.dictionaries(st.sampled_from(["a", "text", "ключ"]), st.one_of(TEXT, st.integers()), max_size=3),
    ),
    max_size=3,
)


def whole_reply(text, calls, finish, refusal=None) -> dict:
    """An unstreamed chat.completion."""
    tool_calls = [
        {
            "id": f"call_{i}",
            "type": "function",
            "function": {"name": name, "arguments": json.dumps(args, ensure_ascii=False)},
        }
        for i, (name, args) in enumerate(calls)
    ]
    message = {"role": "assistant", "content": text if text or not tool_calls else None}
    if tool_calls:
        message["tool_calls"] = tool_calls
    if refusal:
        message["refusal"] = refusal
    return {
        "id": "c",
        "object": "chat.completion",
        "created": 1,
        "model": "m",
        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
        "usage": {"prompt_tokens": 3, "completion_tokens": 4, "total_tokens": 7},
    }


def chat_stream(whole: dict, sizes: list[int], order: list[int]) -> str:
    """The SSE body a server could send for `whole`: pieces of `sizes`, calls' pieces in `order`, usage last."""
    message, finish = whole["choices"][0]["message"], whole["choices"][0]["finish_reason"]
    head = {"id": "c", "object": "chat.completion.chunk", "created": 1, "model": "m"}

    def chunk(delta, finish_reason=None):
        return sse({**head, "choices": [{"index": 0, "delta": delta, "finish_reason": finish_reason}]})

    out = [chunk({"role": "assistant", "content": "" if message["content"] is not None else None})]
    out += [chunk({"content": piece}) for piece in cut_text(message["content"] or "", sizes)]
    if message.get("refusal"):
        out += [chunk({"refusal": piece}) for piece in cut_text(message["refusal"], sizes)]
    pending = []
    for index, call in enumerate(message.get("tool_calls", [])):
        pieces = cut_text(call["function"]["arguments"], sizes) or [""]
        first = {
            "index": index,
            "id": call["id"],
            "type": "function",
            "function": {"name": call["function"]["name"], "arguments": pieces[0]},
        }
        pending.append([first] + [{"index": index, "function": {"arguments": p}} for p in pieces[1:]])
    k = 0
    while any(pending):  # the calls' pieces interleave in the order hypothesis chose; each call's stay in order
        queue = (
            [q for q in pending if q][order[k % len(order)] % len([q for q in pending if q])]
            if order
            else next(q for q in pending if q)
        )
        out.append(chunk({"tool_calls": [queue.pop(0)]}))
        out.append(chunk({})) if k % 3 == 1 else None  # empty deltas now and then
        k += 1
    out.append(chunk({}, finish))
    out.append(sse({**head, "choices": [], "usage": whole["usage"]}))  # the usage-only last chunk
    return "".join(out) + sse("[DONE]")


def assembled(body: bytes, cuts: list[int], on_delta=None) -> tuple[dict, ChatStream]:
    reader = ChatStream(URL, on_delta)
    for piece in split_at(body, cuts):
        reader.feed(piece)
    return reader.finish(), reader


@settings(max_examples=600)
@given(
    TEXT,
    CALLS,
    st.sampled_from(["stop", "tool_calls", "length"]),
    st.one_of(st.none(), TEXT),
    st.lists(st.integers(0, 5), min_size=1, max_size=4),
    st.lists(st.integers(0, 3), max_size=6),
    st.lists(st.integers(0, 3000), max_size=20),
)
def test_a_streamed_chat_reply_assembles_into_the_unstreamed_one(text, calls, finish, refusal, sizes, order, cuts):
    whole = whole_reply(text, calls, finish, refusal)
    shown = []
    data, reader = assembled(chat_stream(whole, sizes, order).encode(), cuts, shown.append)
    assert read_chat_reply(data) == read_chat_reply(whole)
    assert data["usage"] == whole["usage"] and data["choices"][0]["finish_reason"] == finish
    assert "".join(shown) == (text or "")  # the text was shown as it came, all of it
    assert reader.stats()["chunks"] == chat_stream(whole, sizes, order).count("data: ") - 1  # all but [DONE]


def test_parallel_calls_whose_pieces_interleave_keep_their_ids_and_arguments():
    whole = whole_reply("", [("add", {"a": 1, "b": 2}), ("upper", {"text": "crème brûlée"})], "tool_calls")
    body = chat_stream(whole, [2], [1, 0, 1, 1, 0]).encode()
    data, _ = assembled(body, list(range(0, len(body), 5)))  # every 5 bytes: inside "è" and "û"
    calls = read_chat_reply(data)["tool_calls"]
    assert [c["id"] for c in calls] == ["call_0", "call_1"]
    assert [json.loads(c["function"]["arguments"]) for c in calls] == [{"a": 1, "b": 2}, {"text": "crème brûlée"}]


FAULTS = {
    "cut mid-event": ('data: {"choices": [{"index": 0, "delta": {"content": "hel', "in the middle of an event"),
    "no [DONE]": (sse({"choices": [{"index": 0, "delta": {"content": "hello"}}]}), "before it said it was done"),
    "not JSON": ("data: {oops\n\n", "a data: line was not JSON (it began '{oops')"),
    "error event": (
        sse({"error": {"message": "overloaded", "type": "server_error"}}),
        "the server sent an error in the middle of it: overloaded",
    ),
    "unfinished call": (
        sse(
            {
                "choices": [
                    {
                        "index": 0,
                        "delta": {
                            "tool_calls": [
                                {
                                    "index": 0,
                                    "id": "c1",
                                    "type": "function",
                                    "function": {"name": "add", "arguments": '{"a": 1'},
                                }
                            ]
                        },
                    }
                ]
            }
        )
        + sse("[DONE]"),
        "the model's call to 'add' never completed (its arguments stop at '{\"a\": 1')",
    ),
}


@pytest.mark.parametrize("fault", FAULTS)
def test_each_broken_stream_is_one_sentence(fault):
    body, words = FAULTS[fault]
    reader = ChatStream(URL)
    with pytest.raises(ModelError) as caught:
        reader.feed(body.encode())
        reader.finish()
    message = str(caught.value)
    assert words in message and message.startswith(f"the streamed reply from {URL} broke:")
    assert caught.value.kind == "stream" and "\n" not in message and "LLM_STREAM=0" in message


# -- the Responses API ----------------------------------------------------------------------------


def whole_response(text, calls) -> dict:
    output = [{"type": "reasoning", "id": "rs", "summary": [{"type": "summary_text", "text": "think"}]}]
    if text:
        output.append(
            {
                "type": "message",
                "id": "m",
                "status": "completed",
                "role": "assistant",
                "content": [{"type": "output_text", "text": text, "annotations": []}],
            }
        )
    output += [
        {
            "type": "function_call",
            "id": f"fc{i}",
            "call_id": f"call_{i}",
            "name": name,
            "arguments": json.dumps(args, ensure_ascii=False),
            "status": "completed",
        }
        for i, (name, args) in enumerate(calls)
    ]
    return {
        "id": "r",
        "object": "response",
        "status": "completed",
        "output": output,
        "usage": {"input_tokens": 3, "output_tokens": 4, "total_tokens": 7},
    }


def responses_body(whole: dict, sizes: list[int], with_done: bool) -> str:
    """The events of a Responses stream; `with_done` False leaves out output_item.done (built from deltas)."""

    def event(data):
        return f"event: {data['type']}\n" + sse(data)

    out = [event({"type": "response.created", "response": {**whole, "status": "in_progress", "output": []}})]
    for i, item in enumerate(whole["output"]):
        started = (
            {**item, "content": []}
            if item["type"] == "message"
            else {**item, "arguments": ""}
            if item["type"] == "function_call"
            else item
        )
        out.append(event({"type": "response.output_item.added", "output_index": i, "item": started}))
        if item["type"] == "message":
            out += [
                event({"type": "response.output_text.delta", "output_index": i, "content_index": 0, "delta": p})
                for p in cut_text(item["content"][0]["text"], sizes)
            ]
        if item["type"] == "function_call":
            out += [
                event({"type": "response.function_call_arguments.delta", "output_index": i, "delta": p})
                for p in cut_text(item["arguments"], sizes)
            ]
        if with_done or item["type"] == "reasoning":
            out.append(event({"type": "response.output_item.done", "output_index": i, "item": item}))
    out.append(event({"type": "response.completed", "response": whole}))
    return "".join(out)


@settings(max_examples=400)
@given(
    TEXT,
    CALLS,
    st.lists(st.integers(0, 5), min_size=1, max_size=4),
    st.booleans(),
    st.lists(st.integers(0, 3000), max_size=20),
)
def test_a_streamed_responses_reply_assembles_into_the_unstreamed_one(text, calls, sizes, with_done, cuts):
    whole = whole_response(text, calls)
    shown = []
    reader = ResponsesStream(URL, shown.append)
    for piece in split_at(responses_body(whole, sizes, with_done).encode(), cuts):
        reader.feed(piece)
    assert read_output(reader.finish()) == read_output(whole)
    assert "".join(shown) == text


@pytest.mark.parametrize(
    "body, words",
    [
        (
            'event: error\ndata: {"type": "error", "code": "server_error", "message": "boom"}\n\n',
            "the server sent an error in the middle of it: boom",
        ),
        (
            (
                'event: response.output_item.added\ndata: {"type": "response.output_item.added", "output_index": 0, '
                '"item": {"type": "function_call", "name": "add", "call_id": "c", "arguments": ""}}\n\n'
                'data: {"type": "response.function_call_arguments.delta", "output_index": 0, "delta": "{\\"a"}\n\n'
            ),
            "before response.completed, after 2 events; the model's call to 'add' never completed",
        ),
        ("data: [1, 2]\n\n", "a data: line was JSON but not an object"),
    ],
)
def test_a_broken_responses_stream_is_one_sentence(body, words):
    reader = ResponsesStream(URL)
    with pytest.raises(ModelError, match="broke") as caught:
        reader.feed(body.encode())
        reader.finish()
    assert words in str(caught.value) and caught.value.kind == "stream"


# -- through the adapters, with the transport fed piece by piece ----------------------------------


def serve_pieces(monkeypatch, pieces: list[bytes], seen: list, content_type="text/event-stream"):
    def open_stream(method, url, data, headers, timeout):
        seen.append(json.loads(data))
        return 200, {"content-type": content_type}, iter(pieces)

    monkeypatch.setattr(http, "open_stream", open_stream)


def test_chat_model_streams_asks_for_usage_and_the_loop_traces_one_reply(monkeypatch):
    whole = whole_reply("Paris, 🇫🇷.", [], "stop")
    body, seen, shown = chat_stream(whole, [1], []).encode(), [], []
    serve_pieces(monkeypatch, [body[i : i + 3] for i in range(0, len(body), 3)], seen)
    stop = streams.listen(shown.append)
    try:
        events = Collector()
        result = run_agent(
            "capital?", chat_model(Endpoint(URL, model="m"), stream=True), Toolbox(), Memory("s"), tracer=events
        )
    finally:
        stop()
    assert result["answer"] == "Paris, 🇫🇷." and "".join(shown) == "Paris, 🇫🇷."
    assert seen[0]["stream"] is True and seen[0]["stream_options"] == {"include_usage": True}
    [reply] = events.of("model_reply")
    assert reply["stream"]["chunks"] == body.count(b"data: ") - 1 and reply["stream"]["first_token_ms"] >= 0
    assert "stream" not in reply["message"] and reply["usage"]["total"] == 7
    assert f"· {reply['stream']['chunks']} chunks, first after " in describe(reply)  # the CLI's --trace line


def test_a_server_that_answers_whole_is_read_whole(monkeypatch):
    seen = []
    serve_pieces(monkeypatch, [json.dumps(whole_reply("hi", [], "stop")).encode()], seen, "application/json")
    reply = chat_model(Endpoint(URL, model="m"), stream=True)([{"role": "user", "content": "x"}])
    assert reply["content"] == "hi" and "stream" not in reply and seen[0]["stream"] is True


def test_responses_model_streams(monkeypatch):
    whole, seen = whole_response("ok", [("add", {"a": 1})]), []
    serve_pieces(monkeypatch, [responses_body(whole, [2], True).encode()], seen)
    reply = responses_model(Endpoint(URL, model="m"), stream=True)([{"role": "user", "content": "x"}])
    assert reply["content"] == "ok" and reply["tool_calls"][0]["id"] == "call_0" and seen[0]["stream"] is True
    assert reply["stream"]["chunks"] == responses_body(whole, [2], True).count("data: ") == 13


@pytest.mark.parametrize(
    "value, on", [(None, True), ("", True), ("1", True), ("0", False), ("off", False), ("false", False), ("yes", True)]
)
def test_llm_stream_is_on_unless_turned_off(value, on):
    assert streams_by_default(value) is on
