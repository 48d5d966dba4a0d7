"""Pyodide's modules run once more when the service worker first takes over (page/start/codecache.js), in a
worker that starts no Python and ends itself, so the next visit's Python worker gets their compiled
code from the browser instead of compiling pyodide.asm.mjs again. Checked in the browser's own
trace of that next visit (V8's module compile names the code cache it consumed)."""

from __future__ import annotations

from browser import wait_until
from learner import open_lesson, wait_ready

LESSON = "04-the-loop"
CATEGORIES = "v8,devtools.timeline"


def traced_visit(context, page, url: str) -> list[dict]:
    """Open `url` in `page` with the browser's tracing on until Python is ready; the trace's events."""
    cdp = context.new_cdp_session(page)
    events, done = [], []
    cdp.on("Tracing.dataCollected", lambda event: events.extend(event["value"]))
    cdp.on("Tracing.tracingComplete", lambda event: done.append(True))
    cdp.send("Tracing.start", {"categories": CATEGORIES, "transferMode": "ReportEvents"})
    page.goto(url)
    wait_ready(page, LESSON)
    cdp.send("Tracing.end")
    for _ in range(200):
        if done:
            break
        page.wait_for_timeout(50)
    assert done, "the trace never completed"
    return events


def module_compiles(events: list[dict], name: str) -> list[dict]:
    return [
        e.get("args", {}).get("data", {})
        for e in events
        if e.get("name") == "v8.compileModule" and str(e.get("args", {}).get("data", {}).get("url", "")).endswith(name)
    ]


def test_the_first_visit_warms_the_code_and_the_next_visit_compiles_nothing_of_pyodide(fresh_profile, site_url):
    page = fresh_profile.new_page()
    warmers, ended = [], []
    page.on(
        "worker",
        lambda worker: (
            "warm=code" in worker.url
            and (warmers.append(worker.url), worker.on("close", lambda _: ended.append(worker.url)))
        ),
    )
    open_lesson(page, site_url, LESSON)
    wait_until(page, "() => !!navigator.serviceWorker.controller")
    wait_until(page, "() => performance.getEntriesByName('looplab:code-warm').length === 1")
    for _ in range(400):  # it ends itself once both modules ran
        if ended:
            break
        page.wait_for_timeout(50)
    assert len(warmers) == 1 and ended == warmers, (warmers, ended)
    assert "connect=" not in warmers[0]  # no endpoint: it never holds a key
    page.close()

    page = fresh_profile.new_page()
    events = traced_visit(fresh_profile, page, f"{site_url}#/{LESSON}")
    compiled = module_compiles(events, "pyodide.asm.mjs")
    assert compiled, "the trace has no compile of pyodide.asm.mjs"
    assert all(data.get("consumedCacheSize", 0) > 0 and not data.get("cacheRejected") for data in compiled), compiled
    assert performance_marks(page, "looplab:code-warm") == 0  # a page the service worker controls: no warming again
    assert page.evaluate("Boolean(navigator.serviceWorker.controller)")


def test_without_the_warming_the_next_visit_compiles_pyodide_asm_again(fresh_profile, site_url):
    # The same two visits with the warming worker refused (as a browser that cannot start it): the
    # trace tells the two cases apart, so the test above is not passing on the browser's own cache.
    fresh_profile.add_init_script("""{ const RealWorker = Worker;
        self.Worker = function (url, options) {
          if (String(url).includes("warm=code")) throw new DOMException("refused by the test", "SecurityError");
          return new RealWorker(url, options); }; }""")
    page = fresh_profile.new_page()
    open_lesson(page, site_url, LESSON)
    wait_until(page, "() => !!navigator.serviceWorker.controller")
    wait_until(page, "() => performance.getEntriesByName('looplab:code-warm').length === 1")
    page.wait_for_timeout(1500)
    page.close()
    page = fresh_profile.new_page()
    events = traced_visit(fresh_profile, page, f"{site_url}#/{LESSON}")
    compiled = module_compiles(events, "pyodide.asm.mjs")
    assert compiled and not [data for data in compiled if data.get("consumedCacheSize")], compiled


def performance_marks(page, name: str) -> int:
    return page.evaluate(f"() => performance.getEntriesByName('{name}').length")
