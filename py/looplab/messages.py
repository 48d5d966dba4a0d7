"""Reply normalisation: a model's reply made into the clean assistant message memory stores.

    read_reply(raw, step, used_ids)  -> (assistant message, broken calls {id: error text}, problem or None)
    read_calls(calls, step, seen)    -> every call with an id, a name and JSON-text arguments
    id_problem(call_id, seen)        -> why an id cannot be used: missing, not text, already used
    text_of(content)                 -> content as text (parts joined, any other value as JSON)
    arguments_text(arguments)        -> arguments as JSON text (a dict encoded, None as "{}")
    call_ids(messages)               -> the tool-call ids already in memory
    tool_message(call_id, result)    -> the tool message that answers one call

A reply is never fixed into something the model did not say: a call that cannot run keeps its
place, gets an id of ours if its own cannot be used, and is answered with an `error:` text the
model can act on. Nothing here imports the loop, so the model adapters use `text_of` too.

What a malformed reply does to a run (run_agent in loop.py acts on what `read_reply` returns):
- not a dict (None, a string, a list)          -> stop `error`, nothing added to memory
- no text and no tool calls                      -> stop `error`, nothing added to memory
- content that is a list of parts                -> the text parts joined
- `tool_calls` a single dict                     -> treated as a list of one
- a call that is not a dict, or has no name      -> not run; answered with an `error:` result
- a call with no id, an id that is not text,
  or an id already used                          -> given an id of ours, then an `error:` result
- arguments that are not JSON text (a dict ...)  -> written as JSON text (the Toolbox validates them)
"""

import json


def tool_message(call_id: str, result: str) -> dict:
    """The message that answers one tool call."""
    return {"role": "tool", "tool_call_id": call_id, "content": result}


def call_ids(messages: list[dict]) -> set:
    """The ids of the tool calls the assistant messages among `messages` carry."""
    return {
        c.get("id")
        for m in messages
        if isinstance(m.get("tool_calls"), list)
        for c in m["tool_calls"]
        if isinstance(c, dict)
    }


def read_reply(raw, step: int, used_ids: set) -> tuple[dict, dict[str, str], str | None]:
    """A model's reply as a clean assistant message, its broken calls (id -> error text), or why it cannot be one."""
    if not isinstance(raw, dict):
        return {}, {}, f"the model's reply was {type(raw).__name__}, not an assistant message dict"
    # `usage` (what the call cost, budget.py), `stream` (how it streamed) and `prompt` (how much of the
    # prompt the local engine read, models/local.py) are not part of the message
    reply = {k: v for k, v in raw.items() if k not in ("role", "content", "tool_calls", "usage", "stream", "prompt")}
    reply["role"] = "assistant"
    reply["content"] = text_of(raw.get("content"))
    calls = raw.get("tool_calls") or []
    if isinstance(calls, dict):
        calls = [calls]
    if not isinstance(calls, list):
        return {}, {}, f"the model's tool_calls was {type(calls).__name__}, not a list"
    if not calls and not (reply["content"] or "").strip():
        return {}, {}, "the model's reply had no text and no tool calls"
    broken = {}
    if calls:
        reply["tool_calls"], broken = read_calls(calls, step, used_ids)
    return reply, broken, None


def read_calls(calls: list, step: int, seen: set) -> tuple[list[dict], dict[str, str]]:
    """Normalise tool calls; malformed ones get an id of ours and an error text to answer with.

    `seen` holds the ids already in memory (it is updated), so an id is never answered twice.
    """
    out, broken = [], {}
    sent = {c.get("id") for c in calls if isinstance(c, dict) and isinstance(c.get("id"), str)}
    for i, call in enumerate(calls, start=1):
        problem = None
        if not isinstance(call, dict):
            call, problem = {}, 'error: the tool call was not an object; send {"id", "function": {"name", "arguments"}}'
        fn = call.get("function") if isinstance(call.get("function"), dict) else {}
        name, arguments = fn.get("name"), arguments_text(fn.get("arguments"))
        call_id, why = call.get("id"), id_problem(call.get("id"), seen)
        if why:
            call_id = f"call_{step}_{i}"
            while call_id in seen or call_id in sent:  # never an id a later call of this reply has
                call_id += "_"
            problem = problem or f"error: the tool call {why}; it was not run — call the tool again"
        if not isinstance(name, str) or not name:
            problem = problem or "error: the tool call has no function name; name one of the tools"
            name = "?"
        seen.add(call_id)
        out.append({"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}})
        if problem:
            broken[call_id] = problem
    return out, broken


def id_problem(call_id, seen: set) -> str | None:
    """Why a call's id cannot be used (None when it can): missing, not text, or already used."""
    if call_id is None or call_id == "":
        return "had no id"
    if not isinstance(call_id, str):
        return f"had an id that is not text ({call_id!r})"
    return f"reused the id {call_id!r}" if call_id in seen else None


def text_of(content) -> str | None:
    """A message's content as text: None stays None, content parts are joined, anything else is JSON."""
    if content is None or isinstance(content, str):
        return content
    if isinstance(content, list):  # content parts: [{"type": "text", "text": "..."}, {"type": "image_url"}]
        return "".join(str(p.get("text") or "") if isinstance(p, dict) else str(p) for p in content)
    return json.dumps(content, default=str)


def arguments_text(arguments) -> str:
    """Tool-call arguments as the JSON text memory holds (a dict, or any other value, is encoded)."""
    if arguments is None:
        return "{}"
    if isinstance(arguments, str):
        return arguments
    try:
        return json.dumps(arguments, default=str)
    except ValueError:  # a circular structure
        return json.dumps(str(arguments))
