"""axe-core in every engine: no WCAG 2.0/2.1 A or AA violation on the home page, nor on a lesson after
a run (its checklist, output and trace drawn). tests/e2e/test_a11y.py audits every other state in
Chromium; what an engine draws differently (its form controls, its focus, its fonts) shows here."""

from __future__ import annotations

from anyengine import FIXTURE, audit, run, said, show_lesson, wait_ready

HOME = "01-agent-or-workflow"


def test_axe_finds_nothing_on_the_home_page_nor_on_a_lesson_after_a_run(tab, site_url):
    tab.goto(site_url)
    wait_ready(tab, HOME)
    home = audit(tab)
    assert home == [], f"{tab.engine}, the home page:\n{said(home)}"

    show_lesson(tab, FIXTURE)
    results = run(tab)
    assert results and all(ok for ok, _, _ in results), results
    after = audit(tab)
    assert after == [], f"{tab.engine}, {FIXTURE} after a run:\n{said(after)}"
