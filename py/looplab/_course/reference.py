"""The lesson's reference: what its solution cells define, for checks that compare yours with it.

    from looplab import reference
    theirs = reference("clear_old_results")    # the solution's clear_old_results

A check cell asks for a name an exercise defines and gets the solution's definition of it, read
from the lesson's own solution cells (never a copy of them kept elsewhere). The reference lives in
a namespace of its own: a copy of the lesson's namespace as the checks see it, into which each
solution cell's definitions run in order — its `def`s and `class`es, its `name = ...`s and
imports, and a call on something the solution itself made there (`box.register(...)` after the
solution's own `box = MyToolbox()`). Other statements of a solution (a demonstration run, a call
on the lesson's objects such as `chat.remember(...)`) are left out, so reading the reference
changes nothing the learner's code made.

`lesson.run_cells` says which lesson is running (`entered`); a lesson run as a plain script (the
solution last, so it won) reads its own file; a notebook (`looplab notebook N`, the page's
download) names its lesson in its first code cell (`notebook_lesson`), read from the lessons that
came with looplab.
"""

import ast
import contextlib
import io
import sys
from collections.abc import Callable
from pathlib import Path

from .course import find_in, packaged_lessons
from .lessonfile import Cell, parse

_running: list[dict] = []  # the lessons being run, innermost last: {"cells", "namespace", "reference"}


def entered(cells: list[Cell], namespace: dict) -> Callable[[], None]:
    """Say that these cells are running in `namespace`; returns the function that says they ended."""
    entry = {"cells": cells, "namespace": namespace, "reference": None, "names": set()}
    _running.append(entry)

    def leave() -> None:
        if entry in _running:
            _running.remove(entry)

    return leave


def notebook_lesson(slug: str, namespace: dict) -> None:
    """A notebook's first code cell: the checks' reference() reads lesson `slug`'s solution from the
    lessons that came with looplab, into this notebook's namespace (`globals()`). Once per kernel."""
    folder = packaged_lessons()
    path = find_in(folder, slug) if folder else None
    if path is None or path.stem != slug:
        raise LookupError(f"no lesson {slug!r} came with this looplab: `pip install -U looplab`, then run again")
    _running[:] = [entry for entry in _running if entry.get("notebook") is not namespace]
    entered(parse(path.read_text(encoding="utf-8")), namespace)
    _running[-1]["notebook"] = namespace


def as_script() -> dict | None:
    """The lesson run as a plain script: its file and its module's namespace."""
    main = sys.modules.get("__main__")
    path = getattr(main, "__file__", None)
    if not path or not Path(path).is_file():
        return None
    try:
        cells = parse(Path(path).read_text(encoding="utf-8"))
    except (ValueError, UnicodeDecodeError):  # not a lesson at all
        return None
    if not any(cell.role == "solution" for cell in cells):
        return None
    return {"cells": cells, "namespace": vars(main), "reference": None, "names": set()}


def root_name(node: ast.AST) -> str | None:
    """The name at the start of `a.b(...)` or `a[0].c(...)`."""
    while isinstance(node, (ast.Attribute, ast.Subscript, ast.Call)):
        node = node.func if isinstance(node, ast.Call) else node.value
    return node.id if isinstance(node, ast.Name) else None


def binds(stmt: ast.stmt) -> list[str] | None:
    """The names a definition binds; None for a statement that is not a definition."""
    if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return [stmt.name]
    if isinstance(stmt, (ast.Import, ast.ImportFrom)):
        return [(a.asname or a.name).split(".")[0] for a in stmt.names]
    targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target] if isinstance(stmt, ast.AnnAssign) else []
    names = [n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)]
    if targets and all(isinstance(t, (ast.Name, ast.Tuple)) for t in targets) and names:
        return names
    return None


def build(cells: list[Cell], namespace: dict) -> dict:
    """The reference namespace: the lesson's namespace copied, the solutions' definitions run into it."""
    ours = dict(namespace)
    made: set[str] = set()
    for index, cell in enumerate(cells):
        if cell.role != "solution":
            continue
        for stmt in ast.parse(cell.source).body:
            names = binds(stmt)
            own_call = isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call) and root_name(stmt.value) in made
            if names is None and not own_call:
                continue
            code = compile(ast.Module([stmt], type_ignores=[]), f"<solution, cell {index + 1}>", "exec")
            with contextlib.redirect_stdout(io.StringIO()):
                exec(code, ours)
            made.update(names or [])
    return ours


def reference(name: str):
    """The lesson's solution's definition of `name` (a function, a class, a value)."""
    entry = _running[-1] if _running else as_script()
    if entry is None:
        raise LookupError("reference() reads a lesson's solution: call it from a lesson's check")
    if entry["reference"] is None or not entry["names"] >= entry["namespace"].keys():
        # built once, and again when the lesson has defined more since (a notebook's later cells)
        entry["names"] = set(entry["namespace"])
        entry["reference"] = build(entry["cells"], entry["namespace"])
    ours = entry["reference"]
    if name not in ours or not any(
        cell.role == "solution" and name in solution_names(cell.source) for cell in entry["cells"]
    ):
        raise LookupError(f"this lesson's solution cells define no {name!r}")
    return ours[name]


def solution_names(source: str) -> set[str]:
    """The names a solution cell's definitions bind."""
    try:
        body = ast.parse(source).body
    except SyntaxError:
        return set()
    return {name for stmt in body for name in (binds(stmt) or [])}
