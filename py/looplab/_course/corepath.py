"""The core path: the lessons that build and then use one whole agent, and every other lesson as a
deepening of one of them.

Each lesson says its place in its own header (lessonfile.front_matter):

    # ---
    # jupyter:
    #   looplab:
    #     core: why the path needs this lesson
    # ---

or, for a lesson off the path, the core lesson it deepens and, in one line, what it adds:

    #     deepens: "04"
    #     adds: one tool call in two requests, before any loop

The path must fit in CORE_LIMIT_MINUTES by the estimate's rule (estimate.py), and a core lesson may
take code with `mine(N)` only from another core lesson (tests/lessons/test_core_path.py holds both).
"""

import ast
from dataclasses import dataclass
from pathlib import Path

from . import course
from .estimate import estimate, say
from .lessonfile import front_matter, parse

CORE_LIMIT_MINUTES = 12 * 60


@dataclass(frozen=True)
class Place:
    """A lesson's place in the course: on the core path (`why`) or a deepening of `deepens` (`adds`)."""

    core: bool
    minutes: int
    why: str = ""
    deepens: str = ""
    adds: str = ""

    def as_json(self) -> dict:
        """What lessons/index.json says of it (build_site.py)."""
        if self.core:
            return {"core": True, "why": self.why}
        return {"core": False, "deepens": self.deepens, "adds": self.adds}


def place_of(text: str) -> Place | None:
    """The place a lesson's text gives itself; None when its header names none (a fixture, a draft).

    Raises ValueError when the header names a place the wrong way (both, or a deepening without
    what it adds)."""
    meta = front_matter(text)
    minutes = estimate(parse(text)).minutes
    keys = set(meta) & {"core", "deepens", "adds"}
    if not keys:
        return None
    if keys == {"core"} and meta["core"].strip():
        return Place(core=True, minutes=minutes, why=meta["core"].strip())
    if keys == {"deepens", "adds"} and course.number_id(meta["deepens"]) and meta["adds"].strip():
        return Place(core=False, minutes=minutes, deepens=course.number_id(meta["deepens"]), adds=meta["adds"].strip())
    raise ValueError(
        f'a lesson\'s header says either `core: why` or both `deepens: "NN"` and `adds: what it adds`; '
        f"this one has {', '.join(sorted(keys))}"
    )


def places(folder: Path) -> dict[str, Place | None]:
    """Each lesson of `folder` by its number ("04", "16b"), in course order, with its place."""
    return {course.lesson_id(path): place_of(path.read_text(encoding="utf-8")) for path in course.lesson_files(folder)}


def totals(found: dict[str, Place | None]) -> dict:
    """{"core": minutes of the core path, "core_lessons": how many, "course": minutes of every lesson}."""
    known = [p for p in found.values() if p]
    return {
        "core": sum(p.minutes for p in known if p.core),
        "core_lessons": sum(p.core for p in known),
        "course": sum(p.minutes for p in known),
    }


def carried_from(text: str) -> set[str]:
    """The lessons a lesson's code takes parts from with `mine(N)` (N written as a literal)."""
    return {
        course.number_id(node.args[0].value)
        for node in ast.walk(ast.parse(text))
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "mine"
        and node.args
        and isinstance(node.args[0], ast.Constant)
    } - {None}


def problems(folder: Path) -> list[str]:
    """What breaks the core path's rules in `folder`, in words; [] when it holds. Every lesson has a
    place; a deepening names a core lesson; the core path fits in CORE_LIMIT_MINUTES; a core lesson
    takes `mine(N)` parts from core lessons only, so the path can be finished on its own."""
    found = places(folder)
    out = [
        f"lesson {n} names no place in its header (core: why, or deepens and adds)" for n, p in found.items() if not p
    ]
    core = {n for n, p in found.items() if p and p.core}
    out += [
        f"lesson {n} deepens lesson {p.deepens}, which is not on the core path"
        for n, p in found.items()
        if p and not p.core and p.deepens not in core
    ]
    spent = totals(found)["core"]
    if spent > CORE_LIMIT_MINUTES:
        out.append(f"the core path takes {say(spent)}, over the {say(CORE_LIMIT_MINUTES)} it may take")
    for path in course.lesson_files(folder):
        n = course.lesson_id(path)
        if n in core:
            outside = sorted(carried_from(path.read_text(encoding="utf-8")) - core)
            out += [f"core lesson {n} takes mine({m}) from lesson {m}, which is not on the core path" for m in outside]
    return out
