"""A scripted model: replies prepared in advance, handed out one per call — the loop, tested offline.

    model = scripted([call("search_notes", keyword="visits"), final("Eastside, by 205.")])
    run_agent("Which branch ...?", model, box, memory)
    model.assert_used()          # every prepared reply was asked for
    model.calls[1]["messages"]   # what the model was sent on its second call

A reply may also be a function `(messages, tools) -> reply`, to check what the model was sent
(say, that the last tool result reached it) before answering.

Asked for a structured output (`model(messages, tools, response_format=...)`, see structured.py),
it records the format in `calls` and refuses a request the API would refuse, with the API's
reason (and without using up a reply): JSON mode when no message says "JSON", a strict schema
that strict mode does not accept.
The prepared reply itself is handed out as it is, so a lesson can show a reply that does not fit.
"""

import copy
import itertools
import json
from collections.abc import Callable

from ..schema import strict_problems
from .errors import ModelError

_ids = itertools.count(1)


class ScriptExhausted(RuntimeError):
    """The scripted model was called more times than it has replies."""


def call(name: str, /, id: str | None = None, **arguments) -> dict:
    """An assistant reply asking for one tool: `call("read_note", note_id="n1")`.

    For a tool whose own argument is called `id`, use `calls(("tool", {"id": ...}))`.
    """
    return calls((name, arguments, id))


def calls(*requests) -> dict:
    """An assistant reply asking for several tools at once: `calls(("add", {"a": 1, "b": 2}), ...)`."""
    tool_calls = []
    for request in requests:
        name, arguments, call_id = (*request, None)[:3]
        tool_calls.append(
            {
                "id": call_id or f"call_{next(_ids)}",
                "type": "function",
                "function": {"name": name, "arguments": json.dumps(arguments)},
            }
        )
    return {"role": "assistant", "content": None, "tool_calls": tool_calls}


def final(text: str) -> dict:
    """An assistant reply with a final text and no tool calls."""
    return {"role": "assistant", "content": text}


class ScriptedModel:
    """Hands out prepared replies in order; records every call; never cycles."""

    def __init__(self, replies: list):
        self.replies = list(replies)
        self.calls: list[dict] = []

    def __call__(
        self, messages: list[dict], tools: list[dict] | None = None, response_format: dict | None = None
    ) -> dict:
        if response_format is not None:
            refuse_format(response_format, messages)  # like the API's 400: no reply is used up
        index = len(self.calls)
        self.calls.append(
            {
                "messages": copy.deepcopy(messages),
                "tools": copy.deepcopy(tools or []),
                "response_format": copy.deepcopy(response_format),
            }
        )
        if index >= len(self.replies):
            raise ScriptExhausted(
                f"the scripted model has only {len(self.replies)} replies and was "
                f"called a {index + 1}{ordinal(index + 1)} time"
            )
        reply = self.replies[index]
        if callable(reply):
            reply = reply(messages, tools or [])
        return copy.deepcopy(reply)

    def after(self, n: int) -> "ScriptedModel":
        """A copy of this model as it was after its first n calls (replay.py continues a run from it)."""
        copy_ = ScriptedModel(self.replies)
        copy_.calls = self.calls[:n] + [{"messages": [], "tools": []}] * max(0, n - len(self.calls))
        return copy_

    @property
    def remaining(self) -> int:
        """How many prepared replies have not been asked for yet."""
        return max(0, len(self.replies) - len(self.calls))

    def assert_used(self) -> None:
        """Raise AssertionError unless every prepared reply was asked for."""
        if self.remaining:
            raise AssertionError(
                f"the scripted model was called {len(self.calls)} times; "
                f"{self.remaining} of its {len(self.replies)} replies were never used"
            )


def refuse_format(response_format: dict, messages: list[dict]) -> None:
    """Raise ModelError, as the API answers 400, for a response_format it would not accept."""
    kind = response_format.get("type") if isinstance(response_format, dict) else None
    if kind == "json_object":
        if not any("json" in str(m.get("content") or "").lower() for m in messages):
            raise ModelError(
                "400 from the scripted model: 'messages' must contain the word 'json' in "
                "some form, to use 'response_format' of type 'json_object'",
                status=400,
            )
    elif kind == "json_schema":
        spec = response_format.get("json_schema")
        if not isinstance(spec, dict) or not spec.get("name") or not isinstance(spec.get("schema"), dict):
            raise ModelError(
                "400 from the scripted model: json_schema needs a 'name' and a 'schema' object", status=400
            )
        problems = strict_problems(spec["schema"]) if spec.get("strict") else []
        if problems:
            raise ModelError(
                f"400 from the scripted model: invalid schema for response_format {spec['name']!r}: {problems[0]}",
                status=400,
            )
    elif kind != "text":
        raise ModelError(
            f"400 from the scripted model: response_format type {kind!r} is not one of "
            f"'text', 'json_object', 'json_schema'",
            status=400,
        )


def ordinal(n: int) -> str:
    """The English ordinal suffix of n: st, nd, rd or th."""
    return "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")


def scripted(replies: list) -> ScriptedModel:
    """A model that returns the prepared replies one per call, then raises ScriptExhausted."""
    return ScriptedModel(replies)


def failing(message: str = "network down", exc_type: type = ConnectionError) -> Callable:
    """A model that raises `exc_type(message)` whenever it is called."""

    def model(messages, tools=None):
        raise exc_type(message)

    return model
