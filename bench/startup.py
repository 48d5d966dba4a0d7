"""Start-up of the site in headless Chromium, against a bare Pyodide page served from the same folder.

Prints figures; asserts nothing. Run: `make bench`, or `python bench/startup.py [--runs 5] [--dir web/dist]`
after `make build`.

For each run, alternating the two pages, each in a fresh browser profile:
  cold   first visit: navigation -> Run enabled (Loop Lab) / -> one line of Python ran (bare page)
  warm   second visit in the same profile (Loop Lab: from its service worker's cache; bare page:
         from the HTTP cache, Pyodide's files being immutable)
Loop Lab only: time to first prose on screen, the longest main-thread task while loading
(PerformanceObserver "longtask"), bytes transferred before the first run, and click Run -> checks
shown for a scripted lesson.

The bare page (web/bench/bare.html) is the smallest page that loads the same Pyodide files and
runs one line; the ratio Loop Lab / bare is what the site's own work costs on top of Pyodide.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from pathlib import Path

from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "e2e"))
from browser import CHROMIUM, CHROMIUM_ARGS, SiteServer  # noqa: E402

LESSON = "01-agent-or-workflow"  # a scripted lesson whose Run ends with its checks

LONG_TASKS = """
window.__longest = 0;
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) window.__longest = Math.max(window.__longest, entry.duration);
}).observe({ type: "longtask", buffered: true });
"""


def visit_looplab(context, url: str, lesson: str, measure_run: bool) -> dict:
    page = context.new_page()
    responses = []
    page.on("requestfinished", lambda request: responses.append(request))
    page.goto(f"{url}#/{lesson}")
    page.wait_for_function("() => document.querySelector('[data-testid=run]').getAttribute('aria-disabled') === 'false'",
                           timeout=120_000)
    figures = page.evaluate("""() => ({
        ready: Number(document.querySelector('[data-testid=status]').dataset.readyAt),
        prose: (performance.getEntriesByName('looplab:prose')[0] || {}).startTime,
        longest: window.__longest })""")
    sizes = [r.sizes() for r in list(responses)]
    figures["bytes"] = sum(s["responseBodySize"] + s["responseHeadersSize"] for s in sizes)
    if measure_run:
        page.get_by_test_id("run").click()
        page.wait_for_function("() => document.querySelector('[data-testid=status]').dataset.runEnded !== undefined",
                               timeout=60_000)
        figures["run"] = page.evaluate("""() => { const s = document.querySelector('[data-testid=status]').dataset;
            return Number(s.runEnded) - Number(s.runStarted); }""")
        # the service worker takes over once Python is ready: wait, so the second visit uses it
        page.wait_for_function("() => !!navigator.serviceWorker.controller", timeout=60_000)
        page.wait_for_function("async () => (await caches.keys()).length > 0 && !!(await navigator.serviceWorker.ready).active",
                               timeout=60_000)
    page.close()
    return figures


def visit_bare(context, url: str) -> dict:
    page = context.new_page()
    page.goto(f"{url}bench/bare.html")
    page.wait_for_function("() => document.getElementById('state').dataset.ready", timeout=120_000)
    ready = float(page.evaluate("() => document.getElementById('state').dataset.ready"))
    page.close()
    return {"ready": ready}


def median(values: list[float]) -> float:
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else float("nan")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--dir", type=Path, default=ROOT / "web" / "dist")
    parser.add_argument("--lesson", default=LESSON)
    args = parser.parse_args(argv)
    if not (args.dir / "bench" / "bare.html").exists():
        print(f"startup: {args.dir} is not built; run `make build`", file=sys.stderr)
        return 1
    lesson = args.lesson
    if not (args.dir / "lessons" / f"{lesson}.json").exists():
        found = sorted((args.dir / "lessons").glob("*.json"))
        lesson = next((p.stem for p in found if p.stem != "index"), lesson)

    server = SiteServer(args.dir)
    url = server.url
    rows = {"looplab": {"cold": [], "warm": []}, "bare": {"cold": [], "warm": []}}
    extra = {"prose": [], "longest": [], "bytes": [], "run": [], "warm_prose": []}
    try:
        with sync_playwright() as p, tempfile.TemporaryDirectory() as tmp:
            for i in range(args.runs):
                for name in ("looplab", "bare"):  # alternate, so drift hits both alike
                    context = p.chromium.launch_persistent_context(
                        f"{tmp}/{name}-{i}", executable_path=CHROMIUM, args=CHROMIUM_ARGS,
                        viewport={"width": 1280, "height": 800})
                    context.add_init_script(LONG_TASKS)
                    try:
                        if name == "looplab":
                            cold = visit_looplab(context, url, lesson, measure_run=True)
                            warm = visit_looplab(context, url, lesson, measure_run=False)
                            for key in ("prose", "longest", "bytes", "run"):
                                extra[key].append(cold.get(key))
                            extra["warm_prose"].append(warm.get("prose"))
                        else:
                            cold, warm = visit_bare(context, url), visit_bare(context, url)
                        rows[name]["cold"].append(cold["ready"])
                        rows[name]["warm"].append(warm["ready"])
                    finally:
                        context.close()
                print(f"  run {i + 1}/{args.runs}: Loop Lab cold {rows['looplab']['cold'][-1]:.0f} ms, "
                      f"warm {rows['looplab']['warm'][-1]:.0f} ms; bare cold {rows['bare']['cold'][-1]:.0f} ms, "
                      f"warm {rows['bare']['warm'][-1]:.0f} ms", flush=True)
    finally:
        server.stop()

    print(f"\nstartup: medians of {args.runs} runs, headless Chromium, served by scripts/serve.py on 127.0.0.1 "
          f"(lesson {lesson})")
    print(f"  {'':34} {'Loop Lab':>10} {'bare page':>10} {'ratio':>7}")
    for visit in ("cold", "warm"):
        mine, bare = median(rows["looplab"][visit]), median(rows["bare"][visit])
        print(f"  {'navigation -> ready, ' + visit + ' (ms)':34} {mine:10.0f} {bare:10.0f} {mine / bare:7.2f}")
    print(f"  {'first prose on screen, cold (ms)':34} {median(extra['prose']):10.0f}")
    print(f"  {'first prose on screen, warm (ms)':34} {median(extra['warm_prose']):10.0f}")
    print(f"  {'longest main-thread task, cold (ms)':34} {median(extra['longest']):10.0f}")
    print(f"  {'bytes before the first run, cold':34} {median(extra['bytes']) / 1e6:8.2f} MB")
    print(f"  {'click Run -> checks shown (ms)':34} {median(extra['run']):10.0f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
