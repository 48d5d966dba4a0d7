"""A scripted model: replies prepared in advance, handed out one per call — the loop, tested offline.

    model = scripted([call("search_notes", keyword="visits"), final("Eastside, by 205.")])
    run_agent("Which branch ...?", model, box, memory)
    model.assert_used()          # every prepared reply was asked for
    model.calls[1]["messages"]   # what the model was sent on its second call

A reply may also be a function `(messages, tools) -> reply`, to check what the model was sent
(say, that the last tool result reached it) before answering.
"""

import copy
import itertools
import json
from collections.abc import Callable

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
        tool_calls.append({"id": call_id or f"call_{next(_ids)}", "type": "function",
                           "function": {"name": name, "arguments": json.dumps(arguments)}})
    return {"role": "assistant", "content": None, "tool_calls": tool_calls}


def final(text: str) -> dict:
    """An assistant reply with a final text and no tool calls."""
    return {"role": "assistant", "content": text}


class ScriptedModel:
    """Hands out prepared replies in order; records every call; never cycles."""

    def __init__(self, replies: list):
        self.replies = list(replies)
        self.calls: list[dict] = []

    def __call__(self, messages: list[dict], tools: list[dict] | None = None) -> dict:
        index = len(self.calls)
        self.calls.append({"messages": copy.deepcopy(messages), "tools": copy.deepcopy(tools or [])})
        if index >= len(self.replies):
            raise ScriptExhausted(f"the scripted model has only {len(self.replies)} replies and was "
                                  f"called a {index + 1}{ordinal(index + 1)} time")
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
            raise AssertionError(f"the scripted model was called {len(self.calls)} times; "
                                 f"{self.remaining} of its {len(self.replies)} replies were never used")


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
