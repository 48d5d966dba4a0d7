"""How long a lesson takes a learner, computed from the lesson file by one stated rule.

    reading   the words of its prose and predict cells, at 180 words a minute (careful reading of
              technical text; hints are counted with the exercise they help with)
    code      the lines of code it gives (plain code cells, blank and comment lines left out), at 10
              lines a minute: read, run, look at the output
    exercise  10 minutes each, plus 1 minute for every line its solution adds to the starter (the
              code the learner has to find and write; 69 of the 72 exercises have three hints, so the
              hints' number says little about the effort, the solution's size does)
    predict   1 minute each, to choose before running

The sum is rounded up to 5 minutes. A course's total is the sum of its lessons' rounded figures, so
the numbers shown add up.
"""

import math
import re
from dataclasses import dataclass

from .lessonfile import Cell, solution_index

WORDS_A_MINUTE = 180
CODE_LINES_A_MINUTE = 10
EXERCISE_MINUTES = 10
MINUTES_A_SOLUTION_LINE = 1
PREDICT_MINUTES = 1
ROUND_TO = 5

RULE = (
    "prose at 180 words a minute, given code at 10 lines a minute, each exercise 10 minutes plus 1 a line "
    "its solution adds, 1 minute a prediction; each lesson rounded up to 5 minutes"
)  # the docstring's rule in one line, for the page and `looplab list`

WORD = re.compile(r"[A-Za-z0-9][\w'’-]*")


def code_lines(source: str) -> list[str]:
    """The lines of code in `source`, stripped: blank lines and comment lines left out."""
    return [line.strip() for line in source.splitlines() if line.strip() and not line.strip().startswith("#")]


@dataclass(frozen=True)
class Estimate:
    """What the rule counted in one lesson, and the minutes it makes."""

    words: int
    code_lines: int
    exercises: int
    solution_lines: int
    predictions: int

    @property
    def minutes(self) -> int:
        exact = (
            self.words / WORDS_A_MINUTE
            + self.code_lines / CODE_LINES_A_MINUTE
            + self.exercises * EXERCISE_MINUTES
            + self.solution_lines * MINUTES_A_SOLUTION_LINE
            + self.predictions * PREDICT_MINUTES
        )
        return max(ROUND_TO, math.ceil(exact / ROUND_TO - 1e-9) * ROUND_TO)


def estimate(cells: list[Cell]) -> Estimate:
    """Count what the rule counts in a lesson's cells (as lessonfile.parse reads them)."""
    added = 0
    for i, cell in enumerate(cells):
        if cell.role == "exercise":
            solution = solution_index(cells, i)
            starter = set(code_lines(cell.source))
            if solution is not None:
                added += sum(line not in starter for line in code_lines(cells[solution].source))
    return Estimate(
        words=sum(len(WORD.findall(c.source)) for c in cells if c.role in ("markdown", "predict")),
        code_lines=sum(len(code_lines(c.source)) for c in cells if c.role == "code"),
        exercises=sum(c.role == "exercise" for c in cells),
        solution_lines=added,
        predictions=sum(c.role == "predict" for c in cells),
    )


def say(minutes: int) -> str:
    """Minutes as a learner reads them: "45 min", "1 h 10 min", "11 h"."""
    hours, rest = divmod(minutes, 60)
    if not hours:
        return f"{rest} min"
    return f"{hours} h {rest} min" if rest else f"{hours} h"
