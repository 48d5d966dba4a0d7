"""Editors are made on screen first, then the rest without scrolling (page/lazyeditor.js, issue 23):
each code cell's plain text becomes a CodeMirror editor, the cells near the screen before any
further down, and an editor made late edits as one made first does."""

from __future__ import annotations

from learner import cell, set_code
from playwright.sync_api import expect

LESSON = "04-the-loop"  # 11 editable cells, most of them below the first screen

# Each editor as it is put in the page: its cell and how far down the page that cell is then.
RECORD = """
window.__made = [];
new MutationObserver((changes) => {
  for (const change of changes) for (const node of change.addedNodes) {
    if (!(node instanceof Element) || !node.classList.contains("cm-editor")) continue;
    const box = node.closest("[data-testid=editor]");
    if (box) window.__made.push({ cell: Number(box.dataset.cell), top: box.getBoundingClientRect().top, screen: innerHeight });
  }
}).observe(document, { childList: true, subtree: true });
"""


def test_editors_on_screen_come_first_and_the_rest_follow_without_scrolling(context, site_url):
    context.add_init_script(RECORD)
    page = context.new_page()
    page.set_viewport_size({"width": 1280, "height": 800})
    page.goto(f"{site_url}#/{LESSON}")
    cells = page.locator("[data-testid=editor]")
    expect(page.locator("body")).to_have_attribute("data-lesson", LESSON)
    total = cells.count()
    assert total >= 6, total
    # every editable cell becomes an editor, though the page was never scrolled
    expect(page.locator("[data-testid=editor] .cm-content")).to_have_count(total, timeout=20_000)
    expect(page.locator("[data-testid=editor] .code-placeholder")).to_have_count(0)
    assert page.evaluate("() => scrollY") == 0
    made = page.evaluate("() => window.__made")
    assert sorted(m["cell"] for m in made) == sorted(int(c.get_attribute("data-cell")) for c in cells.all()), made
    near = [m["top"] < m["screen"] + 200 for m in made]  # lazyeditor.js's rootMargin
    assert near[0] and not near[-1], made  # some on screen, some far below
    assert near == sorted(near, reverse=True), made  # all the near ones before any far one
    # the last one made is a working editor: typing changes the lesson's code
    last = max(made, key=lambda m: m["top"])["cell"]
    role = "exercise" if "cell-exercise" in page.locator(f"[data-cell='{last}']").get_attribute("class") else "code"
    nth = [int(c.get_attribute("data-cell")) for c in page.locator(f"[data-testid=editor].cell-{role}").all()].index(
        last
    )
    set_code(page, "print('made late')", role=role, nth=nth)
    expect(cell(page, role, nth).locator(".cm-content")).to_have_text("print('made late')")
    expect(page.locator("[data-role=modified]")).to_be_visible()
