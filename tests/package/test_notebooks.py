"""Every lesson as a Jupyter notebook (looplab/_course/notebook.py, what `looplab notebook N` writes), run
top to bottom in a real Jupyter kernel (nbclient + ipykernel): solved, every check cell passes;
as the starter, the checks fail. The kernel gets looplab from the checkout's py/, the scripted
model (no LOOPLAB_MODEL) and no terminal: an approval is refused and says it needs the page."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "py"))
from looplab._course.course import lesson_files
from looplab._course.lesson import check_names, parse
from looplab._course.notebook import lesson_notebook

LESSONS = lesson_files(ROOT / "lessons")


@pytest.fixture(autouse=True)
def kernel_environment(monkeypatch):
    """What the kernel inherits: looplab from py/, and none of the shell's model settings."""
    monkeypatch.setenv("PYTHONPATH", str(ROOT / "py"))
    for name in [n for n in os.environ if n.startswith(("LOOPLAB_", "LLM_"))]:
        monkeypatch.delenv(name)


def notebook_of(path: Path, solution: bool) -> nbformat.NotebookNode:
    notebook = nbformat.reads(json.dumps(lesson_notebook(path, solution)), as_version=4)
    nbformat.validate(notebook)
    return notebook


def client(notebook, folder: Path, allow_errors: bool = False) -> NotebookClient:
    return NotebookClient(
        notebook,
        timeout=300,
        kernel_name="python3",
        allow_errors=allow_errors,
        resources={"metadata": {"path": str(folder)}},
    )


def execute(path: Path, solution: bool, folder: Path, allow_errors: bool = False) -> nbformat.NotebookNode:
    notebook = notebook_of(path, solution)
    client(notebook, folder, allow_errors).execute()
    return notebook


async def execute_all(paths: list[Path], folder: Path, side_by_side: int = 2) -> list:
    """Every lesson solved, `side_by_side` kernels at a time; a cell that raises fails with the lesson's name."""
    slots = asyncio.Semaphore(side_by_side)

    async def one(path: Path):
        async with slots:
            notebook = notebook_of(path, solution=True)
            (folder / path.stem).mkdir()
            try:
                await client(notebook, folder / path.stem).async_execute()
            except CellExecutionError as error:
                raise AssertionError(f"{path.name} as a notebook, solved: {error}") from None
            return notebook

    return await asyncio.gather(*(one(p) for p in paths))


def errors(cell) -> list[dict]:
    return [o for o in cell.get("outputs", []) if o.output_type == "error"]


def tagged(notebook, tag: str) -> list:
    return [c for c in notebook.cells if tag in c.metadata.get("tags", [])]


def test_every_lesson_notebook_runs_solved_in_a_jupyter_kernel_with_its_checks_passing(tmp_path, capsys):
    checks = 0
    for path, notebook in zip(LESSONS, asyncio.run(execute_all(LESSONS, tmp_path))):
        code = [c for c in notebook.cells if c.cell_type == "code"]
        assert code and all(c.execution_count is not None and not errors(c) for c in code), path.name
        check_cells = [c for c in tagged(notebook, "check") if c.cell_type == "code"]
        assert check_cells, f"{path.name} has no check cell in its notebook"
        checks += len(check_names(parse(path.read_text(encoding="utf-8"))))
    with capsys.disabled():
        print(f"\nnotebooks: {len(LESSONS)} lessons ran solved in a Jupyter kernel, {checks} checks passed")
    assert checks >= 10 * len(LESSONS) // 2


def test_a_starter_notebook_fails_its_checks_in_the_kernel(tmp_path):
    lesson = next(p for p in LESSONS if p.name.startswith("04-"))
    notebook = execute(lesson, solution=False, folder=tmp_path, allow_errors=True)
    failed = [c for c in tagged(notebook, "check") if errors(c)]
    assert failed, "the starter's checks all passed in the kernel"
    assert any(e.ename == "AssertionError" for c in failed for e in errors(c))
    # The solutions are there to read, collapsed, but not run: markdown cells.
    solutions = tagged(notebook, "solution")
    assert solutions and all(c.cell_type == "markdown" and c.metadata.jupyter.source_hidden for c in solutions)
    assert all(c.metadata.jupyter.source_hidden for c in tagged(notebook, "hint"))


def test_an_approval_in_a_notebook_is_refused_and_says_it_needs_the_page_or_a_terminal(tmp_path):
    lesson = next(p for p in LESSONS if p.name.startswith("10-"))
    notebook = execute(lesson, solution=True, folder=tmp_path)
    printed = "".join(o.get("text", "") for c in notebook.cells if c.cell_type == "code" for o in c.outputs)
    assert "needs_person" in printed
    assert "asking a person needs Loop Lab's page or a terminal; refused by default" in printed
