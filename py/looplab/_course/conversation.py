"""A conversation with a lesson's agent, kept in the lesson's namespace: the page's Chat tab.

The lesson's code runs once (quietly: no output, no events), then each message goes to the entry
point the lesson offers (chat.py's `chat_with`) in that same namespace, so memory and state carry
from one message to the next. A lesson run hands its namespace over (`adopt`), so a chat after a
Run does not run the code again; it runs again when it changed since (an edit, another model, the
solution), when "New conversation" asks for a fresh namespace, or when there is none yet.

Each message is a run in the trace, which the inspector lists: the `run_agent` run the entry point
made (its steps can be gone through and forked), or, for an agent that is a loop of the learner's
own, a run recorded for the turn — a `run_start` whose task is the message and a `stop` whose
answer is the reply. How a turn ended is said in one word, `kind`: an answer, a `blocked`
input ("BLOCKED: …" or a run the input gate stopped), a `redacted` output ("REDACTED: …" or the
output gate), a run `stopped` without an answer (a step limit, a person's no), an `interrupted`
turn (Stop) or an `error` (the entry point raised).
"""

import contextlib
import io
import json
from dataclasses import dataclass, field

from .. import trace
from . import lesson
from .chat import Offer, begin, offered, reply_text

SKIPPED_ROLES = ("check",)  # a chat needs the lesson's code, not its checks


@dataclass
class Turn:
    """What one message got: the reply, how the turn ended, and the turn's run number."""

    reply: str
    kind: str  # answer | blocked | redacted | stopped | interrupted | error
    stopped: str  # the stop vocabulary of run_agent: final, step_limit, error, needs_person, blocked
    run: int
    fresh: bool = False  # the conversation started afresh before this message
    offer: dict = field(default_factory=dict)

    def to_dict(self) -> dict:
        return {
            "reply": self.reply,
            "kind": self.kind,
            "stopped": self.stopped,
            "run": self.run,
            "fresh": self.fresh,
            "offer": self.offer,
        }


def describe(offer: Offer) -> dict:
    """The offer as the page shows it: the agent's name and the prompts to suggest."""
    return {"name": offer.name, "suggestions": list(offer.suggestions)}


def judge(result, reply: str, blocks: list[dict]) -> tuple[str, str]:
    """How a turn ended: (kind, stopped) from what the entry point returned and the gates' blocks."""
    gates = {b.get("gate") for b in blocks}
    if isinstance(result, dict) and "stopped" in result:
        stopped = str(result["stopped"])
        if stopped == "blocked":
            return ("redacted" if "output" in gates else "blocked"), stopped
        return ("answer" if stopped == "final" else "stopped"), stopped
    head = reply.lstrip().upper()
    if head.startswith("BLOCKED"):
        return "blocked", "blocked"
    if head.startswith("REDACTED") or "output" in gates:
        return "redacted", "final"
    if head.startswith("ERROR"):
        return "error", "error"
    if head.startswith("MAX TURNS"):
        return "stopped", "step_limit"
    return "answer", "final"


def made_from(cells: list[lesson.Cell], solution: bool, model: str) -> str:
    """What a namespace was made with: the cells, the solution or not, the model."""
    return json.dumps([[c.kind, c.source, c.tags] for c in cells] + [solution, model])


class Conversation:
    """A lesson's namespace kept between messages, and the turns sent to its agent."""

    def __init__(self):
        self.namespace: dict | None = None
        self.made_from: str | None = None  # the cells, solution and model the namespace was made with
        self.offer: Offer | None = None
        self.unseen = False  # a lesson run's namespace no message has been sent in yet

    def prepare(
        self, cells: list[lesson.Cell], solution: bool, model: str, fresh: bool = False
    ) -> tuple[str | None, bool]:
        """Run the lesson's code into a new namespace when needed; (why the chat cannot start, started afresh)."""
        if not fresh and self.namespace is not None and made_from(cells, solution, model) == self.made_from:
            unseen, self.unseen = self.unseen, False
            return None, unseen  # a namespace a lesson run handed over is new to the conversation
        self.namespace, self.offer, self.made_from = None, None, None
        namespace = {"__name__": "__lesson__"}
        code = [c for c in cells if c.role not in SKIPPED_ROLES and "tests" not in c.tags]
        with trace.muted(), contextlib.redirect_stdout(io.StringIO()):
            result = lesson.run_cells(code, solution, namespace=namespace)
        if result.error:
            last = result.error.strip().splitlines()[-1]
            return f"The lesson's code did not run to the end, so there is no agent to talk to yet: {last}", True
        why = self.adopt(cells, solution, model, namespace)
        self.unseen = False
        return why, True

    def adopt(self, cells: list[lesson.Cell], solution: bool, model: str, namespace: dict) -> str | None:
        """Talk in a namespace the lesson's code just ran in (a lesson run): the chat then needs no run
        of its own until the code changes. None, or why the namespace offers no chat."""
        offer = offered(namespace)
        if offer is None:
            self.namespace, self.offer, self.made_from = None, None, None
            return "This lesson offers no agent to talk to: a lesson offers one with chat_with(...)."
        with trace.muted(), contextlib.redirect_stdout(io.StringIO()):
            begin(offer)  # what the lesson's own runs left behind goes: the conversation starts fresh
        self.namespace, self.offer, self.made_from = namespace, offer, made_from(cells, solution, model)
        self.unseen = True
        return None

    def turn(self, message: str) -> Turn:
        """Send one message to the agent; the reply and how the turn ended, and the turn's run."""
        offer = self.offer
        if offer is None:
            raise RuntimeError("prepare the conversation first")
        seen: list[dict] = []
        stop_listening = trace.listen(
            lambda e: seen.append(e) if e["type"] in ("run_start", "policy_block", "stop") else None
        )
        try:
            result = offer.entry(message)
            reply = reply_text(result)
            kind, stopped = judge(result, reply, [e for e in seen if e["type"] == "policy_block"])
            detail = None
        except KeyboardInterrupt:
            reply, kind, stopped, detail = "", "interrupted", "error", "Stop was pressed: the turn ended"
            self.end_cut_runs(seen, detail)
        except Exception as exc:  # the agent's own failure is the turn's reply, not the chat's end
            reply = trace.redact_text(f"{type(exc).__name__}: {exc}")
            kind, stopped, detail = "error", "error", reply
        finally:
            stop_listening()
        runs = [e["run"] for e in seen if e["type"] == "run_start"]
        number = runs[0] if runs else self.record(offer, message, reply, kind, stopped, detail)
        return Turn(trace.redact_text(reply), kind, stopped, number, offer=describe(offer))

    @staticmethod
    def end_cut_runs(seen: list[dict], detail: str) -> None:
        """Runs that Stop cut off get the stop they never emitted, innermost first, so none stays open."""
        ended = {e["run"] for e in seen if e["type"] == "stop"}
        for start in reversed([e for e in seen if e["type"] == "run_start" and e["run"] not in ended]):
            emit = trace.Emitter(agent=start.get("agent"))
            emit.run = start["run"]  # the stop belongs to the run it ends
            emit("stop", stopped="error", detail=detail, answer=None)

    @staticmethod
    def record(offer: Offer, message: str, reply: str, kind: str, stopped: str, detail: str | None) -> int:
        """A turn whose agent ran no run_agent (a loop of the learner's own) is still a run in the trace:
        its start (the message) and its stop (the reply); returns its number."""
        emit = trace.Emitter(agent=offer.name)
        emit("run_start", task=message, max_steps=None, tools=[], chat=True)
        fields = {"detail": detail} if detail else {}
        emit("stop", stopped=stopped, steps=0, tool_calls=0, answer=reply, chat_kind=kind, **fields)
        return emit.run
