"""Tool calls that may hang or fail for a moment, and the calls of one reply run side by side.

    box = Toolbox(parallel=True)            # run_agent runs a reply's independent calls together

    @box.tool(timeout=2.0, retries=2)       # stopped at an await after 2 s; tried 3 times in all
    async def fetch_page(url: str) -> str: ...

One call, `invoke(tool, args, delay)`: an `async def` tool runs under `asyncio.wait_for(timeout)`.
A failure that may pass — a TimeoutError (the time limit's or the tool's own), a ConnectionError,
or a `TransientError` the tool raises — is tried again after `backoff(attempt)` from
models/retry.py (doubling from `delay`, with jitter), up to `retries` more times. Any other
failure is final at once: wrong arguments, a refusal or a bug will not fix themselves.

A timeout stops a tool only where it gives control back: at an `await`. A plain `def` tool runs
to its end once started — Python cannot stop a running function from outside (in CPython a thread
could stop *waiting* for it while it carried on; Pyodide has no threads) — so the Toolbox refuses
a timeout for one. In the page, Stop is what ends a plain tool that never returns.

A reply's calls, `run_ahead(...)`: run_agent answers a reply's calls one by one, in order. With
`parallel=True`, the calls it would run next anyway — the reply's calls up to the first that
needs approval (a refusal skips the rest), leaving out malformed ones, within what is left of
`max_tool_calls` — are started together first, on one event loop (eventloop.py); the loop then
answers every call in its original order with its own id. Run either way, memory ends the same;
only the waiting overlaps. `async def` tools wait together; plain ones still run one after another.
"""

import asyncio
import inspect
import random
import time
from collections.abc import Callable

from .eventloop import run_sync
from .models.retry import backoff
from .tools import Tool, Toolbox, ToolError, TransientError, stringify

RETRYABLE = (TimeoutError, ConnectionError, TransientError)


async def invoke(tool: Tool, args: dict, delay: float, rand: Callable[[], float] = random.random) -> str:
    """One checked call with its time limit and retries; always text, `error: ...` on failure."""
    tries = 1 + tool.retries
    for attempt in range(1, tries + 1):
        try:
            result = tool.func(**args)
            if inspect.isawaitable(result):
                result = await (asyncio.wait_for(result, tool.timeout) if tool.timeout else result)
            return stringify(result)
        except RETRYABLE as exc:
            if attempt == tries:
                return failure(tool, exc) + (f" (tried {tries} times)" if tries > 1 else "")
            await asyncio.sleep(backoff(attempt, rand, delay))  # other calls go on meanwhile
        except ToolError as exc:
            return f"error: {exc}"
        except Exception as exc:  # a tool's own bug becomes text the model can act on
            return f"error: {tool.name} failed: {type(exc).__name__}: {exc}"
    raise AssertionError("unreachable")


def failure(tool: Tool, exc: Exception) -> str:
    """The `error:` text for a failure that may pass, once the tries are used up."""
    if isinstance(exc, TimeoutError) and tool.timeout and not str(exc):
        return f"error: {tool.name} timed out after {tool.timeout:g} s"
    if isinstance(exc, ToolError):
        return f"error: {exc}"
    return f"error: {tool.name} failed: {type(exc).__name__}: {exc}"


def run_ahead(toolbox: Toolbox, calls: list[dict], broken: dict, room: int | None,
              emit: Callable, step: int) -> dict[str, tuple[str, float]]:
    """Start together the calls run_agent would run next anyway; {call id: (result, seconds)}.

    Nothing runs ahead unless the toolbox was built with parallel=True and two calls qualify.
    `broken` holds the malformed calls (answered with their error instead), `room` how many
    more tools may run (None: no limit). Emits each call's `tool_call` event as it starts.
    """
    if not getattr(toolbox, "parallel", False):
        return {}
    batch = []
    for call in calls:
        if room is not None and len(batch) >= room:
            break
        if call["id"] in broken:
            continue
        if toolbox.needs_approval(call["function"]["name"]):
            break  # it may be refused, and then the calls after it must not run
        batch.append(call)
    if len(batch) < 2:
        return {}
    for call in batch:
        emit("tool_call", step=step, call_id=call["id"], tool=call["function"]["name"],
             arguments=call["function"]["arguments"])
    results = run_sync(run_together(toolbox, batch))
    return {call["id"]: result for call, result in zip(batch, results)}


async def run_together(toolbox: Toolbox, calls: list[dict]) -> list[tuple[str, float]]:
    """Run calls side by side; each one's (result, seconds), in the order of the calls."""
    async def timed(call: dict) -> tuple[str, float]:
        started = time.perf_counter()
        result = await toolbox.run_async(call["function"]["name"], call["function"]["arguments"])
        return result, time.perf_counter() - started
    return list(await asyncio.gather(*(timed(call) for call in calls)))
