"""Which lessons the command line uses (looplab/_course/lessonfolder.py): the learner's own copy always wins
over the one that came with looplab, and the choice says why; copying out never overwrites an edit."""

import itertools
from pathlib import Path

import pytest

from looplab._course import course, lessonfolder

LESSON = "# %% [markdown]\n# # {n} · A lesson\n# %%\nx = {n}\n"


def lessons_in(folder: Path, *numbers: int) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for n in numbers:
        (folder / f"{n:02d}-lesson-{n}.py").write_text(LESSON.format(n=n), encoding="utf-8")
    (folder / "README.md").write_text("the lessons\n", encoding="utf-8")
    return folder


@pytest.fixture
def packaged(tmp_path, monkeypatch):
    """A course that 'came with looplab', and a config folder of this test's own."""
    folder = lessons_in(tmp_path / "site-packages" / "looplab" / "_course" / "lessons", 1, 2, 4)
    monkeypatch.setattr(course, "PACKAGED", folder)
    monkeypatch.setattr(course, "CHECKOUT", tmp_path / "no-checkout")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.delenv("LOOPLAB_LESSONS", raising=False)
    return folder


@pytest.mark.parametrize("here, subfolder, copied", list(itertools.product([False, True], repeat=3)))
def test_the_first_folder_that_holds_lessons_wins_in_order(tmp_path, packaged, here, subfolder, copied):
    cwd = tmp_path / "work"
    cwd.mkdir()
    if copied:
        lessonfolder.copy_out(tmp_path / "mine")
    if here:
        lessons_in(cwd, 4)
    if subfolder:
        lessons_in(cwd / "lessons", 4)
    choice = lessonfolder.choose(cwd)
    expected = cwd if here else cwd / "lessons" if subfolder else tmp_path / "mine" if copied else packaged
    assert choice.folder == expected.resolve()
    assert choice.line().startswith(f"lessons: {expected.resolve()} (")
    assert ("came with looplab" in choice.why) == (not (here or subfolder or copied))


def test_a_source_checkout_says_its_lessons_are_the_checkouts(tmp_path, monkeypatch):
    checkout = lessons_in(tmp_path / "repo" / "lessons", 1)
    monkeypatch.setattr(course, "PACKAGED", tmp_path / "none")
    monkeypatch.setattr(course, "CHECKOUT", checkout)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.delenv("LOOPLAB_LESSONS", raising=False)
    choice = lessonfolder.choose(tmp_path)
    assert choice.folder == checkout and choice.why.startswith("this source checkout's lessons/;")


def test_copying_out_keeps_the_learners_edits_and_is_remembered(tmp_path, packaged):
    mine = tmp_path / "mine"
    written = lessonfolder.copy_out(mine)
    assert sorted(p.name for p in written) == ["01-lesson-1.py", "02-lesson-2.py", "04-lesson-4.py", "README.md"]
    assert lessonfolder.config_file().read_text(encoding="utf-8") == f"{mine.resolve()}\n"
    (mine / "04-lesson-4.py").write_text("# my edit\n", encoding="utf-8")
    (mine / "02-lesson-2.py").unlink()
    again = lessonfolder.copy_out(mine)
    assert [p.name for p in again] == ["02-lesson-2.py"]  # only what was missing
    assert (mine / "04-lesson-4.py").read_text(encoding="utf-8") == "# my edit\n"
    with pytest.raises(ValueError, match="where the lessons come from"):
        lessonfolder.copy_out(packaged)


def test_a_given_folder_wins_and_a_missing_copy_is_named(tmp_path, packaged, monkeypatch):
    cwd = lessons_in(tmp_path / "work", 1)
    other = lessons_in(tmp_path / "other", 2)
    assert lessonfolder.choose(cwd, "../other").folder == other.resolve()
    monkeypatch.setenv("LOOPLAB_LESSONS", str(other))
    assert lessonfolder.choose(cwd).why == "from LOOPLAB_LESSONS"
    empty = lessonfolder.choose(cwd, "../nowhere")
    assert empty.folder is None and "holds no NN-slug.py lesson files" in empty.line()
    monkeypatch.delenv("LOOPLAB_LESSONS")
    lessonfolder.copy_out(tmp_path / "mine")
    for path in (tmp_path / "mine").iterdir():
        path.unlink()
    gone = lessonfolder.choose(tmp_path)  # tmp_path holds no lessons itself
    assert gone.folder == packaged and f"your copy {(tmp_path / 'mine').resolve()} is gone" in gone.why
