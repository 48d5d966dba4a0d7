"""Running asyncio code to its end from synchronous code — the same call in CPython and in Pyodide.

`run_agent` is synchronous, and so is a lesson cell; async tools, and tool calls run side by side,
need an event loop that runs right here until they are done:

    results = run_sync(asyncio.gather(lookup("Paris"), lookup("Oslo")))

CPython: a fresh standard event loop for each call (it can do I/O: sockets, subprocesses).
Pyodide: the browser's event loop (WebLoop) counts as always running. Where the browser has
JavaScript Promise integration (JSPI; Chromium), the page's worker enters Python through
`callPromising`, and `asyncio.run` can suspend on it; elsewhere `asyncio.run` and
`run_until_complete` fail ("WebAssembly stack switching not supported"). So run_sync, the same
everywhere, drives a `TimerLoop` of its own: a complete asyncio loop (tasks, futures, `gather`,
`wait_for`, `sleep`, cancellation) whose only way to wait is `time.sleep` until the next timer.

What a TimerLoop cannot do is wait for the browser: a coroutine that awaits a fetch or another
JavaScript promise would wait forever, because the browser gets no turn while Python runs. When
nothing is ready and no timer is set, the loop raises `Stuck` instead of hanging.

While run_sync runs, the caller's running loop (WebLoop, or a CPython loop such as Jupyter's) and
its current task are set aside and put back afterwards, so it also works from code that an event
loop is already running: a sync tool inside a batch of parallel calls may run an agent of its own.
"""

import asyncio
import sys
import time


class Stuck(RuntimeError):
    """A TimerLoop had nothing to run and no timer to wait for: something awaits the browser."""


class Sleeper:
    """The TimerLoop's stand-in for a selector: there is no I/O to watch, so waiting is sleeping."""

    def select(self, timeout: float | None) -> list:
        if timeout is None:  # nothing ready, no timer: only the browser could wake us, and it cannot
            raise Stuck(
                "an awaited operation can only finish on the browser's event loop (a fetch, a "
                "JavaScript promise); here, async code may await asyncio.sleep, other tasks, "
                "queues, locks and events, not the browser"
            )
        if timeout > 0:
            time.sleep(timeout)  # in the page this sleep is interruptible: Stop still works
        return []

    def close(self) -> None:
        pass


class TimerLoop(asyncio.BaseEventLoop):
    """An asyncio event loop without I/O, which waits by sleeping: works wherever time.sleep does."""

    def __init__(self):
        super().__init__()
        self._selector = Sleeper()

    def _process_events(self, event_list) -> None:
        pass  # no I/O, no events

    def _write_to_self(self) -> None:
        pass  # one thread: nobody to wake up


def new_loop() -> asyncio.AbstractEventLoop:
    """The loop run_sync uses here: a TimerLoop in Pyodide, the standard loop in CPython."""
    return TimerLoop() if sys.platform == "emscripten" else asyncio.new_event_loop()


def run_sync(awaitable, loop_factory=new_loop):
    """Run a coroutine (or any awaitable) to its end on a loop of its own and return its result."""
    outer = asyncio._get_running_loop()
    task = asyncio.current_task(outer) if outer is not None else None
    loop = loop_factory()
    # Step aside from WebLoop (or the loop and task that called us: a sync tool run by another
    # run_sync, an agent used as a tool) for a moment; Python 3.14 allows one current task a thread.
    if task is not None:
        asyncio.tasks._leave_task(outer, task)  # while `outer` is still the running loop (3.14 checks)
    asyncio._set_running_loop(None)
    try:
        return loop.run_until_complete(awaitable)
    finally:
        try:
            cancel_leftovers(loop)
        finally:
            loop.close()
            asyncio._set_running_loop(outer)
            if task is not None:
                asyncio.tasks._enter_task(outer, task)


def cancel_leftovers(loop: asyncio.AbstractEventLoop) -> None:
    """Cancel the tasks still pending when run_sync ends (after an error), and let them finish."""
    tasks = [t for t in asyncio.all_tasks(loop) if not t.done()]
    if not tasks:
        return
    for task in tasks:
        task.cancel()
    try:
        loop.run_until_complete(asyncio.gather(*tasks, return_exceptions=True))
    except Stuck:
        pass  # a task that ignores its cancellation and awaits the browser again: give up on it
