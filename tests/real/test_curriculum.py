"""The whole curriculum live through the command line against llama-server with SmolLM2-135M.

What a real model can promise here: every lesson's solution runs to its checklist (no cell
raises, no crash), every run of the agent loop ends with one of its stop reasons, no check
fails, and the key never appears in anything printed. What the model answered is not judged:
a check that holds only for the prepared replies is reported as not checked in live mode
(lesson.py). Each lesson's figures (time, checks by outcome, longest reply) are printed at the end.
"""

import pytest
from curriculum import FIGURES, KEY, LESSONS, STOPS, checks, figures, run_lesson, silent_unchecked, stops
from llamaserver import MODEL_NAME


@pytest.mark.parametrize("path", LESSONS, ids=[p.stem for p in LESSONS])
def test_the_lesson_runs_live_against_a_real_server(path, recorder):
    recorder.take()
    run = run_lesson(path, recorder.url, KEY, MODEL_NAME)
    replies = recorder.take()
    FIGURES.append(figures(run, replies))
    shown = run["stdout"] + run["stderr"]
    assert KEY not in shown and KEY[-12:] not in shown, "the API key was printed"
    assert run["exit"] in (0, 1) and "Traceback" not in run["stderr"], shown[-3000:]
    assert "A cell raised an exception" not in run["stdout"], run["stdout"][-3000:]
    marks = checks(run["stdout"])
    assert sum(map(len, marks.values())) > 0, "no checklist was printed"
    started, reasons = stops(run["stdout"])
    assert len(reasons) == started and set(reasons) <= STOPS, (started, reasons)
    # A check that fails with a real model is either our bug or a claim about the prepared replies
    # that should be marked so (it is then "not checked" in live mode, never a ✓ and never a ✗).
    assert not marks["failed"], marks["failed"]
    assert run["exit"] == 0
    unchecked = len(marks["not checked"])  # claims about the prepared replies: said, with what the model did
    assert (f"· {unchecked} not checked with a live model" in run["stdout"]) == (unchecked > 0)
    assert silent_unchecked(run["stdout"]) == []


def test_the_lessons_really_talked_to_the_server(recorder, llama):
    """Lesson 01 makes requests that the server (which requires the key) answered with real tokens, streamed."""
    recorder.take()
    run = run_lesson(LESSONS[0], recorder.url, KEY, MODEL_NAME)
    replies = recorder.take()
    assert run["exit"] in (0, 1) and replies, run["stdout"][-2000:]
    assert all(isinstance(r["tokens"], int) and r["tokens"] > 0 for r in replies), replies
    assert all(r["streamed"] for r in replies), replies  # LLM_STREAM=1: every reply came as a stream
    assert " chunks, first after " in run["stdout"]  # and the trace says how it streamed
    wrong = run_lesson(LESSONS[0], recorder.url, "sk-not-the-key-000000000000", MODEL_NAME)
    assert "401" in wrong["stdout"] and "API key was refused" in wrong["stdout"], wrong["stdout"][-2000:]
