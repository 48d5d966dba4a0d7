"""Every lesson, scripted, in CPython: the solutions pass every check, each starter fails one.

A check that cannot fail teaches nothing, so for each lesson with exercises the starter code
must fail at least one check — and the solution must pass them all.
"""

import os
import subprocess
import sys

import pytest

from pathlib import Path

from looplab._course.course import lesson_files
from looplab._course.lesson import hints, parse, read_prediction, run_cells, run_file, solution_index, to_text
from looplab._course.lessonfile import playing

ROOT = Path(__file__).resolve().parents[2]
LESSONS = lesson_files(ROOT / "lessons")


def ids(paths):
    return [p.stem for p in paths]


def test_the_lessons_are_numbered_1_to_n_in_order_with_no_gaps():
    numbers = [int(p.name[:2]) for p in LESSONS if p.name[2] == "-"]  # 01b sits after 01, unnumbered
    assert len(numbers) >= 16 and numbers == list(range(1, len(numbers) + 1)), [p.name for p in LESSONS]
    for path in LESSONS:
        assert path.name[2] == "-" or int(path.name[:2]) in numbers, f"{path.name} follows no lesson"


@pytest.mark.parametrize("path", LESSONS, ids=ids(LESSONS))
def test_the_solution_passes_every_check(path, capsys):
    result = run_file(path, solution=True)
    failed = [f"{c.name}: {c.message}" for c in result.checks if not c.ok]
    assert result.error is None, result.error
    assert result.checks, "a lesson needs at least one check"
    assert not failed, failed
    assert result.ok


@pytest.mark.parametrize("path", LESSONS, ids=ids(LESSONS))
def test_the_lesson_is_well_formed(path):
    cells = parse(path.read_text(encoding="utf-8"))
    roles = [c.role for c in cells]
    assert roles[0] == "markdown" and cells[0].source.startswith("# "), "a lesson opens with its title"
    assert "check" in roles, "a lesson needs a check cell"
    for i, role in enumerate(roles):
        if role == "exercise":
            assert solution_index(cells, i) is not None, (
                f"exercise cell {i + 1} must be followed by its solution (hint cells may come between)"
            )
        if role == "solution":
            start = i - 1
            while roles[start] in ("hint", "wrong"):
                start -= 1
            assert roles[start] == "exercise", f"solution cell {i + 1} has no exercise before it"
        if role == "hint":
            assert roles[i + 1] in ("hint", "wrong", "solution"), f"hint cell {i + 1} is not before a solution"
        if role == "wrong":
            assert roles[i + 1] in ("wrong", "solution"), (
                f"wrong-answer cell {i + 1} must come after its exercise's hints and before its solution"
            )
        if role == "predict":
            read_prediction(cells[i].source)  # raises when its choices or answer are malformed
    for cell in cells:
        if cell.kind == "code":  # hint and predict cells are prose too
            compile(cell.source, path.name, "exec")
            # Pyodide-friendly: no threads, sockets or subprocesses in lesson code
            for word in ("import threading", "import socket", "import subprocess", "asyncio.to_thread"):
                assert word not in cell.source, f"{path.name} uses {word!r}"


EXERCISES = [p for p in LESSONS if any(c.role == "exercise" for c in parse(p.read_text(encoding="utf-8")))]


@pytest.mark.parametrize("path", EXERCISES, ids=ids(EXERCISES))
def test_the_starter_fails_at_least_one_check(path, capsys):
    result = run_file(path, solution=False)
    assert result.checks, "no checks"
    assert not result.ok, "every check passed on the starter code: a check that cannot fail teaches nothing"


@pytest.mark.parametrize("path", EXERCISES, ids=ids(EXERCISES))
def test_each_exercise_alone_fails_a_check(path, capsys):
    """Swap in the solutions one by one, leaving a single starter: some check must still fail."""
    cells = parse(path.read_text(encoding="utf-8"))
    starters = [i for i, c in enumerate(cells) if c.role == "exercise"]
    for keep in starters:
        chosen = playing(cells, {keep: cells[keep].source})  # this starter, every other exercise solved
        result = run_cells(chosen)
        assert not result.ok, f"exercise cell {keep + 1} of {path.name}: its starter passes every check"


@pytest.mark.parametrize("path", LESSONS, ids=ids(LESSONS))
def test_the_file_runs_as_plain_python(path, tmp_path):
    env = {**os.environ, "PYTHONPATH": str(ROOT / "py"), "LOOPLAB_MODEL": "scripted"}
    cells = parse(path.read_text(encoding="utf-8"))
    if any("wrong" in c.tags for c in cells):  # a script runs every cell: without its wrong answers
        path = tmp_path / path.name
        path.write_text(to_text([c for c in cells if "wrong" not in c.tags]), encoding="utf-8")
    done = subprocess.run([sys.executable, str(path)], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]


@pytest.mark.parametrize("path", EXERCISES, ids=ids(EXERCISES))
def test_every_exercise_has_one_to_three_hints_and_the_last_is_the_most_concrete(path):
    cells = parse(path.read_text(encoding="utf-8"))
    for i, cell in enumerate(cells):
        if cell.role == "exercise":
            found = hints(cells, i)
            assert 1 <= len(found) <= 3, f"exercise cell {i + 1} of {path.name} has {len(found)} hints"
            assert all(h.strip() for h in found), f"exercise cell {i + 1} of {path.name} has an empty hint"


def test_the_course_asks_for_predictions_before_runs():
    counts = {p.name: sum(c.role == "predict" for c in parse(p.read_text(encoding="utf-8"))) for p in LESSONS}
    assert sum(counts.values()) >= 8, counts
    for path in LESSONS:
        for cell in parse(path.read_text(encoding="utf-8")):
            if cell.role == "predict":
                prediction = read_prediction(cell.source)
                assert prediction.question and prediction.why, f"{path.name}: a prediction needs a question and a why"
