"""scripts/trim_wrong.py: whole wrong cells trimmed to the definitions they change, the rest kept."""

import ast
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))
sys.path.insert(0, str(ROOT / "py"))

import trim_wrong
import wrong
from looplab._course.lessonfile import parse

LESSON = """# %% tags=["exercise"]
def double(x):
    raise NotImplementedError

def triple(x):
    raise NotImplementedError

print("ready")

# %% tags=["wrong"]
# wrong: triples by adding
# expect: triple(2)
def double(x):
    return 2 * x

# adds instead
def triple(x):
    return x + 1

print("ready")

# %% tags=["wrong"]
# wrong: forgets to say it is ready
# expect: ready
def double(x):
    return 2 * x

def triple(x):
    return 3 * x

# %% tags=["solution"]
def double(x):
    return 2 * x

def triple(x):
    return 3 * x

print("ready")

# %% tags=["check"]
assert triple(2) == 6, "triple(2) should be 6"
"""


def test_a_whole_cell_keeps_only_its_changed_definition_and_an_omission_stays_whole():
    text, trimmed, whole = trim_wrong.rewrite(LESSON)
    assert (trimmed, whole) == (1, 1)
    cells = parse(text)
    first, second = wrong.read(cells)
    assert first.replaces == ["triple"] and first.mistake == "triples by adding"
    assert first.cell.source == (
        "# wrong: triples by adding\n# expect: triple(2)\n# replaces: triple\n"
        "# adds instead\ndef triple(x):\n    return x + 1"
    )
    assert second.replaces == [] and second.cell.source == parse(LESSON)[2].source
    solution = cells[3].source
    assert ast.dump(ast.parse(wrong.in_place(solution, first))) == ast.dump(ast.parse(parse(LESSON)[1].source))
    assert text.replace("# replaces: triple\n", "").count("return 2 * x") == LESSON.count("return 2 * x") - 1
    assert trim_wrong.rewrite(text)[1:] == (0, 2)  # a trimmed cell is left as it is
