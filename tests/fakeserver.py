"""A local OpenAI-compatible server for tests: scripted replies and faults, every request recorded.

Standard library only; listens on 127.0.0.1 and never calls out. Serves, under /v1:
    POST /v1/chat/completions   POST /v1/responses   POST /v1/embeddings   GET /v1/models

In pytest (fixture `fake` in tests/live/conftest.py):

    fake.script(chat_text("hi"), error(429, headers={"Retry-After": "1"}), chat_call("add", {"a": 1}))
    fake.script(responses_text("ok"), path="/v1/responses")   # a queue for one path only
    ... run the adapter against fake.url ("http://127.0.0.1:<port>/v1") ...
    fake.requests              # every request: Recorded(method, path, headers, body, text)
    fake.posts("/v1/chat/completions")[0].body["messages"]

Standalone, for browser tests (`python tests/fakeserver.py --port 8101 [--key K] [--no-cors]
[--models a,b]`), the same is driven over HTTP by control endpoints (they answer with CORS too):
    POST /_script    {"replies": [<reply>, ...], "path": "/v1/chat/completions"?}  queue replies
    POST /_config    {"cors": false, "key": "...", "models": ["m"]}                 change settings
    POST /_reset     clear queues and recorded requests (settings stay)
    GET  /_requests  the recorded requests as JSON [{"method", "path", "headers", "body"}, ...]

A <reply> is a JSON object; every key is optional:
    status    HTTP status (default 200)
    json      the body, sent as JSON          body     the body as raw text (e.g. not JSON)
    headers   extra response headers          delay    seconds to wait before answering
    truncate  send only this many bytes of the body (Content-Length still says the full size), then close
    drop      true: close the connection without any answer
    cors      false: leave out the CORS headers on this reply
    stream    false: answer whole even when the request asks for a stream; an object: how to stream
              this reply (the keys of the server's `streaming` setting below, and `fault`)
    refuse_stream  true: answer a request that asks for a stream with a 400 that says streaming is
              not supported (as some compatible servers do); a request without `stream` gets the reply
Helpers build them: chat_text, chat_call, chat_calls, responses_text, responses_call, error.

Streaming. A request with `"stream": true` gets any 200 chat completion or Responses reply as
server-sent events (chunked, `text/event-stream`), exactly as the real APIs send them: chat
chunks (the role first, text and tool-call `arguments` in pieces, the pieces of parallel calls
interleaved, an empty delta, `finish_reason`, a usage-only chunk when `stream_options.include_usage`,
then `data: [DONE]`); Responses events (`response.created`, `output_item.added`,
`output_text.delta`, `function_call_arguments.delta`, `output_item.done`, `response.completed`).
The server's `streaming` setting (FakeServer(streaming=...), or /_config {"streaming": {...}}) and
a reply's `stream` object say how:
    split        characters of text or arguments a delta carries (default 3)
    chunk_bytes  bytes a network write carries (default 0: one write an event); 7 splits inside
                 lines, events and multibyte UTF-8 characters
    chunk_delay  seconds between writes (default 0)
    fault        cut (the body ends in the middle of an event), hangup (the connection closes
                 mid-body), not_json (a data: line that is not JSON), error (an error event),
                 stall (stop sending for `stall` seconds, default 5), unfinished_call (the body ends
                 in the middle of a tool call's arguments)

With nothing queued, a default reply follows a simple rule, so a live smoke test needs no script:
    - a request whose last message is a tool result answers "result: <that result>"
    - a last user message "call <tool> {json args}" asks for that tool (the id is call_fake_<n>)
    - anything else answers "echo: <last user message>"
    - asked for a structured output (chat's `response_format`, Responses' `text.format`), the text
      answer is JSON instead: for `json_schema`, an instance of the schema (every property, strings
      holding the rule's text, the first enum value, one item per array); for `json_object`,
      {"echo": "<the rule's text>"}. It refuses, with OpenAI's 400, what the API refuses: JSON mode
      when no message says "json", a strict schema with an object that is not closed
      (`additionalProperties: false`) or a property that is not required.
    - its `usage` grows with the request: prompt tokens ~ the request's characters / 4,
      completion tokens ~ the reply's / 4 (scripted replies carry a fixed 10 / 5 / 15)
    - it obeys the request's token limit (`max_tokens`, `max_completion_tokens` or `max_output_tokens`)
      as a real server does, counting 4 characters a token: a longer text or call's arguments are cut
      there, with `finish_reason: "length"` (chat) or `status: "incomplete"` and
      `incomplete_details.reason: "max_output_tokens"` (Responses). Scripted replies can say the same:
      `chat_text(..., finish_reason="length")`, `chat_call(name, '{"cut', finish_reason="length")`,
      `responses_text(..., cut="max_output_tokens")`, `responses_call(..., cut="max_output_tokens")`.
Embeddings are deterministic 8-number vectors made from the text; /v1/models lists the models.

Settings: `key` (when set, any other bearer token gets OpenAI's 401), `models` (when set, any
other model gets OpenAI's 404 model_not_found), `cors` (default true: Access-Control-Allow-Origin
on every reply and 204 to OPTIONS preflights with the requested headers allowed; false: none).
"""

import argparse
import hashlib
import itertools
import json
import threading
import time
from collections import deque
from dataclasses import asdict, dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


# -- reply helpers --------------------------------------------------------------------------------


def chat_text(text: str, finish_reason: str = "stop", **extra) -> dict:
    """A chat completion whose message is text."""
    return {"json": completion({"role": "assistant", "content": text, **extra}, finish_reason)}


def chat_call(
    name: str, arguments: dict | str, id: str = "call_1", finish_reason: str = "tool_calls", content: str | None = None
) -> dict:
    """A chat completion asking for one tool (`finish_reason` is settable: some servers say "stop")."""
    args = arguments if isinstance(arguments, str) else json.dumps(arguments)
    call = {"id": id, "type": "function", "function": {"name": name, "arguments": args}}
    return {"json": completion({"role": "assistant", "content": content, "tool_calls": [call]}, finish_reason)}


def chat_calls(*calls: tuple[str, dict | str, str], content: str | None = None) -> dict:
    """A chat completion asking for several tools at once: (name, arguments, id) each."""
    tool_calls = [
        {
            "id": id,
            "type": "function",
            "function": {"name": name, "arguments": args if isinstance(args, str) else json.dumps(args)},
        }
        for name, args, id in calls
    ]
    return {"json": completion({"role": "assistant", "content": content, "tool_calls": tool_calls}, "tool_calls")}


def completion(message: dict, finish_reason: str = "stop", model: str = "fake-model") -> dict:
    """A whole chat.completion object around one message."""
    return {
        "id": "chatcmpl-fake",
        "object": "chat.completion",
        "created": 1700000000,
        "model": model,
        "choices": [{"index": 0, "message": message, "finish_reason": finish_reason, "logprobs": None}],
        "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
    }


def responses_text(text: str, reasoning: str | None = None, cut: str | None = None) -> dict:
    """A Responses reply with a text message (after a reasoning item, if given); `cut`: why it is incomplete."""
    items = [reasoning_item(reasoning)] if reasoning else []
    items.append(
        {
            "type": "message",
            "id": "msg_fake",
            "status": "incomplete" if cut else "completed",
            "role": "assistant",
            "content": [{"type": "output_text", "text": text, "annotations": []}],
        }
    )
    return {"json": response_object(items, cut=cut)}


def responses_call(
    name: str, arguments: dict | str, call_id: str = "call_1", reasoning: str | None = None, cut: str | None = None
) -> dict:
    """A Responses reply asking for one function call (after a reasoning item, if given); `cut` as above."""
    items = [reasoning_item(reasoning)] if reasoning else []
    items.append(
        {
            "type": "function_call",
            "id": f"fc_{call_id}",
            "call_id": call_id,
            "name": name,
            "arguments": arguments if isinstance(arguments, str) else json.dumps(arguments),
            "status": "incomplete" if cut else "completed",
        }
    )
    return {"json": response_object(items, cut=cut)}


def reasoning_item(summary: str) -> dict:
    return {
        "type": "reasoning",
        "id": "rs_fake",
        "summary": [{"type": "summary_text", "text": summary}],
        "encrypted_content": "gAAAA-fake-encrypted",
    }


def response_object(output: list[dict], model: str = "fake-model", cut: str | None = None) -> dict:
    """A whole Responses `response` object around its output items (`cut`: the incomplete_details reason)."""
    return {
        "id": "resp_fake",
        "object": "response",
        "created_at": 1700000000,
        "status": "incomplete" if cut else "completed",
        "model": model,
        "output": output,
        "parallel_tool_calls": True,
        "tool_choice": "auto",
        "tools": [],
        "error": None,
        "incomplete_details": {"reason": cut} if cut else None,
        "instructions": None,
        "metadata": {},
        "temperature": 1.0,
        "top_p": 1.0,
        "usage": {
            "input_tokens": 10,
            "output_tokens": 5,
            "total_tokens": 15,
            "input_tokens_details": {"cached_tokens": 0, "cache_write_tokens": 0},
            "output_tokens_details": {"reasoning_tokens": 0},
        },
    }


def error(
    status: int, message: str = "", type: str = "error", code: str | None = None, headers: dict | None = None
) -> dict:
    """An error reply in OpenAI's shape: {"error": {"message", "type", "param", "code"}}."""
    body = {"error": {"message": message or f"fake error {status}", "type": type, "param": None, "code": code}}
    return {"status": status, "json": body, "headers": headers or {}}


# -- streaming ------------------------------------------------------------------------------------


def pieces(text: str, split: int) -> list[str]:
    """A text in pieces of `split` characters."""
    return [text[i : i + split] for i in range(0, len(text), max(1, split))]


def chat_chunks(whole: dict, split: int = 3, usage: bool = True) -> list[dict]:
    """A chat.completion as the chunks a streaming server sends for it (see the module docstring)."""
    head = {
        "id": whole.get("id", "chatcmpl-fake"),
        "object": "chat.completion.chunk",
        "created": whole.get("created", 1700000000),
        "model": whole.get("model", "fake-model"),
    }
    choice = whole["choices"][0]
    message, calls = choice["message"], choice["message"].get("tool_calls") or []

    def chunk(delta: dict, finish=None) -> dict:
        return {**head, "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}]}

    first = {"role": "assistant", "content": message.get("content") if message.get("content") is None else ""}
    out = [chunk(first)]
    out += [chunk({"content": p}) for p in pieces(message.get("content") or "", split)]
    if message.get("refusal"):
        out += [chunk({"refusal": p}) for p in pieces(message["refusal"], split)]
    if message.get("reasoning_content"):
        out.insert(1, chunk({"reasoning_content": message["reasoning_content"]}))
    out.append(chunk({}))  # an empty delta, as servers send
    for index, call in enumerate(calls):  # the first piece of each call: id, type, name
        out.append(
            chunk(
                {
                    "tool_calls": [
                        {
                            "index": index,
                            "id": call["id"],
                            "type": "function",
                            "function": {"name": call["function"]["name"], "arguments": ""},
                        }
                    ]
                }
            )
        )
    queues = [pieces(c["function"]["arguments"], split) for c in calls]
    while any(queues):  # parallel calls' argument pieces interleave
        for index, queue in enumerate(queues):
            if queue:
                out.append(chunk({"tool_calls": [{"index": index, "function": {"arguments": queue.pop(0)}}]}))
    out.append(chunk({}, choice.get("finish_reason") or "stop"))
    if usage and whole.get("usage"):
        out.append({**head, "choices": [], "usage": whole["usage"]})
    return out


def responses_events(response: dict, split: int = 3) -> list[dict]:
    """A Responses `response` as the events a streaming server sends for it."""
    events = [
        {"type": "response.created", "response": {**response, "status": "in_progress", "output": [], "usage": None}}
    ]
    for index, item in enumerate(response.get("output") or []):
        kind = item.get("type")
        started = (
            {**item, "status": "in_progress", "content": []}
            if kind == "message"
            else {**item, "status": "in_progress", "arguments": ""}
            if kind == "function_call"
            else item
        )
        events.append({"type": "response.output_item.added", "output_index": index, "item": started})
        if kind == "message":
            for part_index, part in enumerate(item.get("content") or []):
                where = {"item_id": item.get("id"), "output_index": index, "content_index": part_index}
                delta_type = (
                    "response.output_text.delta" if part.get("type") == "output_text" else "response.refusal.delta"
                )
                text = part.get("text", part.get("refusal", ""))
                events.append(
                    {
                        "type": "response.content_part.added",
                        **where,
                        "part": {**part, **({"text": ""} if "text" in part else {"refusal": ""})},
                    }
                )
                events += [{"type": delta_type, **where, "delta": p} for p in pieces(text, split)]
                events.append({"type": "response.content_part.done", **where, "part": part})
        elif kind == "function_call":
            where = {"item_id": item.get("id"), "output_index": index}
            events += [
                {"type": "response.function_call_arguments.delta", **where, "delta": p}
                for p in pieces(item.get("arguments", ""), split)
            ]
            events.append(
                {"type": "response.function_call_arguments.done", **where, "arguments": item.get("arguments")}
            )
        events.append({"type": "response.output_item.done", "output_index": index, "item": item})
    ending = "response.incomplete" if response.get("status") == "incomplete" else "response.completed"
    events.append({"type": ending, "response": response})
    return [{**e, "sequence_number": n} for n, e in enumerate(events)]


def sse(data: dict | str, event: str | None = None) -> bytes:
    """One server-sent event."""
    text = data if isinstance(data, str) else json.dumps(data, ensure_ascii=False)
    return ((f"event: {event}\n" if event else "") + f"data: {text}\n\n").encode("utf-8")


def stream_bytes(reply_json: dict, request: dict, responses: bool, how: dict) -> tuple[list[bytes], bytes, str | None]:
    """The events of a streamed reply, what follows them, and the fault: (events, tail, fault)."""
    split, fault = int(how.get("split", 3)), how.get("fault")
    if responses:
        events = [sse(e, e["type"]) for e in responses_events(reply_json, split)]
        tail = b""
    else:
        wants_usage = bool((request.get("stream_options") or {}).get("include_usage"))
        events = [sse(c) for c in chat_chunks(reply_json, split, wants_usage)]
        tail = sse("[DONE]")
    middle = max(1, len(events) // 2)
    if fault in ("cut", "hangup"):
        return events[:middle] + [events[middle][: len(events[middle]) // 2]], b"", fault
    if fault == "not_json":
        return events[:middle] + [b'data: {not json, "id": \n\n'] + events[middle:], tail, fault
    if fault == "error":
        error_event = (
            sse(
                {
                    "type": "error",
                    "code": "server_error",
                    "param": None,
                    "sequence_number": middle,
                    "message": "The server had an error while processing your request.",
                },
                "error",
            )
            if responses
            else sse(
                {
                    "error": {
                        "message": "The server had an error while processing your request.",
                        "type": "server_error",
                        "param": None,
                        "code": None,
                    }
                }
            )
        )
        return events[:middle] + [error_event], b"", fault
    if fault == "unfinished_call":
        marker = b"function_call_arguments.delta" if responses else b'"function": {"arguments": '
        args = [i for i, e in enumerate(events) if marker in e]
        stop = args[len(args) // 2] if len(args) > 1 else (args[0] if args else middle)
        return events[: stop + 1], b"", fault
    return events, tail, fault


# -- the server -----------------------------------------------------------------------------------

CHARS_PER_TOKEN = 4  # how the default brain counts tokens against a request's limit


@dataclass
class Recorded:
    """One request as the server saw it; `body` is the decoded JSON (None if there was none)."""

    method: str
    path: str
    headers: dict
    body: object
    text: str


class FakeServer:
    """An OpenAI-compatible server on 127.0.0.1 (port 0: any free port) with scripted replies."""

    def __init__(
        self,
        port: int = 0,
        key: str | None = None,
        models: list[str] | None = None,
        cors: bool = True,
        streaming: dict | None = None,
    ):
        self.key, self.models, self.cors = key, models, cors
        self.streaming = dict(streaming or {})  # how replies stream: split, chunk_bytes, chunk_delay
        self.first_bytes: list[float] = []  # time.time() of each stream's first body write (bench/streaming.py)
        self.queues: dict[str | None, deque] = {}
        self.requests: list[Recorded] = []
        self.lock = threading.Lock()
        self.ids = itertools.count(1)
        self.httpd = QuietServer(("127.0.0.1", port), make_handler(self))
        self.thread = None

    @property
    def port(self) -> int:
        return self.httpd.server_address[1]

    @property
    def url(self) -> str:
        """The base URL an adapter is given: http://127.0.0.1:<port>/v1."""
        return f"http://127.0.0.1:{self.port}/v1"

    def start(self) -> "FakeServer":
        self.thread = threading.Thread(target=self.httpd.serve_forever, args=(0.02,), daemon=True)
        self.thread.start()
        return self

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()

    def script(self, *replies: dict, path: str | None = None) -> None:
        """Queue replies, for one path or (path=None) for any path without its own queue."""
        with self.lock:
            self.queues.setdefault(path, deque()).extend(replies)

    def reset(self) -> None:
        """Forget queued replies and recorded requests."""
        with self.lock:
            self.queues.clear()
            self.requests.clear()

    def posts(self, path: str | None = None) -> list[Recorded]:
        """The recorded POSTs (to one path, if given)."""
        return [r for r in self.requests if r.method == "POST" and (path is None or r.path == path)]

    def next_reply(self, path: str) -> dict | None:
        with self.lock:
            for key in (path, None):
                if self.queues.get(key):
                    return self.queues[key].popleft()
        return None

    # -- default replies --

    def default_reply(self, path: str, body) -> dict:
        body = body if isinstance(body, dict) else {}
        if path == "/v1/models":
            return {
                "json": {
                    "object": "list",
                    "data": [
                        {"id": m, "object": "model", "created": 1700000000, "owned_by": "fake"}
                        for m in (self.models or ["fake-model"])
                    ],
                }
            }
        if path == "/v1/embeddings":
            texts = body.get("input", [])
            texts = [texts] if isinstance(texts, str) else texts
            return {
                "json": {
                    "object": "list",
                    "model": body.get("model", "fake-embed"),
                    "data": [{"object": "embedding", "index": i, "embedding": vector(t)} for i, t in enumerate(texts)],
                    "usage": {"prompt_tokens": 1, "total_tokens": 1},
                }
            }
        limit = next(
            (
                body[k]
                for k in ("max_tokens", "max_completion_tokens", "max_output_tokens")
                if isinstance(body.get(k), int)
            ),
            None,
        )
        if path == "/v1/chat/completions":
            reply = self.rule(body.get("messages") or [], False, body.get("response_format"), limit)
        elif path == "/v1/responses":
            text = body.get("text") if isinstance(body.get("text"), dict) else {}
            reply = self.rule(body.get("input") or [], True, text.get("format"), limit)
        else:
            return error(404, f"no route {path}", "invalid_request_error")
        return with_usage(reply, body, path == "/v1/responses")

    def rule(self, items: list, responses: bool, fmt=None, limit: int | None = None) -> dict:
        """The default brain: answer a tool result, obey "call <tool> {args}", else echo (as JSON if
        asked); cut at `limit` tokens."""

        def within(text: str) -> tuple[str, bool]:
            if limit is None or len(text) <= CHARS_PER_TOKEN * limit:
                return text, False
            return text[: CHARS_PER_TOKEN * limit], True

        fmt = fmt if isinstance(fmt, dict) and fmt.get("type") in ("json_object", "json_schema") else None
        refused = format_refusal(fmt, items, responses) if fmt else None
        if refused:
            return error(400, refused, "invalid_request_error")
        last = items[-1] if items else {}
        last = last if isinstance(last, dict) else {}
        said = last.get("content", "")
        if isinstance(said, list):
            said = "".join(p.get("text", "") for p in said if isinstance(p, dict))
        said = str(said)
        if last.get("role") == "tool" or last.get("type") == "function_call_output":
            text = f"result: {last.get('content', last.get('output', ''))}"
        elif said.startswith("call "):
            name, _, args = said[5:].partition(" ")
            try:
                arguments = json.loads(args or "{}")
            except ValueError:
                arguments = {}
            call_id = f"call_fake_{next(self.ids)}"
            text, cut = within(json.dumps(arguments))
            if responses:
                return responses_call(name, text, call_id, cut="max_output_tokens" if cut else None)
            return chat_call(name, text, call_id, finish_reason="length" if cut else "tool_calls")
        else:
            text = f"echo: {said}"
        if fmt:
            schema = fmt.get("schema") if responses else (fmt.get("json_schema") or {}).get("schema")
            text = json.dumps(instance(schema, text) if fmt["type"] == "json_schema" else {"echo": text})
        text, cut = within(text)
        if responses:
            return responses_text(text, cut="max_output_tokens" if cut else None)
        return chat_text(text, finish_reason="length" if cut else "stop")

    def gate(self, headers: dict, body) -> dict | None:
        """OpenAI's 401 for a wrong key, 404 for an unknown model (when the server has these settings)."""
        if self.key is not None and headers.get("authorization") != f"Bearer {self.key}":
            return error(401, "Incorrect API key provided.", "invalid_request_error", "invalid_api_key")
        model = body.get("model") if isinstance(body, dict) else None
        if self.models is not None and model is not None and model not in self.models:
            return error(
                404,
                f"The model `{model}` does not exist or you do not have access to it.",
                "invalid_request_error",
                "model_not_found",
            )
        return None

    def control(self, path: str, body) -> dict:
        body = body if isinstance(body, dict) else {}
        if path == "/_script":
            self.script(*body.get("replies", []), path=body.get("path"))
            return {"json": {"queued": len(body.get("replies", []))}}
        if path == "/_config":
            for name in ("cors", "key", "models", "streaming"):
                if name in body:
                    setattr(self, name, body[name])
            return {
                "json": {
                    "cors": self.cors,
                    "key": self.key is not None,
                    "models": self.models,
                    "streaming": self.streaming,
                }
            }
        if path == "/_reset":
            self.reset()
            return {"json": {"reset": True}}
        if path == "/_requests":
            return {"json": [{k: v for k, v in asdict(r).items() if k != "text"} for r in self.requests]}
        return error(404, f"no control route {path}")


def format_refusal(fmt: dict, items: list, responses: bool) -> str | None:
    """OpenAI's reason for refusing a structured-output request, or None when it would accept it."""
    if fmt["type"] == "json_object":
        said = json.dumps([i.get("content", i.get("output")) for i in items if isinstance(i, dict)]).lower()
        if "json" not in said:
            return (
                "Response input messages must contain the word 'json' in some form to use 'text.format' "
                "of type 'json_object'."
                if responses
                else "'messages' must contain the word 'json' in some form, to use 'response_format' of type "
                "'json_object'."
            )
        return None
    spec = fmt if responses else fmt.get("json_schema") or {}
    where = "text.format" if responses else "response_format"
    if not spec.get("name") or not isinstance(spec.get("schema"), dict):
        return f"Missing required parameter: '{where}{'' if responses else '.json_schema'}.name' or '.schema'."
    if spec.get("strict"):
        problem = open_object(spec["schema"], ())
        if problem:
            return f"Invalid schema for {where} '{spec['name']}': {problem}"
    return None


def open_object(schema, path: tuple) -> str | None:
    """The first place where a strict schema is not closed or leaves a property optional."""
    if not isinstance(schema, dict):
        return None
    context = f"In context=({', '.join(repr(p) for p in path)})"
    if schema.get("type") == "object" or "properties" in schema:
        props = schema.get("properties") or {}
        if schema.get("additionalProperties") is not False:
            return f"{context}, 'additionalProperties' is required to be supplied and to be false."
        missing = [k for k in props if k not in (schema.get("required") or [])]
        if missing:
            return f"{context}, 'required' is required to be supplied and to be an array including every key in properties. Missing '{missing[0]}'."
        for key, sub in props.items():
            found = open_object(sub, (*path, "properties", key))
            if found:
                return found
    if isinstance(schema.get("items"), dict):
        return open_object(schema["items"], (*path, "items"))
    for i, sub in enumerate(schema.get("anyOf") or []):
        found = open_object(sub, (*path, "anyOf", str(i)))
        if found:
            return found
    return None


def instance(schema, text: str):
    """A value that fits a JSON schema, its strings holding `text`: the fake model's structured answer."""
    if not isinstance(schema, dict):
        return text
    if schema.get("enum"):
        return schema["enum"][0]
    for key in ("anyOf", "oneOf"):
        if schema.get(key):
            return instance(schema[key][0], text)
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "null")
    if kind == "object" or "properties" in schema:
        return {key: instance(sub, text) for key, sub in (schema.get("properties") or {}).items()}
    if kind == "array":
        return [instance(schema.get("items") or {}, text)]
    return {"integer": len(text), "number": len(text) / 2, "boolean": True, "null": None}.get(kind, text)


def with_usage(reply: dict, request, responses: bool) -> dict:
    """A default reply whose usage grows with what was sent and said (~4 characters a token)."""
    if "json" not in reply or not isinstance(reply["json"].get("usage"), dict):
        return reply
    prompt = -(-len(json.dumps(request)) // 4)
    completion = -(-len(json.dumps(reply["json"].get("choices") or reply["json"].get("output"))) // 4)
    usage = (
        {
            "input_tokens": prompt,
            "output_tokens": completion,
            "total_tokens": prompt + completion,
            "input_tokens_details": {"cached_tokens": 0, "cache_write_tokens": 0},
            "output_tokens_details": {"reasoning_tokens": 0},
        }
        if responses
        else {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}
    )
    return {**reply, "json": {**reply["json"], "usage": usage}}


class QuietServer(ThreadingHTTPServer):
    """A threading server that does not print a traceback when a client hangs up (tests do that on purpose)."""

    daemon_threads = True

    def handle_error(self, request, client_address):
        pass


def vector(text: str, dim: int = 8) -> list[float]:
    """A deterministic embedding of a text (equal texts, equal vectors)."""
    digest = hashlib.sha256(str(text).encode()).digest()
    return [round(b / 255, 4) for b in digest[:dim]]


def make_handler(server: FakeServer):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        disable_nagle_algorithm = True  # headers and body go out at once (no ~40 ms delayed-ACK stall)

        def log_message(self, *args):  # quiet
            pass

        def cors_headers(self, allowed: bool) -> None:
            if allowed:
                self.send_header("Access-Control-Allow-Origin", self.headers.get("Origin") or "*")
                self.send_header("Access-Control-Expose-Headers", "Retry-After, Retry-After-Ms, X-Request-Id")
                self.send_header("Vary", "Origin")

        def do_OPTIONS(self):  # CORS preflight
            server.requests.append(Recorded("OPTIONS", self.path, dict(self.headers.items()), None, ""))
            self.send_response(204 if server.cors else 405)
            if server.cors:
                self.cors_headers(True)
                self.send_header("Access-Control-Allow-Methods", "GET, POST, OPTIONS")
                self.send_header(
                    "Access-Control-Allow-Headers", self.headers.get("Access-Control-Request-Headers") or "*"
                )
                self.send_header("Access-Control-Max-Age", "600")
            self.send_header("Content-Length", "0")
            self.end_headers()

        def do_GET(self):
            self.handle_any("GET")

        def do_POST(self):
            self.handle_any("POST")

        def handle_any(self, method: str) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            text = self.rfile.read(length).decode("utf-8", errors="replace") if length else ""
            try:
                body = json.loads(text) if text else None
            except ValueError:
                body = None
            path = self.path.split("?")[0]
            headers = {k.lower(): v for k, v in self.headers.items()}
            if path.startswith("/_"):
                return self.send(server.control(path, body), cors=True)
            server.requests.append(Recorded(method, path, headers, body, text))
            reply = server.gate(headers, body) or server.next_reply(path) or server.default_reply(path, body)
            wants = isinstance(body, dict) and body.get("stream") is True
            if wants and reply.get("refuse_stream"):
                reply = error(
                    400, "Unsupported parameter: 'stream' is not supported with this model.", "invalid_request_error"
                )
            whole = reply.get("json") if isinstance(reply.get("json"), dict) else {}
            if (
                wants
                and int(reply.get("status", 200)) == 200
                and reply.get("stream") is not False
                and ("choices" in whole or "output" in whole)
            ):
                return self.send_stream(reply, body, path == "/v1/responses", cors=server.cors)
            self.send(reply, cors=server.cors)

        def send_stream(self, reply: dict, request: dict, responses: bool, cors: bool) -> None:
            """A reply as server-sent events in a chunked body, written as `streaming` says (faults too)."""
            how = {**server.streaming, **(reply.get("stream") if isinstance(reply.get("stream"), dict) else {})}
            if reply.get("delay"):
                time.sleep(float(reply["delay"]))
            events, tail, fault = stream_bytes(reply["json"], request, responses, how)
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream; charset=utf-8")
            self.send_header("Cache-Control", "no-cache")
            self.send_header("Transfer-Encoding", "chunked")
            self.cors_headers(cors and reply.get("cors", True))
            self.end_headers()
            size, delay = int(how.get("chunk_bytes") or 0), float(how.get("chunk_delay") or 0)
            data = b"".join(events + [tail])
            writes = (
                [data[i : i + size] for i in range(0, len(data), size)] if size else [e for e in events + [tail] if e]
            )
            try:
                for n, piece in enumerate(writes):
                    if n and delay:
                        time.sleep(delay)
                    if fault == "stall" and n == len(writes) // 2:
                        time.sleep(float(how.get("stall", 5)))
                    self.wfile.write(b"%x\r\n%s\r\n" % (len(piece), piece))
                    self.wfile.flush()
                    if n == 0:
                        server.first_bytes.append(time.time())
                if fault == "hangup":
                    self.close_connection = True
                    self.connection.shutdown(2)
                    return
                self.wfile.write(b"0\r\n\r\n")
                self.wfile.flush()
            except OSError:  # the client hung up (a stopped run, a read timeout)
                self.close_connection = True

        def send(self, reply: dict, cors: bool) -> None:
            if reply.get("delay"):
                time.sleep(float(reply["delay"]))
            if reply.get("drop"):
                self.close_connection = True
                self.connection.close()
                return
            data = (json.dumps(reply["json"]) if "json" in reply else str(reply.get("body", ""))).encode()
            self.send_response(int(reply.get("status", 200)))
            content_type = "application/json" if "json" in reply else "text/plain; charset=utf-8"
            self.send_header("Content-Type", reply.get("headers", {}).get("Content-Type", content_type))
            for name, value in reply.get("headers", {}).items():
                if name.lower() != "content-type":
                    self.send_header(name, str(value))
            self.cors_headers(cors and reply.get("cors", True))
            self.send_header("Content-Length", str(len(data)))
            if reply.get("truncate") is not None:
                self.send_header("Connection", "close")
                self.end_headers()
                self.wfile.write(data[: int(reply["truncate"])])
                self.wfile.flush()
                self.close_connection = True
                self.connection.shutdown(2)
                return
            self.end_headers()
            self.wfile.write(data)

    return Handler


def main() -> None:
    parser = argparse.ArgumentParser(description="A local OpenAI-compatible server for tests.")
    parser.add_argument("--port", type=int, default=8101)
    parser.add_argument("--key", default=None, help="accept only this bearer token")
    parser.add_argument("--models", default=None, help="comma-separated model names to accept")
    parser.add_argument("--no-cors", action="store_true", help="send no CORS headers")
    args = parser.parse_args()
    server = FakeServer(
        args.port, key=args.key, models=args.models.split(",") if args.models else None, cors=not args.no_cors
    )
    print(f"fake OpenAI-compatible server on {server.url}", flush=True)
    try:
        server.httpd.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
