"""The lesson format: parsing cells, starter vs solution, checks as a checklist, learner tracebacks."""

import json

from looplab.lesson import Cell, check_names, parse, program, run_cells, to_text

LESSON = '''# ---
# jupyter:
#   jupytext: {}
# ---

# %% [markdown]
# # Title
#
# Some *prose*.

# %%
x = 1

# %% tags=["exercise"]
answer = x + 1

# %% tags=["solution"]
answer = x + 2

# %% tags=["check"]
# the answer is three
assert answer == 3, f"answer is {answer}; add 2, not 1"
note = "set up in a check cell"
assert note
'''


def test_parse_cells_roles_and_markdown():
    cells = parse(LESSON)
    assert [c.role for c in cells] == ["markdown", "code", "exercise", "solution", "check"]
    assert cells[0].source == "# Title\n\nSome *prose*."
    assert cells[2].tags == ["exercise"]


def test_program_swaps_exercise_for_solution():
    cells = parse(LESSON)
    assert [c.source for _, c in program(cells)] == ["x = 1", "answer = x + 1"]
    assert [c.source for _, c in program(cells, solution=True)] == ["x = 1", "answer = x + 2"]


def test_checks_fail_on_starter_and_pass_on_solution():
    starter = run_cells(parse(LESSON))
    assert not starter.ok and starter.checks[0].name == "the answer is three"
    assert starter.checks[0].message == "answer is 2; add 2, not 1" and starter.checks[1].ok
    solved = run_cells(parse(LESSON), solution=True)
    assert solved.ok and [c.name for c in solved.checks] == ["the answer is three", "note"]


def test_a_raising_cell_reports_a_learner_traceback_and_fails_checks():
    cells = parse(LESSON)
    cells[1] = Cell("code", "x = 1\nundefined_name + 1")
    result = run_cells(cells, solution=True)
    assert result.error.startswith("Traceback") and "NameError" in result.error
    assert "<cell 2>" in result.error and "lesson.py" not in result.error
    assert not result.ok and "not checked: cell 2 raised NameError" in result.checks[0].message


def test_events_of_runs_are_collected():
    cells = [Cell("code", "from looplab import *\nrun_agent('hi', scripted([final('yo')]), Toolbox(), Memory('s'))"),
             Cell("code", "assert True", ["check"])]
    result = run_cells(cells)
    assert [e["type"] for e in result.events][0] == "run_start" and result.events[-1]["stopped"] == "final"
    assert result.to_dict()["checks"] == [{"name": "True", "ok": True, "message": ""}]


def test_round_trip_and_names():
    cells = parse(LESSON)
    assert [(c.kind, c.tags, c.source) for c in parse(to_text(cells))] == [(c.kind, c.tags, c.source) for c in cells]
    assert check_names(cells) == ["the answer is three", "note"]


def test_no_checks_is_not_ok():
    assert not run_cells([Cell("code", "x = 1")]).ok


def test_error_texts_never_hold_the_key(monkeypatch):
    monkeypatch.setenv("LLM_API_KEY", "plain-configured-key-42")
    read_key = "import os\nkey = os.environ['LLM_API_KEY']\n"
    raising = run_cells([Cell("code", read_key + "raise RuntimeError('refused: ' + key)"),
                         Cell("code", "assert True", ["check"])])
    failing = run_cells([Cell("code", read_key), Cell("code", "assert not key, f'the key {key} did not work'", ["check"])])
    seen = json.dumps([raising.to_dict(), failing.to_dict()])
    assert "plain-configured-key-42" not in seen
    assert "refused: [redacted]" in raising.error and "[redacted]" in raising.checks[0].message
    assert failing.checks[0].message == "the key [redacted] did not work"
