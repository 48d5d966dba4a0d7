"""Trace: what happened in a run, as plain event dicts — with every secret removed before they leave.

Event types (DESIGN.md): run_start, model_call, model_reply, tool_call, tool_result,
policy_block, approval_needed, stop. Each event is a dict with `type`, `t` (seconds since the run
started) and the fields of its kind: `step`, `call_id`, `tool`, `ok`, `ms`, ... A `model_call`
carries the `context` it sends (the messages), its `context_tokens` and each message's size
(`context_sizes`), and what the memory window `left_out` (`{"messages", "tokens"}`); a
`model_reply` carries the whole reply as `message` (replay.py replays from it) and the call's
`usage`, and a `stop` the run's (budget.py: tokens, cost, estimated or not); a `model_reply` the
token limit ended early carries `cut: "length"`, and a streamed one `stream`: how many chunks came
and the time to the first token (`{"chunks", "first_chunk_ms", "first_token_ms", "ms"}`), one event
for the whole reply, never one per chunk.
A run given a name (`run_agent(..., name="researcher")`) puts it as `agent` on every event it
emits, and every event carries its run's number as `run`, so the events of agents that call each
other stay apart in one trace.
When no tracer and no listener is there, no event is built at all.

A tracer is any callable that takes one event: `Collector()` keeps them, `printer()` prints them.

    events = Collector()
    run_agent("...", model, box, memory, tracer=events)
    events.types()   # ['run_start', 'model_call', 'model_reply', ..., 'stop']
"""

import itertools
import os
import re
import sys
import time
from collections.abc import Callable
from contextlib import contextmanager

EVENT_TYPES = (
    "run_start",
    "model_call",
    "model_reply",
    "tool_call",
    "tool_result",
    "policy_block",
    "approval_needed",
    "stop",
)

# Shapes of API keys and bearer tokens, redacted even when nobody told us the key.
KEY_SHAPES = re.compile(
    r"(?:\bsk-[A-Za-z0-9_\-]{12,}"  # OpenAI-style keys, incl. sk-proj-, sk-ant-
    r"|\bBearer\s+[A-Za-z0-9._~+/\-]{8,}=*"  # Authorization header values
    r"|\b(?:gsk|xai|hf|ghp|github_pat|AIza)[_\-A-Za-z0-9]{16,})"
)
REDACTED = "[redacted]"
CUT_WORDS = {"length": "cut short by the token limit"}  # a model_reply's `cut`, in words
SECRET_ENV = ("LLM_API_KEY", "OPENAI_API_KEY")


def secrets_from_env() -> list[str]:
    """The API keys configured in the environment (ignoring values too short to be keys)."""
    return [v for v in (os.environ.get(k, "") for k in SECRET_ENV) if len(v) >= 4]


def redact_text(text: str, secrets: list[str] | None = None) -> str:
    """Remove the given secrets and anything shaped like an API key from a text."""
    for secret in secrets if secrets is not None else secrets_from_env():
        if secret:
            text = text.replace(secret, REDACTED)
    return KEY_SHAPES.sub(REDACTED, text)


def redact(value, secrets: list[str] | None = None):
    """Redact every string inside a value (dicts, lists and tuples are copied, not changed)."""
    if secrets is None:
        secrets = secrets_from_env()
    if isinstance(value, str):
        return redact_text(value, secrets)
    if isinstance(value, dict):
        return {redact(k, secrets): redact(v, secrets) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(redact(v, secrets) for v in value)
    return value


_listeners: list[Callable[[dict], None]] = []
_keepers: list[Callable[[int, dict], None]] = []
_run_numbers = itertools.count(1)


def listen(tracer: Callable[[dict], None]) -> Callable[[], None]:
    """Send every run's events to `tracer` too (the browser bridge and the lesson runner use this).

    Returns a function that stops listening.
    """
    _listeners.append(tracer)
    return lambda: _listeners.remove(tracer) if tracer in _listeners else None


@contextmanager
def muted():
    """No listener or keeper hears the runs made inside (mine.py runs an earlier lesson this way)."""
    listeners, keepers = _listeners[:], _keepers[:]
    _listeners.clear(), _keepers.clear()
    try:
        yield
    finally:
        _listeners[:], _keepers[:] = listeners, keepers


def keep_runs(keeper: Callable[[int, dict], None]) -> Callable[[], None]:
    """Hand every run's number and inputs to `keeper` as the run starts (replay.py re-runs from them).

    Returns a function that stops keeping.
    """
    _keepers.append(keeper)
    return lambda: _keepers.remove(keeper) if keeper in _keepers else None


class Emitter:
    """Builds events for one run and hands them, redacted, to a tracer (or drops them if none).

    `inputs` (the run's arguments) go to the keepers of `keep_runs`, never into an event.
    """

    def __init__(
        self, tracer: Callable[[dict], None] | None = None, agent: str | None = None, inputs: dict | None = None
    ):
        self.tracer = tracer
        self.agent = agent  # the run's name, put on every event when given
        self.run = next(_run_numbers)  # on every event: which run it belongs to
        self.start = time.perf_counter()
        for keeper in list(_keepers) if inputs is not None else ():
            keeper(self.run, inputs)

    def __call__(self, type: str, **fields) -> dict | None:
        if self.tracer is None and not _listeners:
            return None  # nobody is listening: build nothing
        fields = {k: v() if callable(v) else v for k, v in fields.items()}  # costly fields are computed lazily
        event = {"type": type, "t": round(time.perf_counter() - self.start, 6), "run": self.run, **fields}
        if self.agent:
            event["agent"] = self.agent
        event = redact(event)  # the configured keys and anything shaped like a key
        if self.tracer is not None:
            self.tracer(event)
        for listener in list(_listeners):
            listener(event)
        return event


class Collector:
    """A tracer that keeps every event in `.events`."""

    def __init__(self):
        self.events: list[dict] = []

    def __call__(self, event: dict) -> None:
        self.events.append(event)

    def types(self) -> list[str]:
        """The event types in order."""
        return [e["type"] for e in self.events]

    def of(self, type: str) -> list[dict]:
        """The events of one type."""
        return [e for e in self.events if e["type"] == type]

    def __len__(self) -> int:
        return len(self.events)

    def __iter__(self):
        return iter(self.events)


def describe(event: dict, width: int = 100) -> str:
    """One human line for an event: `step 2 tool_call read_note {"note_id": "n1"}`, `[researcher] ...` for a named run."""
    line = describe_kind(event, width)
    return f"[{event['agent']}] {line}" if event.get("agent") else line


def describe_kind(event: dict, width: int) -> str:
    """The line for an event without its agent's name."""
    kind = event.get("type", "?")
    step = f"step {event['step']} " if "step" in event else ""

    def short(text) -> str:
        text = " ".join(str(text).split())
        return text if len(text) <= width else text[: width - 1] + "…"

    if kind == "run_start":
        return f"run_start {short(event.get('task', ''))}"
    if kind == "model_call":
        return f"{step}model_call ({event.get('messages', '?')} messages, {event.get('tools', 0)} tools)"
    if kind == "model_reply":
        calls = event.get("tool_calls", 0)
        what = f"{calls} tool call{'s' if calls != 1 else ''}" if calls else short(event.get("content") or "")
        thought = f" thought: {short(event['thought'])}" if event.get("thought") else ""
        cut = f" ({CUT_WORDS.get(event['cut'], 'cut short: ' + str(event['cut']))})" if event.get("cut") else ""
        streamed = event.get("stream") if isinstance(event.get("stream"), dict) else None
        first = streamed and streamed.get("first_token_ms", streamed.get("first_chunk_ms"))
        flow = (
            f" · {streamed.get('chunks')} chunks" + (f", first after {first:.0f} ms" if first is not None else "")
            if streamed
            else ""
        )
        return f"{step}model_reply {event.get('ms', 0):.0f} ms{tokens(event)}{flow}{evaluated(event)}: {what}{thought}{cut}"
    if kind == "tool_call":
        return f"{step}tool_call {event.get('tool')} {short(event.get('arguments', ''))}"
    if kind == "tool_result":
        result = short(event.get("result", ""))
        mark = "ok: " if event.get("ok") else "" if result.startswith("error:") else "error: "
        return f"{step}tool_result {event.get('tool')} {mark}{result}"
    if kind == "approval_needed":
        verdict = "approved" if event.get("approved") else "refused"
        return f"{step}approval_needed {event.get('tool')} -> {verdict}"
    if kind == "policy_block":
        return f"{step}policy_block ({event.get('gate')}) {short(event.get('reason', ''))}"
    if kind == "stop":
        detail = f": {short(event['detail'])}" if event.get("detail") else ""
        return f"stop {event.get('stopped')} after {event.get('steps')} steps{detail}"
    return f"{step}{kind}"


def evaluated(event: dict) -> str:
    """How much of the prompt the local engine evaluated (the rest came from its KV cache), for `describe`."""
    prompt = event.get("prompt")
    if not isinstance(prompt, dict) or not isinstance(prompt.get("evaluated"), int) or not prompt.get("tokens"):
        return ""
    return f" · evaluated {prompt['evaluated']} of {prompt['tokens']} prompt tokens"


def tokens(event: dict) -> str:
    """A call's usage for `describe`: " · 57 tokens", " · ~57 tokens" when estimated."""
    usage = event.get("usage")
    if not isinstance(usage, dict) or not usage.get("total"):
        return ""
    cost = f", cost {usage['cost']:.6f}" if isinstance(usage.get("cost"), (int, float)) else ""
    return f" · {'~' if usage.get('estimated') else ''}{usage['total']} tokens{cost}"


def printer(stream=None, width: int = 100) -> Callable[[dict], None]:
    """A tracer that prints one line per event to a stream (stdout by default)."""

    def print_event(event: dict) -> None:
        print("  · " + describe(event, width), file=stream or sys.stdout)

    return print_event


def fan_out(*tracers) -> Callable[[dict], None]:
    """One tracer that hands each event to several (None entries are skipped)."""
    live = [t for t in tracers if t is not None]

    def send(event: dict) -> None:
        for tracer in live:
            tracer(event)

    return send
