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
from looplab import Toolbox, ToolError, Memory, run_agent, printer
from looplab.models import pick_model, model_mode, call, final, failing

live = model_mode() == "live"

NOTES = {
    "n1": ("Eastside branch: visits", "March visits: 1240. April visits: 1310."),
    "n2": ("Westside branch: visits", "March visits: 980. April visits: 1105."),
    "n3": ("Eastside branch: opening days", "Open Monday to Saturday."),
    "n4": ("Westside branch: opening days", "Open Monday to Friday."),
    "n5": ("Eastside branch: staff", "Staff count: 14."),
    "n6": ("Westside branch: staff", "Staff count: 9."),
}

def research_tools():
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
    def calculate(a: float, b: float, operation: str) -> float:
        "Apply add, subtract, multiply or divide to two numbers."
        return {"add": a + b, "subtract": a - b, "multiply": a * b, "divide": a / b}[operation]
    return box

box = research_tools()

# %% [markdown]
# ## Exercise 1: write the loop
#
# You have every piece already. Write `my_run_agent(task, model_fn, toolbox, max_steps)`:
#
# 1. start the messages with the task as a user message;
# 2. for each step from 1 to `max_steps`: call `model_fn(messages, toolbox.schemas())`. If that
#    raises, stop with `"error"` and put the exception's text in `"detail"`;
# 3. add the reply; if it has no tool calls, stop with `"final"` and its text as the answer;
# 4. otherwise run each call and add a tool message with its id;
# 5. if the steps run out, stop with `"step_limit"` and no answer.
#
# Return `{"answer": ..., "steps": ..., "stopped": ...}` (plus `"detail"` for errors) and the
# messages. The starter handles the happy path only.

# %% tags=["exercise"]
def my_run_agent(task, model_fn, toolbox, max_steps=6):
    messages = [{"role": "user", "content": task}]
    for step in range(1, max_steps + 1):
        reply = model_fn(messages, toolbox.schemas())
        messages.append(reply)
        if not reply.get("tool_calls"):
            return {"answer": reply["content"], "steps": step, "stopped": "final"}, messages
        for tool_call in reply["tool_calls"]:
            result = toolbox.run(tool_call["function"]["name"], tool_call["function"]["arguments"])
            messages.append({"role": "tool", "tool_call_id": tool_call["id"], "content": result})

# %% tags=["solution"]
def my_run_agent(task, model_fn, toolbox, max_steps=6):
    messages = [{"role": "user", "content": task}]
    for step in range(1, max_steps + 1):
        try:
            reply = model_fn(messages, toolbox.schemas())
        except Exception as exc:                                   # stop: error
            return {"answer": None, "steps": step, "stopped": "error", "detail": str(exc)}, messages
        messages.append(reply)
        if not reply.get("tool_calls"):                            # stop: final answer
            return {"answer": reply["content"], "steps": step, "stopped": "final"}, messages
        for tool_call in reply["tool_calls"]:
            result = toolbox.run(tool_call["function"]["name"], tool_call["function"]["arguments"])
            messages.append({"role": "tool", "tool_call_id": tool_call["id"], "content": result})
    return {"answer": None, "steps": max_steps, "stopped": "step_limit"}, messages   # stop: step limit

# %% [markdown]
# Try it on three scripted runs: a question it can finish, a model that never stops asking for
# tools, and a model whose network is down.

# %%
def attempt(function, *args, **kwargs):
    """Run the learner's function; an exception becomes a result the checks can read."""
    try:
        out = function(*args, **kwargs)
    except Exception as exc:
        return {"answer": None, "steps": None, "stopped": f"raised {type(exc).__name__}: {exc}"}, []
    return out if isinstance(out, tuple) else ({"stopped": f"returned {out!r}"}, [])

april = [call("search_notes", keyword="visits"), call("read_note", note_id="n1"),
         call("read_note", note_id="n2"), call("calculate", a=1310, b=1105, operation="subtract"),
         final("Eastside, by 205.")]
mine_final, mine_messages = attempt(my_run_agent, "Which branch had more April visits, and by how much?",
                                    pick_model(april), box, max_steps=6)
mine_limit, _ = attempt(my_run_agent, "Which branch had more April visits?", pick_model(april), box,
                        max_steps=3)
mine_error, _ = attempt(my_run_agent, "Anything.", failing("network down"), box)
print(mine_final, mine_limit, mine_error, sep="\n")

# %% [markdown]
# ## The real thing: `run_agent`
#
# `looplab.run_agent` is your loop with a little more care: it keeps the messages in a
# `Memory` (lesson 8), never crashes on a malformed reply, can ask a person before a risky tool,
# and reports every event to a tracer. Read it in `looplab/loop.py`: every way to stop is
# named in one place. Here is the April question with the trace printed:

# %%
memory = Memory("You answer questions from the research notes. Use the tools.")
run_a = run_agent("Which branch had more April visits, and by how many?", pick_model(april),
                  box, memory, max_steps=6, tracer=printer())
print(run_a)

# %% [markdown]
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

# %% [markdown]
# Here are three of the exits on a tiny corpus of two documents (lesson 3's). Each run prints its
# events as `turn → tool(arguments) → ok`, then how it ended:

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
    print(f"  → {result['stopped']} after {result['steps']} turns")
    return result

# A model that refines its search once, then answers: succeeded ("final").
refine = pick_model([call("search_local_sources", query="agent loops"),
                     call("search_local_sources", query="stopping conditions"),
                     final("Agent loops repeat observation, decision, action and evaluation.")])
run_refine = traced_run("How do agent loops work, and when do they stop?", refine)

# A model that only ever searches. On turn six its tool still runs; then there is no
# seventh turn, and the run ends with the budget exhausted ("step_limit").
searcher = pick_model([call("search_local_sources", query=f"agent loops {i}") for i in range(1, 8)])
run_searcher = traced_run("Find everything about agent loops.", searcher)

# The model call itself fails: "error".
print(run_agent("Anything.", failing("network down"), corpus, Memory("")))

# %% [markdown]
# If a test of your loop ever *hangs*, some path through it is not covered by a budget. That
# is worth a test of its own: a model that never stops asking must still end with `step_limit`.
#
# The fourth exit needs a tool that changes something for good. Flag it `needs_approval=True`,
# and `run_agent` will not run it unless `approve(name)` says yes. The refused call still gets
# a tool message (an `error:` result), so no request is left without its answer:

# %%
def delete_note(note_id: str) -> str:
    NOTES.pop(note_id)
    return "deleted"

box.register("delete_note", "Delete one note by id, permanently.",
             {"type": "object", "properties": {"note_id": {"type": "string"}}, "required": ["note_id"]},
             delete_note, needs_approval=True)
remove = pick_model([call("search_notes", keyword="staff"), call("delete_note", note_id="n5"),
                     final("Done.")])
run_c = run_agent("Remove the Eastside staff note.", remove, box, Memory(""), approve=None,
                  tracer=printer())
print(run_c, "| n5 is still there:", "n5" in NOTES)

# %% [markdown]
# ## Exercise 2: stop at the step limit
#
# The scripted model below asks for `ping` five times before it answers. Choose `max_steps` so
# the run is cut off after **three** steps.

# %%
box.register("ping", "Return the word pong.", None, lambda: "pong")
pings = [call("ping") for _ in range(5)] + [final("I pinged five times.")]

# %% tags=["exercise"]
run_b = run_agent("Keep pinging.", pick_model(pings), box, Memory("Helper."), max_steps=6)
print(run_b)

# %% tags=["solution"]
run_b = run_agent("Keep pinging.", pick_model(pings), box, Memory("Helper."), max_steps=3)
print(run_b)

# %% tags=["check"]
# your loop returns final with the prepared answer
assert live or mine_final.get("stopped") == "final" and mine_final.get("answer") == "Eastside, by 205.", (
    f"my_run_agent gave {mine_final}; expected stopped='final' and the answer 'Eastside, by 205.'")
# your loop stops with step_limit when the steps run out
assert live or (mine_limit or {}).get("stopped") == "step_limit" and mine_limit.get("steps") == 3, (
    f"my_run_agent with max_steps=3 gave {mine_limit}; after the loop, return "
    "{'answer': None, 'steps': max_steps, 'stopped': 'step_limit'}")
# your loop stops with error when the model call raises
assert (mine_error or {}).get("stopped") == "error" and "network down" in mine_error.get("detail", ""), (
    f"my_run_agent with a failing model gave {mine_error}; wrap the model call in try/except and "
    "return stopped='error' with detail=str(exc)")
asked = {c["id"] for m in mine_messages if m.get("tool_calls") for c in m["tool_calls"]}
# in your loop, every tool message answers a call that was made
assert all(m["tool_call_id"] in asked for m in mine_messages if m["role"] == "tool"), \
    "a tool message answers an id no call used"
# the refining run succeeded; the run that only searched exhausted its budget after six turns
assert live or (run_refine["stopped"], run_searcher["stopped"], run_searcher["steps"]) == ("final", "step_limit", 6), (
    f"{run_refine['stopped']}, {run_searcher['stopped']} after {run_searcher['steps']}")
# run_agent: run A ended with the final answer
assert live or run_a["stopped"] == "final" and run_a["answer"] == "Eastside, by 205.", f"run A: {run_a}"
# run_agent: run C stopped for a person and n5 is still readable
assert "n5" in NOTES and (live or run_c["stopped"] == "needs_person"), (
    f"run C: {run_c}; delete_note must not run without approval")
# the ping run stopped at the step limit after three steps
assert live or run_b["stopped"] == "step_limit", (
    f"the run stopped with {run_b['stopped']!r}; this exercise expects 'step_limit': is max_steps 3?")
# the ping run took exactly three steps
assert live or run_b["steps"] == 3, f"the run took {run_b['steps']} steps; the exercise wants it cut off after 3"
