"""The lesson format: parsing cells, starter vs solution, checks as a checklist, learner tracebacks."""

import json

from hypothesis import given, strategies as st

from looplab._course.lesson import (
    Cell,
    Prediction,
    check_names,
    expect,
    hints,
    parse,
    program,
    read_prediction,
    run_cells,
    solution_index,
    to_text,
)

LESSON = """# ---
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
"""


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
    cells = [
        Cell("code", "from looplab import *\nrun_agent('hi', scripted([final('yo')]), Toolbox(), Memory('s'))"),
        Cell("code", "assert True", ["check"]),
    ]
    result = run_cells(cells)
    assert [e["type"] for e in result.events][0] == "run_start" and result.events[-1]["stopped"] == "final"
    assert result.to_dict()["checks"] == [{"name": "True", "ok": True, "status": "passed", "message": ""}]


def test_events_go_to_on_event_as_they_happen_and_the_result_keeps_none():
    cells = [
        Cell(
            "code",
            "from looplab import *\nrun_agent('hi', scripted([final('yo')]), Toolbox(), Memory('s'))\n"
            "seen_during_the_run = len(handed)",
        ),
        Cell("code", "assert seen_during_the_run == 4", ["check"]),
    ]
    handed = []
    result = run_cells(cells, namespace={"handed": handed}, on_event=handed.append)
    assert [e["type"] for e in handed] == ["run_start", "model_call", "model_reply", "stop"]
    assert result.events == [] and result.to_dict()["events"] == [] and result.ok


def test_round_trip_and_names():
    cells = parse(LESSON)
    assert [(c.kind, c.tags, c.source) for c in parse(to_text(cells))] == [(c.kind, c.tags, c.source) for c in cells]
    assert check_names(cells) == ["the answer is three", "note"]


def test_no_checks_is_not_ok():
    assert not run_cells([Cell("code", "x = 1")]).ok


def test_error_texts_never_hold_the_key(monkeypatch):
    monkeypatch.setenv("LLM_API_KEY", "plain-configured-key-42")
    read_key = "import os\nkey = os.environ['LLM_API_KEY']\n"
    raising = run_cells(
        [Cell("code", read_key + "raise RuntimeError('refused: ' + key)"), Cell("code", "assert True", ["check"])]
    )
    failing = run_cells(
        [Cell("code", read_key), Cell("code", "assert not key, f'the key {key} did not work'", ["check"])]
    )
    seen = json.dumps([raising.to_dict(), failing.to_dict()])
    assert "plain-configured-key-42" not in seen
    assert "refused: [redacted]" in raising.error and "[redacted]" in raising.checks[0].message
    assert failing.checks[0].message == "the key [redacted] did not work"


HINTED = """# %% [markdown]
# # Hinted

# %% [markdown] tags=["predict"]
# What will `total` be?
#
# - [ ] 2
# - [x] 3
# - [ ] an error
#
# One plus two is three.

# %%
total = 1 + 2

# %% tags=["exercise"]
answer = 0

# %% [markdown] tags=["hint"]
# Look at `total`.

# %% [markdown] tags=["hint"]
# Write `answer = total`.

# %% tags=["solution"]
answer = total

# %% tags=["check"]
# the answer is the total
assert answer == 3, f"answer is {answer}; it should be the total"
"""


def test_hint_and_predict_cells_have_roles_and_the_solution_skips_hints():
    cells = parse(HINTED)
    assert [c.role for c in cells] == ["markdown", "predict", "code", "exercise", "hint", "hint", "solution", "check"]
    assert [c.source for _, c in program(cells, solution=True)] == ["total = 1 + 2", "answer = total"]
    assert [c.source for _, c in program(cells)] == ["total = 1 + 2", "answer = 0"]
    assert hints(cells, 3) == ["Look at `total`.", "Write `answer = total`."] and hints(cells, 2) == []
    assert solution_index(cells, 3) == 6


def test_a_prediction_reads_its_question_choices_answer_and_why():
    cells = parse(HINTED)
    prediction = read_prediction(cells[1].source)
    assert prediction == Prediction("What will `total` be?", ["2", "3", "an error"], 1, "One plus two is three.")
    seen = []
    run_cells(cells, solution=True, on_predict=seen.append)
    assert seen == [prediction]


def test_a_prediction_needs_choices_and_exactly_one_answer():
    for source in ["Which?\n\n- [ ] a\n- [ ] b", "Which?\n\n- [x] a\n- [x] b", "Which?\n\n- [x] a"]:
        try:
            read_prediction(source)
        except ValueError as exc:
            assert "exactly one ticked" in str(exc)
        else:
            raise AssertionError(f"accepted {source!r}")


EXPECTING = [
    Cell("code", "from looplab import expect\nreply = 'Chas, Alex.'"),
    Cell(
        "code",
        "# the reply names Chris\n"
        "expect('Chris' in reply, f'the reply was {reply!r}', observed=f'the model answered {reply!r}')\n"
        "# a claim that would raise is never evaluated with a real model\n"
        "expect(reply['no such key'], 'unreachable')\n"
        "# the reply is text\n"
        "assert isinstance(reply, str), 'not text'",
        ["check"],
    ),
]


def test_expect_is_an_ordinary_check_with_the_scripted_model(monkeypatch):
    monkeypatch.setenv("LOOPLAB_MODEL", "scripted")
    result = run_cells(EXPECTING)
    assert [c.status for c in result.checks] == ["failed", "failed", "passed"]
    assert (
        result.checks[0].name == "the reply names Chris" and result.checks[0].message == "the reply was 'Chas, Alex.'"
    )
    assert result.checks[1].message.startswith("TypeError") and not result.ok


def test_expect_is_never_a_pass_with_a_live_or_local_model(monkeypatch):
    for mode in ("live", "local"):
        monkeypatch.setenv("LOOPLAB_MODEL", mode)
        result = run_cells(EXPECTING)
        assert [c.status for c in result.checks] == ["not checked", "not checked", "passed"]
        assert result.checks[0].message == "the model answered 'Chas, Alex.'" and not result.checks[0].ok
        assert "prepared replies" in result.checks[1].message
        assert result.ok and result.count("not checked") == 2
        assert result.to_dict()["checks"][0]["status"] == "not checked"


@given(st.one_of(st.booleans(), st.integers(), st.text(), st.none()))
def test_a_true_claim_is_still_not_checked_live(claim):
    import os

    old = os.environ.get("LOOPLAB_MODEL")
    os.environ["LOOPLAB_MODEL"] = "live"
    try:
        result = run_cells(
            [Cell("code", f"claim = {claim!r}"), Cell("code", "expect(claim, 'no', observed=repr(claim))", ["check"])],
            namespace={"expect": expect, "__name__": "__lesson__"},
        )
    finally:
        os.environ.pop("LOOPLAB_MODEL") if old is None else os.environ.__setitem__("LOOPLAB_MODEL", old)
    assert [c.status for c in result.checks] == ["not checked"]
    assert result.checks[0].message == repr(claim) and not result.checks[0].ok


def test_expect_as_plain_python(monkeypatch, capsys):
    monkeypatch.setenv("LOOPLAB_MODEL", "scripted")
    expect(True, "fine")
    try:
        expect(False, "the claim failed")
    except AssertionError as exc:
        assert str(exc) == "the claim failed"
    else:
        raise AssertionError("expect(False) passed")
    monkeypatch.setenv("LOOPLAB_MODEL", "live")
    expect(False, "the claim failed", observed="the model said no")
    assert capsys.readouterr().out == "not checked with a live model: the model said no\n"
