"""One run, one lesson: switching lessons while Python starts, runs or finishes never runs or
reports another lesson's code (issue 11, part 4).

The lesson files are slowed down in the page (each lessons/NN-slug.json fetch waits 400 ms), as on
a slow network: that is the window in which a Run used to run the previous lesson's code under
the new lesson's page.
"""

from __future__ import annotations

import re

from playwright.sync_api import Page, expect

from learner import FIXTURE, READY_MS, checks, open_lesson, set_code, start_run

FIRST = {
    "slug": FIXTURE,
    "title": "E2E fixture: a tiny agent",
    "line": "hello from the lesson",
    "checks": ["the run stopped with a final answer", "the answer mentions 5"],
}
SECOND = {
    "slug": "91-e2e-second",
    "title": "E2E fixture: a second lesson",
    "line": "hello from the second lesson",
    "checks": ["the second lesson's code ran", "it paused as long as it was asked to"],
}

SLOW_LESSON_FILES = """(() => {
  const realFetch = window.fetch.bind(window);
  window.fetch = (input, init) => {
    const url = String(input && input.url ? input.url : input);
    if (/lessons\\/\\d+-[a-z0-9-]+\\.json/.test(url)) return new Promise((ok) => setTimeout(ok, 400)).then(() => realFetch(input, init));
    return realFetch(input, init);
  };
})();"""


def slow_lesson_files(page: Page) -> None:
    page.add_init_script(SLOW_LESSON_FILES)


def open_in_list(page: Page, lesson: dict) -> None:
    page.locator(f'[data-testid=lesson-list] a[href="#/{lesson["slug"]}"]').click()


def assert_ends_on(page: Page, lesson: dict, other: dict) -> None:
    """The page shows `lesson`, its run has ended with its own checks, and nothing of `other`."""
    expect(page.locator("body")).to_have_attribute("data-lesson", lesson["slug"])
    box = page.get_by_test_id("checks")
    expect(box.locator("li.check .check-name")).to_have_text(lesson["checks"])
    status_line = page.get_by_test_id("status")
    expect(status_line).to_have_attribute("data-state", re.compile("^(passed|failed)$"))
    expect(status_line).to_contain_text(lesson["title"])
    expect(status_line).to_contain_text("2 of 2 checks passed")
    assert other["title"] not in status_line.inner_text()
    expect(box).not_to_have_attribute("data-running", re.compile(".*"))
    expect(box).not_to_have_attribute("data-stale", re.compile(".*"))
    assert checks(page) == [(True, name, "") for name in lesson["checks"]]
    output = page.get_by_test_id("output")
    expect(output).to_contain_text(lesson["line"])
    assert other["line"] not in output.inner_text()


def test_run_clicked_right_after_a_lesson_link_runs_that_lesson(page, site_url):
    slow_lesson_files(page)
    open_lesson(page, site_url, FIRST["slug"])
    open_in_list(page, SECOND)
    page.get_by_test_id("run").click()
    assert_ends_on(page, SECOND, FIRST)
    expect(page.locator(f'[data-testid=lesson-list] li[data-slug="{SECOND["slug"]}"]')).to_have_attribute(
        "data-state", "passed"
    )
    expect(page.locator(f'[data-testid=lesson-list] li[data-slug="{FIRST["slug"]}"]')).to_have_attribute(
        "data-state", "new"
    )


def test_ctrl_enter_right_after_a_lesson_link_runs_that_lesson(page, site_url):
    slow_lesson_files(page)
    open_lesson(page, site_url, SECOND["slug"])
    open_in_list(page, FIRST)
    page.keyboard.press("ControlOrMeta+Enter")
    assert_ends_on(page, FIRST, SECOND)
    assert len(page.context.pages) == 1  # Ctrl+Enter on the focused link opened no tab


def test_twenty_rapid_switch_and_run_pairs_end_on_the_last_lesson(page, site_url):
    slow_lesson_files(page)
    open_lesson(page, site_url, FIRST["slug"])
    for i in range(20):
        lesson = SECOND if i % 2 == 0 else FIRST
        open_in_list(page, lesson)
        if i % 4 < 2:
            page.keyboard.press("ControlOrMeta+Enter")
        else:
            page.get_by_test_id("run").click()
    assert_ends_on(page, FIRST, SECOND)  # the 20th pair opened FIRST


def test_switching_during_a_run_stops_it_and_runs_the_new_lesson(page, site_url):
    slow_lesson_files(page)
    open_lesson(page, site_url, FIRST["slug"])
    set_code(page, "import time\nprint('sleeping in the first lesson')\ntime.sleep(30)")
    start_run(page)
    expect(page.get_by_test_id("output")).to_contain_text("sleeping in the first lesson")
    open_in_list(page, SECOND)
    page.get_by_test_id("run").click()
    assert_ends_on(page, SECOND, {**FIRST, "line": "sleeping in the first lesson"})
    # the first lesson's run was stopped, not finished: no progress was saved for it
    expect(page.locator(f'[data-testid=lesson-list] li[data-slug="{FIRST["slug"]}"]')).to_have_attribute(
        "data-state", "new"
    )


def test_a_run_of_a_lesson_that_sleeps_can_be_left_for_one_that_sleeps_too(page, site_url):
    slow_lesson_files(page)
    open_lesson(page, site_url, SECOND["slug"])
    set_code(page, "pause = 0.3\ntime.sleep(pause)\nsecond = 'ran'")
    for i in range(6):  # leave each run while it sleeps, and run the lesson opened
        lesson = FIRST if i % 2 == 0 else SECOND
        open_in_list(page, lesson)
        page.keyboard.press("ControlOrMeta+Enter")
    assert_ends_on(page, SECOND, FIRST)
    assert "pause = 0.3" in page.get_by_test_id("lesson-text").inner_text()


def test_without_isolation_a_run_pressed_while_python_restarts_runs_the_new_lesson(not_isolated_context, site_url):
    """Where Stop must restart Python (no cross-origin isolation), leaving a running lesson restarts
    it, and a Run pressed meanwhile runs the lesson opened once Python is back."""
    page = not_isolated_context.new_page()
    slow_lesson_files(page)
    open_lesson(page, site_url, FIRST["slug"])
    assert page.evaluate("crossOriginIsolated") is False
    set_code(page, "import time\nprint('sleeping in the first lesson')\ntime.sleep(30)")
    start_run(page)
    expect(page.get_by_test_id("output")).to_contain_text("sleeping in the first lesson")
    open_in_list(page, SECOND)
    page.keyboard.press("ControlOrMeta+Enter")
    expect(page.get_by_test_id("status")).to_have_attribute("data-state", "passed", timeout=READY_MS)
    assert_ends_on(page, SECOND, {**FIRST, "line": "sleeping in the first lesson"})
