"""A lesson's own tests: `def test_*` functions written in the lesson, run by pytest in-process.

A cell tagged `tests` (`# %% tags=["tests"]`, or an exercise or solution tagged `"tests"` too)
holds pytest test functions (and fixtures). It runs in order like any code cell, compiled with
pytest's assertion rewriting, so a failing `assert a == b` says what `a` and `b` were. After the
check cells, `run_tests` hands the functions those cells defined to `pytest.main`, with a small
plugin that collects them from the lesson's namespace (no file is imported) and records each
outcome. Each test becomes one check:

    name          the test's docstring's first line, else its name; a parametrized test adds its id
    passed        the test passed
    failed        it failed or raised: pytest's assertion explanation, shortened
    not checked   it was skipped; `expect(...)` inside a test skips it with a live or local model

One printed line sums the run up ("pytest ran 19 tests: 19 passed (0.05 s)"). The same code runs
in CPython and in Pyodide (the page loads pytest from the site when a lesson imports it). Run as a
plain script, a lesson calls `run_here(globals())` at the end to run its tests the same way.
"""

import ast
import inspect
import sys
import tempfile
import time
import types
from pathlib import Path

from .checks import FAILED, MARKS, NOT_CHECKED, PASSED, STATUSES
from .lessonfile import parse, program

NO_PYTEST = (
    "pytest is not installed here, so the lesson's tests cannot run: `pip install pytest` "
    "(the web page loads it by itself)"
)
MESSAGE_LINES, MESSAGE_CHARS = 8, 600  # a check message stays short; the summary is in pytest's output
RUNNING = False  # True while run_tests is inside pytest.main: `expect` then skips instead of printing


def compile_tests(source: str, filename: str):
    """Compile a tests cell, with pytest's assertion rewriting when pytest is installed."""
    tree = ast.parse(source, filename)
    try:
        from _pytest.assertion.rewrite import rewrite_asserts
    except ImportError:
        return compile(tree, filename, "exec")
    rewrite_asserts(tree, source.encode(), filename)
    return compile(tree, filename, "exec")


def defined_names(source: str) -> list[str]:
    """The names a tests cell defines at its top level (functions, classes, assignments)."""
    names = []
    for stmt in ast.parse(source).body:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.append(stmt.name)
        elif isinstance(stmt, (ast.Assign, ast.AnnAssign)):
            for target in stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]:
                names.extend(n.id for n in ast.walk(target) if isinstance(n, ast.Name))
    return names


def test_names(source: str) -> list[str]:
    """The check names a tests cell's test functions will have (before any parametrization)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return ["the lesson's tests"]
    return [
        check_name(ast.get_docstring(stmt), stmt.name)
        for stmt in tree.body
        if isinstance(stmt, ast.FunctionDef) and stmt.name.startswith("test")
    ]


def check_name(doc: str | None, name: str, param: str | None = None) -> str:
    """A test's check name: its docstring's first line, else its name; plus `[id]` when parametrized."""
    base = doc.strip().splitlines()[0].strip() if doc and doc.strip() else name
    return f"{base} [{param}]" if param else base


def shorten(text: str) -> str:
    """pytest's explanation, cut to a few lines (no "Use -v" advice: the page has no -v)."""
    lines = [
        line.rstrip()
        for line in str(text).strip().splitlines()
        if line.strip() and not any(advice in line for advice in ("Use -v", "use -vv", "Full diff"))
    ]
    out = "\n".join(lines[:MESSAGE_LINES])
    if len(lines) > MESSAGE_LINES or len(out) > MESSAGE_CHARS:
        out = out[:MESSAGE_CHARS].rstrip() + " …"
    return out


def problem(excinfo) -> str:
    """What a failed test raised: an assertion's explanation, or the exception's type and text."""
    exc = excinfo.value
    if isinstance(exc, AssertionError):
        return shorten(str(exc) or "assert failed (the assert has no message)")
    return shorten(f"{type(exc).__name__}: {exc}")


def skip_reason(report) -> str:
    """Why a test was skipped (or xfailed), as pytest recorded it."""
    if getattr(report, "wasxfail", None) is not None:
        return shorten(f"expected to fail: {report.wasxfail}" if report.wasxfail else "expected to fail")
    longrepr = report.longrepr
    reason = longrepr[2] if isinstance(longrepr, tuple) and len(longrepr) == 3 else str(longrepr)
    return shorten(reason.removeprefix("Skipped: ") or "skipped")


class Recorder:
    """The pytest plugin: collect the lesson's functions, record (name, status, message) per test."""

    def __init__(self, module: types.ModuleType):
        self.module = module
        self.results: dict[str, list] = {}  # nodeid -> [name, status, message], in running order
        self.raised: dict[tuple, object] = {}  # (nodeid, phase) -> what the phase raised
        self.names: dict[str, str] = {}
        self.collect_errors: list[str] = []
        self.interrupted = False

    def pytest_keyboard_interrupt(self, excinfo):
        self.interrupted = True  # Stop in the page (or Ctrl+C): pytest ends the session and says so

    def pytest_pycollect_makemodule(self, module_path, parent):
        import pytest

        module = self.module

        class LessonModule(pytest.Module):
            def _getobj(self):
                return module  # the lesson's functions: nothing is imported from the file

        return LessonModule.from_parent(parent, path=module_path)

    def pytest_collectreport(self, report):
        if report.failed:
            self.collect_errors.append(shorten(str(report.longrepr)))

    def pytest_runtest_makereport(self, item, call):
        # Only looks: returning None leaves the report to pytest. The exception is kept for its message.
        self.raised[(item.nodeid, call.when)] = call.excinfo
        param = getattr(getattr(item, "callspec", None), "id", None)
        self.names[item.nodeid] = check_name(inspect.getdoc(getattr(item, "obj", None)), item.originalname, param)

    def pytest_runtest_logreport(self, report):
        # A test runs in three phases (setup, call, teardown); the first that does not pass decides.
        earlier = self.results.get(report.nodeid)
        if earlier and earlier[1] != PASSED:
            return
        name = self.names.get(report.nodeid, report.nodeid)
        if report.skipped:
            self.results[report.nodeid] = [name, NOT_CHECKED, skip_reason(report)]
        elif report.failed:
            excinfo = self.raised.get((report.nodeid, report.when))
            what = problem(excinfo) if excinfo is not None else shorten(str(report.longrepr))
            where = "" if report.when == "call" else f"in {report.when}: "
            self.results[report.nodeid] = [name, FAILED, where + what]
        elif report.when == "call":
            self.results[report.nodeid] = [name, PASSED, ""]


def pytest_args(path: Path) -> list[str]:
    """A quiet run of one file, with no plugins from outside and nothing written beside it.

    pytest's terminal report is off: on a Stop it formats the whole traceback of the interrupt,
    which in Pyodide takes longer than the page waits for Python to stop (about 1 s, against
    0.1 s without it). `summary` prints one line instead. So is its unraisableexception plugin:
    it ends every session, a stopped one too, with a gc.collect() of the lesson's whole heap
    (0.1 s of the 0.11 s pytest took to end after a Stop; 1 s under load, past Stop's deadline).
    """
    return [
        str(path),
        "-s",
        "--disable-plugin-autoload",
        "--continue-on-collection-errors",
        "-p",
        "no:terminal",
        "-p",
        "no:cacheprovider",
        "-p",
        "no:faulthandler",
        "-p",
        "no:stepwise",
        "-p",
        "no:unraisableexception",
    ]


def run_tests(namespace: dict, names: list[str]) -> list[tuple[str, str, str]]:
    """Run the test functions among `names` of `namespace` with pytest: (name, status, message) each."""
    try:
        import pytest
    except ImportError:
        return [("the lesson's tests", FAILED, NO_PYTEST)]
    global RUNNING
    module = types.ModuleType("lesson_tests")
    module.__dict__.update({n: namespace[n] for n in names if n in namespace})
    recorder = Recorder(module)
    with tempfile.TemporaryDirectory() as folder:
        # pytest.ini makes the folder the root: no config, conftest or cache from anywhere else
        # (and test ids as written: "14°C", not "14\\xb0C")
        Path(folder, "pytest.ini").write_text(
            "[pytest]\ndisable_test_id_escaping_and_forfeit_all_rights_to_community_support = true\n"
        )
        path = Path(folder, "test_lesson.py")
        path.write_text("# the lesson's tests cells, collected from the lesson's namespace\n")
        RUNNING, started = True, time.perf_counter()
        try:
            pytest.main(pytest_args(path), plugins=[recorder])
        finally:
            RUNNING = False
    if recorder.interrupted:  # pytest caught it and ended its session; the run must stop too
        raise KeyboardInterrupt("stopped during the lesson's tests")
    results = [tuple(r) for r in recorder.results.values()]
    print(summary(results, time.perf_counter() - started))
    results += [("collecting the lesson's tests", FAILED, e) for e in recorder.collect_errors]
    if not results:
        results.append(
            ("the lesson's tests", FAILED, "pytest found no tests: a test is a function whose name starts with test_")
        )
    return results


def summary(results: list[tuple[str, str, str]], seconds: float) -> str:
    """One line about a run: "pytest ran 19 tests: 17 passed, 2 not checked (0.05 s)"."""
    counts = {status: sum(r[1] == status for r in results) for status in STATUSES}
    parts = ", ".join(f"{n} {status}" for status, n in counts.items() if n) or "none collected"
    return f"pytest ran {len(results)} test{'s' if len(results) != 1 else ''}: {parts} ({seconds:.2f} s)"


def run_here(namespace: dict) -> None:
    """For a lesson run as a plain script or a notebook: run its tests with pytest, print the checklist.

    From a file, the tests cells are compiled again with assertion rewriting (a plain import does
    not rewrite); in a notebook, the `test_*` functions its cells defined run as they are;
    exits with status 1 when a test failed, as a failing check cell would.
    """
    path = Path(namespace.get("__file__", ""))
    if path.is_file():
        cells = parse(path.read_text(encoding="utf-8"))
        names = []
        for index, cell in program(cells, solution=True):
            if "tests" in cell.tags:
                exec(compile_tests(cell.source, f"<cell {index + 1}>"), namespace)
                names += defined_names(cell.source)
    else:  # a notebook (no file): the tests its cells defined, as they ran
        names = [name for name, value in namespace.items() if name.startswith("test_") and callable(value)]
    results = run_tests(namespace, names)
    for name, status, message in results:
        print(f"{MARKS[status]} {name}" + (f"\n    {message}".replace("\n", "\n    ") if message else ""))
    if any(status == FAILED for _, status, _ in results):
        sys.exit(1)
