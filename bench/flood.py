"""Long output in the page: the longest main-thread task while a run floods the Output console.

Prints figures; asserts nothing. Run: `make bench`, or `python bench/flood.py [--runs 3] [--dir web/dist]`
after `make build`.

Two floods, each run in the first code cell of a lesson in headless Chromium:
  lines   `for i in range(200_000): print(i)`   200,000 short lines (1.3 MB, the console keeps 200,000 characters)
  line    `print("x" * 5_000_000)`              one 5 MB line
For each: the longest main-thread task from Run until the output is drawn (a PerformanceObserver for
"longtask" entries, which reports only tasks over 50 ms: 0 means none), how many long tasks there
were, the longest gap between two frames (requestAnimationFrame: what the learner sees as a stall,
also under 50 ms), and the characters shown. On a busy machine a task's wall-clock time includes
the time other processes had the CPU, so the longest task is also given in the main thread's own
CPU time, from a Chrome trace of the run ("RunTask" events on CrRendererMain, their "tdur").
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
from pathlib import Path

from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "e2e"))
from browser import CHROMIUM, CHROMIUM_ARGS, SiteServer, wait_until

LESSON = "01-agent-or-workflow"
FLOODS = {
    "200,000 lines": "for i in range(200_000):\n    print(i)",
    "one 5 MB line": 'print("x" * 5_000_000)',
}

LONG_TASKS = """
window.__longtasks = [];
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) window.__longtasks.push(entry.duration);
}).observe({ type: "longtask", buffered: true });
window.__gap = 0;
let lastFrame = 0;
const tick = (now) => { if (lastFrame) window.__gap = Math.max(window.__gap, now - lastFrame); lastFrame = now; requestAnimationFrame(tick); };
requestAnimationFrame(tick);
"""

# Run ended and nothing left to draw: two frames after the run's end with the console's size unchanged.
DRAWN = """async () => {
  const frame = () => new Promise((r) => requestAnimationFrame(() => r()));
  const out = document.querySelector('[data-testid=output]');
  let size = -1;
  while (out.textContent.length !== size) { size = out.textContent.length; await frame(); await frame(); }
  return size;
}"""


def cpu_longest(trace: bytes) -> float:
    """The longest task on the page's main thread in CPU time (ms), from a Chrome trace."""
    data = json.loads(trace)
    events = data["traceEvents"] if isinstance(data, dict) else data
    main = {
        (e["pid"], e["tid"])
        for e in events
        if e.get("name") == "thread_name" and e.get("args", {}).get("name") == "CrRendererMain"
    }
    return max(
        (
            e.get("tdur", 0) / 1000
            for e in events
            if e.get("ph") == "X" and e.get("name") == "RunTask" and (e.get("pid"), e.get("tid")) in main
        ),
        default=0.0,
    )


def flood(browser, page, code: str) -> dict:
    content = page.locator('[data-testid="editor"].cell-code').first.locator(".cm-content")
    content.click()
    page.keyboard.press("ControlOrMeta+a")
    page.keyboard.press("Delete")
    page.keyboard.insert_text(code)
    page.evaluate("() => { window.__longtasks = []; window.__gap = 0; }")
    browser.start_tracing(page=page, categories=["toplevel", "disabled-by-default-devtools.timeline"])
    page.get_by_test_id("run").click()
    wait_until(page, "() => document.querySelector('[data-testid=status]').dataset.runEnded !== undefined", 300_000)
    shown = page.evaluate(DRAWN)
    cpu = cpu_longest(browser.stop_tracing())
    tasks, gap = page.evaluate("() => [window.__longtasks, window.__gap]")
    return {
        "longest": max(tasks, default=0.0),
        "count": len(tasks),
        "total": sum(tasks),
        "gap": gap,
        "cpu": cpu,
        "shown": shown,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--dir", default=str(ROOT / "web" / "dist"))
    args = parser.parse_args()
    if not (Path(args.dir) / "index.html").exists():
        sys.exit(f"{args.dir} has no site: run `make build` first")
    server = SiteServer(Path(args.dir))
    results: dict[str, list[dict]] = {name: [] for name in FLOODS}
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            context = browser.new_context(viewport={"width": 1280, "height": 800})
            context.add_init_script(LONG_TASKS)
            page = context.new_page()
            page.on("dialog", lambda dialog: dialog.accept())
            page.goto(f"{server.url}#/{LESSON}")
            # Run works: aria-disabled="false" (builds before it used the disabled attribute: not disabled)
            wait_until(
                page,
                """() => { const run = document.querySelector('[data-testid=run]');
                return run.getAttribute('aria-disabled') !== 'true' && !run.disabled; }""",
                120_000,
            )
            for _ in range(args.runs):
                for name, code in FLOODS.items():
                    results[name].append(flood(browser, page, code))
            browser.close()
    finally:
        server.stop()
    load = os.getloadavg()[0]
    print(
        f"Output flood in headless Chromium, {args.runs} runs each (median; longest task = the largest"
        f" 'longtask' entry, 0 = none over 50 ms; load average {load:.1f} on {os.cpu_count()} CPUs)"
    )
    for name, runs in results.items():
        longest = statistics.median(r["longest"] for r in runs)
        count = statistics.median(r["count"] for r in runs)
        total = statistics.median(r["total"] for r in runs)
        gap = statistics.median(r["gap"] for r in runs)
        cpu = statistics.median(r["cpu"] for r in runs)
        each = ", ".join(f"{r['longest']:.0f}" for r in runs)
        print(
            f"  {name:15s} longest main-thread task {longest:4.0f} ms (each run: {each}; {cpu:.0f} ms of CPU time)"
            f" · {count:.0f} long tasks, {total:.0f} ms in all · longest gap between frames {gap:.0f} ms"
            f" · {runs[0]['shown']:,} characters shown"
        )


if __name__ == "__main__":
    main()
