"""Hints are graduated: the first is a nudge with no code, and the exact code waits for the last.

A hint before the last may name a function or show a piece of an idea, but none of the solution's
own lines: a line of the solution that says something (not `try:`, `else:`, `except …:` or a line
shorter than 20 characters) and that the starter does not already hold, found verbatim in an
earlier hint, hands the learner the answer before they asked for all of it.
"""

import re
from pathlib import Path

import pytest

from looplab._course.course import lesson_files
from looplab._course.lessonfile import Cell, hints, parse, solution_index

ROOT = Path(__file__).resolve().parents[2]
LESSONS = lesson_files(ROOT / "lessons")
SHORTEST = 20  # characters a solution line needs to say something
HEADER = re.compile(r"^(try|else|finally|except\b.*|elif\b.*)\s*:$")  # a bare block header
INLINE_LONGEST = 30  # an inline name in a nudge, not a line of code


def flat(text: str) -> str:
    """The text with every run of white space as one space, so a re-wrapped line still matches."""
    return re.sub(r"\s+", " ", text).strip()


def code_of(line: str) -> str:
    """A source line without its comment, flattened; "" for a comment line."""
    if line.lstrip().startswith("#"):
        return ""
    return flat(re.sub(r"\s+#\s.*$", "", line))


def telling_lines(cells: list[Cell], exercise: int) -> list[str]:
    """The solution's lines that carry the answer: long enough, not a bare header, not in the starter."""
    starter = {code_of(line) for line in cells[exercise].source.splitlines()}
    solution = cells[solution_index(cells, exercise)].source
    lines = [code_of(line) for line in solution.splitlines()]
    return [line for line in lines if len(line) >= SHORTEST and not HEADER.match(line) and line not in starter]


def code_in_a_nudge(hint: str) -> list[str]:
    """What in a first hint is code: a fenced or indented block, or an inline span that is a line of code."""
    found = re.findall(r"```.*?```", hint, re.S)
    found += [line for line in hint.splitlines() if re.match(r"^( {4}|\t)\S", line)]
    prose = re.sub(r"```.*?```", "", hint, flags=re.S)
    found += [span for span in re.findall(r"`([^`]+)`", prose) if "=" in span or len(span) > INLINE_LONGEST]
    return found


EXERCISES = [
    (path, i)
    for path in LESSONS
    for cells in [parse(path.read_text(encoding="utf-8"))]
    for i, cell in enumerate(cells)
    if cell.role == "exercise" and hints(cells, i) and solution_index(cells, i) is not None
]


def test_every_lesson_with_exercises_is_looked_at():
    assert len(EXERCISES) >= 40 and len({path for path, _ in EXERCISES}) >= 25, len(EXERCISES)


@pytest.mark.parametrize("path, index", EXERCISES, ids=[f"{p.stem[:3]}cell{i + 1}" for p, i in EXERCISES])
def test_hint_one_is_a_nudge_and_no_hint_before_the_last_gives_a_line_of_the_solution(path, index):
    cells = parse(path.read_text(encoding="utf-8"))
    found = hints(cells, index)
    assert not code_in_a_nudge(found[0]), (
        f"{path.name}, exercise cell {index + 1}: hint 1 holds code {code_in_a_nudge(found[0])}; make it a nudge"
    )
    lines = telling_lines(cells, index)  # none for a solution of a few short lines: nothing can leak
    for number, hint in enumerate(found[:-1], start=1):
        given = [line for line in lines if line in flat(hint)]
        assert not given, (
            f"{path.name}, exercise cell {index + 1}: hint {number} of {len(found)} already holds "
            f"the solution's {given}; keep the exact code for the last hint"
        )


def test_the_rule_catches_a_leak_and_lets_a_nudge_through():
    cells = parse(
        '# %% tags=["exercise"]\ndef f(x):\n    return 0\n\n'
        '# %% [markdown] tags=["hint"]\n# Return a bigger number; `f` is yours.\n\n'
        '# %% [markdown] tags=["hint"]\n# Use `return x * 2 + len(str(x))`.\n\n'
        '# %% [markdown] tags=["hint"]\n# ```python\n# def f(x):\n#     return x * 2 + len(str(x))\n# ```\n\n'
        '# %% tags=["solution"]\ndef f(x):\n    return x * 2 + len(str(x))  # twice, and its width\n'
    )
    assert telling_lines(cells, 0) == ["return x * 2 + len(str(x))"]  # the def line is the starter's
    assert code_in_a_nudge(hints(cells, 0)[0]) == []
    assert code_in_a_nudge("Try `total = 0` first.") == ["total = 0"]
    assert code_in_a_nudge("```python\nx = 1\n```") and code_in_a_nudge("Like this:\n\n    x = 1\n")
    assert [line for line in telling_lines(cells, 0) if line in flat(hints(cells, 0)[1])] == [
        "return x * 2 + len(str(x))"
    ]
