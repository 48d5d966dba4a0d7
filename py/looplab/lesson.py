"""Lessons: reading a lesson file (jupytext "percent" format) and running its cells and checks.

A lesson is plain Python. `# %% [markdown]` starts a prose cell (each line a `# ` comment),
`# %%` a code cell, and tags mark special cells:

    # %% tags=["check"]        assertions shown as a checklist: each top-level `assert` is one check,
                               named by the comment line just above it (an assert nested in an
                               `if` or `for` is not a checklist item of its own: keep checks at
                               the top level); checks run after all code cells, on the final state
    # %% tags=["exercise"]     starter code the learner completes
    # %% [markdown] tags=["hint"]
                               a hint for the exercise above it (1-3 of them, between the exercise
                               and its solution): the page reveals them one at a time before the
                               solution, the CLI prints them with --hints; the last may hold the code
    # %% tags=["solution"]     the solution of the exercise cell just before it (hints in between)
    # %% [markdown] tags=["predict"]
                               predict, then run: a question, its choices as a task list with the
                               right one ticked, then why (see `Prediction`):
                                   # Which way will this run end?
                                   #
                                   # - [ ] `final`
                                   # - [x] `step_limit`
                                   #
                                   # Three steps are allowed and the model asks for five pings.

    # %% tags=["tests"]        pytest test functions the lesson (or the learner) writes: `def test_*`,
                               fixtures, parametrize. The cell runs in order like code (compiled
                               with pytest's assertion rewriting); after the checks, pytest runs the
                               tests it defined, each one a check named by its docstring's first
                               line (or its name): passed, failed with pytest's explanation, or
                               not checked when skipped. An exercise or solution may be tagged
                               "tests" too. See testcells.py.

A claim that holds only for the lesson's prepared (scripted) replies is written, at the top level
of a check cell, as `expect(claim, message, observed=...)` instead of `assert claim, message`. With
the scripted model it is an ordinary check. With a live or local model it is not evaluated: it is
reported as "not checked" with `observed` — what the model actually did — so a real model's reply
never earns a ✓ it was not checked for. Inside a test function, `expect` with a live or local model
skips the test, which is then reported "not checked" with `observed`.

Running the file as a script runs every code cell in order (the solution after the starter, so
it wins). `run_cells` runs the starter or the solution, then the checks, in one namespace.
"""

import ast
import json
import re
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from . import testcells, trace
from .models import model_mode

CELL_MARK = re.compile(r"^# %%(?P<rest>.*)$")


@dataclass
class Cell:
    """One cell: `kind` is "markdown" or "code"; `tags` as written in the header."""
    kind: str
    source: str
    tags: list[str] = field(default_factory=list)

    @property
    def role(self) -> str:
        """markdown, hint, predict, check, exercise, solution or code."""
        if self.kind == "markdown":
            return next((tag for tag in ("hint", "predict") if tag in self.tags), "markdown")
        for tag in ("check", "solution", "exercise", "wrong"):
            if tag in self.tags:
                return tag
        return "code"


PASSED, FAILED, NOT_CHECKED = "passed", "failed", "not checked"


@dataclass
class Check:
    """One check's outcome, as the page shows it: its name, its status and a message.

    `status` is "passed", "failed" or "not checked" (a claim about prepared replies, not evaluated
    with a live or local model; the message says what the model did). `ok` is True only for passed.
    """
    name: str
    ok: bool
    message: str = ""
    status: str = ""

    def __post_init__(self):
        self.message = trace.redact_text(self.message)  # shown on the page and in the terminal
        self.status = self.status or (PASSED if self.ok else FAILED)
        self.ok = self.status == PASSED


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
        """True when no cell raised, no check failed and at least one check passed."""
        return (self.error is None and any(c.status == PASSED for c in self.checks)
                and not any(c.status == FAILED for c in self.checks))

    def count(self, status: str) -> int:
        """How many checks have this status."""
        return sum(c.status == status for c in self.checks)

    def to_dict(self) -> dict:
        """The result as plain data (what the page receives)."""
        return {"ok": self.ok, "error": self.error, "events": self.events,
                "checks": [{"name": c.name, "ok": c.ok, "status": c.status, "message": c.message}
                           for c in self.checks]}


@dataclass
class Prediction:
    """A predict cell: the question, the choices, the index of the right one, and why."""
    question: str
    choices: list[str]
    answer: int
    why: str = ""


CHOICE = re.compile(r"^\s*[-*]\s+\[(?P<mark>[ xX])\]\s+(?P<text>.+?)\s*$")


def read_prediction(source: str) -> Prediction:
    """Parse a predict cell's markdown: question lines, `- [ ]`/`- [x]` choices, then why.

    Raises ValueError when it has fewer than two choices or not exactly one ticked.
    """
    before, choices, after, answer = [], [], [], []
    for line in source.splitlines():
        match = CHOICE.match(line)
        if match and not after:
            if match["mark"] != " ":
                answer.append(len(choices))
            choices.append(match["text"])
        elif choices:
            after.append(line)
        else:
            before.append(line)
    if len(choices) < 2 or len(answer) != 1:
        raise ValueError(f"a predict cell needs two or more `- [ ]` choices with exactly one ticked "
                         f"`- [x]`; this one has {len(choices)} choices and {len(answer)} ticked")
    return Prediction("\n".join(before).strip(), choices, answer[0], "\n".join(after).strip())


def solution_index(cells: list[Cell], exercise: int) -> int | None:
    """The index of an exercise's solution: the next cell after its hints, if it is a solution."""
    i = exercise + 1
    while i < len(cells) and cells[i].role == "hint":
        i += 1
    return i if i < len(cells) and cells[i].role == "solution" else None


def hints(cells: list[Cell], exercise: int) -> list[str]:
    """The hints of the exercise at index `exercise`, in order."""
    out = []
    for cell in cells[exercise + 1:]:
        if cell.role != "hint":
            break
        out.append(cell.source)
    return out


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
        if role in ("markdown", "hint", "predict", "check", "wrong"):
            continue
        if role == "exercise" and solution and solution_index(cells, i) is not None:
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


def run_cells(cells: list[Cell], solution: bool = False, namespace: dict | None = None,
              on_predict: Callable[[Prediction], None] | None = None) -> LessonResult:
    """Run the code cells, then every check; a cell that raises stops the code and fails the checks.

    `on_predict` is called with each predict cell's `Prediction` just before the code after it runs.
    """
    ns = namespace if namespace is not None else {"__name__": "__lesson__"}
    events: list[dict] = []
    stop_listening = trace.listen(events.append)
    chosen = dict(program(cells, solution))
    try:
        for index, cell in enumerate(cells):
            if cell.role == "predict" and on_predict is not None:
                on_predict(read_prediction(cell.source))
            if index not in chosen:
                continue
            try:
                exec(compile_cell(cell, index), ns)
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
        tests = [name for cell in chosen.values() if "tests" in cell.tags
                 for name in testcells.defined_names(cell.source)]
        if tests:
            checks.extend(Check(name, status == PASSED, message, status)
                          for name, status, message in testcells.run_tests(ns, tests))
        return LessonResult(checks, None, events)
    finally:
        stop_listening()


def compile_cell(cell: Cell, index: int):
    """A code cell's code object; a tests cell's asserts are rewritten the way pytest does it."""
    filename = f"<cell {index + 1}>"
    if "tests" in cell.tags:
        return testcells.compile_tests(cell.source, filename)
    return compile(cell.source, filename, "exec")


def expect(claim, message: str = "", observed: str = "") -> None:
    """A check that holds only for the lesson's prepared replies (see the module docstring).

    Scripted: fails like `assert claim, message`. Live or local: not evaluated; when the lesson runs
    as a plain script it prints `observed` (the runner reports it as "not checked" instead).
    """
    mode = model_mode()
    if mode == "scripted":
        if not claim:
            raise AssertionError(message or "the expected claim does not hold")
    elif testcells.RUNNING:  # inside a lesson's test: the test is skipped, reported "not checked"
        import pytest
        pytest.skip(observed or message or "this claim holds only for the lesson's prepared replies")
    else:
        print(f"not checked with a {mode} model: {observed or message}")


def is_expect(stmt: ast.stmt) -> bool:
    """Is this statement a top-level `expect(...)` call?"""
    return (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call)
            and isinstance(stmt.value.func, ast.Name) and stmt.value.func.id == "expect")


def check_statements(cell: Cell) -> list[tuple[str, ast.stmt]]:
    """The statements of a check cell, each assert named by the comment above it (or its source)."""
    tree = ast.parse(cell.source)
    lines = cell.source.splitlines()
    out = []
    for stmt in tree.body:
        name = ""
        if isinstance(stmt, ast.Assert) or is_expect(stmt):
            claim = stmt.test if isinstance(stmt, ast.Assert) else (stmt.value.args or [stmt.value])[0]
            above = lines[stmt.lineno - 2].strip() if stmt.lineno >= 2 else ""
            name = above[1:].strip() if above.startswith("#") else ast.get_source_segment(
                cell.source, claim) or "check"
        out.append((name, stmt))
    return out


def check_names(cells: list[Cell]) -> list[str]:
    """The names of all checks in a lesson, in order."""
    names = []
    for cell in cells:
        if cell.role == "check":
            try:
                names.extend(n for n, s in check_statements(cell) if isinstance(s, ast.Assert) or is_expect(s))
            except SyntaxError:
                names.append("check cell")
    for cell in cells:  # tests run after the checks; an exercise's tests are named once (its solution's)
        if "tests" in cell.tags and cell.role != "exercise":
            names.extend(testcells.test_names(cell.source))
    return names


def run_check_cell(cell: Cell, index: int, ns: dict) -> list[Check]:
    """Run a check cell statement by statement: each assert passes or fails on its own."""
    try:
        statements = check_statements(cell)
    except SyntaxError as exc:
        return [Check(f"check cell {index + 1}", False, f"the check cell has a syntax error: {exc}")]
    results = []
    for name, stmt in statements:
        if is_expect(stmt):
            results.append(run_expect(name, stmt.value, index, ns))
            continue
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


def run_expect(name: str, call: ast.Call, index: int, ns: dict) -> Check:
    """One `expect(claim, message, observed=...)`: checked with the scripted model, else not checked."""
    args = {k.arg: k.value for k in call.keywords if k.arg}
    for key, value in zip(("claim", "message", "observed"), call.args):
        args[key] = value
    if "claim" not in args:
        return Check(name, False, "expect(...) needs a claim: expect(claim, message, observed=...)")

    def value(key: str, default=""):
        if key not in args:
            return default
        return eval(compile(ast.Expression(args[key]), f"<cell {index + 1}>", "eval"), ns)

    mode = model_mode()
    try:
        if mode != "scripted":
            observed = value("observed") or "this claim holds only for the lesson's prepared replies"
            return Check(name, False, f"{observed}", status=NOT_CHECKED)
        if value("claim"):
            return Check(name, True)
        return Check(name, False, str(value("message")) or f"failed: {name}")
    except Exception as exc:
        return Check(name, False, f"{type(exc).__name__}: {exc}")


def run_file(path, solution: bool = False,
             on_predict: Callable[[Prediction], None] | None = None) -> LessonResult:
    """Read a lesson file and run it (starter or solution) with its checks."""
    return run_cells(parse(Path(path).read_text(encoding="utf-8")), solution, on_predict=on_predict)
