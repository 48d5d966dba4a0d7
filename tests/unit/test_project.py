"""looplab._course.project (a lesson's project: its files, the diff since it was laid out, Reset) and
looplab._course.editreview (an edit's diff before a person approves it)."""

import json
import string

import pytest
from hypothesis import given, settings, strategies as st

from looplab._course import project
from looplab.approvals import Decision, ask_on_terminal
from looplab._course.editreview import proposed_diff, review_edits

STOCK = 'def total(items):\n    t = 0\n    for item in items[1:]:\n        t += item["units"]\n    return t\n'


@pytest.fixture
def shop(tmp_path):
    (tmp_path / "inventory").mkdir()
    (tmp_path / "inventory" / "stock.py").write_text(STOCK)
    (tmp_path / "README.md").write_text("# shop\n")
    (tmp_path / "inventory" / "__pycache__").mkdir()
    (tmp_path / "inventory" / "__pycache__" / "stock.cpython-312.pyc").write_bytes(b"\x00\xff")
    (tmp_path / "empty").mkdir()
    project.show_project(tmp_path)
    yield tmp_path
    project.forget()


def test_a_shown_project_lists_its_text_files_and_no_change_yet(shop):
    now = project.state()
    assert now["root"] == str(shop)
    assert sorted(now["files"]) == ["README.md", "inventory/stock.py"]  # no bytecode
    assert now["files"]["inventory/stock.py"] == STOCK and now["diff"] == ""


def test_the_diff_after_an_edit_is_a_unified_diff_of_that_file_only(shop):
    (shop / "inventory" / "stock.py").write_text(STOCK.replace("items[1:]", "items"))
    diff = project.state()["diff"]
    lines = diff.splitlines()
    assert lines[:2] == ["--- a/inventory/stock.py", "+++ b/inventory/stock.py"]
    assert "-    for item in items[1:]:" in lines and "+    for item in items:" in lines
    assert sum(line.startswith(("+", "-")) for line in lines) == 4  # the headers and one line each way
    assert "README.md" not in diff


def test_an_added_and_a_removed_file_come_from_and_go_to_dev_null(shop):
    (shop / "inventory" / "new.py").write_text("X = 1\n")
    (shop / "README.md").unlink()
    diff = project.state()["diff"]
    assert "--- a/README.md\n+++ /dev/null\n" in diff and "-# shop\n" in diff
    assert "--- /dev/null\n+++ b/inventory/new.py\n" in diff and "+X = 1\n" in diff


def test_a_file_without_a_last_newline_is_marked_so_the_diff_stays_readable():
    diff = project.unified_diff({"a.txt": "one\ntwo"}, {"a.txt": "one\nthree"})
    assert diff.count("\\ No newline at end of file\n") == 2
    assert "-two\n" in diff and "+three\n" in diff
    assert project.unified_diff({"e.py": ""}, {}) == "--- a/e.py\n+++ /dev/null\n"  # an empty file removed


def test_reset_writes_the_files_back_removes_added_ones_and_keeps_the_folders_it_had(shop):
    (shop / "inventory" / "stock.py").write_text("broken(")
    (shop / "README.md").unlink()
    (shop / "tools" / "deep").mkdir(parents=True)
    (shop / "tools" / "deep" / "x.py").write_text("x = 1\n")
    after = project.reset()
    assert after["diff"] == "" and sorted(after["files"]) == ["README.md", "inventory/stock.py"]
    assert (shop / "inventory" / "stock.py").read_text() == STOCK and (shop / "README.md").read_text() == "# shop\n"
    assert not (shop / "tools").exists() and (shop / "empty").is_dir()


def test_no_project_shown_means_no_state_and_a_folder_is_required(tmp_path):
    project.forget()
    assert project.state() is None and project.reset() is None
    with pytest.raises(ValueError, match="not a folder"):
        project.show_project(tmp_path / "missing")
    assert project.show_project(str(tmp_path)) == str(tmp_path) and project.shown().root == tmp_path
    project.forget()


NAMES = st.sampled_from(["a.py", "b.txt", "pkg/c.py", "pkg/sub/d.md"])
TEXTS = st.text(alphabet=string.ascii_letters + " \n", max_size=40)


@settings(max_examples=40, deadline=None)
@given(before=st.dictionaries(NAMES, TEXTS, min_size=1), after=st.dictionaries(NAMES, TEXTS))
def test_after_any_changes_reset_gives_back_exactly_the_laid_out_files(tmp_path_factory, before, after):
    root = tmp_path_factory.mktemp("p")
    for name, text in before.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    project.show_project(root)
    try:
        for name in before.keys() - after.keys():
            (root / name).unlink()
        for name, text in after.items():
            (root / name).parent.mkdir(parents=True, exist_ok=True)
            (root / name).write_text(text)
        changed = project.state()
        assert (changed["diff"] == "") == (project.project_files(root) == before)
        restored = project.reset()
        assert restored["files"] == before and restored["diff"] == ""
    finally:
        project.forget()


# --- editreview --------------------------------------------------------------------------------


def edit(path, old, new):
    return json.dumps({"path": path, "old": old, "new": new})


def test_the_proposed_diff_of_an_edit_shows_the_change_and_leaves_the_file(shop):
    diff, note = proposed_diff(shop, "edit_file", edit("inventory/stock.py", "items[1:]", "items"))
    assert note == "" and diff.startswith("--- a/inventory/stock.py\n+++ b/inventory/stock.py\n")
    assert "-    for item in items[1:]:\n+    for item in items:\n" in diff
    assert (shop / "inventory" / "stock.py").read_text() == STOCK


def test_an_edit_the_tool_would_refuse_has_no_diff_and_says_why(shop):
    twice, why = proposed_diff(shop, "edit_file", edit("inventory/stock.py", "t", "s"))
    assert twice == "" and "found" in why and "times" in why and "refused" in why
    missing, why_missing = proposed_diff(shop, "edit_file", edit("nope.py", "a", "b"))
    assert missing == "" and "no file 'nope.py'" in why_missing
    outside, why_outside = proposed_diff(shop, "edit_file", edit("../x.py", "a", "b"))
    assert outside == "" and "outside the project" in why_outside
    assert (
        proposed_diff(shop, "edit_file", "{not json")[0] == ""
        and "not JSON" in proposed_diff(shop, "edit_file", "{x")[1]
    )


def test_a_new_file_is_a_diff_from_dev_null_and_an_existing_one_is_refused(shop):
    diff, note = proposed_diff(shop, "write_file", {"path": "inventory/extra.py", "text": "A = 1\nB = 2\n"})
    assert note == "" and diff == "--- /dev/null\n+++ b/inventory/extra.py\n@@ -0,0 +1,2 @@\n+A = 1\n+B = 2\n"
    assert not (shop / "inventory" / "extra.py").exists()
    again, why = proposed_diff(shop, "write_file", {"path": "README.md", "text": "x"})
    assert again == "" and "exists" in why


def test_review_edits_asks_with_the_diff_and_passes_the_answer_on(shop):
    asked = []

    def person(name, arguments, diff=""):
        asked.append((name, diff))
        return Decision(False, "not that one") if "README" in arguments else True

    review = review_edits(shop, approve=person)
    yes = review("edit_file", edit("inventory/stock.py", "items[1:]", "items"))
    no = review("edit_file", edit("README.md", "shop", "store"))
    assert yes.approved is True and no.approved is False and no.reason == "not that one"
    assert [name for name, _ in asked] == ["edit_file", "edit_file"]
    assert "+    for item in items:" in asked[0][1] and "-# shop\n+# store\n" in asked[1][1]
    assert review("edit_file", edit("inventory/stock.py", "t", "s")) and asked[2][1].startswith("(no diff: ")


def test_the_terminal_shows_the_diff_before_its_question(capsys):
    said = []
    answer = ask_on_terminal(
        "edit_file", '{"path": "a.py"}', read=lambda q: said.append(q) or "n", diff="--- a/a.py\n+++ b/a.py\n-x\n+y\n"
    )
    printed = capsys.readouterr().out
    assert answer.approved is False and printed == "--- a/a.py\n+++ b/a.py\n-x\n+y\n"
    assert said and said[0].startswith("Allow edit_file(")
