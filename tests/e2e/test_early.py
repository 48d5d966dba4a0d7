"""Python's worker starts before the app bundle runs (issue 23, page/early.js): boot.js starts it,
runner.js takes it when app.js loads — one worker, ready as before, and the run works; `?early=off`
leaves the start to the Runner (bench/startup.py's "before")."""

from __future__ import annotations

import json

from learner import open_lesson, run, wait_ready

LESSON = "04-the-loop"

TIMES = """() => {
  const at = (name) => (performance.getEntriesByName(name)[0] || {}).startTime ?? null;
  return { early: at('looplab:early-worker'), app: at('looplab:app') };
}"""


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
    assert times["early"] < times["app"], times                      # started before app.js ran
    assert len(asked) == 1, asked                                    # the app took that worker, no second
    shown = run(page)                                                # that worker runs the lesson
    assert shown, "the run showed no checks"
    assert {check.status for check in shown} <= {"passed", "failed", "not checked"}, shown
    assert any(check.status != "not checked" for check in shown), shown


def test_early_off_starts_the_worker_from_the_app(context, site_url, site_dir):
    page = context.new_page()
    asked = worker_requests(page, site_dir)
    page.goto(f"{site_url}?early=off#/{LESSON}")
    wait_ready(page, LESSON)
    times = page.evaluate(TIMES)
    assert times["early"] is None, times                             # nothing started before the app
    assert times["app"] is not None
    assert len(asked) == 1, asked
