"""How long Stop takes to end a run in the page, by what the run was doing, beside the 2 s the site
promises (web/src/shared/stop.js: STOP_GRACE_MS, then STOP_HEARD_MS once for Python that took it).

- an endless loop: Pyodide's signal check sees the interrupt buffer, KeyboardInterrupt;
- a long time.sleep: the worker's wait hears Stop;
- a `finally` that takes 1.1 s: Python took the interrupt, the page waits the extra STOP_HEARD_MS;
- a loop that swallows KeyboardInterrupt: the page ends the worker (a restart).

Measured from the click to the page's own `runEnded` stamp, each case --runs times on one page.
The e2e tests check what happens (interrupted or restarted); this prints how long. Asserts nothing.
Run: `make bench-stop` (on the e2e site: build/e2e-site, which has the fixture lesson).
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "e2e"))
from browser import CHROMIUM, CHROMIUM_ARGS, SiteServer
from learner import FIXTURE, open_lesson, set_code, start_run, status, wait_ready, wait_run_end

PROMISE_MS = 2000

CASES = (
    ("endless loop", "print('started')\nn = 0\nwhile True:\n    n += 1"),
    ("time.sleep(100)", "import time\nprint('started')\ntime.sleep(100)"),
    (
        "a 1.1 s finally",
        "import time\nprint('started')\ntry:\n    while True: pass\nfinally:\n"
        "    t = time.monotonic()\n    while time.monotonic() - t < 1.1: pass",
    ),
    (
        "swallowed interrupt",
        "print('started')\nwhile True:\n    try:\n        while True: pass\n    except KeyboardInterrupt:\n        pass",
    ),
)


def stop_once(page, code: str) -> tuple[float, str]:
    """Run `code`, press Stop once it printed; (ms from the click to the run's end, how it ended:
    "stopped" by KeyboardInterrupt, or "restarted", a new worker)."""
    wait_ready(page)
    restarts = status(page).get("restarts", "0")
    set_code(page, code)
    start_run(page)
    page.wait_for_function("() => document.querySelector('[data-testid=output]').innerText.includes('started')")
    clicked = page.evaluate("() => { document.querySelector('[data-testid=stop]').click(); return performance.now(); }")
    wait_run_end(page, timeout=30_000)
    shown = status(page)
    ended = "restarted" if shown.get("restarts", "0") != restarts else shown.get("state", "?")
    return float(shown["runEnded"]) - clicked, ended


def load_note() -> str:
    try:
        return "load average " + " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return "load average unknown"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--dir", type=Path, default=ROOT / "build" / "e2e-site")
    args = parser.parse_args(argv)
    if not (args.dir / "lessons" / f"{FIXTURE}.json").exists():
        print(f"stop: {args.dir} has no {FIXTURE}; run `make e2e-site`", file=sys.stderr)
        return 1
    server = SiteServer(args.dir)
    before = load_note()
    rows = {name: [] for name, _ in CASES}
    ends = {name: set() for name, _ in CASES}
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            open_lesson(page, server.url)
            for _ in range(args.runs):
                for name, code in CASES:  # interleaved, so drift hits every case alike
                    took, state = stop_once(page, code)
                    rows[name].append(took)
                    ends[name].add(state)
            browser.close()
    finally:
        server.stop()
    print(f"Stop -> the run's end, ms, {args.runs} runs each ({before} before, {load_note()} after)")
    print(f"{'case':<22} {'median':>8} {'max':>8} {'max / 2 s':>10}  ended as")
    for name, _ in CASES:
        values = rows[name]
        print(
            f"{name:<22} {statistics.median(values):8.0f} {max(values):8.0f} {max(values) / PROMISE_MS:10.2f}  "
            + ", ".join(sorted(ends[name]))
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
