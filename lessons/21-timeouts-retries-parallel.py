# ---
# jupyter:
#   looplab:
#     deepens: "04"
#     adds: timeouts, retries only where a repeat is safe, and tool calls in parallel
# ---

# %% [markdown]
# # 21 · Timeouts, retries and calls in parallel
#
# Until now every tool answered at once. Real tools talk to the world, and the world is slow
# and moody: a service hangs and never answers, or fails for a moment ("busy", "connection
# reset") and would answer a second later. And a model often asks for several things at once —
# the weather in three cities — which need not wait for each other.
#
# A from-scratch agent usually has none of this: no time limit around its calls, no second try,
# one call at a time even when the calls are clearly independent. This lesson adds all three to
# tool calls, and the care a second try needs:
#
# - a **retry** with backoff, for failures that may pass — and only for calls that are **safe
#   to repeat**, or made safe with an **idempotency key**;
# - a **timeout**, for a call that hangs;
# - the independent calls of one reply run **side by side**, each answered in its place.

# %%
import asyncio
import json
import time

from looplab import Collector, Memory, Toolbox, printer, run_agent
from looplab.eventloop import new_loop, run_sync
from looplab import expect
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
# Count the tries: one, plus `retries` more. Which exceptions earn another try, and is there any
# point waiting after the very last one?

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

# %% tags=["wrong"]
# wrong: every exception is retried, a bug included
# expect: only RETRYABLE
# patch:
# -        except RETRYABLE as exc:
# +        except Exception as exc:

# %% tags=["wrong"]
# wrong: the first wait is already doubled (base * 2 ** attempt)
# expect: the waits were
# patch:
# -            sleep(base * 2 ** (attempt - 1))
# +            sleep(base * 2 ** attempt)

# %% tags=["wrong"]
# wrong: retries counts all the tries, so retries=1 tries once and never again
# expect: 2 tries
# patch:
# -    tries = retries + 1
# -    for attempt in range(1, tries + 1):
# +    for attempt in range(1, retries + 1):
# @@
# -            if attempt == tries:
# -                return f"error: {exc} (tried {tries} times)"
# +            if attempt == retries:
# +                return f"error: {exc} (tried {retries} times)"

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
# ## Retry only what is safe to repeat
#
# A retry assumes that the failed try did nothing. Often it did. A timeout or a reset connection
# after the request was sent says only that *the answer* did not arrive: the service may have
# sent the email, or bought the shares, and the reply was lost on the way back. Try again and
# the customer gets two emails, or twice the shares.
#
# A call is **idempotent** when doing it twice leaves the world as doing it once: reading a
# note, looking up the weather, setting a value. Those may be retried freely. A call with a
# side effect (`send_email`, `buy_shares`, a payment) may be retried only if the service can
# tell a repeat from a new request. The usual way is an **idempotency key**: the caller makes
# one key per intended action (the model's call id is a good one), sends the same key with every
# try, and the service remembers the keys it has done: a repeat gets the first result back, and
# nothing happens twice. Payment APIs work this way (Stripe's `Idempotency-Key` header is the
# best known). Without a key, a side effect is tried **once**, and a lost answer is reported as
# "may or may not have happened", for a person to check.
#
# Here is an email service whose reply is lost the first time, after it has sent the email:

# %%
OUTBOX = []


def lossy_send_email(to, text, idempotency_key=None):
    """Sends at once; the first call's reply is lost on the way back (a TimeoutError after sending)."""
    OUTBOX.append((to, text))
    lossy_send_email.calls += 1
    if lossy_send_email.calls == 1:
        raise TimeoutError("no reply from the mail server")
    return f"sent to {to}"


lossy_send_email.calls = 0
naive = call_with_retries(lossy_send_email, {"to": "ana@example.org", "text": "Your refund is on its way."},
                          sleep=lambda seconds: None)
print(naive, "| emails in the outbox:", len(OUTBOX))

# %% [markdown]
# ## Exercise 2: an idempotency key
#
# Write `idempotent(func)`, the service's side of the key: it returns a new function that takes
# the same arguments plus `idempotency_key`, and
#
# - the first time it sees a key, runs `func(**arguments)` and remembers its result under the key;
# - a repeat of a key it has a result for returns that result **without** running `func` again;
# - a call that raises remembers nothing (the work may not have been done: the next try must run).
#
# The checks put it around a mail server's work, behind a network that loses the first reply
# after the work is done, with your `call_with_retries` trying again with the same key.

# %% tags=["exercise"]
def idempotent(func):
    """`func` made safe to retry: a repeat of an idempotency key returns the first result, doing nothing."""
    def once(idempotency_key, **arguments):
        return func(**arguments)
    return once

# %% [markdown] tags=["hint"]
# The function you return needs a memory that outlives each call: a dict made in `idempotent`,
# from key to result. Decide what to look up before running `func`, and when to write.

# %% [markdown] tags=["hint"]
# An empty dict made in `idempotent`; in `once`: a key already in it gives back what was stored;
# otherwise run `func` with the arguments and store its result only after it returned. If `func`
# raises, nothing was stored, so the next try runs it.

# %% [markdown] tags=["hint"]
# ```python
# def idempotent(func):
#     done = {}
#     def once(idempotency_key, **arguments):
#         if idempotency_key in done:
#             return done[idempotency_key]
#         result = func(**arguments)
#         done[idempotency_key] = result
#         return result
#     return once
# ```

# %% tags=["wrong"]
# wrong: the key is taken but never remembered, so every try does the work again
# expect: sent twice
# replaces: idempotent
def idempotent(func):
    def once(idempotency_key, **arguments):
        seen = {idempotency_key}
        return func(**arguments)
    return once

# %% tags=["wrong"]
# wrong: one result is remembered for every key, so a second, different email is never sent
# expect: new key
# replaces: idempotent
def idempotent(func):
    done = []
    def once(idempotency_key, **arguments):
        if done:
            return done[0]
        done.append(func(**arguments))
        return done[0]
    return once

# %% tags=["wrong"]
# wrong: the key is marked as done before the work, so a try that failed before sending blocks the next
# expect: failed before sending
# patch:
# -        result = func(**arguments)
# -        done[idempotency_key] = result
# -        return result
# +        done[idempotency_key] = None
# +        done[idempotency_key] = func(**arguments)
# +        return done[idempotency_key]

# %% tags=["solution"]
def idempotent(func):
    """`func` made safe to retry: a repeat of an idempotency key returns the first result, doing nothing."""
    done = {}
    def once(idempotency_key, **arguments):
        if idempotency_key in done:
            return done[idempotency_key]
        result = func(**arguments)
        done[idempotency_key] = result
        return result
    return once

# %%
def mail_service(fail_before=0, lose_after=1):
    """The mail server's work: it fails `fail_before` times before sending anything, then sends."""
    outbox = []

    def send_email(to, text):
        send_email.tries += 1
        if send_email.tries <= fail_before:
            raise ConnectionError("the mail server is busy (nothing was sent)")
        outbox.append((to, text))
        return f"sent to {to} (#{len(outbox)})"
    send_email.tries = 0
    return send_email, outbox


def over_the_network(service, lose_after):
    """The service as the agent reaches it: the first `lose_after` replies are lost after the work was done."""
    def call(**arguments):
        result = service(**arguments)
        call.replies += 1
        if call.replies <= lose_after:
            raise TimeoutError("no reply from the mail server")
        return result
    call.replies = 0
    return call


def keyed_trial(fail_before=0, lose_after=1, emails=(("ana@example.org", "call_1"),)):
    """Send each email through the network to idempotent(send_email), with retries, one key per email."""
    send_email, outbox = mail_service(fail_before, lose_after)
    service = attempt_fn(idempotent, send_email)
    if not callable(service):
        return [service], outbox
    remote = over_the_network(service, lose_after)
    results = [call_with_retries(remote, {"to": to, "text": "Your refund is on its way.", "idempotency_key": key},
                                 retries=3, sleep=lambda seconds: None) for to, key in emails]
    return results, outbox


def attempt_fn(fn, *args):
    try:
        return fn(*args)
    except Exception as exc:
        return f"raised {type(exc).__name__}: {exc}"


keyed = keyed_trial()
two_emails = keyed_trial(lose_after=0, emails=(("ana@example.org", "call_1"), ("ben@example.org", "call_2")))
refused_first = keyed_trial(fail_before=1, lose_after=0)
for name, (results, outbox) in {"lost reply": keyed, "two emails": two_emails, "refused first": refused_first}.items():
    print(f"{name:14} {results}  outbox: {len(outbox)}")

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
# waiting*, and raises `TimeoutError`. `run_sync` (from `looplab.eventloop`) runs asyncio code to
# its end from ordinary code, here and in the page.
#
# ## Exercise 3: a timeout
#
# Write `call_with_timeout(func, arguments, seconds)`, an `async def`: await `func(**arguments)`
# (an `async def` tool) for at most `seconds`, and return its result as text. When the time is
# up, return `error: <the tool's name> did not answer within <seconds> s`; any other exception is
# `error: <its type>: <the exception>`. Always text, never an exception: the model reads it.

# %% tags=["exercise"]
async def call_with_timeout(func, arguments, seconds):
    """Await func(**arguments) for at most `seconds`; the result, or an error text, as text."""
    return str(await func(**arguments))

# %% [markdown] tags=["hint"]
# You cannot watch the clock from inside the call: something outside it must be able to stop it
# at an `await`. One function of `asyncio` named above does exactly that, and says so with an
# exception.

# %% [markdown] tags=["hint"]
# `await asyncio.wait_for(func(**arguments), seconds)` inside a `try`; catch `TimeoutError`
# first (the tool's name is `func.__name__`), then `Exception`.

# %% [markdown] tags=["hint"]
# ```python
# async def call_with_timeout(func, arguments, seconds):
#     try:
#         return str(await asyncio.wait_for(func(**arguments), seconds))
#     except TimeoutError:
#         return f"error: {func.__name__} did not answer within {seconds} s"
#     except Exception as exc:
#         return f"error: {type(exc).__name__}: {exc}"
# ```

# %% tags=["wrong"]
# wrong: the call is awaited to its end and only then compared with the limit
# expect: whole call
# replaces: call_with_timeout
async def call_with_timeout(func, arguments, seconds):
    started = time.perf_counter()
    try:
        result = await func(**arguments)
    except Exception as exc:
        return f"error: {type(exc).__name__}: {exc}"
    if time.perf_counter() - started > seconds:
        return f"error: {func.__name__} did not answer within {seconds} s"
    return str(result)

# %% tags=["wrong"]
# wrong: the limit is set, but the TimeoutError it raises is not caught
# expect: TimeoutError
# patch:
# -    except TimeoutError:
# -        return f"error: {func.__name__} did not answer within {seconds} s"
# -    except Exception as exc:
# +    except (KeyError, ValueError) as exc:

# %% tags=["wrong"]
# wrong: only the timeout is caught, so a tool that fails raises into the loop
# expect: error: KeyError
# patch:
# -    except Exception as exc:
# -        return f"error: {type(exc).__name__}: {exc}"

# %% tags=["solution"]
async def call_with_timeout(func, arguments, seconds):
    """Await func(**arguments) for at most `seconds`; the result, or an error text, as text."""
    try:
        return str(await asyncio.wait_for(func(**arguments), seconds))
    except TimeoutError:
        return f"error: {func.__name__} did not answer within {seconds} s"
    except Exception as exc:
        return f"error: {type(exc).__name__}: {exc}"

# %%
STOPPED = []


async def hanging_weather(city):
    "A weather service that takes a second to answer (as good as never, for a 0.1 s limit)."
    try:
        await asyncio.sleep(1.0)
    except asyncio.CancelledError:
        STOPPED.append(city)          # the timeout cancelled it at this await
        raise
    return WEATHER[city]


async def quick_weather(city):
    "A weather service that answers at once."
    await asyncio.sleep(0.01)
    return WEATHER[city]


def timed(func, arguments, seconds):
    """Run the learner's call_with_timeout: (what it returned, seconds it took)."""
    started = time.perf_counter()
    try:
        out = run_sync(call_with_timeout(func, arguments, seconds))
    except Exception as exc:
        out = f"raised {type(exc).__name__}: {exc}"
    return out, time.perf_counter() - started


limited, limited_seconds = timed(hanging_weather, {"city": "Paris"}, 0.1)
in_time, _ = timed(quick_weather, {"city": "Oslo"}, 0.5)
broken, _ = timed(quick_weather, {"city": "Atlantis"}, 0.5)
print(f"{limited} ({limited_seconds:.2f} s)", in_time, broken, sep="\n")

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
# ## Exercise 4: run a reply's calls together
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
# Each call must be able to fail on its own, and all must start before any finishes. One
# asyncio function starts several together and keeps their order.

# %% [markdown] tags=["hint"]
# Write an inner `async def one(tool_call)` that runs a single call and returns its tool
# message, catching any exception into an `error:` text. Then start them all at once.
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

# %% tags=["wrong"]
# wrong: the calls are still awaited one after another (each error caught)
# expect: start them together
# patch:
# -    async def one(tool_call):
# +    messages = []
# +    for tool_call in tool_calls:
# @@
# -        return {"role": "tool", "tool_call_id": tool_call["id"], "content": str(result)}
# -    return list(await asyncio.gather(*(one(c) for c in tool_calls)))
# +        messages.append({"role": "tool", "tool_call_id": tool_call["id"], "content": str(result)})
# +    return messages

# %% tags=["wrong"]
# wrong: gather runs the calls together, but one failing call takes the whole batch down
# expect: catch the exception inside each call
# replaces: run_calls_together
async def run_calls_together(tool_calls, tools):
    async def one(tool_call):
        result = await tools[tool_call["function"]["name"]](**json.loads(tool_call["function"]["arguments"]))
        return {"role": "tool", "tool_call_id": tool_call["id"], "content": str(result)}
    return list(await asyncio.gather(*(one(c) for c in tool_calls)))

# %% tags=["wrong"]
# wrong: the messages are kept in the order the calls finished
# expect: order of the calls
# patch:
# -    return list(await asyncio.gather(*(one(c) for c in tool_calls)))
# +    return [await done for done in asyncio.as_completed([one(c) for c in tool_calls])]

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
# - **retries per tool, never by default**: put `retries=` only on a tool that is safe to repeat
#   (it reads, or it takes an idempotency key the service honours), as `city_weather` below; a
#   `send_email` without a key gets none, and a lost answer is reported, not repeated;
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
from looplab import Case, compare, generate, reference

FAILURES = {"ok": None, "busy": TransientError("busy"), "reset": ConnectionError("reset"),
            "timeout": TimeoutError("slow"), "bug": KeyError("Olso"), "value": ValueError("bad city")}


def retrying(retry_fn, outcomes, retries, base):
    """call_with_retries on a service that fails as listed, then answers: result, calls made, waits asked for."""
    waits, made = [], []

    def service(city):
        if len(made) >= 50:  # retries without an end must stop here
            raise RuntimeError("the service was called 50 times: the retries do not stop")
        made.append(city)
        failure = FAILURES[outcomes[min(len(made), len(outcomes)) - 1]]
        if failure is not None:
            raise failure
        return WEATHER[city]
    options = {k: v for k, v in (("retries", retries), ("base", base)) if v != "left out"}
    result = retry_fn(service, {"city": "Oslo"}, sleep=waits.append, **options)
    return {"what it returned": result, "the calls made": len(made), "the waits": waits}


def retry_case(d):
    outcomes, retries, base = d.some(lambda d: d.pick(list(FAILURES)), 1, 4), d.pick(["left out", 0, 1, 2, 3]), d.pick(
        ["left out", 0.5, 1, 2])
    return Case((outcomes, retries, base), f"a service whose tries go {', '.join(outcomes)}, retries {retries} and "
                                           f"base {base}")


RETRIES = generate(retry_case, count=120)


def keyed_calls(idempotent_fn, plan):
    """idempotent(send) called as planned (key, to, whether this try fails): each answer, the work done."""
    done, tries = [], []

    def send(to):
        tries.append(to)
        if plan[len(tries) - 1][2] if len(tries) <= len(plan) else False:
            raise ConnectionError("busy, nothing sent")
        done.append(to)
        return f"sent to {to} (#{len(done)})"
    once = idempotent_fn(send)
    answers = []
    for key, to, _ in plan:
        try:
            answers.append(once(idempotency_key=key, to=to))
        except Exception as exc:
            answers.append(f"raised {type(exc).__name__}")
    return {"the answers": answers, "the work done": done}


KEYED = generate(lambda d: Case((d.some(lambda d: (d.pick(["k1", "k2", "k3"]), d.pick(["ana", "ben"]), d.maybe(0.25)),
                                        1, 5),)), count=80)
CANCELLED = []


async def hangs(city):
    "Never answers in time."
    try:
        await asyncio.sleep(10)
    except asyncio.CancelledError:
        CANCELLED.append(city)
        raise
    return "too late"


async def answers_now(city):
    "Answers at once."
    await asyncio.sleep(0)
    return WEATHER[city]


def timing_out(timeout_fn, func, city, seconds):
    CANCELLED.clear()
    return {"what it returned": run_sync(timeout_fn(func, {"city": city}, seconds)), "cancelled": list(CANCELLED)}


TIMEOUTS = [Case((func, city, seconds), f"{func.__name__}({city!r}) with a limit of {seconds} s")
            for func in (answers_now, hangs) for city in ("Oslo", "Atlantis") for seconds in (0.01, 0.02)]


def gathering(together_fn, tool_calls):
    order = []

    async def city_weather(city):
        order.append(("start", city))
        await asyncio.sleep(0)
        order.append(("end", city))
        return WEATHER[city]
    out = run_sync(together_fn(tool_calls, {"weather": city_weather}))
    return {"the messages": [(m["role"], m["tool_call_id"], "error" if str(m["content"]).startswith("error:")
                              else m["content"]) for m in out], "the order things ran in": order}


def a_call(d, n):
    name, city = d.pick(["weather", "weather", "forecast"]), d.pick(["Paris", "Oslo", "Atlantis"])
    arguments = json.dumps({"city": city}) if d.maybe(0.9) else "{city"
    return {"id": f"call_{n}", "type": "function", "function": {"name": name, "arguments": arguments}}


GATHERS = generate(lambda d: Case(([a_call(d, n) for n in range(d.number(0, 4))],)), count=60)

# a failure that may pass is tried again, and the answer comes through
assert trials["recovers"][0] == WEATHER["Oslo"] and trials["recovers"][1] == 3, (
    f"recovers: {trials['recovers']}; a ConnectionError twice, then an answer: with retries=2 that is 3 calls")
# the waits double, starting at base, and a call that works at once does not wait
assert trials["recovers"][2] == [0.5, 1.0] and trials["first try"] == (WEATHER["Oslo"], 1, []), (
    f"the waits were {trials['recovers'][2]} (wait base * 2 ** (attempt - 1) through sleep); first try: "
    f"{trials['first try']}")
# when the tries run out, the error says how many there were
assert trials["gives up"][1] == 2 and trials["gives up"][0].startswith("error:") and "tried 2 times" in trials["gives up"][0], (
    f"gives up: {trials['gives up']}; with retries=1 there are 2 tries, and the error says so")
# a bug is not retried, while a failure that may pass is
assert trials["a bug"][1] == 1 and trials["a bug"][2] == [] and trials["a bug"][0].startswith("error: KeyError") \
    and trials["recovers"][1] > 1, (
    f"a bug: {trials['a bug']}; only RETRYABLE errors are tried again" if trials["recovers"][1] > 1 else
    f"recovers: {trials['recovers']}: a ConnectionError is RETRYABLE, so it is tried again")
# call_with_retries tries, waits and answers as the lesson's does, for many services, retries and bases
assert (retry_found := compare(call_with_retries, reference("call_with_retries"), RETRIES, observe=retrying)), \
    retry_found
# given: retried without a key, a lost reply sends the email twice
assert len(OUTBOX) == 2 and naive.startswith("sent"), (naive, OUTBOX)
# with a key, a lost reply is retried and the email is sent once, the retry getting the first result
assert keyed[0] == ["sent to ana@example.org (#1)"] and len(keyed[1]) == 1, (
    f"the lost-reply service gave {keyed[0]} and its outbox holds {len(keyed[1])} email(s): "
    + ("it was sent twice: remember each key's result and return it for a repeat" if len(keyed[1]) > 1 else
       "the retry must return the result remembered for its key"))
# a new key is a new email, while a repeated key is not
assert two_emails[0] == ["sent to ana@example.org (#1)", "sent to ben@example.org (#2)"] and len(two_emails[1]) == 2 \
    and len(keyed[1]) == 1 and keyed[0] == ["sent to ana@example.org (#1)"], (
    f"two emails with two keys gave {two_emails[0]}: a new key must run the work again, only a repeat of a key may "
    f"not" if len(keyed[1]) == 1 and keyed[0] == ["sent to ana@example.org (#1)"] else
    f"a repeated key gave {keyed[0]} and sent the email {len(keyed[1])} time(s): a lost reply must be retried "
    "(call_with_retries) and the repeat answered from the key, never sent twice")
# a try that failed before sending leaves the key free for the next try
assert refused_first[0] == ["sent to ana@example.org (#1)"] and len(refused_first[1]) == 1, (
    f"a service that failed before sending, then worked, gave {refused_first[0]} (outbox {len(refused_first[1])}): "
    "remember a key's result only once func returned")
# idempotent answers and works as the lesson's does, for many keys, repeats and failures
assert (key_found := compare(idempotent, reference("idempotent"), KEYED, observe=keyed_calls)), key_found
# a hanging async call is stopped at its time limit, cancelled where it waited, with an error naming it
assert limited == "error: hanging_weather did not answer within 0.1 s" and limited_seconds < 0.5 \
    and STOPPED == ["Paris"], (
    f"a call that takes 1 s, with a limit of 0.1 s, gave {limited!r} after {limited_seconds:.2f} s"
    + (" (it waited for the whole call: use asyncio.wait_for, which cancels it at the limit)" if limited_seconds >= 0.5 else "")
    + f"; cancelled: {STOPPED}")
# a call within its limit returns its result, and a tool's own failure is error text
assert in_time == WEATHER["Oslo"] and broken.startswith("error: KeyError"), (
    f"a quick call gave {in_time!r}, a failing one {broken!r}: expected the weather, and 'error: KeyError: ...'")
# call_with_timeout answers and cancels as the lesson's does (quick, hanging and failing tools)
assert (timeout_found := compare(call_with_timeout, reference("call_with_timeout"), TIMEOUTS, observe=timing_out)), \
    timeout_found
# given: a timeout on a plain function is refused, saying why
assert "async def" in refused and "slow_weather" not in box, refused
# the three calls ran at the same time, and come back in the order of the calls, each with its id and city
assert [kind for kind, _ in three_log[:3]] == ["start", "start", "start"] and isinstance(three, list) \
    and [m["tool_call_id"] for m in three] == ["call_p", "call_o", "call_r"] \
    and [m["content"] for m in three] == [WEATHER["Paris"], WEATHER["Oslo"], WEATHER["Rome"]], (
    f"the log was {three_log}; each call ended before the next started: start them together with asyncio.gather"
    if [kind for kind, _ in three_log[:3]] != ["start", "start", "start"] else
    f"got {three}: one message per call, in the order of the calls (not the order they finished), each with its id")
# a failing or unknown call gets an error, every call is still answered, and no calls give no messages
assert empty == [] and isinstance(mixed, list) and [m["tool_call_id"] for m in mixed] == ["call_1", "call_2", "call_3", "call_4"] and \
    [m["content"].startswith("error:") for m in mixed] == [False, True, True, False], (
    f"got {mixed}; catch the exception inside each call (an unknown name too) and return an error: text")
# run_calls_together answers and runs the calls as the lesson's does, for many replies
assert (gather_found := compare(run_calls_together, reference("run_calls_together"), GATHERS, observe=gathering)), \
    gather_found
# given: run_agent answered all four calls in their order, with the busy service retried and the forecast cut off
assert [a[0] for a in answers] == ["call_p", "call_o", "call_r", "call_f"] and answers[0][1] == WEATHER["Paris"] and \
    answers[3][1] == "error: forecast timed out after 0.2 s", answers
# given: the four calls of the reply started together, before any result
assert [e["type"] for e in events if e["type"] in ("tool_call", "tool_result")] == ["tool_call"] * 4 + ["tool_result"] * 4
# given: with the lesson's model, every call the model made was answered once, with its id
assert sorted(asked) == sorted(answered) and len(set(answered)) == len(answered), (asked, answered)
# given: with the prepared replies, the three cities were asked for at once and the answer came back
expect(your_run["stopped"] == "final" and len(asked) == 3 and your_run["steps"] == 2, f"the run gave {your_run}",
       observed=f"the model made {len(asked)} tool calls and the run ended {your_run['stopped']} after {your_run['steps']} steps")
