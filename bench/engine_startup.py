"""Start-up in Firefox ESR or WebKitGTK (`bench/startup.py --browser firefox|webkit`), against the
bare Pyodide page in the same engine, through tests/e2e/engines.py's drivers.

Prints figures; asserts nothing. For each run, alternating the two pages, each in a fresh profile:
  cold   first visit: navigation -> Run enabled (Loop Lab) / -> one line of Python ran (bare page)
  warm   a second visit in the same profile, once the first visit's work for the next is done
         (its service worker in control and the site cached; the inflated snapshot kept where the
         engine has the Origin Private File System; Pyodide's code warmed)
Then Stop -> ready: Stop pressed during `time.sleep`, to Run enabled again: on an isolated page
Python takes the interrupt (no restart). In WebKit also as WebKitGTK ships (no SharedArrayBuffer:
the worker is ended and another started from the kept Module and snapshot).
"""

from __future__ import annotations

import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "e2e"))
from anyengine import set_code, start_run, wait_text
from browser import SiteServer
from engines import Engine

RUN_ENABLED = "() => document.querySelector('[data-testid=run]')?.getAttribute('aria-disabled') === 'false'"
READY_AT = "() => Number(document.querySelector('[data-testid=status]').dataset.readyAt)"
SLEEP = "import time\nprint('asleep')\ntime.sleep(60)"
KEPT = """async () => { try { const dir = await (await navigator.storage.getDirectory()).getDirectoryHandle('looplab-snapshot');
    for await (const name of dir.keys()) if (name.endsWith('.inflated')) return true; } catch { /* none */ } return false; }"""


def visit_looplab(tab, url: str, lesson: str) -> float:
    """Navigation -> Run enabled, in ms of the page's own clock."""
    tab.goto("about:blank")
    tab.goto(f"{url}#/{lesson}")
    tab.wait(RUN_ENABLED, timeout=180_000, what="Run enabled")
    return tab.js(READY_AT)


def settle_for_next_visit(tab) -> None:
    """What a first visit leaves for the next: the service worker and its cache, the kept snapshot,
    Pyodide's warmed code (each waited for where the engine does it)."""
    tab.wait("() => !!navigator.serviceWorker.controller", timeout=60_000, what="the service worker")
    tab.wait("async () => (await caches.keys()).length > 0 && !!(await navigator.serviceWorker.ready).active")
    if tab.js("() => !!(navigator.storage && navigator.storage.getDirectory)"):
        try:
            tab.wait(KEPT, timeout=20_000)
        except TimeoutError:
            pass  # a build that keeps none
    try:
        tab.wait("() => performance.getEntriesByName('looplab:code-warm').length > 0", timeout=20_000)
        tab.wait("() => new Promise((r) => setTimeout(() => r(true), 1500))")  # its worker ends itself
    except TimeoutError:
        pass  # a build without it


def visit_bare(tab, url: str) -> float:
    tab.goto("about:blank")
    tab.goto(f"{url}bench/bare.html")
    tab.wait("() => document.getElementById('state').dataset.ready", timeout=180_000, what="the bare page")
    return float(tab.js("() => document.getElementById('state').dataset.ready"))


def stop_to_ready(tab, url: str, lesson: str) -> dict:
    """Cold ready, then Stop during a sleep -> Run enabled again (ms); whether Python was restarted."""
    visit_looplab(tab, url, lesson)
    set_code(tab, SLEEP)
    start_run(tab)
    wait_text(tab, '[data-testid="output"]', "asleep")
    before = tab.js("() => document.querySelector('[data-testid=status]').dataset.restarts || '0'")
    stopped = tab.js("() => { document.querySelector('[data-testid=stop]').click(); return performance.now(); }")
    tab.wait(
        "() => !!document.querySelector('[data-testid=status]').dataset.runEnded && "
        + RUN_ENABLED.removeprefix("() => "),
        timeout=60_000,
        what="ready after Stop",
    )
    ready = tab.js("() => performance.now()")
    after = tab.js("() => document.querySelector('[data-testid=status]').dataset.restarts || '0'")
    return {"ms": ready - stopped, "restarted": after != before}


def median(values) -> float:
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else float("nan")


def main(browser: str, folder: Path, runs: int, lesson: str, load_note) -> int:
    server = SiteServer(folder)
    url = server.url
    rows = {"looplab": {"cold": [], "warm": []}, "bare": {"cold": [], "warm": []}}
    stops: dict[str, list[dict]] = {"isolated": [], "no shared memory": []}
    loads = [load_note()]
    engine = Engine(browser)
    try:
        for i in range(runs):
            for name in ("looplab", "bare"):  # alternate, so drift hits both alike
                tab = engine.tab()
                try:
                    if name == "looplab":
                        cold = visit_looplab(tab, url, lesson)
                        settle_for_next_visit(tab)
                        warm = visit_looplab(tab, url, lesson)
                    else:
                        cold, warm = visit_bare(tab, url), visit_bare(tab, url)
                finally:
                    tab.close()
                rows[name]["cold"].append(cold)
                rows[name]["warm"].append(warm)
            mine, bare = rows["looplab"], rows["bare"]
            print(
                f"  run {i + 1}/{runs}: Loop Lab cold {mine['cold'][-1]:.0f} ms, warm {mine['warm'][-1]:.0f} ms; "
                f"bare cold {bare['cold'][-1]:.0f} ms, warm {bare['warm'][-1]:.0f} ms; ratios "
                f"{mine['cold'][-1] / bare['cold'][-1]:.2f} / {mine['warm'][-1] / bare['warm'][-1]:.2f}",
                flush=True,
            )
        loads.append(load_note())
        for i in range(runs):
            kinds = [("isolated", {})] + (
                [("no shared memory", {"shared_memory": False})] if browser == "webkit" else []
            )
            for kind, options in kinds:
                tab = engine.tab(**options)
                try:
                    stops[kind].append(stop_to_ready(tab, url, lesson))
                finally:
                    tab.close()
            print(
                "  stop run "
                + f"{i + 1}/{runs}: "
                + ", ".join(f"{kind} {stops[kind][-1]['ms']:.0f} ms" for kind, _ in kinds),
                flush=True,
            )
        loads.append(load_note())
    finally:
        engine.close()
        server.stop()

    print(
        f"\nstartup: medians of {runs} runs, alternating fresh profiles, {browser} {engine.version}, served by "
        f"scripts/serve.py on 127.0.0.1 (lesson {lesson}; {'; '.join(loads)})"
    )
    print(f"  {'':40} {'Loop Lab':>10} {'bare page':>10} {'ratio':>7}")
    for visit in ("cold", "warm"):
        mine, bare = median(rows["looplab"][visit]), median(rows["bare"][visit])
        pairs = " ".join(f"{a / b:.2f}" for a, b in zip(rows["looplab"][visit], rows["bare"][visit]))
        print(
            f"  {'navigation -> ready, ' + visit + ' (ms)':40} {mine:10.0f} {bare:10.0f} {mine / bare:7.2f}  (each run: {pairs})"
        )
    for kind, rows_ in stops.items():
        if rows_:
            restarted = sum(r["restarted"] for r in rows_)
            label = f"Stop -> ready again, {kind} (ms)"
            print(
                f"  {label:40} {median([r['ms'] for r in rows_]):10.0f}  (Python restarted in {restarted} of {len(rows_)})"
            )
    return 0
