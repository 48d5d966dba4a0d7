"""The command line: run a lesson in CPython and see its output and checks.

    python -m looplab list
    python -m looplab run lessons/04-the-loop.py            # the starter code, as a learner has it
    python -m looplab run 4 --solution                      # lesson 04 with the solutions filled in
    python -m looplab run lessons/04-the-loop.py --live     # against LLM_BASE_URL / LLM_MODEL / LLM_API_KEY
    python -m looplab run 4 --trace                         # also print the run's events as they happen

`run` exits 0 when every check passed, 1 when a check failed or a cell raised, 2 when the lesson
cannot be found.
"""

import argparse
import os
import re
import sys
from pathlib import Path

from . import lesson as lessons
from . import trace


def lessons_dir() -> Path:
    """lessons/ in the current directory, else the one next to the package (a source checkout)."""
    here = Path.cwd() / "lessons"
    if here.is_dir():
        return here
    return Path(__file__).resolve().parents[2] / "lessons"


def find_lesson(name: str) -> Path | None:
    """A path as given, or a lesson number ("4", "04") or slug part ("loop") inside lessons/."""
    path = Path(name)
    if path.is_file():
        return path
    folder = lessons_dir()
    files = sorted(folder.glob("[0-9][0-9]-*.py")) if folder.is_dir() else []
    if name.isdigit():
        return next((f for f in files if f.name.startswith(f"{int(name):02d}-")), None)
    matches = [f for f in files if name in f.stem]
    return matches[0] if len(matches) == 1 else None


def title_of(path: Path) -> str:
    """The lesson's first markdown heading, without the #."""
    for cell in lessons.parse(path.read_text(encoding="utf-8")):
        if cell.kind == "markdown":
            for line in cell.source.splitlines():
                if line.startswith("#"):
                    return line.lstrip("# ").strip()
    return path.stem


def list_lessons() -> int:
    """Print each lesson with its title and exercise count; 2 when there are none."""
    folder = lessons_dir()
    files = sorted(folder.glob("[0-9][0-9]-*.py")) if folder.is_dir() else []
    if not files:
        print(f"no lessons found in {folder}", file=sys.stderr)
        return 2
    for path in files:
        cells = lessons.parse(path.read_text(encoding="utf-8"))
        exercises = sum(c.role == "exercise" for c in cells)
        note = f"  ({exercises} exercise{'s' if exercises != 1 else ''})" if exercises else ""
        print(f"{path.name:<34} {title_of(path)}{note}")
    return 0


def run_lesson(name: str, live: bool, solution: bool, show_trace: bool) -> int:
    """Run one lesson, print its output and checklist; the exit code (0 passed, 1 failed, 2 not found)."""
    path = find_lesson(name)
    if path is None:
        print(f"no lesson {name!r}; `python -m looplab list` shows them", file=sys.stderr)
        return 2
    os.environ["LOOPLAB_MODEL"] = "live" if live else os.environ.get("LOOPLAB_MODEL", "scripted")
    mode = os.environ["LOOPLAB_MODEL"] if os.environ["LOOPLAB_MODEL"] == "live" else "scripted"
    print(f"── {path.name} · {mode} model · {'solution' if solution else 'starter'} code ──")
    stop = trace.listen(trace.printer(sys.stdout)) if show_trace else (lambda: None)
    try:
        result = lessons.run_file(path, solution=solution)
    finally:
        stop()
    print()
    if result.error:
        print("A cell raised an exception:\n" + result.error + "\n")
    print("Checks:")
    for check in result.checks:
        print(f"  {'✓' if check.ok else '✗'} {check.name}")
        if not check.ok and check.message:
            for line in check.message.splitlines():
                print(f"      {line}")
    passed = sum(c.ok for c in result.checks)
    print(f"\n{passed} of {len(result.checks)} checks passed.")
    if not result.ok and not solution and any(c.role == "exercise" for c in
                                              lessons.parse(path.read_text(encoding="utf-8"))):
        print("This lesson has exercises: edit the starter code, or add --solution to see it solved.")
    return 0 if result.ok else 1


def main(argv: list[str] | None = None) -> int:
    """The command line's entry point; returns the exit code."""
    parser = argparse.ArgumentParser(prog="python -m looplab",
                                     description="Run Loop Lab lessons in CPython.")
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("list", help="list the lessons")
    run = commands.add_parser("run", help="run one lesson and its checks")
    run.add_argument("lesson", help="a lesson file, or its number (4) or part of its name (loop)")
    run.add_argument("--live", action="store_true",
                     help="use the live model (LLM_BASE_URL, LLM_API_KEY, LLM_MODEL from the environment)")
    run.add_argument("--solution", action="store_true", help="run each exercise's solution")
    run.add_argument("--trace", action="store_true", help="print every run's events as they happen")
    args = parser.parse_args(argv)
    if sys.stdout.encoding and not re.match(r"(?i)utf-?8", sys.stdout.encoding):
        try:
            sys.stdout.reconfigure(errors="replace")
        except (AttributeError, ValueError):
            pass
    if args.command == "list":
        return list_lessons()
    return run_lesson(args.lesson, args.live, args.solution, args.trace)


if __name__ == "__main__":
    sys.exit(main())
