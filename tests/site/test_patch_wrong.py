"""scripts/patch_wrong.py: wrong cells rewritten as line patches against their solution where shorter."""

import sys
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))
sys.path.insert(0, str(ROOT / "py"))

import patch_wrong
import wrong
from looplab._course.lessonfile import parse

LESSON = """# %% [markdown]
# # 9 · Sums

# %% tags=["exercise"]
def total(items):
    raise NotImplementedError

# %% tags=["wrong"]
# wrong: starts from one
# expect: total([]) is 0
def total(items):
    result = 1
    for item in items:
        result += item
    return result

# %% tags=["wrong"]
# wrong: returns a word
# expect: a number
total = "sum"

# %% tags=["solution"]
def total(items):
    \"\"\"The sum of the items.\"\"\"
    result = 0  # nothing yet
    for item in items:
        result += item
    return result

# %% tags=["check"]
# total([]) is 0
assert total([]) == 0, "total([]) is 0, not what yours gives"
# it returns a number
assert isinstance(total([1]), int), "total must return a number"
"""


def test_a_whole_cell_becomes_the_lines_it_changes_and_a_shorter_one_is_kept():
    new, made, kept = patch_wrong.rewrite(LESSON)
    assert (made, kept) == (1, 1)
    assert "# patch:\n# -    result = 0  # nothing yet\n# +    result = 1\n" in new
    assert 'total = "sum"' in new and new.count("def total") == 2  # the exercise's and the solution's


def test_the_rewritten_lesson_runs_the_same_wrong_programs_and_they_are_still_caught():
    before, after = parse(LESSON), parse(patch_wrong.rewrite(LESSON)[0])
    for old, new in zip(wrong.read(before), wrong.read(after)):
        ran = [c.status for c in wrong.run_wrong(before, old).checks]
        assert ran == [c.status for c in wrong.run_wrong(after, new).checks] and "failed" in ran
        assert wrong.verdict(new, wrong.run_wrong(after, new), set()) is None
    assert wrong.read(after)[0].patch == ["-    result = 0  # nothing yet", "+    result = 1"]


def test_a_rewritten_lesson_is_rewritten_no_further():
    once = patch_wrong.rewrite(LESSON)[0]
    again, made, kept = patch_wrong.rewrite(once)
    assert again == once and (made, kept) == (0, 2)


def test_a_change_in_a_repeated_line_gets_the_kept_lines_that_make_its_place_unique():
    solution = "a = 1\nx = 0\nb = 2\nx = 0"
    patch = patch_wrong.make_patch(solution, "a = 1\nx = 0\nb = 2\nx = 9")
    assert patch == [" b = 2", "-x = 0", "+x = 9"]
    assert wrong.patched(solution, patch, "here") == "a = 1\nx = 0\nb = 2\nx = 9"


LINES = st.lists(
    st.sampled_from(["x = 1", "    y = 2", "", "  ", "return x", "# note", "pass"]), min_size=1, max_size=12
)


@settings(max_examples=300, deadline=None)
@given(LINES, st.data())
def test_a_made_patch_applied_to_the_solution_gives_back_exactly_the_wrong_program(solution, data):
    program = data.draw(st.one_of(LINES, st.lists(st.sampled_from(solution + ["z = 3", ""]), max_size=14)))
    patch = patch_wrong.make_patch("\n".join(solution), "\n".join(program))
    assert wrong.patched("\n".join(solution), patch, "here") == "\n".join(program)
    assert wrong.patch_lines(wrong.as_comments(patch), "here") == patch  # as a cell writes it, and back
    assert (patch == []) == ("\n".join(solution) == "\n".join(program))  # nothing to change, no patch
