"""The command line: run a lesson in CPython and see its output and checks.

    python -m looplab list
    python -m looplab run lessons/04-the-loop.py            # the starter code, as a learner has it
    python -m looplab run 4 --solution                      # lesson 04 with the solutions filled in
    python -m looplab run lessons/04-the-loop.py --live     # against LLM_BASE_URL / LLM_MODEL / LLM_API_KEY
    python -m looplab run 4 --trace                         # also print the run's events as they happen
    python -m looplab run 4 --hints                         # also print each exercise's hints (--hints 1: the first only)
    looplab lessons mine                                    # copy the lessons into ./mine to edit them; run/list use them
    looplab notebook 4 [--solution] [-o FILE]               # lesson 04 as a Jupyter notebook (-o -: stdout)
    looplab serve [--port 8000]                             # the site that came with looplab, on 127.0.0.1
    looplab serve --models DIR                              # ... and DIR as the local models' mirror folder
    looplab chat 15 [--solution] [--live]                   # talk to the agent lesson 15 offers (talk.py)
    looplab verify RECORD                                   # replay a "built it" record's lessons (record.py)
    looplab --version

The first line of `list` and `run` says which folder of lessons is used and why (lessonfolder.py):
your copy wins over the one that came with looplab.

As in any Unix tool, what a command makes goes to stdout and what it says about itself (that first
line, where a notebook was written) to stderr: `looplab notebook 4 > four.ipynb` writes the
notebook alone (with stdout a file or a pipe and no -o, the notebook goes there), and
`looplab list | head` ends quietly when head has read enough.

Predict cells print their question, choices and answer where they stand, before the code after
them runs. With a live model, claims that hold only for prepared replies are listed as "not
checked" (–) with what the model did. `run` exits 0 when no check failed, 1 when a check failed
or a cell raised, 2 when the lesson cannot be found. `verify` exits 0 only when every lesson of the
record holds, 1 when one does not, 2 when the file is not a record.
"""

import argparse
import json
import os
import re
import sys
from pathlib import Path

from .. import __version__, trace
from ..modelmode import model_mode
from . import corepath, course, estimate, lessonfile, lessonfolder, notebook, project, record, scratch, serve, talk
from . import lesson as lessons
from .checks import MARKS

LESSONS_OPTION: str | None = None  # --lessons DIR, before the command


def lessons_dir() -> Path | None:
    """The folder of lessons in use (lessonfolder.choose), after printing which on the first line."""
    choice = lessonfolder.choose(Path.cwd(), LESSONS_OPTION)
    say(choice.line())
    return choice.folder


def say(line: str) -> None:
    """A line about the command itself, not what it makes: on stderr, after what stdout has so far."""
    sys.stdout.flush()
    print(line, file=sys.stderr, flush=True)


def find_lesson(name: str) -> Path | None:
    """A path as given, or a lesson number ("4", "04") or slug part ("loop") in the lessons in use."""
    path = Path(name)
    if path.is_file():
        say(f"lessons: {path.resolve().parent} (the file given)")
        return path
    folder = lessons_dir()
    return course.find_in(folder, name) if folder else None


def list_lessons() -> int:
    """Print each lesson, one a line: its file, its place (core, or the core lesson it deepens), its
    time estimate, title and exercise count, and for a deepening what it adds; then the core path's
    and the course's totals and the estimate's rule. 2 when there are no lessons."""
    folder = lessons_dir()
    files = course.lesson_files(folder) if folder else []
    if not files:
        print(f"no lessons found in {folder or 'any folder'}", file=sys.stderr)
        return 2
    places = {}
    for path in files:
        text = path.read_text(encoding="utf-8")
        cells = lessons.parse(text)
        place = places[course.lesson_id(path)] = corepath.place_of(text)
        exercises = sum(c.role == "exercise" for c in cells)
        note = f"  ({exercises} exercise{'s' if exercises != 1 else ''})" if exercises else ""
        where = "" if not place else "core ★" if place.core else f"deepens {place.deepens}"
        adds = f" · adds {place.adds}" if place and not place.core else ""
        minutes = estimate.say(estimate.estimate(cells).minutes)
        print(f"{path.name:<34} {where:<11} {minutes:>10}  {lessonfile.title(cells, path.stem)}{note}{adds}")
    total = corepath.totals(places)
    if total["core_lessons"]:
        print(
            f"\n★ core path: {total['core_lessons']} lessons, about {estimate.say(total['core'])}; "
            f"every lesson: about {estimate.say(total['course'])}"
        )
        print(f"estimate: {estimate.RULE}")
    return 0


def print_prediction(prediction: lessons.Prediction) -> None:
    """A predict cell in the terminal: the question, lettered choices, then the answer and why."""
    print(f"\n? Predict: {prediction.question}")
    for i, choice in enumerate(prediction.choices):
        print(f"    {chr(97 + i)}) {choice}")
    print(f"  Answer: {chr(97 + prediction.answer)}) {prediction.choices[prediction.answer]}")
    for line in prediction.why.splitlines():
        print(f"  {line}")
    print()


def print_hints(cells: list[lessons.Cell], limit: int | None) -> None:
    """Each exercise's hints (the first `limit` of them), numbered."""
    exercises = [i for i, c in enumerate(cells) if c.role == "exercise"]
    for number, index in enumerate(exercises, start=1):
        found = lessons.hints(cells, index)[:limit]
        print(
            f"\nHints for exercise {number} (cell {index + 1}):"
            if found
            else f"\nExercise {number} (cell {index + 1}) has no hints."
        )
        for k, hint in enumerate(found, start=1):
            lines = hint.splitlines() or [""]
            print(f"  {k}. {lines[0]}")
            for line in lines[1:]:
                print(f"     {line}")


def lesson_for(name: str, live: bool) -> Path | None:
    """The lesson a command names (None, said on stderr, when there is none); --live picks the live model."""
    path = find_lesson(name)
    if path is None:
        print(f"no lesson {name!r}; `python -m looplab list` shows them", file=sys.stderr)
    elif live:
        os.environ["LOOPLAB_MODEL"] = "live"
    return path


def run_lesson(
    name: str, live: bool, solution: bool, show_trace: bool, hints: int | None = 0, folder: str | None = None
) -> int:
    """Run one lesson, print its output and checklist; the exit code (0 passed, 1 failed, 2 not found).

    `hints`: 0 prints none, None all, N the first N of each exercise. `folder` (--project DIR): the
    lesson's agent works on a copy of DIR, and what it changed is written as a patch (project_patch).
    """
    if folder is not None and not Path(folder).is_dir():
        print(f"--project {folder}: no such folder", file=sys.stderr)
        return 2
    path = lesson_for(name, live)
    if path is None:
        return 2
    mode = model_mode()
    if folder is not None and mode == "scripted":
        print("--project needs a model that acts on your code: add --live (or LOOPLAB_MODEL=local)", file=sys.stderr)
        return 2
    if folder is not None:
        os.environ["LOOPLAB_PROJECT"] = str(Path(folder).resolve())
    print(f"── {path.name} · {mode} model · {'solution' if solution else 'starter'} code ──")
    stop = trace.listen(trace.printer(sys.stdout)) if show_trace else (lambda: None)
    try:
        cells = lessons.parse(path.read_text(encoding="utf-8"))
        kept = {"__name__": "__lesson__"} if folder else None  # the lesson's folder stays until the patch is written
        result = lessons.run_cells(cells, solution, namespace=kept, on_predict=print_prediction)
        if folder is not None:
            project_patch(path, folder)
    finally:
        stop()
        scratch.close_kept()
    print()
    if result.error:
        print("A cell raised an exception:\n" + result.error + "\n")
    print("Checks:")
    for check in result.checks:
        print(
            f"  {MARKS[check.status]} {check.name}" + ("  (not checked)" if check.status == lessons.NOT_CHECKED else "")
        )
        if not check.ok and check.message:
            for line in check.message.splitlines():
                print(f"      {line}")
    print("\n" + summary(result, mode) + ".")
    if hints != 0:
        print_hints(cells, hints)
    if not result.ok and not solution and any(c.role == "exercise" for c in cells):
        print("This lesson has exercises: edit the starter code, --hints shows hints, --solution runs it solved.")
    return 0 if result.ok else 1


def project_patch(lesson: Path, folder: str) -> None:
    """After a run with --project DIR: what the agent changed in its copy of DIR, written as a patch
    in the current folder and said on stderr; DIR itself is never written."""
    made, now = project.copied(), project.state()
    if not made or now is None or Path(now["root"]) != made["copy"]:
        print(f"--project: lesson {lesson.stem} works on no project of yours; nothing was copied", file=sys.stderr)
        return
    if not now["diff"]:
        print(f"--project: the agent changed nothing in its copy of {made['source']}", file=sys.stderr)
        return
    patch = Path.cwd() / f"{made['source'].name or 'project'}-{lesson.stem[:3].rstrip('-')}.patch"
    patch.write_text(now["diff"], encoding="utf-8")
    changed = len(re.findall(r"^\+\+\+ ", now["diff"], flags=re.M))
    print(
        f"--project: the agent changed {changed} file{'s' if changed != 1 else ''} in its copy of {made['source']} "
        f"(your folder was not touched): {patch}\n  to apply it: cd {made['source']} && git apply {patch}",
        file=sys.stderr,
    )


def chat_lesson(name: str, live: bool, solution: bool) -> int:
    """`chat N`: the conversation with the lesson's agent (talk.py); 2 when the lesson cannot be found."""
    path = lesson_for(name, live)
    if path is None:
        return 2
    return talk.chat(path, solution)


def summary(result: lessons.LessonResult, mode: str) -> str:
    """`7 of 9 checks passed`, with `· 2 not checked with a live model` when some were not evaluated."""
    unchecked = result.count(lessons.NOT_CHECKED)
    text = f"{result.count(lessons.PASSED)} of {len(result.checks) - unchecked} checks passed"
    return text + (f" · {unchecked} not checked with a {mode} model" if unchecked else "")


def copy_lessons(folder: str) -> int:
    """`looplab lessons DIR`: copy the lessons out for editing; later runs use them."""
    dest = Path(folder)
    try:
        written = lessonfolder.copy_out(dest)
    except (OSError, ValueError) as error:
        print(f"looplab lessons: {error}", file=sys.stderr)
        return 1
    kept = len(course.lesson_files(dest)) - sum(p.suffix == ".py" for p in written)
    print(
        f"lessons: {dest.resolve()} (your copy: {len(written)} files copied"
        + (f", {kept} of yours kept as they were" if kept else "")
        + ")"
    )
    print("`looplab list` and `looplab run N` use this copy from now on; edit a lesson there and run it.")
    return 0


def write_notebook(name: str, solution: bool, output: str | None) -> int:
    """`looplab notebook N`: the lesson as a Jupyter notebook, written to a file, or to stdout with
    `-o -` (and with no -o when stdout is a file or a pipe, not a terminal)."""
    path = find_lesson(name)
    if path is None:
        print(f"no lesson {name!r}; `looplab list` shows them", file=sys.stderr)
        return 2
    text = json.dumps(notebook.lesson_notebook(path, solution), indent=1, ensure_ascii=False) + "\n"
    if output == "-" or (output is None and not sys.stdout.isatty()):
        sys.stdout.write(text)
        return 0
    target = Path(output or f"{path.stem}{'-solution' if solution else ''}.ipynb")
    target.write_text(text, encoding="utf-8")
    say(f"wrote {target} ({'solved' if solution else 'starter code'}); open it with `jupyter lab {target}`")
    return 0


VERDICT_MARKS = {record.HOLDS: "✓", record.FAILS: "✗", record.DIFFERS: "≠", record.REFERENCE: "="}


def verify_record(file: str) -> int:
    """`looplab verify RECORD`: replay each lesson; 0 when every lesson holds, 1 when not, 2 when unreadable."""
    try:
        data = record.read_record(json.loads(Path(file).read_text(encoding="utf-8")))
    except (OSError, ValueError) as error:  # JSONDecodeError is a ValueError
        print(f"looplab verify: {file}: {error}", file=sys.stderr)
        return 2
    folder = Path(LESSONS_OPTION) if LESSONS_OPTION else course.packaged_lessons()
    say(f"lessons: {folder} ({'--lessons' if LESSONS_OPTION else 'the ones that came with looplab'})")
    print(
        f"record of {data.get('name') or '(no name)'} · {data.get('scope', 'course')} · made {data.get('made') or '?'}"
    )

    def text_of(slug: str) -> str | None:
        path = (folder / f"{slug}.py") if folder else None
        return path.read_text(encoding="utf-8") if path and path.is_file() else None

    verdicts = record.verify(data, text_of)
    for v in verdicts:
        print(f"  {VERDICT_MARKS[v.verdict]} {v.verdict:<14} {v.slug}")
        if v.verdict != record.HOLDS:
            for line in v.detail.splitlines():
                print(f"      {line}")
    held = sum(v.verdict == record.HOLDS for v in verdicts)
    print(f"\n{held} of {len(verdicts)} lessons hold.")
    return 0 if held == len(verdicts) else 1


def main(argv: list[str] | None = None) -> int:
    """The command line's entry point; returns the exit code. A reader that closed the pipe (`| head`)
    ends the command quietly, with SIGPIPE's exit code, as a Unix tool's."""
    try:
        code = command(argv)
        sys.stdout.flush()  # here, where a closed pipe is caught, not at the interpreter's exit
        return code
    except BrokenPipeError:
        # Python's advice: stdout onto devnull, so the flush at exit raises nothing more
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 128 + 13  # SIGPIPE


def command(argv: list[str] | None) -> int:
    """Parse the arguments and run the command."""
    global LESSONS_OPTION
    parser = argparse.ArgumentParser(prog="looplab", description="Run Loop Lab lessons in CPython.")
    parser.add_argument("--version", action="version", version=f"looplab {__version__}")
    parser.add_argument("--lessons", metavar="DIR", help="use the lessons in DIR")
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("list", help="list the lessons")
    copy = commands.add_parser("lessons", help="copy the lessons into DIR to edit them; list and run then use DIR")
    copy.add_argument("dir", metavar="DIR")
    book = commands.add_parser("notebook", help="write one lesson as a Jupyter notebook")
    book.add_argument("lesson", help="a lesson file, or its number (4) or part of its name (loop)")
    book.add_argument("--solution", action="store_true", help="with each exercise solved")
    book.add_argument(
        "-o",
        "--output",
        metavar="FILE",
        help="where to write it; - for stdout (default: stdout when it is a file or a pipe, else NN-slug.ipynb here)",
    )
    site = commands.add_parser("serve", help="serve the site that came with looplab on 127.0.0.1")
    site.add_argument("--port", default="8000", help="0 picks a free port")
    site.add_argument("--host", default="127.0.0.1")
    site.add_argument("--dir", help="another built site")
    site.add_argument("--quiet", action="store_true", help="do not log requests")
    site.add_argument("--models", metavar="DIR", help="serve DIR as the local models' mirror folder")
    run = commands.add_parser("run", help="run one lesson and its checks")
    run.add_argument("lesson", help="a lesson file, or its number (4) or part of its name (loop)")
    run.add_argument(
        "--live",
        action="store_true",
        help="use the live model (LLM_BASE_URL, LLM_API_KEY, LLM_MODEL from the environment)",
    )
    run.add_argument("--solution", action="store_true", help="run each exercise's solution")
    run.add_argument("--trace", action="store_true", help="print every run's events as they happen")
    run.add_argument(
        "--hints",
        nargs="?",
        type=int,
        const=-1,
        default=0,
        metavar="N",
        help="print each exercise's hints after the checks (N: only the first N)",
    )
    run.add_argument(
        "--project",
        metavar="DIR",
        help="lesson 25's coding agent works on a copy of DIR, with --live; what it changed is written as a patch",
    )
    talking = commands.add_parser("chat", help="talk to the agent a lesson offers")
    talking.add_argument("lesson", help="a lesson file, or its number (15) or part of its name")
    talking.add_argument("--live", action="store_true", help="use the live model, as for run")
    talking.add_argument("--solution", action="store_true", help="run each exercise's solution first")
    check = commands.add_parser("verify", help="replay a built-it record: does each lesson's code pass its checks?")
    check.add_argument("record", metavar="RECORD", help="a record file exported from the course map")
    args = parser.parse_args(argv)
    if sys.stdout.encoding and not re.match(r"(?i)utf-?8", sys.stdout.encoding):
        try:
            sys.stdout.reconfigure(errors="replace")
        except (AttributeError, ValueError):
            pass
    LESSONS_OPTION = args.lessons
    lessonfolder.GIVEN = str(Path(args.lessons).resolve()) if args.lessons else None
    if args.command == "list":
        return list_lessons()
    if args.command == "lessons":
        return copy_lessons(args.dir)
    if args.command == "notebook":
        return write_notebook(args.lesson, args.solution, args.output)
    if args.command == "verify":
        return verify_record(args.record)
    if args.command == "chat":
        return chat_lesson(args.lesson, args.live, args.solution)
    if args.command == "serve":
        return serve.main(
            [
                "--port",
                args.port,
                "--host",
                args.host,
                *(["--dir", args.dir] if args.dir else []),
                *(["--quiet"] if args.quiet else []),
                *(["--models", args.models] if args.models else []),
            ],
            prog="looplab serve",
        )
    hints = None if args.hints == -1 else args.hints
    return run_lesson(args.lesson, args.live, args.solution, args.trace, hints, args.project)
