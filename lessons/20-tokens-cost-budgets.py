# ---
# jupyter:
#   looplab:
#     deepens: "08"
#     adds: what a run costs, prompt caching, and a budget that stops it
# ---

# %% [markdown]
# # 20 · Tokens, cost and budgets
#
# Whoever calls a model's API pays for it, by the token, both ways: the **prompt** tokens sent
# in and the **completion** tokens written back, each at its own price (output usually costs
# several times more). Many providers also keep the start of recent prompts in a **prompt
# cache**, and bill the prompt tokens they find there at a lower **cached** price.
#
# An agent multiplies the bill in a way a chat does not. The model is stateless (lesson 6), so
# every step sends the whole conversation again — the system message, the task, every earlier
# reply and tool result, and the tool schemas — and each step's prompt is bigger than the last.
# Ten steps do not cost ten times one step; they cost the sum of ten ever-longer prompts.
#
# Lesson 4's step limit stops a runaway loop by *count*. This lesson measures what a run
# spends, stops it by that, and shows the two levers that make a loop cheaper: a prompt whose
# start stays the same (so the cache can serve it) and a cap on each reply.

# %%
from typing import Literal

from looplab import Collector, Memory, Toolbox, ToolError, run_agent
from looplab.budget import Budget, read_usage
from looplab.tokens import count_tokens, message_tokens
from looplab import expect
from looplab.models import call, final, pick_model, scripted

NOTES = {
    "n1": ("Eastside branch: visits", "March visits: 1240. April visits: 1310."),
    "n2": ("Westside branch: visits", "March visits: 980. April visits: 1105."),
    "n3": ("Eastside branch: opening days", "Open Monday to Saturday."),
    "n4": ("Westside branch: opening days", "Open Monday to Friday."),
}
box = Toolbox()


@box.tool
def search_notes(keyword: str) -> str:
    "Find notes whose title contains a keyword. Returns 'id: title' lines."
    found = [f"{i}: {t}" for i, (t, _) in NOTES.items() if keyword.lower() in t.lower()]
    return "\n".join(found) or f"no notes found for {keyword!r}"


@box.tool
def read_note(note_id: str) -> str:
    "Return the text of one note by its id, such as n1."
    if note_id not in NOTES:
        raise ToolError(f"no note with id {note_id!r}; ids are {', '.join(NOTES)}")
    return NOTES[note_id][1]


@box.tool
def calculate(a: float, b: float, operation: Literal["add", "subtract", "multiply", "divide"]) -> float:
    "Apply one operation to two numbers and return the result."
    return {"add": a + b, "subtract": a - b, "multiply": a * b, "divide": a / b if b else float("nan")}[operation]


APRIL = [call("search_notes", keyword="visits"), call("read_note", note_id="n1"),
         call("read_note", note_id="n2"), call("calculate", a=1310, b=1105, operation="subtract"),
         final("Eastside, by 205.")]

# %% [markdown]
# ## Where the numbers come from
#
# Every reply from a real server says what the call used, in a `usage` object, under two
# spellings:
#
# | API | prompt | of which cached | completion | both |
# | --- | --- | --- | --- | --- |
# | chat completions | `prompt_tokens` | `prompt_tokens_details.cached_tokens` | `completion_tokens` | `total_tokens` |
# | Responses | `input_tokens` | `input_tokens_details.cached_tokens` | `output_tokens` | `total_tokens` |
#
# The cached tokens are *part of* the prompt count, not extra. So are a reasoning model's
# **reasoning tokens** part of the completion count: the hidden thinking it did before it wrote
# the reply, which you never read but pay for at the output price. The details say how many
# (`completion_tokens_details.reasoning_tokens`, Responses:
# `output_tokens_details.reasoning_tokens`); in the Responses example below, 64 of the 96 output
# tokens were thinking and 32 were the reply. (The openai SDK hands back the same fields as
# objects.) Loop Lab's adapters keep that usage on the reply, and `run_agent` puts it in each
# `model_reply` event; the trace shows it. A scripted model reports nothing, so offline the loop
# *estimates* with lesson 8's rule — about four characters a token, plus a little per message —
# and marks the number as an estimate (`~` in the trace).

# %% [markdown] tags=["predict"]
# The April question takes five model calls. Which one sends the model the most prompt tokens?
#
# - [ ] the first: it carries the task and the tool schemas
# - [ ] they are all about the same: the tools are the same each time
# - [x] the fifth: it carries everything the first four did, plus their replies and results
#
# Each call resends the whole conversation so far, so the prompt only grows.

# %%
events = Collector()
april = run_agent("Which branch had more April visits, and by how much?", pick_model(APRIL), box,
                  Memory("You answer questions from the research notes. Use the tools."), tracer=events)
per_call = [e["usage"] for e in events.of("model_reply")]
for step, usage in enumerate(per_call, start=1):
    mark = "~" if usage.get("estimated") else ""
    print(f"step {step}: {mark}{usage['prompt']} prompt + {mark}{usage['completion']} completion tokens")
print(april)

# %% [markdown]
# ## Exercise 1: read the usage, in either spelling
#
# Write `usage_of(usage)`: given a reply's `usage` dict, return `{"prompt": ..., "completion":
# ..., "total": ...}`, plus `"cached": n` when `n` of the prompt tokens came from the cache (leave
# the key out when none did). Read `prompt_tokens` / `completion_tokens` (chat) or `input_tokens`
# / `output_tokens` (Responses), and the cached count from the details dict of either spelling.
# When `total_tokens` is missing, add the two up. When there is no usage at all (`None`, or a
# dict with neither count), return `None`: the caller then estimates.

# %% tags=["exercise"]
def usage_of(usage):
    """A reply's usage as {"prompt", "completion", "total"} (and "cached"); None when it has none."""
    return {"prompt": usage["prompt_tokens"], "completion": usage["completion_tokens"],
            "total": usage["total_tokens"]}

# %% [markdown] tags=["hint"]
# Each count has two possible names, and either may be the one present. Decide first whether
# there is any usage to read at all; the cached count sits one level down.

# %% [markdown] tags=["hint"]
# `usage.get("prompt_tokens", usage.get("input_tokens"))` reads either spelling; do the same for
# the completion. The details are `usage.get("prompt_tokens_details") or
# usage.get("input_tokens_details") or {}`, and their `cached_tokens` may be missing or 0.

# %% [markdown] tags=["hint"]
# ```python
# def usage_of(usage):
#     if not usage:
#         return None
#     prompt = usage.get("prompt_tokens", usage.get("input_tokens"))
#     completion = usage.get("completion_tokens", usage.get("output_tokens"))
#     if prompt is None and completion is None:
#         return None
#     prompt, completion = prompt or 0, completion or 0
#     out = {"prompt": prompt, "completion": completion,
#            "total": usage.get("total_tokens", prompt + completion)}
#     details = usage.get("prompt_tokens_details") or usage.get("input_tokens_details") or {}
#     if details.get("cached_tokens"):
#         out["cached"] = min(details["cached_tokens"], prompt)
#     return out
# ```

# %% tags=["wrong"]
# wrong: only chat's spelling is read, so a Responses usage crashes or reads as nothing
# expect: Responses usage
# replaces: usage_of
def usage_of(usage):
    if not usage or "prompt_tokens" not in usage:
        return None
    out = {"prompt": usage["prompt_tokens"], "completion": usage.get("completion_tokens", 0),
           "total": usage.get("total_tokens", usage["prompt_tokens"] + usage.get("completion_tokens", 0))}
    cached = (usage.get("prompt_tokens_details") or {}).get("cached_tokens")
    if cached:
        out["cached"] = cached
    return out

# %% tags=["wrong"]
# wrong: the cached count is left out, so the cheaper tokens are billed at the full price later
# expect: cached
# patch:
# -    out = {"prompt": prompt, "completion": completion,
# -           "total": usage.get("total_tokens", prompt + completion)}
# -    details = usage.get("prompt_tokens_details") or usage.get("input_tokens_details") or {}
# -    if details.get("cached_tokens"):
# -        out["cached"] = min(details["cached_tokens"], prompt)
# -    return out
# +    return {"prompt": prompt, "completion": completion, "total": usage.get("total_tokens", prompt + completion)}

# %% tags=["wrong"]
# wrong: a missing total_tokens is read as None instead of added up
# expect: total_tokens is missing
# patch:
# -    prompt, completion = prompt or 0, completion or 0
# -    out = {"prompt": prompt, "completion": completion,
# -           "total": usage.get("total_tokens", prompt + completion)}
# -    details = usage.get("prompt_tokens_details") or usage.get("input_tokens_details") or {}
# -    if details.get("cached_tokens"):
# -        out["cached"] = min(details["cached_tokens"], prompt)
# +    out = {"prompt": prompt or 0, "completion": completion or 0, "total": usage.get("total_tokens")}
# +    cached = (usage.get("prompt_tokens_details") or usage.get("input_tokens_details") or {}).get("cached_tokens")
# +    if cached:
# +        out["cached"] = cached

# %% tags=["solution"]
def usage_of(usage):
    """A reply's usage as {"prompt", "completion", "total"} (and "cached"); None when it has none."""
    if not usage:
        return None
    prompt = usage.get("prompt_tokens", usage.get("input_tokens"))
    completion = usage.get("completion_tokens", usage.get("output_tokens"))
    if prompt is None and completion is None:
        return None
    prompt, completion = prompt or 0, completion or 0
    out = {"prompt": prompt, "completion": completion,
           "total": usage.get("total_tokens", prompt + completion)}
    details = usage.get("prompt_tokens_details") or usage.get("input_tokens_details") or {}
    if details.get("cached_tokens"):
        out["cached"] = min(details["cached_tokens"], prompt)
    return out

# %%
SHAPES = {
    "chat": {"prompt_tokens": 812, "completion_tokens": 40, "total_tokens": 852,
             "prompt_tokens_details": {"cached_tokens": 512}},
    "responses": {"input_tokens": 640, "output_tokens": 96, "total_tokens": 736,
                  "input_tokens_details": {"cached_tokens": 384}, "output_tokens_details": {"reasoning_tokens": 64}},
    "no total": {"prompt_tokens": 100, "completion_tokens": 7},
    "none cached": {"prompt_tokens": 90, "completion_tokens": 5, "total_tokens": 95,
                    "prompt_tokens_details": {"cached_tokens": 0}},
    "none": None,
    "empty": {},
}


def attempt(function, *args):
    try:
        return function(*args)
    except Exception as exc:
        return f"raised {type(exc).__name__}: {exc}"


read = {name: attempt(usage_of, shape) for name, shape in SHAPES.items()}
for name, got in read.items():
    print(f"{name:11} {got}")

# %% [markdown]
# ## What a run costs
#
# The replies below carry the usage a real server reported for an April run (the prompt grows
# by about 150 tokens a step, from a system message and tool schemas of about 1,800). From the
# second call on, most of each prompt is the previous prompt again, word for word, so the
# provider served it from its cache: 1,792 of the second call's 1,950 prompt tokens, and so on.
# The prices are examples in dollars per million tokens; look up your own model's.

# %%
def billed(reply, prompt, completion, cached=0):
    """A prepared reply with the usage a server would report for it."""
    return {**reply, "usage": {"prompt_tokens": prompt, "completion_tokens": completion,
                               "total_tokens": prompt + completion,
                               "prompt_tokens_details": {"cached_tokens": cached}}}


BILLED = [billed(APRIL[0], 1800, 20), billed(APRIL[1], 1950, 20, 1792), billed(APRIL[2], 2100, 20, 1920),
          billed(APRIL[3], 2250, 30, 2048), billed(APRIL[4], 2400, 10, 2176)]   # 1,820 1,970 2,120 2,280 2,410
PRICES = {"in": 0.15, "cached": 0.075, "out": 0.60}     # per million tokens
USAGES = [read_usage(reply["usage"]) for reply in BILLED]
for n, usage in enumerate(USAGES, start=1):
    print(f"call {n}: {usage}")

# %% [markdown]
# ## Exercise 2: the cost of a run
#
# Write `run_cost(usages, prices)`: the money a run's calls cost, given their usage (in
# `usage_of`'s shape) and `prices` per million tokens (`"in"`, `"cached"`, `"out"`). The cached
# tokens are part of the prompt: bill them at the cached price and the rest of the prompt at
# the full one. A usage without `"cached"` had none.

# %% tags=["exercise"]
def run_cost(usages, prices):
    """What the calls cost, in the prices' currency: uncached prompt, cached prompt and completion tokens."""
    return 0.0

# %% [markdown] tags=["hint"]
# Go call by call and add up three parts, each a count of tokens times its price; remember that
# the prices are per *million* tokens.

# %% [markdown] tags=["hint"]
# For one call: the cached tokens may be missing from `usage` (count them as 0); the uncached
# prompt is the prompt tokens less the cached ones; the completion is its own count. Divide the
# sum by a million once, at the end.

# %% [markdown] tags=["hint"]
# ```python
# def run_cost(usages, prices):
#     total = 0.0
#     for usage in usages:
#         cached = usage.get("cached", 0)
#         total += ((usage["prompt"] - cached) * prices["in"] + cached * prices["cached"]
#                   + usage["completion"] * prices["out"])
#     return total / 1_000_000
# ```

# %% tags=["wrong"]
# wrong: every prompt token is billed at the full price, cached or not
# expect: cached price
# replaces: run_cost
def run_cost(usages, prices):
    return sum(u["prompt"] * prices["in"] + u["completion"] * prices["out"] for u in usages) / 1_000_000

# %% tags=["wrong"]
# wrong: the cached tokens are taken off the prompt but never billed, as if they were free
# expect: cached tokens still cost
# replaces: run_cost
def run_cost(usages, prices):
    return sum((u["prompt"] - u.get("cached", 0)) * prices["in"] + u["completion"] * prices["out"]
               for u in usages) / 1_000_000

# %% tags=["wrong"]
# wrong: the prices are used per token, not per million tokens
# expect: per million
# replaces: run_cost
def run_cost(usages, prices):
    return sum((u["prompt"] - u.get("cached", 0)) * prices["in"] + u.get("cached", 0) * prices["cached"]
               + u["completion"] * prices["out"] for u in usages)

# %% tags=["solution"]
def run_cost(usages, prices):
    """What the calls cost, in the prices' currency: uncached prompt, cached prompt and completion tokens."""
    total = 0.0
    for usage in usages:
        cached = usage.get("cached", 0)
        total += ((usage["prompt"] - cached) * prices["in"] + cached * prices["cached"]
                  + usage["completion"] * prices["out"])
    return total / 1_000_000

# %%
COST = attempt(run_cost, USAGES, PRICES)
UNCACHED = [{k: v for k, v in u.items() if k != "cached"} for u in USAGES]   # the same run, no cache
COST_UNCACHED = attempt(run_cost, UNCACHED, PRICES)
print(f"the April run cost {COST} with the cache, {COST_UNCACHED} without")
if isinstance(COST, float) and isinstance(COST_UNCACHED, float) and COST_UNCACHED:
    print(f"the cache saved {1 - COST / COST_UNCACHED:.0%}")

# %% [markdown]
# ## Prompt caching: keep the front of the prompt the same
#
# A provider can reuse the work it did on the start of a recent prompt only if the new prompt
# starts with **exactly** the same tokens. What it matches is the front: the tool schemas and
# the system message, then the messages in order. So the order that keeps the cache warm is the
# one the loop already has — fixed things first, and the conversation only ever **appended to**.
# Each request then starts with the whole previous request, and only the newest reply and
# results are new. (OpenAI caches prompts of 1,024 tokens or more. A cached front usually
# lives 5 to 10 minutes after its last use and never more than an hour, unless the request asks
# for extended retention, `prompt_cache_retention: "24h"`. A request finds its cache by a hash
# of the prompt's first tokens, together with the `prompt_cache_key` you send, if any: give the
# requests that share a long front one key. Writing the cache is free on older models and costs
# a quarter more than plain input on OpenAI's newest; other providers differ, and some need a
# marker where the cacheable part ends.)
#
# What breaks it is anything that changes near the front: the time or a step counter in the
# system message, tools listed in another order, notes rewritten into the system message on
# every call (lesson 8), a compaction that rewrites the middle (lesson 22). After such a change
# the whole prompt is new again, and billed in full.
#
# `shared_prefix(before, after)` below counts the tokens two requests share from the start, in
# whole messages: roughly what a cache could serve of `after` if `before` was the request just
# sent.

# %%
def shared_prefix(before, after):
    """The tokens of the leading messages that `after` repeats from `before`, word for word."""
    same = 0
    for old, new in zip(before, after):
        if old != new:
            break
        same += message_tokens(new)
    return same


contexts = [e["context"] for e in events.of("model_call")]
warm = [shared_prefix(a, b) for a, b in zip(contexts, contexts[1:])]
print("appended to, shared with the request before:", warm)


def stamped(context, step):
    """The same request with the step number written into its system message."""
    return [{**context[0], "content": f"Step {step}. " + context[0]["content"]}] + context[1:]


cold = [shared_prefix(stamped(a, n), stamped(b, n + 1)) for n, (a, b) in enumerate(zip(contexts, contexts[1:]), 1)]
print("a step number in the system message:        ", cold)

# %% [markdown] tags=["predict"]
# You want the model to know today's date. Where do you put it so the cache stays warm across
# the steps of a run?
#
# - [ ] at the start of the system message, where the model reads it first
# - [x] anywhere, as long as it stays the same for the whole run (a date, not a clock)
# - [ ] in every tool result, so it is always fresh
#
# The cache only asks that the front of the prompt be identical from one request to the next.
# A date set once at the start of the run is as stable as the rest of the system message; a
# clock with seconds in it makes every request new.

# %% [markdown]
# ## Output caps and cut replies
#
# Completion tokens are the dearest, and a rambling model can write thousands of them. So every
# live request in Loop Lab carries a cap (`LLM_MAX_TOKENS` sets it, 512 by default): one reply
# can cost at most the cap times the output price. Chat completions has two names for it. The
# old `max_tokens` is what every compatible server reads, so Loop Lab sends it; OpenAI has
# deprecated it in favour of **`max_completion_tokens`**, and its reasoning models refuse the old
# name, so the adapter switches to the new one when a server asks. The new name says what the cap
# counts: the reasoning tokens as well as the visible reply (the Responses API's
# `max_output_tokens` counts the same). A reply the cap stopped is **cut**: the server says
# `finish_reason: "length"` (Responses: `status: "incomplete"`), and the adapter marks the
# reply `cut: "length"`. A cut answer is not a finished answer, and a cut tool call has arguments
# that stop mid-JSON; `looplab` refuses to run one (a `ModelError` that names the limit).
#
# With a reasoning model a low cap can cut the reply before it starts: the model spends the whole
# cap thinking and sends back an **empty** reply, cut at the limit, whose reasoning tokens you
# still pay for. `looplab` does not pass that on as an answer with no text; it raises a
# `ModelError` that says the reply was cut before the model wrote anything and how to raise the
# cap.

# %%
cut_reply = {**final("Eastside had more April visits, by"), "cut": "length",
             "usage": {"prompt_tokens": 2400, "completion_tokens": 8, "total_tokens": 2408}}
CUT_RUN = BILLED[:4] + [cut_reply]
print(cut_reply)

# %% [markdown]
# ## Exercise 3: the budget check in your own loop
#
# `Spend` keeps what a run has spent against two optional limits, tokens and money (at the
# prices, with your `run_cost`), and `ran_out()` says which one is spent, or `None`. Complete
# `run_with(spend, model, max_steps=6)`, lesson 4's loop, so that:
#
# - **before** every model call, when `spend.ran_out()` says something, the run stops with
#   `{"stopped": "step_limit", "steps": <calls made>, "detail": <what it said>}`;
# - after every call, the reply's usage (`usage_of`) is added to `spend` (a reply without usage
#   adds nothing);
# - a reply marked `cut` with no tool calls is not an answer: stop with `{"stopped": "error",
#   "steps": ..., "detail": ...}`, a detail that says it was cut at the token limit.

# %%
class Spend:
    """What a run has spent, against optional limits on tokens and on cost (prices per million)."""

    def __init__(self, max_tokens=None, max_cost=None, prices=None):
        self.max_tokens, self.max_cost = max_tokens, max_cost
        self.prices = prices or {"in": 0.0, "cached": 0.0, "out": 0.0}
        self.calls = []

    def add(self, usage):
        self.calls.append(usage)

    @property
    def total(self):
        return sum(usage["total"] for usage in self.calls)

    @property
    def cost(self):
        return run_cost(self.calls, self.prices)

    def ran_out(self):
        if self.max_tokens is not None and self.total >= self.max_tokens:
            return f"tokens: {self.total:,} of {self.max_tokens:,} spent"
        if self.max_cost is not None and self.cost >= self.max_cost:
            return f"cost: {self.cost:.6f} of {self.max_cost} spent"
        return None

# %% tags=["exercise"]
def run_with(spend, model, max_steps=6):
    """Lesson 4's loop with a budget: stop with step_limit, before a call, once `spend` ran out."""
    messages = [{"role": "user", "content": "Which branch had more April visits, and by how much?"}]
    for step in range(1, max_steps + 1):
        reply = model(messages, box.schemas())
        messages.append(reply)
        if not reply.get("tool_calls"):
            return {"stopped": "final", "steps": step, "answer": reply["content"]}
        for tool_call in reply["tool_calls"]:
            messages.append({"role": "tool", "tool_call_id": tool_call["id"],
                             "content": box.run(tool_call["function"]["name"], tool_call["function"]["arguments"])})
    return {"stopped": "step_limit", "steps": max_steps, "detail": "out of steps"}

# %% [markdown] tags=["hint"]
# A check can only save money if it runs before the money is spent. Find the one line in the
# loop that costs money, and put the question "is anything left?" just before it, and the
# bookkeeping just after it.

# %% [markdown] tags=["hint"]
# At the top of each step, ask `spend.ran_out()`; when it names a reason, return the `step_limit`
# result, counting only the calls made so far as steps. After the call, read the reply's usage
# with `usage_of` and add it to `spend` when there is one. Then, before treating a reply without
# tool calls as the answer, look at whether it was `cut`.

# %% [markdown] tags=["hint"]
# ```python
# def run_with(spend, model, max_steps=6):
#     messages = [{"role": "user", "content": "Which branch had more April visits, and by how much?"}]
#     for step in range(1, max_steps + 1):
#         why = spend.ran_out()
#         if why:
#             return {"stopped": "step_limit", "steps": step - 1, "detail": why}
#         reply = model(messages, box.schemas())
#         usage = usage_of(reply.get("usage"))
#         if usage:
#             spend.add(usage)
#         messages.append(reply)
#         if not reply.get("tool_calls"):
#             if reply.get("cut"):
#                 return {"stopped": "error", "steps": step,
#                         "detail": f"the reply was cut at the token limit ({reply['cut']})"}
#             return {"stopped": "final", "steps": step, "answer": reply["content"]}
#         for tool_call in reply["tool_calls"]:
#             messages.append({"role": "tool", "tool_call_id": tool_call["id"],
#                              "content": box.run(tool_call["function"]["name"],
#                                                 tool_call["function"]["arguments"])})
#     return {"stopped": "step_limit", "steps": max_steps, "detail": "out of steps"}
# ```

# %% tags=["wrong"]
# wrong: the budget is checked right after the call, so a paid answer that crosses the budget is thrown away
# expect: thrown away
# patch:
# -        why = spend.ran_out()
# -        if why:
# -            return {"stopped": "step_limit", "steps": step - 1, "detail": why}
# @@
#              spend.add(usage)
# +        why = spend.ran_out()
# +        if why:
# +            return {"stopped": "step_limit", "steps": step, "detail": why}

# %% tags=["wrong"]
# wrong: the check is there but nothing is ever added to spend, so no budget runs out
# expect: spend.add
# patch:
# -        usage = usage_of(reply.get("usage"))
# -        if usage:
# -            spend.add(usage)

# %% tags=["wrong"]
# wrong: a reply cut by the token limit is taken as the final answer
# expect: cut
# patch:
# -            if reply.get("cut"):
# -                return {"stopped": "error", "steps": step,
# -                        "detail": f"the reply was cut at the token limit ({reply['cut']})"}

# %% tags=["solution"]
def run_with(spend, model, max_steps=6):
    """Lesson 4's loop with a budget: stop with step_limit, before a call, once `spend` ran out."""
    messages = [{"role": "user", "content": "Which branch had more April visits, and by how much?"}]
    for step in range(1, max_steps + 1):
        why = spend.ran_out()
        if why:
            return {"stopped": "step_limit", "steps": step - 1, "detail": why}
        reply = model(messages, box.schemas())
        usage = usage_of(reply.get("usage"))
        if usage:
            spend.add(usage)
        messages.append(reply)
        if not reply.get("tool_calls"):
            if reply.get("cut"):
                return {"stopped": "error", "steps": step,
                        "detail": f"the reply was cut at the token limit ({reply['cut']})"}
            return {"stopped": "final", "steps": step, "answer": reply["content"]}
        for tool_call in reply["tool_calls"]:
            messages.append({"role": "tool", "tool_call_id": tool_call["id"],
                             "content": box.run(tool_call["function"]["name"],
                                                tool_call["function"]["arguments"])})
    return {"stopped": "step_limit", "steps": max_steps, "detail": "out of steps"}

# %%
def counting(model):
    """The model, with a count of the calls made to it (each one is paid for)."""
    def ask(messages, tools):
        ask.calls += 1
        return model(messages, tools)
    ask.calls = 0
    return ask


budgets = {
    "no limits": Spend(),
    "5,000 tokens": Spend(max_tokens=5000),
    "exactly 3,790": Spend(max_tokens=3790),
    "10,000 tokens": Spend(max_tokens=10_000),
    "$0.0008": Spend(max_cost=0.0008, prices=PRICES),
    "both": Spend(max_tokens=50_000, max_cost=0.0005, prices=PRICES),
}
models = {name: counting(scripted(BILLED)) for name in budgets}
runs = {name: attempt(run_with, spend, models[name]) for name, spend in budgets.items()}
cut_run = attempt(run_with, Spend(), scripted(CUT_RUN))
for name, outcome in runs.items():
    print(f"{name:13} {outcome}  ({models[name].calls} calls paid)")
print(f"{'cut reply':13} {cut_run}")

# %% [markdown]
# ## The hardened version: `Budget` and `limits=`
#
# `run_agent(..., limits=Budget(tokens=..., cost=..., price_in=..., price_out=...,
# price_cached=...))` does the same with more care. Read it in `looplab/budget.py`; `loop.py`
# gains only the lines that call it. What it adds:
#
# - **every spelling** of usage, the SDK's objects included (`read_usage`), cached tokens priced
#   at `price_cached`, and an **estimate** when a reply has none, counting the messages *and*
#   the tool schemas sent, marked `"estimated": True` and shown with `~` in the trace;
# - **usage in the events**: each `model_reply` carries its call's usage (and cost, when priced),
#   the `stop` event the run's total, and `result["usage"]` the total when limits were given;
# - **checked between calls**, so a reply is never cut off and every tool call of the last reply
#   has run and been answered;
# - a `detail` that names what ran out, and the numbers.
#
# How does a run that spent its budget end? Not with a new stop reason. Loop Lab keeps the four
# names of lesson 4 (and lesson 10's `blocked`), and a spent budget is a **`step_limit`** whose
# detail says which allowance ran out:
#
# | `stopped` | what happened | `detail` says |
# | --- | --- | --- |
# | `final` | the model answered | — |
# | `step_limit` | an allowance ran out while the model still wanted to go on | which one: `still asking for tools after 6 steps`, `tool-call limit of 10 reached`, `the token budget of 5,000 is spent: ...`, `the cost budget of 0.0008 is spent: ...` |
# | `error` | the model call failed or its reply was unusable | why |
# | `needs_person` | a tool needs approval nobody gave | which tool |
#
# The reason: steps, tool calls, tokens and money are all **allowances the caller sets**, and a
# caller handles any of them running out the same way — the task is unfinished, so report that,
# and perhaps run again with more. Many agent designs call that exit "budget exhausted"; a
# program that needs to know which allowance ran out reads `detail`, and `result["usage"]`.

# %% [markdown] tags=["predict"]
# `Budget(tokens=5000)` on the billed replies (1,820, 1,970, 2,120 ... tokens a call). The budget
# is checked between calls. How many model calls does `run_agent` make?
#
# - [ ] 2: after two calls 3,790 tokens are spent, and a third would pass 5,000
# - [x] 3: after two calls 3,790 < 5,000, so a third call starts; it ends at 5,910
# - [ ] 5: a budget only stops a run that is about to answer
#
# A check between calls cannot know what the next call will cost. A run can end **over** its
# budget by up to one call; set the budget with that margin in mind, and cap each reply.

# %%
events_b = Collector()
hardened = run_agent("Which branch had more April visits, and by how much?", scripted(BILLED), box,
                     Memory("You answer questions from the research notes."), limits=Budget(tokens=5000),
                     tracer=events_b)
print(hardened)
priced = run_agent("Which branch had more April visits, and by how much?", scripted(BILLED), box,
                   Memory("You answer questions from the research notes."),
                   limits=Budget(price_in=PRICES["in"], price_out=PRICES["out"], price_cached=PRICES["cached"]))
print(priced["usage"])

# %% [markdown]
# ## With the lesson's model
#
# Scripted, this is the April run with estimated tokens (~280, ~330, ~376, ~431, ~445 a call) and
# a budget of 1,200 that cuts it off after four calls. Live, the numbers are your server's, and
# so is the bill: a budget in a test run is the cheapest way to find out what a run costs.

# %%
events_c = Collector()
live_run = run_agent("Which branch had more April visits, and by how much?", pick_model(APRIL), box,
                     Memory("You answer questions from the research notes. Use the tools."),
                     limits=Budget(tokens=1200, price_in=PRICES["in"], price_out=PRICES["out"],
                                   price_cached=PRICES["cached"]), tracer=events_c)
print(live_run)
spent_by_calls = sum(e["usage"]["total"] for e in events_c.of("model_reply"))

# %% tags=["check"]
from looplab import Case, compare, generate, reference


def usage_shape(d):
    chat = d.maybe()
    names = ("prompt_tokens", "completion_tokens", "total_tokens", "prompt_tokens_details") if chat else (
        "input_tokens", "output_tokens", "total_tokens", "input_tokens_details")
    prompt, completion = d.pick([0, 7, 100, 812]), d.pick([0, 5, 40])
    out = {names[0]: prompt, names[1]: completion, names[2]: prompt + completion + d.pick([0, 0, 3]),
           names[3]: {"cached_tokens": d.pick([0, 64, 512, 900])}}
    for key in d.subset(names) if d.maybe(0.5) else []:
        out.pop(key)
    return out


USAGE_SHAPES = generate(lambda d: Case((usage_shape(d),)), count=100, edges=[
    Case((None,), "no usage"), Case(({},), "an empty usage"),
    Case(({"prompt_tokens": None, "completion_tokens": 3},), "a prompt count of None")])


def billing(cost_fn, usages, prices):
    return {"the cost": f"{cost_fn(usages, prices):.9g}"}


def usage_drawn(d):
    prompt = d.pick([0, 100, 1800])
    usage = {"prompt": prompt, "completion": d.pick([0, 20]), "total": 0}
    cached = d.pick([None, 0, min(prompt, 512)])
    return usage if cached is None else {**usage, "cached": cached}


BILLS = generate(lambda d: Case((d.some(usage_drawn, 0, 4), {"in": d.pick([0.15, 1.0]), "cached": d.pick([0.075, 0.0]),
                                                              "out": d.pick([0.6, 2.0])})), count=60)

def billed_reply(d):
    kind = d.pick(["call", "call", "final", "cut", "call with no usage"])
    reply = {"call": APRIL[0], "call with no usage": APRIL[1], "final": final("Eastside, by 205."),
             "cut": {**final("Eastside had"), "cut": "length"}}[kind]
    if kind != "call with no usage":
        prompt = d.pick([1000, 1800, 2000])
        reply = {**reply, "usage": {"prompt_tokens": prompt, "completion_tokens": 20, "total_tokens": prompt + 20,
                                    "prompt_tokens_details": {"cached_tokens": d.pick([0, 512])}}}
    return reply


def budgeting(run_fn, replies, limits, steps):
    """run_with on these replies and limits: how it ended, the calls paid for, the usage counted, what was sent."""
    spend, sent_here = Spend(**limits, prices=PRICES), []

    def model(messages, tools):
        if len(sent_here) >= 50:  # a loop that ignores max_steps must end here
            raise RuntimeError("the model was asked 50 times: the loop does not stop")
        sent_here.append([(m["role"], m.get("content")) for m in messages])
        return dict(replies[min(len(sent_here), len(replies)) - 1])
    result = run_fn(spend, model) if steps is None else run_fn(spend, model, steps)
    detail = str(result.get("detail"))
    return {"how it ended": {**{k: result.get(k) for k in ("stopped", "steps", "answer")},
                             "detail": detail if result.get("stopped") == "step_limit" else "cut" in detail},
            "the calls paid for": len(sent_here), "the usage counted": spend.calls, "what the model was sent": sent_here}


BUDGET_RUNS = generate(lambda d: Case((d.some(billed_reply, 1, 5), d.pick([
    {}, {"max_tokens": d.pick([1000, 1820, 3640, 5000])}, {"max_cost": d.pick([0.0003, 0.000291, 0.001])},
    {"max_tokens": 50_000, "max_cost": 0.0005}]), d.pick([None, 1, 2, 3]))), count=120, edges=[
    Case((BILLED, {"max_tokens": 3790}, None), "the April replies and a budget of exactly 3,790 tokens"),
    Case((CUT_RUN, {}, None), "a last reply cut at the token limit")])

# usage_of reads chat's spelling, cached tokens included
assert read["chat"] == {"prompt": 812, "completion": 40, "total": 852, "cached": 512}, (
    f"chat usage gave {read['chat']}; expected the counts and cached 512 (from prompt_tokens_details)")
# usage_of reads the Responses API's spelling
assert read["responses"] == {"prompt": 640, "completion": 96, "total": 736, "cached": 384}, (
    f"Responses usage gave {read['responses']}; it says input_tokens, output_tokens and "
    "input_tokens_details.cached_tokens instead")
# usage_of adds up a missing total
assert read["no total"] == {"prompt": 100, "completion": 7, "total": 107}, f"gave {read['no total']}; total_tokens is missing there"
# usage_of leaves cached out when none were, and gives None when there is no usage
assert read["none cached"] == {"prompt": 90, "completion": 5, "total": 95} and read["none"] is None \
    and read["empty"] is None, (
    f"gave {read['none cached']!r} (0 cached: leave the key out), {read['none']!r} and {read['empty']!r} (no usage is None)")
# usage_of reads what the lesson's reads from many usages, in both spellings, with parts missing
assert (usage_found := compare(usage_of, reference("usage_of"), USAGE_SHAPES)), usage_found
# usage_of agrees with looplab's read_usage on every shape
assert all(read[name] == read_usage(shape) for name, shape in SHAPES.items()), (
    "usage_of and looplab.budget.read_usage disagree on: " + ", ".join(
        f"{n} ({read[n]} vs {read_usage(s)})" for n, s in SHAPES.items() if read[n] != read_usage(s)))
expected_cost = sum(Budget(price_in=PRICES["in"], price_out=PRICES["out"], price_cached=PRICES["cached"]).cost_of(
    u["prompt"], u["completion"], u.get("cached", 0)) for u in USAGES)
# the run's cost bills cached tokens at the cached price, the rest at the full one
assert isinstance(COST, float) and abs(COST - expected_cost) < 1e-12, (
    f"run_cost gave {COST} for the April run, expected {expected_cost:.8f}: " + (
        "that is every prompt token at the full price; bill the cached ones at the cached price"
        if isinstance(COST, float) and abs(COST - sum(u["prompt"] * 0.15 + u["completion"] * 0.6 for u in USAGES) / 1e6) < 1e-12
        else "the cached tokens still cost, at the cached price"
        if isinstance(COST, float) and abs(COST - sum((u["prompt"] - u.get("cached", 0)) * 0.15 + u["completion"] * 0.6
                                                      for u in USAGES) / 1e6) < 1e-12
        else "the prices are per million tokens" if isinstance(COST, float) and COST > 1 else
        "(uncached prompt × in + cached × cached + completion × out) / 1,000,000, summed over the calls"))
# run_cost bills what the lesson's bills, for many runs and prices
assert (cost_found := compare(run_cost, reference("run_cost"), BILLS, observe=billing)), cost_found
# without a cache the same run costs more, every prompt token at the full price
assert isinstance(COST_UNCACHED, float) and abs(COST_UNCACHED - (sum(u["prompt"] for u in USAGES) * 0.15
                                                                  + sum(u["completion"] for u in USAGES) * 0.6) / 1e6) < 1e-12 \
    and COST < COST_UNCACHED, f"without cached tokens run_cost gave {COST_UNCACHED}, with them {COST}"
# given: an appended-to conversation shares its whole previous request; a changing system message shares nothing
assert all(w > 0 for w in warm) and warm == sorted(warm) and all(c == 0 for c in cold), (warm, cold)
# with no limits your loop answers, and counts every call's usage
assert isinstance(runs["no limits"], dict) and runs["no limits"].get("stopped") == "final" \
    and runs["no limits"].get("steps") == 5 and budgets["no limits"].total == 10_600, (
    f"no limits: {runs['no limits']}, {budgets['no limits'].total:,} tokens counted (the five calls used 10,600): "
    "spend.add each call's usage")
# a budget stops the run, but an answer paid for is kept, even when its call crossed the budget
assert isinstance(runs["10,000 tokens"], dict) and runs["10,000 tokens"].get("stopped") == "final" \
    and models["10,000 tokens"].calls == 5 and isinstance(runs["5,000 tokens"], dict) \
    and runs["5,000 tokens"].get("stopped") == "step_limit", (
    f"10,000 tokens: {runs['10,000 tokens']}; after four calls 8,190 tokens are spent, so the fifth call is made, "
    "and its answer, already paid for, is thrown away if the loop checks the budget after the call instead of before"
    if runs["5,000 tokens"].get("stopped") == "step_limit" else
    f"5,000 tokens: {runs['5,000 tokens']}; the budget never stopped the run: check spend.ran_out() before each call")
# a token budget stops the run before the next call, after the call that crossed it, naming the tokens
assert isinstance(runs["5,000 tokens"], dict) and runs["5,000 tokens"].get("stopped") == "step_limit" \
    and runs["5,000 tokens"].get("steps") == 3 and models["5,000 tokens"].calls == 3 \
    and str(runs["5,000 tokens"].get("detail")).startswith("tokens"), (
    f"5,000 tokens: {runs['5,000 tokens']} after {models['5,000 tokens'].calls} paid calls; 1,820 + 1,970 = 3,790 "
    "leaves room, the third call passes 5,000, and the check before the fourth stops it: check before each call, "
    "and spend.add each call's usage")
# a budget that is reached exactly counts as spent, and no call is made after it
assert isinstance(runs["exactly 3,790"], dict) and runs["exactly 3,790"].get("steps") == 2 \
    and models["exactly 3,790"].calls == 2, (
    f"exactly 3,790: {runs['exactly 3,790']} after {models['exactly 3,790'].calls} paid calls; 1,820 + 1,970 "
    "reaches the limit, so no third call: check before the call, not after it")
# a cost budget stops the run and says it was the cost
assert isinstance(runs["$0.0008"], dict) and runs["$0.0008"].get("stopped") == "step_limit" \
    and str(runs["$0.0008"].get("detail")).startswith("cost") and runs["$0.0008"].get("steps") == 4, (
    f"$0.0008: {runs['$0.0008']}; with the cache, three calls cost 0.000635 and four 0.000837: add each call's "
    "usage (spend.add) so that Spend can price it, and check before each call")
# with two limits, the one that ran out is named
assert isinstance(runs["both"], dict) and str(runs["both"].get("detail")).startswith("cost"), f"both: {runs['both']}"
# run_with stops, counts and answers as the lesson's does, for many runs and budgets (reached exactly too)
assert (budget_found := compare(run_with, reference("run_with"), BUDGET_RUNS, observe=budgeting)), budget_found
# a reply cut by the token limit is not an answer
assert isinstance(cut_run, dict) and cut_run.get("stopped") == "error" and "cut" in str(cut_run.get("detail")), (
    f"a final reply marked cut='length' gave {cut_run}: stop with 'error' and a detail that says it was cut")
# given: run_agent's token budget ends the run with step_limit after 3 calls, naming the token budget
assert hardened["stopped"] == "step_limit" and hardened["steps"] == 3 and "token budget of 5,000" in hardened["detail"], hardened
# given: the usage of the run adds up to the calls' usage, as the server reported it, cached tokens included
assert hardened["usage"] == {"prompt": 5850, "completion": 60, "total": 5910, "cached": 3712, "estimated": False}, hardened["usage"]
# given: each model_reply event carries its call's usage
assert [e["usage"]["total"] for e in events_b.of("model_reply")] == [1820, 1970, 2120], "the model_reply events carry no usage"
# given: run_agent prices the cached tokens at the cached price, as your run_cost does
assert abs(priced["usage"]["cost"] - round(expected_cost, 8)) < 1e-8 and priced["usage"]["cached"] == 7936, priced["usage"]
# given: with the lesson's model, the run ended with a reason and its usage adds up to its calls
assert live_run["stopped"] in ("final", "step_limit", "error") and live_run["usage"]["total"] == spent_by_calls, live_run
# given: the offline April run's usage is an estimate, and the prompt grows with every call
expect(all(u.get("estimated") for u in per_call) and [u["prompt"] for u in per_call] == sorted(u["prompt"] for u in per_call),
       f"per call: {per_call}", observed=f"the model reported {per_call}")
# given: with the prepared replies, the estimated April run passes 1,200 tokens on its fourth call and is cut off
expect(live_run["stopped"] == "step_limit" and live_run["steps"] == 4 and "token budget" in live_run.get("detail", ""),
       f"the run gave {live_run}", observed=f"the run ended {live_run['stopped']} after {live_run['steps']} steps, "
       f"{live_run['usage']['total']} tokens ({'estimated' if live_run['usage']['estimated'] else 'reported by the server'})")
