"""Start-up of the site in headless Chromium (or Firefox, WebKit: --browser), against a bare Pyodide
page served from the same folder.

Prints figures; asserts nothing. Run: `make bench`, or `python bench/startup.py [--runs 5] [--dir web/dist]`
after `make build`.

For each run, alternating the two pages, each in a fresh browser profile:
  cold   first visit: navigation -> Run enabled (Loop Lab) / -> one line of Python ran (bare page)
  warm   second visit in the same profile (Loop Lab: from its service worker's cache, once the first
         visit's idle work for the next is done, as a learner's next visit comes later: the inflated
         snapshot kept, Pyodide's code warmed; bare page: from the HTTP cache, Pyodide's files being
         immutable)
Loop Lab only: time to first prose on screen (and its distance from the bare page's first paint),
the longest main-thread task while loading (PerformanceObserver "longtask"; how many were over 50 ms,
and what ran in the longest: its frame's longest script, from Long Animation Frame entries, or style
and layout), bytes transferred before the first run, what was asked for twice, what a warm visit
still asked of the server (its request log: a 304 is a round trip too) and click Run -> checks
shown for a scripted lesson. Then, again alternating fresh profiles, on a
page that is not cross-origin isolated: Stop during a sleep -> ready again, with the spare worker
(page/start/workerpool.js, waited for) and without it (`?spare=off`; the kept Module and snapshot still used).

The bare page (web/bench/bare.html) is the smallest page that loads the same Pyodide files and
runs one line; the ratio Loop Lab / bare is what the site's own work costs on top of Pyodide.
Both pages are measured alike: the same init script and the same request listeners on every
visit (the listeners alone cost a page ~7 ms of its first paint here), and the bare page's bytes
come from its own cold visit.
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
from browser import CHROMIUM, CHROMIUM_ARGS, SiteServer, wait_until
from learner import KEPT_SNAPSHOTS, serve_without_isolation, set_code, wait_code_warmed
from pagevisits import Requests

import engine_startup

LESSON = "01-agent-or-workflow"  # a scripted lesson whose Run ends with its checks

LONG_TASKS = """
window.__longest = 0;
window.__long = [];  // [start, duration] of every task over 50 ms
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) {
    window.__longest = Math.max(window.__longest, entry.duration);
    window.__long.push([entry.startTime, entry.duration]);
  }
}).observe({ type: "longtask", buffered: true });
window.__frames = [];  // Long Animation Frames: which scripts ran in a slow frame (the longtask entry names none)
try {
  new PerformanceObserver((list) => { window.__frames.push(...list.getEntries().map((f) => ({ start: f.startTime, end: f.startTime + f.duration,
    layout: f.styleAndLayoutStart ? f.startTime + f.duration - f.styleAndLayoutStart : 0,
    scripts: f.scripts.map((s) => ({ what: s.invoker || s.invokerType, url: s.sourceURL, ms: s.duration })) }))); })
    .observe({ type: "long-animation-frame", buffered: true });
} catch { /* a browser without the API */ }
window.__prose = Infinity;  // the first paint of an element marked elementtiming="looplab-prose"
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) {
    if (entry.identifier === "looplab-prose" && entry.renderTime) window.__prose = Math.min(window.__prose, entry.renderTime);
  }
}).observe({ type: "element", buffered: true });
"""

# First prose on screen: the paint of the lesson's first prose element (Element Timing: the one the
# build writes into index.html, or the one lessonview.js draws), or, for builds without it, the
# looplab:prose mark main.js sets in the frame after drawing the lesson; whichever comes first.
PROSE = """() => Math.min(window.__prose,
    (performance.getEntriesByName('looplab:prose')[0] || {startTime: Infinity}).startTime)"""


# The longest task and what ran in it: the script that took longest in the slow frame around it
# (Long Animation Frame entries), or, when no script took most of it, the page's style and layout.
LONGEST_SOURCE = """() => {
  const [start, ms] = window.__long.reduce((a, b) => (b[1] > a[1] ? b : a), [0, 0]);
  if (!ms) return "";
  const frame = window.__frames.find((f) => f.start <= start + 1 && start + ms <= f.end + 1);
  const script = frame && frame.scripts.reduce((a, b) => (!a || b.ms > a.ms ? b : a), null);
  const where = script && script.ms >= ms / 2 ? `${script.what} (${script.url.split('/').pop() || 'the page'}, ${Math.round(script.ms)} ms)`
    : frame && frame.layout ? `style and layout (${Math.round(frame.layout)} ms of the frame)` : "no script";
  return `${Math.round(ms)} ms at ${Math.round(start)} ms: ${where}`;
}"""


def fetched_twice(requests) -> list[str]:
    """URLs the page or its worker asked the server for more than once (a 304 counts: a round trip)."""
    seen = {}
    for request in requests:
        seen[request.url] = seen.get(request.url, 0) + 1
    return sorted(url for url, n in seen.items() if n > 1)


def visit_looplab(context, url: str, lesson: str, measure_run: bool, query: str = "", server=None) -> dict:
    page = context.new_page()
    asked_before = len(server.requests()) if server else 0
    requests = Requests(page)
    page.goto(f"{url}{query}#/{lesson}")
    wait_until(
        page, "() => document.querySelector('[data-testid=run]').getAttribute('aria-disabled') === 'false'", 120_000
    )
    figures = page.evaluate("""() => ({
        ready: Number(document.querySelector('[data-testid=status]').dataset.readyAt),
        longest: window.__longest, long: window.__long.length })""")
    figures["longest_source"] = page.evaluate(LONGEST_SOURCE)
    figures["prose"] = page.evaluate(PROSE)
    # what reached the server before ready (a 304 is a round trip too): a warm visit should ask nothing
    figures["asked"] = [f"{path} {code}" for path, code in server.requests()[asked_before:]] if server else []
    figures["twice"] = fetched_twice(requests.settled())
    figures["bytes"] = requests.bytes()
    if measure_run:
        page.get_by_test_id("run").click()
        wait_until(page, "() => document.querySelector('[data-testid=status]').dataset.runEnded !== undefined", 60_000)
        figures["run"] = page.evaluate("""() => { const s = document.querySelector('[data-testid=status]').dataset;
            return Number(s.runEnded) - Number(s.runStarted); }""")
        # the service worker takes over once Python is ready: wait, so the second visit uses it
        wait_until(page, "() => !!navigator.serviceWorker.controller", 60_000)
        wait_until(
            page,
            "async () => (await caches.keys()).length > 0 && !!(await navigator.serviceWorker.ready).active",
            60_000,
        )
        try:  # the inflated snapshot the worker keeps for the next visit (worker/start/inflated.js)
            wait_until(page, f"({KEPT_SNAPSHOTS})().then((kept) => kept.length > 0)", 20_000)
        except Exception:  # noqa: BLE001 - a build that keeps none
            pass
        try:  # Pyodide's modules run once more for the next visit's code cache (page/start/codecache.js)
            wait_code_warmed(page)
        except Exception:  # noqa: BLE001 - a build without it
            pass
    page.close()
    return figures


def visit_bare(context, url: str) -> dict:
    page = context.new_page()
    requests = Requests(page)  # as on Loop Lab's visits: its listeners cost the page a little, so both pay them
    page.goto(f"{url}bench/bare.html")
    wait_until(page, "() => document.getElementById('state').dataset.ready", 120_000)
    ready = float(page.evaluate("() => document.getElementById('state').dataset.ready"))
    paint = page.evaluate("() => (performance.getEntriesByName('first-contentful-paint')[0] || {}).startTime")
    total = requests.bytes()
    page.close()
    return {"ready": ready, "paint": paint, "bytes": total}


# --- the memory snapshot's figures (issue 15): restart, start without it, bytes vs bare -----------

SLEEP = "import time\nprint('asleep')\ntime.sleep(60)"
RESTART_LESSON = "04-the-loop"  # its first exercise runs first: the sleep is reached at once


def status_of(page) -> dict:
    return page.evaluate("() => ({ ...document.querySelector('[data-testid=status]').dataset })")


def measure_restart(context, url: str, lesson: str, query: str, spare: bool) -> dict:
    """Cold ready, then Stop during a sleep (no isolation: a new worker) -> ready again, in ms; with
    `spare`, Stop waits until the spare worker is ready (page/start/workerpool.js; a build without one:
    up to 20 s, then Stop anyway)."""
    page = context.new_page()
    page.goto(f"{url}{query}#/{lesson}")
    enabled = "() => document.querySelector('[data-testid=run]').getAttribute('aria-disabled') === 'false'"
    wait_until(page, enabled, 120_000)
    first = status_of(page)
    if spare:
        try:
            wait_until(page, "() => performance.getEntriesByName('looplab:spare-ready').length > 0", 20_000)
        except Exception:  # noqa: BLE001 - a build without a spare
            pass
    set_code(page, SLEEP)
    page.get_by_test_id("run").click()
    wait_until(page, "() => document.querySelector('[data-testid=output]').innerText.includes('asleep')", 60_000)
    stopped = page.evaluate("() => { document.querySelector('[data-testid=stop]').click(); return performance.now(); }")
    wait_until(
        page, f"() => document.querySelector('[data-testid=status]').dataset.readyAt !== '{first['readyAt']}'", 120_000
    )
    again = status_of(page)
    page.close()
    return {
        "cold": float(first["readyAt"]),
        "restart": float(again["readyAt"]) - stopped,
        "from": first.get("startedFrom"),
        "restart_from": again.get("startedFrom"),
        "spare_used": again.get("spare") == "true",
    }


RESTARTS = (("spare", "", True), ("no spare", "?spare=off", False))


def restart_figures(p, url: str, runs: int, tmp: str) -> dict:
    """Worker restart (Stop on a page that is not isolated) with and without the spare worker;
    alternating fresh profiles. Returns {name: [rows]}."""
    rows = {name: [] for name, _, _ in RESTARTS}
    for i in range(runs):
        for name, query, spare in RESTARTS:
            # service workers blocked: sw.js would add COOP/COEP itself and isolate the page (a Stop
            # would then interrupt, not restart), as on a static host from the second load on
            context = p.chromium.launch_persistent_context(
                f"{tmp}/restart-{name}-{i}",
                executable_path=CHROMIUM,
                args=CHROMIUM_ARGS,
                viewport={"width": 1280, "height": 800},
                service_workers="block",
            )
            try:
                serve_without_isolation(context, url)
                rows[name].append(measure_restart(context, url, RESTART_LESSON, query, spare))
            finally:
                context.close()
        print(
            f"  restart run {i + 1}/{runs}: "
            + ", ".join(
                f"{name} {rows[name][-1]['restart']:.0f} ms (spare used: {rows[name][-1]['spare_used']})"
                for name, _, _ in RESTARTS
            ),
            flush=True,
        )
    return rows


def load_note() -> str:
    """The machine's load while the bench ran (it is shared: figures on a busy machine are slower)."""
    try:
        return "load average " + " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return "load average unknown"


def median(values: list[float]) -> float:
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else float("nan")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--dir", type=Path, default=ROOT / "web" / "dist")
    parser.add_argument("--lesson", default=LESSON)
    parser.add_argument(
        "--query",
        default="",
        help="added to Loop Lab's address, e.g. ?early=off (the worker started by the app, as before page/start/early.js) "
        "or ?compile=worker (a warm visit's wasm compiled by the worker, as before page/start/prestart.js compiled it)",
    )
    parser.add_argument(
        "--only-restart", action="store_true", help="only the restart's figures (with and without the spare)"
    )
    parser.add_argument(
        "--browser",
        choices=("chromium", "firefox", "webkit"),
        default="chromium",
        help="the engine: Chromium (every figure below), or Firefox ESR / WebKitGTK (cold, warm and "
        "Stop -> ready against the bare page in the same engine: bench/engine_startup.py)",
    )
    args = parser.parse_args(argv)
    if not (args.dir / "bench" / "bare.html").exists():
        print(f"startup: {args.dir} is not built; run `make build`", file=sys.stderr)
        return 1
    lesson = args.lesson
    if not (args.dir / "lessons" / f"{lesson}.json").exists():
        found = sorted((args.dir / "lessons").glob("*.json"))
        lesson = next((p.stem for p in found if p.stem != "index"), lesson)

    if args.browser != "chromium":
        return engine_startup.main(args.browser, args.dir, args.runs, lesson, load_note)

    server = SiteServer(args.dir, log=True)
    url = server.url
    rows = {"looplab": {"cold": [], "warm": []}, "bare": {"cold": [], "warm": []}}
    extra = {
        "prose": [],
        "longest": [],
        "long": [],
        "longest_source": [],
        "bytes": [],
        "run": [],
        "warm_prose": [],
        "bare_paint": [],
        "bare_bytes": [],
        "twice": set(),
        "warm_asked": [],
    }
    loads = [load_note()]
    try:
        with sync_playwright() as p, tempfile.TemporaryDirectory() as tmp:
            for i in range(0 if args.only_restart else args.runs):
                for name in ("looplab", "bare"):  # alternate, so drift hits both alike
                    context = p.chromium.launch_persistent_context(
                        f"{tmp}/{name}-{i}",
                        executable_path=CHROMIUM,
                        args=CHROMIUM_ARGS,
                        viewport={"width": 1280, "height": 800},
                    )
                    context.add_init_script(LONG_TASKS)
                    try:
                        if name == "looplab":
                            cold = visit_looplab(context, url, lesson, measure_run=True, query=args.query)
                            warm = visit_looplab(
                                context, url, lesson, measure_run=False, query=args.query, server=server
                            )
                            extra["warm_asked"].append(warm["asked"])
                            for key in ("prose", "longest", "long", "longest_source", "bytes", "run"):
                                extra[key].append(cold.get(key))
                            extra["warm_prose"].append(warm.get("prose"))
                            extra["twice"].update(u.removeprefix(url) for u in cold["twice"])
                        else:
                            cold, warm = visit_bare(context, url), visit_bare(context, url)
                            extra["bare_paint"].append(cold["paint"])
                            extra["bare_bytes"].append(cold["bytes"])
                        rows[name]["cold"].append(cold["ready"])
                        rows[name]["warm"].append(warm["ready"])
                    finally:
                        context.close()
                print(
                    f"  run {i + 1}/{args.runs}: Loop Lab cold {rows['looplab']['cold'][-1]:.0f} ms, "
                    f"warm {rows['looplab']['warm'][-1]:.0f} ms; bare cold {rows['bare']['cold'][-1]:.0f} ms, "
                    f"warm {rows['bare']['warm'][-1]:.0f} ms; ratios {rows['looplab']['cold'][-1] / rows['bare']['cold'][-1]:.2f} "
                    f"/ {rows['looplab']['warm'][-1] / rows['bare']['warm'][-1]:.2f}",
                    flush=True,
                )
            loads.append(load_note())
            restarts = restart_figures(p, url, args.runs, tmp)
            loads.append(load_note())
    finally:
        server.stop()

    print(
        f"\nstartup: medians of {args.runs} runs, alternating fresh profiles, headless Chromium, served by "
        f"scripts/serve.py on 127.0.0.1 (lesson {lesson}{', ' + args.query if args.query else ''}; {'; '.join(loads)})"
    )
    print(f"  {'':40} {'Loop Lab':>10} {'bare page':>10} {'ratio':>7}")
    if not args.only_restart:
        for visit in ("cold", "warm"):
            mine, bare = median(rows["looplab"][visit]), median(rows["bare"][visit])
            pairs = " ".join(f"{a / b:.2f}" for a, b in zip(rows["looplab"][visit], rows["bare"][visit]))
            print(
                f"  {'navigation -> ready, ' + visit + ' (ms)':40} {mine:10.0f} {bare:10.0f} {mine / bare:7.2f}  (each run: {pairs})"
            )
    for name, _, _ in RESTARTS:
        used = sum(r["spare_used"] for r in restarts[name])
        label = f"Stop -> ready again, {name} (ms)"
        print(
            f"  {label:40} {median([r['restart'] for r in restarts[name]]):10.0f}  (spare used {used} of {len(restarts[name])})"
        )
    if not args.only_restart:
        print(f"  {'first prose on screen, cold (ms)':40} {median(extra['prose']):10.0f}")
        print(f"  {'first prose on screen, warm (ms)':40} {median(extra['warm_prose']):10.0f}")
        print(f"  {'first paint, bare page, cold (ms)':40} {median(extra['bare_paint']):10.0f}")
        print(
            f"  {'longest main-thread task, cold (ms)':40} {median(extra['longest']):10.0f}"
            f"  (tasks over 50 ms, each run: {' '.join(str(n) for n in extra['long'])})"
        )
        for i, source in enumerate(extra["longest_source"]):
            print(f"    run {i + 1}'s longest: {source or 'none over 50 ms'}")
        print(
            f"  {'first prose - bare first paint (ms)':40} {median(extra['prose']) - median(extra['bare_paint']):10.0f}"
        )
        bare_total = median(extra["bare_bytes"])
        print(
            f"  {'bytes before the first run, cold':40} {median(extra['bytes']) / 1e6:8.2f} MB"
            f" (bare page {bare_total / 1e6:.2f} MB, +{(median(extra['bytes']) - bare_total) / 1e6:.2f} MB)"
        )
        print(f"  {'click Run -> checks shown (ms)':40} {median(extra['run']):10.0f}")
        print(f"  asked for twice before ready, cold (a 304 counts): {', '.join(sorted(extra['twice'])) or 'nothing'}")
        asked = sorted({request for run in extra["warm_asked"] for request in run})
        print(
            f"  asked of the server before ready, warm (median {median([len(r) for r in extra['warm_asked']]):.0f} "
            f"requests): {', '.join(asked) or 'nothing'}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
