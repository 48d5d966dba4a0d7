"""Structured outputs: ask a model for JSON of a given shape, check what comes back, ask once
more with what was wrong, or fail with one clear sentence.

    FACTS = {"type": "object", "properties": {"facts": {"type": "array", "items": {"type": "string"}}},
             "required": ["facts"]}
    model = structured(model_fn, FACTS, name="facts")   # a model function like any other
    reply = model(messages, [])
    reply["parsed"]                                     # {"facts": [...]}, checked against FACTS
    structured(model_fn)                                # no schema: JSON mode, any JSON object

Asking. The request field is `response_format`: {"type": "json_schema", "json_schema": {"name",
"schema", "strict": true}} constrains the reply to the schema on the models and servers that
support it; {"type": "json_object"} only promises JSON, and the API refuses it unless a message
says "JSON". A model function asks for it per call, through an optional third argument:
`model_fn(messages, tools, response_format=...)` — the chat, Responses and SDK adapters and the
scripted model take it, and the contract `model_fn(messages, tools)` is unchanged for everything
else. A model function without that argument (one of your own, the rule-based brain, the
JSON-prompt adapter) gets the request as an instruction in the system message instead.

Checking. The reply is checked whatever was asked: many OpenAI-compatible servers ignore
`response_format` or support it only in part, a reply cut off by a token limit is not JSON, and
without `strict` nothing promised the shape. It must parse as JSON (one code fence around it is
tolerated) and pass schema.py's `check_value` — types, enum, required, extra properties (refused
unless the schema says `additionalProperties: true`), array items, nested objects. Not checked:
anyOf/oneOf, $ref/$defs, minimum/maximum, minLength/maxLength, pattern, format, minItems. A reply
that fails is answered once with what was wrong ("the reply was not JSON (...)", "'facts' must be
a list") and the model asked again within the same call; a second failure, or a refusal, raises
ModelError and a run stops with `error`. A reply that asks for tools passes unchecked, so the
wrapped model can drive run_agent, whose final answer is then checked JSON.
"""

import inspect
import json
import re
from collections.abc import Callable

from .budget import add_usage
from .modelerror import ModelError
from .schema import check_value, strict_schema

JSON_OBJECT = {"type": "json_object"}


def response_format(schema: dict | None = None, name: str = "answer", strict: bool = True) -> dict:
    """The `response_format` of a request: JSON of this schema (strict mode by default), or any JSON."""
    if schema is None:
        return dict(JSON_OBJECT)
    return {
        "type": "json_schema",
        "json_schema": {"name": name, "schema": strict_schema(schema) if strict else schema, "strict": strict},
    }


def read_json(text) -> tuple[object, str | None]:
    """A reply's text as a JSON value, or (None, why it is not JSON); one code fence is tolerated."""
    if not isinstance(text, str) or not text.strip():
        return None, "the reply was empty"
    fenced = re.fullmatch(r"\s*```(?:json)?\s*(.*?)\s*```\s*", text, re.S)
    try:
        return json.loads(fenced.group(1) if fenced else text), None
    except ValueError as exc:
        return None, f"the reply was not JSON ({getattr(exc, 'msg', exc)} at character {getattr(exc, 'pos', '?')})"


def check_reply(text, schema: dict | None) -> tuple[object, str | None]:
    """The reply as checked JSON, or (None, what is wrong with it) in words the model can act on."""
    value, problem = read_json(text)
    if problem:
        return None, problem
    if schema is None:
        return (value, None) if isinstance(value, dict) else (None, "the reply was JSON but not an object")
    problem = check_value(schema, value, "the reply")
    return (None, problem.removeprefix("error: ")) if problem else (value, None)


def takes_format(model_fn: Callable) -> bool:
    """Whether a model function accepts `response_format=` (else the request goes in the prompt)."""
    try:
        params = inspect.signature(model_fn).parameters.values()
    except (TypeError, ValueError):
        return False
    return any(p.name == "response_format" or p.kind == p.VAR_KEYWORD for p in params)


def with_instruction(messages: list[dict], text: str) -> list[dict]:
    """The messages with `text` added to the system message (a new one at the front if none)."""
    out = [dict(m) for m in messages]
    for message in out:
        if message.get("role") == "system":
            message["content"] = f"{message.get('content') or ''}\n\n{text}".strip()
            return out
    return [{"role": "system", "content": text}, *out]


def mentions_json(messages: list[dict]) -> bool:
    """Whether any message says "JSON": the API refuses JSON mode without it."""
    return any("json" in str(m.get("content") or "").lower() for m in messages)


def structured(
    model_fn: Callable, schema: dict | None = None, *, name: str = "answer", strict: bool = True, retries: int = 1
) -> Callable[[list[dict], list[dict]], dict]:
    """A model function whose text replies are JSON checked against `schema` (any JSON object if None).

    Each call sends the `response_format`, checks the reply and, on a failure, asks again with what
    was wrong (`retries` times); the reply comes back with `parsed`, the checked value.
    """
    fmt = response_format(schema, name, strict)
    wanted = fmt["json_schema"]["schema"] if schema is not None else None
    native = takes_format(model_fn)
    shape = f"that matches this JSON schema: {json.dumps(wanted)}" if wanted else "(any JSON object)"

    def model(messages: list[dict], tools: list[dict] | None = None) -> dict:
        convo = list(messages)
        if not native:
            convo = with_instruction(convo, f"Answer with only a JSON object, no other text, {shape}")
        elif not mentions_json(convo):
            convo = with_instruction(convo, "Answer with a JSON object.")
        usage, problem, reply = None, "", None
        for _ in range(retries + 1):
            reply = model_fn(convo, tools or [], response_format=fmt) if native else model_fn(convo, tools or [])
            if not isinstance(reply, dict):
                raise ModelError(f"the model's reply was {type(reply).__name__}, not a message", kind="format")
            usage = add_usage(usage, reply.get("usage"))
            if reply.get("tool_calls"):
                return reply
            if reply.get("refusal"):
                raise ModelError(
                    f"the model refused to answer in the {name!r} format: {reply['refusal']}", kind="refusal"
                )
            value, problem = check_reply(reply.get("content"), wanted)
            if problem is None:
                return {**reply, "parsed": value, **({"usage": usage} if usage else {})}
            convo = convo + [
                {"role": "assistant", "content": str(reply.get("content") or "")},
                {
                    "role": "user",
                    "content": f"Your reply could not be used: {problem}. Answer again with only a JSON object {shape}",
                },
            ]
        began = " ".join(str(reply.get("content") or "").split())[:80]
        raise ModelError(
            f"the model's reply did not match the {name!r} format after {retries + 1} tries: "
            f"{problem} (its last reply began {began!r})",
            kind="format",
        )

    model.inner = model_fn
    model.response_format = fmt
    return model
