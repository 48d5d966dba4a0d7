"""The Responses API (POST {base_url}/responses), translated to and from the chat-format memory.

    chat memory                                  Responses `input` items
    {"role": "user", "content": "..."}       ->  {"role": "user", "content": "..."}
    assistant with tool_calls [{id: c1}]     ->  {"type": "function_call", "call_id": "c1", "name", "arguments"}
    {"role": "tool", "tool_call_id": "c1"}   ->  {"type": "function_call_output", "call_id": "c1", "output"}

A reply's `output` items become one assistant message: `message` text joined into `content`,
each `function_call` a tool call whose id is the item's `call_id`, `reasoning` summaries into
`thought` (shown in the trace), its `usage` (input/output tokens) kept for budget.py. A chat
`response_format` is sent as Responses' `text.format`, flattened: {"type": "json_schema", "name",
"schema", "strict"} or {"type": "json_object"}. The output items themselves ride along on the assistant message
under OUTPUT_KEY (the chat adapters never send it) and are sent back, in order, on the next
request — a reasoning model needs its reasoning items again, next to the calls they led to.
A reply the token limit cut (`status: "incomplete"`, `incomplete_details.reason:
"max_output_tokens"`) is marked `cut: "length"`, as chat completions' `finish_reason` says it.
"""

from collections.abc import Callable

from ..messages import text_of
from .chat import with_usage
from .endpoint import Endpoint
from .errors import ModelError
from .limits import check_cut
from .responses_stream import ResponsesStream
from .stream import consume, refuses_streaming

OUTPUT_KEY = "_responses_output"


def responses_tools(tools: list[dict] | None) -> list[dict]:
    """Chat-format tool schemas ({"type": "function", "function": {...}}) in the Responses shape (flat)."""
    out = []
    for tool in tools or []:
        fn = tool.get("function", tool)
        out.append(
            {
                "type": "function",
                "name": fn["name"],
                "description": fn.get("description", ""),
                "parameters": fn.get("parameters") or {"type": "object", "properties": {}},
                "strict": False,
            }
        )
    return out


def input_items(messages: list[dict]) -> list[dict]:
    """The chat-format memory as Responses `input` items, call ids intact."""
    items = []
    for message in messages:
        role = message.get("role")
        if role == "tool":
            items.append(
                {
                    "type": "function_call_output",
                    "call_id": message.get("tool_call_id"),
                    "output": text(message.get("content")),
                }
            )
        elif role == "assistant":
            items.extend(assistant_items(message))
        else:
            items.append(
                {
                    "role": role if role in ("system", "developer", "user") else "user",
                    "content": text(message.get("content")),
                }
            )
    return items


def assistant_items(message: dict) -> list[dict]:
    """One assistant message as input items: its original output items when they still match it, else rebuilt."""
    calls = message.get("tool_calls") or []
    ids = [c.get("id") for c in calls]
    original = message.get(OUTPUT_KEY)
    if original and [i.get("call_id") for i in original if i.get("type") == "function_call"] == ids:
        return [clean_item(i) for i in original]
    items = []
    if message.get("content"):
        items.append({"role": "assistant", "content": text(message["content"])})
    for call in calls:
        fn = call.get("function") or {}
        items.append(
            {
                "type": "function_call",
                "call_id": call.get("id"),
                "name": fn.get("name"),
                "arguments": fn.get("arguments") if isinstance(fn.get("arguments"), str) else "{}",
            }
        )
    return items


def clean_item(item: dict) -> dict:
    """An output item fit to send back as input (None fields dropped)."""
    return {k: v for k, v in item.items() if v is not None}


def text(content) -> str:
    """A message's content as the plain text an input item carries ("" for none)."""
    return text_of(content) or ""


def responses_payload(
    model: str, messages: list[dict], tools: list[dict] | None = None, response_format: dict | None = None, **options
) -> dict:
    """The request body of POST /responses (a chat `response_format` becomes `text.format`)."""
    body = {"model": model, "input": input_items(messages)}
    if tools:
        body["tools"] = responses_tools(tools)
    if response_format:
        body["text"] = {"format": text_format(response_format)}
    body.update(options)
    return body


def text_format(response_format: dict) -> dict:
    """A chat-completions `response_format` in the Responses API's flat `text.format` shape."""
    if response_format.get("type") != "json_schema":
        return dict(response_format)
    return {"type": "json_schema", **response_format.get("json_schema", {})}


def read_output(data: dict, base_url: str = "the endpoint") -> dict:
    """A Responses reply as one assistant message (tool calls keyed by call_id, reasoning as thought)."""
    output = data.get("output")
    if not isinstance(output, list):
        raise ModelError(
            f"the reply from {base_url} had no `output` list — does this endpoint "
            f"support the Responses API? (set LLM_API=chat to use chat completions)",
            kind="body",
        )
    if data.get("status") == "failed" and data.get("error"):
        raise ModelError(f"{base_url} could not answer: {(data['error'] or {}).get('message')}", kind="body")
    texts, calls, thoughts, refusals = [], [], [], []
    for item in output:
        kind = item.get("type") if isinstance(item, dict) else None
        if kind == "message":
            for part in item.get("content") or []:
                if part.get("type") == "output_text":
                    texts.append(part.get("text", ""))
                elif part.get("type") == "refusal":
                    texts.append(f"(the model refused: {part.get('refusal', '')})")
                    refusals.append(part.get("refusal", ""))
        elif kind == "function_call":
            calls.append(
                {
                    "id": item.get("call_id"),
                    "type": "function",
                    "function": {"name": item.get("name"), "arguments": item.get("arguments", "{}")},
                }
            )
        elif kind == "reasoning":
            thoughts += [s.get("text", "") for s in item.get("summary") or [] if isinstance(s, dict)]
    reply = {"role": "assistant", "content": "".join(texts) or None}
    if refusals:
        reply["refusal"] = " ".join(refusals)
    if calls:
        reply["tool_calls"] = calls
    if any(thoughts):
        reply["thought"] = "\n".join(t for t in thoughts if t)
    reply[OUTPUT_KEY] = [i for i in output if isinstance(i, dict)]
    if data.get("status") == "incomplete":
        details = data.get("incomplete_details")
        why = (details.get("reason") if isinstance(details, dict) else None) or "incomplete"
        reply["cut"] = "length" if why == "max_output_tokens" else why
    return reply


def responses_model(
    endpoint: Endpoint, stream: bool = False, on_delta: Callable[[str], None] | None = None, **options
) -> Callable[[list[dict], list[dict]], dict]:
    """A model function over the Responses API; `options` (reasoning, max_output_tokens, ...) go in every request.

    `stream=True`: the reply's events are assembled (models/responses_stream.py) into the
    response an unstreamed call gives, its text shown through `on_delta` as it comes; a server
    that refuses to stream is asked again without, from then on.
    """
    state = {"stream": stream}
    secrets = [endpoint.api_key] if endpoint.api_key else []

    def ask(body: dict) -> tuple[dict, dict | None]:
        if not state["stream"]:
            return endpoint.post("/responses", body), None
        answer = endpoint.stream("/responses", {**body, "stream": True})
        if isinstance(answer, dict):
            return answer, None
        reader = ResponsesStream(endpoint.base_url, on_delta, secrets)
        return consume(reader, answer, endpoint.timeout), reader.stats()

    def model(messages: list[dict], tools: list[dict] | None = None, response_format: dict | None = None) -> dict:
        body = responses_payload(endpoint.model, messages, tools, response_format, **options)
        try:
            data, stats = ask(body)
        except ModelError as error:
            if not (state["stream"] and refuses_streaming(error, endpoint.base_url)):
                raise
            state["stream"] = False
            data, stats = ask(body)
        reply = with_usage(
            check_cut(read_output(data, endpoint.base_url), options.get("max_output_tokens"), "max_output_tokens"), data
        )
        return {**reply, "stream": stats} if stats else reply

    model.endpoint = endpoint
    return model
