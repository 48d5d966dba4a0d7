"""The calls of one reply run side by side (`Toolbox(parallel=True)`), answered in order.

    box = Toolbox(parallel=True)            # run_agent runs a reply's independent calls together

One call's time limit and retries are tools.py's (`invoke`). `run_ahead(...)`: run_agent answers a reply's calls one by one, in order. With
`parallel=True`, the calls it would run next anyway — the reply's calls up to the first that
needs approval (a refusal skips the rest), leaving out malformed ones, within what is left of
`max_tool_calls` — are started together first, on one event loop (eventloop.py); the loop then
answers every call in its original order with its own id. Run either way, memory ends the same;
only the waiting overlaps. `async def` tools wait together; plain ones still run one after another.
"""

import asyncio
import time
from collections.abc import Callable

from .eventloop import run_sync
from .seams import Tools
from .tools import Toolbox


def run_ahead(
    toolbox: Tools, calls: list[dict], broken: dict, room: int | None, emit: Callable, step: int
) -> dict[str, tuple[str, float]]:
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
        emit(
            "tool_call",
            step=step,
            call_id=call["id"],
            tool=call["function"]["name"],
            arguments=call["function"]["arguments"],
        )
    results = run_sync(run_together(toolbox, batch))
    return {call["id"]: result for call, result in zip(batch, results)}


async def run_together(toolbox: Toolbox, calls: list[dict]) -> list[tuple[str, float]]:
    """Run calls side by side; each one's (result, seconds), in the order of the calls."""

    async def timed(call: dict) -> tuple[str, float]:
        started = time.perf_counter()
        result = await toolbox.run_async(call["function"]["name"], call["function"]["arguments"])
        return result, time.perf_counter() - started

    return list(await asyncio.gather(*(timed(call) for call in calls)))
