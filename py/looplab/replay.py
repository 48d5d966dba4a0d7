"""Replay: record a run, replay a prefix of it from the record, and go on from a step with one thing changed.

Time travel for an agent: "what if that tool had answered something else?" A fork re-runs a
recorded run. Steps before the chosen one are replayed from the record (no model call, no tool
run); the chosen step uses the edit (a different model reply, or a different result for one of
its tool calls); every later step calls the model and runs the tools for real.

    recording = record("What is 2 + 3?", model, box, Memory("You add."))
    fork = recording.fork(1, result="7", call_id="call_1")     # step 1's add answered 7
    fork.result["answer"], first_difference(recording.events, fork.events)   # (..., 1)

The record is the run's events (trace.py) — a `model_reply` carries the whole reply as
`message` — plus its inputs, kept as the run starts (`trace.keep_runs`): the task, the model,
the toolbox, a copy of the memory as it was, and the other arguments of `run_agent`.

A model that keeps state between calls (a scripted model hands out its replies in order) is
continued from where it was at the chosen step: such a model has `after(n)`, a copy of itself
as it was after n calls (`ScriptedModel.after`). Any other model is a function of the messages
and is simply called. A tool that runs another agent (several agents) runs it again as it is now.

In Loop Lab's page the worker keeps the runs of the last lesson run with a `Keeper`, so the
page can fork any of them (web/src/worker/bridge.py, shared/protocol.js).
"""

import copy
import json
from collections.abc import Callable
from dataclasses import dataclass

from . import trace
from .loop import run_agent


@dataclass
class Inputs:
    """What a run started with: enough to run it again."""

    task: str
    model_fn: Callable
    toolbox: object
    memory: object  # a copy of the memory as it was when the run started
    options: dict  # the other arguments of run_agent (max_steps, approve, gates ...)
    model_calls: int = 0  # calls the model had made before this run (a scripted model's place)


def inputs_of(arguments: dict) -> Inputs:
    """The Inputs of a run from run_agent's arguments, the memory copied as it is now."""
    args = dict(arguments)
    task, model_fn, toolbox, memory = (args.pop(k) for k in ("task", "model_fn", "toolbox", "memory"))
    try:
        memory = copy.deepcopy(memory)
    except Exception:  # something in it cannot be copied: keep its messages and notes apart at least
        memory = copy.copy(memory)
        memory.history = list(memory.history)
    return Inputs(task, model_fn, toolbox, memory, args, len(getattr(model_fn, "calls", ()) or ()))


class Keeper:
    """Keeps the inputs and events of the runs that start while it is on (the latest `limit` runs)."""

    def __init__(self, limit: int = 50):
        self.limit = limit
        self.inputs: dict[int, Inputs] = {}
        self.events: list[dict] = []
        self._stops: list[Callable] = []

    def keep(self, run: int, arguments: dict) -> None:
        """A run starts (trace.keep_runs calls this)."""
        self.inputs[run] = inputs_of(arguments)
        while len(self.inputs) > self.limit:
            oldest = min(self.inputs)
            del self.inputs[oldest]
            self.events[:] = [e for e in self.events if e.get("run") != oldest]

    def start(self) -> Callable[[], None]:
        """Begin keeping; returns a function that stops."""
        self._stops = [trace.keep_runs(self.keep), trace.listen(self.events.append)]
        return self.stop

    def stop(self) -> None:
        """Stop keeping (what was kept stays)."""
        for stop in self._stops:
            stop()
        self._stops = []

    def clear(self) -> None:
        """Forget every run kept so far."""
        self.inputs.clear()
        self.events.clear()

    def runs(self) -> list[int]:
        """The numbers of the runs kept, oldest first."""
        return sorted(self.inputs)

    def fork(
        self,
        run: int,
        step: int,
        *,
        reply=None,
        result: str | None = None,
        call_id: str | None = None,
        tracer: Callable[[dict], None] | None = None,
    ) -> "Recording":
        """Re-run a kept run from `step` with one edit (see `fork`); returns the fork as a Recording:
        its run_agent result, its own events and run number, what it forks and where it first differs."""
        if run not in self.inputs:
            raise ValueError(f"run {run} is not kept any more (the worker keeps the runs of the last lesson run)")
        original = [e for e in self.events if e.get("run") == run]
        out = fork(self.inputs[run], original, step, reply=reply, result=result, call_id=call_id, tracer=tracer)
        number = out.pop("run")
        events = [e for e in self.events if e.get("run") == number]
        return Recording(out, events, self.inputs.get(number), number, (run, step), first_difference(original, events))


# --- the two stand-ins a fork runs with ----------------------------------------------------------


class ReplayModel:
    """Hands out the recorded (and edited) replies first, then calls the model from where it was."""

    def __init__(self, replies: list[dict], model_fn: Callable, position: int):
        self.replies = list(replies)
        self.model_fn = model_fn
        self.position = position  # the model's place after the replayed replies
        self.calls: list[dict] = []
        self.rest = None

    def __call__(self, messages, tools=None):
        index = len(self.calls)
        self.calls.append({"messages": messages, "tools": tools})
        if index < len(self.replies):
            return copy.deepcopy(self.replies[index])
        if self.rest is None:
            self.rest = model_after(self.model_fn, self.position)
        return self.rest(messages, tools)

    def after(self, n: int):
        """This model as it was after n calls."""
        if n <= len(self.replies):
            return ReplayModel(self.replies[n:], self.model_fn, self.position)
        return model_after(self.model_fn, self.position + n - len(self.replies))


class ReplayTools:
    """A toolbox that answers the recorded results first (asking no one), then runs the real tools."""

    def __init__(self, toolbox, results: list[tuple[str, str]]):
        self.toolbox = toolbox
        self.results = list(results)  # (tool name, result) in the order the calls were answered

    def names(self):
        return self.toolbox.names()

    def schemas(self, *args, **kwargs):
        return self.toolbox.schemas(*args, **kwargs)

    def __len__(self):
        return len(self.toolbox)

    def needs_approval(self, name: str) -> bool:
        return False if self.results else self.toolbox.needs_approval(name)

    def run(self, name: str, arguments) -> str:
        if self.results:
            return self.results.pop(0)[1]
        return self.toolbox.run(name, arguments)

    def __getattr__(self, name):
        return getattr(self.toolbox, name)


def model_after(model_fn: Callable, n: int) -> Callable:
    """The model as it was after n calls: `model_fn.after(n)` for a model that keeps state, else itself."""
    after = getattr(model_fn, "after", None)
    return after(n) if callable(after) else model_fn


# --- forking -------------------------------------------------------------------------------------


def as_reply(reply) -> dict:
    """An edited reply as an assistant message: a dict, JSON text of one, or plain text (a final answer)."""
    if isinstance(reply, str):
        try:
            parsed = json.loads(reply)
        except ValueError:
            parsed = None
        reply = parsed if isinstance(parsed, dict) else {"role": "assistant", "content": reply}
    if not isinstance(reply, dict):
        raise ValueError(f"a reply is a message dict, its JSON text, or plain text; not {type(reply).__name__}")
    return {"role": "assistant", **reply}


def own_events(events: list[dict]) -> list[dict]:
    """The events of the first run among `events` (a nested run's events are left out)."""
    first = next((e.get("run") for e in events if e.get("type") == "run_start"), None)
    return [e for e in events if e.get("run") == first]


def fork(
    inputs: Inputs,
    events: list[dict],
    step: int,
    *,
    reply=None,
    result: str | None = None,
    call_id: str | None = None,
    tracer: Callable[[dict], None] | None = None,
) -> dict:
    """Re-run a recorded run from `step`: give either a new `reply` for that step, or a new `result`
    for its tool call `call_id`. Steps before it are replayed from `events`; later steps are live.

    Returns run_agent's result with `run`, the fork's run number. Raises ValueError for an edit
    the record cannot take (no such step or call).
    """
    mine = own_events(events)
    replies = {e["step"]: e["message"] for e in mine if e.get("type") == "model_reply" and "message" in e}
    answered = [e for e in mine if e.get("type") == "tool_result"]
    if (reply is None) == (result is None):
        raise ValueError("a fork changes one thing: give a new reply, or a new result with its call_id")
    last = step if reply is None else step - 1
    missing = [s for s in range(1, last + 1) if s not in replies]
    if step < 1 or missing:
        raise ValueError(
            f"step {step} cannot be forked: the record has no model reply for step {missing[0] if missing else step}"
        )
    if reply is None:
        ids = [e.get("call_id") for e in answered if e.get("step") == step]
        if call_id not in ids:
            raise ValueError(f"step {step} has no tool result for call {call_id!r}; its calls are {ids}")
        recorded = [
            (e["tool"], result if e.get("step") == step and e.get("call_id") == call_id else e["result"])
            for e in answered
            if e.get("step", 0) <= step
        ]
        prefix = [replies[s] for s in range(1, step + 1)]
    else:
        recorded = [(e["tool"], e["result"]) for e in answered if e.get("step", 0) < step]
        prefix = [replies[s] for s in range(1, step)] + [as_reply(reply)]
    options = {k: v for k, v in inputs.options.items() if k != "tracer"}
    numbers = []

    def note_number(event: dict) -> None:  # the fork's own run number, from its first event
        if not numbers:
            numbers.append(event["run"])

    out = run_agent(
        inputs.task,
        ReplayModel(prefix, inputs.model_fn, inputs.model_calls + step),
        ReplayTools(inputs.toolbox, recorded),
        copy.deepcopy(inputs.memory),
        tracer=trace.fan_out(note_number, tracer),
        **options,
    )
    return {**out, "run": numbers[0] if numbers else None}


@dataclass
class Recording:
    """A recorded run: its result, its events (nested runs' too) and its inputs."""

    result: dict
    events: list[dict]
    inputs: Inputs
    run: int
    fork_of: tuple[int, int] | None = None  # (run, step) this run was forked from
    first_difference: int | None = None  # the first step where it differs from that run

    def fork(self, step: int, *, reply=None, result: str | None = None, call_id: str | None = None) -> "Recording":
        """Re-run this recording from `step` with a new reply, or a new result for one tool call."""
        keeper = Keeper()
        keeper.start()
        try:
            out = fork(self.inputs, self.events, step, reply=reply, result=result, call_id=call_id)
        finally:
            keeper.stop()
        run = out.pop("run")
        return Recording(
            out,
            list(keeper.events),
            keeper.inputs[run],
            run,
            (self.run, step),
            first_difference(self.events, keeper.events),
        )


def record(task: str, model_fn: Callable, toolbox, memory, **options) -> Recording:
    """Run `run_agent` and keep what it takes to replay it: its events and its inputs."""
    keeper = Keeper()
    keeper.start()
    try:
        result = run_agent(task, model_fn, toolbox, memory, **options)
    finally:
        keeper.stop()
    run = next(e["run"] for e in keeper.events if e["type"] == "run_start")
    return Recording(result, list(keeper.events), keeper.inputs[run], run)


# --- comparing two runs --------------------------------------------------------------------------


def steps(events: list[dict]) -> list[dict]:
    """A run's steps (its own events, nested runs left out): what the model said and what the tools answered."""
    out: dict[int, dict] = {}
    for e in own_events(events):
        if "step" not in e or e.get("type") == "stop":
            continue
        s = out.setdefault(e["step"], {"step": e["step"], "reply": None, "results": []})
        if e["type"] == "model_reply":
            message = e.get("message") or {"content": e.get("content")}
            s["reply"] = {
                "content": message.get("content"),
                "calls": [(c["function"]["name"], c["function"]["arguments"]) for c in message.get("tool_calls") or []],
            }
        elif e["type"] == "tool_result":
            s["results"].append((e.get("tool"), e.get("result")))
        elif e["type"] == "policy_block":
            s["results"].append(("gate", e.get("reason")))
    return [out[k] for k in sorted(out)]


def first_difference(a: list[dict], b: list[dict]) -> int | None:
    """The first step where two runs differ (the reply, a tool result, or one has the step and the
    other not), ignoring call ids and timing; None when every step is the same."""
    left, right = steps(a), steps(b)
    for x, y in zip(left, right):
        if x != y:
            return x["step"]
    if len(left) != len(right):
        return min(len(left), len(right)) + 1
    return None
