# %% [markdown]
# # 20 · Tokens, cost and budgets
#
# A model is paid by the token, both ways: the **prompt** tokens it reads and the **completion**
# tokens it writes, at two prices. An agent multiplies that bill in a way a chat does not. The
# model is stateless (lesson 6), so every step sends the whole conversation again — the system
# message, the task, every earlier reply and tool result, and the tool schemas — and each step's
# prompt is bigger than the last. Ten steps do not cost ten times one step; they cost the sum of
# ten ever-longer prompts.
#
# Seed 004 lists cost control among what its from-scratch agent leaves out, and notes that
# ReAct's thoughts make every step dearer. Lesson 4's step limit stops a runaway loop by *count*;
# this lesson stops it by what it *spends*.

# %%
from typing import Literal

from looplab import Collector, Memory, Toolbox, ToolError, run_agent
from looplab.budget import Budget, read_usage
from looplab.lesson import expect
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
# Every reply from a real server says what the call cost, in a `usage` object — under two
# spellings:
#
# | API | prompt | completion | both |
# | --- | --- | --- | --- |
# | chat completions | `usage.prompt_tokens` | `usage.completion_tokens` | `usage.total_tokens` |
# | Responses | `usage.input_tokens` | `usage.output_tokens` | `usage.total_tokens` |
#
# (The openai SDK hands back the same fields as objects.) Loop Lab's adapters keep that usage on
# the reply, and `run_agent` puts it in each `model_reply` event; the trace shows it. A scripted
# model reports nothing, so offline the loop *estimates* with lesson 8's rule — about four
# characters a token, plus a little per message — and marks the number as an estimate (`~` in
# the trace).

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
# ..., "total": ...}`. Read `prompt_tokens` / `completion_tokens` (chat) or `input_tokens` /
# `output_tokens` (Responses). When `total_tokens` is missing, add the two up. When there is no
# usage at all (`None`, or a dict with neither count), return `None`: the caller then estimates.

# %% tags=["exercise"]
def usage_of(usage):
    """A reply's usage as {"prompt", "completion", "total"}; None when it has none."""
    return {"prompt": usage["prompt_tokens"], "completion": usage["completion_tokens"],
            "total": usage["total_tokens"]}

# %% [markdown] tags=["hint"]
# Check for `None` first. Then `usage.get("prompt_tokens", usage.get("input_tokens"))` reads
# either spelling; do the same for the completion.

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
#     return {"prompt": prompt, "completion": completion,
#             "total": usage.get("total_tokens", prompt + completion)}
# ```

# %% tags=["solution"]
def usage_of(usage):
    """A reply's usage as {"prompt", "completion", "total"}; None when it has none."""
    if not usage:
        return None
    prompt = usage.get("prompt_tokens", usage.get("input_tokens"))
    completion = usage.get("completion_tokens", usage.get("output_tokens"))
    if prompt is None and completion is None:
        return None
    prompt, completion = prompt or 0, completion or 0
    return {"prompt": prompt, "completion": completion,
            "total": usage.get("total_tokens", prompt + completion)}

# %%
SHAPES = {
    "chat": {"prompt_tokens": 812, "completion_tokens": 40, "total_tokens": 852,
             "prompt_tokens_details": {"cached_tokens": 512}},
    "responses": {"input_tokens": 640, "output_tokens": 96, "total_tokens": 736,
                  "output_tokens_details": {"reasoning_tokens": 64}},
    "no total": {"prompt_tokens": 100, "completion_tokens": 7},
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
    print(f"{name:10} {got}")

# %% [markdown]
# ## Exercise 2: a budget that says what ran out
#
# A run may be given two limits: a number of **tokens** (prompt plus completion, over all its
# calls) and an amount of **money**, at the caller's prices per million prompt and completion
# tokens. Complete `Spend`:
#
# - `add(usage)` counts one call's usage (in `usage_of`'s shape);
# - `cost` is the money spent so far: `prompt * price_in / 1e6 + completion * price_out / 1e6`;
# - `ran_out()` returns `None` while both limits last, else a short text that **names** what ran
#   out — it starts with `"tokens"` or `"cost"`. A limit is spent when what was spent has
#   **reached** it (`>=`); a limit of `None` never runs out.
#
# The loop below (lesson 4's, with the budget added) checks `ran_out()` before every model call
# and stops with `step_limit` and the text as its `detail`.

# %% tags=["exercise"]
class Spend:
    """What a run has spent, against optional limits on tokens and on cost."""

    def __init__(self, max_tokens=None, max_cost=None, price_in=0.0, price_out=0.0):
        self.max_tokens, self.max_cost = max_tokens, max_cost
        self.price_in, self.price_out = price_in, price_out
        self.prompt = self.completion = self.total = 0

    def add(self, usage):
        self.total += usage["total"]

    @property
    def cost(self):
        return 0.0

    def ran_out(self):
        if self.max_tokens is not None and self.total > self.max_tokens:
            return f"tokens: {self.total} of {self.max_tokens} spent"
        return None

# %% [markdown] tags=["hint"]
# `add` must keep the prompt and completion counts too: the cost needs them. In `ran_out`, test
# the tokens, then the cost, each only when its limit is not `None`, and use `>=`.

# %% [markdown] tags=["hint"]
# ```python
#     def add(self, usage):
#         self.prompt += usage["prompt"]
#         self.completion += usage["completion"]
#         self.total += usage["total"]
#
#     @property
#     def cost(self):
#         return (self.prompt * self.price_in + self.completion * self.price_out) / 1_000_000
#
#     def ran_out(self):
#         if self.max_tokens is not None and self.total >= self.max_tokens:
#             return f"tokens: {self.total} of {self.max_tokens} spent"
#         if self.max_cost is not None and self.cost >= self.max_cost:
#             return f"cost: {self.cost:.6f} of {self.max_cost} spent"
#         return None
# ```

# %% tags=["solution"]
class Spend:
    """What a run has spent, against optional limits on tokens and on cost."""

    def __init__(self, max_tokens=None, max_cost=None, price_in=0.0, price_out=0.0):
        self.max_tokens, self.max_cost = max_tokens, max_cost
        self.price_in, self.price_out = price_in, price_out
        self.prompt = self.completion = self.total = 0

    def add(self, usage):
        self.prompt += usage["prompt"]
        self.completion += usage["completion"]
        self.total += usage["total"]

    @property
    def cost(self):
        return (self.prompt * self.price_in + self.completion * self.price_out) / 1_000_000

    def ran_out(self):
        if self.max_tokens is not None and self.total >= self.max_tokens:
            return f"tokens: {self.total} of {self.max_tokens} spent"
        if self.max_cost is not None and self.cost >= self.max_cost:
            return f"cost: {self.cost:.6f} of {self.max_cost} spent"
        return None

# %% [markdown]
# The replies below carry the usage a real server reported for them (the prompt grows by about
# 140 tokens a step), so the budgets fall at known places. The prices are examples in dollars
# per million tokens; look up your own model's.

# %%
def billed(reply, prompt, completion):
    """A prepared reply with the usage a server would report for it."""
    return {**reply, "usage": {"prompt_tokens": prompt, "completion_tokens": completion,
                               "total_tokens": prompt + completion}}


BILLED = [billed(APRIL[0], 300, 20), billed(APRIL[1], 440, 20), billed(APRIL[2], 580, 20),
          billed(APRIL[3], 720, 30), billed(APRIL[4], 860, 10)]       # 320, 460, 600, 750, 870 tokens
PRICE_IN, PRICE_OUT = 0.15, 0.60


def run_with(spend, model, max_steps=6):
    """Lesson 4's loop with a budget: stop with step_limit, before a call, once `spend` ran out."""
    messages = [{"role": "user", "content": "Which branch had more April visits, and by how much?"}]
    for step in range(1, max_steps + 1):
        why = spend.ran_out()
        if why:
            return {"stopped": "step_limit", "steps": step - 1, "detail": why}
        reply = model(messages, box.schemas())
        spend.add(usage_of(reply.get("usage")) or {"prompt": 0, "completion": 0, "total": 0})
        messages.append(reply)
        if not reply.get("tool_calls"):
            return {"stopped": "final", "steps": step, "answer": reply["content"]}
        for tool_call in reply["tool_calls"]:
            messages.append({"role": "tool", "tool_call_id": tool_call["id"],
                             "content": box.run(tool_call["function"]["name"], tool_call["function"]["arguments"])})
    return {"stopped": "step_limit", "steps": max_steps, "detail": "out of steps"}


budgets = {
    "no limits": Spend(),
    "1,000 tokens": Spend(max_tokens=1000),
    "exactly 780": Spend(max_tokens=780),
    "$0.0003": Spend(max_cost=0.0003, price_in=PRICE_IN, price_out=PRICE_OUT),
    "both": Spend(max_tokens=5000, max_cost=0.0002, price_in=PRICE_IN, price_out=PRICE_OUT),
}
runs = {name: attempt(run_with, spend, scripted(BILLED)) for name, spend in budgets.items()}
for name, outcome in runs.items():
    print(f"{name:13} {outcome}")

# %% [markdown]
# ## The hardened version: `Budget` and `limits=`
#
# `run_agent(..., limits=Budget(tokens=..., cost=..., price_in=..., price_out=...))` does the
# same with more care. Read it in `looplab/budget.py`; `loop.py` gains only the lines that call
# it. What it adds:
#
# - **every spelling** of usage, the SDK's objects included (`read_usage`), and an **estimate**
#   when a reply has none, counting the messages *and* the tool schemas sent, marked
#   `"estimated": True` and shown with `~` in the trace;
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
# | `step_limit` | an allowance ran out while the model still wanted to go on | which one: `still asking for tools after 6 steps`, `tool-call limit of 10 reached`, `the token budget of 1,000 is spent: ...`, `the cost budget of 0.0005 is spent: ...` |
# | `error` | the model call failed or its reply was unusable | why |
# | `needs_person` | a tool needs approval nobody gave | which tool |
#
# The reason: steps, tool calls, tokens and money are all **allowances the caller sets**, and a
# caller handles any of them running out the same way — the task is unfinished, so report that,
# and perhaps run again with more. Seed 001 calls this exit `budget_exhausted` for the step
# count already; a program that needs to know which allowance ran out reads `detail`, and
# `result["usage"]`.

# %% [markdown] tags=["predict"]
# `Budget(tokens=1000)` on the billed replies (320, 460, 600 ... tokens a call). The budget is
# checked between calls. How many model calls does `run_agent` make?
#
# - [ ] 2: after two calls 780 tokens are spent, and a third would pass 1,000
# - [x] 3: after two calls 780 < 1,000, so a third call starts; it ends at 1,380
# - [ ] 5: a budget only stops a run that is about to answer
#
# A check between calls cannot know what the next call will cost. A run can end **over** its
# budget by up to one call; set the budget with that margin in mind.

# %%
events_b = Collector()
hardened = run_agent("Which branch had more April visits, and by how much?", scripted(BILLED), box,
                     Memory("You answer questions from the research notes."), limits=Budget(tokens=1000),
                     tracer=events_b)
print(hardened)
priced = run_agent("Which branch had more April visits, and by how much?", scripted(BILLED), box,
                   Memory("You answer questions from the research notes."),
                   limits=Budget(cost=0.0003, price_in=PRICE_IN, price_out=PRICE_OUT))
print(priced)

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
                     limits=Budget(tokens=1200, price_in=PRICE_IN, price_out=PRICE_OUT), tracer=events_c)
print(live_run)
spent_by_calls = sum(e["usage"]["total"] for e in events_c.of("model_reply"))

# %% tags=["check"]
# usage_of reads chat's spelling
assert read["chat"] == {"prompt": 812, "completion": 40, "total": 852}, f"chat usage gave {read['chat']}"
# usage_of reads the Responses API's spelling
assert read["responses"] == {"prompt": 640, "completion": 96, "total": 736}, (
    f"Responses usage gave {read['responses']}; it says input_tokens and output_tokens instead")
# usage_of adds up a missing total
assert read["no total"] == {"prompt": 100, "completion": 7, "total": 107}, f"gave {read['no total']}; total_tokens is missing there"
# usage_of gives None when there is no usage
assert read["none"] is None and read["empty"] is None, f"gave {read['none']!r} and {read['empty']!r}: no usage is None"
# usage_of agrees with looplab's read_usage on every shape
assert all(read[name] == read_usage(shape) for name, shape in SHAPES.items()), "usage_of and looplab.budget.read_usage disagree"
# with no limits the run answers
assert isinstance(runs["no limits"], dict) and runs["no limits"]["stopped"] == "final", f"no limits: {runs['no limits']}"
# a token budget cuts the run mid-way, after the call that crossed it, naming the tokens
assert isinstance(runs["1,000 tokens"], dict) and runs["1,000 tokens"]["steps"] == 3 and \
    runs["1,000 tokens"]["detail"].startswith("tokens"), f"1,000 tokens: {runs['1,000 tokens']}; 320 + 460 + 600 passes 1,000 on call 3"
# a budget that is reached exactly counts as spent
assert isinstance(runs["exactly 780"], dict) and runs["exactly 780"]["steps"] == 2, (
    f"exactly 780: {runs['exactly 780']}; 320 + 460 = 780 reaches the limit, so no third call (use >=)")
# a cost budget stops the run and says it was the cost
assert isinstance(runs["$0.0003"], dict) and runs["$0.0003"]["stopped"] == "step_limit" and \
    runs["$0.0003"]["detail"].startswith("cost") and runs["$0.0003"]["steps"] == 4, (
    f"$0.0003: {runs['$0.0003']}; count prompt and completion tokens, and price them per million")
# with two limits, the one that ran out is named
assert isinstance(runs["both"], dict) and runs["both"]["detail"].startswith("cost"), f"both: {runs['both']}"
# run_agent's token budget ends the run with step_limit after 3 calls, naming the token budget
assert hardened["stopped"] == "step_limit" and hardened["steps"] == 3 and "token budget of 1,000" in hardened["detail"], hardened
# the usage of the run adds up to the calls' usage, as the server reported it
assert hardened["usage"] == {"prompt": 1320, "completion": 60, "total": 1380, "estimated": False}, hardened["usage"]
# each model_reply event carries its call's usage
assert [e["usage"]["total"] for e in events_b.of("model_reply")] == [320, 460, 600], "the model_reply events carry no usage"
# run_agent's cost budget names the cost
assert priced["stopped"] == "step_limit" and "cost budget" in priced["detail"], priced
# with the lesson's model, the run ended with a reason and its usage adds up to its calls
assert live_run["stopped"] in ("final", "step_limit", "error") and live_run["usage"]["total"] == spent_by_calls, live_run
# the offline April run's usage is an estimate, and the prompt grows with every call
expect(all(u.get("estimated") for u in per_call) and [u["prompt"] for u in per_call] == sorted(u["prompt"] for u in per_call),
       f"per call: {per_call}", observed=f"the model reported {per_call}")
# with the prepared replies, the estimated April run passes 1,200 tokens on its fourth call and is cut off
expect(live_run["stopped"] == "step_limit" and live_run["steps"] == 4 and "token budget" in live_run.get("detail", ""),
       f"the run gave {live_run}", observed=f"the run ended {live_run['stopped']} after {live_run['steps']} steps, "
       f"{live_run['usage']['total']} tokens ({'estimated' if live_run['usage']['estimated'] else 'reported by the server'})")
