"""The checklist's three marks: ✓ passed, ✗ failed, – not checked (a claim that holds only for the
prepared scripted replies, `looplab._course.lesson.expect`, run with a live model)."""

from __future__ import annotations

from playwright.sync_api import expect

from fakeserver import chat_text
from learner import checks, code_of, configure_live, open_lesson, put_solutions, run, set_code, set_mode, status

FORMAT = "91-e2e-format"  # tests/e2e/fixtures/91-e2e-format.py: one assert, one expect(...)
TITLE = "E2E fixture: hints and predictions"


def checklist(page) -> list[dict]:
    return page.eval_on_selector_all(
        "[data-testid=checks] li.check",
        """items => items.map(li => ({
        status: li.dataset.status, mark: li.querySelector('.check-mark').textContent,
        said: li.querySelector('.sr-only').textContent, name: li.querySelector('.check-name').textContent,
        label: (li.querySelector('.check-unchecked-label') || {}).textContent || '',
        message: (li.querySelector('.check-message') || {}).textContent || '',
        color: getComputedStyle(li.querySelector('.check-mark')).color}))""",
    )


def test_a_claim_about_prepared_replies_is_checked_scripted_and_not_checked_live(page, site_url, fake):
    open_lesson(page, site_url, FORMAT)
    put_solutions(page)
    run(page)
    scripted = checklist(page)
    assert [(c["status"], c["mark"], c["label"]) for c in scripted] == [("passed", "✓", ""), ("passed", "✓", "")]
    expect(page.get_by_test_id("checks").locator(".summary")).to_have_text("2 of 2 checks passed")

    configure_live(page, fake.url)
    set_mode(page, "live")
    fake.script(chat_text("hello there"))
    run(page)
    live = checklist(page)
    assert [(c["status"], c["mark"], c["said"], c["label"]) for c in live] == [
        ("passed", "✓", "passed: ", ""),
        ("not checked", "–", "not checked: ", "not checked"),
    ]
    assert live[1]["name"] == "the scripted model says hi"
    assert [(c.ok, c.status) for c in checks(page)] == [(True, "passed"), (False, "not checked")]
    assert live[1]["message"] == "the model answered 'hello there'; the scripted model answers 'hi'"
    assert live[1]["color"] not in (scripted[0]["color"], "rgb(0, 0, 0)")  # its own colour, not the ✓'s
    summary = page.get_by_test_id("checks").locator(".summary")
    expect(summary).to_have_text("1 of 1 checks passed · 1 not checked with a live model")
    expect(summary).to_have_class("summary pass")
    line = status(page)
    assert line["state"] == "passed"
    assert f"{TITLE}: 1 of 1 checks passed · 1 not checked with a live model" in line["text"]
    expect(page.locator(f'[data-testid=lesson-list] li[data-slug="{FORMAT}"]')).to_have_attribute(
        "data-state", "passed"
    )


def test_a_check_against_the_reference_shows_the_smallest_case_that_differs(page, site_url):
    """Lesson 8 with its solutions, but clear_old_results clearing nothing when keep=0."""
    open_lesson(page, site_url, "08-memory-that-fits")
    put_solutions(page)
    solved = code_of(page, "exercise", 1)
    right, wrong = "old = set(results[:-keep] if keep else results)", "old = set(results[:-keep])"
    assert right in solved
    set_code(page, solved.replace(right, wrong), "exercise", 1)
    shown = {c.name: c for c in run(page)}
    cleared = shown["clear_old_results clears what the lesson's clears, for every keep (0, past the end, left out)"]
    assert (cleared.ok, cleared.status) == (False, "failed")
    assert (
        cleared.message == "With keep=0 and 3 tool results: tool results it left as they were: yours 3; it should be 0"
    )
    window = shown[
        "your MyMemory keeps what the lesson's keeps, for many histories, facts and budgets (exact fits too)"
    ]
    assert window.ok and sum(not c.ok for c in shown.values()) == 1
