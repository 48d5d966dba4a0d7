# ---
# jupyter:
#   looplab:
#     core: the loop at the heart of the agent and its four ways to end; lessons 16 and 16b run yours
# ---

# %% [markdown]
# # 4 · The loop, and the four ways a run ends
#
# Real questions rarely end after one tool call. The model searches, reads what it found,
# maybe searches again with better words, computes, and only then answers. Lesson 3's round
# trip had room for exactly one request; put it in a loop and the model can take as many steps
# as it needs:
#
# ```
#        ┌──────────────────────────────┐
#        ▼                              │
#   ask the model ──▶ tool calls? ──yes──▶ run each, add the results
#                          │ no
#                          ▼
#                   that text is the answer
# ```
#
# A manager writes a memo, an assistant runs the errand and brings back what they found; the
# manager reads it and writes the next memo, until one day they write the report instead. Or a
# cook tastes the sauce, adds a pinch of something, and tastes again until it is right.
# Each pass round the loop is a **step**: one model call, plus the tools it asked for.
#
# Written out as the stages an agent goes through, one step is: **receive** the task and
# **perceive** what is in the messages; **reason and plan** what to do next; **act** (answer or
# call a tool); **observe** the result; **update** the state (the messages); **evaluate**
# whether the goal is reached, and go round again if not. In our code the model does the
# reasoning, planning and evaluating; the loop does the acting, observing and updating.

# %%
from typing import Literal

from looplab import Toolbox, ToolError, Memory, run_agent, printer
from looplab import BRANCH_NOTES, expect, attempt  # attempt: your loop run for a check; a crash becomes a result to read
from looplab.models import pick_model, call, calls, final, failing, scripted

NOTES = dict(BRANCH_NOTES)  # lesson 1's six notes, id -> (title, text); this lesson's own copy

def research_tools(notes):
    """The research helper's toolbox over a dict of notes, with delete_note behind an approval."""
    box = Toolbox()

    @box.tool
    def search_notes(keyword: str) -> str:
        "Find notes whose title contains a keyword. Returns 'id: title' lines."
        found = [f"{i}: {t}" for i, (t, _) in notes.items() if keyword.lower() in t.lower()]
        return "\n".join(found) or f"no notes found for {keyword!r}"

    @box.tool
    def read_note(note_id: str) -> str:
        "Return the text of one note by its id, such as n1."
        if note_id not in notes:
            raise ToolError(f"no note with id {note_id!r}; ids are {', '.join(notes)}")
        return notes[note_id][1]

    @box.tool
    def calculate(a: float, b: float, operation: Literal["add", "subtract", "multiply", "divide"]) -> float:
        "Apply one operation to two numbers and return the result."
        if operation == "add":
            return a + b
        if operation == "subtract":
            return a - b
        if operation == "multiply":
            return a * b
        if b == 0:
            raise ToolError("cannot divide by zero; use a b other than 0")
        return a / b

    @box.tool(needs_approval=True)
    def delete_note(note_id: str) -> str:
        "Delete one note by id, permanently."
        notes.pop(note_id)
        return "deleted"
    return box

box = research_tools(NOTES)
print(box.run("calculate", '{"a": 5, "b": 0, "operation": "add"}'),
      box.run("calculate", '{"a": 5, "b": 0, "operation": "divide"}'), sep="\n")

# %% [markdown]
# `calculate` is lesson 2's: the enum lists the four operations and only the one asked for is
# computed. `delete_note` is registered with `needs_approval=True`: it changes something for
# good, so a person must say yes first.
#
# ## Four ways to end
#
# Nothing in a bare loop says "stop". Ask for a figure that is not in the notes and a model
# told to find it may search, and search again with other words, thirty times: a taxi with
# the meter running and no destination. Every run must end, and the caller must learn **why**:
#
# | `stopped` | what happened | what the caller should do |
# | --- | --- | --- |
# | `final` | the model replied without asking for a tool | use the answer |
# | `step_limit` | the model still wanted tools after the last allowed step | report the task unfinished; look at the steps |
# | `error` | the call to the model failed (the network, a broken reply) | retry later or show the error |
# | `needs_person` | the model asked for a tool that needs approval, and nobody approved | ask a person; run again if they agree |
#
# A *tool* failing is none of these: its error goes back to the model as text (lesson 2) and
# the run goes on. Only failures the model cannot repair end the run.
#
# Other writers name the same exits differently, for example `succeeded` (final), `failed`
# (error) and `budget_exhausted` (step limit). The names matter less than the rule: every exit
# is explicit, and a run out of budget never presents partial work as an answer.
#
# One rule holds whichever way a run ends: **every tool call gets exactly one tool message with
# its id.** A call the program refuses or never runs still gets an answer, an `error:` text
# saying why, so the record is complete and an API will accept it on the next request.
#
# ## Exercise 1: write the loop
#
# Write `my_run_agent(task, model_fn, toolbox, max_steps=6, approve=None)`, returning
# `(result, messages)`:
#
# 1. start the messages with the task as a user message;
# 2. for each step from 1 to `max_steps`, call `model_fn(messages, toolbox.schemas())`. If that
#    raises, stop with `"error"` and put the exception's text in `"detail"`;
# 3. add the reply; if it has no tool calls, stop with `"final"` and its text as the answer;
# 4. otherwise answer **each** call with a tool message carrying its id: the tool's result from
#    `toolbox.run(...)`, or, for a tool that `toolbox.needs_approval(name)` when `approve` is
#    `None` or `approve(name)` is not true, an `error:` text saying a person has not approved
#    it. After a refusal, answer the reply's other calls without running them, then stop with
#    `"needs_person"`;
# 5. if the steps run out, stop with `"step_limit"` and no answer.
#
# `result` is `{"answer": ..., "steps": ..., "stopped": ...}` (plus `"detail"` for an error).
# The starter handles the happy path only.

# %% tags=["exercise"]
def my_run_agent(task, model_fn, toolbox, max_steps=6, approve=None):
    """Run one task to one of the four stops; return (result, messages)."""
    messages = [{"role": "user", "content": task}]
    for step in range(1, max_steps + 1):
        reply = model_fn(messages, toolbox.schemas())
        messages.append(reply)
        if not reply.get("tool_calls"):
            return {"answer": reply["content"], "steps": step, "stopped": "final"}, messages
        for tool_call in reply["tool_calls"]:
            result = toolbox.run(tool_call["function"]["name"], tool_call["function"]["arguments"])
            messages.append({"role": "tool", "tool_call_id": tool_call["id"], "content": result})

# %% [markdown] tags=["hint"]
# Take the stops one at a time, each where it happens: the model call can raise (wrap it); the
# `for` loop can run out (what comes after it?); and a call can need approval (look before
# `toolbox.run`). Every `return` gives back the messages too.

# %% [markdown] tags=["hint"]
# - `error`: `try: reply = model_fn(...)` / `except Exception as exc:` and `str(exc)` as the detail.
# - `step_limit`: one `return` after the `for` loop, with `max_steps` as the steps.
# - `needs_person`: inside the calls loop, `toolbox.needs_approval(name) and not (approve and
#   approve(name))` means refused. Still append a tool message for it (an `error:` text), keep a
#   note of the refusal, answer the later calls with an `error:` text without running them, and
#   return after the calls loop.

# %% [markdown] tags=["hint"]
# ```python
# def my_run_agent(task, model_fn, toolbox, max_steps=6, approve=None):
#     messages = [{"role": "user", "content": task}]
#     for step in range(1, max_steps + 1):
#         try:
#             reply = model_fn(messages, toolbox.schemas())
#         except Exception as exc:
#             return {"answer": None, "steps": step, "stopped": "error", "detail": str(exc)}, messages
#         messages.append(reply)
#         if not reply.get("tool_calls"):
#             return {"answer": reply.get("content"), "steps": step, "stopped": "final"}, messages
#         refused = None
#         for tool_call in reply["tool_calls"]:
#             name = tool_call["function"]["name"]
#             if refused:
#                 result = f"error: not run: the run stopped to ask a person about {refused}"
#             elif toolbox.needs_approval(name) and not (approve and approve(name)):
#                 refused, result = name, f"error: a person has not approved {name}"
#             else:
#                 result = toolbox.run(name, tool_call["function"]["arguments"])
#             messages.append({"role": "tool", "tool_call_id": tool_call["id"], "content": result})
#         if refused:
#             return {"answer": None, "steps": step, "stopped": "needs_person"}, messages
#     return {"answer": None, "steps": max_steps, "stopped": "step_limit"}, messages
# ```

# %% tags=["wrong"]
# wrong: no try/except around the model call, so a network failure crashes the loop
# expect: try/except
# patch:
# -        try:
# -            reply = model_fn(messages, toolbox.schemas())
# -        except Exception as exc:                                              # stop: error
# -            return {"answer": None, "steps": step, "stopped": "error", "detail": str(exc)}, messages
# +        reply = model_fn(messages, toolbox.schemas())

# %% tags=["wrong"]
# wrong: after a refusal, still runs the reply's other calls
# expect: later calls must not run
# patch:
# -            if refused:
# -                result = f"error: not run: the run stopped to ask a person about {refused}"
# -            elif toolbox.needs_approval(name) and not (approve and approve(name)):
# +            if toolbox.needs_approval(name) and not (approve and approve(name)):

# %% tags=["wrong"]
# wrong: stops at a refusal without answering the refused call
# expect: refused still needs a tool message
# patch:
# -        refused = None
# @@
# -            if refused:
# -                result = f"error: not run: the run stopped to ask a person about {refused}"
# -            elif toolbox.needs_approval(name) and not (approve and approve(name)):
# -                refused, result = name, f"error: a person has not approved {name}"
# -            else:
# -                result = toolbox.run(name, tool_call["function"]["arguments"])
# -            messages.append({"role": "tool", "tool_call_id": tool_call["id"], "content": result})
# -        if refused:                                                           # stop: needs a person
# -            return {"answer": None, "steps": step, "stopped": "needs_person"}, messages
# +            if toolbox.needs_approval(name) and not (approve and approve(name)):
# +                return {"answer": None, "steps": step, "stopped": "needs_person"}, messages
# +            result = toolbox.run(name, tool_call["function"]["arguments"])
# +            messages.append({"role": "tool", "tool_call_id": tool_call["id"], "content": result})

# %% tags=["wrong"]
# wrong: nothing after the for loop, so a run out of steps returns None
# expect: after the loop
# patch:
# -    return {"answer": None, "steps": max_steps, "stopped": "step_limit"}, messages   # stop: step limit

# %% tags=["solution"]
def my_run_agent(task, model_fn, toolbox, max_steps=6, approve=None):
    """Run one task to one of the four stops; return (result, messages)."""
    messages = [{"role": "user", "content": task}]
    for step in range(1, max_steps + 1):
        try:
            reply = model_fn(messages, toolbox.schemas())
        except Exception as exc:                                              # stop: error
            return {"answer": None, "steps": step, "stopped": "error", "detail": str(exc)}, messages
        messages.append(reply)
        if not reply.get("tool_calls"):                                       # stop: final answer
            return {"answer": reply.get("content"), "steps": step, "stopped": "final"}, messages
        refused = None
        for tool_call in reply["tool_calls"]:
            name = tool_call["function"]["name"]
            if refused:
                result = f"error: not run: the run stopped to ask a person about {refused}"
            elif toolbox.needs_approval(name) and not (approve and approve(name)):
                refused, result = name, f"error: a person has not approved {name}"
            else:
                result = toolbox.run(name, tool_call["function"]["arguments"])
            messages.append({"role": "tool", "tool_call_id": tool_call["id"], "content": result})
        if refused:                                                           # stop: needs a person
            return {"answer": None, "steps": step, "stopped": "needs_person"}, messages
    return {"answer": None, "steps": max_steps, "stopped": "step_limit"}, messages   # stop: step limit

# %% [markdown]
# ## Trying your loop
#
# A loop is tested with prepared replies, in every mode: these runs test your code, not a
# model. Run A answers the April question, run B is the same with three steps allowed, run C
# asks to delete a note with nobody to approve, run D's model has no network. Then the edge
# cases: an approval that says yes, two calls in one reply, a refused call with another beside
# it, and a misspelt tool.

# %%
APRIL = [call("search_notes", keyword="visits"), call("read_note", note_id="n1"),
         call("read_note", note_id="n2"), call("calculate", a=1310, b=1105, operation="subtract"),
         final("Eastside, by 205.")]
REMOVE = [call("search_notes", keyword="staff"), call("delete_note", id="call_del", note_id="n5"),
          final("Done.")]


def paired(messages):
    """Every tool call answered by exactly one later tool message with its id, and nothing else."""
    asked, answered = [], []
    for message in messages:
        if message.get("role") == "assistant":
            asked += [c["id"] for c in message.get("tool_calls") or []]
        elif message.get("role") == "tool":
            if message.get("tool_call_id") not in asked:
                return False                       # an answer to a call not made (yet)
            answered.append(message["tool_call_id"])
    return sorted(asked) == sorted(answered)


run_notes = {name: dict(NOTES) for name in ("A", "B", "C", "yes", "mixed")}
mine = {
    "A": attempt(my_run_agent, "Which branch had more April visits, and by how many?",
                 scripted(APRIL), research_tools(run_notes["A"]), max_steps=6),
    "B": attempt(my_run_agent, "Which branch had more April visits, and by how many?",
                 scripted(APRIL), research_tools(run_notes["B"]), max_steps=3),
    "C": attempt(my_run_agent, "Remove the Eastside staff note.", scripted(REMOVE),
                 research_tools(run_notes["C"]), max_steps=6, approve=None),
    "D": attempt(my_run_agent, "Anything.", failing("network down"), box),
    "yes": attempt(my_run_agent, "Remove the Eastside staff note.", scripted(REMOVE),
                   research_tools(run_notes["yes"]), approve=lambda name: True),
    "two": attempt(my_run_agent, "Read n1 and n2.",
                   scripted([calls(("read_note", {"note_id": "n1"}, "c_1"), ("read_note", {"note_id": "n2"}, "c_2")),
                             final("1310 and 1105.")]), box),
    "mixed": attempt(my_run_agent, "Delete n6, then read n1.",
                     scripted([calls(("delete_note", {"note_id": "n6"}, "c_del"), ("read_note", {"note_id": "n1"}, "c_read")),
                               final("Done.")]), research_tools(run_notes["mixed"]), approve=lambda name: False),
    "typo": attempt(my_run_agent, "Read n1.",
                    scripted([call("read_nte", note_id="n1"), call("read_note", note_id="n1"), final("Read it.")]), box),
}
for name, (result, messages) in mine.items():
    print(f"run {name:5} {result}  ({len(messages)} messages)")

# %% [markdown]
# ## Your loop, with the lesson's model
#
# The same function runs against whatever model the page is set to. With the scripted model it
# is run A again; switch to live and your loop drives a real model through the April question.

# %%
yours, your_messages = attempt(my_run_agent, "Which branch had more April visits, and by how many?",
                               pick_model(APRIL), research_tools(dict(NOTES)), max_steps=6)
print(yours)
for message in your_messages:
    print(f"  {message['role']:9} {str(message.get('content') or message.get('tool_calls'))[:80]!r}")

# %% [markdown]
# ## The hardened version: `run_agent`
#
# `looplab.run_agent` is your loop with more care. Read it in `looplab/loop.py`: the stops are
# all named in one function. What it adds:
#
# - **memory**: it keeps the messages in a `Memory` (lesson 8), so a conversation can go on
#   across runs and the window can be trimmed to a token `budget`;
# - **malformed replies**: a reply that is not a dict, or has neither text nor tool calls, ends
#   the run with `error` and says why, instead of a crash; text sent as a list of parts is
#   joined, and a lone tool call outside a list is accepted;
# - **id repair**: a call with no id, or an id already used, gets an id of its own and an
#   `error:` answer asking the model to call again, so no two results ever share an id;
# - **a tool-call limit**: `max_tool_calls` (lesson 7), because one step can ask for many tools;
#   the calls it skips are answered too;
# - **approvals** that may look at the arguments, `approve(name, arguments)` (lesson 10), and an
#   `approve` that raises counts as "no": it fails closed;
# - **gates** on the task and on the answer (lesson 10), with a fifth stop, `blocked`;
# - **events** for every step sent to a `tracer` (lesson 7), and a count of the tools that ran;
# - **redaction**: the `detail` and the events never show an API key.
#
# Here is the April question through it, with the trace printed:

# %%
run_a = run_agent("Which branch had more April visits, and by how many?", pick_model(APRIL),
                  research_tools(dict(NOTES)), Memory("You answer questions from the research notes. Use the tools."),
                  max_steps=6, tracer=printer())
print(run_a)

# %% [markdown]
# ## The exits, one at a time
#
# Here are the exits on a tiny corpus of two documents (lesson 3's), with prepared replies so
# each run does the same thing every time. Each run prints its events as
# `turn → tool(arguments) → ok`, then how it ended.

# %%
DOCUMENTS = {
    "agent-loop": "Agent loops repeat observation, decision, action, and evaluation.",
    "workflow": "Workflows follow code-defined paths and finite branches.",
}
corpus = Toolbox()

@corpus.tool
def search_local_sources(query: str) -> dict:
    "Search approved local documents and return at most three matches."
    words = set(query.lower().split())
    hits = [{"source_id": i, "text": t} for i, t in DOCUMENTS.items() if words & set(t.lower().split())]
    return {"matches": hits[:3]}

def traced_run(task, model, max_steps=6):
    events = []
    result = run_agent(task, model, corpus, Memory(""), max_steps=max_steps, tracer=events.append)
    asked = {e["call_id"]: e["arguments"] for e in events if e["type"] == "tool_call"}
    for e in events:
        if e["type"] == "tool_result":
            print(f"  turn={e['step']} → {e['tool']}({asked[e['call_id']]}) → {'ok' if e['ok'] else 'error'}")
    print(f"  → {result['stopped']} after {result['steps']} turns, {result['tool_calls']} tools run")
    return result

# A model that refines its search once, then answers: succeeded ("final").
refine = scripted([call("search_local_sources", query="agent loops"),
                   call("search_local_sources", query="stopping conditions"),
                   final("Agent loops repeat observation, decision, action and evaluation.")])
run_refine = traced_run("How do agent loops work, and when do they stop?", refine)

# %% [markdown] tags=["predict"]
# The next model has seven searches prepared and never answers. The run allows six steps. How
# does it end?
#
# - [ ] `final` after 7 turns: it runs until the model is done
# - [ ] `step_limit` after 5 turns: the sixth turn is not started
# - [x] `step_limit` after 6 turns, with 6 searches run
# - [ ] `error`: the seventh search is refused
#
# Turn six still runs its tool; then there is no seventh turn, and the budget is exhausted.

# %%
searcher = scripted([call("search_local_sources", query=f"agent loops {i}") for i in range(1, 8)])
run_searcher = traced_run("Find everything about agent loops.", searcher)

# The model call itself fails: "error".
print(run_agent("Anything.", failing("network down"), corpus, Memory("")))

# %% [markdown]
# If a test of your loop ever *hangs*, some path through it is not covered by a budget. That
# is worth a test of its own: a model that never stops asking must still end with `step_limit`.
#
# The fourth exit with `run_agent`: the model asks for `delete_note` and `approve` is `None`.

# %% [markdown] tags=["predict"]
# When the run stops with `needs_person`, what is the **last** message in its memory?
#
# - [ ] the model's reply asking for `delete_note`: the run stopped before answering it
# - [x] a `tool` message answering that call with an `error:` text
# - [ ] `"Done."`: the model answers anyway
#
# The refused call still gets its answer, so no request is left without a result.

# %%
kept_notes = dict(NOTES)
memory_c = Memory("")
run_c = run_agent("Remove the Eastside staff note.", scripted(REMOVE), research_tools(kept_notes), memory_c,
                  approve=None, tracer=printer())
print(run_c, "| n5 is still there:", "n5" in kept_notes)
print(memory_c.history[-1])

# %% [markdown]
# ## Exercise 2: a test for the step limit
#
# A loop that only stops when the model is done is one broken model away from running forever.
# Write the test that catches it: `step_limit_problems(loop_fn)` runs
# `loop_fn("Keep pinging.", model, ping_box, max_steps=3)` with a model that **never stops**
# asking for `ping`, and returns a list of what is wrong (empty when nothing is):
#
# - the run must stop with `"step_limit"`, `3` steps and no answer;
# - the model must be called **exactly 3 times**, one call a step, never a fourth.
#
# `loop_fn` has `my_run_agent`'s signature. The checks run your test against your loop, against
# `run_agent`, and against two broken loops below (one makes a call too many, one calls its last
# stop `final`).

# %%
ping_box = Toolbox()
ping_box.register("ping", "Return the word pong.", None, lambda: "pong")


def loop_by_run_agent(task, model_fn, toolbox, max_steps=6, approve=None):
    """looplab's run_agent with my_run_agent's signature: a loop known to be right."""
    memory = Memory("")
    result = run_agent(task, model_fn, toolbox, memory, max_steps=max_steps)
    return result, memory.history


def loop_one_call_too_many(task, model_fn, toolbox, max_steps=6, approve=None):
    """A broken loop: it asks the model once more after the last step, then says step_limit."""
    result, messages = loop_by_run_agent(task, model_fn, toolbox, max_steps + 1)
    return {**result, "steps": min(result["steps"], max_steps)}, messages


def loop_quiet_end(task, model_fn, toolbox, max_steps=6, approve=None):
    """A broken loop: out of steps, it reports a final answer of None instead of step_limit."""
    result, messages = loop_by_run_agent(task, model_fn, toolbox, max_steps)
    return {"answer": result["answer"], "steps": result["steps"], "stopped": "final"}, messages

# %% tags=["exercise"]
def step_limit_problems(loop_fn):
    """Run loop_fn with a model that never stops; return what is wrong with how it ended."""
    ...  # a model that never stops, the run, then a list of what differs from what it should be

# %% [markdown] tags=["hint"]
# The model can be a function of your own: it gets `(messages, tools)` and returns a reply. A
# function that always asks for `ping` never stops, and it can count how often it is called.

# %% [markdown] tags=["hint"]
# Keep the count in a list the model function appends to; `call("ping")` is the reply. After the
# run, compare `result["stopped"]`, `result["steps"]`, `result["answer"]` and the count with what
# they should be, appending a sentence to `problems` for each that differs.

# %% [markdown] tags=["hint"]
# ```python
# def step_limit_problems(loop_fn):
#     asked = []
#     def never_stops(messages, tools):
#         asked.append(len(messages))
#         return call("ping")
#     result, _ = loop_fn("Keep pinging.", never_stops, ping_box, max_steps=3)
#     problems = []
#     if (result.get("stopped"), result.get("steps"), result.get("answer")) != ("step_limit", 3, None):
#         problems.append(f"the run ended {result}, not step_limit after 3 steps")
#     if len(asked) != 3:
#         problems.append(f"the model was called {len(asked)} times, not 3")
#     return problems
# ```

# %% tags=["wrong"]
# wrong: checks how the run ended but not how many times the model was called
# expect: one call too many
# patch:
# -    if len(asked) != 3:
# -        problems.append(f"the model was called {len(asked)} times, not 3")

# %% tags=["wrong"]
# wrong: counts the calls but takes any stop with no answer as right
# expect: reports final
# patch:
# -    if (result.get("stopped"), result.get("steps"), result.get("answer")) != ("step_limit", 3, None):
# -        problems.append(f"the run ended {result}, not step_limit after 3 steps")
# +    if result.get("answer") is not None:
# +        problems.append(f"the run answered {result.get('answer')!r}")

# %% tags=["wrong"]
# wrong: leaves out max_steps=3, so the loop runs its default six steps
# expect: empty list
# patch:
# -    result, _ = loop_fn("Keep pinging.", never_stops, ping_box, max_steps=3)
# +    result, _ = loop_fn("Keep pinging.", never_stops, ping_box)

# %% tags=["solution"]
def step_limit_problems(loop_fn):
    """Run loop_fn with a model that never stops; return what is wrong with how it ended."""
    asked = []

    def never_stops(messages, tools):
        asked.append(len(messages))
        return call("ping")

    result, _ = loop_fn("Keep pinging.", never_stops, ping_box, max_steps=3)
    problems = []
    if (result.get("stopped"), result.get("steps"), result.get("answer")) != ("step_limit", 3, None):
        problems.append(f"the run ended {result}, not step_limit after 3 steps")
    if len(asked) != 3:
        problems.append(f"the model was called {len(asked)} times, not 3")
    return problems

# %%
def problems_of(loop_fn):
    """What your test says of a loop, or what went wrong running it."""
    try:
        found = step_limit_problems(loop_fn)
    except Exception as exc:
        return f"your test raised {type(exc).__name__}: {exc}"
    return found if isinstance(found, list) else f"your test returned {found!r:.60}, not a list"


verdicts = {name: problems_of(fn) for name, fn in [("run_agent", loop_by_run_agent), ("yours", my_run_agent),
                                                   ("one too many", loop_one_call_too_many),
                                                   ("quiet end", loop_quiet_end)]}
for name, found in verdicts.items():
    print(f"{name:13} {found}")

# %% tags=["check"]
A, B, C, D = (mine[k][0] for k in "ABCD")
from looplab import Case, compare, reference, scenarios

BENCH = scenarios.Bench(read=("read_note", {"note_id": "n1"}), other=("search_notes", {"keyword": "visits"}),
                        guarded=("delete_note", {"note_id": "n5"}))


def drive(loop, script):
    """One scenario through a loop: how it ended, what the model was sent, which tools ran."""
    notes = dict(NOTES)
    box = scenarios.Recorded(research_tools(notes))
    result, messages = attempt(loop, "Tidy the notes.", script.model(), box, **script.settings)
    return {"how it ended": {k: result.get(k) for k in ("stopped", "steps", "answer", "detail")},
            "what the model was sent": scenarios.sent(script), "the tools that ran": box.ran,
            "the messages it returned": [scenarios.plain(m) for m in messages], "the notes left": sorted(notes)}


def broken(change):
    """run_agent with my_run_agent's signature, its result changed by `change`."""
    def loop(task, model_fn, toolbox, max_steps=6, approve=None):
        result, messages = loop_by_run_agent(task, model_fn, toolbox, max_steps, approve)
        return change(result, model_fn, messages), messages
    return loop


LOOPS = [Case((loop_by_run_agent,), "run_agent"), Case((loop_one_call_too_many,), "a loop that makes one call too many"),
         Case((loop_quiet_end,), "a loop that reports final when its steps run out"),
         Case((broken(lambda r, m, ms: {**r, "steps": r["steps"] - 1}),), "a loop that counts one step too few"),
         Case((broken(lambda r, m, ms: {**r, "answer": "pong"}),), "a loop that answers when its steps run out"),
         Case((broken(lambda r, m, ms: {**r, "stopped": "error"}),), "a loop that says error when its steps run out"),
         Case((lambda task, model_fn, toolbox, max_steps=6, approve=None: loop_by_run_agent(
             task, model_fn, toolbox, max_steps - 1),), "a loop that stops one step early")]


def finds(test, loop):
    """Does the step-limit test find something wrong with this loop?"""
    try:
        found = test(loop)
    except Exception as exc:
        return {"it finds a problem": f"raised {type(exc).__name__}"}
    return {"it finds a problem": bool(found) if isinstance(found, list) else f"returned {found!r:.40}"}
# given: run A ends with final and the prepared answer after five steps
assert (A.get("stopped"), A.get("answer"), A.get("steps")) == ("final", "Eastside, by 205.", 5), (
    f"run A gave {A}; the fifth reply has no tool calls: that is the final answer, with its text")
# run B stops with step_limit and no answer after three steps
assert B.get("stopped") == "step_limit" and B.get("answer") is None and B.get("steps") == 3, (
    f"run B (max_steps=3) gave {B}; when the for loop runs out, the run still has to return: "
    "look at what comes after the loop")
# run D stops with error and the exception's text in detail
assert D.get("stopped") == "error" and "network down" in str(D.get("detail", "")), (
    f"run D, whose model raises ConnectionError('network down'), gave {D}; the model call needs a "
    "try/except that returns the error with the exception's text")
# run C stops with needs_person and n5 is still there
assert C.get("stopped") == "needs_person" and "n5" in run_notes["C"], (
    f"run C gave {C}, and n5 is {'still there' if 'n5' in run_notes['C'] else 'deleted'}; before "
    "running a tool, ask toolbox.needs_approval(name), and with approve=None do not run it")
# run C's refused call is answered by an error: tool message
assert mine["C"][1][-1:] and mine["C"][1][-1].get("role") == "tool" \
    and mine["C"][1][-1].get("tool_call_id") == "call_del" \
    and str(mine["C"][1][-1].get("content")).startswith("error:"), (
    f"run C's last message is {mine['C'][1][-1:]}; the refused delete_note call (id call_del) "
    "still needs a tool message, an 'error:' text, before the run returns")
# given: an approve that says yes lets delete_note run
assert mine["yes"][0].get("stopped") == "final" and "n5" not in run_notes["yes"], (
    f"with approve=lambda name: True, run C gave {mine['yes'][0]}; when approve(name) is true, "
    "run the tool as usual")
# given: two calls in one reply are both answered, in order, with their ids
assert [m.get("tool_call_id") for m in mine["two"][1] if m.get("role") == "tool"] == ["c_1", "c_2"] \
    and mine["two"][0].get("stopped") == "final", (
    f"a reply with calls c_1 and c_2 gave {mine['two'][0]} and tool messages for "
    f"{[m.get('tool_call_id') for m in mine['two'][1] if m.get('role') == 'tool']}; answer every call of the reply")
# a refused call does not leave the other calls of its reply unanswered
assert mine["mixed"][0].get("stopped") == "needs_person" and paired(mine["mixed"][1]) \
    and "n6" in run_notes["mixed"], (
    f"a reply asking for delete_note (refused) and read_note gave {mine['mixed'][0]} and tool messages "
    f"{[m.get('tool_call_id') for m in mine['mixed'][1] if m.get('role') == 'tool']}; the run should stop "
    "with needs_person, n6 should stay, and both calls, c_del and c_read, need an answer before it stops")
# after a refusal, the later calls of the reply are answered but not run
assert str(next((m.get("content") for m in mine["mixed"][1] if m.get("tool_call_id") == "c_read"), "")).startswith(
    "error:"), (
    f"after delete_note (c_del) was refused, read_note (c_read) got "
    f"{next((m.get('content') for m in mine['mixed'][1] if m.get('tool_call_id') == 'c_read'), None)!r}; the later "
    "calls of the reply must not run: answer each with an 'error:' text saying it was not run")
# given: a tool's error goes back to the model and the run goes on
assert mine["typo"][0].get("stopped") == "final" and mine["typo"][0].get("steps") == 3 \
    and str(next((m.get("content") for m in mine["typo"][1] if m.get("role") == "tool"), "")).startswith("error:"), (
    f"a misspelt tool name gave {mine['typo'][0]}; an unknown tool is not a stop: toolbox.run answers "
    "with an error the model can read, and the loop goes on")
# in every run, every tool call is answered by exactly one tool message with its id
assert all(messages and paired(messages) for _, messages in mine.values()), (
    "in these runs a call has no answer, two answers, or an answer before it: "
    + ", ".join(name for name, (_, messages) in mine.items() if not (messages and paired(messages))))
# given: your loop with the lesson's model ended with one of the four stops
assert yours.get("stopped") in ("final", "step_limit", "error", "needs_person") and paired(your_messages), (
    f"your loop with the lesson's model gave {yours}")
# given: your loop with the lesson's model answered the April question
expect(yours.get("answer") == "Eastside, by 205.", f"your loop gave {yours}",
       observed=f"your loop stopped with {yours.get('stopped')!r} after {yours.get('steps')} steps and "
                f"answered {yours.get('answer')!r}; a scripted model answers 'Eastside, by 205.' after 5 steps")
# given: run_agent: the April run ended with the final answer
expect(run_a["stopped"] == "final" and run_a["answer"] == "Eastside, by 205.", f"run_agent gave {run_a}",
       observed=f"run_agent stopped with {run_a['stopped']!r} after {run_a['steps']} steps "
                f"({run_a['tool_calls']} tools) and answered {run_a['answer']!r}; a scripted model answers "
                "'Eastside, by 205.'")
# given: the refining run succeeded; the run that only searched exhausted its budget after six turns
assert (run_refine["stopped"], run_searcher["stopped"], run_searcher["steps"], run_searcher["tool_calls"]) \
    == ("final", "step_limit", 6, 6), (
    f"{run_refine['stopped']}, {run_searcher['stopped']} after {run_searcher['steps']} turns")
# given: run_agent stopped for a person, answered the refused call, and n5 is still there
assert run_c["stopped"] == "needs_person" and "n5" in kept_notes \
    and memory_c.history[-1]["content"].startswith("error:"), f"run C: {run_c}"
# your step-limit test finds nothing wrong with run_agent or with your loop
assert verdicts["run_agent"] == [] and verdicts["yours"] == [], (
    f"your test says of run_agent: {verdicts['run_agent']}, and of your loop: {verdicts['yours']}; a loop that "
    "stops with step_limit after 3 model calls and no answer should get an empty list")
# your test catches the loop that makes one call too many
assert isinstance(verdicts["one too many"], list) and verdicts["one too many"], (
    f"your test says {verdicts['one too many']!r} of a loop that makes one call too many (4 calls with "
    "max_steps=3, then says step_limit): count the model's calls, and use a model that never runs out")
# your test catches the loop that reports final when its steps run out
assert isinstance(verdicts["quiet end"], list) and verdicts["quiet end"], (
    f"your test says {verdicts['quiet end']!r} of a loop that reports final (answer None) when its steps run "
    "out: check that the stop is step_limit, not only that there is no answer")
# your loop does what the lesson's does in every scenario of the bank (failures, two calls, refusals, limits)
assert (loop_found := compare(my_run_agent, reference("my_run_agent"), scenarios.bank(BENCH), observe=drive)), loop_found
# your step-limit test tells right loops from broken ones as the lesson's does
assert (test_found := compare(step_limit_problems, reference("step_limit_problems"), LOOPS, observe=finds)), test_found
