"""The runtime pieces inside the page's Web Worker (Pyodide): what asyncio can and cannot do there,
Stop during a wait on run_sync's own loop, and tokens in the trace."""

from __future__ import annotations

from playwright.sync_api import expect

from learner import open_lesson, run, set_code, start_run, status, wait_ready, wait_run_end

PROBE = """import asyncio, sys
from looplab.eventloop import Stuck, new_loop, run_sync
import js

probe = asyncio.sleep(0)
try:
    asyncio.run(probe)
    print("asyncio.run: works")
except RuntimeError as exc:
    probe.close()
    print("asyncio.run: fails:", exc)

finished = []

async def later(v, s):
    await asyncio.sleep(s)
    finished.append(v)
    return v

async def main():
    got = await asyncio.gather(later("a", 0.2), later("b", 0.1), later("c", 0.15))
    try:
        await asyncio.wait_for(asyncio.sleep(30), 0.1)
    except TimeoutError:
        got.append("timed out")
    return got

got = run_sync(main())
# one after another, they would finish a, b, c; side by side, the shortest sleep ends first
print("loop:", type(new_loop()).__name__, "| gather:", got, "| side by side:", finished == ["b", "c", "a"])

async def awaits_the_browser():
    await js.Promise.new(lambda resolve, reject: js.setTimeout(resolve, 10))

try:
    run_sync(awaits_the_browser())
except Stuck:
    print("a JS promise: Stuck, not a hang")
print("the WebLoop is back:", type(asyncio.get_event_loop()).__name__)
"""

HANG = """import asyncio
from looplab import Memory, Toolbox, calls, run_agent, scripted

slow = Toolbox(parallel=True)

@slow.tool
async def wait(n: int) -> int:
    "Wait a long time."
    await asyncio.sleep(120)
    return n

print("waiting side by side")
run_agent("?", scripted([calls(("wait", {"n": 1}), ("wait", {"n": 2}))]), slow, Memory("s"))
"""


def test_asyncio_in_the_worker_runs_on_run_syncs_own_loop(page, site_url):
    open_lesson(page, site_url)
    set_code(page, PROBE)
    run(page)
    output = page.get_by_test_id("output")
    # With JavaScript Promise integration the worker enters Python through callPromising (worker.js),
    # so asyncio.run can suspend on the browser's loop; without it, the WebLoop cannot be blocked on.
    jspi = page.evaluate("() => typeof WebAssembly === 'object' && 'Suspending' in WebAssembly")
    expect(output).to_contain_text("asyncio.run: works" if jspi else "asyncio.run: fails:")
    expect(output).to_contain_text("loop: TimerLoop | gather: ['a', 'b', 'c', 'timed out'] | side by side: True")
    expect(output).to_contain_text("a JS promise: Stuck, not a hang")
    expect(output).to_contain_text("the WebLoop is back: WebLoop")


def test_stop_ends_a_run_waiting_on_run_syncs_loop(page, site_url):
    open_lesson(page, site_url)
    set_code(page, HANG)
    start_run(page)
    expect(page.get_by_test_id("output")).to_contain_text("waiting side by side")
    page.wait_for_timeout(300)  # inside the TimerLoop's sleep now
    page.get_by_test_id("stop").click()
    wait_run_end(page, timeout=10_000)
    assert status(page)["state"] == "stopped" and status(page).get("restarts", "0") == "0", status(page)
    wait_ready(page)
    page.get_by_test_id("reset").click()
    assert all(ok for ok, _, _ in run(page))  # the next run works


def test_the_trace_shows_each_calls_tokens_marked_as_estimates_offline(page, site_url):
    open_lesson(page, site_url)
    assert all(ok for ok, _, _ in run(page))
    replies = page.locator("[data-testid=trace] li.ev-model_reply")
    expect(replies).to_have_count(2)
    expect(replies.first).to_contain_text("tokens (estimate:")
    text = replies.first.inner_text()
    assert "~" in text and " in, " in text and " out)" in text
