"""Which folder of lessons the command line uses, and copying the course out for editing.

The learner's own copy always wins over the one that came with the package, and the command line
says on its first line which folder it uses and why. In order:

1. a folder given with `--lessons DIR` (for the whole process: `mine(N)` reads it too) or LOOPLAB_LESSONS;
2. the current folder, when it holds lessons, or its `lessons/` subfolder;
3. the folder `looplab lessons DIR` last copied the course into (remembered in the user's
   config folder, `~/.config/looplab/lessons-folder`), while it still holds lessons;
4. the lessons that came with looplab (the wheel's copy, or a source checkout's lessons/).

    choice = choose(Path.cwd())
    print(choice.line())        # lessons: /home/ada/mine (your copy, made by `looplab lessons`)
"""

import os
import shutil
from dataclasses import dataclass
from pathlib import Path

from . import course

GIVEN: str | None = None  # this process's `--lessons DIR`, made absolute (set by the command line)


@dataclass
class Choice:
    """A folder of lessons and why it was chosen; `folder` is None when no lessons were found."""

    folder: Path | None
    why: str

    def line(self) -> str:
        """The first line the command line prints."""
        if self.folder is None:
            return f"lessons: none found ({self.why})"
        return f"lessons: {self.folder} ({self.why})"


def config_file() -> Path:
    """Where `looplab lessons DIR` remembers DIR: $XDG_CONFIG_HOME/looplab, else ~/.config/looplab."""
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "looplab" / "lessons-folder"


def remembered() -> Path | None:
    """The folder `looplab lessons` last copied into, or None (never set, or unreadable)."""
    try:
        text = config_file().read_text(encoding="utf-8").strip()
    except OSError:
        return None
    return Path(text) if text else None


def choose(cwd: Path, given: str | None = None) -> Choice:
    """The folder of lessons to use from `cwd` (see the module docstring for the order).

    `given` defaults to GIVEN, so what a lesson reads later (mine(N)) comes from the same folder."""
    given = given or GIVEN
    how = "given with --lessons" if given else "from LOOPLAB_LESSONS"
    given = given or os.environ.get("LOOPLAB_LESSONS") or None
    if given:
        folder = (cwd / given).resolve()
        if course.lesson_files(folder):
            return Choice(folder, how)
        return Choice(None, f"{folder}, {how}, holds no NN-slug.py lesson files")
    for folder in (cwd, cwd / "lessons"):
        if course.lesson_files(folder):
            return Choice(folder.resolve(), "the current folder" if folder == cwd else "lessons/ in the current folder")
    mine = remembered()
    if mine is not None and course.lesson_files(mine):
        return Choice(mine, "your copy, made by `looplab lessons`")
    packaged = course.packaged_lessons()
    if packaged is None:
        return Choice(None, "none in the current folder and none came with looplab")
    note = f"; your copy {mine} is gone" if mine is not None else ""
    whose = "this source checkout's lessons/" if packaged == course.CHECKOUT else "the copy that came with looplab"
    return Choice(packaged, f"{whose}; `looplab lessons DIR` copies it out for editing{note}")


def copy_out(dest: Path) -> list[Path]:
    """Copy the packaged lessons (and their README) into `dest` and remember it; returns the files written.

    Files already in `dest` are kept as they are (a learner's edits are never overwritten).
    """
    source = course.packaged_lessons()
    if source is None:
        raise FileNotFoundError("this looplab came without its lessons")
    dest = dest.resolve()
    if source == dest:
        raise ValueError(f"{dest} is where the lessons come from; choose another folder")
    dest.mkdir(parents=True, exist_ok=True)
    written = []
    for path in course.lesson_files(source) + [source / "README.md"]:
        target = dest / path.name
        if path.is_file() and not target.exists():
            shutil.copyfile(path, target)
            written.append(target)
    config = config_file()
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(f"{dest}\n", encoding="utf-8")
    return written
