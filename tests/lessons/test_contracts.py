"""Contracts between lessons: every name a lesson takes with `mine(N)` is lesson N's to build and check.

A later lesson runs on what the learner built earlier (`mine(N).name`). That only holds when
lesson N's starter defines the name (the learner has one to complete, whatever they write) and
lesson N's checks notice when it is wrong: the starter's version of that one name, with every
other part solved, must fail a check of lesson N that is not marked `given:` (mine(N) runs lesson N
scripted, so an `expect(...)` claim counts). Otherwise a name missing from the
learner's code, or broken in a way lesson N never looks at, passes lesson N and breaks the later
lesson, whose message then blames code the learner wrote there.
"""

import ast
import contextlib
import io
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from looplab._course import mine as carried
from looplab._course import testcells
from looplab._course.checks import FAILED
from looplab._course.course import find_in, lesson_files
from looplab._course.lesson import parse, run_cells, run_file, solution_index, to_text
from looplab._course.lessonfile import Cell

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))
import wrong  # an authoring tool (scripts/), not a part of the package

ROOT = Path(__file__).resolve().parents[2]
LESSONS = ROOT / "lessons"
MINE_FIELDS = {"lesson", "values", "yours", "reference", "note"}  # Mine's own attributes, not carried names


def is_mine(node: ast.AST) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "mine"


def taken(source: str) -> set[tuple[str, str]]:
    """(lesson number, name) for each `mine(N).name`, or `x = mine(N)` then `x.name`, in the code."""
    tree = ast.parse(source)
    bound = {
        target.id: str(node.value.args[0].value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Assign) and is_mine(node.value)
        for target in node.targets
        if isinstance(target, ast.Name)
    }
    out = set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.Attribute) or node.attr in MINE_FIELDS:
            continue
        if is_mine(node.value):
            out.add((str(node.value.args[0].value), node.attr))
        elif isinstance(node.value, ast.Name) and node.value.id in bound:
            out.add((bound[node.value.id], node.attr))
    return out


def contracts() -> list[tuple[str, str, str]]:
    """(the lesson that takes, lesson N, the name), over every lesson's code cells."""
    found = set()
    for path in lesson_files(LESSONS):
        for cell in parse(path.read_text(encoding="utf-8")):
            if cell.kind == "code" and cell.role != "wrong":
                found |= {(path.stem[:3].rstrip("-"), number, name) for number, name in taken(cell.source)}
    return sorted(found)


CONTRACTS = contracts()
CARRIED = sorted({(number, name) for _, number, name in CONTRACTS})


def cells_of(number: str):
    return parse(find_in(LESSONS, number).read_text(encoding="utf-8"))


def starter_of(cells, name: str) -> int | None:
    """The exercise cell whose starter code defines `name` at its top level."""
    return next(
        (i for i, c in enumerate(cells) if c.role == "exercise" and name in testcells.defined_names(c.source)), None
    )


def starters_version(cells, exercise: int, name: str, solution: str) -> wrong.WrongAnswer:
    """Lesson N run with the starter's definition of `name` in its solution; when that definition is the
    solution's own (`box = MyToolbox()`, filled by the statements after it), with the whole starter cell."""

    def text_of(source: str, where: str) -> str:
        first, last = wrong.definitions(source, where)[name]
        return "\n".join(source.splitlines()[first - 1 : last])

    starter = text_of(cells[exercise].source, "the starter")
    if starter.strip() == text_of(solution, "the solution").strip():
        return wrong.WrongAnswer(exercise, exercise, "the starter", "", cells[exercise])
    return wrong.WrongAnswer(exercise, exercise, f"the starter's {name}", "", Cell("code", starter), [name])


def test_the_lessons_take_names_from_earlier_lessons():
    takers = {taker for taker, _, _ in CONTRACTS}
    assert {"16", "16b", "25", "26", "27"} <= takers, CONTRACTS
    assert ("24", "make_caller") in CARRIED and ("2", "MyToolbox") in CARRIED and len(CARRIED) >= 15, CARRIED
    for taker, number, _ in CONTRACTS:
        assert find_in(LESSONS, number) is not None, f"lesson {taker} takes from lesson {number}, which does not exist"


@pytest.mark.parametrize("number, name", CARRIED, ids=[f"{n}-{name}" for n, name in CARRIED])
def test_a_carried_name_is_in_its_lessons_starter_and_checked_there(number, name, capsys):
    takers = ", ".join(t for t, n, x in CONTRACTS if (n, x) == (number, name))
    cells = cells_of(number)
    exercise = starter_of(cells, name)
    assert exercise is not None, (
        f"lesson {takers} takes {name} with mine({number}), but no exercise starter of lesson {number} "
        f"defines it: a learner who writes the exercise without it passes lesson {number} and breaks lesson {takers}"
    )
    solution = cells[solution_index(cells, exercise)].source
    assert name in wrong.definitions(solution, f"lesson {number}'s solution"), (
        f"lesson {number}'s solution lacks {name}"
    )
    answer = starters_version(cells, exercise, name, solution)
    with contextlib.redirect_stdout(io.StringIO()):
        result = run_cells(wrong.with_wrong(cells, answer))
    given = wrong.given_names(cells)  # about the lesson's own code; mine(N) runs scripted, so expect(...) counts
    failed = [c.name for c in result.checks if c.status == FAILED and not wrong.named(c.name, given)]
    assert result.error is not None or failed, (
        f"lesson {takers} takes {name} with mine({number}), but lesson {number}'s checks all pass with the "
        f"starter's {name} (everything else solved): a broken {name} would pass there and fail in lesson {takers}"
    )


# ── when a carried part fails, the message names the lesson it came from ──────────────────


def with_exercise(number: str, k: int, code: str) -> str:
    """Lesson `number`'s text with its k-th exercise (0-based) holding `code`, the others solved."""
    cells = cells_of(number)
    exercises = [i for i, c in enumerate(cells) if c.role == "exercise"]
    for n, i in enumerate(exercises):
        source = code if n == k else cells[solution_index(cells, i)].source
        cells[i] = replace(cells[i], source=source)
    return to_text(cells)


def test_a_make_caller_that_swallows_a_dropped_connection_fails_24_so_27_gets_the_reference(provided, capsys):
    cells = cells_of("24")
    second = [i for i, c in enumerate(cells) if c.role == "exercise"][1]
    solution = cells[solution_index(cells, second)].source
    swallowing = solution.replace("except McpError as exc:", "except Exception as exc:").replace(
        "{exc.message}", "{exc}"
    )
    assert swallowing != solution
    provided["24"] = with_exercise("24", 1, swallowing)
    found = carried.mine(24)
    note = capsys.readouterr().out
    assert "make_caller" in found.reference and "tools_from_server" in found.reference and "serve" in found.yours
    assert "From lesson 24" in note and "make_caller" in note and "dropped connection" in note
    with pytest.raises(ConnectionError):  # the reference lets the drop through, for 27's retries
        found.make_caller(lambda text: (_ for _ in ()).throw(ConnectionError("dropped")), "read_note")(note_id="n1")


def write_lessons(folder: Path) -> None:
    (folder / "01-half.py").write_text(
        "# %% [markdown]\n# # 01 · Half\n\n"
        '# %% tags=["exercise"]\ndef half(n):\n    return n\n\n'
        '# %% [markdown] tags=["hint"]\n# Divide by two.\n\n'
        '# %% tags=["solution"]\ndef half(n):\n    return n // 2\n\n'
        '# %% tags=["check"]\n# half of four is two\nassert half(4) == 2, half(4)\n',
        encoding="utf-8",
    )
    (folder / "02-use.py").write_text(
        "# %% [markdown]\n# # 02 · Use\n\n"
        "# %%\nfrom looplab import mine\nhalf = mine(1).half\n\n"
        "def own(n):\n    return n / 0\n\n"
        '# %% tags=["check"]\n# half of a word is refused\nassert half("word") == 0\n'
        "# the lesson's own function fails\nassert own(1) == 0\n",
        encoding="utf-8",
    )


def test_an_error_raised_in_a_carried_part_names_its_lesson_and_an_error_of_the_lessons_own_code_does_not(
    tmp_path, monkeypatch, capsys
):
    write_lessons(tmp_path)
    monkeypatch.setenv("LOOPLAB_LESSONS", str(tmp_path))
    monkeypatch.chdir(tmp_path)
    result = run_file(tmp_path / "02-use.py", solution=False)
    carried_check, own_check = result.checks
    assert not carried_check.ok and "TypeError" in carried_check.message
    assert carried_check.message.endswith("(raised in half, from lesson 01)"), carried_check.message
    assert not own_check.ok and "ZeroDivisionError" in own_check.message and "from lesson" not in own_check.message


def test_a_cell_that_raises_in_a_carried_part_says_which_lesson_in_every_check_and_the_traceback(
    tmp_path, monkeypatch, capsys
):
    write_lessons(tmp_path)
    (tmp_path / "02-use.py").write_text(
        "# %% [markdown]\n# # 02 · Use\n\n"
        '# %%\nfrom looplab import mine\nhalf = mine(1).half\nhalved = half("word")\n\n'
        '# %% tags=["check"]\n# the word was halved\nassert halved == 0\n',
        encoding="utf-8",
    )
    monkeypatch.setenv("LOOPLAB_LESSONS", str(tmp_path))
    monkeypatch.chdir(tmp_path)
    result = run_file(tmp_path / "02-use.py", solution=False)
    assert '"<lesson 01>"' in result.error and "in half" in result.error
    assert [c.message.endswith("(raised in half, from lesson 01)") for c in result.checks] == [True]
