# ---
# jupyter:
#   looplab:
#     deepens: "04"
#     adds: an agent as a tool, hand-offs, and what several agents cost
# ---

# %% [markdown]
# # 23 · Several agents
#
# One agent with twenty tools and a page of instructions gets confused: it picks the wrong tool,
# forgets half its rules, and one long memory holds everything it ever read. A common answer is
# to split the work by **role** (and, as the end of this lesson measures, a common mistake is to
# split a job one agent could do): each agent gets short instructions, a few tools and its own step
# limit. Two shapes cover most designs:
#
# | shape | who stays in charge | what comes back |
# | --- | --- | --- |
# | **an agent as a tool** | the caller: a writer asks a researcher, like calling a function | the researcher's answer, as a tool result |
# | **a hand-off** | the one handed to: a triage agent passes the conversation to a specialist | the specialist answers the user itself |
#
# Either way each agent is just `run_agent` with its own model, tools, memory and limit. The new
# part is small: who calls whom, what each one sees, and a trace in which you can still tell them
# apart. For that last one, `run_agent(..., name="researcher")` puts `agent: "researcher"` on
# every event of that run, and the trace panel shows it.

# %%
from dataclasses import dataclass

from looplab import Collector, Memory, Toolbox, ToolError, run_agent
from looplab import expect
from looplab.models import call, failing, final, pick_model, scripted
from looplab.trace import describe, listen

STOPS = ("final", "step_limit", "error", "needs_person")
NOTES = {
    "n1": ("Eastside branch: visits", "March visits: 1240. April visits: 1310."),
    "n2": ("Westside branch: visits", "March visits: 980. April visits: 1105."),
    "n5": ("Eastside branch: staff", "Staff count: 14."),
    "n6": ("Westside branch: staff", "Staff count: 9."),
}


def note_tools():
    box = Toolbox()

    @box.tool
    def search_notes(keyword: str) -> str:
        """Find notes whose title contains a keyword; returns ids and titles."""
        found = [f"{i}: {t}" for i, (t, _) in NOTES.items() if keyword.lower() in t.lower()]
        return "\n".join(found) or f"no notes found for {keyword!r}"

    @box.tool
    def read_note(note_id: str) -> str:
        """Return the text of one note by id, such as n1."""
        if note_id not in NOTES:
            raise ToolError(f"no note {note_id!r}; ids are {', '.join(NOTES)}")
        return NOTES[note_id][1]

    return box


@dataclass
class Agent:
    """One agent: a name, its instructions, its own tools, its model and its own step limit."""
    name: str
    instructions: str
    tools: Toolbox
    model: object
    max_steps: int = 6


def offered(log, who):
    """A model that records, for `who`, the tools and messages it is sent, then asks `model`."""
    def wrap(model):
        def ask(messages, tools):
            log.append((who, [t["function"]["name"] for t in tools], [m.get("content") for m in messages]))
            return model(messages, tools)
        return ask
    return wrap


def attempt(fn, *args, **kwargs):
    """Call fn; an exception comes back as text, so a check can say what happened."""
    try:
        return fn(*args, **kwargs)
    except Exception as exc:
        return f"raised {type(exc).__name__}: {exc}"

# %% [markdown]
# ## An agent as a tool
#
# The writer's job is to write; finding facts is the researcher's. So the writer gets one tool,
# `ask_researcher(question)`, and behind it runs a whole agent with its own tools (the notes), its
# own short memory and its own step limit. To the writer it is a tool like any other: a question
# goes in, text comes out, and a failure comes back as `error:` text it can read.
#
# ## Exercise 1: wrap an agent as a tool
#
# Complete `add_agent_tool(toolbox, agent, description)`. The tool it registers, `ask_<name>`,
# must run `agent` on the question with `run_agent`:
#
# - a **fresh** `Memory(agent.instructions)` for every call (the researcher does not need the
#   writer's conversation, and should not keep its own from one question to the next);
# - the agent's own tools, model and `max_steps`, and `name=agent.name`, so its events say who
#   acted;
# - return the answer when the run ended `final`; otherwise `raise ToolError(...)` saying which
#   agent stopped, how (`stopped`), after how many steps, and why (`detail`).

# %% tags=["exercise"]
def add_agent_tool(toolbox, agent, description):
    """Register `ask_<agent.name>(question)` on `toolbox`: a whole run of `agent`, its answer as the result."""
    def ask(question):
        return "(the researcher is not connected yet)"

    toolbox.register(f"ask_{agent.name}", description,
                     {"type": "object", "properties": {"question": {"type": "string"}}, "required": ["question"]},
                     ask)

# %% [markdown] tags=["hint"]
# `ask` does what any caller of an agent does: one whole `run_agent` run, then a look at how it
# stopped. Where you create the memory decides whether two questions share it.

# %% [markdown] tags=["hint"]
# Inside `ask`: one `run_agent` run with the agent's own model, tools, step limit and name, and a
# `Memory` made from its instructions right there, so each call gets a new one. Any stop but
# `final` becomes a `ToolError` with `stopped`, `steps` and `detail`.

# %% [markdown] tags=["hint"]
# ```python
# def add_agent_tool(toolbox, agent, description):
#     def ask(question):
#         result = run_agent(question, agent.model, agent.tools, Memory(agent.instructions),
#                            agent.max_steps, name=agent.name)
#         if result["stopped"] != "final":
#             raise ToolError(f"{agent.name} stopped ({result['stopped']}) after {result['steps']} "
#                             f"steps: {result.get('detail', '')}")
#         return result["answer"]
#
#     toolbox.register(f"ask_{agent.name}", description,
#                      {"type": "object", "properties": {"question": {"type": "string"}},
#                       "required": ["question"]}, ask)
# ```

# %% tags=["wrong"]
# wrong: one memory made outside ask, so the second question sees the first one's conversation
# expect: fresh memory
# patch:
# -    def ask(question):
# -        result = run_agent(question, agent.model, agent.tools, Memory(agent.instructions),
# -                           agent.max_steps, name=agent.name)
# +    memory = Memory(agent.instructions)
# +
# +    def ask(question):
# +        result = run_agent(question, agent.model, agent.tools, memory, agent.max_steps, name=agent.name)

# %% tags=["wrong"]
# wrong: the answer is returned however the run stopped, so a stuck researcher answers None
# expect: step limit
# patch:
# -        if result["stopped"] != "final":
# -            raise ToolError(f"{agent.name} stopped ({result['stopped']}) after {result['steps']} "
# -                            f"steps: {result.get('detail', '')}")
# -        return result["answer"]
# +        return str(result["answer"])

# %% tags=["wrong"]
# wrong: the researcher runs without name=, so its events cannot be told from the writer's
# expect: right agent
# patch:
# -        result = run_agent(question, agent.model, agent.tools, Memory(agent.instructions),
# -                           agent.max_steps, name=agent.name)
# +        result = run_agent(question, agent.model, agent.tools, Memory(agent.instructions), agent.max_steps)

# %% tags=["solution"]
def add_agent_tool(toolbox, agent, description):
    """Register `ask_<agent.name>(question)` on `toolbox`: a whole run of `agent`, its answer as the result."""
    def ask(question):
        result = run_agent(question, agent.model, agent.tools, Memory(agent.instructions),
                           agent.max_steps, name=agent.name)
        if result["stopped"] != "final":
            raise ToolError(f"{agent.name} stopped ({result['stopped']}) after {result['steps']} "
                            f"steps: {result.get('detail', '')}")
        return result["answer"]

    toolbox.register(f"ask_{agent.name}", description,
                     {"type": "object", "properties": {"question": {"type": "string"}}, "required": ["question"]},
                     ask)

# %% [markdown] tags=["predict"]
# The writer asks the researcher once. In the trace below, which event comes right after the
# writer's `tool_call ask_researcher`?
#
# - [ ] the writer's `tool_result`
# - [x] the researcher's `run_start`
# - [ ] the writer's next `model_call`
#
# The tool's function runs the researcher's whole run before it returns, so all of its events sit
# between the writer's call and the writer's result, each tagged `[researcher]`.

# %%
seen = []
researcher = Agent("researcher", "You find facts in the notes. Answer with the figures only.", note_tools(),
                   offered(seen, "researcher")(pick_model([
                       call("search_notes", keyword="visits"), call("read_note", note_id="n1"),
                       call("read_note", note_id="n2"), final("March visits: Eastside 1240, Westside 980.")])),
                   max_steps=4)
writer_tools = Toolbox()
add_agent_tool(writer_tools, researcher, "Ask the researcher a question about the branch notes.")
writer_model = offered(seen, "writer")(pick_model([
    call("ask_researcher", question="How many visits did each branch have in March?"),
    final("In March, Eastside drew 1,240 visits to Westside's 980.")]))
events = Collector()
stop_listening = listen(events)  # every run's events, the researcher's too (the page's trace does the same)
written = run_agent("Write one sentence comparing the branches' March visits.", writer_model, writer_tools,
                    Memory("You write short reports. Ask the researcher for any figure you need."),
                    max_steps=4, name="writer")
stop_listening()
for event in events:
    print(" ", describe(event, width=90))

# %% [markdown]
# More cases, each where a wrapper can go wrong: a researcher that never finishes (its own step
# limit, 2, must stop it, and the writer must hear about it as an error), one whose model is down,
# and two questions in a row (does the second start from a clean memory?). These use prepared
# replies in every mode: they test the wrapper, not a model.

# %%
def researcher_with(replies, max_steps=2, log=None):
    model = scripted(replies) if isinstance(replies, list) else replies
    return Agent("researcher", "You find facts in the notes.", note_tools(),
                 offered(log, "researcher")(model) if log is not None else model, max_steps)


endless_box = Toolbox()
add_agent_tool(endless_box, researcher_with([call("search_notes", keyword=w) for w in "abcdef"]), "Ask.")
endless = endless_box.run("ask_researcher", '{"question": "Find the parking figures."}')
down_box = Toolbox()
add_agent_tool(down_box, researcher_with(failing("network down")), "Ask.")
down = down_box.run("ask_researcher", '{"question": "Anything?"}')
twice_log = []
twice_box = Toolbox()
add_agent_tool(twice_box, researcher_with([final("one"), final("two")], log=twice_log), "Ask.")
twice = [twice_box.run("ask_researcher", '{"question": "%s"}' % q) for q in ("first?", "second?")]
print("never finishes ->", endless)
print("model down     ->", down)
print("twice          ->", twice, "| messages the second run was sent:", twice_log[-1][2] if twice_log else None)

# %% [markdown]
# ## A hand-off
#
# A help desk gets all kinds of questions. A **triage** agent reads each one and hands the
# conversation to the specialist who can act on it: **billing** (it can look up invoices) or
# **tech** (it can check the service's status). A hand-off is offered to the model as a tool,
# `transfer_to_billing(reason)`; calling it does nothing but record where the conversation goes.
# When the triage agent's run ends, the **router** starts the next agent on the same
# conversation, and that agent answers the user itself.
#
# `with_handoffs` builds an agent's toolbox for one turn: its own tools plus one transfer tool for
# each agent it may hand to. `passed` receives the choice.

# %%
def with_handoffs(agent, agents, passed):
    """The agent's own tools plus `transfer_to_<name>(reason)` for every other agent; a transfer fills `passed`."""
    box = Toolbox()
    for schema in agent.tools.schemas():
        fn = schema["function"]
        box.register(fn["name"], fn["description"], fn["parameters"], forward(agent.tools, fn["name"]))
    for name in agents:
        if name != agent.name:
            def transfer(reason, to=name):
                passed.update(to=to, reason=reason)
                return f"the conversation goes to {to} when you finish your reply"
            box.register(f"transfer_to_{name}", f"Hand the conversation to the {name} agent.",
                         {"type": "object", "properties": {"reason": {"type": "string"}}, "required": ["reason"]},
                         transfer)
    return box


def forward(tools, name):
    """A tool function that runs `name` on another toolbox."""
    return lambda **arguments: tools.run(name, arguments)


def billing_tools():
    box = Toolbox()

    @box.tool
    def look_up_invoice(month: str) -> str:
        """Return the invoice lines for a month, such as "March"."""
        return {"march": "2 charges of 12.00 on 3 March (one is a duplicate)"}.get(month.lower(), "no charges")

    return box


def tech_tools():
    box = Toolbox()

    @box.tool
    def service_status() -> str:
        """Return whether the service is up."""
        return "all systems up"

    return box

# %% [markdown]
# ## Exercise 2: the router
#
# Write `route(request, agents, start, max_handoffs=3, tracer=None)`. `agents` maps names to
# `Agent`s. Run `agents[start]` on the request with `run_agent` (with `name=` its name, its own
# `max_steps`, and the toolbox `with_handoffs(agent, agents, passed)` for a fresh `passed = {}`).
# Then:
#
# - if it did not hand off (`passed` is empty), the conversation is done: return
#   `{"answer", "stopped", "agent", "path"}` from that run (`path`: the names of the agents that
#   ran, in order);
# - if it did, and `max_handoffs` hand-offs have already happened, stop: `"stopped":
#   "step_limit"`, `"answer": None`, and a `"detail"` that names the chain (`triage → billing →
#   triage → billing`, or with `->`), so a loop between two agents ends with a clear reason;
# - otherwise run the agent it handed to, on **the same conversation**: a new
#   `Memory(next.instructions)` whose `history` is a copy of the previous one's, and the task
#   `f"{previous} handed this conversation to you: {reason}"`.

# %% tags=["exercise"]
def route(request, agents, start, max_handoffs=3, tracer=None):
    """Run a conversation through agents that may hand it to each other; stops a hand-off loop."""
    agent = agents[start]
    passed = {}
    memory = Memory(agent.instructions)
    result = run_agent(request, agent.model, with_handoffs(agent, agents, passed), memory,
                       agent.max_steps, tracer=tracer, name=agent.name)
    return {"answer": result["answer"], "stopped": result["stopped"], "agent": agent.name, "path": [agent.name]}

# %% [markdown] tags=["hint"]
# Each run ends one of three ways: the conversation is done, the hand-offs are used up, or it
# passes on. Keep what the next agent needs from the one before.

# %% [markdown] tags=["hint"]
# Make it a loop: keep `path`, `memory` and the `task` in variables, and after each run either
# return, stop, or move to `agents[passed["to"]]`. The number of hand-offs so far is
# `len(path) - 1`.
# To pass the conversation on: `following = Memory(agents[to].instructions)`, then
# `following.history = list(memory.history)`. The chain for the detail is
# `" → ".join(path + [passed["to"]])`.

# %% [markdown] tags=["hint"]
# ```python
# def route(request, agents, start, max_handoffs=3, tracer=None):
#     name, task, history, path = start, request, [], []
#     while True:
#         agent, passed = agents[name], {}
#         memory = Memory(agent.instructions)
#         memory.history = list(history)
#         path.append(name)
#         result = run_agent(task, agent.model, with_handoffs(agent, agents, passed), memory,
#                            agent.max_steps, tracer=tracer, name=name)
#         if not passed:
#             return {"answer": result["answer"], "stopped": result["stopped"], "agent": name, "path": path}
#         if len(path) - 1 >= max_handoffs:
#             chain = " → ".join(path + [passed["to"]])
#             return {"answer": None, "stopped": "step_limit", "agent": name, "path": path,
#                     "detail": f"hand-off limit of {max_handoffs} reached: {chain}"}
#         task = f"{name} handed this conversation to you: {passed['reason']}"
#         name, history = passed["to"], memory.history
# ```

# %% tags=["wrong"]
# wrong: the next agent starts on a fresh memory, so it never sees the customer's words
# expect: the conversation
# patch:
# -    name, task, history, path = start, request, [], []
# +    name, task, path = start, request, []
# @@
# -        memory.history = list(history)
# @@
# -        name, history = passed["to"], memory.history
# +        name = passed["to"]

# %% tags=["wrong"]
# wrong: the limit is checked with >, so one hand-off more than max_handoffs goes through
# expect: max_handoffs
# patch:
# -        if len(path) - 1 >= max_handoffs:
# +        if len(path) - 1 > max_handoffs:

# %% tags=["wrong"]
# wrong: a hand-off ends the conversation with the triage agent's reply instead of starting the next agent
# expect: hand-off loop
# replaces: route
def route(request, agents, start, max_handoffs=3, tracer=None):
    agent, passed = agents[start], {}
    result = run_agent(request, agent.model, with_handoffs(agent, agents, passed), Memory(agent.instructions),
                       agent.max_steps, tracer=tracer, name=agent.name)
    return {"answer": result["answer"], "stopped": result["stopped"], "agent": start, "path": [start]}

# %% tags=["wrong"]
# right: the chain written with "->", as a keyboard types it
# patch:
# -            chain = " → ".join(path + [passed["to"]])
# +            chain = " -> ".join(path + [passed["to"]])

# %% tags=["solution"]
def route(request, agents, start, max_handoffs=3, tracer=None):
    """Run a conversation through agents that may hand it to each other; stops a hand-off loop."""
    name, task, history, path = start, request, [], []
    while True:
        agent, passed = agents[name], {}
        memory = Memory(agent.instructions)
        memory.history = list(history)
        path.append(name)
        result = run_agent(task, agent.model, with_handoffs(agent, agents, passed), memory,
                           agent.max_steps, tracer=tracer, name=name)
        if not passed:
            return {"answer": result["answer"], "stopped": result["stopped"], "agent": name, "path": path}
        if len(path) - 1 >= max_handoffs:
            chain = " → ".join(path + [passed["to"]])
            return {"answer": None, "stopped": "step_limit", "agent": name, "path": path,
                    "detail": f"hand-off limit of {max_handoffs} reached: {chain}"}
        task = f"{name} handed this conversation to you: {passed['reason']}"
        name, history = passed["to"], memory.history

# %%
desk_log = []
desk = {
    "triage": Agent("triage", "You sort help-desk requests. Hand each one to the right specialist.", Toolbox(),
                    offered(desk_log, "triage")(pick_model([
                        call("transfer_to_billing", reason="the customer was charged twice in March"),
                        final("I am passing you to billing.")])), max_steps=3),
    "billing": Agent("billing", "You handle invoices and refunds. Look up the invoice first.", billing_tools(),
                     offered(desk_log, "billing")(pick_model([
                         call("look_up_invoice", month="March"),
                         final("You were charged 12.00 twice on 3 March; the duplicate will be refunded.")])),
                     max_steps=4),
    "tech": Agent("tech", "You answer questions about outages.", tech_tools(),
                  offered(desk_log, "tech")(pick_model([final("All systems are up.")])), max_steps=3),
}
desk_events = Collector()
handled = route("I was charged twice for March. Can you fix it?", desk, "triage", tracer=desk_events)
print(handled)
for event in desk_events:
    if event["type"] in ("run_start", "tool_call", "stop"):
        print(" ", describe(event, width=90))

# %% [markdown] tags=["predict"]
# Two agents that only ever hand the conversation back to each other, with `max_handoffs=3`. How
# many runs start before the router stops them?
#
# - [ ] 3
# - [x] 4
# - [ ] it never stops: each run ends `final`
#
# triage → billing → triage → billing is three hand-offs and four runs; the fourth run hands off
# again, and that one is refused: the router stops with `step_limit` and the chain in `detail`.

# %%
def bouncer(name, other):
    """An agent that hands every conversation to `other` (prepared replies, in every mode)."""
    return Agent(name, f"You are {name}.", Toolbox(),
                 scripted([reply for _ in range(5) for reply in
                           (call(f"transfer_to_{other}", reason=f"{other} should take it"), final("Passing it on."))]),
                 max_steps=3)


loop_events = Collector()
looping = route("Help!", {"triage": bouncer("triage", "billing"), "billing": bouncer("billing", "triage")},
                "triage", max_handoffs=3, tracer=loop_events)
print(looping)
no_handoffs = route("Help!", {"triage": bouncer("triage", "billing"), "billing": bouncer("billing", "triage")},
                    "triage", max_handoffs=0)
stuck_billing = Agent("billing", "You handle invoices.", billing_tools(),
                      scripted([call("look_up_invoice", month="March") for _ in range(5)]), max_steps=2)
stuck = route("Charged twice.", {"triage": bouncer("triage", "billing"), "billing": stuck_billing}, "triage")
print("billing never finishes ->", stuck)

# The same desk on prepared replies in every mode: a check of your router, not of a model.
scripted_log = []
scripted_desk = {
    "triage": Agent("triage", "You sort help-desk requests.", Toolbox(), offered(scripted_log, "triage")(scripted([
        call("transfer_to_billing", reason="charged twice in March"), final("Passing you to billing.")])), 3),
    "billing": Agent("billing", "You handle invoices.", billing_tools(), offered(scripted_log, "billing")(scripted([
        call("look_up_invoice", month="March"), final("The duplicate 12.00 will be refunded.")])), 4),
}
scripted_handled = route("I was charged twice for March.", scripted_desk, "triage")

# %% [markdown]
# ## What several agents cost, and when one is enough
#
# Every agent is its own loop, and every loop resends its whole context on every step: its
# instructions, its tool schemas, its conversation. Split a job over two agents and you pay for
# two system prompts, two sets of schemas, the question written out by one and read by the
# other, and the answer written by one and read again by the other. Here is the March question
# done both ways, on prepared replies in every mode so the numbers stay put: the writer asking
# the researcher, and one agent with the notes tools doing it alone.

# %%
def tokens_by_agent(run_events):
    """Model calls and tokens (prompt + completion) per agent, from model_reply events."""
    out = {}
    for e in run_events:
        if e["type"] == "model_reply" and e.get("usage"):
            calls, tokens = out.get(e.get("agent") or "agent", (0, 0))
            out[e.get("agent") or "agent"] = (calls + 1, tokens + e["usage"]["total"])
    return out


MARCH = "Write one sentence comparing the branches' March visits."
pair_events = Collector()
pair_researcher = Agent("researcher", "You find facts in the notes. Answer with the figures only.", note_tools(),
                        scripted([call("search_notes", keyword="visits"), call("read_note", note_id="n1"),
                                  call("read_note", note_id="n2"), final("March visits: Eastside 1240, Westside 980.")]),
                        max_steps=4)
pair_tools = Toolbox()
add_agent_tool(pair_tools, pair_researcher, "Ask the researcher a question about the branch notes.")
stop_listening = listen(pair_events)
run_agent(MARCH, scripted([call("ask_researcher", question="How many visits did each branch have in March?"),
                           final("In March, Eastside drew 1,240 visits to Westside's 980.")]), pair_tools,
          Memory("You write short reports. Ask the researcher for any figure you need."), max_steps=4, name="writer")
stop_listening()
single_events = Collector()
run_agent(MARCH, scripted([call("search_notes", keyword="visits"), call("read_note", note_id="n1"),
                           call("read_note", note_id="n2"), final("In March, Eastside drew 1,240 visits to Westside's 980.")]),
          note_tools(), Memory("You write short reports from the branch notes."), max_steps=5, tracer=single_events,
          name="alone")
PAIR, SINGLE = tokens_by_agent(pair_events), tokens_by_agent(single_events)
for label, table in (("writer + researcher", PAIR), ("one agent", SINGLE)):
    calls = sum(c for c, _ in table.values())
    tokens = sum(t for _, t in table.values())
    print(f"{label:20} {calls} model calls, ~{tokens} tokens  {table}")

# %% [markdown]
# On a job this small the pair costs more and is slower (its calls run one after another), and
# the single agent is just as right. Several agents earn their cost when one agent really cannot
# hold the job: its tools are too many to choose among well, its instructions conflict, its
# context fills with material only one part of the job needs, or parts can run in parallel
# (several researchers at once, each with a small context). Start with one agent; split when a
# trace shows it confused, and measure the bill after the split.
#
# ## What `looplab` adds, and what frameworks add
#
# Both patterns are a few lines on top of `run_agent`, so Loop Lab keeps them in your program.
# The one piece it adds is the name: `run_agent(..., name=...)` tags every event, `describe()`
# prefixes `[researcher]`, and the page's trace panel shows the agent beside each event, so a
# nested run reads as a block inside its caller. Agent frameworks package the same two ideas
# (OpenAI's Agents SDK calls them *agents as tools* and *handoffs*; LangGraph builds them as a
# supervisor graph) and add what a long-lived system needs: hand-off filters that choose which
# part of the history the next agent sees, guardrails on each agent, and traces that draw the
# agents as a graph.

# %%
from looplab import chat_with
from looplab.models.rules import rule_model
chat_with(lambda question: run_agent(question, pick_model(rule_model), note_tools(), Memory(researcher.instructions),
                                     max_steps=researcher.max_steps, name="researcher"), name="researcher",
          suggestions=["read notes n1 and n2", "search notes for visits"])

# %% tags=["check"]
from looplab import Case, Said, compare, generate, reference, scenarios

BENCH = scenarios.Bench(read=("read_note", {"note_id": "n1"}), other=("search_notes", {"keyword": "visits"}))


def wrapped(add_fn, script):
    """add_agent_tool around an agent playing the scenario: the tool it made, what two questions get back,
    what the agent's model was sent, and which agent each event names."""
    box, seen_events, stops = Toolbox(), [], []
    agent = Agent("helper", "You find facts.", note_tools(), script.model(), **script.settings)
    add_fn(box, agent, "Ask the helper.")

    def heard(event):
        seen_events.append((event["type"], event.get("agent")))
        if event["type"] == "stop":
            stops.append(event)
    stop = listen(heard)
    try:
        answers = []
        for question in ("first?", "second?"):
            answer = box.run("ask_helper", {"question": question})
            said = stops[-1] if stops else {}
            answers.append(Said(repr(answer)[:90], ("error", all(str(w) in answer for w in (
                "helper", said.get("stopped"), said.get("steps"), said.get("detail") or "")))) if answer.startswith(
                "error:") else answer)
    finally:
        stop()
    return {"the tools it registered": box.schemas(), "what the questions got back": answers,
            "what the agent's model was sent": scenarios.sent(script), "the events' agents": seen_events}


ASK_CASES = scenarios.bank(BENCH, leave_out=("a model that never stops, with the default step limit",))


def acting(kind, target, name):
    """A model for an agent: it answers, hands off to `target` (then answers), fails, or never finishes."""
    asked = []

    def model(messages, tools):
        asked.append(1)
        if len(asked) > 50:  # a router that never stops handing off must end here
            raise RuntimeError(f"{name} was asked 50 times: the conversation does not end")
        if kind == "fails":
            raise ConnectionError("network down")
        if kind == "never finishes":
            return call("look_up", id=f"l{len(messages)}", what="x")
        if kind == "hands off" and messages[-1].get("role") != "tool":
            return call(f"transfer_to_{target}", id=f"h{len(messages)}", reason=f"{name} passes it on")
        return final(f"{name} answers")
    return model


def desk(behaviours):
    def tools():
        box = Toolbox()
        box.register("look_up", "Look something up.", {"type": "object", "properties": {"what": {"type": "string"}},
                                                       "required": ["what"]}, lambda what: f"found {what}")
        return box
    return {name: Agent(name, f"You are {name}.", tools(), acting(kind, target, name), max_steps=2)
            for name, (kind, target) in behaviours.items()}


def routing(route_fn, behaviours, start, max_handoffs):
    """route over agents behaving so: what it returns, what each agent's model was sent, the events' agents."""
    agents, sent_here = desk(behaviours), []
    for agent in agents.values():
        agent.model = (lambda model, who: lambda m, t: sent_here.append(
            (who, [(x["role"], x.get("content")) for x in m])) or model(m, t))(agent.model, agent.name)
    tracer = Collector()
    options = {} if max_handoffs == "left out" else {"max_handoffs": max_handoffs}
    out = route_fn("I was charged twice.", agents, start, tracer=tracer, **options)
    chain = " → ".join(out.get("path", [])) if isinstance(out, dict) else ""
    return {"what it returned": {**out, "detail": Said(repr(out.get("detail")), chain in str(out.get("detail")).replace("->", "\u2192"))}
            if isinstance(out, dict) and "detail" in out else out,
            "what each agent was sent": sent_here, "the events' agents": [(e["type"], e.get("agent")) for e in tracer]}


def route_case(d):
    names = ["triage", "billing", "tech"]
    behaviours = {n: (d.pick(["answers", "hands off", "hands off", "fails", "never finishes"]),
                      d.pick([m for m in names if m != n])) for n in names}
    handoffs = d.pick(["left out", 0, 1, 2, 3])
    return Case((behaviours, "triage", handoffs), f"agents that {behaviours} and max_handoffs {handoffs}")


ROUTES = generate(route_case, count=80, edges=[
    Case(({"triage": ("hands off", "billing"), "billing": ("hands off", "triage"), "tech": ("answers", "triage")},
          "triage", 3), "triage and billing handing back and forth, max_handoffs=3")])

# every event of the writer's run says which agent acted, the researcher's too
assert events.events and all(e.get("agent") in ("writer", "researcher") for e in events) and (
    not any(e["type"] == "tool_call" and e.get("tool") == "ask_researcher" for e in events)
    or any(e.get("agent") == "researcher" for e in events)), (
    "events without the right agent: " + ", ".join(sorted({str(e.get('agent')) for e in events})) +
    "; pass name=agent.name to run_agent in your wrapper")
# given: the writer's run ended in one of the four ways
assert written["stopped"] in STOPS, written
# the writer is offered only its own tool; the researcher, when asked, only the notes
assert all(tools == ["ask_researcher"] for who, tools, _ in seen if who == "writer") and \
    (any(who == "researcher" for who, _, _ in seen) or not any(e.get("tool") == "ask_researcher" for e in events)) and \
    all(tools == ["search_notes", "read_note"] for who, tools, _ in seen if who == "researcher"), (
    f"tools offered: {[(w, t) for w, t, _ in seen]}")
# the researcher's whole run sits between the writer's call and its result
expect([(e.get("agent"), e["type"]) for e in events][3:5] == [("writer", "tool_call"), ("researcher", "run_start")]
       and "1240" in str(events.of("tool_result")[-1].get("result")),
       "the researcher did not run inside the writer's tool call: " + " | ".join(describe(e, 50) for e in events.events[:8]),
       observed=f"the writer ended {written['stopped']}: {str(written['answer'])[:80]!r}; agents that acted: "
                f"{sorted({e.get('agent') for e in events})}; a scripted writer asks the researcher once")
asked = [e for e in events if e.get("agent") == "writer" and e["type"] == "tool_result" and e["tool"] == "ask_researcher"]
returned = [str(e.get("answer")) for e in events if e.get("agent") == "researcher" and e["type"] == "stop"]
# every answer the writer got from ask_researcher is what a researcher run returned
assert len(asked) == len(returned) and all(
    e["result"] == answer or e["result"].startswith("error:") for e, answer in zip(asked, returned)), (
    f"the writer asked the researcher {len(asked)} time(s) and {len(returned)} researcher run(s) ended; the writer "
    f"got {[e['result'][:60] for e in asked]}: the tool must run the researcher and return its answer")
# the writer's answer uses the researcher's figures
expect(written["stopped"] == "final" and "1,240" in (written["answer"] or "") and returned
       and "1240" in returned[0],
       f"the writer ended {written['stopped']}: {written['answer']!r}",
       observed=f"the writer answered {str(written['answer'])[:100]!r}")
# a researcher that hits its own step limit reaches the writer as an error, with the reason
assert isinstance(endless, str) and endless.startswith("error:") and "step_limit" in endless and "2" in endless, (
    f"a researcher that never finishes gave the writer {endless!r}; raise ToolError naming how it stopped and after "
    "how many steps")
# a researcher whose model is down reaches the writer as an error, not a crash
assert isinstance(down, str) and down.startswith("error:") and "network down" in down, (
    f"a researcher whose model raised gave {down!r}; a run that ends 'error' is a ToolError with its detail")
# each question starts from a fresh memory
assert twice == ["one", "two"] and len(twice_log) == 2 and len(twice_log[1][2]) == 2, (
    f"two questions gave {twice} and the second run was sent {twice_log[-1][2] if twice_log else None}; make a new "
    "Memory inside the tool's function, so each question starts from its instructions and the question alone")
# add_agent_tool's tool runs and answers as the lesson's does, in every scenario of the bank
assert (ask_found := compare(add_agent_tool, reference("add_agent_tool"), ASK_CASES, observe=wrapped)), ask_found
# the conversation starts with triage, ends in one of the four ways, and a hand-off runs the next agent
assert isinstance(handled, dict) and handled.get("path", [None])[0] == "triage" and handled.get("stopped") in STOPS \
    and (not any(e["type"] == "tool_call" and str(e.get("tool")).startswith("transfer_to_") for e in desk_events)
         or len(handled["path"]) > 1), (
    f"the route gave {handled}")
# triage hands to billing, which looks up the invoice and answers
expect(handled.get("path") == ["triage", "billing"] and handled.get("agent") == "billing"
       and "duplicate" in (handled.get("answer") or ""),
       f"the route gave {handled}; when a run handed off (passed is not empty), run the agent passed['to'] "
       "names on the same conversation",
       observed=f"the agents that ran: {handled.get('path')}; the answer: {str(handled.get('answer'))[:100]!r}; "
                "a scripted triage hands to billing")
# the specialist sees the conversation: the customer's own words and why it got it
expect(any(who == "billing" and "I was charged twice for March. Can you fix it?" in contents
           and any("handed this conversation to you" in str(c) for c in contents) for who, _, contents in desk_log),
       "billing was sent: " + str([c for w, _, c in desk_log if w == "billing"][:1])[:300] + "; copy the "
       "previous memory's history into the next agent's Memory, and give it the hand-off as its task",
       observed="billing ran " + str(sum(w == "billing" for w, _, _ in desk_log)) + " times")
# on prepared replies, billing gets the customer's words and the reason it was handed the conversation
assert scripted_handled.get("path") == ["triage", "billing"] and "refunded" in str(scripted_handled.get("answer")) \
    and any(who == "billing" and "I was charged twice for March." in contents
            and any("handed this conversation to you" in str(c) for c in contents) for who, _, contents in scripted_log), (
    f"on prepared replies the route gave {scripted_handled} and billing was sent "
    f"{[c for w, _, c in scripted_log if w == 'billing'][:1]}: copy the previous memory's history into the next "
    "agent's Memory (the conversation), and give it the hand-off as its task")
# each specialist is offered its own tools and the hand-offs, not another's tools
assert all("service_status" not in tools and "look_up_invoice" not in tools for who, tools, _ in scripted_log + desk_log
           if who == "triage") and any(who == "billing" for who, _, _ in scripted_log) \
    and all("service_status" not in tools for who, tools, _ in scripted_log + desk_log if who == "billing"), (
    f"tools offered: {[(w, t) for w, t, _ in desk_log]}")
# a hand-off loop is stopped after max_handoffs, with the chain as the reason
assert isinstance(looping, dict) and looping.get("stopped") == "step_limit" and \
    "triage -> billing -> triage -> billing" in str(looping.get("detail")).replace("\u2192", "->"), (
    f"two agents handing back and forth gave {looping}; " + (
        "count the hand-offs and stop with 'step_limit' and a detail naming the chain"
        if not isinstance(looping, dict) or looping.get("stopped") != "step_limit" else
        f"the detail {looping.get('detail')!r} should name the chain of agents, 'triage → billing → triage → "
        "billing' (with → or ->)"))
# the loop ran four agents, no more
assert len(loop_events.of("run_start")) == 4 and looping.get("path") == ["triage", "billing", "triage", "billing"], (
    f"{len(loop_events.of('run_start'))} runs started, path {looping.get('path')}; with max_handoffs=3 the fourth "
    "hand-off is refused")
# with max_handoffs=0 the first hand-off is refused
assert no_handoffs.get("stopped") == "step_limit" and no_handoffs.get("path") == ["triage"], (
    f"with max_handoffs=0 the route gave {no_handoffs}; compare the hand-offs so far (len(path) - 1) with "
    "max_handoffs before you start the next agent")
# a specialist's own step limit ends the conversation with its reason
assert stuck.get("stopped") == "step_limit" and stuck.get("agent") == "billing" and stuck.get("path") == ["triage", "billing"], (
    f"a billing agent that never finishes gave {stuck}; return the specialist's own stop")
# route runs, hands off and stops as the lesson's does, for many desks of agents and hand-off limits
assert (route_found := compare(route, reference("route"), ROUTES, observe=routing)), route_found
# given: the two agents made more model calls and spent more tokens than one agent doing the same job
assert sum(c for c, _ in PAIR.values()) == 6 and sum(c for c, _ in SINGLE.values()) == 4 and \
    sum(t for _, t in PAIR.values()) > sum(t for _, t in SINGLE.values()), (PAIR, SINGLE)
# every run in the hand-off loop's trace carries its agent's name, each agent that ran
assert {e.get("agent") for e in loop_events} == {"triage", "billing"} and all(e.get("agent") for e in desk_events), (
    "pass name= to every run_agent, so the trace says which agent acted")
