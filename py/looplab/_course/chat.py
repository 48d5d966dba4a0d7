"""The agent a lesson offers to talk to: its entry point, and what one message to it answers.

    from looplab import chat_with
    chat_with(agent, suggestions=["remember my name is Alice, then add 10 and 5",
                                  "what is my name?", "delete the database"])

`chat_with` names the function a learner's messages go to — `agent(task)`, `ask(question)`, or a
lambda that wraps a run (`lambda task: run_agent(task, model, box, memory)`) — and the prompts
the lesson's scripted brain understands, which a chat shows as suggestions. It stores the offer
in the lesson's namespace (as `__chat__`) and returns the function unchanged, so the lesson reads
and runs as before. A chat (`python -m looplab chat N`, later the page's Chat tab) runs the lesson
once, then calls the entry point for each message in that same namespace: whatever the lesson
keeps there (memory, remembered facts, the task queue, state) carries from one message to the next.

`reply_text` turns what the entry point returned into the chat's reply: text as it is, a
`run_agent` result as its answer or as the reason it stopped.
"""

import sys
from collections.abc import Callable
from dataclasses import dataclass, field

KEY = "__chat__"


@dataclass
class Offer:
    """A lesson's chat: the entry point, its name, and the prompts to suggest with the scripted model."""

    entry: Callable
    name: str
    suggestions: list[str] = field(default_factory=list)
    start: Callable[[], object] | None = None  # called before a conversation's first message


def chat_with(
    entry: Callable,
    suggestions: list[str] | None = None,
    name: str | None = None,
    start: Callable[[], object] | None = None,
    namespace: dict | None = None,
) -> Callable:
    """Offer `entry(message)` as the agent a learner can talk to; returns `entry`.

    `start()`, when given, runs before a conversation's first message: it puts back what the
    lesson's own runs left behind (a memory that already knows Alice), so a conversation
    starts fresh. The offer goes into `namespace`, by default the namespace of the code that called this (the
    lesson's). The last call in a lesson wins.
    """
    if not callable(entry):
        raise TypeError(f"chat_with needs a function to send each message to, not {type(entry).__name__}")
    words = [s for s in suggestions or [] if isinstance(s, str) and s.strip()]
    where = namespace if namespace is not None else sys._getframe(1).f_globals
    where[KEY] = Offer(entry, name or getattr(entry, "__name__", "agent"), words, start)
    return entry


def offered(namespace: dict) -> Offer | None:
    """The chat a lesson's namespace offers, if it offers one."""
    offer = namespace.get(KEY)
    return offer if isinstance(offer, Offer) else None


def reply_text(result) -> str:
    """What an entry point returned, as the chat's reply."""
    if isinstance(result, str):
        return result
    if isinstance(result, dict) and "stopped" in result:  # a run_agent result
        if result.get("stopped") == "final":
            return str(result.get("answer") or "")
        why = f": {result['detail']}" if result.get("detail") else ""
        return f"(the run stopped: {result['stopped']}{why})"
    if isinstance(result, dict) and isinstance(result.get("content"), str):  # an assistant message
        return result["content"]
    return "" if result is None else str(result)


def begin(offer: Offer) -> None:
    """Start a conversation: the lesson's `start` (if it gave one) resets what its runs left behind."""
    if offer.start is not None:
        offer.start()


def say(offer: Offer, message: str) -> str:
    """Send one message to the lesson's entry point; its reply as text."""
    return reply_text(offer.entry(message))
