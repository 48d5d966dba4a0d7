"""The core path (looplab/_course/corepath.py) and the time estimate (estimate.py).

The course's own lessons must keep the path's rules: every lesson has a place, the core path fits in
12 hours by the estimate, a core lesson takes `mine(N)` parts only from core lessons. Each rule is
also shown to fail on a small course made to break it.
"""

from pathlib import Path

import pytest
import yaml

from looplab._course import corepath
from looplab._course.course import lesson_files, lesson_id
from looplab._course.estimate import estimate, say
from looplab._course.lessonfile import front_matter, parse

ROOT = Path(__file__).resolve().parents[2]
LESSONS = ROOT / "lessons"


def header(**meta: str) -> str:
    return "# ---\n# jupyter:\n#   looplab:\n" + "".join(f"#     {k}: {v}\n" for k, v in meta.items()) + "# ---\n\n"


def lesson(title: str, words: int = 0, code: str = "", exercise: tuple[str, str] | None = None) -> str:
    """A small lesson: a heading and `words` words of prose, given code, an exercise with its solution."""
    text = f"# %% [markdown]\n# # {title}\n#\n# " + " ".join(["word"] * words) + "\n\n"
    if code:
        text += f"# %%\n{code}\n\n"
    if exercise:
        starter, solution = exercise
        text += f'# %% tags=["exercise"]\n{starter}\n\n# %% [markdown] tags=["hint"]\n# a nudge\n\n'
        text += f'# %% tags=["solution"]\n{solution}\n'
    return text


def test_the_course_keeps_the_core_paths_rules():
    found = corepath.places(LESSONS)
    core = [n for n, p in found.items() if p.core]
    assert corepath.problems(LESSONS) == []
    assert 8 <= len(core) <= 12, core
    assert corepath.totals(found)["core"] <= corepath.CORE_LIMIT_MINUTES
    assert {"02", "04", "08", "10", "17"} <= set(core), "tools, loop, memory, policy and evaluation are on the path"


def test_every_optional_lesson_says_in_one_line_what_it_adds_to_a_core_lesson():
    for n, place in corepath.places(LESSONS).items():
        if place.core:
            assert 20 <= len(place.why) <= 120 and "\n" not in place.why, (n, place.why)
        else:
            assert 20 <= len(place.adds) <= 120 and "\n" not in place.adds, (n, place.adds)
            assert corepath.places(LESSONS)[place.deepens].core, (n, place.deepens)


@pytest.mark.parametrize("path", lesson_files(LESSONS), ids=lesson_id)
def test_the_header_reads_the_same_as_yaml_reads_it(path):
    """The header is jupytext's: YAML with the place under jupyter: looplab:, which Jupyter keeps as
    the notebook's metadata; our reader (no YAML library in the package) must agree with a real one."""
    text = path.read_text(encoding="utf-8")
    block = text.split("# ---\n")[1]
    read = yaml.safe_load("\n".join(line[2:] if line.startswith("# ") else line[1:] for line in block.splitlines()))
    assert read["jupyter"]["looplab"] == front_matter(text)
    assert parse(text)[0].source.startswith("# "), "the header is not a cell: the lesson still opens on its title"


def test_the_estimate_follows_its_stated_rule():
    # 360 words (2 min) + 20 lines of given code (2 min) + an exercise (10 min) whose solution adds
    # 3 lines to its 1-line starter (3 min): 17 minutes, rounded up to 20
    code = "\n".join(f"x{i} = {i}  # given" for i in range(20)) + "\n# a comment, not counted\n"
    cells = parse(
        lesson(
            "T",
            words=359,
            code=code,
            exercise=("def f():\n    pass", "def f():\n    a = 1\n    b = 2\n    return a + b"),
        )
    )
    found = estimate(cells)
    assert (found.words, found.code_lines, found.exercises, found.solution_lines) == (360, 20, 1, 3)
    assert found.minutes == 20
    assert estimate(parse(lesson("T"))).minutes == 5, "never less than 5 minutes"
    assert [say(m) for m in (45, 60, 700, 2095)] == ["45 min", "1 h", "11 h 40 min", "34 h 55 min"]


def write_course(folder: Path, lessons: dict[str, str]) -> Path:
    folder.mkdir()
    for name, text in lessons.items():
        (folder / name).write_text(text, encoding="utf-8")
    return folder


def test_a_core_lesson_that_takes_mine_from_an_optional_lesson_breaks_the_path(tmp_path):
    course = write_course(
        tmp_path / "lessons",
        {
            "01-a.py": header(core="the start of everything the path builds on") + lesson("A"),
            "02-b.py": header(deepens='"01"', adds="a side road that builds a part") + lesson("B"),
            "03-c.py": header(core="uses the part built in lesson 2") + lesson("C", code="part = mine(2).part"),
            "04-d.py": header(deepens='"02"', adds="deepens a lesson that is itself optional") + lesson("D"),
            "05-e.py": lesson("E"),
        },
    )
    found = corepath.problems(course)
    assert "core lesson 03 takes mine(02) from lesson 02, which is not on the core path" in found
    assert "lesson 04 deepens lesson 02, which is not on the core path" in found
    assert "lesson 05 names no place in its header (core: why, or deepens and adds)" in found
    assert len(found) == 3


def test_a_core_path_over_twelve_hours_breaks_it(tmp_path):
    # each lesson: 9,000 words with its title (50 min) and 20 exercises (200 min): 250 minutes; three make 12 h 30 min
    long = lesson("L", words=8999) + "".join(
        f'\n# %% tags=["exercise"]\nf{i} = 0\n\n# %% tags=["solution"]\nf{i} = 0\n' for i in range(20)
    )
    course = write_course(
        tmp_path / "lessons",
        {f"0{n}-l.py": header(core="one long lesson of a path too long") + long for n in (1, 2, 3)},
    )
    assert corepath.totals(corepath.places(course)) == {"core": 750, "core_lessons": 3, "course": 750}
    assert corepath.problems(course) == ["the core path takes 12 h 30 min, over the 12 h it may take"]


def test_a_header_that_names_its_place_the_wrong_way_is_refused_with_what_to_write():
    with pytest.raises(ValueError, match="either `core: why` or both"):
        corepath.place_of(header(core="why", deepens='"01"') + lesson("X"))
    with pytest.raises(ValueError, match="either `core: why` or both"):
        corepath.place_of(header(deepens='"01"') + lesson("X"))
    with pytest.raises(ValueError, match="line 5"):
        front_matter("# ---\n# jupyter:\n#   looplab:\n#     core: ok\n#     - a list item\n# ---\n")
    with pytest.raises(ValueError, match="no closing"):
        front_matter("# ---\n# jupyter:\n")
    assert front_matter(lesson("X")) == {}
    assert corepath.place_of(lesson("X")) is None
