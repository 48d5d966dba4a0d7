"""Cases for a check to try: edge cases written out, then generated ones from a fixed seed.

    from looplab.cases import Case, generate

    def history(draw):
        results = draw.number(0, 4)
        keep = draw.number(0, results + 1)
        return Case((pairs(results), keep), f"keep={keep} and {results} tool results")

    HISTORIES = generate(history, count=80, edges=[Case((pairs(3), 0), "keep=0 and 3 tool results")])

`generate` gives the edge cases first, then `count` generated ones, smallest first (by the size of
their arguments as text), without repeats: a check that stops at the first case that differs shows
the simplest one. The seed is fixed, so every run (in the page, in CPython, on any machine) tries
the same cases in the same order and a message can be reproduced.

Why not hypothesis: it would find small cases by shrinking, but in the page it is a download and
an import before the first check of every lesson that used it, where this generator costs nothing
(`make bench-cases` measures both); with the edge cases written out, a fixed seed is enough for
functions this small.
"""

import random
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Case:
    """One case: the arguments to call with, and the case in words for a message."""

    arguments: tuple
    words: str = ""

    def __post_init__(self):
        if not self.words:
            shown = ", ".join(short(a) for a in self.arguments)
            object.__setattr__(self, "words", shown or "no arguments")


def short(value, size: int = 60) -> str:
    text = " ".join(repr(value).split())
    return text if len(text) <= size else text[: size - 1] + "…"


class Draw:
    """A seeded source of choices for a case maker."""

    def __init__(self, seed: int):
        self.random = random.Random(seed)

    def number(self, low: int, high: int) -> int:
        """A whole number from low to high, both included."""
        return self.random.randint(low, high)

    def pick(self, options: Sequence):
        """One of the options."""
        return options[self.random.randrange(len(options))]

    def maybe(self, chance: float = 0.5) -> bool:
        """True with this chance."""
        return self.random.random() < chance

    def some(self, make: Callable[["Draw"], object], low: int, high: int) -> list:
        """A list of low to high values, each made by `make(draw)`."""
        return [make(self) for _ in range(self.number(low, high))]

    def subset(self, options: Sequence) -> list:
        """Some of the options, in their order."""
        return [o for o in options if self.maybe()]

    def shuffled(self, items: Sequence) -> list:
        """The items in a random order."""
        out = list(items)
        self.random.shuffle(out)
        return out


def generate(make: Callable[[Draw], Case], count: int = 60, seed: int = 38, edges: Iterable[Case] = ()) -> list[Case]:
    """The edge cases, then `count` made ones (fewer when some repeat), smallest first."""
    draw = Draw(seed)
    made = sorted((make(draw) for _ in range(count)), key=lambda c: len(repr(c.arguments)))
    out, seen = [], set()
    for case in [*edges, *made]:
        key = repr(case.arguments)
        if key not in seen:
            seen.add(key)
            out.append(case)
    return out
