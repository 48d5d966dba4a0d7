"""Wrong answers and given checks: how a lesson proves its checks catch the mistakes learners make.

A wrong answer is a code cell tagged "wrong", placed after an exercise's hints and before its
solution (so that run as a plain script, the solution still comes last and wins):

    # %% tags=["wrong"]
    # wrong: <one line: the mistake a learner would make>
    # expect: <words the failing check's name or message must contain, case-insensitive>
    <the whole exercise cell as the learner would have written it wrongly>

or, when the mistake is in some of the exercise's definitions, only those, named:

    # %% tags=["wrong"]
    # wrong: <the mistake>
    # expect: <words>
    # replaces: <name>, <name>
    <a top-level def, class or `name = ...` for each name, as the learner would have written it>

The exercise's solution then runs with those definitions replaced by name, every other statement
of it as it is and in its order (`in_place`). Or, smallest, only the lines that change, as a line
patch against the solution, written as comments (the lesson stays a Python file):

    # %% tags=["wrong"]
    # wrong: <the mistake>
    # expect: <words>
    # patch:
    # -            messages.append(result)
    # +            pass

After `# patch:` each line is `# ` and then `-` (a line of the solution, taken out), `+` (put in
its place) or a space (a line of the solution kept, to say where); `#` alone is a kept empty line,
and `# @@` starts another hunk. A hunk's `-` and context lines, in order, must occur exactly
once in the solution (whitespace exact; hunks apply one after another, each to the result of the
one before) (`patched`). Any other mistake is written as the whole cell.

`run_wrong` runs the lesson with that code in place of its exercise (every other exercise solved)
and `verdict` says whether it was caught: some check failed, and a failing *plain assert* (or the
traceback of a cell that raised) names the cause with every `expect` word. A failing `expect(...)`
claim alone does not count: with a live or local model it is not evaluated, and a wrong answer must
be caught in every mode.

A cell of the same kind whose first line is `# right: <why this is right too>` (no `# expect:`)
is the opposite: another spelling of a right answer that a learner may well type (a plain
hyphen for the en dash, `->` for the arrow), which must pass every check (`read(cells,
right=True)`). It is written the same three ways and never shown either.

A check about code the lesson gives (it may pass on the starter) is marked by a naming comment that
starts with `given:` (a test by a docstring that does); `given_names` lists them. Every other check
is about the learner's part and must fail on the starter.

A tool for the course's authors, not a part of the installed package: the build (build_site.py),
patch_wrong.py, trim_wrong.py and the tests import it, with py/ on sys.path.
"""

import ast
import re
from dataclasses import dataclass, field

from looplab._course import testcells
from looplab._course.checks import FAILED
from looplab._course.lesson import LessonResult, check_statements, is_expect, run_cells
from looplab._course.lessonfile import GIVEN, Cell, heading, playing, solution_index
from looplab._course.lessonfile import without_wrong as without_wrong  # build_site.py reads it here

HEADER = re.compile(r"^#\s*(?P<key>wrong|right|expect|replaces|patch)\s*:\s*(?P<text>.*?)\s*$", re.I)
HUNK = "@@"  # a patch line that starts another hunk


def patch_lines(lines: list[str], where: str) -> list[str]:
    """A patch's lines as written in a cell (`# -...`, `# +...`, `#  ...`, `#`), the `# ` taken off.

    Raises ValueError for a line that is not such a comment.
    """
    out = []
    for n, line in enumerate(lines, 1):
        if line != "#" and not line.startswith("# "):
            raise ValueError(
                f"{where}: patch line {n} ({line[:40]!r}) must be a comment: `# ` and then "
                f"'-', '+' or ' ' and the line (`#` alone: a kept empty line)"
            )
        out.append(line[2:])
    return out


def as_comments(patch: list[str]) -> list[str]:
    """A patch's lines as a cell writes them (the inverse of `patch_lines`)."""
    return [f"# {line}" if line else "#" for line in patch]


@dataclass
class WrongAnswer:
    """One wrong-answer cell: where it is, its exercise's cell, the mistake, the words to expect,
    and the names of the solution's definitions it replaces or the lines of its patch (neither: it
    is the whole exercise cell)."""

    index: int
    exercise: int
    mistake: str
    expect: str
    cell: Cell
    replaces: list[str] = field(default_factory=list)
    patch: list[str] = field(default_factory=list)
    where: str = ""


def defined(stmt: ast.stmt) -> str | None:
    """The name a top-level statement defines: a def's or class's, or a `name = ...`'s; else None."""
    if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return stmt.name
    targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target] if isinstance(stmt, ast.AnnAssign) else []
    return targets[0].id if len(targets) == 1 and isinstance(targets[0], ast.Name) else None


def definitions(source: str, where: str) -> dict[str, tuple[int, int]]:
    """{name: (first line, last line)} of each top-level definition in `source` (decorators included).

    Raises ValueError when a name is defined twice (which one would be replaced?).
    """
    out = {}
    for stmt in ast.parse(source).body:
        name = defined(stmt)
        if name in out:
            raise ValueError(f"{where} defines {name} twice at the top level; write this wrong answer whole")
        if name:
            first = min([stmt.lineno, *(d.lineno for d in getattr(stmt, "decorator_list", []))])
            out[name] = (first, stmt.end_lineno)
    return out


def in_place(solution: str, answer: WrongAnswer) -> str:
    """The solution's code with the wrong answer's definitions in place of its same-named ones.

    Raises ValueError when the wrong cell holds anything but definitions of its `# replaces:`
    names, or the solution does not define each of them once.
    """
    where = f"wrong-answer cell {answer.index + 1}"
    body = ast.parse(answer.cell.source).body
    mine = definitions(answer.cell.source, where)
    if any(defined(stmt) is None for stmt in body) or sorted(mine) != sorted(answer.replaces):
        raise ValueError(
            f"{where} says `# replaces: {', '.join(answer.replaces)}`, so it must hold a "
            f"top-level definition of each of those names and nothing else (it defines "
            f"{', '.join(mine) or 'nothing'}); or leave the line out and write the whole cell"
        )
    theirs = definitions(solution, f"the solution of {where}")
    missing = [name for name in answer.replaces if name not in theirs]
    if missing:
        raise ValueError(f"{where} replaces {', '.join(missing)}, which its exercise's solution does not define")
    lines, wrong_lines = solution.splitlines(), answer.cell.source.splitlines()
    for name in sorted(answer.replaces, key=lambda n: theirs[n][0], reverse=True):  # bottom up: lines stay put
        first, last = theirs[name]
        lines[first - 1 : last] = wrong_lines[mine[name][0] - 1 : mine[name][1]]
    return "\n".join(lines)


def hunks(patch: list[str], where: str) -> list[tuple[list[str], list[str]]]:
    """A patch's hunks, each as (the solution's lines it finds, the lines it puts there).

    Raises ValueError for a line that starts with neither `-`, `+` nor a space, and for a hunk
    with nothing to find (only `+` lines: where would they go?).
    """
    out, old, new = [], [], []
    for n, line in enumerate([*patch, HUNK], 1):
        if line == HUNK:
            if old or new:
                if not old:
                    raise ValueError(
                        f"{where}: a hunk of its patch (ending at patch line {n - 1}) has only "
                        f"`+` lines; add a context line (a leading space) to say where they go"
                    )
                out.append((old, new))
            old, new = [], []
            continue
        sign, text = (line[:1], line[1:]) if line else (" ", "")
        if sign not in "-+ ":
            raise ValueError(
                f"{where}: patch line {n} ({line[:40]!r}) starts with neither '-' (a line "
                f"taken out), '+' (a line put in) nor ' ' (a line kept)"
            )
        if sign != "+":
            old.append(text)
        if sign != "-":
            new.append(text)
    return out


def places(lines: list[str], block: list[str]) -> list[int]:
    """Where `block` occurs in `lines`, as contiguous lines (0-based starts)."""
    size = len(block)
    return [i for i in range(len(lines) - size + 1) if lines[i : i + size] == block]


def patched(solution: str, patch: list[str], where: str) -> str:
    """The solution with the patch's hunks applied, one after another.

    Raises ValueError when a hunk's `-` and context lines are not in the solution (in order,
    contiguous, whitespace exact) or are there more than once.
    """
    lines = solution.split("\n")
    for k, (old, new) in enumerate(hunks(patch, where), 1):
        found = places(lines, old)
        hunk = f"hunk {k} of its patch ({old[0].strip()[:50]!r}…)"
        if not found:
            raise ValueError(
                f"{where}: {hunk} does not apply: its `-` and context lines are not in the "
                f"exercise's solution as written, one after another (whitespace counts)"
            )
        if len(found) > 1:
            raise ValueError(
                f"{where}: {hunk} applies in {len(found)} places (solution lines "
                f"{', '.join(str(i + 1) for i in found)}); add context lines to say which"
            )
        lines[found[0] : found[0] + len(old)] = new
    return "\n".join(lines)


def program_of(solution: str, answer: WrongAnswer) -> str:
    """The code that runs in place of the exercise: the cell, the solution with its definitions
    replaced, or the solution patched."""
    if answer.patch:
        return patched(solution, answer.patch, answer.where)
    return in_place(solution, answer) if answer.replaces else answer.cell.source


def read(cells: list[Cell], right: bool = False) -> list[WrongAnswer]:
    """The wrong answers of a lesson, each bound to the exercise before it; with `right`, the right
    answers written another way instead (`# right:` cells, which need no `# expect:`).

    Raises ValueError, naming the lesson and the cell, when one has no exercise before it (between
    that exercise and its solution), lacks its `# wrong:` or `# expect:` line, does not hold what its
    `# replaces:` line names, or has a patch that does not apply exactly once.
    """
    out, lesson = [], heading(cells, "a lesson")
    for i, cell in enumerate(cells):
        if cell.role != "wrong":
            continue
        exercise = next((j for j in range(i - 1, -1, -1) if cells[j].role not in ("hint", "wrong")), None)
        if exercise is None or cells[exercise].role != "exercise" or solution_index(cells, exercise) is None:
            raise ValueError(
                f"wrong-answer cell {i + 1} is not between an exercise's hints and its "
                f"solution (in a plain run the cell after it would not undo it)"
            )
        found, lines, patch = {}, cell.source.splitlines(), None
        for n, line in enumerate(lines):
            match = HEADER.match(line)
            if match and match["key"].lower() == "patch":
                patch = lines[n + 1 :]
                break
            if match:
                found.setdefault(match["key"].lower(), match["text"])
        if bool(found.get("right")) != right:
            continue
        if right:
            found.update(wrong=found["right"], expect="")
        where = f"{lesson}: wrong-answer cell {i + 1} ({found.get('wrong') or 'no `# wrong:` line'})"
        if not found.get("wrong") or not (found.get("expect") or right):
            raise ValueError(
                f"{where} needs a `# wrong: <the mistake>` and an `# expect: <words of the failing check>` line"
            )
        replaces = [name.strip() for name in found.get("replaces", "").split(",") if name.strip()]
        if patch == [] or (replaces and patch):
            raise ValueError(
                f"{where}: a `# patch:` line needs the patch's lines after it, and no `# replaces:` line beside it"
            )
        patch = patch_lines(patch or [], where)
        answer = WrongAnswer(i, exercise, found["wrong"], found["expect"], cell, replaces, patch, where)
        if replaces or patch:
            program_of(cells[solution_index(cells, exercise)].source, answer)  # its errors, said now
        out.append(answer)
    return out


def with_wrong(cells: list[Cell], wrong: WrongAnswer) -> list[Cell]:
    """The lesson as run with this wrong answer: it replaces its exercise (whole, the solution with
    its named definitions replaced, or the solution patched), every other exercise solved. The
    solution cells stay, for the checks that compare with them; run it as the starter."""
    return playing(cells, {wrong.exercise: program_of(cells[solution_index(cells, wrong.exercise)].source, wrong)})


def run_wrong(cells: list[Cell], wrong: WrongAnswer) -> LessonResult:
    """Run the lesson with this wrong answer in place of its exercise."""
    return run_cells(with_wrong(cells, wrong))


def expect_names(cells: list[Cell]) -> set[str]:
    """The names of the lesson's `expect(...)` claims, and of its tests that call `expect`."""
    names = set()
    for cell in cells:
        if cell.role == "check":
            names.update(name for name, stmt in check_statements(cell) if is_expect(stmt))
        elif "tests" in cell.tags and cell.role != "exercise":
            for stmt in ast.parse(cell.source).body:
                if (
                    isinstance(stmt, ast.FunctionDef)
                    and stmt.name.startswith("test")
                    and any(isinstance(n, ast.Call) and getattr(n.func, "id", "") == "expect" for n in ast.walk(stmt))
                ):
                    names.add(testcells.check_name(ast.get_docstring(stmt), stmt.name))
    return names


def given_names(cells: list[Cell]) -> set[str]:
    """The names of the checks marked as being about given code (`# given: ...` or a `given:` docstring)."""
    names = set()
    for cell in cells:
        if cell.role == "check":
            lines = cell.source.splitlines()
            for name, stmt in check_statements(cell):
                above = lines[stmt.lineno - 2].strip() if stmt.lineno >= 2 else ""
                if name and GIVEN.match(above.lstrip("#").strip()):
                    names.add(name)
        elif "tests" in cell.tags and cell.role != "exercise":
            for stmt in ast.parse(cell.source).body:
                doc = ast.get_docstring(stmt) if isinstance(stmt, ast.FunctionDef) else None
                if doc and GIVEN.match(doc.strip()):
                    names.add(testcells.check_name(doc, stmt.name))
    return names


def named(name: str, names: set[str]) -> bool:
    """Is this check one of `names` (a parametrized test's check adds " [id]")?"""
    return name in names or any(name.startswith(n + " [") for n in names)


def words_in(expect: str, text: str) -> bool:
    """Does `text` hold every word of `expect`, case-insensitively?"""
    return all(word in text.lower() for word in expect.lower().split())


def verdict(wrong: WrongAnswer, result: LessonResult, expects: set[str]) -> str | None:
    """None when the wrong answer was caught as it should be, else what is wrong with the lesson."""
    where = f"wrong answer in cell {wrong.index + 1} ({wrong.mistake})"
    if result.error is not None:
        if words_in(wrong.expect, result.error):
            return None
        return f"{where}: a cell raised, and its error does not say {wrong.expect!r}:\n{result.error[-800:]}"
    failed = [c for c in result.checks if c.status == FAILED]
    if not failed:
        return f"{where}: every check passed"
    plain = [c for c in failed if not named(c.name, expects)]
    if any(words_in(wrong.expect, f"{c.name} {c.message}") for c in plain):
        return None
    shown = "; ".join(f"{'expect ' if c not in plain else ''}{c.name}: {c.message}" for c in failed)[:1500]
    if not plain:
        return f"{where}: only expect(...) claims failed (not evaluated with a live model): {shown}"
    return f"{where}: no failing plain check says {wrong.expect!r}; failed: {shown}"


def shown(cells: list[Cell]) -> list[Cell]:
    """The cells a learner sees: all but the wrong answers."""
    return [cell for cell in cells if cell.role != "wrong"]
