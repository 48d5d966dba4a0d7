"""Your code carries forward: `mine(N)` gives what you wrote in lesson N's exercises, checked.

    my = mine(2)          # lesson 02's exercise cells, as you wrote them
    box = my.MyToolbox()  # yours if lesson 02's checks pass with it, else the reference solution
    my.yours, my.reference, my.note

Lesson N is read as the learner has it: in the CLI (and a lesson run as a plain script) the lesson
file as edited, from the lessons folder in use (lessonfolder.choose: `--lessons DIR`, $LOOPLAB_LESSONS, the current
folder or its lessons/, the learner's copy, the packaged course); in the page, the worker's
bridge calls `provide(texts)` with a function that gives a lesson's text with the learner's saved
edits in its exercise cells (with none, the lesson file as the site serves it). The lesson then runs, scripted and with nobody listening to its trace,
and its checks decide. An exercise still holding the starter code (as the course's own copy of the
lesson, or the site's file, has it) is the reference, untried: lesson N runs once, with your
edited exercises beside the reference of the others.

- every check passes: your edited exercises are yours;
- otherwise (and only then: the run a lesson costs when it holds the starter, or passes, is one)
  each edited exercise is tried alone, yours beside the reference solutions of the others: an
  exercise whose cells pass that way is yours, the others are the reference, and `note` says so
  in one sentence, naming the names that are yours and those that are not.

Either way `note` is printed (once per text: each is run once per process, cached on the text,
so a lesson may call `mine(2)` freely).

In the page, a lesson whose saved code came from elsewhere (a share link, a progress file, a
notebook) is never carried into another lesson's run, which may hold the learner's key: the bridge
names where it came from (`provide`'s `elsewhere`), and lesson N then runs as the site has it, with
the reference solution, and `note` says why.
"""

import contextlib
import io
import json
import os
import subprocess
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from .. import http, trace
from . import course, lessonfolder, testcells
from .lesson import LessonResult, run_cells
from .lessonfile import Cell, parse, playing, solution_index

_provider: Callable[[str], str | None] | None = None
_elsewhere: dict[str, str] = {}  # lesson id -> where its saved code came from, in the page ("link", ...)
_cache: dict[tuple[str, str | None], "Mine"] = {}
_untouched: set[str] = set()  # lesson texts known to hold only the starter code

# Where code came from, as the page names it (web/src/page/lesson/foreign.js), in a sentence's words.
FROM = {"link": "a link", "progress file": "a progress file", "notebook": "a notebook", "record": "a record"}


def provide(texts: Callable[[str], str | None] | None, elsewhere: dict[str, str] | None = None) -> None:
    """Where lesson texts come from: `texts(lesson_id)` gives the text as the learner has it, or None
    (then the file is read). `elsewhere`: the lessons whose saved code came from elsewhere ({lesson id:
    "link" | "progress file" | "notebook"}), never used: their own file runs, with the reference.
    The page's bridge sets both from the learner's saved edits; None resets."""
    global _provider, _elsewhere
    _provider = texts
    _elsewhere = dict(elsewhere or {})
    _cache.clear()


@dataclass
class Mine:
    """The names an earlier lesson's exercises define, each the learner's or the reference's."""

    lesson: str
    values: dict = field(default_factory=dict)
    yours: list[str] = field(default_factory=list)
    reference: list[str] = field(default_factory=list)
    note: str = ""

    def __getattr__(self, name: str):
        values = self.__dict__.get("values", {})
        if name in values:
            return values[name]
        raise AttributeError(
            f"lesson {self.lesson}'s exercises define no {name!r}; they define {', '.join(values) or 'nothing'}"
        )

    def __getitem__(self, name: str):
        return self.values[name]


def lesson_text(number: str) -> tuple[str, str]:
    """(lesson id, text as the learner has it) for a lesson number such as 2, "04" or "1b"."""
    wanted, text, _ = lesson_source(number)
    return wanted, text


def lesson_source(number: str) -> tuple[str, str, Path | None]:
    """lesson_text, and the file the text was read from (None: the page's saved edits or the site)."""
    choice = lessonfolder.choose(Path.cwd())
    path = course.find_in(choice.folder, str(number)) if choice.folder else None
    wanted = course.lesson_id(path) if path else course.number_id(number) or str(number)
    text = _provider(wanted) if _provider and wanted not in _elsewhere else None
    source = None
    if text is None and path is not None:
        text, source = path.read_text(encoding="utf-8"), path
    if text is None and http.IN_BROWSER:
        text = from_site(wanted)
        if text is not None:
            _untouched.add(text)  # no saved edits: the exercises are the starters, nothing to try
    if text is None:
        raise LookupError(f"there is no lesson {number} ({choice.line()})")
    return wanted, text, source


def starters(wanted: str, source: Path | None) -> list[Cell] | None:
    """Lesson `wanted` as it came, its exercises holding the starter code: the course's own copy
    (the site's file in the page), or, when the learner edits that very file (a source checkout's
    lessons/), its committed text; None when there is none."""
    folder = course.packaged_lessons()
    path = course.find_in(folder, wanted) if folder else None
    if path is not None and source is not None and path.resolve() == source.resolve():
        text = committed(path)
    elif path is not None:
        text = path.read_text(encoding="utf-8")
    else:
        text = from_site(wanted) if http.IN_BROWSER else None
    return parse(text) if text is not None else None


def committed(path: Path) -> str | None:
    """A source checkout's lesson file as git has it committed, or None (no git, not a checkout)."""
    if http.IN_BROWSER:
        return None
    try:
        shown = subprocess.run(
            ["git", "-C", str(path.parent), "show", f"HEAD:./{path.name}"], capture_output=True, timeout=30
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return shown.stdout.decode("utf-8", errors="replace") if shown.returncode == 0 else None


def untouched(cells: list[Cell], starter: list[Cell] | None, every: list[int]) -> set[int]:
    """The exercises the learner has not edited: their code is the starter's, nothing to try."""
    if starter is None or [c.role for c in starter] != [c.role for c in cells]:
        return set()
    return {i for i in every if cells[i].source.strip() == starter[i].source.strip()}


def from_site(wanted: str) -> str | None:
    """In the page with no saved edits: the lesson file as the site serves it (lessons/index.json)."""
    status, _, body = http.get_json("lessons/index.json", timeout=30)
    if status != 200:
        return None
    found = [e["file"] for e in json.loads(body).get("lessons", []) if e.get("number") == wanted]
    if not found:
        return None
    status, _, body = http.get_json(f"lessons/{found[0]}", timeout=30)
    return body if status == 200 else None


def exercises(cells: list[Cell]) -> list[int]:
    """The indexes of the exercise cells that have a solution."""
    return [i for i, c in enumerate(cells) if c.role == "exercise" and solution_index(cells, i) is not None]


def with_choice(cells: list[Cell], learners: set[int]) -> list[Cell]:
    """The lesson with the learner's exercise cells at `learners` and the reference solution elsewhere
    (run as the starter; the solution cells stay, for the checks that compare with them)."""
    return playing(cells, {i: cells[i].source for i in learners})


def quietly(cells: list[Cell], lesson: str = "") -> tuple[LessonResult, dict]:
    """Run cells scripted, printing nothing and tracing to nobody: (result, namespace). The code runs
    as lesson `lesson`'s, so an error raised in it later names that lesson."""
    ns = {"__name__": "__lesson__"}
    before = os.environ.get("LOOPLAB_MODEL")
    os.environ["LOOPLAB_MODEL"] = "scripted"  # a lesson's own checks are the scripted ones
    try:
        with trace.muted(), contextlib.redirect_stdout(io.StringIO()):
            result = run_cells(cells, namespace=ns, origin=lesson)
    finally:
        if before is None:
            os.environ.pop("LOOPLAB_MODEL", None)
        else:
            os.environ["LOOPLAB_MODEL"] = before
    return result, ns


def names_of(cells: list[Cell], index: int) -> list[str]:
    """The names an exercise cell (and its solution) define."""
    names = []
    for cell in (cells[index], cells[solution_index(cells, index)]):
        try:
            names += [n for n in testcells.defined_names(cell.source) if n not in names]
        except SyntaxError:
            continue
    return names


def first_failure(result: LessonResult) -> str:
    """The first thing that went wrong in a run, in a few words."""
    if result.error:
        return result.error.strip().splitlines()[-1]
    failed = next((c for c in result.checks if not c.ok and c.status != "not checked"), None)
    return f"the check \u201c{failed.name}\u201d fails" if failed else "no check passed"


def load_packages(text: str) -> None:
    """In the page: the packages lesson N's code imports (lesson 17 runs pytest), loaded from the site
    first. The worker loads what the cells of a run import; an earlier lesson's imports are not among
    them. Waiting for the load needs stack switching (JSPI); without it lesson N's run says what is
    missing, as before."""
    if not http.IN_BROWSER:
        return
    try:
        import pyodide_js  # the Pyodide instance: only importable inside Pyodide
        from pyodide.ffi import can_run_sync, run_sync
    except ImportError:
        return
    if can_run_sync():
        run_sync(pyodide_js.loadPackagesFromImports(text))


def mine(number) -> Mine:
    """The learner's definitions from lesson `number`'s exercises; the reference where theirs fail.

    Lesson `number` runs once: with the exercises the learner edited (those still holding the
    starter code are the reference, untried), or with the reference alone when none is edited or
    its saved code came from elsewhere. Only when that run fails is each edited exercise tried
    alone, to say which parts are whose."""
    lesson, text, source = lesson_source(number)
    where = _elsewhere.get(lesson)
    if (text, where) in _cache:
        return _cache[text, where]
    load_packages(text)
    cells = parse(text)
    every = exercises(cells)
    names = {i: names_of(cells, i) for i in every}
    if where is not None or text in _untouched:  # code from elsewhere is never tried; the starter needs no try
        edited = set()
    else:
        edited = set(every) - untouched(cells, starters(lesson, source), every)
    result, ns = quietly(with_choice(cells, edited), lesson)
    if where is not None:
        yours, why = set(), f"its saved code came from {FROM.get(where, 'elsewhere')}"
    elif not edited:
        yours, why = set(), "its exercises still hold the starter code"
    elif result.ok:
        yours = edited
        why = "" if yours == set(every) else "those still hold the starter code"
    else:
        why = f"with your code there {first_failure(result)}"
        alone = {i: quietly(with_choice(cells, {i}), lesson) for i in edited} if len(edited) > 1 else {}
        yours = {i for i in alone if alone[i][0].ok}
        result, ns = alone[min(yours)] if len(yours) == 1 else quietly(with_choice(cells, yours), lesson)
        if not result.ok:  # each passes alone but not together: the reference throughout
            yours = set()
            result, ns = quietly(with_choice(cells, set()), lesson)
    if not result.ok:
        raise RuntimeError(
            f"lesson {lesson}'s reference solution fails its own checks "
            f"({first_failure(result)}); this is a bug in the course"
        )
    found = Mine(lesson)
    for i in every:
        for name in names[i]:
            if name in ns:
                found.values[name] = ns[name]
                (found.yours if i in yours else found.reference).append(name)
    found.note = describe(lesson, found, why, elsewhere=where is not None)
    print(found.note)  # the learner sees whose parts this lesson runs on, theirs or the reference
    _cache[text, where] = found
    return found


def describe(lesson: str, found: Mine, why: str, elsewhere: bool = False) -> str:
    """One sentence: whose parts these are, and why the reference stands in."""

    def listed(names: list[str]) -> str:
        return ", ".join(names) if names else "none"

    if elsewhere:
        return (
            f"From lesson {lesson}: the site's own code, the reference solution: {listed(found.reference)}, "
            f"because {why}, and code from elsewhere never runs inside another lesson — your own code "
            f"in lesson {lesson} would."
        )
    if not found.reference:
        return f"From lesson {lesson}: {listed(found.yours)} — all yours (they pass that lesson's checks)."
    yours = f"yours: {listed(found.yours)}; " if found.yours else ""
    return (
        f"From lesson {lesson}: {yours}the reference solution: {listed(found.reference)}, because "
        f"{why} — once it passes in lesson {lesson}, this lesson uses yours."
    )
