"""A check's name is what the learner reads in the checklist: plain words, whole, not code.

A check is named by the comment line just above its assert (or a test's docstring's first line).
Without that comment the name is the assert's source, code the learner has to decode; a comment
that runs onto a second line gives the checklist only its last line; an ellipsis reads as a name
cut short. This lint holds every check of every lesson to plain, whole words.
"""

import ast
from pathlib import Path

import pytest

from looplab._course import testcells
from looplab._course.course import lesson_files
from looplab._course.lesson import check_names, check_statements, is_expect, parse

ROOT = Path(__file__).resolve().parents[2]
LESSONS = lesson_files(ROOT / "lessons")


def is_code(name: str) -> bool:
    """Does the name read as Python rather than words? Several lines, or an expression that compiles
    and does what only code does: calls, indexes, compares by value, or names something no word spells
    (`PROBLEMS`, `n9_said`). `"new instructions:" is refused` compiles too, yet reads as words."""
    if "\n" in name:
        return True
    try:
        tree = ast.parse(name, mode="eval")
    except SyntaxError:
        return False
    for node in ast.walk(tree):
        if isinstance(node, (ast.Call, ast.Subscript, ast.Attribute, ast.Lambda, ast.comprehension)):
            return True
        if isinstance(node, ast.Compare) and not all(isinstance(op, (ast.Is, ast.IsNot, ast.In)) for op in node.ops):
            return True
        if isinstance(node, ast.Name) and not node.id.isalpha() or isinstance(node, ast.Name) and not node.id.islower():
            return True
    return False


def problems_of(text: str) -> list[str]:
    """What is wrong with each check name of a lesson: code, no naming comment, a name cut short."""
    cells = parse(text)
    found = []
    for index, cell in enumerate(cells):
        if cell.role == "check":
            lines = cell.source.splitlines()
            for name, stmt in check_statements(cell):
                if not (isinstance(stmt, ast.Assert) or is_expect(stmt)):
                    continue
                above = lines[stmt.lineno - 2].strip() if stmt.lineno >= 2 else ""
                before = lines[stmt.lineno - 3].strip() if stmt.lineno >= 3 else ""
                where = f"cell {index + 1}, line {stmt.lineno}"
                if not above.startswith("#"):
                    found.append(f"{where}: no naming comment, so the checklist shows code: {name[:80]!r}")
                elif before.startswith("#"):
                    found.append(f"{where}: the naming comment runs over two lines, the checklist shows only {name!r}")
        if "tests" in cell.tags and cell.role != "exercise":
            for stmt in ast.parse(cell.source).body:
                doc = ast.get_docstring(stmt) if isinstance(stmt, ast.FunctionDef) else None
                if isinstance(stmt, ast.FunctionDef) and stmt.name.startswith("test") and doc:
                    first = doc.strip().split("\n\n")[0]
                    if "\n" in first:
                        found.append(f"test {stmt.name}: its docstring's first sentence runs over two lines: {first!r}")
    for name in check_names(cells):
        if is_code(name):
            found.append(f"the name is code, not words: {name[:80]!r}")
        if "..." in name or "…" in name:
            found.append(f"the name looks cut short: {name!r}")
        if name.rstrip().endswith((",", " and", " or", " the", " a", "(")):
            found.append(f"the name stops mid-sentence: {name!r}")
    return found


@pytest.mark.parametrize("path", LESSONS, ids=[p.stem for p in LESSONS])
def test_every_check_name_is_plain_whole_words(path):
    problems = problems_of(path.read_text(encoding="utf-8"))
    assert not problems, f"{path.name}:\n" + "\n".join(problems)


BAD = """# %% [markdown]
# # 99 · Names
#
# %%
x, items = 3, [1, 2]

# %% tags=["check"]
assert x == 3
# a name that runs on,
# over two lines
assert x > 0
# "ignore ... instructions" is refused
assert x
# every item is counted
assert len(items) == 2
# not PROBLEMS
assert items
"""


def test_the_lint_catches_each_kind_of_bad_name_and_passes_a_good_one():
    problems = problems_of(BAD)
    assert any("no naming comment" in p and "x == 3" in p for p in problems)
    assert any("two lines" in p and "over two lines" in p for p in problems)
    assert any("cut short" in p and "ignore" in p for p in problems)
    assert any("code, not words" in p and "'not PROBLEMS'" in p for p in problems)
    assert not any("every item is counted" in p for p in problems), problems
    assert len(problems) == 5, problems  # x == 3 is both code and unnamed


def test_words_are_not_code_and_code_is_not_words():
    for words in (
        "the run ended in one of the four ways",
        "read_file numbers each line from 1",
        "`inside` refuses a path that climbs out with ..",
        "a tool error reaches the model as error: text",
    ):
        assert not is_code(words), words
    for code in ("not PROBLEMS", "len(asked) == len(returned)", 'n9_said == "error"', "isinstance(COST, float)"):
        assert is_code(code), code
    assert testcells.check_name("First line.\n\nMore.", "test_x") == "First line."
