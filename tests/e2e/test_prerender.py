"""The lesson the build writes into index.html (scripts/prerender.mjs): its prose is on screen before
any script runs, and the app takes those blocks as they are (page/lesson/lessonview.js) instead of
rendering them again; they read exactly as the app's own render of the same cells. The first frame
waits for none of the files the app needs afterwards (boot.js preloads them once it is drawn)."""

from __future__ import annotations

from learner import open_lesson, wait_ready

# Before any of the page's scripts: each prerendered prose block is tagged, so it can be told later
# whether the block on screen is that node or one the app made.
TAG = """document.addEventListener('DOMContentLoaded', () => {
  window.__built = document.querySelectorAll('.prerendered > .prose').length;
  for (const block of document.querySelectorAll('.prerendered > .prose')) block.__fromBuild = true;
});"""

PROSE = """() => [...document.querySelectorAll('[data-testid=lesson-text] > .prose')].map((block) => ({
  html: block.outerHTML, fromBuild: Boolean(block.__fromBuild) }))"""


def test_the_app_keeps_the_prerendered_prose_and_it_reads_as_its_own_render(page, site_url):
    page.add_init_script(TAG)
    page.goto(site_url)
    slug = page.evaluate("document.documentElement.dataset.prerendered")
    assert slug, "index.html names no prerendered lesson"
    wait_ready(page, slug)
    built = page.evaluate("window.__built")
    kept = page.evaluate(PROSE)
    assert built > 1, built  # the build wrote several prose blocks
    assert [b["fromBuild"] for b in kept[:built]] == [True] * built  # the app took them, as they were
    assert not [b for b in kept[built:] if b["fromBuild"]]
    assert page.evaluate("document.querySelector('.prerendered')") is None
    assert not [b for b in kept if "data-cell" in b["html"]]

    other = page.evaluate(
        "[...document.querySelectorAll('[data-testid=lesson-list] a')].map((a) => a.hash)"
        ".find((hash) => !hash.endsWith('/' + document.documentElement.dataset.prerendered))"
    )
    page.goto(f"{site_url}{other}")
    wait_ready(page, other.removeprefix("#/"))
    open_lesson(page, site_url, slug)  # drawn by the app this time
    drawn = page.evaluate(PROSE)
    assert not [b for b in drawn if b["fromBuild"]]
    assert [b["html"] for b in drawn] == [b["html"] for b in kept]  # the same text, node for node


# The first frame's moment (the page's own clock), from a callback asked for before any page script.
FIRST_FRAME = "window.__firstFrame = null; requestAnimationFrame(() => { window.__firstFrame = performance.now(); });"

ASKED = """() => performance.getEntriesByType('resource').map((r) => ({
  path: new URL(r.name).pathname.replace(/^\\//, ''), start: r.startTime }))"""


def test_the_first_frame_waits_for_no_lesson_file_and_no_renderer(page, site_url):
    page.add_init_script(FIRST_FRAME)
    page.goto(site_url)
    slug = page.evaluate("document.documentElement.dataset.prerendered")
    wait_ready(page, slug)
    first = page.evaluate("window.__firstFrame")
    asked = page.evaluate(ASKED)
    later = [
        r
        for r in asked
        if r["path"] in ("lessons/index.json", f"lessons/{slug}.json") or r["path"].startswith("chunks/markdown-it-")
    ]
    assert first is not None
    # the lesson list, the lesson and its renderer: asked for after the first frame, not while parsing
    renderer = [r["path"] for r in later if r["path"].startswith("chunks/")]
    assert len(later) == 3 and len(renderer) == 1, later
    assert [r for r in later if r["start"] < first] == [], (first, later)
    # and each once: the preloads are what the app then uses
    every = [r["path"] for r in asked]
    assert not [path for path in set(every) if every.count(path) > 1], every
