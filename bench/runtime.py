"""What the runtime pieces cost, and what running calls side by side saves (CPython, then Pyodide).

- run_sync: one empty coroutine run to its end (a new event loop each time: the standard loop in
  CPython, the TimerLoop in Pyodide);
- one plain tool call through Toolbox.run vs an async one (which goes through run_sync);
- a reply of 4 async calls that each wait 50 ms: run one by one vs Toolbox(parallel=True);
- run_agent's accounting: a 200-step scripted run with and without limits=Budget(...).

Prints figures; asserts nothing. Run: `make bench`, `python bench/runtime.py` (PYTHONPATH=py), or
inside Pyodide: `node tests/pyodide/run.mjs --script bench/runtime.py`.
"""

import asyncio
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "py"))

from looplab import Memory, Toolbox, call, calls, final, run_agent, scripted
from looplab.budget import Budget
from looplab.eventloop import new_loop, run_sync


def timed(fn, repeat: int = 5) -> tuple[float, float]:
    """(best, median) seconds of `repeat` runs of fn()."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times), statistics.median(times)


async def nothing():
    return None


def tools(parallel: bool) -> Toolbox:
    box = Toolbox(parallel=parallel)
    box.register(
        "plain", "Plain.", {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}, lambda n: n
    )

    @box.tool
    async def wait(n: int) -> int:
        "Wait 50 ms."
        await asyncio.sleep(0.05)
        return n

    @box.tool
    async def instant(n: int) -> int:
        "Answer at once."
        return n

    return box


def reply_of_four(parallel: bool) -> None:
    reply = calls(*[("wait", {"n": i}) for i in range(4)])
    run_agent("bench", scripted([reply, final("done")]), tools(parallel), Memory("s"))


def long_run(limits) -> None:
    box = tools(False)
    replies = [call("plain", n=i) for i in range(199)] + [final("done")]
    run_agent("bench", scripted(replies), box, Memory("s", keep_last=20), max_steps=200, limits=limits)


def main() -> None:
    loop = new_loop()
    print(f"runtime bench: {sys.platform}, Python {sys.version.split()[0]}, run_sync's loop: {type(loop).__name__}")
    loop.close()
    n = 200
    best, median = timed(lambda: [run_sync(nothing()) for _ in range(n)])
    print(f"  run_sync of an empty coroutine: {best / n * 1e6:8.1f} us best, {median / n * 1e6:8.1f} us median")
    box = tools(False)
    for name in ("plain", "instant"):
        best, median = timed(lambda: [box.run(name, '{"n": 1}') for _ in range(n)])
        print(f"  Toolbox.run, {name:7} tool:     {best / n * 1e6:8.1f} us best, {median / n * 1e6:8.1f} us median")
    for parallel in (False, True):
        best, median = timed(lambda: reply_of_four(parallel), repeat=3)
        label = "side by side" if parallel else "one by one  "
        print(f"  4 calls of 50 ms, {label}:  {best * 1000:8.1f} ms best, {median * 1000:8.1f} ms median")
    for label, limits in (("no limits", None), ("Budget(tokens)", Budget(tokens=10**9, price_in=0.15, price_out=0.6))):
        best, median = timed(lambda: long_run(limits), repeat=3)
        print(f"  200-step run, {label:15}:  {best * 1000:8.1f} ms best, {median * 1000:8.1f} ms median")


if __name__ == "__main__":
    main()
