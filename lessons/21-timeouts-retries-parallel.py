# %% [markdown]
# # 21 · Timeouts, retries and calls in parallel
#
# Until now every tool answered at once. Real tools talk to the world, and the world is slow
# and moody: a service hangs and never answers, or fails for a moment ("busy", "connection
# reset") and would answer a second later. And a model often asks for several things at once —
# the weather in three cities — which need not wait for each other.
#
# Seed 002 names the first two: "add timeouts around real model and tool calls". Seed 004 lists
# "no parallelism" among its agent's limits, and notes that systems allow several calls at once
# "when they are clearly independent". This lesson adds all three to tool calls:
#
# - a **retry** with backoff, for failures that may pass;
# - a **timeout**, for a call that hangs;
# - the independent calls of one reply run **side by side**, each answered in its place.

# %%
import asyncio
import json
import time

from looplab import Collector, Memory, Toolbox, printer, run_agent
from looplab.eventloop import new_loop, run_sync
from looplab.lesson import expect
from looplab import retry
from looplab.models import calls, final, pick_model, scripted
from looplab.tools import TransientError

WEATHER = {"Paris": "18 C, light rain", "Oslo": "9 C, clear", "Rome": "24 C, sunny"}

# %% [markdown]
# ## Model calls already have both
#
# The live adapters have had a timeout and retries from the start: `LLM_TIMEOUT` (60 s by
# default) bounds each request, and `looplab/retry.py` decides what to try again. Read
# it; it is short. Tried again: 408, 409, 429, any 5xx, and network failures. Never: a 401 or a
# 404, because a wrong key or model name will not fix itself. Between tries it waits longer and
# longer — **exponential backoff** — so a struggling server gets room to recover, honouring a
# `Retry-After` header when the server sends one:

# %%
print("full waits:  ", [retry.backoff(n, rand=lambda: 1.0) for n in range(1, 7)])
print("with jitter: ", [round(retry.backoff(n), 2) for n in range(1, 7)])

# %% [markdown]
# The second line has **jitter**: each wait is somewhere between half and all of the full one.
# When a server hiccups, a thousand clients fail at the same moment; without jitter they would
# all come back at the same moment too, and knock it over again.
#
# Tools need the same care. A failure that may pass is worth another try; a wrong argument or a
# bug is not, so only some errors are retried: a `TimeoutError`, a `ConnectionError`, or a
# `TransientError` that a tool raises to say "try me again".

# %% [markdown]
# ## Exercise 1: try again, with backoff
#
# Write `call_with_retries(func, arguments, retries=2, sleep=time.sleep, base=0.5)`:
#
# 1. call `func(**arguments)` and return its result as text;
# 2. if it raises one of `RETRYABLE`, wait `base * 2 ** (attempt - 1)` seconds — through `sleep`,
#    so a test can watch the waits instead of sitting through them — and try again, up to
#    `retries` more times. When the last try fails too, return `error: <the exception> (tried N
#    times)`;
# 3. any other exception is returned at once as `error: <its type>: <the exception>`, not retried.
#
# (Loop Lab's version adds jitter; leave it out here, so the waits can be checked.)

# %%
RETRYABLE = (TimeoutError, ConnectionError, TransientError)

# %% tags=["exercise"]
def call_with_retries(func, arguments, retries=2, sleep=time.sleep, base=0.5):
    """Call func(**arguments); after a failure that may pass, wait and try again; always text."""
    try:
        return str(func(**arguments))
    except Exception as exc:
        return f"error: {type(exc).__name__}: {exc}"

# %% [markdown] tags=["hint"]
# Loop over the tries: `for attempt in range(1, retries + 2):`. Catch `RETRYABLE` before
# `Exception`, and only sleep when another try is coming.

# %% [markdown] tags=["hint"]
# ```python
# def call_with_retries(func, arguments, retries=2, sleep=time.sleep, base=0.5):
#     tries = retries + 1
#     for attempt in range(1, tries + 1):
#         try:
#             return str(func(**arguments))
#         except RETRYABLE as exc:
#             if attempt == tries:
#                 return f"error: {exc} (tried {tries} times)"
#             sleep(base * 2 ** (attempt - 1))
#         except Exception as exc:
#             return f"error: {type(exc).__name__}: {exc}"
# ```

# %% tags=["solution"]
def call_with_retries(func, arguments, retries=2, sleep=time.sleep, base=0.5):
    """Call func(**arguments); after a failure that may pass, wait and try again; always text."""
    tries = retries + 1
    for attempt in range(1, tries + 1):
        try:
            return str(func(**arguments))
        except RETRYABLE as exc:
            if attempt == tries:
                return f"error: {exc} (tried {tries} times)"
            sleep(base * 2 ** (attempt - 1))
        except Exception as exc:
            return f"error: {type(exc).__name__}: {exc}"

# %%
def flaky(failures, error):
    """A weather service that fails `failures` times with `error`, then answers; it counts its calls."""
    def weather(city):
        weather.calls += 1
        if weather.calls <= failures:
            raise error
        return WEATHER[city]
    weather.calls = 0
    return weather


def trial(service, retries):
    """Run the learner's function with a recording sleep: (result, calls made, waits asked for)."""
    waits = []
    try:
        result = call_with_retries(service, {"city": "Oslo"}, retries=retries, sleep=waits.append)
    except Exception as exc:
        result = f"raised {type(exc).__name__}: {exc}"
    return result, service.calls, waits


trials = {
    "recovers": trial(flaky(2, ConnectionError("connection reset")), retries=2),
    "gives up": trial(flaky(5, TransientError("the service is busy")), retries=1),
    "a bug": trial(flaky(5, KeyError("Olso")), retries=3),
    "first try": trial(flaky(0, None), retries=2),
}
for name, (result, made, waits) in trials.items():
    print(f"{name:10} {made} call(s), waited {waits}: {result}")

# %% [markdown]
# ## A timeout needs a place to stop
#
# A call that hangs is worse than one that fails: it never says anything, and the run waits with
# it. A **timeout** gives up after a set time. But giving up is only possible where the running
# code hands control back — and in Python that place is an `await`.
#
# An `async def` function can pause at each `await` while something else runs; `asyncio` is the
# part of the standard library that runs such functions. `asyncio.wait_for(coroutine, seconds)`
# lets a coroutine run, and when the time is up it cancels it *at the await where it is
# waiting*. `run_sync` (from `looplab.eventloop`) runs asyncio code to its end from ordinary
# code, here and in the page:

# %%
async def hanging_weather(city):
    await asyncio.sleep(3600)            # a service that never answers
    return WEATHER[city]


async def with_limit(seconds):
    try:
        return await asyncio.wait_for(hanging_weather("Paris"), seconds)
    except TimeoutError:
        return f"error: the weather service did not answer within {seconds} s"


started = time.perf_counter()
limited = run_sync(with_limit(0.1))
print(limited, f"({time.perf_counter() - started:.2f} s)")

# %% [markdown] tags=["predict"]
# A plain `def` tool that calls `time.sleep(5)` is registered with `timeout=0.1`. What happens?
#
# - [ ] the call is stopped after 0.1 s and the model gets a timeout error
# - [ ] the call runs its 5 s, then its result is thrown away as too late
# - [x] the Toolbox refuses the timeout when the tool is registered
#
# A plain function has no `await`, so once it starts nothing can stop it from the outside.
# Accepting the timeout would promise something that cannot happen.

# %%
box = Toolbox()
try:
    box.register("slow_weather", "The weather in a city.", None, lambda: time.sleep(5), timeout=0.1)
except ValueError as exc:
    refused = str(exc)
    print(refused)

# %% [markdown]
# What a timeout can and cannot do, honestly:
#
# | the tool | CPython | in this page (Pyodide) |
# | --- | --- | --- |
# | `async def`, waiting at an `await` | stopped at the time limit | stopped at the time limit |
# | plain `def` that hangs | cannot be stopped. A thread could stop *waiting* for it, but the function runs on in the background (Python cannot kill a thread); Loop Lab does not pretend | cannot be stopped: there are no threads at all. **Stop** is the way out: it interrupts Python |
# | `async def` awaiting the browser (a JavaScript `fetch`) | — | `run_sync` cannot wait for the browser, which gets no turn while Python runs; it raises `Stuck` at once rather than hang |
#
# In the page, `asyncio.run` does not work at all: the browser's own event loop is always running
# and cannot be blocked on. `run_sync` runs a small event loop of its own instead, one that can
# wait for timers and for other tasks — all that a timeout, a backoff or calls side by side need:

# %%
probe = asyncio.sleep(0)
try:
    asyncio.run(probe)
    print("asyncio.run works here: this is CPython")
except RuntimeError as exc:
    probe.close()
    print("asyncio.run fails here:", exc)
loop = new_loop()
print("run_sync's loop here:", type(loop).__name__)
loop.close()

# %% [markdown]
# ## Calls side by side
#
# The model asks for the weather in three cities in **one** reply: three calls, none needing
# another's result. Run one after another, they take the sum of their times; started together,
# the longest of them. Each call still gets its answer **in its place**: the tool messages follow
# the order of the calls, each with its call's id (lesson 3), whichever finished first.
#
# `asyncio.gather(a, b, c)` starts coroutines together and returns their results in the order
# they were given — not the order they finished.

# %%
DELAYS = {"Paris": 0.15, "Oslo": 0.05, "Rome": 0.1}
log = []


async def weather(city):
    "The weather in a city (a slow service: Paris takes longest)."
    log.append(("start", city))
    await asyncio.sleep(DELAYS.get(city, 0))
    log.append(("end", city))
    if city not in WEATHER:
        raise KeyError(city)
    return WEATHER[city]


TOOLS = {"weather": weather}
THREE = calls(("weather", {"city": "Paris"}, "call_p"), ("weather", {"city": "Oslo"}, "call_o"),
              ("weather", {"city": "Rome"}, "call_r"))["tool_calls"]

# %% [markdown]
# ## Exercise 2: run a reply's calls together
#
# Write `run_calls_together(tool_calls, tools)`, an `async def`: `tools` maps a name to an
# `async def` function, and each call's arguments are JSON text. Run all the calls **at the same
# time** and return one tool message `{"role": "tool", "tool_call_id": ..., "content": ...}` per
# call, in the order of the calls. A call that raises (or names a tool that does not exist)
# gets `error: ...` as its content; the others are not disturbed. The starter is correct but
# awaits one call after the other.

# %% tags=["exercise"]
async def run_calls_together(tool_calls, tools):
    """Run a reply's calls side by side; one tool message per call, in the order of the calls."""
    messages = []
    for tool_call in tool_calls:
        function = tools[tool_call["function"]["name"]]
        result = await function(**json.loads(tool_call["function"]["arguments"]))
        messages.append({"role": "tool", "tool_call_id": tool_call["id"], "content": str(result)})
    return messages

# %% [markdown] tags=["hint"]
# Write an inner `async def one(tool_call)` that runs a single call and returns its tool
# message, catching any exception into an `error:` text. Then start them all at once.

# %% [markdown] tags=["hint"]
# `await asyncio.gather(*(one(c) for c in tool_calls))` starts every `one(...)` together and
# returns the messages in the order of `tool_calls`. `tools[name]` raises `KeyError` for an
# unknown name: put it inside the `try`.

# %% [markdown] tags=["hint"]
# ```python
# async def run_calls_together(tool_calls, tools):
#     async def one(tool_call):
#         name = tool_call["function"]["name"]
#         try:
#             result = await tools[name](**json.loads(tool_call["function"]["arguments"]))
#         except Exception as exc:
#             result = f"error: {name} failed: {type(exc).__name__}: {exc}"
#         return {"role": "tool", "tool_call_id": tool_call["id"], "content": str(result)}
#     return list(await asyncio.gather(*(one(c) for c in tool_calls)))
# ```

# %% tags=["solution"]
async def run_calls_together(tool_calls, tools):
    """Run a reply's calls side by side; one tool message per call, in the order of the calls."""
    async def one(tool_call):
        name = tool_call["function"]["name"]
        try:
            result = await tools[name](**json.loads(tool_call["function"]["arguments"]))
        except Exception as exc:
            result = f"error: {name} failed: {type(exc).__name__}: {exc}"
        return {"role": "tool", "tool_call_id": tool_call["id"], "content": str(result)}
    return list(await asyncio.gather(*(one(c) for c in tool_calls)))

# %% [markdown] tags=["predict"]
# Paris is the slowest city (0.15 s), Oslo the quickest. In what order does
# `run_calls_together` return the three tool messages?
#
# - [ ] Oslo, Rome, Paris: the order they finished
# - [x] Paris, Oslo, Rome: the order of the calls
# - [ ] it depends on the run
#
# `gather` keeps the order it was given. The finishing order shows only in the log.

# %%
def together(tool_calls):
    """Run the learner's function; the messages, the start/end log, and the time it took."""
    log.clear()
    started = time.perf_counter()
    try:
        out = run_sync(run_calls_together(tool_calls, TOOLS))
    except Exception as exc:
        out = f"raised {type(exc).__name__}: {exc}"
    return out, list(log), time.perf_counter() - started


three, three_log, three_seconds = together(THREE)
print(f"{three_seconds:.2f} s (one after another would take {sum(DELAYS.values()):.2f} s)")
for message in three if isinstance(three, list) else [three]:
    print(" ", message)
print("  log:", three_log)
WITH_BAD = calls(("weather", {"city": "Paris"}, "call_1"), ("weather", {"city": "Atlantis"}, "call_2"),
                 ("forecast", {"city": "Rome"}, "call_3"), ("weather", {"city": "Rome"}, "call_4"))["tool_calls"]
mixed, _, _ = together(WITH_BAD)
empty, _, _ = together([])
print(mixed, empty, sep="\n")

# %% [markdown]
# ## The hardened version: `Toolbox(parallel=True)`, `timeout=` and `retries=`
#
# In Loop Lab a tool may be `async def`, and `@box.tool(timeout=..., retries=...)` gives it a time
# limit and retries; `Toolbox(parallel=True)` makes `run_agent` run a reply's calls side by side.
# The loop's contract is unchanged: `run_agent` is still one synchronous function. Read
# `looplab/parallel.py` (one call with its limit and retries; the calls of a reply together) and
# `looplab/eventloop.py` (`run_sync`). What they add to your two functions:
#
# - **the loop's rules still hold**: calls run ahead together only up to the first one that
#   needs approval (a refusal must skip the calls after it), never past `max_tool_calls`, and a
#   malformed call is answered with its error, not run. Memory ends exactly as if the calls had
#   run one by one (a property test checks this on thousands of generated replies);
# - **retries wait without blocking**: while one call backs off, the others go on; the waits
#   have jitter (`retry.py`'s `backoff`), starting at `Toolbox(retry_delay=...)`;
# - **a time limit per tool**, refused for a plain function, as you saw;
# - **plain tools too**: they run one after another inside the batch (there is one thread), the
#   async ones wait together;
# - **events**: the trace shows every `tool_call` of the batch as it starts, then the results.
#
# Here the model asks for three cities and a forecast service that hangs; the weather service
# fails once before answering:

# %%
fast = Toolbox(parallel=True, retry_delay=0.05)
tries = {"weather": 0}


@fast.tool(retries=2)
async def city_weather(city: str) -> str:
    "The weather now in a city."
    tries["weather"] += 1
    await asyncio.sleep(DELAYS.get(city, 0))
    if tries["weather"] == 1:
        raise TransientError("the weather service is busy")
    return WEATHER.get(city, f"no weather for {city}")


@fast.tool(timeout=0.2)
async def forecast(city: str) -> str:
    "Tomorrow's forecast for a city."
    await asyncio.sleep(3600)
    return "sunny"


ASK = calls(("city_weather", {"city": "Paris"}, "call_p"), ("city_weather", {"city": "Oslo"}, "call_o"),
            ("city_weather", {"city": "Rome"}, "call_r"), ("forecast", {"city": "Rome"}, "call_f"))
events = Collector()
memory = Memory("You report the weather.")
started = time.perf_counter()
trip = run_agent("Weather now in Paris, Oslo and Rome, and tomorrow in Rome?",
                 scripted([ASK, final("Paris 18 C and rain, Oslo 9 C, Rome 24 C; no forecast for tomorrow.")]),
                 fast, memory, tracer=events)
trip_seconds = time.perf_counter() - started
for event in events:
    if event["type"] in ("tool_call", "tool_result"):
        print(f"  {event['t']:.2f} s  {event['type']:11} {event['call_id']}  {event.get('result', '')}")
print(trip, f"({trip_seconds:.2f} s)")
answers = [(m["tool_call_id"], m["content"]) for m in memory.history if m["role"] == "tool"]

# %% [markdown]
# ## With the lesson's model
#
# Scripted, the model asks for all three cities at once. A live model decides for itself
# whether to ask for them together; many do, when the calls are independent.

# %%
weather_box = Toolbox(parallel=True)
weather_box.tool(city_weather, retries=2)
tries["weather"] = 1                      # the busy moment is over
your_memory = Memory("You report the weather. Ask for every city at once.")
your_run = run_agent("What is the weather now in Paris, Oslo and Rome?",
                     pick_model([calls(("city_weather", {"city": "Paris"}), ("city_weather", {"city": "Oslo"}),
                                       ("city_weather", {"city": "Rome"})),
                                 final("Paris 18 C, Oslo 9 C, Rome 24 C.")]),
                     weather_box, your_memory, tracer=printer())
asked = [c["id"] for m in your_memory.history if m["role"] == "assistant" for c in m.get("tool_calls") or []]
answered = [m["tool_call_id"] for m in your_memory.history if m["role"] == "tool"]

# %% tags=["check"]
# a failure that may pass is tried again, and the answer comes through
assert trials["recovers"][0] == WEATHER["Oslo"] and trials["recovers"][1] == 3, (
    f"recovers: {trials['recovers']}; a ConnectionError twice, then an answer: with retries=2 that is 3 calls")
# the waits double, starting at base
assert trials["recovers"][2] == [0.5, 1.0], f"the waits were {trials['recovers'][2]}; wait base * 2 ** (attempt - 1) through sleep"
# when the tries run out, the error says how many there were
assert trials["gives up"][1] == 2 and trials["gives up"][0].startswith("error:") and "tried 2 times" in trials["gives up"][0], (
    f"gives up: {trials['gives up']}; with retries=1 there are 2 tries, and the error says so")
# a bug is not retried
assert trials["a bug"][1] == 1 and trials["a bug"][2] == [] and trials["a bug"][0].startswith("error: KeyError"), (
    f"a bug: {trials['a bug']}; only RETRYABLE errors are tried again")
# a call that works at once does not wait
assert trials["first try"] == (WEATHER["Oslo"], 1, []), f"first try: {trials['first try']}"
# a hanging async call is stopped by its time limit
assert limited.startswith("error: the weather service did not answer"), limited
# a timeout on a plain function is refused, saying why
assert "async def" in refused and "slow_weather" not in box, refused
# your calls come back in the order of the calls, each with its id
assert isinstance(three, list) and [m["tool_call_id"] for m in three] == ["call_p", "call_o", "call_r"], f"got {three}"
# each message holds its own city's weather
assert isinstance(three, list) and [m["content"] for m in three] == [WEATHER["Paris"], WEATHER["Oslo"], WEATHER["Rome"]], f"got {three}"
# the three calls ran at the same time: all started before the first ended
assert [kind for kind, _ in three_log[:3]] == ["start", "start", "start"], (
    f"the log was {three_log}; each call ended before the next started — start them together with asyncio.gather")
# a failing or unknown call gets an error, and every call is still answered
assert isinstance(mixed, list) and [m["tool_call_id"] for m in mixed] == ["call_1", "call_2", "call_3", "call_4"] and \
    [m["content"].startswith("error:") for m in mixed] == [False, True, True, False], (
    f"got {mixed}; catch the exception inside each call (an unknown name too) and return an error: text")
# no calls, no messages
assert empty == [], f"got {empty!r}"
# run_agent answered all four calls in their order, with the busy service retried and the forecast cut off
assert [a[0] for a in answers] == ["call_p", "call_o", "call_r", "call_f"] and answers[0][1] == WEATHER["Paris"] and \
    answers[3][1] == "error: forecast timed out after 0.2 s", answers
# the four calls of the reply started together, before any result
assert [e["type"] for e in events if e["type"] in ("tool_call", "tool_result")] == ["tool_call"] * 4 + ["tool_result"] * 4
# with the lesson's model, every call the model made was answered once, with its id
assert sorted(asked) == sorted(answered) and len(set(answered)) == len(answered), (asked, answered)
# with the prepared replies, the three cities were asked for at once and the answer came back
expect(your_run["stopped"] == "final" and len(asked) == 3 and your_run["steps"] == 2, f"the run gave {your_run}",
       observed=f"the model made {len(asked)} tool calls and the run ended {your_run['stopped']} after {your_run['steps']} steps")
