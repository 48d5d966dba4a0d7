"""Proof you built it (web/src/page/proof/): the course map, a "built it" record exported from it and
re-checked by replay in a fresh browser profile (and by `looplab verify` in CPython, with the same
verdicts), and the teacher's view of several records. Axe: the map and the teacher's view, light and
dark, desktop and phone."""

from __future__ import annotations

import copy
import json
import sys
from pathlib import Path

import pytest
from playwright.sync_api import expect

from learner import open_lesson, run, set_code
from test_a11y import DESKTOP, PHONE, audit, report

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "py"))

from looplab._course import mine, record  # noqa: E402
from looplab._course.lessonfile import parse, solution_index  # noqa: E402

LESSONS = ROOT / "lessons"
SOLVED = ["01-agent-or-workflow", "01b-workflows-first", "02-tools", "03-one-round-trip", "04-the-loop"]
REPLAY_MS = 300_000  # five lessons replayed in a Python started for the record, on a busy machine


def text(slug: str) -> str:
    return (LESSONS / f"{slug}.py").read_text(encoding="utf-8")


def text_of(slug: str):
    path = LESSONS / f"{slug}.py"
    return path.read_text(encoding="utf-8") if path.is_file() else None


def own_code(slug: str) -> list[str]:
    """Each exercise solved as a learner might: the reference's logic plus a line of their own."""
    cells = record.shown_cells(text(slug))
    return [cells[solution_index(cells, i)].source + "\nsolved_by_me = True\n" for i in mine.exercises(cells)]


def solve(page, site_url: str, slug: str) -> None:
    open_lesson(page, site_url, slug)
    for nth, code in enumerate(own_code(slug)):
        set_code(page, code, "exercise", nth)
    results = run(page)
    assert results and all(r.ok for r in results), (slug, results)


def verdicts_shown(page) -> dict[str, str]:
    return page.eval_on_selector_all(
        "[data-testid=record-verdict]",
        "items => Object.fromEntries(items.map(li => [li.dataset.slug, li.dataset.verdict]))",
    )


def check_record(page, site_url: str, data: dict, count: int) -> dict[str, str]:
    page.goto(f"{site_url}#records")
    expect(page.get_by_role("heading", name="Check a record")).to_be_visible()
    page.get_by_test_id("record-check").set_input_files(
        {"name": "record.json", "mimeType": "application/json", "buffer": json.dumps(data).encode()}
    )
    expect(page.get_by_test_id("foreign-code")).to_contain_text("Code from a record.")
    expect(page.get_by_test_id("record-verdict")).to_have_count(count, timeout=REPLAY_MS)
    return verdicts_shown(page)


def tampered(data: dict) -> dict:
    """02's code broken (its exercises back to the starter), a result of 03 flipped by hand, 04 the reference."""
    out = copy.deepcopy(data)
    by = {e["slug"]: e for e in out["lessons"]}
    cells = record.shown_cells(text("02-tools"))
    by["02-tools"]["cells"] = {str(i): cells[i].source for i in mine.exercises(cells)}
    by["03-one-round-trip"]["checks"][0]["status"] = "failed"
    cells = record.shown_cells(text("04-the-loop"))
    by["04-the-loop"]["cells"] = {str(i): cells[solution_index(cells, i)].source for i in mine.exercises(cells)}
    return out


@pytest.fixture(scope="module")
def exported(browser, site_url, tmp_path_factory) -> dict:
    """Lessons 01–04 solved in the page, the course map read, and a record exported from it."""
    context = browser.new_context(viewport=DESKTOP)
    from conftest import guard

    guard(context)
    try:
        page = context.new_page()
        for slug in SOLVED:
            solve(page, site_url, slug)
        page.get_by_role("link", name="Course map").click()
        expect(page.get_by_test_id("course-map")).to_be_visible()
        expect(page.get_by_test_id("course-map")).to_contain_text("used again with mine(2) in 16, 16b, 25")
        states = page.eval_on_selector_all(
            "[data-testid=lesson-state]", "items => items.map(li => [li.dataset.slug, li.dataset.state])"
        )
        exercises = page.locator("[data-role=map-exercises]").inner_text()
        lines = dict(
            page.eval_on_selector_all(
                "[data-testid=lesson-state]", "items => items.map(li => [li.dataset.slug, li.textContent])"
            )
        )
        page.get_by_label("Your name, as it should appear").fill("Ada Lovelace")
        with page.expect_download() as download:
            page.get_by_test_id("record-export").click()
        path = tmp_path_factory.mktemp("record") / "record.json"
        download.value.save_as(path)
        next_link = page.locator("[data-role=map-next]").get_attribute("href")
        # then 04 edited after its ✓, and 05 edited, not run: ✓ once and edited since, and started
        open_lesson(page, site_url, "04-the-loop")
        set_code(page, own_code("04-the-loop")[0] + "# one more thought\n", "exercise", 0)
        open_lesson(page, site_url, "05-adapter-contract")
        set_code(page, "# my first try\n", "exercise", 0)
        page.get_by_role("link", name="Course map").click()
        after = page.eval_on_selector_all(
            "[data-testid=lesson-state]", "items => items.map(li => [li.dataset.slug, li.dataset.state])"
        )
        return {
            "exercises": exercises,
            "lines": lines,
            "after": dict(after),
            "states": dict(states),
            "order": [s for s, _ in states],
            "next": next_link,
            "record": json.loads(path.read_text()),
        }
    finally:
        context.close()


def exercise_count(slug: str) -> int:
    return sum(c.role == "exercise" for c in parse(text(slug)))


def test_the_map_counts_the_exercises_done_in_the_course_and_in_each_lesson(exported, site_dir):
    index = json.loads((site_dir / "lessons" / "index.json").read_text())["lessons"]
    total = sum(exercise_count(m["slug"]) if text_of(m["slug"]) else m["exercises"] for m in index)
    done = sum(exercise_count(s) for s in SOLVED)
    assert done > 0 and total > done
    assert exported["exercises"] == f"{done} of {total} exercises done"
    solved = "04-the-loop"
    assert f"{exercise_count(solved)} of {exercise_count(solved)} exercise" in exported["lines"][solved]
    unsolved = "05-adapter-contract"
    assert f"0 of {exercise_count(unsolved)} exercise" in exported["lines"][unsolved]


def test_solving_01_to_04_shows_them_done_on_the_map_and_05_next(exported):
    states = exported["states"]
    assert [states[s] for s in SOLVED] == ["done"] * len(SOLVED)
    assert states["05-adapter-contract"] == "new" and exported["next"] == "#/05-adapter-contract"
    assert set(states.values()) <= {"new", "started", "done", "changed"}
    after = exported["after"]
    assert (after["04-the-loop"], after["05-adapter-contract"], after["03-one-round-trip"]) == (
        "changed",
        "started",
        "done",
    )
    record_ = exported["record"]
    assert record_["name"] == "Ada Lovelace" and record_["format"] == "looplab-record" and record_["lessonFormat"] == 1
    assert [e["slug"] for e in record_["lessons"]] == SOLVED
    assert all(c["status"] == "passed" for e in record_["lessons"] for c in e["checks"])


def test_a_record_rechecks_in_a_fresh_profile_and_tampering_is_reported(exported, fresh_profile, site_url, tmp_path):
    page = fresh_profile.new_page()
    assert check_record(page, site_url, exported["record"], len(SOLVED)) == dict.fromkeys(SOLVED, "holds")
    expect(page.locator("[data-role=record-status]")).to_have_text(f"{len(SOLVED)} of {len(SOLVED)} lessons hold.")

    bad = tampered(exported["record"])
    shown = check_record(page, site_url, bad, len(SOLVED))
    expected = {
        "01-agent-or-workflow": "holds",
        "01b-workflows-first": "holds",
        "02-tools": "fails",
        "03-one-round-trip": "results-differ",
        "04-the-loop": "reference",
    }
    assert shown == expected
    broken = page.locator('[data-testid=record-verdict][data-slug="02-tools"]')
    starter = record.shown_cells(text("02-tools"))
    result = mine.quietly(record.with_code(starter, {int(i): s for i, s in bad["lessons"][2]["cells"].items()}))[0]
    message = next(c.message for c in result.checks if not c.ok)
    expect(broken).to_contain_text(message.splitlines()[0])
    expect(page.locator('[data-testid=record-verdict][data-slug="03-one-round-trip"]')).to_contain_text(
        "results do not match the code"
    )
    expect(page.locator('[data-testid=record-verdict][data-slug="04-the-loop"]')).to_contain_text("reference solution")

    # `looplab verify` gives the same verdicts in CPython
    assert {v.slug: v.verdict for v in record.verify(exported["record"], text_of)} == dict.fromkeys(SOLVED, "holds")
    assert {v.slug: v.verdict for v in record.verify(bad, text_of)} == expected


def learner_record(name: str, slugs: list[str]) -> dict:
    entries = [
        record.make_entry(s, text(s), dict(zip(mine.exercises(record.shown_cells(text(s))), own_code(s), strict=True)))
        for s in slugs
    ]
    return record.make_record(name, entries, made="2026-12-03T12:00:00Z")


def test_the_teachers_view_replays_three_records_and_shows_the_tampered_one(page, site_url):
    ada = learner_record("Ada", ["01-agent-or-workflow", "02-tools"])
    bob = learner_record("Bob", ["01-agent-or-workflow"])
    eve = copy.deepcopy(ada)
    eve["name"] = "Eve"
    eve["lessons"][1]["checks"][0]["status"] = "failed"  # edited by hand
    page.goto(f"{site_url}#teacher")
    view = page.get_by_test_id("teacher-view")
    expect(view).to_be_visible()
    page.locator("[data-role=teacher-files]").set_input_files(
        [
            {"name": f"{r['name']}.json", "mimeType": "application/json", "buffer": json.dumps(r).encode()}
            for r in (ada, bob, eve)
        ]
    )
    expect(page.get_by_test_id("teacher-row")).to_have_count(3)
    expect(page.locator("[data-role=teacher-status]")).to_have_text("Re-checked 5 of 5 lessons.", timeout=REPLAY_MS)
    expect(page.locator("[data-role=teacher-progress]")).to_have_js_property("value", 1)
    rows = page.eval_on_selector_all(
        "[data-testid=teacher-row]", "rows => rows.map(r => [r.dataset.learner, r.dataset.flagged])"
    )
    assert sorted(rows) == [["Ada", "false"], ["Bob", "false"], ["Eve", "true"]]
    eve_row = page.locator('[data-testid=teacher-row][data-learner="Eve"]')
    expect(eve_row.locator('td[data-slug="02-tools"]')).to_have_attribute("data-verdict", "results-differ")
    expect(eve_row.locator("td").first).to_have_text("1 of 2")

    page.get_by_role("button", name="Lessons that hold").click()  # sort: fewest first
    first = page.locator("[data-testid=teacher-row]").first
    expect(first).to_have_attribute("data-learner", "Bob")
    page.get_by_role("button", name="Lessons that hold").click()  # and the other way
    expect(first).to_have_attribute("data-learner", "Ada")

    with page.expect_download() as download:
        page.get_by_role("button", name="Export as CSV").click()
    lines = Path(download.value.path()).read_text().splitlines()
    assert lines[0] == "learner,file,lessons that hold,01-agent-or-workflow,02-tools"
    assert "Eve,Eve.json,1,holds,results-differ" in lines and "Bob,Bob.json,1,holds," in lines


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("layout", ["desktop", "phone"])
def test_the_course_map_and_the_teachers_view_have_no_axe_violations(browser, site_url, scheme, layout):
    phone = layout == "phone"
    context = browser.new_context(
        viewport=PHONE if phone else DESKTOP, color_scheme=scheme, is_mobile=phone, has_touch=phone
    )
    from conftest import guard

    guard(context)
    try:
        page = context.new_page()
        page.goto(f"{site_url}#map")
        expect(page.get_by_test_id("lesson-state").first).to_be_visible()
        found = audit(page)
        assert found == [], report(f"map {scheme} {layout}", found)
        page.goto(f"{site_url}#teacher")
        page.locator("[data-role=teacher-files]").set_input_files(
            {
                "name": "Bob.json",
                "mimeType": "application/json",
                "buffer": json.dumps(learner_record("Bob", ["01-agent-or-workflow"])).encode(),
            }
        )
        expect(page.get_by_test_id("teacher-row")).to_have_count(1)
        found = audit(page)
        assert found == [], report(f"teacher {scheme} {layout}", found)
    finally:
        context.close()
