"""Your code carries forward in the page: lesson 25's mine(2) runs on the learner's saved edits of
lesson 02 (page/run/carried.js -> the run message's `carried` -> bridge.carry -> looplab._course.mine.provide)."""

from __future__ import annotations

from playwright.sync_api import expect

from conftest import guard
from learner import open_lesson, put_solutions, run, set_code

BROKEN = "class MyToolbox:\n    def __init__(self):\n        self.tools = {}\n"


def output_of(page) -> str:
    return page.get_by_test_id("output").inner_text()


def test_lesson_25_runs_on_the_learners_saved_lesson_02_and_says_whose_parts_they_are(browser, site_url):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    guard(context)
    page = context.new_page()
    page.on("dialog", lambda dialog: dialog.accept())
    try:
        open_lesson(page, site_url, "25-coding-agent")
        run(page)  # nothing saved for lesson 02 yet
        assert "From lesson 02: the reference solution: MyToolbox" in output_of(page)
        assert "its exercises still hold the starter code" in output_of(page)

        open_lesson(page, site_url, "02-tools")
        put_solutions(page)  # the learner solves lesson 02 ...
        set_code(
            page,
            "# my own toolbox, solved in the page\n"
            + page.evaluate("() => document.querySelector('[data-testid=editor].cell-exercise .cm-content').innerText"),
            nth=0,
        )
        open_lesson(page, site_url, "25-coding-agent")  # ... and lesson 25 uses it
        run(page)
        said = output_of(page)
        assert "From lesson 02: MyToolbox" in said and "all yours" in said, said[:1500]
        assert "the reference solution" not in said.split("From lesson 02:")[1].split("\n")[0]

        open_lesson(page, site_url, "02-tools")
        set_code(page, BROKEN, nth=0)  # now lesson 02's toolbox is broken
        open_lesson(page, site_url, "25-coding-agent")
        run(page)
        said = output_of(page)
        line = next(x for x in said.splitlines() if x.startswith("From lesson 02:"))
        assert "the reference solution: MyToolbox" in line and "yours: " in line, line
        assert "once it passes in lesson 02, this lesson uses yours" in line
        expect(page.get_by_test_id("checks")).to_be_visible()
    finally:
        context.close()


def test_a_lesson_links_back_to_the_lesson_whose_parts_it_reuses(browser, site_url):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    guard(context)
    page = context.new_page()
    try:
        page.goto(f"{site_url}#/27-research-helper-ready")
        expect(page.locator("body")).to_have_attribute("data-lesson", "27-research-helper-ready")
        link = page.get_by_test_id("lesson-text").get_by_role("link", name="lesson 24")
        expect(link).to_have_attribute("href", "#/24-mcp")
        assert link.get_attribute("target") is None  # stays in the page
        link.click()
        expect(page.locator("body")).to_have_attribute("data-lesson", "24-mcp")
        expect(page.get_by_role("heading", level=1)).to_contain_text("24")
    finally:
        context.close()
