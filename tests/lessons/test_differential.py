"""Every exercise is compared with the lesson's reference, and its mutation score is kept beside it.

A check that compares the learner's part with the reference (read from the lesson's solution
cells) on generated cases or on the scenario bank says, when they differ, the smallest case and
what differs. Three such messages are pinned here word for word. Each lesson's file in
lessons/mutants/ holds its mutation floor (at least 95%: `make mutants` measures it) and its
mutants marked equivalent, each with a reason.
"""

import ast
import contextlib
import io
import json
import re
from pathlib import Path

import pytest

from looplab._course.mutants import FLOOR_GOAL, Marks
from looplab._course.mutate import mutants
from looplab._course.course import find_in, lesson_files
from looplab._course.lesson import parse, run_cells, solution_index
from looplab._course.lessonfile import playing
from looplab._course.testcells import defined_names

ROOT = Path(__file__).resolve().parents[2]
LESSONS = lesson_files(ROOT / "lessons")
EXERCISES = [p for p in LESSONS if any(c.role == "exercise" for c in parse(p.read_text(encoding="utf-8")))]
REASONS = ("equivalent: ", "wording: ", "spec: ")  # really the same; only a message's words; what the lesson asks


def compared_names(cells) -> set[str]:
    """The names a check cell reads from the reference: reference("x"), or strings beside a reference(name)."""
    found = set()
    for cell in cells:
        if cell.role != "check" or "reference(" not in cell.source:
            continue
        found |= set(re.findall(r'reference\("(\w+)"\)', cell.source))
        if re.search(r"reference\(name\)", cell.source):
            found |= {
                n.value
                for n in ast.walk(ast.parse(cell.source))
                if isinstance(n, ast.Constant) and isinstance(n.value, str) and n.value.isidentifier()
            }
    return found


@pytest.mark.parametrize("path", EXERCISES, ids=[p.stem for p in EXERCISES])
def test_every_exercise_is_checked_against_the_lessons_reference(path):
    cells = parse(path.read_text(encoding="utf-8"))
    compared = compared_names(cells)
    for i, cell in enumerate(cells):
        if cell.role == "exercise":
            names = set(defined_names(cells[solution_index(cells, i)].source))
            assert names & compared, (
                f"{path.name}: exercise cell {i + 1} ({', '.join(sorted(names))}) has no check that compares it "
                "with reference(...)"
            )


def failing_with(lesson: str, definition: str, old: str, new: str) -> dict[str, str]:
    """The failed checks of a lesson whose exercise (the one defining `definition`) has `old` changed to `new`."""
    cells = parse(find_in(ROOT / "lessons", lesson).read_text(encoding="utf-8"))
    exercise = next(
        i for i, c in enumerate(cells) if c.role == "exercise" and definition in cells[solution_index(cells, i)].source
    )
    solution = cells[solution_index(cells, exercise)].source
    assert solution.count(old) == 1, f"lesson {lesson}'s solution no longer holds {old!r}"
    with contextlib.redirect_stdout(io.StringIO()):
        result = run_cells(playing(cells, {exercise: solution.replace(old, new)}))
    return {c.name: c.message for c in result.checks if c.status == "failed"}


def test_clearing_with_keep_0_names_the_case_and_the_count(capsys):
    failed = failing_with(
        "08", "def clear_old_results", "old = set(results[:-keep] if keep else results)", "old = set(results[:-keep])"
    )
    assert failed == {
        "clear_old_results clears what the lesson's clears, for every keep (0, past the end, left out)": "With keep=0 and 3 tool results: tool results it left as they were: yours 3; it should be 0"
    }


def test_a_loop_without_its_try_names_the_failing_model_scenario(capsys):
    failed = failing_with(
        "04",
        "def my_run_agent",
        "            reply = model_fn(messages, toolbox.schemas())\n        except Exception as exc:",
        "            reply = model_fn(messages, toolbox.schemas())\n        except KeyError as exc:",
    )
    name = "your loop does what the lesson's does in every scenario of the bank (failures, two calls, refusals, limits)"
    assert failed[name] == (
        "With a model that fails at once: how it ended → stopped: yours 'raised ConnectionError: "
        "network down'; it should be 'error'"
    )


def test_a_stream_reader_that_never_raises_names_the_smallest_cut_stream(capsys):
    failed = failing_with(
        "14b",
        "def read_stream",
        '    else:\n        raise ValueError("the stream ended before data: [DONE]: it was cut short")\n',
        "\n",
    )
    name = "read_stream reads the lesson's message (or raises as it does) from many generated streams"
    assert failed[name] == (
        "With no lines at all: returned: yours {'role': 'assistant', 'content': None}; it should "
        "be raised ValueError: the stream ended before data: [DONE]: it was cut short"
    )


@pytest.mark.parametrize("path", EXERCISES, ids=[p.stem for p in EXERCISES])
def test_each_lesson_keeps_a_mutation_floor_and_honest_marks(path):
    marks = Marks.of(path)
    assert marks.path.exists(), f"{path.name} has no {marks.path.relative_to(ROOT)}: run `make mutants`"
    assert marks.floor >= FLOOR_GOAL, f"{path.name}: floor {marks.floor}% (every lesson needs {FLOOR_GOAL}%)"
    cells = parse(path.read_text(encoding="utf-8"))
    keys = {
        m.key
        for i, c in enumerate(cells)
        if c.role == "exercise"
        for m in mutants(cells[solution_index(cells, i)].source)
    }
    for key, why in marks.equivalent.items():
        assert key in keys, f"{path.name}: marked equivalent but no longer a mutant of its solution: {key}"
        assert why.startswith(REASONS) and len(why.split()) >= 6, f"{path.name}: give {key!r} a reason: {why!r}"
    assert json.loads(marks.path.read_text(encoding="utf-8")).keys() == {"floor", "equivalent"}
