"""Chapter 3's parts beyond the lessons' own checks: the coding tools and loop of lesson 25 (the
solution's), `mine(N)` carrying a learner's code forward, project tests in-process, and each
exercise's wrong answers caught by a plain check that names their cause."""

import json
import os
import re
import sys
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from looplab import project_tests
from looplab._course import mine as carried
from looplab._course.course import find_in, lesson_files
from looplab._course.lesson import parse, run_cells, solution_index, to_text
from looplab.models import call, final, scripted

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))
import wrong  # an authoring tool (scripts/), not a part of the package

LESSONS = ROOT / "lessons"
CHAPTER3 = [p for p in lesson_files(LESSONS) if p.name[:2] in ("25", "26", "27")]


@pytest.fixture(scope="module")
def coding():
    """Lesson 25's solution, run once: its namespace (inside, make_toolbox, coding_agent, ...)."""
    os.environ["LOOPLAB_MODEL"] = "scripted"
    ns = {"__name__": "__lesson__"}
    result = run_cells(parse(find_in(LESSONS, "25").read_text(encoding="utf-8")), solution=True, namespace=ns)
    assert result.ok, [c.message for c in result.checks if not c.ok] or result.error
    return ns


def run_tool(box, name, **arguments):
    return box.run(name, json.dumps(arguments))


# ── paths ────────────────────────────────────────────────────────────────────────────────────


def test_every_tool_refuses_dotdot_absolute_and_symlinked_paths(coding, tmp_path):
    root = coding["new_project"]()
    secret = tmp_path / "secret.txt"
    secret.write_text("the secret\n")
    (root / "out").symlink_to(tmp_path)
    box = coding["make_toolbox"](root)
    attempts = {
        "read ..": run_tool(box, "read_file", path=f"../{'../' * 5}{secret}"),
        "read absolute": run_tool(box, "read_file", path=str(secret)),
        "read symlink": run_tool(box, "read_file", path="out/secret.txt"),
        "list symlink": run_tool(box, "list_files", path="out"),
        "edit symlink": run_tool(box, "edit_file", path="out/secret.txt", old="the", new="a"),
        "write absolute": run_tool(box, "write_file", path=str(tmp_path / "new.txt"), text="x"),
        "write ..": run_tool(box, "write_file", path="../escaped.txt", text="x"),
    }
    for what, answer in attempts.items():
        assert answer.startswith("error:") and "outside the project" in answer, (what, answer)
    assert secret.read_text() == "the secret\n"
    assert not (tmp_path / "new.txt").exists() and not (root.parent / "escaped.txt").exists()


SEGMENT = st.sampled_from(["..", ".", "inventory", "tests", "x", "stock.py", "", "/", "//", "~"])


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(parts=st.lists(SEGMENT, max_size=7), absolute=st.booleans())
def test_inside_never_gives_a_path_outside_the_root(coding, parts, absolute):
    root = coding["SHOP"]
    path = ("/" if absolute else "") + "/".join(parts)
    try:
        full = coding["inside"](root, path)
    except ValueError as exc:
        assert "outside the project" in str(exc) and "relative" in str(exc)
        return
    assert Path(full).is_absolute() and Path(full).resolve().is_relative_to(Path(root).resolve())


# ── edits ────────────────────────────────────────────────────────────────────────────────────


def test_an_old_found_twice_is_refused_and_the_file_is_byte_for_byte_unchanged(coding):
    root = coding["new_project"]()
    stock = root / "inventory" / "stock.py"
    before = stock.read_bytes()
    answer = run_tool(coding["make_toolbox"](root), "edit_file", path="inventory/stock.py", old="return", new="yield")
    assert answer.startswith("error:") and re.search(r"found \d+ times", answer), answer
    assert stock.read_bytes() == before


def test_a_breaking_edit_is_refused_with_its_line_and_a_text_file_may_change_freely(coding):
    root = coding["new_project"]()
    box = coding["make_toolbox"](root)
    stock = root / "inventory" / "stock.py"
    before = stock.read_bytes()
    answer = run_tool(
        box,
        "edit_file",
        path="inventory/stock.py",
        old="def low_stock(items, threshold=5):",
        new="def low_stock(items, threshold=5)",
    )
    assert answer.startswith("error:") and "line 12" in answer and "unchanged" in answer, answer
    assert stock.read_bytes() == before
    readme = run_tool(box, "edit_file", path="README.md", old="# inventory", new="# inventory (")
    assert not readme.startswith("error:") and "# inventory (" in (root / "README.md").read_text()


def test_write_file_creates_a_new_file_and_refuses_to_overwrite(coding):
    root = coding["new_project"]()
    box = coding["make_toolbox"](root)
    made = run_tool(box, "write_file", path="inventory/prices.py", text="PRICES = {}\n")
    again = run_tool(box, "write_file", path="inventory/prices.py", text="gone\n")
    assert made.startswith("wrote") and again.startswith("error:") and "edit_file" in again
    assert (root / "inventory" / "prices.py").read_text() == "PRICES = {}\n"


# ── the project's tests, in-process ──────────────────────────────────────────────────────────


def test_run_tests_on_a_test_file_with_a_syntax_error_returns_a_sentence(coding):
    root = coding["new_project"]()
    (root / "tests" / "test_broken.py").write_text("def test_x(:\n    pass\n")
    answer = run_tool(coding["make_toolbox"](root), "run_tests")
    assert not answer.startswith("error: run_tests failed"), answer  # not an exception turned into text
    assert "tests/test_broken.py could not be collected" in answer and "line 1" in answer, answer
    assert answer.splitlines()[0] == "3 passed, 3 failed, 1 error", answer


def test_run_tests_sees_an_edit_made_the_same_second_with_the_same_size(tmp_path):
    (tmp_path / "calc.py").write_text("def f():\n    return 1\n")
    (tmp_path / "test_calc.py").write_text("from calc import f\n\ndef test_f():\n    assert f() == 2\n")
    first = project_tests(tmp_path)
    (tmp_path / "calc.py").write_text("def f():\n    return 2\n")  # same size, likely the same mtime second
    second = project_tests(tmp_path)
    assert first.failed and first.failed[0][0] == "test_calc.py::test_f" and "assert 1 == 2" in first.failed[0][1]
    assert second.passed == ["test_calc.py::test_f"] and second.ok


def test_failures_are_cut_short(coding):
    root = coding["new_project"]()
    many = "\n".join(f"def test_{n}():\n    assert 'x' * 400 == 'y{n}'\n" for n in range(40))
    (root / "tests" / "test_many.py").write_text(many)
    answer = run_tool(coding["make_toolbox"](root), "run_tests")
    assert answer.startswith("3 passed, 43 failed") and len(answer) < 2100 and answer.endswith("(cut: fix these first)")


# ── the loop ─────────────────────────────────────────────────────────────────────────────────

GOOD_EDIT = call("edit_file", path="inventory/stock.py", old="for item in items[1:]:", new="for item in items:")
ACTIONS = st.sampled_from(["edit", "test", "final", "read"])


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(plan=st.lists(ACTIONS, min_size=1, max_size=8))
def test_coding_agent_never_ends_final_with_the_tests_unrun_after_an_edit(coding, plan):
    replies = [
        {
            "edit": GOOD_EDIT,
            "test": call("run_tests"),
            "final": final("Done."),
            "read": call("read_file", path="README.md"),
        }[a]
        for a in plan
    ]
    model = scripted(replies + [call("run_tests"), final("Done, tested.")] * 2)
    result, messages = coding["coding_agent"](
        "Fix it.", model, coding["new_project"](), max_steps=12, approve=coding["yes"]
    )
    assert result["stopped"] in ("final", "step_limit")
    if result["stopped"] == "final":
        assert coding["tests_after_last_edit"](messages), coding["tools_called"](messages)
    changed = tested = expected_nudge = False  # what the loop must do, step by step of the plan
    for n, action in enumerate(plan):
        if action == "edit" and "edit" not in plan[:n]:  # the same edit again finds no `old`: no change
            changed, tested = True, False
        elif action == "test":
            tested = True
        elif action == "final":
            if changed and not tested:
                expected_nudge = True
            else:
                break
    nudges = [m for m in messages if m["role"] == "user" and "run the tests" in m["content"]]
    assert bool(nudges) == expected_nudge, (plan, coding["tools_called"](messages))


def test_a_refused_edit_leaves_the_file_and_answers_every_call(coding):
    root = coding["new_project"]()
    before = (root / "inventory" / "stock.py").read_bytes()
    model = scripted(
        [
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": "c1",
                        "type": "function",
                        "function": {
                            "name": "edit_file",
                            "arguments": json.dumps({"path": "inventory/stock.py", "old": "items[1:]", "new": "items"}),
                        },
                    },
                    {"id": "c2", "type": "function", "function": {"name": "run_tests", "arguments": "{}"}},
                ],
            }
        ]
    )
    result, messages = coding["coding_agent"]("Fix it.", model, root, approve=lambda name, arguments: False)
    assert result["stopped"] == "needs_person" and (root / "inventory" / "stock.py").read_bytes() == before
    assert [m["tool_call_id"] for m in messages if m["role"] == "tool"] == ["c1", "c2"]


# ── mine(N) ──────────────────────────────────────────────────────────────────────────────────


def lesson_with(number: str, replacements: dict[int, str]) -> str:
    """Lesson `number`'s text with its k-th exercise cells (0-based) replaced by the given code."""
    cells = parse(find_in(LESSONS, number).read_text(encoding="utf-8"))
    exercises = [i for i, c in enumerate(cells) if c.role == "exercise"]
    for k, code in replacements.items():
        cells[exercises[k]] = replace(cells[exercises[k]], source=code)
    return to_text(cells)


def solution_of(number: str, k: int) -> str:
    cells = parse(find_in(LESSONS, number).read_text(encoding="utf-8"))
    exercises = [i for i, c in enumerate(cells) if c.role == "exercise"]
    return cells[solution_index(cells, exercises[k])].source


def test_mine_uses_the_learners_code_when_it_passes(provided, capsys):
    good = solution_of("02", 0).replace('"""Tools the model may ask for', '"""Mine: tools the model may ask for')
    provided["02"] = lesson_with("02", {0: good, 1: solution_of("02", 1), 2: solution_of("02", 2)})
    found = carried.mine(2)
    assert found.reference == [] and "MyToolbox" in found.yours and "calculate" in found.yours
    assert found.MyToolbox.__doc__.startswith("Mine:") and "all yours" in found.note
    assert capsys.readouterr().out.strip() == found.note  # the learner is told the parts are theirs


def test_mine_falls_back_to_the_reference_and_says_which_parts_are_whose(provided, capsys):
    broken = "class MyToolbox:\n    def __init__(self):\n        self.tools = {}\n"  # no register, no run
    provided["02"] = lesson_with("02", {0: broken, 1: solution_of("02", 1), 2: solution_of("02", 2)})
    found = carried.mine(2)
    printed = capsys.readouterr().out.strip()
    assert "MyToolbox" in found.reference and "calculate" in found.yours
    assert printed == found.note and printed.count(". ") == 0 and "the reference solution: MyToolbox" in printed
    assert "yours: " in printed and "calculate" in printed.split("the reference")[0]
    box = found.MyToolbox()  # the reference works
    box.register("ping", "Ping.", {"type": "object", "properties": {}}, lambda: "pong")
    assert box.run("ping", "{}") == "pong" and box.run("nope", "{}").startswith("error:")


def lessons_run_by(monkeypatch) -> list[str]:
    """The lessons mine() runs from now on, by their first line, in order (it still runs them)."""
    ran = []

    def counted(cells, *args, **kwargs):
        ran.append(next(c.source.splitlines()[0] for c in cells if c.kind == "markdown"))
        return run_cells(cells, *args, **kwargs)

    monkeypatch.setattr(carried, "run_cells", counted)
    return ran


def test_mine_runs_the_lesson_once_when_it_holds_the_starter_or_passes(provided, monkeypatch, capsys):
    """mine(25) in lesson 26 ran lesson 25 about 11 times when it held the starter (issue 37)."""
    ran = lessons_run_by(monkeypatch)
    provided["25"] = find_in(LESSONS, "25").read_text(encoding="utf-8")  # the page's saved cells: the starter
    found = carried.mine(25)
    assert [line[:5] for line in ran] == ["# 25 ", "# 2 ·"]  # lesson 25 once (and lesson 02, which it reuses)
    assert found.yours == [] and "still hold the starter code" in found.note
    assert found.coding_agent is not None

    ran.clear()
    solved = {k: solution_of("02", k) for k in range(3)}
    provided["02"] = lesson_with("02", solved)
    assert carried.mine(2).reference == [] and len(ran) == 1  # all yours: once

    ran.clear()
    provided["02"] = lesson_with("02", {2: solved[2]})  # one exercise done, the others still the starter
    found = carried.mine(2)
    assert len(ran) == 1 and "calculate" in found.yours and "MyToolbox" in found.reference
    assert "still hold the starter code" in found.note
    assert "calculate" in capsys.readouterr().out


def test_mine_reads_the_edited_lesson_file_in_the_folder_in_use(tmp_path, monkeypatch, capsys):
    folder = tmp_path / "lessons"
    folder.mkdir()
    (folder / "04-the-loop.py").write_text(lesson_with("04", {0: solution_of("04", 0), 1: solution_of("04", 1)}))
    monkeypatch.setenv("LOOPLAB_LESSONS", str(folder))
    found = carried.mine(4)
    assert found.yours == ["my_run_agent", "step_limit_problems"] and not found.reference
    (folder / "04-the-loop.py").write_text(
        lesson_with("04", {0: "def my_run_agent(*args):\n    return None\n", 1: solution_of("04", 1)})
    )
    again = carried.mine(4)
    assert again.reference == ["my_run_agent"] and again.yours == ["step_limit_problems"]
    assert "my_run_agent" in capsys.readouterr().out
    with pytest.raises(AttributeError, match="define no 'nothing_here'"):
        _ = again.nothing_here


def test_mine_of_a_lesson_that_is_not_there_says_so(tmp_path, monkeypatch):
    monkeypatch.setenv("LOOPLAB_LESSONS", str(tmp_path))
    with pytest.raises(LookupError, match="no lesson 99"):
        carried.mine(99)


def test_mine_does_not_leak_into_the_trace_or_the_model_mode(provided, monkeypatch):
    from looplab import trace

    heard = []
    stop = trace.listen(heard.append)
    monkeypatch.setenv("LOOPLAB_MODEL", "live")
    try:
        provided["04"] = lesson_with("04", {0: solution_of("04", 0), 1: solution_of("04", 1)})
        found = carried.mine(4)
    finally:
        stop()
    assert found.yours and heard == [] and os.environ["LOOPLAB_MODEL"] == "live"


# ── wrong answers ────────────────────────────────────────────────────────────────────────────


def wrong_answers(path: Path):
    """(exercise index, wrong cell index, mistake, expected words) for each wrong cell of a lesson."""
    cells = parse(path.read_text(encoding="utf-8"))
    out, exercise = [], None
    for i, cell in enumerate(cells):
        if cell.role == "exercise":
            exercise = i
        if "wrong" in cell.tags and not cell.source.startswith("# right:"):  # a right answer spelt otherwise
            lines = cell.source.splitlines()
            mistake = next(line.split(":", 1)[1].strip() for line in lines if line.startswith("# wrong:"))
            words = next(line.split(":", 1)[1].strip() for line in lines if line.startswith("# expect:"))
            out.append((exercise, i, mistake, words))
    return out


WRONG = [(p, *w) for p in CHAPTER3 for w in wrong_answers(p)]


def test_every_exercise_of_chapter_3_has_two_wrong_answers_or_more():
    for path in CHAPTER3:
        cells = parse(path.read_text(encoding="utf-8"))
        exercises = [i for i, c in enumerate(cells) if c.role == "exercise"]
        counts = {e: sum(w[0] == e for w in wrong_answers(path)) for e in exercises}
        assert exercises and all(n >= 2 for n in counts.values()), (path.name, counts)


def test_each_wrong_answer_stands_after_the_exercise_it_is_a_wrong_answer_to():
    """Each wrong answer replaces the exercise it follows, and says its mistake and the words a check
    must say; that a check fails naming them is test_wrong_answers.py's, for every lesson."""
    for path in CHAPTER3:
        cells = parse(path.read_text(encoding="utf-8"))
        read = {w.index: w for w in wrong.read(cells)}
        for exercise, index, mistake, words in wrong_answers(path):
            assert read[index].exercise == exercise, f"{path.name} cell {index + 1} ({mistake})"
            assert mistake and words and read[index].expect == words, f"{path.name} cell {index + 1}"


# ── the chapter reads as one ─────────────────────────────────────────────────────────────────

LINK = re.compile(r"\]\(#/([a-z0-9-]+)\)")
MINED = re.compile(r"\bmine\((\d+)\)")


def test_every_lesson_link_names_a_lesson_and_chapter_3_links_to_each_lesson_it_reuses():
    slugs = {p.stem for p in lesson_files(LESSONS)}
    for path in lesson_files(LESSONS):
        cells = parse(path.read_text(encoding="utf-8"))
        prose = "\n".join(c.source for c in cells if c.kind == "markdown")
        assert set(LINK.findall(prose)) <= slugs, (path.name, set(LINK.findall(prose)) - slugs)
    opening = parse(CHAPTER3[0].read_text(encoding="utf-8"))[0].source
    assert {"26-coding-benchmark", "27-research-helper-ready"} <= set(LINK.findall(opening))  # what the chapter builds
    for path in CHAPTER3:
        cells = parse(path.read_text(encoding="utf-8"))
        code = "\n".join(c.source for c in cells if c.kind == "code" and c.role == "code")
        linked = {slug[:2] for slug in LINK.findall("\n".join(c.source for c in cells if c.kind == "markdown"))}
        reused = {f"{int(n):02d}" for n in MINED.findall(code)}
        assert reused and reused <= linked, (path.name, reused - linked)
