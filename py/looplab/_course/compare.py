"""Checks that compare your part with the lesson's reference on many cases, and say the first that differs.

    from looplab import cases, compare, reference

    found = compare(clear_old_results, reference("clear_old_results"), HISTORIES)
    # clear_old_results does what the lesson's does on every history
    assert found, found

`compare(yours, theirs, cases, observe=None)` runs both on each case, in order, and stops at the
first case where what they did differs. Without `observe` it calls each with the case's arguments
and looks at what it returned (or that it raised) and whether it changed the arguments it was
given; `observe(fn, *arguments)` may look at anything else (the messages a model was sent, the
tools that ran, the files changed) and returns a dict of named observations. Each side gets its own
copy of the case, made fresh, so one cannot disturb the other.

The result is true when they agree on every case; otherwise it names the case and the first thing
that differs, in words: "With keep=0 and 3 tool results: tool results kept: yours 3; it should be 0
(the lesson's solution)". Cases come from `cases.generate` (edge cases first, then generated ones
from smallest to largest, with a fixed seed), so the case a message shows is the smallest that
differs, and the same one on every run, in the page as in CPython.
"""

import copy
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from .cases import Case


@dataclass
class Comparison:
    """What `compare` found: true when the two agree on every case; else the first difference, in words."""

    tried: int = 0
    case: Case | None = None
    what: str = ""
    yours: object = None
    theirs: object = None
    look: str = ""
    notes: list[str] = field(default_factory=list)

    def __bool__(self) -> bool:
        return self.case is None

    def __str__(self) -> str:
        if self.case is None:
            return f"yours agrees with the lesson's solution on all {self.tried} cases"
        if self.what == RAISED:
            text = f"With {self.case.words}, yours {brief(self.yours)}; the lesson's solution does not raise"
        else:
            text = f"With {self.case.words}: {self.what}: yours {brief(self.yours)}; it should be {brief(self.theirs)}"
        return text + (f". {self.look}" if self.look else "")


def brief(value, size: int = 140) -> str:
    """A value as the learner can read it in one line."""
    text = " ".join((value.text if isinstance(value, Said) else repr(value)).split())
    return text if len(text) <= size else text[: size - 1] + "…"


@dataclass(frozen=True)
class Said:
    """An observation already in words (shown as it is, compared by `key`)."""

    text: str
    key: object = None

    def __eq__(self, other) -> bool:
        return isinstance(other, Said) and (self.key if self.key is not None else self.text) == (
            other.key if other.key is not None else other.text
        )

    def __hash__(self) -> int:
        return hash(self.key if self.key is not None else self.text)


def raised(exc: BaseException) -> Said:
    """An exception as an observation: which kind, with its text shown (not compared)."""
    return Said(f"raised {type(exc).__name__}: {exc}", ("raised", type(exc).__name__))


def returns(fn: Callable, *arguments) -> dict:
    """The plain observation: what `fn(*arguments)` returned (or raised), and whether it changed them."""
    before = copy.deepcopy(arguments)
    try:
        out = {"returned": fn(*arguments)}
    except Exception as exc:
        out = {"returned": raised(exc)}
    out["its arguments afterwards"] = Said("changed" if not same(arguments, before) else "unchanged")
    return out


def same(a, b) -> bool:
    try:
        return a == b
    except Exception:  # a value that cannot be compared is not the same
        return False


def first_difference(a, b, where: str = "") -> tuple[str, object, object] | None:
    """Where two values first differ: (path, mine, theirs), or None when equal."""
    if same(a, b):
        return None
    if isinstance(a, dict) and isinstance(b, dict) and not isinstance(a, Said):
        for key in [*b, *(k for k in a if k not in b)]:
            if key not in a:
                return f"{where} → {key}", Said("has none"), b[key]
            if key not in b:
                return f"{where} → {key}", a[key], Said("not there")
            found = first_difference(a[key], b[key], f"{where} → {key}")
            if found:
                return found
    nested = any(isinstance(x, (dict, list, tuple)) for x in [*a, *b]) if isinstance(a, (list, tuple)) else False
    if nested and isinstance(b, (list, tuple)) and type(a) is type(b):
        for i, (x, y) in enumerate(zip(a, b)):
            found = first_difference(x, y, f"{where} → item {i + 1}")
            if found:
                return found
        if len(a) != len(b):
            return f"{where} → how many", Said(items(len(a))), Said(items(len(b)))
    return where, a, b


RAISED = "what happened"  # the observation of a side whose run raised


def watch(observe: Callable[..., dict], fn: Callable, case: Case) -> dict:
    """One side's observations of a case (on its own copy); what it raised, if it raised."""
    try:
        return observe(fn, *copy.deepcopy(case.arguments))
    except Exception as exc:
        return {RAISED: raised(exc)}


def items(count: int) -> str:
    return f"{count} item" if count == 1 else f"{count} items"


def compare(
    yours: Callable,
    theirs: Callable,
    cases: Iterable[Case],
    observe: Callable[..., dict] | None = None,
    look: dict[str, str] | None = None,
) -> Comparison:
    """Run yours and theirs on each case until one differs; see the module docstring."""
    observe = observe or returns
    found = Comparison()
    for case in cases:
        found.tried += 1
        mine = watch(observe, yours, case)
        ref = watch(observe, theirs, case)
        if RAISED in ref and RAISED not in mine:
            raise RuntimeError(f"the lesson's solution raised on the case {case.words}: {ref[RAISED].text}")
        for name in ref if RAISED not in mine else [RAISED]:
            if name not in mine or not same(mine[name], ref.get(name)):
                if name == RAISED:
                    found.case, found.what, found.yours, found.theirs = case, RAISED, mine[RAISED], None
                    return found
                where = first_difference(mine.get(name, Said("nothing")), ref[name])
                path, a, b = where if where else ("", mine.get(name), ref[name])
                found.case, found.what, found.yours, found.theirs = case, f"{name}{path}", a, b
                found.look = (look or {}).get(name, "")
                return found
    return found
