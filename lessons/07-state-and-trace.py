# %% [markdown]
# # 7 · State and trace: counting, and a log that keeps no secrets
#
# A chat app shows "Analyzed 5 files" or "Searched the web 3 times". That is **state**: what
# the agent has done so far, kept by the program. It answers the questions a person (or a
# test) asks after a run: how many model calls? how many tool calls? which ones failed? And it
# is how budgets are enforced.
#
# Keep two records apart:
#
# - the **messages** are for the model: what it needs for its next decision;
# - the **events** are for people and programs: what happened, when, and whether it worked.
#
# They serve different purposes and have different rules. Above all: the events get copied into
# logs, dashboards and bug reports, so they must never hold an API key.

# %%
import json
from looplab import Toolbox, Memory, run_agent, Collector, printer
from looplab.lesson import expect
from looplab.models import pick_model, call, calls, final, scripted
from looplab.models.rules import rule_model

box = Toolbox()

@box.tool
def add(a: float, b: float) -> float:
    "Add two numbers."
    return a + b

@box.tool
def upper(text: str) -> str:
    "Uppercase a text."
    return text.upper()

# %% [markdown]
# ## Two counters, not one
#
# `run_agent` returns `steps` (model calls) and `tool_calls` (tools run). Why both? One step
# may ask for several tools at once, and a failed tool leads to yet another step. A budget of
# model calls does not bound the tool calls, nor the other way round.

# %% [markdown] tags=["predict"]
# The model below replies four times: two tools at once, then a call with a mistake (`b` is
# `"ten"`), then the repaired call, then the answer. What will the run count?
#
# - [ ] 4 steps and 3 tool calls: the mistaken call does not count
# - [x] 4 steps and 4 tool calls
# - [ ] 3 steps and 4 tool calls
# - [ ] 4 steps and 2 tool calls: one per step that asked for tools
#
# Four replies are four model calls. Four tools ran: two in the first step, then one in each of
# the next two. The mistaken one ran too: it answered with an error.

# %%
model = pick_model([
    calls(("add", {"a": 2, "b": 3}), ("upper", {"text": "done"})),
    call("add", a=5, b="ten"),                      # a mistake: the tool answers with an error
    call("add", a=5, b=10),                         # the model repairs its call
    final("2 + 3 = 5, 5 + 10 = 15, and DONE."),
])
events = Collector()
result = run_agent("Add 2 and 3, uppercase 'done', then add 5 and 10.", model, box, Memory(""),
                   tracer=events)
print(result)
print("event types:", events.types())

# %% [markdown]
# Each event is a plain dict: its `type`, `t` (seconds since the run started), and fields such
# as `step`, `call_id`, `tool`, `ok`, `ms`. The page draws them as the trace timeline; in
# Python, `Collector` keeps them and `printer()` prints one line each.

# %%
for event in events.of("tool_result"):
    print({k: event[k] for k in ("step", "call_id", "tool", "ok", "result")})

# %% [markdown]
# A program's state across many runs is just a sum over the events. This is the "State" of a
# chat app's progress line:

# %%
state = {"turns": 0, "tool_calls": [], "failed": 0}

def track(event):
    if event["type"] == "model_call":
        state["turns"] += 1
    elif event["type"] == "tool_call":
        state["tool_calls"].append(event["tool"])
    elif event["type"] == "tool_result" and not event["ok"]:
        state["failed"] += 1

for task in ("add 1 and 2", "uppercase hello"):
    run_agent(task, pick_model(rule_model), box, Memory(""), tracer=track)
print(state)

# %% [markdown]
# ## Secrets stay out
#
# Every event passes through a redactor before anyone sees it: the configured API keys
# (`LLM_API_KEY`) and anything shaped like a key (`sk-...`, `Bearer ...`) become `[redacted]`.
# That holds even when a tool leaks one into its result:

# %%
@box.tool
def read_config(setting: str) -> str:
    "Read one setting of the app."
    return f"{setting} = sk-lesson-not-a-real-key-0123456789"   # a careless tool

leaky = Collector()
demo = scripted([call("read_config", setting="api"), final("It is set.")])   # prepared replies, also in live mode
run_agent("What is the api setting?", demo, box, Memory(""), tracer=leaky)
print(leaky.of("tool_result")[0]["result"])

# %% [markdown]
# The *model* did see the raw result (it is in the memory), which is why tools should not
# return secrets in the first place. The log is just the last line of defence.
#
# ## Exercise 1: a run log
#
# Write a tracer `log(event)` that appends one line per event to `lines`, in this format:
#
# ```
# tool.requested call_id=call_1 name=add
# tool.completed call_id=call_1 ok=true
# run.stopped reason=final steps=2
# ```
#
# (`tool_call` → `tool.requested`, `tool_result` → `tool.completed`, `stop` → `run.stopped`;
# ignore the other events.) A log like this records at least the call id, the tool's name and
# whether it worked.

# %% tags=["exercise"]
lines = []

def log(event):
    if event["type"] == "tool_call":
        lines.append(f"tool.requested name={event['tool']}")

# %% [markdown] tags=["hint"]
# Print the events a tracer receives: `run_agent(..., tracer=print)`. Each is a dict; the fields
# you need are in the `tool_call`, `tool_result` and `stop` events.

# %% [markdown] tags=["hint"]
# `tool_call` has `call_id` and `tool`; `tool_result` has `call_id` and `ok` (a bool: write it
# as `true` or `false`); `stop` has `stopped` and `steps`. One `elif` a type.

# %% [markdown] tags=["hint"]
# ```python
# def log(event):
#     if event["type"] == "tool_call":
#         lines.append(f"tool.requested call_id={event['call_id']} name={event['tool']}")
#     elif event["type"] == "tool_result":
#         lines.append(f"tool.completed call_id={event['call_id']} ok={'true' if event['ok'] else 'false'}")
#     elif event["type"] == "stop":
#         lines.append(f"run.stopped reason={event['stopped']} steps={event['steps']}")
# ```

# %% tags=["solution"]
lines = []

def log(event):
    if event["type"] == "tool_call":
        lines.append(f"tool.requested call_id={event['call_id']} name={event['tool']}")
    elif event["type"] == "tool_result":
        lines.append(f"tool.completed call_id={event['call_id']} ok={'true' if event['ok'] else 'false'}")
    elif event["type"] == "stop":
        lines.append(f"run.stopped reason={event['stopped']} steps={event['steps']}")

# %%
# Prepared replies in every mode: this run tests your tracer, not a model.
logged = run_agent("Add 1 and 2, and uppercase 'x'.",
                   scripted([call("add", id="call_1", a=1, b=2), call("upper", id="call_2", text=7),
                               final("3 and X.")]),
                   box, Memory(""), tracer=log)
print("\n".join(lines))

# %% [markdown]
# ## Exercise 2: a budget for tool calls
#
# This model asks for **five** tools in a single step. `max_steps` cannot stop that: it counts
# model calls. Give the run a tool-call budget (`max_tool_calls=...`) so that at most **two**
# tools run. Look at what happens to the calls that do not run: each still gets an answer.

# %%
greedy = [calls(*[("add", {"a": i, "b": i}) for i in range(5)]), final("All added.")]  # prepared in every mode

# %% tags=["exercise"]
budget_memory = Memory("")
capped = run_agent("Add everything.", scripted(greedy), box, budget_memory, max_steps=2)
print(capped)

# %% [markdown] tags=["hint"]
# `run_agent` takes a second budget as a keyword argument, beside `max_steps`. The text above
# names it.

# %% [markdown] tags=["hint"]
# Add `max_tool_calls=2` to the `run_agent(...)` call.

# %% tags=["solution"]
budget_memory = Memory("")
capped = run_agent("Add everything.", scripted(greedy), box, budget_memory, max_steps=2,
                   max_tool_calls=2)
print(capped)

# %%
for message in budget_memory.history:
    if message["role"] == "tool":
        print(message["tool_call_id"], message["content"])

# %% tags=["check"]
# the run counted its steps and its tool calls separately
expect((result["steps"], result["tool_calls"]) == (4, 4),
       f"expected 4 model calls and 4 tool calls, got {result['steps']} and {result['tool_calls']}",
       observed=f"the model took {result['steps']} steps and ran {result['tool_calls']} tools, and "
                f"answered {result['answer']!r}; the scripted model takes 4 and runs 4")
# no event holds the leaked key
assert "sk-lesson" not in json.dumps(leaky.events), "a key-shaped string reached the events"
# the log has one line per tool request, with its call id
assert [l for l in lines if l.startswith("tool.requested")] == [
    "tool.requested call_id=call_1 name=add", "tool.requested call_id=call_2 name=upper"], (
    f"the log is {lines}; each tool_call event should give a line 'tool.requested call_id=<id> name=<tool>'")
# the log says whether each tool worked
assert [l for l in lines if l.startswith("tool.completed")] == [
    "tool.completed call_id=call_1 ok=true", "tool.completed call_id=call_2 ok=false"], (
    f"the log is {lines}; each tool_result event should give a line "
    "'tool.completed call_id=<id> ok=true|false' (upper got a number instead of a text, so it failed)")
# the log ends with why the run stopped
assert lines[-1:] == ["run.stopped reason=final steps=3"], (
    f"the last line is {lines[-1:]}; the stop event should give 'run.stopped reason=<stopped> steps=<steps>'")
# at most two tools ran
assert capped["tool_calls"] <= 2, (
    f"{capped['tool_calls']} tools ran; max_steps counts model calls, not tools: the run needs a budget "
    "for tool calls")
# the run says it stopped at a limit
assert capped["stopped"] == "step_limit", (
    f"the run stopped with {capped['stopped']!r} after {capped['tool_calls']} tools; with a tool-call "
    "budget it should stop at the limit")
asked = [c["id"] for m in budget_memory.history if m.get("tool_calls") for c in m["tool_calls"]]
answered = [m["tool_call_id"] for m in budget_memory.history if m["role"] == "tool"]
# every call the model made has exactly one answer
assert sorted(asked) == sorted(answered), f"calls {asked} but answers {answered}"
