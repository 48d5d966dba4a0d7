"""Lessons: running a lesson's cells and checks (the format itself is lessonfile.py's).

The format — cells, tags, hints, predictions, the program a run executes — is lessonfile.py's;
its names are importable from here too. A check's statuses and `Check` are checks.py's.

A check named by a comment that starts with `given:` (`# given: the toolbox lists three tools`)
is about code the lesson gives, not the learner's part: it may pass on the starter. The prefix is
not part of the check's name.

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
import re
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from .. import trace
from . import reference, scratch, testcells
from .checks import FAILED, NOT_CHECKED, PASSED, Check
from .lessonfile import (
    CELL_MARK,
    GIVEN,
    Cell,
    Prediction,
    hints,
    parse,
    parse_header,
    program,
    read_prediction,
    solution_index,
    to_text,
)
from ..modelmode import model_mode


# The format's names stay importable from here: the tests write `from looplab._course.lesson import ...`.
__all__ = [
    "CELL_MARK",
    "FAILED",
    "NOT_CHECKED",
    "PASSED",
    "Cell",
    "Check",
    "LessonResult",
    "Prediction",
    "check_names",
    "check_statements",
    "expect",
    "hints",
    "is_expect",
    "parse",
    "parse_header",
    "program",
    "read_prediction",
    "run_cells",
    "run_check_cell",
    "run_expect",
    "run_file",
    "solution_index",
    "to_text",
]


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
        return (
            self.error is None
            and any(c.status == PASSED for c in self.checks)
            and not any(c.status == FAILED for c in self.checks)
        )

    def count(self, status: str) -> int:
        """How many checks have this status."""
        return sum(c.status == status for c in self.checks)

    def to_dict(self) -> dict:
        """The result as plain data (what the page receives)."""
        return {
            "ok": self.ok,
            "error": self.error,
            "events": self.events,
            "checks": [{"name": c.name, "ok": c.ok, "status": c.status, "message": c.message} for c in self.checks],
        }


def learner_traceback(exc: BaseException) -> str:
    """A traceback without the runner's own frames: what the learner's cells did."""
    tb = traceback.TracebackException.from_exception(exc)
    tb.stack = traceback.StackSummary.from_list(
        [f for f in tb.stack if not f.filename.endswith(("_course/lesson.py", "_course\\lesson.py"))]
    )
    return "".join(tb.format()).rstrip()


def run_cells(
    cells: list[Cell],
    solution: bool = False,
    namespace: dict | None = None,
    on_predict: Callable[[Prediction], None] | None = None,
    on_event: Callable[[dict], None] | None = None,
    origin: str = "",
    before_cell: Callable[[int], None] | None = None,
) -> LessonResult:
    """Run the code cells, then every check; a cell that raises stops the code and fails the checks.

    `on_predict` is called with each predict cell's `Prediction` just before the code after it runs.
    The result keeps the runs' events; with `on_event` each goes there as it happens instead, and
    the result keeps none (the page's worker sends them on at once). `origin` ("24") marks the code as
    lesson 24's, for a later lesson that runs it (`mine`): its errors then name that lesson. The
    temporary files the lesson makes go when it ends (scratch.py): with the run, or, when the caller
    gave the namespace to use it after, when the caller calls `scratch.close_kept()` (at the latest
    when Python exits). `before_cell(index)` is called just before each code cell runs (the mutation
    runner starts its mutants there).
    """
    ns = namespace if namespace is not None else {"__name__": "__lesson__"}
    with scratch.lesson_folder(keep=namespace is not None):
        return run_program(cells, program(cells, solution), ns, on_predict, on_event, origin, before_cell)


def run_program(cells, chosen_cells, ns, on_predict, on_event, origin, before_cell=None) -> LessonResult:
    """run_cells' work: the chosen code cells in order, then the checks and the tests."""
    events: list[dict] = []
    stop_listening = trace.listen(on_event or events.append)
    leave = reference.entered(cells, ns)  # the checks may compare with the solution cells
    chosen = dict(chosen_cells)
    try:
        for index, cell in enumerate(cells):
            if cell.role == "predict" and on_predict is not None:
                on_predict(read_prediction(cell.source))
            if index not in chosen:
                continue
            if before_cell is not None:
                before_cell(index)
            try:
                exec(compile_cell(cell, index, origin), ns)
            except Exception as exc:
                error = learner_traceback(exc)
                checks = [
                    Check(
                        name,
                        False,
                        f"not checked: cell {index + 1} raised {type(exc).__name__}: {exc}{carried_from(exc)}",
                    )
                    for name in check_names(cells)
                ]
                return LessonResult(checks, error, events)
        checks = []
        for index, cell in enumerate(cells):
            if cell.role == "check":
                checks.extend(run_check_cell(cell, index, ns))
        tests = [
            name for cell in chosen.values() if "tests" in cell.tags for name in testcells.defined_names(cell.source)
        ]
        if tests:
            checks.extend(
                Check(name, status == PASSED, message, status)
                for name, status, message in testcells.run_tests(ns, tests)
            )
        return LessonResult(checks, None, events)
    finally:
        leave()
        stop_listening()


def cell_filename(index: int, origin: str = "") -> str:
    """The file name a cell's code runs under: `<cell 3>`, or `<lesson 24>` for an earlier lesson's code
    that a later one runs (`mine` runs it with cells left out, so its cell numbers are not the page's)."""
    return f"<lesson {origin}>" if origin else f"<cell {index + 1}>"


CARRIED_CELL = re.compile(r"^<lesson (?P<lesson>[0-9a-z]+)>$")


def carried_from(exc: BaseException) -> str:
    """When the innermost lesson code an error passed through came from an earlier lesson (`mine`), the
    words that say so: " (raised in make_caller, from lesson 24)"; else ""."""
    innermost = None
    tb = exc.__traceback__
    while tb is not None:
        filename = tb.tb_frame.f_code.co_filename
        if filename.startswith("<cell ") or CARRIED_CELL.match(filename):
            innermost = tb.tb_frame.f_code
        tb = tb.tb_next
    match = CARRIED_CELL.match(innermost.co_filename) if innermost else None
    return f" (raised in {innermost.co_name}, from lesson {match['lesson']})" if match else ""


def compile_cell(cell: Cell, index: int, origin: str = ""):
    """A code cell's code object; a tests cell's asserts are rewritten the way pytest does it."""
    filename = cell_filename(index, origin)
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
    return (
        isinstance(stmt, ast.Expr)
        and isinstance(stmt.value, ast.Call)
        and isinstance(stmt.value.func, ast.Name)
        and stmt.value.func.id == "expect"
    )


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
            name = (
                GIVEN.sub("", above[1:].strip())
                if above.startswith("#")
                else ast.get_source_segment(cell.source, claim) or "check"
            )
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
            results.append(Check(name or "check", False, f"{type(exc).__name__}: {exc}{carried_from(exc)}"))
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


def run_file(path, solution: bool = False, on_predict: Callable[[Prediction], None] | None = None) -> LessonResult:
    """Read a lesson file and run it (starter or solution) with its checks."""
    return run_cells(parse(Path(path).read_text(encoding="utf-8")), solution, on_predict=on_predict)
