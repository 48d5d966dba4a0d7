"""The lesson format in the page: predict before you run, hints one at a time before the solution."""

from __future__ import annotations

from playwright.sync_api import expect

from learner import open_lesson, put_solutions, run

FORMAT = "91-e2e-format"  # tests/e2e/fixtures/91-e2e-format.py


def test_a_prediction_shows_its_choices_and_then_the_answer(page, site_url):
    open_lesson(page, site_url, FORMAT)
    predict = page.get_by_test_id("predict")
    choices = predict.get_by_test_id("predict-choice")
    assert choices.all_inner_texts() == ["step_limit", "final", "error"]
    expect(predict).not_to_have_attribute("data-answered", "wrong")
    assert predict.locator(".predict-verdict").inner_text() == ""  # the answer waits for a choice

    choices.nth(0).click()
    expect(predict).to_have_attribute("data-answered", "wrong")
    expect(predict.locator(".predict-verdict")).to_contain_text("Not quite: the answer is final.")
    expect(predict.locator(".predict-verdict")).to_contain_text("answers on its first reply")
    expect(choices.nth(0)).to_have_attribute("aria-pressed", "true")

    choices.nth(1).click()
    expect(predict).to_have_attribute("data-answered", "right")
    expect(predict.locator(".predict-verdict")).to_contain_text("Right.")
    expect(choices.nth(0)).to_have_attribute("aria-pressed", "false")


def test_hints_come_one_at_a_time_before_the_solution(page, site_url):
    open_lesson(page, site_url, FORMAT)
    button = page.get_by_test_id("show-hint")
    expect(button).to_have_text("Show a hint (1 of 2)")
    expect(page.get_by_test_id("hint")).to_have_count(0)

    button.click()
    expect(page.get_by_test_id("hint")).to_have_count(1)
    expect(page.get_by_test_id("hint").nth(0)).to_contain_text("compares greeting")
    expect(page.get_by_test_id("hint").nth(0)).to_be_focused()
    expect(button).to_have_text("Next hint (2 of 2)")

    button.press("Enter")  # the keyboard works too
    expect(page.get_by_test_id("hint")).to_have_count(2)
    expect(page.get_by_test_id("hint").nth(1)).to_contain_text('greeting = result["answer"]')
    expect(button).to_be_hidden()  # no more hints
    expect(page.get_by_test_id("show-solution")).to_be_visible()


def test_the_format_lesson_passes_with_its_solution(page, site_url):
    open_lesson(page, site_url, FORMAT)
    results = run(page)
    assert [ok for ok, _, _ in results] == [False, True], results  # the starter fails a check
    put_solutions(page)
    assert [ok for ok, _, _ in run(page)] == [True, True]
