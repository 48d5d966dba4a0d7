"""Replaying a whole-course "built it" record: in the page (Check a record, headless Chromium) and in
CPython (`looplab verify`). Prints figures; asserts nothing.

Run: `make bench-record`, or `python bench/record_replay.py [--dir web/dist]` after `make build`.

The record holds every lesson of the course, each exercise solved the way a learner might (the
reference's code plus a line of their own), with the results of its checks, made by looplab in
CPython. The page's figure runs from choosing the file to the last lesson's verdict drawn: it
includes starting the Python the record runs in (a worker that never holds a key).
Target of issue 42: at most 60 s in the page on this machine.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "e2e"))
sys.path.insert(0, str(ROOT / "py"))
from browser import CHROMIUM, CHROMIUM_ARGS, SiteServer, wait_until
from looplab._course import course, mine, record
from looplab._course.lessonfile import solution_index

LESSONS = ROOT / "lessons"


def course_record() -> dict:
    """Every lesson solved, with its checks' results."""
    entries = []
    for path in course.lesson_files(LESSONS):
        text = path.read_text(encoding="utf-8")
        cells = record.shown_cells(text)
        code = {i: cells[solution_index(cells, i)].source + "\nsolved_by_me = True\n" for i in mine.exercises(cells)}
        entries.append(record.make_entry(path.stem, text, code))
    return record.make_record("Bench Learner", entries)


def text_of(slug: str) -> str | None:
    path = LESSONS / f"{slug}.py"
    return path.read_text(encoding="utf-8") if path.is_file() else None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dir", default=str(ROOT / "web" / "dist"))
    args = parser.parse_args()
    data = course_record()
    count = len(data["lessons"])
    started = time.perf_counter()
    verdicts = record.verify(data, text_of)
    cpython = time.perf_counter() - started
    held = sum(v.verdict == record.HOLDS for v in verdicts)

    server = SiteServer(Path(args.dir))
    try:
        with sync_playwright() as p, tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "record.json"
            path.write_text(json.dumps(data), encoding="utf-8")
            browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            page.goto(f"{server.url}#records")
            wait_until(page, "() => document.querySelector('[data-testid=record-check]')", 60_000)
            t0 = page.evaluate("() => performance.now()")
            page.get_by_test_id("record-check").set_input_files(str(path))
            wait_until(
                page,
                f"() => document.querySelectorAll('[data-testid=record-verdict]').length === {count}",
                600_000,
            )
            seconds = (page.evaluate("() => performance.now()") - t0) / 1000
            verdicts_shown = page.eval_on_selector_all(
                "[data-testid=record-verdict]", "items => items.map(li => [li.dataset.verdict, li.innerText])"
            )
            shown = sum(verdict == "holds" for verdict, _ in verdicts_shown)
            browser.close()
    finally:
        server.stop()
    print(f"replaying a whole-course record ({count} lessons), scripted model:")
    print(
        f"  in the page (Chromium headless, a fresh keyless Python)  {seconds:6.1f} s   {shown} of {count} hold   target <= 60 s"
    )
    for verdict, said in verdicts_shown:
        if verdict != "holds":
            print(f"    in the page, {verdict}: {said.splitlines()[0]} · {' '.join(said.splitlines()[1:3])[:300]}")
    print(f"  in CPython (looplab verify)                              {cpython:6.1f} s   {held} of {count} hold")
    for v in verdicts:
        if v.verdict != record.HOLDS:
            print(f"    in CPython, {v.verdict}: {v.slug} · {v.detail[:300]}")


if __name__ == "__main__":
    main()
