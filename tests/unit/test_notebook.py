"""A lesson as a notebook (looplab/_course/notebook.py): whatever the cells, the starter runs the learner's
code and never a solution, the solved one runs each solution in place of its exercise, and a
wrong-answer cell never appears."""

from hypothesis import given, strategies as st

from looplab._course.notebook import lesson_dict, to_notebook

# An exercise, its hints, perhaps a wrong answer, and its solution; or a lone cell.
BLOCK = st.one_of(
    st.tuples(st.just("exercise"), st.integers(0, 3), st.booleans()),
    st.sampled_from(["markdown", "code", "check", "predict"]).map(lambda role: (role, 0, False)),
)


def lesson_of(blocks) -> dict:
    cells = []
    for role, hints, wrong in blocks:
        n = len(cells)
        if role == "exercise":
            cells.append({"kind": "code", "role": "exercise", "tags": ["exercise"], "source": f"starter_{n} = 0"})
            cells += [
                {"kind": "markdown", "role": "hint", "tags": ["hint"], "source": f"hint {n}.{k}"} for k in range(hints)
            ]
            if wrong:  # wrong answers sit after the hints, before the solution (scripts/wrong.py)
                cells.append({"kind": "code", "role": "wrong", "tags": ["wrong"], "source": f"wrong_{n} = 2"})
            cells.append({"kind": "code", "role": "solution", "tags": ["solution"], "source": f"solved_{n} = 1"})
        else:
            kind = "markdown" if role in ("markdown", "predict") else "code"
            cells.append(
                {
                    "kind": kind,
                    "role": role,
                    "tags": [] if role in ("markdown", "code") else [role],
                    "source": f"{role}_{n}",
                }
            )
    return {"slug": "09-any", "title": "Any", "cells": cells}


def code(notebook) -> list[str]:
    return ["".join(c["source"]) for c in notebook["cells"] if c["cell_type"] == "code"]


@given(st.lists(BLOCK, max_size=8))
def test_the_starter_runs_no_solution_and_the_solved_one_runs_each_in_place(blocks):
    lesson = lesson_of(blocks)
    starter, solved = to_notebook(lesson), to_notebook(lesson, solution=True)
    everything = [line for nb in (starter, solved) for c in nb["cells"] for line in c["source"]]
    assert not any(line.startswith("wrong_") for line in everything)
    assert not any(s.startswith("solved_") for s in code(starter))
    assert not any(s.startswith("starter_") for s in code(solved))
    exercises = sum(role == "exercise" for role, _, _ in blocks)
    assert sum(s.startswith("starter_") for s in code(starter)) == exercises
    assert sum(s.startswith("solved_") for s in code(solved)) == exercises
    for notebook in (starter, solved):
        ids = [c["id"] for c in notebook["cells"]]
        assert len(ids) == len(set(ids)) and ids[0] == "looplab-about"
        for cell in notebook["cells"]:
            hidden = cell["metadata"].get("jupyter", {}).get("source_hidden", False)
            tags = cell["metadata"].get("tags", [])
            assert hidden == ("hint" in tags or ("solution" in tags and cell["cell_type"] == "markdown"))


def test_a_lesson_file_becomes_a_notebook_with_its_roles_as_tags(tmp_path):
    path = tmp_path / "04-x.py"
    path.write_text(
        '# %% [markdown]\n# # 4 · X\n# %% tags=["exercise"]\na = 0\n# %% [markdown] tags=["hint"]\n'
        '# Try 1.\n# %% tags=["solution"]\na = 1\n# %% tags=["check"]\n# a is one\nassert a == 1\n',
        encoding="utf-8",
    )
    lesson = lesson_dict(path)
    assert lesson["slug"] == "04-x" and lesson["title"] == "4 · X"
    notebook = to_notebook(lesson)
    assert notebook["nbformat"] == 4 and notebook["nbformat_minor"] == 5
    assert [(c["cell_type"], c["metadata"].get("tags")) for c in notebook["cells"][1:]] == [
        ("code", ["setup"]),  # notebook_lesson: the checks' reference() finds the lesson's solution
        ("markdown", None),
        ("code", ["exercise"]),
        ("markdown", ["hint"]),
        ("markdown", ["solution"]),
        ("code", ["check"]),
    ]
    assert notebook["cells"][-1]["source"] == ["# a is one\n", "assert a == 1"]
    assert 'notebook_lesson("04-x", globals())' in "".join(notebook["cells"][1]["source"])
