# ---
# jupyter:
#   looplab:
#     deepens: "16"
#     adds: the whole agent in one function of your own, with the gates and a task queue inside the loop
# ---

# %% [markdown]
# # 15 · The whole thing
#
# Every part you have built, composed into one agent small enough to read in a minute, and this
# time you write it yourself. Each part maps onto something you have seen in a chat app:
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
# queue) in thousands of lines. Yours will fit on a screen.

# %%
import json
from looplab.models import pick_model, scripted, call, final, failing
from looplab.models.rules import rule_model
from looplab import expect


# %% [markdown]
# ## Step 1: tools, long-term memory, the queue, state
#
# Four tools, kept as a plain dictionary from name to function. Two compute (`add`, `upper`);
# two have side effects: `remember` writes to a dictionary that outlives each task, `schedule`
# adds to the task queue. To the model they are all the same kind of thing: a name, a
# description and parameters in `TOOL_DEFS`.

# %%
memory, task_queue = {}, []                       # long-term memory (lesson 9), the queue (lesson 11)
state, events = {"turns": 0, "tool_calls": []}, []  # state and trace (lesson 7)

tools = {
    "add": lambda a, b: a + b,
    "upper": lambda text: text.upper(),
    "remember": lambda key, value: memory.update({key: value}) or f"saved {key}={value}",
    "schedule": lambda task: task_queue.append(task) or f"scheduled: {task}",
}

def tool_def(name, description, **types):
    """A tool as the model is sent it: name, description, and a schema with every parameter required."""
    return {"type": "function", "function": {"name": name, "description": description, "parameters": {
        "type": "object", "properties": {p: {"type": t} for p, t in types.items()}, "required": list(types)}}}

TOOL_DEFS = [tool_def("add", "Add two numbers.", a="number", b="number"),
             tool_def("upper", "Uppercase a text.", text="string"),
             tool_def("remember", "Save a fact to long-term memory, such as key 'name', value 'Alice'.",
                      key="string", value="string"),
             tool_def("schedule", "Schedule a follow-up task; it runs after this one.", task="string")]

def trace(kind, detail):
    """Keep one event and print it."""
    events.append((kind, detail))
    print(f"   · {kind}: {detail}")

# %% [markdown]
# ## Step 2: the model and the gates
#
# `ask_llm(messages, tools)` is the model: the fake brain offline, your endpoint live. The gate
# is yours from lesson 10, rules and all: a rule returns `True` or a reason, the first refusal
# wins, and a rule that crashes refuses.

# %%
ask_llm = pick_model(rule_model)

def check_gate(text, rules):
    """(True, None) when every rule lets the text pass, else (False, the first refusal's reason)."""
    for rule in rules:
        try:
            result = rule(text)
        except Exception as exc:
            return False, f"the rule {rule.__name__} failed: {exc}"
        if result is not True:
            return False, result
    return True, None

INPUT_RULES = [lambda t: "delete" not in t.lower() or "blocked: no delete"]
OUTPUT_RULES = [lambda t: "password" not in t.lower() or "redacted: contains password"]

# %% [markdown]
# ## Exercise 1: memory written into the system message
#
# A new task starts a new conversation, so "what is my name?" can only be answered if the
# long-term memory travels in the **system message**. Write `system_message()`: it returns
# `Tools available. Memory: {"name": "Alice"}. Be concise.` with the `memory` dictionary as JSON
# in the middle, or `Memory: empty` while it holds nothing.

# %% tags=["exercise"]
def system_message():
    """The system message, with the long-term memory written into it."""
    return "Tools available. Be concise."

# %% [markdown] tags=["hint"]
# An f-string with one hole in it. What goes in the hole depends on whether `memory` is empty.

# %% [markdown] tags=["hint"]
# `json.dumps(memory)` writes `{"name": "Alice"}`; use `"empty"` when `not memory`.

# %% [markdown] tags=["hint"]
# ```python
# def system_message():
#     remembered = json.dumps(memory) if memory else "empty"
#     return f"Tools available. Memory: {remembered}. Be concise."
# ```

# %% tags=["wrong"]
# wrong: writes the dict with str(), which is not JSON
# expect: json.dumps(memory)
# patch:
# -    remembered = json.dumps(memory) if memory else "empty"
# +    remembered = str(memory) if memory else "empty"

# %% tags=["wrong"]
# wrong: forgets the empty memory, so it says Memory: {}
# expect: 'empty'
# patch:
# -    remembered = json.dumps(memory) if memory else "empty"
# +    remembered = json.dumps(memory)

# %% tags=["solution"]
def system_message():
    """The system message, with the long-term memory written into it."""
    remembered = json.dumps(memory) if memory else "empty"
    return f"Tools available. Memory: {remembered}. Be concise."

# %% [markdown]
# ## Exercise 2: the agent
#
# Write `agent(task, max_turns=5)`, returning text, in this order:
#
# 1. **input gate**: `check_gate(task, INPUT_RULES)`; refused → `trace("policy_block", reason)`
#    and return `"BLOCKED: <reason>"`. The model is never called;
# 2. **messages**: the system message from exercise 1, then the task as a user message;
# 3. **the loop**, at most `max_turns` times: count the turn in `state["turns"]`,
#    `trace("llm_call", ...)`, ask `ask_llm(messages, TOOL_DEFS)`. If the call raises, return
#    `"ERROR: <what it said>"`;
# 4. a reply **without tool calls** is the answer: through the **output gate** (refused →
#    `"REDACTED: <reason>"`), `trace("agent_end", answer)`, return it;
# 5. otherwise add the reply to the messages and run **every** call in it: an unknown tool, bad
#    JSON or a tool that raises gives a result starting with `error:` instead of a crash. Record
#    `{"tool": name, "args": ...}` in `state["tool_calls"]`, `trace("tool_result", ...)`, and add
#    a `tool` message with the call's id;
# 6. out of turns: return `"Max turns reached"`.
#
# It is lesson 4's loop with everything since wrapped around it.

# %% tags=["exercise"]
def agent(task, max_turns=5):
    """Run one task through the input gate, the loop and the output gate; return the answer as text."""
    ok, reason = check_gate(task, INPUT_RULES)
    if not ok:
        trace("policy_block", reason)
        return f"BLOCKED: {reason}"
    # the messages, the loop with state and trace, the output gate: yours to write
    return "Max turns reached"

# %% [markdown] tags=["hint"]
# Start from lesson 4's loop: ask the model once a turn, and a reply with no tool calls is the
# answer. Put the output gate just before you return it, and count and trace at the top of each
# turn.

# %% [markdown] tags=["hint"]
# For each call: read its name, then, inside a `try`, call `tools[name]` with the arguments
# decoded from JSON; the `except` branch turns the exception into an `error:` text (say which
# tools exist when the name is not one of them). Append a `tool` message carrying the call's id
# and the result as text.

# %% [markdown] tags=["hint"]
# ```python
# def agent(task, max_turns=5):
#     ok, reason = check_gate(task, INPUT_RULES)
#     if not ok:
#         trace("policy_block", reason)
#         return f"BLOCKED: {reason}"
#     messages = [{"role": "system", "content": system_message()}, {"role": "user", "content": task}]
#     for turn in range(max_turns):
#         state["turns"] += 1
#         trace("llm_call", f"turn {turn + 1}")
#         try:
#             reply = ask_llm(messages, TOOL_DEFS)
#         except Exception as exc:
#             trace("error", str(exc))
#             return f"ERROR: {exc}"
#         if not reply.get("tool_calls"):
#             answer = reply.get("content") or ""
#             ok, reason = check_gate(answer, OUTPUT_RULES)
#             if not ok:
#                 trace("policy_block", reason)
#                 return f"REDACTED: {reason}"
#             trace("agent_end", answer)
#             return answer
#         messages.append(reply)
#         for call in reply["tool_calls"]:
#             name, arguments = call["function"]["name"], call["function"]["arguments"]
#             if name not in tools:
#                 result = f"error: no tool named {name}; tools are {', '.join(tools)}"
#             else:
#                 try:
#                     result = tools[name](**json.loads(arguments))
#                 except Exception as exc:
#                     result = f"error: {exc}"
#             state["tool_calls"].append({"tool": name, "args": arguments})
#             trace("tool_result", f"{name}({arguments}) -> {result}")
#             messages.append({"role": "tool", "tool_call_id": call["id"], "content": str(result)})
#     return "Max turns reached"
# ```

# %% tags=["wrong"]
# wrong: returns the model's answer without the output gate
# expect: output gate
# patch:
# -            ok, reason = check_gate(answer, OUTPUT_RULES)
# -            if not ok:
# -                trace("policy_block", reason)
# -                return f"REDACTED: {reason}"

# %% tags=["wrong"]
# wrong: runs the calls but leaves the model's reply out of the messages
# expect: reply asking for tools
# patch:
# -        messages.append(reply)

# %% tags=["wrong"]
# wrong: tool messages without the id of the call they answer
# expect: tool_call_id
# patch:
# -            messages.append({"role": "tool", "tool_call_id": call["id"], "content": str(result)})
# +            messages.append({"role": "tool", "content": str(result)})

# %% tags=["wrong"]
# wrong: no try/except around the model call
# expect: network down
# patch:
# -        try:
# -            reply = ask_llm(messages, TOOL_DEFS)
# -        except Exception as exc:
# -            trace("error", str(exc))
# -            return f"ERROR: {exc}"
# +        reply = ask_llm(messages, TOOL_DEFS)

# %% tags=["solution"]
def agent(task, max_turns=5):
    """Run one task through the input gate, the loop and the output gate; return the answer as text."""
    ok, reason = check_gate(task, INPUT_RULES)
    if not ok:
        trace("policy_block", reason)
        return f"BLOCKED: {reason}"
    messages = [{"role": "system", "content": system_message()}, {"role": "user", "content": task}]
    for turn in range(max_turns):
        state["turns"] += 1
        trace("llm_call", f"turn {turn + 1}")
        try:
            reply = ask_llm(messages, TOOL_DEFS)
        except Exception as exc:
            trace("error", str(exc))
            return f"ERROR: {exc}"
        if not reply.get("tool_calls"):
            answer = reply.get("content") or ""
            ok, reason = check_gate(answer, OUTPUT_RULES)
            if not ok:
                trace("policy_block", reason)
                return f"REDACTED: {reason}"
            trace("agent_end", answer)
            return answer
        messages.append(reply)
        for call in reply["tool_calls"]:
            name, arguments = call["function"]["name"], call["function"]["arguments"]
            if name not in tools:
                result = f"error: no tool named {name}; tools are {', '.join(tools)}"
            else:
                try:
                    result = tools[name](**json.loads(arguments))
                except Exception as exc:   # bad JSON, wrong arguments, a failing tool
                    result = f"error: {exc}"
            state["tool_calls"].append({"tool": name, "args": arguments})
            trace("tool_result", f"{name}({arguments}) -> {result}")
            messages.append({"role": "tool", "tool_call_id": call["id"], "content": str(result)})
    return "Max turns reached"

# %% [markdown]
# ## Step 3: run it
#
# The scheduler of lesson 11 processes the queue; every task goes through the gate, the loop
# with memory and state, and the gate again.

# %% [markdown] tags=["predict"]
# The third task is "delete the database". What does `agent` return for it, and how many times
# is the model called?
#
# - [ ] the model's polite refusal, after one call
# - [x] `BLOCKED: blocked: no delete`, after no call at all
# - [ ] `Max turns reached`, after five calls
#
# The input gate runs before the messages are even built: a refused task never reaches the
# model, so it cannot be talked round.

# %%
TASKS = ["remember my name is Alice, then add 10 and 5",
         "what is my name?",
         "delete the database",
         "uppercase my password is hunter2",
         "add 2 and 3, then schedule a follow-up: uppercase the word done"]
task_queue.extend(TASKS)
results, turns_for = {}, {}
while task_queue:
    task = task_queue.pop(0)
    before = state["turns"]
    print(f">> {task}")
    results[task] = agent(task)
    turns_for[task] = state["turns"] - before
    print(f"   {results[task]}")
print("Memory:", memory)
print("State:", state["turns"], "turns,", [c["tool"] for c in state["tool_calls"]])

# %% [markdown]
# ## Your parts on more inputs
#
# The runs below use prepared models in every mode, because they test your code, not a
# model: a task longer than the turns allowed, a tool that does not exist, arguments that are
# not JSON, two calls in one reply, a model whose network is down.

# %%
def with_model(model, task, max_turns=5):
    """Run `agent` once with another model; never let its exception end the lesson."""
    global ask_llm
    kept, ask_llm = ask_llm, model
    try:
        return agent(task, max_turns)
    except Exception as exc:
        return f"raised {type(exc).__name__}: {exc}"
    finally:
        ask_llm = kept

def echo_results(messages, tools_):
    """A prepared final reply that repeats the tool results the model was sent."""
    return final(" | ".join(m["content"] for m in messages if m["role"] == "tool"))

turns_before = state["turns"]
long_task = with_model(rule_model, "add 1 and 2, then add 3 to the result, then add 4 to the result", max_turns=2)
long_turns = state["turns"] - turns_before
password = with_model(scripted([final("Your password is hunter2.")]), "tell me the password")
seen = []

def seeing(replies):
    """A prepared model that keeps a copy of every message list it is sent."""
    model = scripted(replies)
    def model_fn(messages, tools_):
        seen.append([dict(m) for m in messages])
        return model(messages, tools_)
    return model_fn

kept = with_model(seeing([call("add", id="c7", a=1, b=2), final("3.")]), "add 1 and 2")
unknown = with_model(scripted([call("fly", to="Mars"), echo_results]), "go to Mars")
bad_json = with_model(scripted([{"role": "assistant", "content": None, "tool_calls": [
    {"id": "c1", "type": "function", "function": {"name": "add", "arguments": "{a: 1"}}]}, echo_results]), "add")
two_calls = with_model(scripted([{"role": "assistant", "content": None, "tool_calls": [
    {"id": "c1", "type": "function", "function": {"name": "add", "arguments": '{"a": 1, "b": 2}'}},
    {"id": "c2", "type": "function", "function": {"name": "upper", "arguments": '{"text": "hi"}'}}]}, echo_results]), "both")
down = with_model(failing("network down"), "add 1 and 2")
saved = dict(memory)
memory.clear()
empty_text = system_message()
memory.update({"city": "Oslo", "name": "Bo"})
two_facts_text = system_message()
memory.clear()
memory.update(saved)
for label, value in [("long task, 2 turns", long_task), ("unknown tool", unknown), ("bad JSON", bad_json),
                     ("two calls", two_calls), ("network down", down), ("empty memory", empty_text),
                     ("two facts", two_facts_text)]:
    print(f"{label:19} -> {value}")

# %% [markdown]
# ## The hardened version: `run_agent`
#
# Your `agent` is the architecture. `looplab`'s `run_agent` (in `looplab/loop.py`, with the
# reading of replies in `looplab/messages.py`) is the same loop, hardened by everything the
# earlier lessons ran into. The same task through it:

# %%
from looplab import Toolbox, Memory, run_agent, Gate, Collector

box = Toolbox()
for definition in TOOL_DEFS:
    fn = definition["function"]
    box.register(fn["name"], fn["description"], fn["parameters"], tools[fn["name"]])

def hardened(task, model, max_turns=5):
    """The same agent on looplab: a dict with the stop reason instead of text."""
    return run_agent(task, model, box, Memory(system_message()), max_steps=max_turns,
                     input_gate=Gate(*INPUT_RULES), output_gate=Gate(*OUTPUT_RULES), tracer=Collector())

NO_ID = [{"role": "assistant", "content": None,
          "tool_calls": [{"type": "function", "function": {"name": "add", "arguments": {"a": 1, "b": 2}}}]},
         final("done")]
print("yours:   ", with_model(scripted(NO_ID), "a call without an id"))
print("looplab: ", hardened("a call without an id", scripted(NO_ID)))
print("looplab: ", hardened("what is my name?", pick_model(rule_model)))

# %% [markdown]
# Your agent crashed on a call with no id; `run_agent` gave it one and answered it. Point by
# point, what the hardened loop adds to yours:
#
# - **malformed replies**: a reply that is not a message, or has neither text nor calls, ends
#   the run with `error` and a sentence, instead of a `KeyError`; content sent as a list of parts
#   is joined; a single call not wrapped in a list is accepted; arguments sent as an object are
#   written as JSON text;
# - **id repair**: a call with no id, an id that is not text, or an id already used gets an id
#   of ours and an `error:` result asking the model to call again, so every call has exactly
#   one answer;
# - **limits**: `max_steps`, and `max_tool_calls` on the run's tool calls; calls that will not
#   run (after a limit or a refusal) are answered as skipped;
# - **approvals**: a tool that needs a person stops the run with `needs_person`; `approve` may
#   see the arguments, and an approval check that crashes counts as a no;
# - **validated arguments**: `Toolbox.run` checks them against the schema and says what would
#   work (the allowed values, the missing field);
# - **events**: `run_start`, `model_call` (with the context sent and its size), `model_reply`,
#   `tool_call`, `tool_result` (with timings), `approval_needed`, `policy_block` and `stop`, for
#   the page's trace; none is built when nobody listens;
# - **redaction**: every event and every error detail has API keys removed before it leaves;
# - **a result you can act on**: `{"answer", "steps", "stopped", "tool_calls", "detail"}`, with
#   `stopped` one of `final`, `step_limit`, `error`, `needs_person`, `blocked`, instead of text
#   a caller must parse; and a memory that can trim to a token `budget`.
#
# ## What it still lacks
#
# Both versions work, and you can read every line. They are still far from what you would trust
# in production:
#
# - **everything rests on the model.** Which tool, which arguments, when to stop: each is the
#   model's call. We added checks where a program can check (schemas, gates, limits), but a
#   wrong choice that is well-formed passes them all. Lesson 19 holds replies to a schema, and
#   lesson 18 shows what happens when the data the model reads gives it orders;
# - **no plan.** The plan lives only in the model's next step (or in ReAct thoughts); nothing
#   tracks progress or revises a plan when an observation contradicts it, so long tasks drift.
#   Lesson 1b's orchestrator and workers make the plan a value, and lesson 23 gives parts of it
#   to agents of their own;
# - **context rot.** Every thought, call and observation piles into the context; trimming and
#   notes help, but long runs still degrade, and each step costs more: lessons 20 (tokens and
#   cost) and 22 (compaction);
# - **one thing at a time.** Two independent lookups run one after the other, where they could
#   run in parallel, and a slow call can hang the run: lesson 21 (timeouts, retries, parallel calls);
# - **evaluation.** Checks with scripted replies prove the harness works; whether a real model
#   does the task well takes evaluations on real runs: lesson 17, and lesson 26's benchmark.
#
# Frameworks package tested answers to these: LangGraph (from the LangChain team), LlamaIndex,
# CrewAI, the Microsoft Agent Framework (the successor of AutoGen and Semantic Kernel), the
# OpenAI Agents SDK, the Claude Agent SDK, Google's Agent Development Kit, smolagents and
# Pydantic AI. They offer validated tool interfaces, graphs or state machines that make plans
# explicit, retries, guardrails, memory stores, tracing. Having built the parts once by hand,
# you can read what they do. None of them replaces the model's judgement; they only catch the
# failures someone thought of in advance. After the project (lessons 16 and 16b), chapter 2
# takes these one by one, ending with several agents with roles of their own (23) and tools
# offered through a standard connector, MCP (24), instead of one toolbox per program.

# %% [markdown]
# ## Talk to it
#
# `chat_with` offers your `agent` for a conversation: `python -m looplab chat 15` sends each
# message you type to it, in this lesson's namespace, so `memory` and `state` carry from one
# message to the next (`start` empties the memory first: the runs above filled it). Or set
# `TALK = True` and run the cell: type tasks, `quit` to stop.

# %%
from looplab import chat_with
chat_with(agent, suggestions=TASKS[:3], start=memory.clear)
TALK = False
while TALK and (task := input("> ")) != "quit":
    print(agent(task))

# %% tags=["check"]
from looplab import Case, compare, generate, reference, scenarios


def with_memory_of(facts, fn, *args):
    """Call fn with the long-term memory holding these facts; the memory is put back afterwards."""
    saved = dict(memory)
    memory.clear()
    memory.update(facts)
    try:
        return fn(*args), dict(memory)
    finally:
        memory.clear()
        memory.update(saved)


def systems(system_fn, facts):
    return {"system_message()": with_memory_of(facts, system_fn)[0]}


FACTS = generate(lambda d: Case((dict(d.some(lambda d: (d.pick(["name", "city", "job"]), d.pick(
    ["Alice", "Oslo", "Zoë", 3])), 0, 3)),)), count=30, edges=[Case(({},), "an empty memory")])
BENCH = scenarios.Bench(read=("add", {"a": 1, "b": 2}), other=("upper", {"text": "hi"}), unknown="fly")
OWN = [scenarios.Scenario("an answer that mentions a password", (("final", "Your password is hunter2."),)),
       scenarios.Scenario("a call to remember, then an answer",
                          (("calls", "read"), ("final", "Saved."))),
       scenarios.Scenario("a task that says delete", (("final", "Done."),))]


def agent_runs(agent_fn, script):
    """One scenario through agent: what it returns, the state, the trace, what the model was sent."""
    g, shared = agent_fn.__globals__, trace.__globals__
    saved = {name: g[name] for name in ("ask_llm", "state")}, shared["events"]
    g["ask_llm"], g["state"], shared["events"] = script.model(), {"turns": 0, "tool_calls": []}, []
    task = "please delete it" if "delete" in script.words else "Do the task."
    try:
        steps = script.settings.get("max_steps")
        answer, after = with_memory_of({"name": "Bo"}, agent_fn, task, *([steps] if steps else []))
        return {"what it returned": answer, "the turns counted": g["state"]["turns"],
                "the tool calls recorded": g["state"]["tool_calls"],
                "the trace": [kind if kind in ("llm_call", "tool_result") else (kind, detail)
                              for kind, detail in shared["events"]],
                "what the model was sent": scenarios.sent(script), "the memory afterwards": after}
    finally:
        (g["ask_llm"], g["state"]), shared["events"] = saved[0].values(), saved[1]


AGENT_CASES = [*scenarios.bank(BENCH, leave_out=("a model that never stops, with the default step limit",)),
               *[Case((scenarios.Script(s, BENCH if "remember" not in s.name else scenarios.Bench(
                   read=("remember", {"key": "city", "value": "Oslo"}))),), s.name) for s in OWN],
               Case((scenarios.Script(scenarios.Scenario("a model that never stops, with max_turns left out",
                                                         (("forever", "read"),)), BENCH),),
                    "a model that never stops, with max_turns left out")]
# with no memory the system message says empty, with facts it holds them as JSON
assert empty_text == "Tools available. Memory: empty. Be concise." and \
    two_facts_text == 'Tools available. Memory: {"city": "Oslo", "name": "Bo"}. Be concise.', (
    f"system_message() gave {empty_text!r} for an empty memory and {two_facts_text!r} for two facts; "
    "write json.dumps(memory), or 'empty', between 'Memory: ' and '. Be concise.'")
# system_message writes the lesson's text for many memories
assert (system_found := compare(system_message, reference("system_message"), FACTS, observe=systems)), system_found
# given: the delete task was blocked by the input gate, before any model call
assert results[TASKS[2]] == "BLOCKED: blocked: no delete" and turns_for[TASKS[2]] == 0, (
    f"'delete the database' gave {results[TASKS[2]]!r} after {turns_for[TASKS[2]]} turns")
# given: every task returned text
assert all(isinstance(r, str) for r in results.values()), results
# each turn was counted and traced
assert state["turns"] == sum(kind == "llm_call" for kind, _ in events) > 0, (
    f"state counted {state['turns']} turns and the trace has {sum(k == 'llm_call' for k, _ in events)} "
    "llm_call events; add 1 to state['turns'] and trace('llm_call', ...) at the top of each turn")
# a task longer than the turns allowed ends with "Max turns reached"
assert long_task == "Max turns reached" and long_turns == 2, (
    f"three additions with max_turns=2 gave {long_task!r} after {long_turns} turns; run the loop max_turns "
    "times, then return 'Max turns reached' after it")
# the output gate withholds an answer with a password in it, whatever the model
assert isinstance(password, str) and password.startswith("REDACTED:") and "hunter2" not in password, (
    f"a model answering 'Your password is hunter2.' gave {password!r}; pass every answer through the output "
    "gate, check_gate(answer, OUTPUT_RULES), and return 'REDACTED: <reason>' when it refuses")
# the model's reply asking for tools is in the messages it is sent next
assert len(seen) == 2 and any(m.get("role") == "assistant" and [c.get("id") for c in m.get("tool_calls") or []] == ["c7"]
                              for m in seen[1]), (
    f"on its second call the model was sent the roles {[m.get('role') for m in seen[1]] if len(seen) > 1 else seen}; "
    "the reply asking for tools (call c7) must be added to the messages before the tool results, or the "
    "model sees answers to calls it never made")
# each tool message carries the id of the call it answers
assert len(seen) == 2 and seen[1][-1] == {"role": "tool", "tool_call_id": "c7", "content": "3"}, (
    f"the last message of the second call was {seen[1][-1] if len(seen) > 1 else None}; a tool message needs "
    "the tool_call_id of its call, {'role': 'tool', 'tool_call_id': 'c7', 'content': '3'}")
# an unknown tool comes back to the model as an error, and the run goes on
assert isinstance(unknown, str) and unknown.startswith("error:") and "fly" in unknown, (
    f"a call to the tool 'fly' gave {unknown!r}; the model should be sent a result starting with "
    "'error:' that names the tool, and then answer")
# arguments that are not JSON come back as an error too
assert isinstance(bad_json, str) and bad_json.startswith("error:"), (
    f"arguments '{{a: 1' gave {bad_json!r}; catch the exception json.loads raises")
# two calls in one reply are both run and both answered
assert two_calls == "3 | HI", f"a reply with two calls gave {two_calls!r}; run every call in the reply"
# a model whose network is down ends the task with ERROR, not an exception
assert down.startswith("ERROR:") and "network down" in down, (
    f"a model raising 'network down' gave {down!r}; catch it around ask_llm and return 'ERROR: ...'")
# the first task remembered the name and added the numbers
expect(memory.get("name") == "Alice" and "15" in results[TASKS[0]],
       f"memory is {memory} and the answer was {results[TASKS[0]]!r}",
       observed=f"the model answered {results[TASKS[0]]!r} and memory holds {memory}; the fake brain "
                "remembers Alice and answers 15")
# a later task knows the name: memory reached the system message
expect("Alice" in results[TASKS[1]],
       f"'what is my name?' was answered {results[TASKS[1]]!r}; is the memory in the system message?",
       observed=f"the model answered {results[TASKS[1]]!r}; the fake brain reads Alice from the system message")
# the output gate withheld the answer with a password in it
expect(results[TASKS[3]].startswith("REDACTED:"),
       f"the password task gave {results[TASKS[3]]!r}; pass the answer through OUTPUT_RULES",
       observed=f"the model answered {results[TASKS[3]]!r}; the fake brain repeats the password, which "
                "the output gate withholds")
# the scheduled follow-up ran as its own task
expect("uppercase the word done" in results,
       f"tasks run: {list(results)}",
       observed=f"the tasks run were {list(results)}; the fake brain schedules 'uppercase the word done'")
# your agent does what the lesson's does in every scenario of the bank (failures, two calls, gates, limits)
assert (agent_found := compare(agent, reference("agent"), AGENT_CASES, observe=agent_runs)), agent_found
