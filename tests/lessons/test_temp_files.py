"""Lessons leave the temp folder as they found it (issue 37): lesson 25's inventory-* and sandbox-*
folders and lesson 26's bench-* go when the lesson ends (looplab/_course/scratch.py), in a run, the
command line, a kept namespace, and this suite's own tests."""

import os
import subprocess
import sys
import tempfile
from pathlib import Path

from looplab._course import scratch
from looplab._course.course import find_in
from looplab._course.lesson import parse, run_cells

ROOT = Path(__file__).resolve().parents[2]
LESSONS = ROOT / "lessons"


def test_lessons_25_and_26_leave_nothing_when_they_end(tmp_path, monkeypatch, capsys):
    temp = tmp_path / "temp"
    temp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(temp))
    for number in ("25", "26"):
        cells = parse(find_in(LESSONS, number).read_text(encoding="utf-8"))
        for solution in (False, True):
            result = run_cells(cells, solution=solution)
            assert result.ok == solution, (number, solution, result.error)
            assert list(temp.iterdir()) == [], (number, solution)

    kept = {"__name__": "__lesson__"}  # a namespace the caller uses after the run: its files stay
    cells = parse(find_in(LESSONS, "25").read_text(encoding="utf-8"))
    assert run_cells(cells, solution=True, namespace=kept).ok
    shop = kept["SHOP"]
    assert (shop / "notes.txt").read_text() == "inside\n" and shop.is_relative_to(temp)
    assert [p.name[:15] for p in temp.iterdir()] == ["looplab-lesson-"]  # one folder holds them all
    scratch.close_kept()  # ... until its lesson ends
    assert list(temp.iterdir()) == [] and not shop.exists()
    assert tempfile.gettempdir() == str(temp)  # tempfile's folder is the caller's again


def test_the_command_line_and_the_lesson_tests_leave_the_temp_folder_as_they_found_it(tmp_path):
    temp, basetemp = tmp_path / "temp", tmp_path / "pytest"
    temp.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("LLM_", "LOOPLAB_"))}
    env.update(TMPDIR=str(temp), PYTHONPATH=str(ROOT / "py"), PYTHONIOENCODING="utf-8")
    cli = subprocess.run(
        [sys.executable, "-m", "looplab", "run", "26", "--solution"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        timeout=300,
    )
    assert cli.returncode == 0, cli.stderr
    assert list(temp.iterdir()) == []
    tests = subprocess.run(  # the tests that run lessons 25 and 26 and call their parts after
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            f"--basetemp={basetemp}",
            "tests/lessons/test_built_parts_chapter3.py",
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert tests.returncode == 0, tests.stdout[-2000:]
    assert list(temp.iterdir()) == []


def test_a_forked_child_leaving_the_run_keeps_its_parents_folder(tmp_path, monkeypatch):
    """The mutation runner forks mid-lesson and the child ends the run: its end must not take the
    parent's folder, which the parent's lesson goes on using."""
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    pid = -1
    try:
        with scratch.lesson_folder() as folder:
            (folder / "made-before-the-fork").write_text("the parent's")
            pid = os.fork()
            if pid:  # the parent waits until the child has left the run
                os.waitpid(pid, 0)
                assert folder.is_dir() and (folder / "made-before-the-fork").read_text() == "the parent's"
    finally:
        if pid == 0:
            os._exit(0)
    assert not folder.exists() and list(tmp_path.iterdir()) == []
