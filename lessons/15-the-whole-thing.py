# %% [markdown]
# # 14 · The whole thing
#
# Every part you have built, composed into one agent small enough to read in a minute. Each
# part maps onto something you have seen in a chat app:
#
# | lesson | part | you have seen it as |
# | --- | --- | --- |
# | 1 | one model call | pressing Enter in a chat window |
# | 2, 3 | tools | "Searched the web", "Ran code", plug-in icons |
# | 4 | the loop | search, read, search again, answer |
# | 6 | conversation | the chat history within a session |
# | 7 | state and trace | "Analysed 5 files", progress lines |
# | 8, 9 | memory | a chat app's saved memories, project notes |
# | 10 | policy | refusals, safety filters, "Allow this action?" |
# | 11 | self-scheduling | deep research, autonomous sub-tasks |
#
# Frameworks package the same architecture (an executor loop, memory, guardrails, a task
# queue) in thousands of lines. Here you can read every one.

# %%
import json
from looplab import Toolbox, Memory, run_agent, TaskQueue, Gate, forbid, Collector
from looplab.models import pick_model, model_mode
from looplab.models.rules import rule_model

live = model_mode() == "live"

# %% [markdown]
# ## Step 1: tools, long-term memory, the queue
#
# Four tools. Two compute (`add`, `upper`); two have side effects: `remember` writes to a
# dictionary that outlives each task, `schedule` adds to the task queue. To the model they are
# all the same kind of thing.

# %%
long_term = {}                      # survives from task to task
queue = TaskQueue(max_tasks=10)
state = {"turns": 0, "tool_calls": []}

box = Toolbox()

@box.tool
def add(a: float, b: float) -> float:
    "Add two numbers."
    return a + b

@box.tool
def upper(text: str) -> str:
    "Uppercase a text."
    return text.upper()

@box.tool
def remember(key: str, value: str) -> str:
    "Save a fact to long-term memory, such as key 'name', value 'Alice'."
    long_term[key] = value
    return f"saved {key}={value}"

queue.add_tool(box)     # schedule(task): a follow-up task for later
print(box.names())

# %% [markdown]
# ## Step 2: the model, and the two gates
#
# The model is chosen once: the fake brain offline, your endpoint live. The input gate refuses
# before the model sees a task; the output gate checks the answer before anyone sees it.

# %%
model = pick_model(rule_model)
input_gate = Gate(forbid("delete", reason="blocked: no delete"))

def track(event):
    """State: count the turns and remember each tool call (lesson 7)."""
    if event["type"] == "model_call":
        state["turns"] += 1
    elif event["type"] == "tool_call":
        state["tool_calls"].append({"tool": event["tool"], "args": json.loads(event["arguments"])})

trace = Collector()

def tracer(event):
    track(event)
    trace(event)

# %% [markdown]
# ## Step 3: the agent
#
# One function, every concept in its place: the input gate, the long-term memory written into
# the system message, the loop (unchanged since lesson 4), state and trace, the output gate.
#
# ## Exercise 1: memory that carries over
#
# In the starter, the system message says nothing about what was remembered, so "what is my
# name?" cannot be answered in a later task. Put the long-term memory into the system message
# as JSON, like `Tools available. Memory: {"name": "Alice"}. Be concise.` (or `empty`).
#
# ## Exercise 2: an output gate
#
# Add an `output_gate` that refuses any answer mentioning a password
# ("blocked: the answer contains a password") and pass it to `run_agent`.

# %% tags=["exercise"]
def agent(task, max_steps=5):
    system = "Tools available. Be concise."
    return run_agent(task, model, box, Memory(system), max_steps=max_steps,
                     input_gate=input_gate, tracer=tracer)

# %% tags=["solution"]
output_gate = Gate(lambda text: "password" not in text.lower() or "blocked: the answer contains a password")

def agent(task, max_steps=5):
    memory_text = json.dumps(long_term) if long_term else "empty"
    system = f"Tools available. Memory: {memory_text}. Be concise."
    return run_agent(task, model, box, Memory(system), max_steps=max_steps,
                     input_gate=input_gate, output_gate=output_gate, tracer=tracer)

# %% [markdown]
# ## Step 4: run it
#
# The scheduler processes the queue; every task goes through the gate, the loop with memory
# and state, and the gate again. Try the three tasks below, then your own.

# %%
TASKS = ["remember my name is Alice, then add 10 and 5",
         "what is my name?",
         "delete the database",
         "uppercase my password is hunter2",
         "add 2 and 3, then schedule a follow-up: uppercase the word done"]
for task in TASKS:
    queue.schedule(task)

def show(task):
    result = agent(task)
    reply = result["answer"] if result["stopped"] == "final" else f"[{result['stopped']}] {result.get('detail', '')}"
    print(f">> {task}\n   {reply}")
    return result

results = {r["task"]: r["result"] for r in queue.run(show)}
print("Memory:", long_term)
print("State:", state["turns"], "turns,", [c["tool"] for c in state["tool_calls"]])

# %% [markdown]
# ## What it still lacks
#
# This agent works, and you can read every line of it. It is still far from what you would
# trust in production:
#
# - **everything rests on the model.** Which tool, which arguments, when to stop: each is the
#   model's call. We added checks where a program can check (schemas, gates, limits), but a
#   wrong choice that is well-formed passes them all;
# - **no plan.** The plan lives only in the model's next step (or in ReAct thoughts); nothing
#   tracks progress or revises a plan when an observation contradicts it, so long tasks drift;
# - **context rot.** Every thought, call and observation piles into the context; trimming and
#   notes help, but long runs still degrade;
# - **one thing at a time.** Two independent lookups run one after the other, where they could
#   run in parallel;
# - **evaluation.** Checks with scripted replies prove the harness works; whether a real model
#   does the task well takes evaluations on real runs.
#
# Frameworks (LangChain and LangGraph, LlamaIndex, CrewAI, AutoGen, the OpenAI and Anthropic
# agent SDKs) package tested answers to these: validated tool interfaces, graphs or state
# machines that make plans explicit, retries, guardrails, memory stores, tracing. Having built
# the parts once by hand, you can read what they do. None of them replaces the model's
# judgement; they only catch the failures someone thought of in advance. The next steps from
# here are several agents with roles of their own, and offering tools through a standard
# connector (such as MCP) instead of one toolbox per program.

# %% tags=["check"]
# the first task remembered the name and added the numbers
assert live or long_term.get("name") == "Alice" and "15" in (results[TASKS[0]]["answer"] or ""), (
    f"memory is {long_term} and the answer {results[TASKS[0]]['answer']!r}")
# a later task knows the name: long-term memory reached the system message
assert live or "Alice" in (results[TASKS[1]]["answer"] or ""), (
    f"'what is my name?' was answered {results[TASKS[1]]['answer']!r}; write the long-term memory "
    "into the system message, e.g. f'Tools available. Memory: {json.dumps(long_term)}. Be concise.'")
# the input gate blocked the delete before the model saw it
assert results[TASKS[2]]["stopped"] == "blocked" and results[TASKS[2]]["steps"] == 0, results[TASKS[2]]
# the output gate refused the answer with a password in it
assert live or results[TASKS[3]]["stopped"] == "blocked", (
    f"the password task ended with {results[TASKS[3]]['stopped']!r} and answer "
    f"{results[TASKS[3]]['answer']!r}; add an output_gate that refuses answers mentioning a password")
# the scheduled follow-up ran as its own task
assert live or "uppercase the word done" in results, f"tasks run: {list(results)}"
# state counted turns and tool calls across all tasks
assert state["turns"] >= 4 and (live or len(state["tool_calls"]) >= 5), state
# every run ended with a reason
assert all(r["stopped"] in ("final", "step_limit", "error", "needs_person", "blocked") for r in results.values())
