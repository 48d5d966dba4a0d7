"""Loop overhead per step with a scripted model, and Memory.messages(budget) on 10,000 messages.

Prints figures; asserts nothing. Run: `make bench` or `python bench/loop.py` (PYTHONPATH=py).
"""

import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "py"))

from looplab import Collector, Memory, Toolbox, call, final, run_agent, scripted


def best_of(fn, repeat: int = 5) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times), statistics.median(times)


def loop_overhead(steps: int = 200, tracer=None, recorded: bool = True) -> None:
    box = Toolbox()
    box.register(
        "add",
        "Add two numbers.",
        {"type": "object", "properties": {"a": {"type": "number"}, "b": {"type": "number"}}, "required": ["a", "b"]},
        lambda a, b: a + b,
    )
    replies = [call("add", a=i, b=1) for i in range(steps - 1)] + [final("done")]
    if recorded:
        model = scripted(replies)  # records a deep copy of every request, as tests want
    else:
        feed = iter(replies)
        model = lambda messages, tools: next(feed)  # noqa: E731 - the bare minimum of a model
    run_agent("bench", model, box, Memory("s", keep_last=20), max_steps=steps, tracer=tracer)


def memory_window(memory: Memory) -> None:
    memory.messages(budget=8000)


def main() -> None:
    steps = 200
    best, median = best_of(lambda: loop_overhead(steps))
    print(
        f"run_agent, scripted model, {steps} steps (1 tool call each): "
        f"{best / steps * 1e6:.1f} µs/step best, {median / steps * 1e6:.1f} µs/step median"
    )
    bare, _ = best_of(lambda: loop_overhead(steps, recorded=False))
    print(
        f"  with a bare model function (no recording): {bare / steps * 1e6:.1f} µs/step best "
        f"(the loop itself; recording costs x{best / bare:.2f})"
    )
    best_t, median_t = best_of(lambda: loop_overhead(steps, Collector()))
    print(f"  with a Collector tracer: {best_t / steps * 1e6:.1f} µs/step best (tracing costs x{best_t / best:.2f})")
    memory = Memory({"role": "system", "content": "s", "tokens": 400})
    for i in range(10_000):
        memory.add({"role": "user" if i % 2 else "assistant", "content": f"message {i} " * 20})
    best_m, median_m = best_of(lambda: memory_window(memory))
    print(
        f"Memory.messages(budget=8000) on 10,000 messages (estimated tokens): "
        f"{best_m * 1e3:.2f} ms best, {median_m * 1e3:.2f} ms median"
    )
    sized = Memory({"role": "system", "content": "s", "tokens": 400})
    for _ in range(10_000):
        sized.add({"role": "user", "content": "x", "tokens": 50})
    best_s, _ = best_of(lambda: sized.messages(budget=10**9))
    print(
        f"Memory.messages(budget=huge) on 10,000 messages with `tokens` fields (whole history kept): "
        f"{best_s * 1e3:.2f} ms best"
    )
    print(f"python {sys.version.split()[0]} on {sys.platform}")


if __name__ == "__main__":
    main()
