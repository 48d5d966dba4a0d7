# ---
# jupyter:
#   looplab:
#     deepens: "04"
#     adds: counters and an event log that show what a run did, with secrets redacted
# ---

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
from looplab import expect
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
# Print the events a tracer receives: give `run_agent` the built-in `print` as its tracer. Each
# is a dict; the fields you need are in the `tool_call`, `tool_result` and `stop` events.

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

# %% tags=["wrong"]
# wrong: writes Python's True and False, not the log's true and false
# expect: ok=true|false
# patch:
# -        lines.append(f"tool.completed call_id={event['call_id']} ok={'true' if event['ok'] else 'false'}")
# +        lines.append(f"tool.completed call_id={event['call_id']} ok={event['ok']}")

# %% tags=["wrong"]
# wrong: leaves out the stop event
# expect: the stop event should give
# patch:
# -    elif event["type"] == "stop":
# -        lines.append(f"run.stopped reason={event['stopped']} steps={event['steps']}")

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
# ## Exercise 2: a budget for tool calls, in your loop
#
# This model asks for **five** tools in a single step. `max_steps` cannot stop that: it counts
# model calls. Below is lesson 4's loop, without approvals, counting the tools it runs. Give it
# the second budget: with `max_tool_calls=N`, at most `N` tools run in the whole run. A call past
# the budget is **not run** but still answered, with an `error:` text saying the budget is spent;
# once the reply's calls are all answered, the run stops with `"step_limit"`. With
# `max_tool_calls=None` nothing changes. (`run_agent` has the same budget: `max_tool_calls=2`.)

# %%
ran_adds = []
counted = Toolbox()

@counted.tool
def add(a: float, b: float) -> float:
    "Add two numbers."
    ran_adds.append((a, b))
    return a + b

greedy = [calls(*[("add", {"a": i, "b": i}, f"add_{i}") for i in range(5)]), final("All added.")]  # in every mode

# %% tags=["exercise"]
def capped_loop(task, model_fn, toolbox, max_steps=6, max_tool_calls=None):
    """Lesson 4's loop (without approvals), counting the tools it runs; returns (result, messages)."""
    messages = [{"role": "user", "content": task}]
    ran = 0
    for step in range(1, max_steps + 1):
        reply = model_fn(messages, toolbox.schemas())
        messages.append(reply)
        if not reply.get("tool_calls"):
            return {"answer": reply.get("content"), "steps": step, "stopped": "final", "tool_calls": ran}, messages
        for tool_call in reply["tool_calls"]:
            ran += 1
            result = toolbox.run(tool_call["function"]["name"], tool_call["function"]["arguments"])
            messages.append({"role": "tool", "tool_call_id": tool_call["id"], "content": result})
    return {"answer": None, "steps": max_steps, "stopped": "step_limit", "tool_calls": ran}, messages

# %% [markdown] tags=["hint"]
# The loop already counts the tools that ran in `ran`. Where, in the loop over the reply's calls,
# would you decide whether a call may still run?

# %% [markdown] tags=["hint"]
# Before `ran += 1`, compare `ran` with `max_tool_calls` (when it is not `None`). A call past the
# budget gets a tool message with an `error:` text instead of `toolbox.run(...)`; remember that
# it happened, and after the `for` over the calls return with `"step_limit"`.

# %% [markdown] tags=["hint"]
# ```python
#         spent = False
#         for tool_call in reply["tool_calls"]:
#             if max_tool_calls is not None and ran >= max_tool_calls:
#                 spent = True
#                 result = f"error: not run: the budget of {max_tool_calls} tool calls is spent"
#             else:
#                 ran += 1
#                 result = toolbox.run(tool_call["function"]["name"], tool_call["function"]["arguments"])
#             messages.append({"role": "tool", "tool_call_id": tool_call["id"], "content": result})
#         if spent:
#             return {"answer": None, "steps": step, "stopped": "step_limit", "tool_calls": ran}, messages
# ```

# %% tags=["wrong"]
# wrong: stops at the budget without answering the calls it did not run
# expect: answered with an error: text
# patch:
# -                spent = True
# -                result = f"error: not run: the budget of {max_tool_calls} tool calls is spent"
# -            else:
# +                return {"answer": None, "steps": step, "stopped": "step_limit", "tool_calls": ran}, messages
# +            if True:

# %% tags=["wrong"]
# wrong: checks the budget once a reply, so all five calls of one reply run
# expect: at most two tools ran
# patch:
# -        spent = False
# +        spent = max_tool_calls is not None and ran >= max_tool_calls
#          for tool_call in reply["tool_calls"]:
# -            if max_tool_calls is not None and ran >= max_tool_calls:
# +            if spent:

# %% tags=["wrong"]
# wrong: compares with > instead of >=, so one call more than the budget runs
# expect: at most two tools ran
# patch:
# -            if max_tool_calls is not None and ran >= max_tool_calls:
# +            if max_tool_calls is not None and ran > max_tool_calls:

# %% tags=["solution"]
def capped_loop(task, model_fn, toolbox, max_steps=6, max_tool_calls=None):
    """Lesson 4's loop (without approvals), counting the tools it runs; returns (result, messages)."""
    messages = [{"role": "user", "content": task}]
    ran = 0
    for step in range(1, max_steps + 1):
        reply = model_fn(messages, toolbox.schemas())
        messages.append(reply)
        if not reply.get("tool_calls"):
            return {"answer": reply.get("content"), "steps": step, "stopped": "final", "tool_calls": ran}, messages
        spent = False
        for tool_call in reply["tool_calls"]:
            if max_tool_calls is not None and ran >= max_tool_calls:
                spent = True
                result = f"error: not run: the budget of {max_tool_calls} tool calls is spent"
            else:
                ran += 1
                result = toolbox.run(tool_call["function"]["name"], tool_call["function"]["arguments"])
            messages.append({"role": "tool", "tool_call_id": tool_call["id"], "content": result})
        if spent:
            return {"answer": None, "steps": step, "stopped": "step_limit", "tool_calls": ran}, messages
    return {"answer": None, "steps": max_steps, "stopped": "step_limit", "tool_calls": ran}, messages

# %%
capped, capped_messages = capped_loop("Add everything.", scripted(greedy), counted, max_steps=2, max_tool_calls=2)
print(capped)
for message in capped_messages:
    if message["role"] == "tool":
        print(message["tool_call_id"], message["content"])
ran_capped, ran_adds[:] = list(ran_adds), []
across, across_messages = capped_loop(
    "Add in two steps.", scripted([calls(("add", {"a": 1, "b": 1}, "s1"), ("add", {"a": 2, "b": 2}, "s2")),
                                   calls(("add", {"a": 3, "b": 3}, "s3"), ("add", {"a": 4, "b": 4}, "s4")),
                                   final("Done.")]), counted, max_tool_calls=3)
free, _ = capped_loop("Add everything.", scripted(greedy), counted, max_steps=2)
print(across, free)

# %% tags=["check"]
from looplab import Case, compare, generate, reference, scenarios


def logging(log_fn, events):
    """The lines log_fn adds to its `lines` for these events."""
    before = list(log_fn.__globals__["lines"])
    for event in events:
        log_fn(dict(event))
    return {"the lines it added": log_fn.__globals__["lines"][len(before):]}


def event(d):
    kind = d.pick(["tool_call", "tool_result", "stop", "model_call", "run_start", "model_reply"])
    n = d.number(1, 3)
    return {"tool_call": {"type": "tool_call", "step": 1, "call_id": f"call_{n}", "tool": d.pick(["add", "upper"]),
                          "arguments": "{}"},
            "tool_result": {"type": "tool_result", "step": 1, "call_id": f"call_{n}", "tool": "add",
                            "ok": d.maybe(), "result": "5"},
            "stop": {"type": "stop", "step": n, "stopped": d.pick(["final", "step_limit", "error"]), "steps": n}
            }.get(kind, {"type": kind, "step": 1})


EVENTS = generate(lambda d: Case((d.some(event, 0, 5),)), count=60, edges=[Case(([],), "no events")])
BENCH = scenarios.Bench(read=("add", {"a": 1, "b": 2}), other=("add", {"a": 3, "b": 4}))


def capping(loop, script, cap):
    """One scenario through a capped loop: how it ended, what the model was sent, the adds that ran."""
    ran_adds.clear()
    kwargs = {**script.settings} if cap == "left out" else {**script.settings, "max_tool_calls": cap}
    result, messages = loop("Add.", script.model(), counted, **kwargs)
    return {"how it ended": {k: result.get(k) for k in ("stopped", "steps", "answer", "tool_calls")},
            "what the model was sent": scenarios.sent(script), "the adds that ran": list(ran_adds),
            "the messages it returned": [scenarios.plain(m) for m in messages]}


CAPS = [Case((case.arguments[0], cap), f"{case.words}, max_tool_calls={cap}")
        for cap in ("left out", None, 0, 1, 2, 3) for case in scenarios.bank(BENCH)]
# given: the run counted its steps and its tool calls separately
expect((result["steps"], result["tool_calls"]) == (4, 4),
       f"expected 4 model calls and 4 tool calls, got {result['steps']} and {result['tool_calls']}",
       observed=f"the model took {result['steps']} steps and ran {result['tool_calls']} tools, and "
                f"answered {result['answer']!r}; the scripted model takes 4 and runs 4")
# given: no event holds the leaked key
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
# log writes the lesson's lines for any sequence of events
assert (log_found := compare(log, reference("log"), EVENTS, observe=logging)), log_found
# at most two tools ran
assert capped["tool_calls"] == 2 and ran_capped == [(0, 0), (1, 1)], (
    f"with max_tool_calls=2, {len(ran_capped)} adds ran ({ran_capped}) and the result says {capped['tool_calls']}; "
    "at most two tools ran should hold: max_steps counts model calls, not tools; compare ran with "
    "max_tool_calls before each call runs")
# the run says it stopped at a limit
assert capped["stopped"] == "step_limit" and capped["answer"] is None, (
    f"the capped run gave {capped}; with its tool-call budget spent it should stop with step_limit and no answer")
tool_answers = {m["tool_call_id"]: m["content"] for m in capped_messages if m["role"] == "tool"}
# the calls past the budget are answered with an error: text, and every call has one answer
assert sorted(tool_answers) == [f"add_{i}" for i in range(5)] and len(tool_answers) == sum(
    m["role"] == "tool" for m in capped_messages) and all(
    str(tool_answers[f"add_{i}"]).startswith("error:") for i in (2, 3, 4)), (
    f"the tool messages answer {sorted(tool_answers)}; every call (add_0 ... add_4) must be answered once, and "
    "add_2, add_3 and add_4, past the budget, answered with an error: text saying the budget is spent")
# the budget counts across steps: the third tool runs, the fourth does not
assert across["tool_calls"] == 3 and across["stopped"] == "step_limit" and across["steps"] == 2 and str(
    [m["content"] for m in across_messages if m.get("tool_call_id") == "s4"]).count("error:") == 1, (
    f"two replies of two calls with max_tool_calls=3 gave {across}; the budget is for the whole run: s1-s3 run, "
    "s4 is answered with an error, and the run stops after step 2")
# given: with no budget, every tool runs and the run ends as before
assert free["stopped"] == "final" and free["tool_calls"] == 5, (
    f"with max_tool_calls=None the run gave {free}; it should run all five adds and end final")
# capped_loop does what the lesson's does in every scenario of the bank, with budgets of 0 to 3 tool calls
assert (cap_found := compare(capped_loop, reference("capped_loop"), CAPS, observe=capping)), cap_found
