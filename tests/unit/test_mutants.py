"""The mutation score: the mutator's operators, and the runner that measures a lesson's checks with them."""

import contextlib
import io
import json
import sys

import pytest

from looplab._course import mutants as runner
from looplab._course.mutate import mutants

SOURCE = '''def f(items, keep=1):
    """A docstring stays."""
    out = []
    for item in items:
        if item > keep and item != 3:
            out.append(item)
        elif item:
            continue
        else:
            break
    print("shown, not behaviour")
    return sorted(out, key=None)
'''


def changes(source):
    return sorted((m.operator, m.change) for m in mutants(source))


def test_each_operator_makes_its_mutants_once_each():
    made = changes(SOURCE)
    assert ("compare", "`>` → `>=`") in made and ("compare", "`!=` → `==`") in made
    assert ("and-or", "`and` → `or`") in made
    assert ("constant", "`1` → `2`") in made and ("constant", "`1` → `0`") in made and ("constant", "`3` → `4`") in made
    assert ("break", "`continue` → `break`") in made and ("break", "`break` → `continue`") in made
    assert any(op == "else" for op, _ in made) and any(op == "return" and "returns None" in c for op, c in made)
    assert ("remove", "`out = []` taken out") in made and ("remove", "`out.append(item)` taken out") in made
    assert not any("print" in c or "docstring" in c.lower() for _, c in made)  # output and docs are left alone
    assert not any(op == "swap" for op, _ in made)  # sorted(out, key=None) has one positional argument


def test_every_mutant_compiles_differs_from_the_source_and_changes_one_thing():
    found = mutants(SOURCE)
    assert len(found) == len({m.source for m in found}) > 12
    for m in found:
        compile(m.source, "<mutant>", "exec")
        assert m.text in SOURCE and str(m).startswith(f"line {m.line} ")


def test_strings_are_not_changed_and_swapped_arguments_must_differ():
    made = changes('def g(a, b):\n    return h(a, b, "text"), h(a, a)\n')
    assert [c for op, c in made if op == "swap"] == ["`h(a, b, 'text')`: its first two arguments swapped"]
    assert not any("text" in c and op == "constant" for op, c in made)


def test_a_mutants_key_survives_lines_moving_above_it_and_tells_identical_ones_apart():
    keys = [m.key for m in mutants(SOURCE)]
    moved = [m.key for m in mutants("import os\n\n" + SOURCE)]
    assert keys == moved and len(set(keys)) == len(keys)
    twins = [m.key for m in mutants("x = [1, 1]\n")]
    assert "constant | x = [1, 1] | `1` → `2` | 2" in twins


LESSON = '''# %% [markdown]
# # A tiny lesson

# %% tags=["exercise"]
def bigger(a, b):
    ...

# %% tags=["solution"]
def bigger(a, b):
    """The larger of two numbers."""
    if a >= b:
        return a
    return b

# %% tags=["check"]
# bigger picks the larger one
assert bigger(2, 1) == 2 and bigger(1, 2) == 2
'''


def measured(tmp_path, lesson, equivalent=None, floor=0.0):
    folder = tmp_path / "lessons"
    (folder / "mutants").mkdir(parents=True)
    (folder / "01-tiny.py").write_text(lesson)
    (folder / "mutants" / "01-tiny.json").write_text(json.dumps({"floor": floor, "equivalent": equivalent or {}}))
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = runner.main(["--folder", str(folder), "--survivors"])
    return code, out.getvalue()


forks = pytest.mark.skipif(sys.platform == "emscripten", reason="the runner forks; Pyodide cannot")


@forks
def test_the_runner_counts_killed_and_survived_mutants_and_prints_each_survivor(tmp_path):
    code, out = measured(tmp_path, LESSON)
    row = next(line for line in out.splitlines() if line.startswith("01 "))
    assert code == 0 and row.split()[2:6] == ["3", "2", "1", "0"], out  # made killed survived equivalent
    assert "survived: bigger: line 3 `if a >= b:`: `>=` → `>`" in out and "key: compare | if a >= b:" in out


@forks
def test_a_mutant_marked_equivalent_does_not_count_and_a_floor_above_the_score_fails(tmp_path):
    key = "compare | if a >= b: | `>=` → `>` | 1"
    code, out = measured(tmp_path, LESSON, {key: "equivalent: equal numbers give the same answer either way"}, 90.0)
    row = next(line for line in out.splitlines() if line.startswith("01 "))
    assert code == 0 and row.split()[2:7] == ["3", "2", "0", "1", "100.0%"]
    code, out = measured(tmp_path / "again", LESSON, floor=90.0)
    assert code == 1 and "01: 66.7% < its floor 90.0%" in out


@forks
def test_a_mutant_that_never_ends_is_stopped_and_counted_killed(tmp_path):
    looping = LESSON.replace(
        """    if a >= b:
        return a
    return b""",
        """    while a < b:
        a += 1
    return a""",
    )
    started = __import__("time").monotonic()
    code, out = measured(tmp_path, looping)
    row = next(line for line in out.splitlines() if line.startswith("01 "))
    assert code == 0 and int(row.split()[3]) >= 1, out  # `a += 1` taken out loops forever: killed by time
    assert __import__("time").monotonic() - started < 120


@forks
def test_a_lesson_whose_solution_fails_is_not_measured(tmp_path):
    code, out = measured(tmp_path, LESSON.replace("== 2 and", "== 3 and"))
    assert code == 1 and "could not be measured: the solution itself fails: bigger picks the larger one" in out


@forks
def test_the_short_form_samples_the_same_mutants_every_time_and_reads_a_kept_report(tmp_path):
    folder = tmp_path / "lessons"
    folder.mkdir()
    (folder / "01-tiny.py").write_text(LESSON)
    first, second = io.StringIO(), io.StringIO()
    args = ["--folder", str(folder), "--short", "--size", "2", "--cache", str(tmp_path / "cache")]
    with contextlib.redirect_stdout(first):
        runner.main(args)
    with contextlib.redirect_stdout(second):
        runner.main(args)
    row = [line for line in first.getvalue().splitlines() if line.startswith("01 ")][0]
    assert (
        row.split()[2] == "2"
        and "(cached)" in second.getvalue()
        and row.split()[2:7]
        == [line for line in second.getvalue().splitlines() if line.startswith("01 ")][0].split()[2:7]
    )
