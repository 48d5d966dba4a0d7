"""Approvals: a person decides whether a tool call may run.

`run_agent(..., approve=...)` calls `approve(name)` or `approve(name, arguments)` before a tool
that needs approval, and runs it only on a yes. The answer may be a plain bool or a `Decision`,
which also carries the person's reason; a refusal's reason becomes the refused call's tool
message, so the model learns why.

`ask_person` is an `approve` that really asks: in Loop Lab's page it pauses the run and shows
the tool and its arguments with Approve and Reject (the worker waits on shared memory, see
page.py); in CPython it asks on the terminal.

    run_agent(task, model, box, memory, approve=ask_person)

`ask_for_approval` is how run_agent calls an `approve`: with the arguments if it takes two, and
failing closed (a refusal) when it raises.
"""

import inspect
import json
from collections.abc import Callable
from dataclasses import dataclass

from .page import PageUnavailable, ask_page, in_page


@dataclass
class Decision:
    """A person's answer: approved or not, and why (the reason goes back to the model on a refusal)."""

    approved: bool
    reason: str = ""

    def __bool__(self) -> bool:
        return self.approved


def ask_person(name: str, arguments: str = "{}", diff: str = "") -> Decision:
    """Ask a person whether the tool `name` may run with these arguments (JSON text); `diff`, when
    given, is the change the call would make to a file (looplab._course.editreview), shown with the question."""
    if in_page():
        request = {"tool": name, "arguments": arguments} | ({"diff": diff} if diff else {})
        try:
            answer = ask_page("approval", request)
        except PageUnavailable as exc:
            return Decision(False, f"nobody could be asked ({exc}); refused by default")
        return Decision(answer.get("approved") is True, str(answer.get("reason") or ""))
    return ask_on_terminal(name, arguments, diff=diff)


def ask_on_terminal(name: str, arguments: str, read=input, diff: str = "") -> Decision:
    """The terminal's question: `y` approves; anything else refuses, and a longer answer is the reason."""
    if diff:
        print(diff.rstrip("\n"))
    try:
        shown = json.dumps(json.loads(arguments), ensure_ascii=False)
    except (TypeError, ValueError):
        shown = str(arguments)
    try:
        text = read(f"Allow {name}({shown})? Type y to approve, or a reason to refuse: ").strip()
    except (EOFError, OSError, RuntimeError):  # no input left, stdin captured (pytest) or closed
        return Decision(
            False, "nobody answered: asking a person needs Loop Lab's page or a terminal; refused by default"
        )
    if text.lower() in ("y", "yes"):
        return Decision(True)
    return Decision(False, "" if text.lower() in ("", "n", "no") else text)


def ask_for_approval(approve: Callable | None, name: str, arguments) -> tuple[bool, str]:
    """Ask a person whether a call may run, via `approve(name)` or `approve(name, arguments)`; fails closed."""
    if approve is None:
        return False, ""
    try:
        wants_args = len(inspect.signature(approve).parameters) >= 2
    except (TypeError, ValueError):
        wants_args = False
    try:
        answer = approve(name, arguments) if wants_args else approve(name)
    except Exception as exc:
        return False, f" (the approval check failed: {exc})"
    reason = getattr(answer, "reason", "")  # a Decision carries the person's reason
    return bool(answer), (f": {reason}" if reason and not answer else "")
