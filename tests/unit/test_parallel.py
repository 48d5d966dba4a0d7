"""Tool calls with a time limit and retries, async tools, and a reply's calls run side by side
(parallel.py, through Toolbox and run_agent) — in CPython and inside Pyodide."""

import asyncio

import pytest

from looplab import Memory, Toolbox, run_agent
from looplab.models import calls, final, scripted
from looplab.tools import ToolError, TransientError
from looplab.trace import Collector


def flaky(failures: int, exc: Exception, log: list):
    """A tool that fails `failures` times with `exc`, then answers."""

    async def lookup(city: str) -> str:
        "Look up a city."
        log.append(city)
        if len(log) <= failures:
            raise exc
        return f"{city}: 21 C"

    return lookup


def test_an_async_tool_runs_through_run_and_a_hanging_one_is_cut_at_its_timeout():
    box = Toolbox()

    @box.tool
    async def double(n: int) -> int:
        "Double a number."
        await asyncio.sleep(0)
        return n * 2

    @box.tool(timeout=0.05)
    async def hang(query: str) -> str:
        "Never answers."
        await asyncio.sleep(30)
        return "too late"

    assert box.run("double", '{"n": 21}') == "42"
    assert box.run("hang", '{"query": "x"}') == "error: hang timed out after 0.05 s"
    assert box.run("double", '{"n": "x"}').startswith("error: argument 'n' of double must be an integer")


def test_a_timeout_on_a_plain_function_is_refused_with_the_reason():
    box = Toolbox()
    with pytest.raises(ValueError, match="async def"):
        box.register("slow", "Slow.", None, lambda: "done", timeout=1.0)
    with pytest.raises(ValueError, match="more than 0"):
        box.register("slow", "Slow.", None, flaky(0, None, []), timeout=0)
    with pytest.raises(ValueError, match="retries"):
        box.register("slow", "Slow.", None, lambda: "done", retries=-1)
    assert "slow" not in box


@pytest.mark.parametrize("exc", [TransientError("the service is busy"), ConnectionError("reset"), TimeoutError()])
def test_a_failure_that_may_pass_is_tried_again(exc):
    log = []
    box = Toolbox(retry_delay=0.001)
    box.tool(flaky(2, exc, log), retries=2)
    assert box.run("lookup", '{"city": "Oslo"}') == "Oslo: 21 C"
    assert log == ["Oslo"] * 3


def test_retries_run_out_and_the_error_says_how_many_tries():
    log = []
    box = Toolbox(retry_delay=0.001)
    box.tool(flaky(5, TransientError("the service is busy"), log), retries=1)
    box.tool(flaky(5, ConnectionError("reset"), []), name="other", retries=2)
    assert box.run("lookup", '{"city": "Oslo"}') == "error: the service is busy (tried 2 times)"
    assert box.run("other", '{"city": "Oslo"}') == "error: other failed: ConnectionError: reset (tried 3 times)"
    assert log == ["Oslo", "Oslo"]


def test_a_lasting_failure_is_not_retried():
    for exc, text in [
        (ToolError("no such city"), "error: no such city"),
        (KeyError("x"), "error: lookup failed: KeyError: 'x'"),
    ]:
        log = []
        box = Toolbox(retry_delay=0.001)
        box.tool(flaky(5, exc, log), retries=3)
        assert box.run("lookup", '{"city": "Oslo"}') == text
        assert log == ["Oslo"]


def test_a_timeout_counts_as_a_failure_that_may_pass():
    box = Toolbox(retry_delay=0.001)
    tries = []

    @box.tool(timeout=0.02, retries=2)
    async def slow_then_fast(city: str) -> str:
        "Slow the first time."
        tries.append(city)
        await asyncio.sleep(30 if len(tries) == 1 else 0)
        return "fast now"

    assert box.run("slow_then_fast", '{"city": "Oslo"}') == "fast now"
    assert tries == ["Oslo", "Oslo"]


def weather_box(log: list, parallel: bool = True, delays=None) -> Toolbox:
    box = Toolbox(parallel=parallel)
    delays = delays or {"Paris": 0.03, "Oslo": 0.01, "Rome": 0.02}

    @box.tool
    async def weather(city: str) -> str:
        "The weather in a city."
        log.append(("start", city))
        await asyncio.sleep(delays.get(city, 0))
        log.append(("end", city))
        return f"{city}: sunny"

    @box.tool
    def plain(city: str) -> str:
        "A plain function."
        log.append(("plain", city))
        return city.upper()

    @box.tool(needs_approval=True)
    async def book(city: str) -> str:
        "Book a trip."
        log.append(("book", city))
        return "booked"

    return box


THREE = calls(
    ("weather", {"city": "Paris"}, "c1"), ("weather", {"city": "Oslo"}, "c2"), ("weather", {"city": "Rome"}, "c3")
)


def test_a_parallel_toolbox_runs_a_replys_calls_together_and_answers_in_order():
    log, events, memory = [], Collector(), Memory("s")
    result = run_agent("Weather?", scripted([THREE, final("All sunny.")]), weather_box(log), memory, tracer=events)
    assert result["stopped"] == "final" and result["tool_calls"] == 3
    assert log[:3] == [("start", "Paris"), ("start", "Oslo"), ("start", "Rome")]  # all waiting together
    assert [m["tool_call_id"] for m in memory.history if m["role"] == "tool"] == ["c1", "c2", "c3"]
    assert [m["content"] for m in memory.history if m["role"] == "tool"] == [
        "Paris: sunny",
        "Oslo: sunny",
        "Rome: sunny",
    ]
    kinds = [(e["type"], e.get("call_id")) for e in events if e["type"] in ("tool_call", "tool_result")]
    assert kinds == [
        ("tool_call", "c1"),
        ("tool_call", "c2"),
        ("tool_call", "c3"),
        ("tool_result", "c1"),
        ("tool_result", "c2"),
        ("tool_result", "c3"),
    ]


def test_without_parallel_the_same_calls_run_one_after_another_to_the_same_memory():
    runs = {}
    for parallel in (True, False):
        log, memory = [], Memory("s")
        run_agent("Weather?", scripted([THREE, final("All sunny.")]), weather_box(log, parallel), memory)
        runs[parallel] = (log, memory.history)
    assert runs[False][0] == [
        ("start", "Paris"),
        ("end", "Paris"),
        ("start", "Oslo"),
        ("end", "Oslo"),
        ("start", "Rome"),
        ("end", "Rome"),
    ]
    assert runs[True][1] == runs[False][1]


def test_nothing_runs_ahead_past_a_call_that_needs_approval():
    log, memory = [], Memory("s")
    reply = calls(
        ("weather", {"city": "Paris"}, "c1"),
        ("plain", {"city": "Oslo"}, "c2"),
        ("book", {"city": "Rome"}, "c3"),
        ("weather", {"city": "Rome"}, "c4"),
    )
    result = run_agent("Trip?", scripted([reply, final("x")]), weather_box(log), memory, approve=None)
    assert result["stopped"] == "needs_person"
    assert ("book", "Rome") not in log and ("start", "Rome") not in log  # refused, and the one after it
    assert [c for k, c in log if k in ("start", "plain")] == ["Paris", "Oslo"]
    answers = {m["tool_call_id"]: m["content"] for m in memory.history if m["role"] == "tool"}
    assert list(answers) == ["c1", "c2", "c3", "c4"]
    assert answers["c2"] == "OSLO" and answers["c3"].startswith("error: a person has not approved book")


def test_the_tool_call_limit_and_malformed_calls_hold_in_parallel():
    log, memory = [], Memory("s")
    reply = calls(
        ("weather", {"city": "Paris"}, "c1"),
        ("nope", {}, "c2"),
        ("weather", {"city": "x"}, "c1"),
        ("weather", {"city": "Oslo"}, "c4"),
        ("weather", {"city": "Rome"}, "c5"),
    )
    result = run_agent("Weather?", scripted([reply, final("x")]), weather_box(log), memory, max_tool_calls=3)
    assert result["stopped"] == "step_limit" and result["tool_calls"] == 3
    assert [c for k, c in log if k == "start"] == ["Paris", "Oslo"]  # c2 unknown (runs, says so), c1 reused id
    answers = [m["content"] for m in memory.history if m["role"] == "tool"]
    assert len(answers) == 5 and answers[1].startswith("error: no tool named 'nope'")
    assert "reused the id" in answers[2] and answers[4].startswith("error: skipped")
