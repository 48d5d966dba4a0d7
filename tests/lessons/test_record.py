"""A "built it" record re-checked by replay (looplab._course.record), and `looplab verify RECORD`."""

import copy
import json

import pytest

from looplab._course import cli, mine, record
from looplab._course.checks import FAILED, PASSED
from looplab._course.course import find_in
from looplab._course.lessonfile import solution_index

from pathlib import Path

LESSONS = Path(__file__).resolve().parents[2] / "lessons"

SOLVED = ("01", "02", "04")


def text(number: str) -> str:
    return find_in(LESSONS, number).read_text(encoding="utf-8")


def slug(number: str) -> str:
    return find_in(LESSONS, number).stem


def own_solution(number: str) -> dict[int, str]:
    """Each exercise solved the way a learner might: the reference's logic, written a little differently."""
    cells = record.shown_cells(text(number))
    return {
        i: cells[solution_index(cells, i)].source + "\n\nsolved_by_me = True  # my own line\n"
        for i in mine.exercises(cells)
    }


def pasted_reference(number: str) -> dict[int, str]:
    """Each exercise cell holds its reference solution, with a comment and spacing changed."""
    cells = record.shown_cells(text(number))
    return {i: "# copied\n" + cells[solution_index(cells, i)].source + "\n\n\n" for i in mine.exercises(cells)}


def starter(number: str) -> dict[int, str]:
    cells = record.shown_cells(text(number))
    return {i: cells[i].source for i in mine.exercises(cells)}


def text_of(slug_: str):
    path = LESSONS / f"{slug_}.py"
    return path.read_text(encoding="utf-8") if path.is_file() else None


@pytest.fixture(scope="module")
def solved() -> dict:
    entries = [record.make_entry(slug(n), text(n), own_solution(n)) for n in SOLVED]
    return record.make_record("Ada Lovelace", entries, made="2026-12-03T12:00:00Z")


def verdicts(data: dict) -> dict[str, record.Verdict]:
    return {v.slug: v for v in record.verify(data, text_of)}


def write(tmp_path, data) -> str:
    path = tmp_path / "record.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return str(path)


def test_a_solved_record_holds_in_every_lesson_and_verify_exits_0(solved, tmp_path, capsys):
    assert [e["slug"] for e in solved["lessons"]] == [slug(n) for n in SOLVED]
    assert all(c["status"] == PASSED for e in solved["lessons"] for c in e["checks"])
    assert solved["name"] == "Ada Lovelace" and solved["site"] and solved["lessonFormat"] == 1
    found = verdicts(solved)
    assert {s: v.verdict for s, v in found.items()} == {slug(n): record.HOLDS for n in SOLVED}
    assert cli.main(["verify", write(tmp_path, solved)]) == 0
    said = capsys.readouterr()
    assert "3 of 3 lessons hold." in said.out and "Ada Lovelace" in said.out
    assert said.err.startswith("lessons: ") and "lessons: " not in said.out  # what the command says: stderr


def test_code_edited_to_fail_fails_with_the_checks_message(solved, tmp_path, capsys):
    broken = copy.deepcopy(solved)
    lesson = broken["lessons"][2]  # 04: its exercises back to the starter, the recorded ✓s kept
    lesson["cells"] = {str(i): s for i, s in starter("04").items()}
    found = verdicts(broken)
    expected = mine.quietly(record.with_code(record.shown_cells(text("04")), starter("04")))[0]
    first = next(c for c in expected.checks if c.status == FAILED)
    assert found[slug("04")].verdict == record.FAILS
    assert first.message and first.message in found[slug("04")].detail
    assert found[slug("01")].verdict == found[slug("02")].verdict == record.HOLDS
    assert cli.main(["verify", write(tmp_path, broken)]) == 1
    out = capsys.readouterr().out
    assert "fails" in out and "2 of 3 lessons hold." in out


def test_a_result_flipped_by_hand_is_reported_as_results_that_differ(solved, tmp_path, capsys):
    flipped = copy.deepcopy(solved)
    check = flipped["lessons"][1]["checks"][0]
    check["status"] = FAILED  # a ✓ turned ✗ by hand: the file no longer says what the code does
    found = verdicts(flipped)
    assert found[slug("02")].verdict == record.DIFFERS
    assert "results do not match the code" in found[slug("02")].detail and check["name"] in found[slug("02")].detail
    assert cli.main(["verify", write(tmp_path, flipped)]) == 1
    assert "results-differ" in capsys.readouterr().out


def test_a_record_with_a_check_left_out_differs_too(solved):
    shorter = copy.deepcopy(solved)
    shorter["lessons"][0]["checks"].pop()
    renamed = copy.deepcopy(solved)
    renamed["lessons"][1]["checks"][0]["name"] = "a check the lesson never had"
    assert verdicts(shorter)[slug("01")].verdict == record.DIFFERS
    found = verdicts(renamed)[slug("02")]
    assert found.verdict == record.DIFFERS and "a check the lesson never had" in found.detail


def test_a_pasted_reference_is_marked_as_such_and_does_not_hold(solved, tmp_path, capsys):
    pasted = copy.deepcopy(solved)
    pasted["lessons"][2] = record.make_entry(slug("04"), text("04"), pasted_reference("04"))
    assert all(c["status"] == PASSED for c in pasted["lessons"][2]["checks"])  # it passes: it is the reference
    found = verdicts(pasted)
    assert found[slug("04")].verdict == record.REFERENCE
    assert "reference solution" in found[slug("04")].detail
    assert cli.main(["verify", write(tmp_path, pasted)]) == 1
    assert "reference" in capsys.readouterr().out


def test_the_normalisation_ignores_layout_and_comments_but_not_code():
    assert record.normalised("x = [1,\n  2]  # two\n") == record.normalised("# list\nx = [1, 2]")
    assert record.normalised("x = 'a'") == record.normalised('x = "a"')
    assert record.normalised("x = 1") != record.normalised("y = 1")
    assert record.normalised("def f(:") is None


def test_a_record_that_does_not_fit_a_lesson_fails_with_a_reason(solved):
    odd = copy.deepcopy(solved)
    odd["lessons"][0]["cells"] = {"0": "print('hi')"}  # cell 0 is the lesson's prose
    odd["lessons"].append({"slug": "99-no-such-lesson", "cells": {}, "checks": []})
    found = verdicts(odd)
    assert found[slug("01")].verdict == record.FAILS and "does not fit" in found[slug("01")].detail
    assert found["99-no-such-lesson"].verdict == record.FAILS
    assert "no lesson 99-no-such-lesson" in found["99-no-such-lesson"].detail


@pytest.mark.parametrize(
    ("content", "words"),
    [
        ("not json", "Expecting value"),
        (json.dumps({"format": "looplab-progress"}), "not a Loop Lab record"),
        (json.dumps({"format": "looplab-record", "version": 9, "lessons": []}), "version 9"),
        (json.dumps({"format": "looplab-record", "version": 1, "lessons": []}), "no lessons"),
    ],
)
def test_verify_refuses_what_is_not_a_record_with_exit_2(tmp_path, capsys, content, words):
    path = tmp_path / "x.json"
    path.write_text(content, encoding="utf-8")
    assert cli.main(["verify", str(path)]) == 2
    err = capsys.readouterr().err
    assert words in err and "x.json" in err


def test_the_page_entry_gives_the_same_verdicts_as_json(solved):
    texts = {e["slug"]: text_of(e["slug"]) for e in solved["lessons"]}
    out = json.loads(record.verify_json(json.dumps(solved), json.dumps(texts)))
    assert [v["verdict"] for v in out] == [record.HOLDS] * 3
    assert [v["slug"] for v in out] == [slug(n) for n in SOLVED] and all(v["checks"] for v in out)
    one = json.loads(record.verify_json(json.dumps(solved), json.dumps(texts), slug("02")))
    assert [(v["slug"], v["verdict"]) for v in one] == [(slug("02"), record.HOLDS)]
