"""A "built it" record: the learner's exercise code and check results, re-checked by replay.

A record is one JSON file:

    {"format": "looplab-record", "version": 1, "name": "Ada Lovelace", "made": "<ISO time>",
     "site": "<looplab version>", "lessonFormat": 1, "scope": "course" | "chapter 1",
     "lessons": [{"slug": "04-the-loop", "hash": "<the lesson's hash when it was made>",
                  "cells": {"6": "<the learner's code of cell 6>", ...},
                  "error": null, "checks": [{"name": ..., "status": "passed", "message": ""}, ...]}]}

A cell's number counts the cells a learner sees (a lesson's wrong-answer cells are the tests' and
do not count), as the page numbers them; only code and exercise cells can hold the learner's code.

Verification is replay: each lesson's code cells run with the recorded code in place, then its
checks, with the scripted model, and the verdict for the lesson is

- `reference`: every exercise cell is the lesson's reference solution (`normalised` below: the
  same syntax tree, so comments, blank lines, spacing, quotes and brackets do not count); the
  code passes, but it is the lesson's, not the learner's;
- `fails`: the replayed checks do not all pass (the first failure says why);
- `results-differ`: the checks pass, but the recorded results are not what the code gives
  (a result edited by hand, or code edited after its results were recorded);
- `holds`: the checks pass and the recorded results are exactly the replay's.

What this proves: the recorded code passes the lesson's checks, here and now, in this copy of the
lessons. It does not prove who wrote the code (nothing is signed: a record can be copied or
written by anyone), nor that it was not copied from someone else or changed slightly from the
reference; and the recorded code runs in the same Python as the checks, so read it as you would
read any code from elsewhere.
"""

import ast
import hashlib
import json
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

from .. import __version__
from . import course, mine
from .checks import PASSED
from .lesson import LessonResult
from .lessonfile import Cell, parse, solution_index, to_text, without_wrong

FORMAT = "looplab-record"
VERSION = 1
HOLDS, FAILS, DIFFERS, REFERENCE = "holds", "fails", "results-differ", "reference"
VERDICTS = (HOLDS, FAILS, DIFFERS, REFERENCE)
SAYS = {
    HOLDS: "the checks pass on the recorded code and the recorded results match",
    FAILS: "the checks do not pass on the recorded code",
    DIFFERS: "results do not match the code",
    REFERENCE: "the code is the lesson's reference solution",
}


@dataclass
class Verdict:
    """One lesson's verdict: holds, fails, results-differ or reference, why, and the replay's checks."""

    slug: str
    verdict: str
    detail: str = ""
    checks: list[dict] = field(default_factory=list)
    error: str | None = None

    def to_dict(self) -> dict:
        """The verdict as plain data (what the page receives)."""
        return asdict(self)


def shown_cells(text: str) -> list[Cell]:
    """A lesson's cells as a learner sees them (and the page numbers them): without wrong answers."""
    return [cell for cell in parse(text) if cell.role != "wrong"]


def lesson_hash(text: str) -> str:
    """The lesson's hash as the site's lessons/index.json gives it (the text the site serves)."""
    return hashlib.sha256(without_wrong(text).encode()).hexdigest()[:16]


def normalised(source: str) -> str | None:
    """The code's syntax tree as text (comments and layout do not count); None when it does not parse."""
    try:
        return ast.dump(ast.parse(source))
    except SyntaxError:
        return None


def reference_cells(cells: list[Cell], code: dict[int, str]) -> list[int]:
    """The exercise cells whose recorded code is their reference solution, after `normalised`."""
    same = []
    for index in mine.exercises(cells):
        given = normalised(code.get(index, cells[index].source))
        if given is not None and given == normalised(cells[solution_index(cells, index)].source):
            same.append(index)
    return same


def with_code(cells: list[Cell], code: dict[int, str]) -> list[Cell]:
    """The lesson with the recorded code in its cells; ValueError when a number is not a code cell."""
    out = list(cells)
    for index, source in code.items():
        if not 0 <= index < len(cells) or cells[index].role not in ("code", "exercise"):
            raise ValueError(f"cell {index} is not a code or exercise cell of this lesson")
        out[index] = replace(cells[index], source=source)
    return out


def results_of(result: LessonResult) -> list[dict]:
    """A run's checks as a record keeps them: name, status, message."""
    return [{"name": c.name, "status": c.status, "message": c.message} for c in result.checks]


def code_of(entry: dict) -> dict[int, str]:
    """A record entry's cells as {index: source}."""
    return {int(index): source for index, source in entry.get("cells", {}).items()}


def judge(slug: str, cells: list[Cell], entry: dict, result: LessonResult) -> Verdict:
    """The verdict for one lesson from its replay (see the module docstring for the order)."""
    replayed = results_of(result)
    ours = [(c["name"], c["status"]) for c in replayed]
    theirs = [(c.get("name"), c.get("status")) for c in entry.get("checks", [])]
    same = reference_cells(cells, code_of(entry))
    if same and same == mine.exercises(cells) and result.ok:
        cells_named = ", ".join(str(i) for i in same)
        return Verdict(slug, REFERENCE, f"{SAYS[REFERENCE]} (cell {cells_named}, the same syntax tree)", replayed)
    if not result.ok:
        failed = next((c for c in result.checks if c.status != PASSED), None)
        why = (
            result.error.splitlines()[-1]
            if result.error
            else f"{failed.name}: {failed.message}"
            if failed
            else "no check passed"
        )
        return Verdict(slug, FAILS, why, replayed, result.error)
    if ours != theirs:
        differ = next(
            (
                f"{n}: recorded {s!r}, replayed {o!r}" if n == m else f"the record has {m!r} where the replay has {n!r}"
                for (n, o), (m, s) in zip(ours, theirs)
                if (n, o) != (m, s)
            ),
            f"{len(theirs)} checks recorded, {len(ours)} replayed",
        )
        return Verdict(slug, DIFFERS, f"{SAYS[DIFFERS]}: {differ}", replayed)
    return Verdict(slug, HOLDS, SAYS[HOLDS], replayed)


def lesson_texts(record: dict, text_of: Callable[[str], str | None]) -> dict[str, str]:
    """Each recorded lesson's text with the recorded code in place, by lesson id ("02"), for mine(N)."""
    out = {}
    for entry in record["lessons"]:
        text = text_of(entry["slug"])
        if text is None:
            continue
        cells = shown_cells(text)
        try:
            out[course.lesson_id(Path(entry["slug"] + ".py"))] = to_text(with_code(cells, code_of(entry)))
        except ValueError:
            continue
    return out


def replay_lesson(entry: dict, text: str | None) -> Verdict:
    """Replay one recorded lesson against the lesson's text (None: this copy has no such lesson)."""
    slug = str(entry.get("slug"))
    if text is None:
        return Verdict(slug, FAILS, f"this copy of Loop Lab has no lesson {slug}")
    cells = shown_cells(text)
    try:
        program = with_code(cells, code_of(entry))
    except (ValueError, TypeError) as error:
        return Verdict(slug, FAILS, f"the record does not fit this lesson: {error}")
    verdict = judge(slug, cells, entry, mine.quietly(program)[0])
    if entry.get("hash") and entry["hash"] != lesson_hash(text):
        verdict.detail += " (the lesson has changed since the record was made; replayed against this copy)"
    return verdict


def read_record(data) -> dict:
    """A record checked for shape; ValueError saying what is wrong."""
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ValueError(f'this is not a Loop Lab record (it has no "format": "{FORMAT}")')
    if data.get("version") != VERSION:
        raise ValueError(f"this record is version {data.get('version')!r}; this Loop Lab reads version {VERSION}")
    lessons = data.get("lessons")
    if not isinstance(lessons, list) or not lessons:
        raise ValueError("this record holds no lessons")
    for n, entry in enumerate(lessons, 1):
        if not isinstance(entry, dict) or not isinstance(entry.get("slug"), str):
            raise ValueError(f"lesson {n} of the record has no slug")
        cells = entry.get("cells", {})
        if not isinstance(cells, dict) or not all(isinstance(s, str) and str(i).isdigit() for i, s in cells.items()):
            raise ValueError(f"{entry['slug']}: its cells must be {{number: code}}")
        if not isinstance(entry.get("checks", []), list):
            raise ValueError(f"{entry['slug']}: its checks must be a list")
    return data


def verify(record: dict, text_of: Callable[[str], str | None], only: str | None = None) -> list[Verdict]:
    """Replay every lesson of a record (or the one whose slug is `only`); `text_of(slug)` gives a
    lesson's text (None: no such lesson).

    A lesson that uses mine(N) gets the record's code for lesson N (or N's reference, as mine says).
    """
    read_record(record)
    mine.provide(lesson_texts(record, text_of).get)
    try:
        return [
            replay_lesson(entry, text_of(entry["slug"]))
            for entry in record["lessons"]
            if only is None or entry["slug"] == only
        ]
    finally:
        mine.provide(None)


def make_entry(slug: str, text: str, code: dict[int, str]) -> dict:
    """A record's entry for one lesson: the code, and the results of its checks run now."""
    cells = shown_cells(text)
    result = mine.quietly(with_code(cells, code))[0]
    return {
        "slug": slug,
        "hash": lesson_hash(text),
        "cells": {str(i): s for i, s in sorted(code.items())},
        "error": result.error,
        "checks": results_of(result),
    }


def make_record(name: str, entries: list[dict], scope: str = "course", made: str = "") -> dict:
    """A whole record around its lessons' entries."""
    return {
        "format": FORMAT,
        "version": VERSION,
        "name": name,
        "made": made,
        "site": __version__,
        "lessonFormat": course.LESSON_FORMAT,
        "scope": scope,
        "lessons": entries,
    }


def verify_json(record_json: str, texts_json: str, only: str | None = None) -> str:
    """`verify` for the page's worker: the record and {slug: lesson text} as JSON; the verdicts as JSON."""
    texts = json.loads(texts_json)
    return json.dumps([v.to_dict() for v in verify(json.loads(record_json), texts.get, only or None)], default=str)
