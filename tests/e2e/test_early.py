"""Python's worker starts before the app bundle runs (issue 23): the page's first script
(page/start/prestart.js, inlined in <head>) starts it and has it fetch, compile and restore at once;
boot.js's pool (page/start/early.js) sends it init; runner.js takes it when app.js loads — one worker,
ready as before, and the run works. On a visit after the first the page compiles the wasm for it.
`?early=off` leaves the start to the Runner (bench/startup.py's "before")."""

from __future__ import annotations

import json
import time

import pytest

from learner import open_lesson, run, wait_ready

LESSON = "04-the-loop"

TIMES = """() => {
  const at = (name) => (performance.getEntriesByName(name)[0] || {}).startTime ?? null;
  const parsed = performance.getEntriesByType('navigation')[0].domInteractive;
  const given = document.querySelector('[data-testid=status]').dataset.given.split(' ');
  return { prestart: at('looplab:prestart'), early: at('looplab:early-worker'), app: at('looplab:app'), parsed, given,
           paint: at('first-contentful-paint') };
}"""


def worker_times(page) -> dict:
    """The ready worker's ms marks (worker/start/startup.js `times`, since the worker started)."""
    return json.loads(page.get_by_test_id("status").get_attribute("data-worker-times"))


def given(page) -> list[str]:
    return page.get_by_test_id("status").get_attribute("data-given").split()


def worker_requests(page, site_dir) -> list[str]:
    """Requests of Python's worker script (named by its bytes: build.json's `worker`)."""
    script = json.loads((site_dir / "build.json").read_text())["worker"]
    assert script.startswith("worker-") and script.endswith(".js"), script
    urls = []
    page.on("request", lambda request: urls.append(request.url) if f"/{script}" in request.url else None)
    return urls


def test_the_worker_starts_before_the_app_and_the_app_uses_it(context, site_url, site_dir):
    page = context.new_page()
    asked = worker_requests(page, site_dir)
    open_lesson(page, site_url, LESSON)
    times = page.evaluate(TIMES)
    assert times["early"] is not None and times["app"] is not None, times
    assert times["early"] < times["app"], times  # started before app.js ran
    assert len(asked) == 1, asked  # the app took that worker, no second
    shown = run(page)  # that worker runs the lesson
    assert shown, "the run showed no checks"
    assert {check.status for check in shown} <= {"passed", "failed", "not checked"}, shown
    assert any(check.status != "not checked" for check in shown), shown


def test_early_off_starts_the_worker_from_the_app(context, site_url, site_dir):
    page = context.new_page()
    asked = worker_requests(page, site_dir)
    page.goto(f"{site_url}?early=off#/{LESSON}")
    wait_ready(page, LESSON)
    times = page.evaluate(TIMES)
    assert times["early"] is None, times  # nothing started before the app
    assert times["app"] is not None
    assert len(asked) == 1, asked
    assert times["prestart"] is None, times  # nor from the page's first script
    assert "prestarted" not in times["given"], times


def test_on_a_first_visit_the_page_s_first_script_starts_the_worker_at_first_paint(context, site_url, site_dir):
    page = context.new_page()
    asked = worker_requests(page, site_dir)
    # no spare: on a busy machine it was already asked for by the time the test counted (a second request)
    open_lesson(page, f"{site_url}?spare=off", LESSON)
    times = page.evaluate(TIMES)
    assert times["prestart"] is not None and times["paint"] is not None, times
    # the prose first, or the second prestart.js waits at most for a paint to be reported (a busy
    # machine's first paint came later than that); then before boot.js's pool
    assert times["paint"] <= times["prestart"] or times["prestart"] >= 1000, times
    assert times["prestart"] < times["early"], times
    assert "prestarted" in times["given"], times  # what it began served the start
    assert len(asked) == 1 and "connect=" in asked[0], asked  # the pool took it: the default endpoint's origin
    assert run(page), "the run showed no checks"


def test_the_first_script_names_a_saved_endpoint_s_origin_as_the_pool_would(context, site_url, site_dir):
    page = context.new_page()
    page.add_init_script(
        """localStorage.setItem('looplab:v1:settings', JSON.stringify({ baseUrl: 'http://127.0.0.1:9/v1', mode: 'scripted' }));"""
    )
    asked = worker_requests(page, site_dir)
    open_lesson(page, site_url, LESSON)
    times = page.evaluate(TIMES)
    assert times["prestart"] is not None and "prestarted" in times["given"], times
    assert len(asked) == 1, asked
    assert asked[0].endswith("?connect=http%3A%2F%2F127.0.0.1%3A9"), asked  # its policy: the site and that origin


def test_a_prestarted_worker_that_failed_is_replaced_by_the_pool(context, site_url, site_dir):
    page = context.new_page()
    asked = worker_requests(page, site_dir)
    script = json.loads((site_dir / "build.json").read_text())["worker"]
    failed = []

    def fail_first(route):
        if failed:
            return route.continue_()
        failed.append(route.request.url)
        route.abort()

    def late(route):  # the pool takes its worker after the failure is known
        time.sleep(1)
        route.continue_()

    page.route(f"**/{script}*", fail_first)
    page.route("**/build.json", late)
    open_lesson(page, site_url, LESSON)
    times = page.evaluate(TIMES)
    assert failed and times["prestart"] is not None, (failed, times)
    assert len(asked) == 2, asked  # the failed one, then the pool's own
    assert "prestarted" not in times["given"], times
    assert run(page), "the run showed no checks"


def test_the_worker_restores_python_before_the_app_sends_init(context, site_url, site_dir):
    """build.json is held until the first worker has Python (its `looplab:python` mark): the app's
    pool sends init only after build.json came, so the restore must have happened without init."""
    page = context.new_page()
    held = []
    page.route("**/build.json", lambda route: held.append(route))  # held, not answered: released below
    page.goto(f"{site_url}#/{LESSON}", wait_until="commit")
    restored = "performance.getEntriesByName('looplab:python').length > 0"
    for _ in range(1200):  # polled, at most 120 s (a busy machine's restore took 6 s)
        if held and any(worker.evaluate(restored) for worker in page.workers):
            break
        page.wait_for_timeout(100)
    else:
        raise AssertionError(f"no worker restored Python while build.json was held ({len(held)} held)")
    for route in held:
        route.continue_()
    page.unroute("**/build.json")
    wait_ready(page, LESSON)
    times = worker_times(page)
    assert "prestarted" in given(page), given(page)
    assert times["pyodide"] < times["init"], times  # Python was restored before init
    assert times["looplab"] > times["init"], times  # looplab starts only with init
    shown = run(page)
    assert shown and any(check.status == "passed" for check in shown), shown


def warm_page(profile, site_url, query: str = ""):
    """A second visit: the first one's service worker controls the page."""
    page = profile.new_page()
    open_lesson(page, site_url, LESSON)
    assert "pageCompiled" not in given(page), given(page)  # a first visit: the worker compiles
    page.evaluate("navigator.serviceWorker.ready.then(() => true)")
    page.close()
    page = profile.new_page()
    page.goto(f"{site_url}{query}#/{LESSON}")
    wait_ready(page, LESSON)
    assert page.evaluate("Boolean(navigator.serviceWorker.controller)")
    return page


def test_a_warm_visit_s_page_compiles_the_wasm_after_its_first_paint(fresh_profile, site_url):
    page = warm_page(fresh_profile, site_url)
    assert "pageCompiled" in given(page) and "prestarted" in given(page), given(page)
    times = page.evaluate(TIMES)  # the worker itself started while the page was parsed
    assert times["prestart"] is not None and times["prestart"] < times["parsed"], times
    marks = page.evaluate("""() => ({ compile: performance.getEntriesByName('looplab:page-compile')[0]?.startTime,
        paint: performance.getEntriesByName('first-contentful-paint')[0]?.startTime })""")
    assert marks["compile"] is not None and marks["paint"] is not None, marks
    assert marks["compile"] >= marks["paint"], marks  # the prose never waited for it
    shown = run(page)
    assert shown and any(check.status == "passed" for check in shown), shown


def test_a_warm_visit_reads_the_wasm_from_the_site_s_cache_by_static_route(fresh_profile, site_url):
    page = warm_page(fresh_profile, site_url)
    entry = page.evaluate("""() => { const e = performance.getEntriesByType('resource').find((r) => r.name.endsWith('pyodide.asm.wasm'));
        return e && { matched: e.workerMatchedSourceType, final: e.workerFinalSourceType, size: e.decodedBodySize }; }""")
    assert entry is not None, "the page did not fetch the wasm"  # the page compiled it (prestart.js)
    if not page.evaluate("'workerMatchedSourceType' in PerformanceResourceTiming.prototype"):
        pytest.skip("this Chromium reports no static routing in Resource Timing")
    assert entry["matched"] == "cache" and entry["final"] == "cache", entry  # no trip through sw.js's handler
    assert entry["size"] > 1_000_000, entry  # the whole file came


def test_a_page_compile_that_fails_leaves_the_worker_to_compile_its_own(fresh_profile, site_url):
    page = warm_page(fresh_profile, site_url, "?compile=fail")
    assert "pageCompiled" not in given(page) and "prestarted" in given(page), given(page)
    assert page.evaluate("performance.getEntriesByName('looplab:page-compile').length") == 1  # it was tried
    shown = run(page)
    assert shown and any(check.status == "passed" for check in shown), shown
