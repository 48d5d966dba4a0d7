"""Lesson 17 in the page: pytest comes from this site's own wheels, and each test is a check."""

from __future__ import annotations

import re

from playwright.sync_api import expect

from learner import cell, open_lesson, put_solutions, run, set_code, start_run, status, wait_ready, wait_run_end

SLUG = "17-evaluate-your-agent"
PYTEST_WHEELS = {"pytest", "pluggy", "iniconfig", "packaging", "pygments"}


def wheel_name(url: str) -> str:
    return url.rsplit("/", 1)[1].split("-", 1)[0].lower()


def test_pytest_loads_from_the_site_and_each_test_is_a_check(page, site_url):
    seen = []
    page.on("request", lambda request: seen.append(request.url))
    open_lesson(page, site_url, SLUG)
    put_solutions(page)
    results = run(page)

    names = [name for _, name, _ in results]
    failed = [(name, message) for ok, name, message in results if not ok]
    assert not failed, failed
    assert "the agent does the task [add 10 and 5]" in names
    assert "the judge grades a free-text answer [It is 14°C in Paris.]" in names
    assert names[-3:] == [
        "no order went through without a person's yes",
        "every run stayed within MAX_STEPS steps",
        "the grader reports a forbidden tool",
    ]
    assert sum(name.startswith("the agent does the task [") for name in names) == 12
    output = page.get_by_test_id("output").inner_text()
    assert re.search(r"\(loading [^)]*pytest[^)]* from this site", output), output[:500]
    assert re.search(r"^pytest ran 19 tests: 19 passed \(", output, re.M)  # the run, summed up in the page
    # every request went to this site; the pytest wheels among them, and not hypothesis
    assert seen and all(url.startswith(site_url) for url in seen), [u for u in seen if not u.startswith(site_url)]
    wheels = {wheel_name(url) for url in seen if url.endswith(".whl")}
    assert PYTEST_WHEELS <= wheels and "hypothesis" not in wheels, wheels
    assert all(url.startswith(f"{site_url}py/") for url in seen if url.endswith(".whl"))

    # A learner's test that fails shows pytest's own explanation of the assert
    editor = cell(page, "exercise", 4)
    assert "def test_every_run_stays_within_the_step_limit" in editor.inner_text()
    code = editor.locator(".cm-content").inner_text().replace("<= MAX_STEPS", "<= 2")
    set_code(page, code, "exercise", 4)
    results = run(page)
    broken = {name: message for ok, name, message in results if not ok}
    # the test itself fails, and so does the check that holds the learner's tests to the lesson's
    compared = "your three tests pass and fail where the lesson's do, each thing they guard broken in turn"
    assert set(broken) == {"every run stayed within MAX_STEPS steps", compared}, broken
    assert "assert 3 <= 2" in broken["every run stayed within MAX_STEPS steps"]
    assert "where 3 = max(" in broken["every run stayed within MAX_STEPS steps"]
    assert broken[compared].startswith("test_every_run_stays_within_the_step_limit:"), broken[compared]
    expect(page.get_by_test_id("status")).to_contain_text(f"{len(results) - 2} of {len(results)} checks passed")
    assert "(loading" not in page.get_by_test_id("output").inner_text()  # loaded once per worker
    assert status(page)["text"]


def test_stop_ends_a_test_pytest_is_running_and_the_next_run_works(page, site_url):
    open_lesson(page, site_url, SLUG)
    put_solutions(page)
    set_code(
        page,
        'def test_forever():\n    print("inside pytest", flush=True)\n    while True:\n        pass\n',
        "exercise",
        4,
    )
    start_run(page)
    expect(page.get_by_test_id("output")).to_contain_text("inside pytest", timeout=60_000)
    page.get_by_test_id("stop").click()
    wait_run_end(page, timeout=10_000)
    assert status(page)["state"] == "stopped" and status(page).get("restarts", "0") == "0", status(page)
    expect(page.get_by_test_id("output")).to_contain_text("Stopped")
    # pytest's session ended cleanly: the same Python runs the lesson's tests again
    wait_ready(page)
    page.get_by_test_id("reset").click()
    put_solutions(page)
    results = run(page)
    assert results and all(ok for ok, _, _ in results), [r for r in results if not r[0]]
    assert "the grader reports a forbidden tool" in [name for _, name, _ in results]
