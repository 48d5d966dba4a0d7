"""Lessons: reading a lesson file (jupytext "percent" format) and running its cells and checks.

A lesson is plain Python. `# %% [markdown]` starts a prose cell (each line a `# ` comment),
`# %%` a code cell, and tags mark special cells:

    # %% tags=["check"]        assertions shown as a checklist: each top-level `assert` is one check,
                               named by the comment line just above it (an assert nested in an
                               `if` or `for` is not a checklist item of its own: keep checks at
                               the top level); checks run after all code cells, on the final state
    # %% tags=["exercise"]     starter code the learner completes
    # %% tags=["solution"]     the solution of the exercise cell just before it

Running the file as a script runs every code cell in order (the solution after the starter, so
it wins). `run_cells` runs the starter or the solution, then the checks, in one namespace.
"""

import ast
import json
import re
import traceback
from dataclasses import dataclass, field
from pathlib import Path

from . import trace

CELL_MARK = re.compile(r"^# %%(?P<rest>.*)$")


@dataclass
class Cell:
    """One cell: `kind` is "markdown" or "code"; `tags` as written in the header."""
    kind: str
    source: str
    tags: list[str] = field(default_factory=list)

    @property
    def role(self) -> str:
        """markdown, check, exercise, solution or code."""
        if self.kind == "markdown":
            return "markdown"
        for tag in ("check", "solution", "exercise"):
            if tag in self.tags:
                return tag
        return "code"


@dataclass
class Check:
    """One check's outcome, as the page shows it: ✓/✗, its name, and the message when it failed."""
    name: str
    ok: bool
    message: str = ""

    def __post_init__(self):
        self.message = trace.redact_text(self.message)  # shown on the page and in the terminal


@dataclass
class LessonResult:
    """The outcome of running a lesson: the checks, the error if a code cell raised, the events."""
    checks: list[Check]
    error: str | None = None
    events: list[dict] = field(default_factory=list)

    def __post_init__(self):
        if self.error:
            self.error = trace.redact_text(self.error)  # a traceback may quote a key from the learner's code

    @property
    def ok(self) -> bool:
        """True when no cell raised and every check passed (and there was at least one)."""
        return self.error is None and bool(self.checks) and all(c.ok for c in self.checks)

    def to_dict(self) -> dict:
        """The result as plain data (what the page receives)."""
        return {"ok": self.ok, "error": self.error, "events": self.events,
                "checks": [{"name": c.name, "ok": c.ok, "message": c.message} for c in self.checks]}


def parse_header(rest: str) -> tuple[str, list[str]]:
    """A `# %%` line's rest as (kind, tags): `[markdown]` makes prose, `tags=[...]` is JSON."""
    kind = "markdown" if "[markdown]" in rest or "[md]" in rest else "code"
    match = re.search(r"tags\s*=\s*(\[.*?\])", rest)
    tags = json.loads(match.group(1)) if match else []
    return kind, tags


def parse(text: str) -> list[Cell]:
    """Split a lesson's text into cells (a jupytext `# ---` header block is skipped)."""
    cells: list[Cell] = []
    kind, tags, lines = "code", [], []
    body = text.splitlines()
    if body and body[0].strip() == "# ---":  # jupytext metadata header
        end = next((i for i in range(1, len(body)) if body[i].strip() == "# ---"), 0)
        body = body[end + 1:]

    def close():
        source = "\n".join(lines).strip("\n")
        if kind == "markdown":
            source = "\n".join(l[2:] if l.startswith("# ") else l.lstrip("#") for l in source.splitlines())
        if source.strip() or tags:
            cells.append(Cell(kind, source, tags))

    for line in body:
        mark = CELL_MARK.match(line)
        if mark:
            close()
            kind, tags = parse_header(mark.group("rest"))
            lines = []
        else:
            lines.append(line)
    close()
    return cells


def to_text(cells: list[Cell]) -> str:
    """Cells back to a lesson file's text (the inverse of `parse`, up to blank lines)."""
    parts = []
    for cell in cells:
        header = "# %%" + (" [markdown]" if cell.kind == "markdown" else "")
        if cell.tags:
            header += " tags=" + json.dumps(cell.tags)
        source = cell.source
        if cell.kind == "markdown":
            source = "\n".join(("# " + l) if l else "#" for l in source.splitlines())
        parts.append(f"{header}\n{source}\n")
    return "\n".join(parts)


def program(cells: list[Cell], solution: bool = False) -> list[tuple[int, Cell]]:
    """The code cells to run, with their index: the starter, or each exercise swapped for its solution."""
    chosen = []
    for i, cell in enumerate(cells):
        role = cell.role
        if role in ("markdown", "check"):
            continue
        if role == "exercise" and solution and any(
                c.role == "solution" for c in cells[i + 1:i + 2]):
            continue
        if role == "solution" and not solution:
            continue
        chosen.append((i, cell))
    return chosen


def learner_traceback(exc: BaseException) -> str:
    """A traceback without the runner's own frames: what the learner's cells did."""
    tb = traceback.TracebackException.from_exception(exc)
    tb.stack = traceback.StackSummary.from_list(
        [f for f in tb.stack if not f.filename.endswith(("looplab/lesson.py", "looplab\\lesson.py"))])
    return "".join(tb.format()).rstrip()


def run_cells(cells: list[Cell], solution: bool = False, namespace: dict | None = None) -> LessonResult:
    """Run the code cells, then every check; a cell that raises stops the code and fails the checks."""
    ns = namespace if namespace is not None else {"__name__": "__lesson__"}
    events: list[dict] = []
    stop_listening = trace.listen(events.append)
    try:
        for index, cell in program(cells, solution):
            try:
                exec(compile(cell.source, f"<cell {index + 1}>", "exec"), ns)
            except Exception as exc:
                error = learner_traceback(exc)
                checks = [Check(name, False, f"not checked: cell {index + 1} raised "
                                f"{type(exc).__name__}: {exc}")
                          for name in check_names(cells)]
                return LessonResult(checks, error, events)
        checks = []
        for index, cell in enumerate(cells):
            if cell.role == "check":
                checks.extend(run_check_cell(cell, index, ns))
        return LessonResult(checks, None, events)
    finally:
        stop_listening()


def check_statements(cell: Cell) -> list[tuple[str, ast.stmt]]:
    """The statements of a check cell, each assert named by the comment above it (or its source)."""
    tree = ast.parse(cell.source)
    lines = cell.source.splitlines()
    out = []
    for stmt in tree.body:
        name = ""
        if isinstance(stmt, ast.Assert):
            above = lines[stmt.lineno - 2].strip() if stmt.lineno >= 2 else ""
            name = above[1:].strip() if above.startswith("#") else ast.get_source_segment(
                cell.source, stmt.test) or "check"
        out.append((name, stmt))
    return out


def check_names(cells: list[Cell]) -> list[str]:
    """The names of all checks in a lesson, in order."""
    names = []
    for cell in cells:
        if cell.role == "check":
            try:
                names.extend(n for n, s in check_statements(cell) if isinstance(s, ast.Assert))
            except SyntaxError:
                names.append("check cell")
    return names


def run_check_cell(cell: Cell, index: int, ns: dict) -> list[Check]:
    """Run a check cell statement by statement: each assert passes or fails on its own."""
    try:
        statements = check_statements(cell)
    except SyntaxError as exc:
        return [Check(f"check cell {index + 1}", False, f"the check cell has a syntax error: {exc}")]
    results = []
    for name, stmt in statements:
        code = compile(ast.Module([stmt], type_ignores=[]), f"<cell {index + 1}>", "exec")
        try:
            exec(code, ns)
        except AssertionError as exc:
            results.append(Check(name, False, str(exc) or f"failed: {name}"))
            continue
        except Exception as exc:
            results.append(Check(name or "check", False, f"{type(exc).__name__}: {exc}"))
            continue
        if isinstance(stmt, ast.Assert):
            results.append(Check(name, True))
    return results


def run_file(path, solution: bool = False) -> LessonResult:
    """Read a lesson file and run it (starter or solution) with its checks."""
    return run_cells(parse(Path(path).read_text(encoding="utf-8")), solution)
