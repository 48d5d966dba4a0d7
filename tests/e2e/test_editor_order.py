"""Editors are made on screen first, then the rest without scrolling (page/lesson/lazyeditor.js, issue 23):
each code cell's plain text becomes a CodeMirror editor, the cells near the screen before any
further down, and an editor made late edits as one made first does. While Python starts with the
page the editors wait for it (holdEditors), except a cell the learner focuses, and never past
HOLD_MAX."""

from __future__ import annotations

import json

from learner import cell, open_lesson, set_code
from playwright.sync_api import expect

LESSON = "04-the-loop"  # 11 editable cells, most of them below the first screen

# Each editor as it is put in the page: its cell and how far down the page that cell is then.
RECORD = """
window.__made = [];
new MutationObserver((changes) => {
  for (const change of changes) for (const node of change.addedNodes) {
    if (!(node instanceof Element) || !node.classList.contains("cm-editor")) continue;
    const box = node.closest("[data-testid=editor]");
    if (box) window.__made.push({ cell: Number(box.dataset.cell), top: box.getBoundingClientRect().top, screen: innerHeight, at: performance.now() });
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


HOLD_MAX = 2000  # ms: lazyeditor.js

MARKS = """() => {
  const at = (name) => (performance.getEntriesByName(name)[0] || {}).startTime ?? null;
  return { app: at('looplab:app'), ready: at('looplab:ready'), made: window.__made.map((m) => m.at) };
}"""


def snapshot_late(context, page, site_dir, ms: int) -> None:
    """Python's start waits `ms` for the site's snapshot (the worker's request on a first visit)."""
    name = json.loads((site_dir / "build.json").read_text())["snapshot"]["file"]

    def late(route):  # waited without blocking Playwright's dispatcher (test_early.py)
        page.wait_for_timeout(ms)
        route.continue_()

    context.route(f"**/{name}", late)


def test_editors_wait_until_python_is_ready(context, site_url):
    context.add_init_script(RECORD)
    page = context.new_page()
    open_lesson(page, site_url, LESSON)
    expect(page.locator("[data-testid=editor] .code-placeholder")).to_have_count(0, timeout=20_000)
    marks = page.evaluate(MARKS)
    assert marks["ready"] is not None and marks["made"], marks
    # CodeMirror's loading and the editors' making left the two cores to Python's start: the
    # first editor came once Python was ready (or, on a machine too slow for that, at HOLD_MAX)
    first = min(marks["made"])
    assert first >= min(marks["ready"], marks["app"] + HOLD_MAX - 50), marks


def test_a_cell_focused_while_python_starts_is_an_editor_at_once(context, site_url, site_dir):
    context.add_init_script(RECORD)
    page = context.new_page()
    snapshot_late(context, page, site_dir, 6000)
    page.goto(f"{site_url}#/{LESSON}")
    placeholder = page.locator("[data-testid=editor] .code-placeholder").first
    expect(placeholder).to_be_visible()
    placeholder.click()
    # the learner's cell is an editor with the focus, though Python is still starting
    expect(page.locator("[data-testid=editor] .cm-editor.cm-focused")).to_have_count(1, timeout=1500)
    marks = page.evaluate(MARKS)
    assert marks["ready"] is None and marks["app"] + HOLD_MAX > min(marks["made"]), marks
    expect(page.get_by_test_id("run")).to_have_attribute("aria-disabled", "true")
    context.unroute_all(behavior="ignoreErrors")  # the snapshot's request still waits


def test_editors_wait_no_longer_than_hold_max(context, site_url, site_dir):
    context.add_init_script(RECORD)
    page = context.new_page()
    snapshot_late(context, page, site_dir, 6000)
    page.goto(f"{site_url}#/{LESSON}")
    expect(page.locator("[data-testid=editor] .cm-content").first).to_be_visible(timeout=5000)
    marks = page.evaluate(MARKS)
    assert marks["ready"] is None, marks  # Python is still starting
    assert min(marks["made"]) >= marks["app"] + HOLD_MAX - 50, marks  # the editors waited HOLD_MAX
    context.unroute_all(behavior="ignoreErrors")  # the snapshot's request still waits


# CodeMirror's chunks (boot.js adds their preloads, marked data-later, after the first frame)
EDITOR_CHUNKS = """() => ({
  linked: [...document.querySelectorAll('link[rel=modulepreload][data-later]')].map((l) => l.href),
  fetched: performance.getEntriesByType('resource').map((r) => ({ name: r.name, start: r.startTime })),
  ready: (performance.getEntriesByName('looplab:ready')[0] || {}).startTime ?? null })"""


def test_codemirror_is_preloaded_on_a_first_visit_and_waits_for_python_on_the_next(fresh_profile, site_url):
    page = fresh_profile.new_page()
    open_lesson(page, site_url, LESSON)
    first = page.evaluate(EDITOR_CHUNKS)
    assert len(first["linked"]) >= 8, first  # from the network: preloaded
    assert any(name.endswith(".js") and "/chunks/editor-" in name for name in first["linked"]), first
    page.evaluate("navigator.serviceWorker.ready.then(() => true)")
    page.close()
    page = fresh_profile.new_page()
    open_lesson(page, site_url, LESSON)
    assert page.evaluate("Boolean(navigator.serviceWorker.controller)")
    expect(page.locator("[data-testid=editor] .code-placeholder")).to_have_count(0, timeout=20_000)
    warm = page.evaluate(EDITOR_CHUNKS)
    assert warm["linked"] == [], warm  # from the origin's cache: not preloaded
    editor = [f for f in warm["fetched"] if f["name"] in set(first["linked"])]
    assert len(editor) == len(first["linked"]), (editor, first["linked"])  # each asked for once, when needed
    assert warm["ready"] is not None and all(f["start"] >= warm["ready"] for f in editor), warm  # after Python
