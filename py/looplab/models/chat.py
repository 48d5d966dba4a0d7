"""Chat completions over raw HTTP — the lean live model: POST {base_url}/chat/completions, no SDK.

    model = chat_model(Endpoint(base_url, api_key=key, model="gpt-4o-mini"))
    reply = model(messages, toolbox.schemas())   # {"role": "assistant", "content": ..., "tool_calls": [...]}

Memory holds chat-completions messages already, so the request is the memory minus our
bookkeeping (`tokens`, `thought`, private keys): `wire_message` keeps only the fields the API
accepts for each role. A reply's tool calls are used whatever `finish_reason` says (some
compatible servers answer "stop" while returning tool calls), except that a reply cut by the
token limit (`finish_reason: "length"`) is marked `cut` and a tool call it broke is an error
(see limits.py). The reply's `usage` rides along on the message for budget.py; a `refusal` is
kept too, for structured.py.

A structured output is asked for per call: `model(messages, tools, response_format={...})`
sends `{"type": "json_object"}` or `{"type": "json_schema", "json_schema": {"name", "schema",
"strict"}}` as the body's `response_format` (structured.py builds them and checks the reply).
"""

import json
from collections.abc import Callable

from .endpoint import Endpoint
from .errors import ModelError
from .limits import CUT_REASONS, check_cut, limit_of, use_completion_tokens
from .stream import ChatStream, consume, refuses_streaming

# The fields each role may carry on the wire (OpenAI's ChatCompletion*MessageParam types).
ACCEPTED = {
    "system": ("role", "content", "name"),
    "developer": ("role", "content", "name"),
    "user": ("role", "content", "name"),
    "assistant": ("role", "content", "name", "tool_calls", "refusal", "audio"),
    "tool": ("role", "content", "tool_call_id"),
}


def wire_message(message: dict) -> dict:
    """One memory message as the API accepts it: known fields only, tool calls in their exact shape."""
    role = message.get("role", "user")
    out = {k: message[k] for k in ACCEPTED.get(role, ("role", "content")) if message.get(k) is not None}
    out["role"] = role
    if role == "assistant":
        calls = [wire_call(c) for c in message.get("tool_calls") or [] if isinstance(c, dict)]
        if calls:
            out["tool_calls"] = calls
        else:
            out.pop("tool_calls", None)
        out.setdefault("content", None if calls else "")
    else:
        out.setdefault("content", "")
    return out


def wire_call(call: dict) -> dict:
    """A tool call as the API accepts it; arguments always JSON text, the id untouched."""
    fn = call.get("function") or {}
    arguments = fn.get("arguments", "{}")
    if not isinstance(arguments, str):
        arguments = json.dumps(arguments)
    return {"id": call.get("id"), "type": "function", "function": {"name": fn.get("name"), "arguments": arguments}}


def chat_payload(model: str, messages: list[dict], tools: list[dict] | None = None, **options) -> dict:
    """The request body of POST /chat/completions; `tools` is left out when there are none."""
    body = {"model": model, "messages": [wire_message(m) for m in messages]}
    if tools:
        body["tools"] = tools
    body.update(options)
    return body


def read_chat_reply(data: dict, base_url: str = "the endpoint") -> dict:
    """The assistant message in a chat-completions reply, with only the fields the loop uses."""
    try:
        message = data["choices"][0]["message"]
    except (KeyError, IndexError, TypeError):
        raise ModelError(
            f"the reply from {base_url} had no choices[0].message — is it an OpenAI-compatible chat completions API?",
            kind="body",
        ) from None
    if not isinstance(message, dict):
        raise ModelError(f"the reply from {base_url} had a choices[0].message that is not an object", kind="body")
    reply = {"role": "assistant", "content": message.get("content")}
    if message.get("tool_calls"):
        reply["tool_calls"] = message["tool_calls"]
    if not message.get("content") and message.get("refusal"):
        reply["content"] = f"(the model refused: {message['refusal']})"
        reply["refusal"] = message["refusal"]
    thought = message.get("reasoning_content") or message.get("reasoning")
    if isinstance(thought, str) and thought.strip():  # what some servers call the model's reasoning
        reply["thought"] = thought
    finish = data["choices"][0].get("finish_reason") if isinstance(data["choices"][0], dict) else None
    if finish in CUT_REASONS:
        reply["cut"] = finish
    return reply


def with_usage(reply: dict, data: dict) -> dict:
    """The reply with the call's `usage` (what it cost, for budget.py) when the server sent one."""
    return {**reply, "usage": data["usage"]} if isinstance(data.get("usage"), dict) else reply


def chat_model(
    endpoint: Endpoint, stream: bool = False, on_delta: Callable[[str], None] | None = None, **options
) -> Callable[[list[dict], list[dict]], dict]:
    """A model function over raw HTTP chat completions; `options` (max_tokens, temperature, ...) go in every request.

    A server that refuses `max_tokens` and asks for `max_completion_tokens` (OpenAI's reasoning
    models) gets the limit under that name from then on. With `stream=True` the reply comes as
    it is written (models/stream.py): its text goes to `on_delta` piece by piece, the assembled
    reply is the one an unstreamed call gives, and carries `stream` (chunks, time to the first
    token) for the trace; a server that refuses to stream is asked again without, from then on.
    """
    state = {"stream": stream}
    secrets = [endpoint.api_key] if endpoint.api_key else []

    def ask(messages, tools, extra) -> tuple[dict, dict | None]:
        body = chat_payload(endpoint.model, messages, tools, **options, **extra)
        if not state["stream"]:
            return endpoint.post("/chat/completions", body), None
        body.update(stream=True, stream_options={"include_usage": True})
        answer = endpoint.stream("/chat/completions", body)
        if isinstance(answer, dict):  # the server answered whole
            return answer, None
        reader = ChatStream(endpoint.base_url, on_delta, secrets)
        return consume(reader, answer, endpoint.timeout), reader.stats()

    def model(messages: list[dict], tools: list[dict] | None = None, response_format: dict | None = None) -> dict:
        extra = {"response_format": response_format} if response_format else {}
        for tries_left in (2, 1, 0):
            try:
                data, stats = ask(messages, tools, extra)
                break
            except ModelError as error:
                if tries_left and use_completion_tokens(error, options):
                    continue
                if tries_left and state["stream"] and refuses_streaming(error, endpoint.base_url):
                    state["stream"] = False
                    continue
                raise
        reply = with_usage(check_cut(read_chat_reply(data, endpoint.base_url), limit_of(options)), data)
        return {**reply, "stream": stats} if stats else reply

    model.endpoint, model.max_tokens = endpoint, limit_of(options)
    return model
