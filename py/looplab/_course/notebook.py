"""A lesson as a Jupyter notebook (nbformat 4.5): what `looplab notebook N` writes.

The same cells as the page's "Download as notebook" (web/src/notebook.js, held to this module by
tests/site/test_run_files.py): prose, hints and predict questions become markdown cells; code,
exercise and check cells code cells; every cell keeps its role as a tag (`hint`, `exercise`,
`solution`, `check`, …) so Jupyter users can filter them. Hints and the starter notebook's
solutions are collapsed (`jupyter.source_hidden`), a solution as a markdown cell holding its code,
so running the notebook top to bottom runs the learner's code, not the answer. With
`solution=True` each exercise is replaced by its solution, and the checks pass. Wrong-answer cells
(`tags=["wrong"]`) never appear.

    notebook = lesson_notebook(Path("lessons/04-the-loop.py"), solution=True)
    Path("04-the-loop.ipynb").write_text(json.dumps(notebook, indent=1))
"""

from pathlib import Path

from . import lessonfile

MARKDOWN_ROLES = ("markdown", "hint", "predict")
CODE_ROLES = ("code", "exercise", "check")
ABOUT = (
    "*Loop Lab, lesson {slug}{solved}. Run it top to bottom (it needs `pip install looplab`): "
    "the check cells assert what the exercises must do. Here the model is the lesson's scripted one "
    "(LOOPLAB_MODEL=live in Jupyter's environment uses your endpoint); approvals, `input()` and the "
    "local model need Loop Lab's page or a terminal. Hints and solutions are collapsed: "
    "click a cell's bar to open it.*"
)


def lines(text: str) -> list[str]:
    """Notebook source: a list of lines, each but the last ending in a newline (as Jupyter writes them)."""
    parts = str(text).split("\n")
    out = [line + "\n" if i < len(parts) - 1 else line for i, line in enumerate(parts)]
    return [line for i, line in enumerate(out) if line != "" or i < len(out) - 1]


def setup_source(slug: str) -> str:
    """The notebook's first code cell: the checks that compare with the lesson's solution find it."""
    return (
        "from looplab import notebook_lesson\n\n"
        f'notebook_lesson("{slug}", globals())  # the checks compare your code with this lesson\'s solution'
    )


def solution_markdown(source: str) -> str:
    """A solution shown, not run: its code in a fenced block."""
    return f"**Solution** (run it in place of your exercise cell to see the checks pass):\n\n```python\n{source}\n```"


def cell_json(index: int, kind: str, source: str, tags: list[str], hidden: bool = False) -> dict:
    """One nbformat 4.5 cell."""
    metadata = {}
    if tags:
        metadata["tags"] = tags
    if hidden:
        metadata["jupyter"] = {"source_hidden": True}
    cell = {"cell_type": kind, "id": f"cell-{index + 1}", "metadata": metadata, "source": lines(source)}
    if kind == "code":
        cell.update(execution_count=None, outputs=[])
    return cell


def to_notebook(lesson: dict, solution: bool = False) -> dict:
    """lessons/<slug>.json ({slug, title, cells: [{kind, role, tags, source}]}) as a notebook dict."""
    cells = lesson["cells"]
    solved = set()  # the exercises that have a solution (after their hints)
    for i, c in enumerate(cells):
        if c["role"] == "solution":
            j = i - 1
            while j >= 0 and cells[j]["role"] in ("hint", "wrong"):
                j -= 1
            solved.add(j)
    about = ABOUT.format(slug=lesson["slug"], solved=", solved" if solution else "")
    out = [
        {"cell_type": "markdown", "id": "looplab-about", "metadata": {}, "source": lines(about)},
        cell_json(-1, "code", setup_source(lesson["slug"]), ["setup"]) | {"id": "looplab-setup"},
    ]
    for index, cell in enumerate(cells):
        role, tags = cell["role"], list(cell.get("tags") or [])
        if "wrong" in tags:
            continue
        if role in MARKDOWN_ROLES:
            out.append(cell_json(index, "markdown", cell["source"], tags, hidden=role == "hint"))
        elif role == "solution" and solution:
            out.append(cell_json(index, "code", cell["source"], tags))
        elif role == "solution":
            out.append(cell_json(index, "markdown", solution_markdown(cell["source"]), tags, hidden=True))
        elif role == "exercise" and solution and index in solved:
            continue
        elif role in CODE_ROLES:
            out.append(cell_json(index, "code", cell["source"], tags))
    return {
        "nbformat": 4,
        "nbformat_minor": 5,
        "metadata": {
            "kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"},
            "language_info": {"name": "python"},
            "looplab": {"lesson": lesson["slug"], "title": lesson.get("title") or lesson["slug"], "solution": solution},
        },
        "cells": out,
    }


def lesson_dict(path: Path) -> dict:
    """A lesson file as the page's lessons/<slug>.json has its cells."""
    cells = lessonfile.parse(Path(path).read_text(encoding="utf-8"))
    return {
        "slug": Path(path).stem,
        "title": lessonfile.heading(cells, Path(path).stem),
        "cells": [{"kind": c.kind, "role": c.role, "tags": c.tags, "source": c.source} for c in cells],
    }


def lesson_notebook(path: Path, solution: bool = False) -> dict:
    """A lesson file as a notebook dict (see the module docstring)."""
    return to_notebook(lesson_dict(path), solution)
