"""Where a course's lessons are and in what order: `NN-slug.py` files, and `NNx-slug.py` for a lesson
placed after lesson NN without renumbering the ones after it (`01b-workflows-first.py`)."""

import re
from pathlib import Path

LESSON_FILE = re.compile(r"^(?P<number>\d\d)(?P<part>[a-z]?)-(?P<slug>[a-z0-9-]+)\.py$")


LESSON_NUMBER = re.compile(r"(\d{1,2})([a-z]?)")


def lesson_id(path: Path) -> str:
    """The lesson's number as the learner types and reads it: "04", "01b"."""
    match = LESSON_FILE.match(Path(path).name)
    return match["number"] + match["part"] if match else Path(path).stem


def number_id(number) -> str | None:
    """A lesson number as a learner writes it (4, "4", "04", "1b", " 1B ") as a lesson id ("04",
    "01b"); None when it is not a number. The page reads mine(N) by the same rule
    (web/src/page/lesson/lessonformat.js lessonId; tests/site/test_page_rules.py holds them together)."""
    match = LESSON_NUMBER.fullmatch(str(number).strip().lower())
    return f"{int(match[1]):02d}{match[2]}" if match else None


def lesson_files(folder: Path) -> list[Path]:
    """The lessons in `folder`, in course order (01, 01b, 02, …)."""
    if not Path(folder).is_dir():
        return []
    found = [p for p in Path(folder).glob("*.py") if LESSON_FILE.match(p.name)]
    return sorted(found, key=lambda p: (lesson_id(p), p.name))


def find_in(folder: Path, name: str) -> Path | None:
    """A lesson number ("4", "04", "1b") or a slug part ("loop") in `folder`; None when not one lesson."""
    files = lesson_files(folder)
    wanted = number_id(name)
    if wanted:
        return next((f for f in files if lesson_id(f) == wanted), None)
    matches = [f for f in files if name in f.stem]
    return matches[0] if len(matches) == 1 else None


LESSON_FORMAT = 1  # the lesson format's version: the site writes it into lessons/index.json, the page checks it

HERE = Path(__file__).resolve().parent
# A wheel carries the lessons beside this file (scripts/dist.py puts them there); a source
# checkout has them at lessons/, three folders above this file (py/looplab/_course/course.py).
PACKAGED = HERE / "lessons"
CHECKOUT = HERE.parents[2] / "lessons"


def packaged_lessons() -> Path | None:
    """The lessons that came with looplab: the wheel's copy, else a source checkout's lessons/."""
    for folder in (PACKAGED, CHECKOUT):
        if lesson_files(folder):
            return folder
    return None
