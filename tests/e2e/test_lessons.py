"""Every lesson in lessons/ through the page: open it, put in the solutions, Run, every check ✓."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
from playwright.sync_api import expect

from conftest import guard
from learner import checks, put_solutions, wait_ready, wait_until

from looplab._course.lesson import check_statements, parse

FOLDER = Path(__file__).resolve().parents[2] / "lessons"
LESSONS = sorted(p.stem for p in FOLDER.glob("*.py") if re.match(r"^\d+[a-z]?-[a-z0-9-]+$", p.stem))


def compared(slug: str) -> list[str]:
    """The names of the lesson's checks that compare the learner's part with the reference."""
    cells = parse((FOLDER / f"{slug}.py").read_text(encoding="utf-8"))
    return [
        name
        for cell in cells
        if cell.role == "check"
        for name, stmt in check_statements(cell)
        if name and "compare(" in ast.get_source_segment(cell.source, stmt)
    ]


@pytest.fixture(scope="module")
def lesson_page(browser, site_url):
    """One page for all lessons: moving between lessons keeps Python loaded, as for a learner."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    guard(context)
    page = context.new_page()
    page.on("dialog", lambda dialog: dialog.accept())
    page.goto(site_url)
    yield page
    context.close()


@pytest.mark.skipif(not LESSONS, reason="lessons/ has no lessons yet")
@pytest.mark.parametrize("slug", LESSONS or ["none"])
def test_every_check_of_the_lesson_passes_in_the_page(lesson_page, site_url, slug):
    page = lesson_page
    page.goto(f"{site_url}#/{slug}")
    wait_ready(page, slug)
    put_solutions(page)
    results = run_approving(page)
    assert results, f"{slug}: no checks were shown"
    failed = [(name, message) for ok, name, message in results if not ok]
    assert not failed, f"{slug}: {failed}\n{page.get_by_test_id('output').inner_text()[-2000:]}"
    shown = [name for _, name, _ in results]
    assert all(name in shown for name in compared(slug)), f"{slug}: not shown: {set(compared(slug)) - set(shown)}"
    # a lesson that imports the openai SDK gets it from the site (lesson 14 would skip that part)
    assert "is not installed here" not in page.get_by_test_id("output").inner_text()
    expect(page.locator(f'[data-testid=lesson-list] li[data-slug="{slug}"]')).to_have_attribute("data-state", "passed")
    page.get_by_test_id("reset").click()


def run_approving(page, approvals: int = 5) -> list[tuple[bool, str, str]]:
    """Run, and approve whatever a lesson asks a person (lesson 10's ask_person pauses the run)."""
    page.get_by_test_id("run").click()
    ended = "document.querySelector('[data-testid=status]').dataset.runEnded !== undefined"
    asking = "document.querySelector('[data-testid=approval]').open"
    for _ in range(approvals + 1):
        wait_until(page, f"() => {ended} || {asking}", 60_000)
        if not page.evaluate(f"() => {asking}"):
            break
        page.get_by_test_id("approve").click()
        expect(page.get_by_test_id("approval")).to_be_hidden()
    wait_until(page, f"() => {ended}", 60_000)
    return checks(page)


def test_the_lesson_list_groups_the_lessons_under_their_chapters(lesson_page, site_url):
    page = lesson_page
    page.goto(f"{site_url}#/{LESSONS[0]}")
    wait_ready(page, LESSONS[0])
    one = page.get_by_role("list", name="Chapter 1 · An agent from scratch")
    two = page.get_by_role("list", name="Chapter 2 · Making it hold up")
    expect(page.get_by_role("heading", name="Chapter 1 · An agent from scratch")).to_be_visible()
    expect(one.locator('li[data-slug="04-the-loop"]')).to_have_count(1)
    expect(one.locator('li[data-slug="17-evaluate-your-agent"]')).to_have_count(0)
    expect(two.locator('li[data-slug="17-evaluate-your-agent"]')).to_have_count(1)
    chapter_one = [s for s in LESSONS if s[:2].isdigit() and int(s[:2]) <= 16]
    expect(one.locator("li[data-slug]")).to_have_count(len(chapter_one))
    # the e2e fixtures (90+) belong to no chapter: listed after the chapters, outside them
    fixtures = page.locator('[data-testid=lesson-list] > li[data-slug^="9"]')
    assert fixtures.count() >= 1 and page.locator(".chapter li[data-slug^='9']").count() == 0
