"""A project's own tests, run by pytest in-process: what a coding agent's `run_tests` tool reads.

There is no `subprocess` in Pyodide ("emscripten does not support processes"), so the tests run
inside this Python with `pytest.main`, the same in CPython and in the page:

    run = project_tests("/tmp/shop")          # every test under the folder
    run.passed, run.failed, run.errors        # ids; (id, message) pairs; collection errors as sentences
    run.summary()                             # "4 passed, 2 failed"

Before each run the project's modules are dropped from `sys.modules`, and no bytecode is written,
so an edit made a moment ago is what the tests import (a cached `.pyc` of the same size and second
would otherwise hide it). A test file that does not even compile is a collection error: a
sentence naming the file and the line, never an exception.

A run is remembered by what decides it: the name and bytes of every file in the project, the path
and the ids. The same files again give the same run without pytest starting again (the coding
lessons' checks try one fix on many copies of a project; in lesson 26 two runs in three were
repeats), with the folder it was asked for in its messages. `fresh=True` runs the tests anyway:
for tests that read the clock, the network or files outside the project.
"""

import functools
import hashlib
import importlib
import re
import os
import sys
from collections import OrderedDict
from dataclasses import dataclass, field
from pathlib import Path

MESSAGE_CHARS = 300  # one failure's message, cut: the model reads every one of them
REMEMBERED = 256  # runs kept by what the project's files hold, the oldest forgotten first
LARGEST = 200  # files in a project whose runs are remembered: a larger one is read by pytest alone
HERE = "\x00project\x00"  # stands for the project's folder in a remembered run


@dataclass
class TestRun:
    """What one pytest run found: the ids that passed, the failures with their messages, errors."""

    __test__ = False  # a result, not a test class for pytest to collect
    passed: list[str] = field(default_factory=list)
    failed: list[tuple[str, str]] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """True when at least one test ran, none failed and nothing failed to collect."""
        return bool(self.passed) and not self.failed and not self.errors

    def summary(self) -> str:
        """ "4 passed, 2 failed, 1 error" """
        parts = [f"{len(self.passed)} passed", f"{len(self.failed)} failed"]
        if self.errors:
            parts.append(f"{len(self.errors)} error{'s' if len(self.errors) != 1 else ''}")
        return ", ".join(parts)


def cut(text: str, limit: int = MESSAGE_CHARS) -> str:
    """A message on few lines, cut to `limit` characters with … when longer."""
    lines = [
        line.rstrip()
        for line in str(text).strip().splitlines()
        if line.strip() and not any(advice in line for advice in ("Use -v", "use -vv", "Full diff"))
    ]
    text = "\n".join(lines)
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


class Collector:
    """The pytest plugin: each test's outcome, and each file that failed to collect."""

    def __init__(self, run: TestRun):
        self.run = run
        self.interrupted = False

    def pytest_keyboard_interrupt(self, excinfo):
        self.interrupted = True  # Stop in the page (or Ctrl+C): the run must stop too

    def pytest_runtest_logreport(self, report):
        if report.failed:
            crash = getattr(report.longrepr, "reprcrash", None)
            message = crash.message if crash is not None else str(report.longrepr)
            where = "" if report.when == "call" else f"(in {report.when}) "
            self.run.failed.append((report.nodeid, cut(where + message)))
        elif report.passed and report.when == "call":
            self.run.passed.append(report.nodeid)

    def pytest_collectreport(self, report):
        if report.failed:
            text = str(report.longrepr)
            last = [line for line in text.splitlines() if line.strip()][-1:] or [text]
            found = re.findall(r'File "[^"]*", line (\d+)', text)  # the innermost: the test file's own line
            line = found[-1] if found else None
            where = f"{report.nodeid or 'a test file'}"
            self.run.errors.append(
                cut(
                    f"{where} could not be collected: {last[0].lstrip('E ').strip()}"
                    + (f" (see line {line})" if line and "line" not in last[0] else "")
                )
            )


@functools.cache
def real_path(file: str) -> Path:
    """A module file's real path (symlinks resolved), worked out once: sys.modules holds hundreds."""
    return Path(file).resolve()


def forget_modules_under(root: Path) -> None:
    """Drop the modules imported from `root` so the next import reads the files as they are now."""
    for name, module in list(sys.modules.items()):
        file = getattr(module, "__file__", None)
        if file and real_path(file).is_relative_to(root):
            del sys.modules[name]
    importlib.invalidate_caches()


_remembered: OrderedDict[str, TestRun] = OrderedDict()


def files_key(root: Path, path: str, ids: list[str] | None) -> str | None:
    """What decides a run of the tests under `root`: each file's name and bytes, the path and the
    ids; None when the project has more than LARGEST files."""
    digest = hashlib.sha256(repr((path, ids)).encode())
    files = sorted(f for f in root.rglob("*") if f.is_file() and "__pycache__" not in f.parts)
    if len(files) > LARGEST:
        return None
    for file in files:
        data = file.read_bytes()
        digest.update(f"{file.relative_to(root).as_posix()}\0{len(data)}\0".encode())
        digest.update(data)
    return digest.hexdigest()


def moved(run: TestRun, old: str, new: str) -> TestRun:
    """The same run with the folder `old` named `new` in its ids and messages."""
    return TestRun(
        passed=[i.replace(old, new) for i in run.passed],
        failed=[(i.replace(old, new), m.replace(old, new)) for i, m in run.failed],
        errors=[e.replace(old, new) for e in run.errors],
    )


def project_tests(root, path: str = ".", ids: list[str] | None = None, fresh: bool = False) -> TestRun:
    """Run the tests under `root / path` (or just `ids`, pytest node ids) with pytest, in-process;
    the same files as a run before give that run again, unless `fresh`."""
    root = Path(root).resolve()
    key = None if fresh else files_key(root, path, ids)
    if key in _remembered:
        _remembered.move_to_end(key)
        return moved(_remembered[key], HERE, str(root))
    run = pytest_run(root, path, ids)
    if key is not None:
        _remembered[key] = moved(run, str(root), HERE)
        while len(_remembered) > REMEMBERED:
            _remembered.popitem(last=False)
    return run


def pytest_run(root: Path, path: str, ids: list[str] | None) -> TestRun:
    """One pytest session over the tests under `root / path` (or `ids`)."""
    import pytest  # loaded only when tests run: the page fetches it for lessons that import it

    run = TestRun()
    targets = [str(root / i) for i in ids] if ids else [str(root / path)]
    # --confcutdir: with `-c /dev/null` pytest would take /dev's parent as the limit and list every
    # entry of the folders above root (all of /tmp) on each run. unraisableexception's gc.collect()
    # at the end of a session costs a lesson's whole heap each time, and reports only warnings.
    args = [
        *targets,
        "--rootdir",
        str(root),
        "-c",
        os.devnull,
        "--confcutdir",
        str(root),
        "--import-mode=importlib",
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
    forget_modules_under(root)
    sys.path.insert(0, str(root))
    writes_bytecode, sys.dont_write_bytecode = sys.dont_write_bytecode, True
    try:
        collector = Collector(run)
        code = pytest.main(args, plugins=[collector])
    finally:
        sys.dont_write_bytecode = writes_bytecode
        sys.path.remove(str(root))
        forget_modules_under(root)
    if collector.interrupted:
        raise KeyboardInterrupt("stopped during the project's tests")
    if code == pytest.ExitCode.USAGE_ERROR:
        run.errors.append(f"pytest could not run {path!r}: is it a file or folder inside the project?")
    return run
