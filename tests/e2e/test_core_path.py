"""The core path in the page (issue 43): the lesson list and the course map mark each core lesson
(★ and the word "core", not colour alone) and give every lesson its time estimate; an optional
lesson says which core lesson it deepens and what it adds; both show the core path's total. The
figures are the site's lessons/index.json, which scripts/build_site.py computed from the lesson
files (looplab/_course/estimate.py, corepath.py). One page load: the map is reached by its link."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from playwright.sync_api import expect

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "py"))

from looplab._course.estimate import say  # noqa: E402


def shown(page, selector: str, inner: str) -> dict[str, list[str]]:
    """Each lesson's row (by slug): [its data-path, the text of `inner` inside it]."""
    return page.eval_on_selector_all(
        selector,
        f"""rows => Object.fromEntries(rows.map(row => [row.dataset.slug, [
            (row.querySelector('[data-path]') || row).dataset.path || '',
            row.querySelector('{inner}') ? row.querySelector('{inner}').innerText : row.innerText]]))""",
    )


def test_the_list_and_the_map_show_the_core_path_its_total_and_what_each_deepening_adds(page, site_url, site_dir):
    index = json.loads((Path(site_dir) / "lessons" / "index.json").read_text(encoding="utf-8"))
    course = [m for m in index["lessons"] if m["path"]]  # the course's lessons (the fixtures have no place)
    core = [m for m in course if m["path"]["core"]]
    estimate = index["estimate"]
    assert len(core) == estimate["core_lessons"] and sum(m["minutes"] for m in core) == estimate["core"] <= 12 * 60
    total = (
        f"Core path: {len(core)} lessons, about {say(estimate['core'])} · every lesson: about {say(estimate['course'])}"
    )

    page.goto(site_url)
    listing = page.get_by_test_id("lesson-list")
    expect(listing.locator("[data-role=path-summary]")).to_have_text(f"★ {total}")
    expect(listing.locator("[data-role=lesson-about][data-path=core]")).to_have_count(len(core))
    expect(listing.locator("[data-role=lesson-about][data-path=deepening]")).to_have_count(len(course) - len(core))
    rows = shown(page, "[data-testid=lesson-list] li[data-slug]", "[data-role=lesson-about]")
    for meta in course:
        path, about = rows[meta["slug"]]
        if meta["path"]["core"]:
            assert (path, about) == ("core", f"★ core · {say(meta['minutes'])}"), meta["slug"]
        else:
            place = f"deepens {meta['path']['deepens']} · {say(meta['minutes'])}"
            assert (path, about.split("\n")) == ("deepening", [place, f"adds {meta['path']['adds']}"]), meta["slug"]

    page.get_by_role("link", name="Course map").click()
    expect(page.get_by_test_id("course-map")).to_be_visible()
    summary = page.locator("[data-role=map-path]")
    expect(summary).to_contain_text(total)
    expect(summary).to_contain_text(f"How the time is estimated: {estimate['rule']}.")
    items = shown(page, "[data-testid=lesson-state]", ".muted")
    for meta in course:
        path, said = items[meta["slug"]]
        assert path == ("core" if meta["path"]["core"] else "deepening") and said.endswith(
            f"· about {say(meta['minutes'])}"
        ), (meta["slug"], said)
    row = page.locator(f"[data-testid=lesson-state][data-slug='{core[0]['slug']}']")
    expect(row.locator(".map-core")).to_have_text("★ core")
    expect(row.locator(".map-why")).to_have_text(core[0]["path"]["why"])
    optional = next(m for m in course if not m["path"]["core"])
    row = page.locator(f"[data-testid=lesson-state][data-slug='{optional['slug']}']")
    expect(row.locator(".map-deepens")).to_have_text(f"deepens {optional['path']['deepens']}")
    expect(row.locator(".map-adds")).to_have_text(f"adds {optional['path']['adds']}")
    expect(page.locator("[data-testid=course-map] .map-core")).to_have_count(len(core))
    expect(page.locator("[data-testid=course-map] .map-adds")).to_have_count(len(course) - len(core))
