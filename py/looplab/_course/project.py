"""The project a lesson lays out for its agent: its files as laid out, what changed since, laid out again.

A lesson whose agent works on a folder of files (lesson 25's coding agent) names that folder once,
after it has written the files and before the agent runs:

    project = show_project(new_project())     # the page's Files panel shows this folder

`show_project` keeps the text of every file as it is at that moment: "the project as the lesson
laid it out". After a run, `state()` gives the folder's files as they are now and a unified diff
(difflib) of what changed since; `reset()` writes the laid-out files back and removes the files
added since. In the page the worker asks for both between runs (web/src/worker/bridge.py), and a
run starts with no project shown (`forget`), so a lesson that lays out none shows none. In
CPython the calls only keep the record.

The last `show_project` of a run wins. Only text files count: bytecode, pytest's cache and files
that are not UTF-8 are left out, and so is anything past `MAX_BYTES` in all.

Your own code instead of the lesson's project: `looplab run 25 --live --project DIR` names a folder
(`LOOPLAB_PROJECT`), and `your_project()` gives a fresh copy of it, so the agent works on the copy
and DIR is never written; the command line then writes what changed as a patch.

    project = show_project(your_project() or new_project())
"""

import difflib
import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

SKIPPED = ("__pycache__", ".pytest_cache")  # folders of files Python or pytest write for themselves
NOT_COPIED = (*SKIPPED, ".git", ".venv", "venv", "node_modules", ".mypy_cache", ".ruff_cache")
MOST_FILES = 2000  # a folder with more files is not a project for this agent: say so, copy nothing
MAX_BYTES = 400_000  # what the page is sent of a project, all files together


@dataclass
class Shown:
    """The project a lesson shows: its folder and its files as the lesson laid them out."""

    root: Path
    laid_out: dict[str, str]
    folders: set[str]  # the folders there were, empty ones too: Reset keeps them


_shown: Shown | None = None
_copied: dict[str, Path] = {}  # the copy your_project() made in this run: {"source", "copy"}


def project_files(root) -> dict[str, str]:
    """The text files under `root`: {path relative to root, with "/": text}, sorted by path."""
    base = Path(root)
    files, size = {}, 0
    for path in sorted(base.rglob("*")):
        relative = path.relative_to(base)
        if not path.is_file() or path.is_symlink() or any(part in SKIPPED for part in relative.parts):
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):
            continue
        size += len(text.encode("utf-8"))
        if size > MAX_BYTES:
            break
        files[relative.as_posix()] = text
    return files


def unified_diff(before: dict[str, str], after: dict[str, str]) -> str:
    """The unified diff from one set of files to another ({path: text}); "" when they are the same.

    A file only `after` has is added (from /dev/null), one only `before` has is removed.
    """
    parts = []
    for name in sorted(before.keys() | after.keys()):
        old, new = before.get(name), after.get(name)
        if old == new:
            continue
        lines = difflib.unified_diff(
            (old or "").splitlines(keepends=True),
            (new or "").splitlines(keepends=True),
            fromfile=f"a/{name}" if old is not None else "/dev/null",
            tofile=f"b/{name}" if new is not None else "/dev/null",
        )
        text = "".join(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in lines)
        if not text:  # an empty file added or removed: difflib has no line to show, the headers say it
            text = f"--- {'a/' + name if old is not None else '/dev/null'}\n+++ {'b/' + name if new is not None else '/dev/null'}\n"
        parts.append(text)
    return "".join(parts)


def show_project(root) -> Path:
    """Name `root` as the lesson's project, its files as they are now as laid out; returns `root`."""
    global _shown
    base = Path(root)
    if not base.is_dir():
        raise ValueError(f"show_project needs the project's folder; {str(root)!r} is not a folder")
    folders = {p.relative_to(base).as_posix() for p in base.rglob("*") if p.is_dir()}
    _shown = Shown(base, project_files(base), folders)
    return root


def shown() -> Shown | None:
    """The project the lesson shows, if it named one."""
    return _shown


def forget() -> None:
    """No project shown, and no copy of yours made (a new run starts so)."""
    global _shown
    _shown = None
    _copied.clear()


def state() -> dict | None:
    """The shown project now: {root, files, diff} (the diff from the files as laid out), or None."""
    if _shown is None:
        return None
    files = project_files(_shown.root)
    return {"root": str(_shown.root), "files": files, "diff": unified_diff(_shown.laid_out, files)}


def reset() -> dict | None:
    """Lay the shown project out again as the lesson did: its files written back, the added ones
    removed (and folders they leave empty); returns the `state()` after, or None when none is shown."""
    if _shown is None:
        return None
    base = _shown.root
    base.mkdir(parents=True, exist_ok=True)
    for name in project_files(base).keys() - _shown.laid_out.keys():
        (base / name).unlink()
    for name, text in _shown.laid_out.items():
        (base / name).parent.mkdir(parents=True, exist_ok=True)
        if (base / name).is_dir():
            shutil.rmtree(base / name)
        (base / name).write_text(text, encoding="utf-8")
    for folder in sorted((p for p in base.rglob("*") if p.is_dir()), key=lambda p: len(p.parts), reverse=True):
        if folder.relative_to(base).as_posix() not in _shown.folders and not any(folder.iterdir()):
            folder.rmdir()
    return state()


def your_project() -> Path | None:
    """A fresh copy of the folder `looplab run ... --project DIR` named (LOOPLAB_PROJECT) for the
    agent to work on, DIR itself never written; None when no folder was named."""
    source = os.environ.get("LOOPLAB_PROJECT")
    if not source:
        return None
    base = Path(source)
    if not base.is_dir():
        raise ValueError(f"--project names {source!r}, which is not a folder")
    files = [p for p in base.rglob("*") if p.is_file() and not set(p.relative_to(base).parts) & set(NOT_COPIED)]
    if len(files) > MOST_FILES:
        raise ValueError(f"{source} holds {len(files)} files; the agent works on a project of at most {MOST_FILES}")
    copy = Path(tempfile.mkdtemp(prefix="your-project-")) / (base.resolve().name or "project")
    shutil.copytree(base, copy, ignore=shutil.ignore_patterns(*NOT_COPIED))
    _copied.update(source=base.resolve(), copy=copy)
    return copy


def copied() -> dict[str, Path]:
    """The copy your_project() made in this run ({"source", "copy"}), or {} when it made none."""
    return dict(_copied)
