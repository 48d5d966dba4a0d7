"""A bank of scripted scenarios every agent loop of the course is held to, yours beside the reference.

    from looplab import compare, reference
    from looplab.scenarios import Bench, bank, sent

    BENCH = Bench(read=("read_note", {"note_id": "n1"}), other=("search_notes", {"keyword": "visits"}),
                  guarded=("delete_note", {"note_id": "n5"}))

    def drive(loop, script):
        result, messages = loop("Which branch?", script.model(), box, **script.settings)
        return {"how it ended": ..., "what the model was sent": sent(script), ...}

    found = compare(my_run_agent, reference("my_run_agent"), bank(BENCH), observe=drive)

A scenario is a model's script (a call, two calls in one reply, a final answer, a failure, a reply
with no text and no calls…) written with the roles of a `Bench` — a tool that reads (`read`), a
second one (`other`), one that needs a person's approval (`guarded`) — so the loop of lesson 4, the
coding agent of 25 and the helper of 27 meet the same cases with their own tools. A scenario that
needs a role the bench lacks is left out.

`script.model()` gives a fresh model function that plays the script and remembers what it was sent
(`script.sent`, one list of messages per call) and which tools it was offered; the tool calls it
makes have the ids `call_1`, `call_2`, … in order. Asked more than `MAX_CALLS` times in one run it
raises, so a loop that never stops ends (and is told so) instead of running forever. `sent(script)` is what the model was sent, made
comparable: a tool message's text counts only as "error" or its text (so an error's wording is the
learner's own).
"""

import copy
import json
from dataclasses import dataclass, field

from ..modelerror import ModelError
from .cases import Case


MAX_CALLS = 50  # more model calls than any scenario needs: past it, the loop under test never stops


@dataclass(frozen=True)
class Bench:
    """The tools a lesson's loop works with, by role: (name, arguments) each; None when it has none."""

    read: tuple[str, dict]
    other: tuple[str, dict] | None = None
    guarded: tuple[str, dict] | None = None
    unknown: str = "no_such_tool"


@dataclass(frozen=True)
class Scenario:
    """A script by roles, and the settings the loop runs with (approve: None, "yes" or "no")."""

    name: str
    replies: tuple
    approve: str | None = None
    max_steps: int | None = None
    needs: tuple = ()


SCENARIOS = (
    Scenario("a model that answers at once", (("final", "Done."),)),
    Scenario("one call, then an answer", (("calls", "read"), ("final", "Done."))),
    Scenario("two calls in one reply", (("calls", "read", "other"), ("final", "Done.")), needs=("other",)),
    Scenario("three calls in one reply", (("calls", "read", "other", "read"), ("final", "Done.")), needs=("other",)),
    Scenario(
        "two replies of two calls",
        (("calls", "read", "other"), ("calls", "other", "read"), ("final", "Done.")),
        needs=("other",),
    ),
    Scenario("a reply with text beside its call", (("say+calls", "read"), ("final", "Done."))),
    Scenario("a reply with content None and no calls", (("calls", "read"), ("none",))),
    Scenario("a model that fails at once", (("raise", "network down"),)),
    Scenario("a model that fails after a call", (("calls", "read"), ("raise", "network down"))),
    Scenario("a stream cut short after a call", (("calls", "read"), ("cut",))),
    Scenario("a call to an unknown tool", (("calls", "unknown"), ("final", "Done."))),
    Scenario("a call whose arguments are not JSON", (("calls", "badjson"), ("final", "Done."))),
    Scenario("an answer on exactly the last step", (("calls", "read"), ("final", "Done.")), max_steps=2),
    Scenario("the steps spent exactly", (("calls", "read"), ("calls", "read"), ("final", "Done.")), max_steps=2),
    Scenario("a model that never stops, with max_steps=1", (("forever", "read"),), max_steps=1),
    Scenario("a model that never stops, with the default step limit", (("forever", "read"),)),
    Scenario(
        "two calls in one reply, then a model that never stops",
        (("calls", "read", "other"), ("forever", "read")),
        needs=("other",),
    ),
    Scenario(
        "a refused call, then another in the same reply",
        (("calls", "guarded", "read"), ("final", "Done.")),
        approve="no",
        needs=("guarded",),
    ),
    Scenario(
        "a call after the refused one's reply",
        (("calls", "read", "guarded", "other"), ("final", "Done.")),
        approve="no",
        needs=("guarded", "other"),
    ),
    Scenario(
        "a call that needs approval, with nobody to approve",
        (("calls", "guarded"), ("final", "Done.")),
        needs=("guarded",),
    ),
    Scenario(
        "a call that needs approval, approved",
        (("calls", "guarded"), ("final", "Done.")),
        approve="yes",
        needs=("guarded",),
    ),
    Scenario(
        "an approval that looks at the tool's name",
        (("calls", "guarded", "read"), ("final", "Done.")),
        approve="by name",
        needs=("guarded",),
    ),
)


@dataclass
class Script:
    """One scenario made concrete with a bench: a model to give the loop, and what it was sent."""

    scenario: Scenario
    bench: Bench
    sent: list[list[dict]] = field(default_factory=list)
    offered: list[list[str]] = field(default_factory=list)

    @property
    def words(self) -> str:
        return self.scenario.name

    @property
    def settings(self) -> dict:
        """The keyword arguments the scenario sets: max_steps and approve (left out: the loop's default)."""
        out = {} if self.scenario.max_steps is None else {"max_steps": self.scenario.max_steps}
        if self.scenario.approve is not None:
            out["approve"] = self.approve
        return out

    def approve(self, *asked):
        """True for a "yes" scenario, False for a "no" one; "by name": yes to the guarded tool only, asked
        by its name first (`approve(name)` or `approve(name, arguments)`)."""
        if self.scenario.approve == "by name":
            return bool(asked) and asked[0] == self.bench.guarded[0]
        return self.scenario.approve == "yes"

    def call(self, role: str, number: int) -> dict:
        if role == "unknown":
            name, arguments = self.bench.unknown, "{}"
        elif role == "badjson":
            name, arguments = self.bench.read[0], "{not json"
        else:
            name, args = getattr(self.bench, role)
            arguments = json.dumps(args)
        return {"id": f"call_{number}", "type": "function", "function": {"name": name, "arguments": arguments}}

    def model(self):
        """A fresh model function that plays the script from its start."""
        self.sent.clear()
        self.offered.clear()
        made = [0]

        def model_fn(messages, tools, **_options):
            if len(self.sent) >= MAX_CALLS:  # a loop that never stops must not run (and grow) forever
                raise RuntimeError(f"the model was asked {MAX_CALLS} times in one run: the loop does not stop")
            self.sent.append(copy.deepcopy(list(messages)))
            self.offered.append([t.get("function", {}).get("name") for t in tools or []])
            turn = len(self.sent) - 1
            replies = self.scenario.replies
            kind, *rest = replies[min(turn, len(replies) - 1)]
            if turn >= len(replies) and kind != "forever":
                kind, rest = "final", ["(the script is over)"]
            if kind == "raise":
                raise ConnectionError(rest[0])
            if kind == "cut":
                raise ModelError("the stream ended before data: [DONE]: it was cut short")
            if kind == "final":
                return {"role": "assistant", "content": rest[0]}
            if kind == "none":
                return {"role": "assistant", "content": None}
            made[0] += len(rest)
            first = made[0] - len(rest) + 1
            calls = [self.call(role, first + i) for i, role in enumerate(rest)]
            text = "Let me look." if kind == "say+calls" else None
            return {"role": "assistant", "content": text, "tool_calls": calls}

        return model_fn


def bank(bench: Bench, only: tuple[str, ...] | None = None, leave_out: tuple[str, ...] = ()) -> list:
    """The scenarios this bench can play, as cases for `compare` (each case's argument: its Script)."""
    out = []
    for scenario in SCENARIOS:
        if any(getattr(bench, role) is None for role in scenario.needs):
            continue
        if (only and scenario.name not in only) or scenario.name in leave_out:
            continue
        out.append(Case((Script(scenario, bench),), scenario.name))
    return out


def tool_text(content) -> str:
    """A tool message's content as compared: "error" for any error text, else the text."""
    text = str(content)
    return "error" if text.startswith("error") else text


def plain(message: dict) -> tuple:
    """A message as compared: its role and what matters of it."""
    if not isinstance(message, dict):
        return ("not a message", repr(message)[:60])
    role = message.get("role")
    if role == "tool":
        return ("tool", message.get("tool_call_id"), tool_text(message.get("content")))
    if role == "assistant":
        ids = tuple(c.get("id") for c in message.get("tool_calls") or [])
        return ("assistant", message.get("content"), ids)
    return (role, message.get("content"))


def sent(script: Script) -> list[list[tuple]]:
    """What the model was sent at each call, message by message, made comparable."""
    return [[plain(m) for m in messages] for messages in script.sent]


class Recorded:
    """A toolbox that remembers which tools it ran (`ran`: name and arguments text, in order)."""

    def __init__(self, toolbox):
        self.toolbox, self.ran = toolbox, []

    def schemas(self):
        return self.toolbox.schemas()

    def needs_approval(self, name):
        return self.toolbox.needs_approval(name)

    def run(self, name, arguments):
        self.ran.append((name, arguments))
        return self.toolbox.run(name, arguments)

    def __contains__(self, name):
        return name in self.toolbox

    def __getattr__(self, name):
        return getattr(self.toolbox, name)
