"""run_sync: asyncio code run to its end from synchronous code, on the standard loop and on the
TimerLoop that Pyodide uses (both tested here, in CPython and again inside Pyodide)."""

import asyncio
import sys
import time

import pytest

from looplab.eventloop import Stuck, TimerLoop, new_loop, run_sync

LOOPS = [pytest.param(new_loop, id="platform-loop"), pytest.param(TimerLoop, id="timer-loop")]


async def later(value, seconds, log=None):
    if log is not None:
        log.append(("start", value))
    await asyncio.sleep(seconds)
    if log is not None:
        log.append(("end", value))
    return value


@pytest.mark.parametrize("factory", LOOPS)
def test_gather_runs_side_by_side_and_keeps_the_order_of_the_calls(factory):
    log = []

    async def three():
        return await asyncio.gather(later("a", 0.03, log), later("b", 0.01, log), later("c", 0.02, log))

    assert run_sync(three(), factory) == ["a", "b", "c"]
    assert [kind for kind, _ in log[:3]] == ["start"] * 3  # all started before any ended
    assert [value for kind, value in log if kind == "end"] == ["b", "c", "a"]


@pytest.mark.parametrize("factory", LOOPS)
def test_wait_for_stops_a_coroutine_at_its_await(factory):
    reached = []

    async def hangs():
        await asyncio.sleep(30)
        reached.append("after the sleep")

    async def limited():
        try:
            await asyncio.wait_for(hangs(), 0.02)
        except TimeoutError:
            return "timed out"

    started = time.monotonic()
    assert run_sync(limited(), factory) == "timed out"
    assert reached == [] and time.monotonic() - started < 10  # the 30 s sleep was cut, not waited out


@pytest.mark.parametrize("factory", LOOPS)
def test_an_exception_comes_out_and_leftover_tasks_are_cancelled(factory):
    cancelled = []

    async def lingers():
        try:
            await asyncio.sleep(30)
        except asyncio.CancelledError:
            cancelled.append(True)
            raise

    async def fails():
        asyncio.ensure_future(lingers())
        await asyncio.sleep(0)
        raise ValueError("boom")

    with pytest.raises(ValueError, match="boom"):
        run_sync(fails(), factory)
    assert cancelled == [True]


@pytest.mark.parametrize("factory", LOOPS)
def test_run_sync_inside_a_running_task_sets_the_caller_aside_and_back(factory):
    def sync_tool():
        return run_sync(later("inner", 0.001), factory)  # a plain function that runs async code

    async def outer():
        task = asyncio.current_task()
        got = sync_tool()
        await asyncio.sleep(0)  # the outer task goes on afterwards
        return got, asyncio.current_task() is task

    before = asyncio._get_running_loop()
    assert run_sync(outer(), factory) == ("inner", True)
    assert asyncio._get_running_loop() is before  # WebLoop in Pyodide, None in CPython


def test_a_timer_loop_that_can_never_wake_raises_instead_of_hanging():
    async def waits_for_nobody():
        await asyncio.get_running_loop().create_future()  # like a JS promise: nothing here resolves it

    with pytest.raises(Stuck, match="browser's event loop"):
        run_sync(waits_for_nobody(), TimerLoop)
    assert run_sync(later("still usable", 0), TimerLoop) == "still usable"


def test_the_platform_loop_is_the_timer_loop_only_in_pyodide():
    loop = new_loop()
    try:
        assert isinstance(loop, TimerLoop) == (sys.platform == "emscripten")
        assert not loop.is_running() and not loop.is_closed()
    finally:
        loop.close()
