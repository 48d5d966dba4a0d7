"""The run inspector with a 200-step run, in headless Chromium: how long it takes to draw, and to move a step.

Prints figures; asserts nothing. Run: `make bench`, or `python bench/inspector.py [--rounds 7] [--dir web/dist]`
after `make build`.

The run is made by looplab in CPython: 199 tool calls and a final answer, with a memory window of
the last 40 messages (so each step's context is 41 messages and the window leaves older ones out).
It is opened with the inspector's Import run, as a learner would, `--rounds` times; then the
inspector moves through all 200 steps, step by step. Figures (medians):

  load    reading the run file into steps and drawing the run (the page's own measure, script time)
  draw    drawing the run shown (runs list, step, controls; script time)
  step    moving one step (script time: the step's panel rebuilt)
  step+layout   one click on ▶ until the browser has laid out the new step (style and layout included)

Targets of issue 10: draw a 200-step run in ≤ 100 ms, move one step in ≤ 16 ms.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
from pathlib import Path

from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "e2e"))
sys.path.insert(0, str(ROOT / "py"))
from browser import CHROMIUM, CHROMIUM_ARGS, SiteServer, wait_until
from looplab import Collector, Memory, Toolbox, call, final, run_agent, scripted

STEPS = 200
LESSON = "01-agent-or-workflow"


def long_run() -> dict:
    """A 200-step run's file, as the inspector's Export run writes it."""
    box = Toolbox()
    box.register(
        "add",
        "Add two numbers.",
        {"type": "object", "properties": {"a": {"type": "number"}, "b": {"type": "number"}}},
        lambda a, b: a + b,
    )
    replies = [call("add", a=i, b=i + 1, id=f"c{i}") for i in range(STEPS - 1)] + [final("Done adding.")]
    events = Collector()
    result = run_agent(
        "Add the numbers, one pair at a time.",
        scripted(replies),
        box,
        Memory("You add.", keep_last=40),
        max_steps=STEPS,
        tracer=events,
    )
    assert result["steps"] == STEPS and result["stopped"] == "final", result
    return {
        "format": "looplab-run",
        "version": 1,
        "lesson": LESSON,
        "run": events.events[0]["run"],
        "runs": [],
        "events": events.events,
    }


def median(values: list[float]) -> str:
    return f"{statistics.median(values):7.2f} ms (min {min(values):.2f}, max {max(values):.2f}, n={len(values)})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--dir", default=str(ROOT / "web" / "dist"))
    args = parser.parse_args()
    document = long_run()
    text = json.dumps(document)
    server = SiteServer(Path(args.dir))
    loads, draws, steps, laid_out = [], [], [], []
    try:
        with sync_playwright() as p, tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "run.json"
            path.write_text(text, encoding="utf-8")
            browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            page.goto(f"{server.url}#/{LESSON}")
            wait_until(page, "() => document.body.dataset.lesson", 60_000)
            page.get_by_role("tab", name="Trace").click()
            for _ in range(args.rounds):
                page.evaluate("() => performance.clearMeasures()")
                with page.expect_file_chooser() as chooser:
                    page.get_by_test_id("import-run").click()
                chooser.value.set_files(str(path))
                wait_until(page, "() => performance.getEntriesByName('looplab:inspector-load').length", 30_000)
                loads.append(page.evaluate("() => performance.getEntriesByName('looplab:inspector-load')[0].duration"))
                draws.append(
                    page.evaluate(
                        "() => Math.max(...performance.getEntriesByName('looplab:inspector-render').map(e => e.duration))"
                    )
                )
            assert page.get_by_test_id("trace-step").inner_text() == f"step 1 of {STEPS}"
            page.evaluate("() => performance.clearMeasures()")
            laid_out = page.evaluate(
                """(count) => {
                const next = document.querySelector('[data-testid=trace-next]');
                const out = [];
                for (let i = 0; i < count; i++) {
                  const t0 = performance.now();
                  next.click();
                  document.querySelector('[data-role=inspector]').getBoundingClientRect(); // style and layout, now
                  out.push(performance.now() - t0);
                }
                return out;
            }""",
                STEPS - 1,
            )
            steps = page.evaluate("() => performance.getEntriesByName('looplab:inspector-step').map(e => e.duration)")
            assert page.get_by_test_id("trace-step").inner_text() == f"step {STEPS} of {STEPS}"
            browser.close()
    finally:
        server.stop()
    print(
        f"inspector, a {STEPS}-step run ({len(document['events'])} events, {len(text) / 1e6:.1f} MB of JSON), "
        f"Chromium headless, {args.rounds} imports:"
    )
    print(f"  load (file -> steps -> drawn) {median(loads)}")
    print(f"  draw the run                  {median(draws)}   target <= 100 ms")
    print(f"  move one step                 {median(steps)}   target <= 16 ms")
    print(f"  move one step, with layout    {median(laid_out)}")


if __name__ == "__main__":
    main()
