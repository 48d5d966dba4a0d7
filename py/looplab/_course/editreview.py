"""An edit a coding agent asks to make, shown as the diff a person approves or rejects.

A coding agent's `edit_file(path, old, new)` and `write_file(path, text)` need approval (lesson 25).
A person cannot judge "replace this text by that" from the arguments alone; they judge the change
to the file. `proposed_diff` computes that change before the tool runs, with difflib, without
touching the file; `review_edits(root)` is an `approve` that asks a person with the diff beside
the call (the page's approval dialog shows it; the terminal prints it before the question):

    approve = review_edits(project)
    coding_agent(task, model, project, approve=approve)

The diff is what the tool would do if it followed its description: `old` replaced where it occurs
exactly once, a new file written whole. When it would not (no such file, `old` found twice, a path
out of the project), the diff is empty and `note` says why; the tool itself refuses such a call.
"""

import json
from collections.abc import Callable
from pathlib import Path

from ..approvals import Decision, ask_person
from .project import unified_diff


def proposed_diff(root, name: str, arguments) -> tuple[str, str]:
    """(diff, note) of the change the call `name(**arguments)` would make to the project in `root`.

    `arguments` is the call's JSON text or a dict. The diff is "" when the call changes nothing a
    person could read (then `note` says why); `note` is "" when the diff is the whole story.
    """
    try:
        args = json.loads(arguments) if isinstance(arguments, str) else dict(arguments)
    except (TypeError, ValueError):
        return "", f"the arguments are not JSON: {str(arguments)[:80]!r}"
    if not isinstance(args, dict) or not isinstance(args.get("path"), str):
        return "", "the call names no file (`path`)"
    path = args["path"]
    base = Path(root).resolve()
    full = (base / path).resolve()
    if not full.is_relative_to(base):
        return "", f"{path!r} is outside the project"
    shown = full.relative_to(base).as_posix()
    before = full.read_text(encoding="utf-8") if full.is_file() else None
    if "old" in args or "new" in args:  # edit_file(path, old, new)
        old, new = str(args.get("old", "")), str(args.get("new", ""))
        if before is None:
            return "", f"there is no file {shown!r} to edit"
        found = before.count(old) if old else 0
        if found != 1:
            where = "not found" if not found else f"found {found} times"
            return "", f"`old` is {where} in {shown}: the edit would be refused"
        after = before.replace(old, new, 1)
    elif "text" in args:  # write_file(path, text)
        if before is not None:
            return "", f"{shown} exists: write_file would refuse to overwrite it"
        after = str(args["text"])
    else:
        return "", f"{name} changes no file this review knows how to show"
    diff = unified_diff({} if before is None else {shown: before}, {shown: after})
    return diff, "" if diff else "the change leaves the file as it is"


def review_edits(root, approve: Callable[..., object] = ask_person) -> Callable[[str, str], Decision]:
    """An `approve(name, arguments)` that asks `approve` with the proposed change's diff as well
    (`approve(name, arguments, diff=...)`, by default `ask_person`: the page or the terminal)."""

    def review(name: str, arguments: str = "{}") -> Decision:
        diff, note = proposed_diff(root, name, arguments)
        answer = approve(name, arguments, diff=diff or f"(no diff: {note})")
        return answer if isinstance(answer, Decision) else Decision(bool(answer))

    return review
