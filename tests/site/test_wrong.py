"""Wrong answers and given checks (scripts/wrong.py): a lesson's own proof that its checks catch mistakes."""

import sys
from pathlib import Path

import pytest

from looplab._course.lesson import parse, program, run_cells, run_file

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))
import wrong  # an authoring tool (scripts/), not a part of the package

LESSON = """# %% [markdown]
# # Doubling

# %%
from looplab import expect
LIMIT = 3

# %% tags=["exercise"]
def double(x):
    raise NotImplementedError("write double")

# %% [markdown] tags=["hint"]
# Twice the number.

# %% tags=["wrong"]
# wrong: adds one instead of doubling
# expect: double(2) should be 4
def double(x):
    return x + 1

# %% tags=["wrong"]
# wrong: right for small numbers only, caught only by the claim
# expect: seven
def double(x):
    return 2 * x if x < 5 else x

# %% tags=["wrong"]
# wrong: squares
# expect: nowhere said
def double(x):
    return x * x

# %% tags=["wrong"]
# wrong: returns a string
# expect: unsupported operand
def double(x):
    return str(2 * x)

# %% tags=["solution"]
def double(x):
    return 2 * x

# %% tags=["check"]
# given: the limit is three
assert LIMIT == 3
# double(2) is 4
assert double(2) == 4, "double(2) should be 4: look at what your function returns"
# double(7) is 14
expect(double(7) == 14, "double(7) should be 14, seven times two")
# double(3) is 6
assert double(3) - 6 == 0, "double(3) should be 6"
"""


def answers():
    cells = parse(LESSON)
    return cells, wrong.read(cells)


def verdicts():
    cells, found = answers()
    return [wrong.verdict(w, wrong.run_wrong(cells, w), wrong.expect_names(cells)) for w in found]


def test_wrong_cells_are_read_with_their_exercise_mistake_and_expected_words():
    cells, found = answers()
    assert [w.mistake for w in found] == [
        "adds one instead of doubling",
        "right for small numbers only, caught only by the claim",
        "squares",
        "returns a string",
    ]
    assert {w.exercise for w in found} == {2} and cells[2].role == "exercise"
    assert found[0].expect == "double(2) should be 4" and [c.role for c in cells].count("wrong") == 4


def test_wrong_cells_never_run_with_the_lesson_and_the_solution_still_wins():
    cells = parse(LESSON)
    assert all(cell.role != "wrong" for _, cell in program(cells, solution=True))
    assert all(cell.role != "wrong" for _, cell in program(cells, solution=False))
    assert run_cells(cells, solution=True).ok
    starter = run_cells(cells, solution=False)
    assert not starter.ok and starter.error is None
    assert all("write double" in c.message for c in starter.checks[1:]) and starter.checks[0].ok


def test_a_caught_wrong_answer_passes_and_each_way_of_not_catching_is_named():
    caught, only_expect, not_named, raised = verdicts()
    assert caught is None
    assert "only expect(...) claims failed" in only_expect and "double(7) should be 14" in only_expect
    assert "no failing plain check says 'nowhere said'" in not_named and "double(3) should be 6" in not_named
    assert raised is None  # the check raised TypeError: its message names the cause


def test_a_wrong_answer_that_passes_every_check_is_reported():
    text = LESSON.replace("# wrong: adds one instead of doubling", "# wrong: doubles by adding").replace(
        "    return x + 1", "    return x + x"
    )
    cells = parse(text)
    first = wrong.read(cells)[0]
    assert wrong.verdict(first, wrong.run_wrong(cells, first), wrong.expect_names(cells)).endswith("every check passed")


def test_given_checks_are_named_without_their_prefix_and_found_by_it():
    cells = parse(LESSON)
    names = [c.name for c in run_cells(cells, solution=True).checks]
    assert names[0] == "the limit is three" and "given" not in names[0].lower()
    assert wrong.given_names(cells) == {"the limit is three"}
    assert wrong.expect_names(cells) == {"double(7) is 14"}


@pytest.mark.parametrize(
    "source, problem",
    [
        ('# %% tags=["wrong"]\n# wrong: x\n# expect: y\nx = 1\n', "not between an exercise"),
        (
            '# %% tags=["exercise"]\nx = 0\n# %% tags=["wrong"]\n# wrong: only the mistake\nx = 1\n'
            '# %% tags=["solution"]\nx = 2\n',
            "needs a `# wrong:",
        ),
        (
            '# %% tags=["exercise"]\nx = 0\n# %% tags=["solution"]\nx = 2\n# %% tags=["wrong"]\n# wrong: a\n'
            "# expect: b\nx = 1\n",
            "not between an exercise",
        ),
    ],
)
def test_a_misplaced_or_incomplete_wrong_cell_is_a_clear_error(source, problem):
    with pytest.raises(ValueError, match=problem):
        wrong.read(parse(source))


def test_without_wrong_removes_exactly_the_wrong_cells_and_keeps_the_rest_as_written():
    text = wrong.without_wrong(LESSON)
    assert 'tags=["wrong"]' not in text and "x + 1" not in text and "x * x" not in text
    assert text.count("# %%") == LESSON.count("# %%") - 4
    assert [c for c in parse(LESSON) if c.role != "wrong"] == parse(text) == wrong.shown(parse(LESSON))


PARTS = """# %% tags=["exercise"]
STEP = 0

def double(x):
    raise NotImplementedError("write double")

def triple(x):
    raise NotImplementedError("write triple")

# %% tags=["wrong"]
# wrong: triples by adding one
# expect: triple(2) should be 6
# replaces: triple
def triple(x):  # only this changes
    return x + 1

# %% tags=["wrong"]
# wrong: steps by ten and doubles by adding
# expect: double(5) should be 10
# replaces: STEP, double
STEP = 10

def double(x):
    return x + x + STEP

# %% tags=["wrong"]
# wrong: written whole, it leaves the step out
# expect: name 'STEP' is not defined
def double(x):
    return 2 * x

def triple(x):
    return 3 * x

# %% tags=["solution"]
STEP = 1

@staticmethod
def unused():
    return None

def double(x):
    return 2 * x

print("double and triple ready")

def triple(x):
    return 3 * x

# %% tags=["check"]
# double(5) is 10
assert double(5) == 10, f"double(5) should be 10, not {double(5)}"
# triple(2) is 6
assert triple(2) == 6, f"triple(2) should be 6, not {triple(2)}"
# the step is one
assert STEP == 1, "STEP should be 1"
"""


def test_a_wrong_cell_of_some_definitions_runs_the_solution_with_them_replaced(capsys):
    cells = parse(PARTS)
    one, two, whole = wrong.read(cells)
    assert (one.replaces, two.replaces, whole.replaces) == (["triple"], ["STEP", "double"], [])
    code = [c.source for c in wrong.with_wrong(cells, one) if c.role == "exercise"][0]
    assert code.index("STEP = 1") < code.index("def double") < code.index("print(") < code.index("x + 1")
    assert "@staticmethod" in code and "3 * x" not in code and "only this changes" in code
    assert [wrong.verdict(w, wrong.run_wrong(cells, w), set()) for w in (one, two, whole)] == [None] * 3
    result = wrong.run_wrong(cells, two)
    assert [c.ok for c in result.checks] == [
        False,
        True,
        False,
    ] and "double and triple ready" in capsys.readouterr().out


@pytest.mark.parametrize(
    "cell, problem",
    [
        ("# replaces: triple\ndef triple(x):\n    return 0\nprint(1)\n", "and nothing else"),
        ("# replaces: triple, double\ndef triple(x):\n    return 0\n", "it defines triple"),
        ("# replaces: quadruple\ndef quadruple(x):\n    return 0\n", "does not define"),
        ("# replaces: triple\ndef triple(x):\n    return 0\ntriple = 3\n", "defines triple twice"),
    ],
)
def test_a_wrong_cell_that_does_not_hold_what_it_replaces_is_a_clear_error(cell, problem):
    text = PARTS.replace("# replaces: triple\ndef triple(x):  # only this changes\n    return x + 1\n", cell)
    assert text != PARTS
    with pytest.raises(ValueError, match=problem):
        wrong.read(parse(text))


@pytest.mark.skipif(
    not (ROOT / "scripts" / "build_site.py").exists() or sys.platform == "emscripten",
    reason="the site build runs in CPython, from a checkout",
)
def test_the_site_never_receives_a_wrong_answer(tmp_path):
    import build_site
    import json

    folder = tmp_path / "lessons"
    folder.mkdir()
    (folder / "01-doubling.py").write_text(LESSON, encoding="utf-8")
    out = tmp_path / "site"
    out.mkdir()
    index = build_site.copy_lessons(out, [folder])
    parsed = json.loads((out / "lessons" / "01-doubling.json").read_text())
    roles = [c["role"] for c in parsed["cells"]]
    assert "wrong" not in roles and roles.count("solution") == 1 and "hint" in roles
    served = (out / "lessons" / "01-doubling.py").read_text()
    assert "x + 1" not in served and "return 2 * x" in served and index[0]["checks"] == 4
    assert run_file(out / "lessons" / "01-doubling.py", solution=True).ok


PATCHED = """# %% [markdown]
# # 3 · Totals

# %% tags=["exercise"]
def total(items):
    raise NotImplementedError("write total")

# %% tags=["wrong"]
# wrong: WRONG
# expect: total([]) is 0
# patch:
PATCH

# %% tags=["solution"]
def total(items):
    result = 0
    for item in items:
        result += item
    return result


def twice(items):
    result = 0
    return 2 * total(items)

# %% tags=["check"]
# total([]) is 0
assert total([]) == 0, "total([]) is 0: look at where your sum starts"
assert total([1, 2]) == 3, "total([1, 2]) is 3"
"""


def patched_lesson(*lines, mistake="starts from one"):
    return parse(PATCHED.replace("PATCH", "\n".join(lines)).replace("WRONG", mistake))


def test_a_patch_swaps_its_lines_into_the_solution_and_the_lesson_runs_with_it():
    cells = patched_lesson("#  def total(items):", "# -    result = 0", "# +    result = 1")
    (answer,) = wrong.read(cells)
    assert answer.patch == [" def total(items):", "-    result = 0", "+    result = 1"] and not answer.replaces
    code = wrong.with_wrong(cells, answer)[1].source
    assert "    result = 1\n    for item in items:" in code and code.count("result = 0") == 1  # twice's stays
    assert wrong.verdict(answer, wrong.run_wrong(cells, answer), set()) is None


def test_hunks_apply_one_after_another_and_an_empty_kept_line_is_a_bare_hash():
    cells = patched_lesson(
        "# -    return result",
        "# +    return -result",
        "#",
        "# @@",
        "# -    return 2 * total(items)",
        "# +    return total(items)",
    )
    (answer,) = wrong.read(cells)
    assert answer.patch[2:4] == ["", "@@"]
    code = wrong.with_wrong(cells, answer)[1].source
    assert "    return -result\n\n\ndef twice" in code and code.endswith("    return total(items)")
    said = wrong.verdict(answer, wrong.run_wrong(cells, answer), set())  # -3 for [1, 2]: caught, not named
    assert "no failing plain check says 'total([]) is 0'" in said and "total([1, 2]) is 3" in said


@pytest.mark.parametrize(
    "lines, problem",
    [
        (
            ["# -    result = 2", "# +    result = 1"],
            r"3 · Totals: wrong-answer cell 3 \(starts from one\): hunk 1 .* does not apply",
        ),
        (["# -    result = 0", "# +    result = 1"], r"applies in 2 places \(solution lines 2, 9\); add context"),
        (["# -    result = 0  ", "# +    result = 1"], "does not apply"),  # whitespace counts
        (["# +    result = 1"], r"has only `\+` lines"),
        (["-    result = 0"], "must be a comment"),
        (["# *    result = 0"], "starts with neither '-'"),
        ([], "needs the patch's lines after it"),
    ],
)
def test_a_patch_that_does_not_apply_once_is_an_error_naming_the_lesson_and_the_cell(lines, problem):
    with pytest.raises(ValueError, match=problem) as raised:
        wrong.read(patched_lesson(*lines))
    assert "3 · Totals" in str(raised.value) and "cell 3" in str(raised.value)
