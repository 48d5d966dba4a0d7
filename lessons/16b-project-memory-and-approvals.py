# ---
# jupyter:
#   looplab:
#     core: use it – your memory in front of your loop, and which tools need a person, tool by tool
# ---

# %% [markdown]
# # 16b · Project: the research helper, part 2
#
# Part 1 ([lesson 16](#/16-project-research-helper)) put your toolbox and your loop together and
# gave them the notes' tools. This sitting adds the two things a helper needs before it runs for
# long or touches anything that matters: **your memory** from lesson 8, trimmed to a token
# budget, fitted in front of the model without changing your loop, and a decision, tool by tool,
# on **which tools need a person**.
#
# As in part 1, `mine(N)` brings your own parts: the toolbox with its four tools and the prepared
# runs from lesson 16, the loop from lesson 4, the memory from lesson 8. Where one of yours does
# not pass its own lesson's checks yet, the lesson says so in one sentence and uses the reference
# for that part.

# %%
import json
import re
from looplab.models import pick_model, call, final
from looplab import expect, mine
from looplab.tokens import message_tokens

part1 = mine(16)                       # lesson 16: box (four tools on your toolbox), REPLIES_A
box, REPLIES_A = part1.box, part1.REPLIES_A
MyToolbox = mine(2).MyToolbox          # your toolbox from lesson 2
my_run_agent = mine(4).my_run_agent    # your loop from lesson 4
MyMemory = mine(8).MyMemory            # your memory from lesson 8
APRIL = "Which branch had more April visits, and by how many?"

def attempt(fn, *args, **kwargs):
    """Call fn; an exception comes back as text, so a check can say what happened."""
    try:
        return fn(*args, **kwargs)
    except Exception as exc:
        return f"raised {type(exc).__name__}: {exc}"

# %% [markdown]
# ## Task 1: a memory that fits a budget
#
# Your `MyMemory` from lesson 8 keeps the history and the facts you `remember`, and
# `messages(budget)` gives the system message (counted as 400 tokens) and the newest messages
# that fit, never opening on a tool result. Here it is on an invented history of twelve messages
# (the number is each one's size in tokens):
#
# | position | role | tokens |
# | --- | --- | --- |
# | 1 | user | 120 |
# | 2 | assistant (asks for a tool) | 80 |
# | 3 | tool result | 450 |
# | 4 | assistant (asks for a tool) | 80 |
# | 5 | tool result | 300 |
# | 6 | assistant (asks for a tool) | 80 |
# | 7 | tool result | 520 |
# | 8 | assistant | 150 |
# | 9 | user | 90 |
# | 10 | assistant (asks for a tool) | 80 |
# | 11 | tool result | 610 |
# | 12 | assistant | 200 |

# %%
TABLE = [("user", 120), ("call", 80), ("tool", 450), ("call", 80), ("tool", 300), ("call", 80),
         ("tool", 520), ("assistant", 150), ("user", 90), ("call", 80), ("tool", 610), ("assistant", 200)]

def table_message(position, kind, tokens):
    """One row of the table as a real chat message, tagged with its position."""
    if kind == "call":
        return {"role": "assistant", "content": None, "tokens": tokens, "position": position,
                "tool_calls": [{"id": f"c{position}", "type": "function",
                                "function": {"name": "read_note", "arguments": "{}"}}]}
    if kind == "tool":
        return {"role": "tool", "tool_call_id": f"c{position - 1}", "content": "...", "tokens": tokens,
                "position": position}
    return {"role": kind, "content": f"message {position}", "tokens": tokens, "position": position}

helper_memory = MyMemory("You are a research helper.")
for position, (kind, tokens) in enumerate(TABLE, start=1):
    helper_memory.add(table_message(position, kind, tokens))

def window(memory, budget):
    """The positions a budget keeps, and their total with the system message's 400 tokens."""
    kept = attempt(memory.messages, budget)
    if isinstance(kept, str):
        return kept, None
    return [m.get("position") for m in kept[1:]], 400 + sum(m.get("tokens", 0) for m in kept[1:])

# %% [markdown] tags=["predict"]
# At a budget of 2,100 the walk back from position 12 keeps adding messages until position 7, a
# tool result, is the oldest that fits (position 6 would pass the budget). Where does the window
# open?
#
# - [ ] at position 6: the request is pulled in to keep the pair together
# - [ ] at position 7: everything that fits is kept
# - [x] at position 8: the result at 7 lost its request, so it goes too
#
# A tool result without the call it answers confuses a model and is refused by the API, so the
# window gives up the orphan instead of breaking the budget.

# %%
windows = {budget: window(helper_memory, budget) for budget in (1300, 1500, 2100)}
for budget, (positions, total) in windows.items():
    print(f"budget {budget}: positions {positions}, {total} tokens with the system message")
attempt(helper_memory.remember, "March winner", "Eastside")
system_texts = [str(attempt(lambda: helper_memory.messages()[0]["content"])),
                str(attempt(lambda: helper_memory.messages(1300)[0]["content"]))]
print(system_texts[0])

# %% tags=["check"]
# given: your lesson-8 memory keeps, for each budget, the newest messages that fit
assert windows == {1300: ([10, 11, 12], 1290), 1500: ([9, 10, 11, 12], 1380), 2100: ([8, 9, 10, 11, 12], 1530)}, (
    f"got {windows}; walk back from the newest, stop at the first that would pass the budget, then "
    "drop a leading tool result: see lesson 8")
# given: your lesson-8 memory writes the remembered fact into the system message, with and without a budget
assert all("March winner" in text and "Eastside" in text for text in system_texts), (
    f"the system messages were {system_texts}; see lesson 8's remember")

# %% [markdown]
# ### Exercise 1: your memory in front of your loop
#
# Your loop from lesson 4 keeps every message in its list and sends the whole list each step.
# Rather than rewrite it, put the memory between the loop and the model: write
# `with_memory(model_fn, memory, budget)`, which returns a model function for your loop. Each
# time the loop calls it with `(messages, tools)`, it
#
# - on its first call, **remembers the task** (the first message's content) under the key
#   `"task"`, so the task stays in the system message after the window has moved past it;
# - adds to `memory` the messages it has not seen yet (those after the first
#   `len(memory.history)`), each as `sized(message)`, a copy that carries its `"tokens"`;
# - calls `model_fn` with `as_sent(memory.messages(budget))` (the window, without the token
#   counts a model does not take) and the same `tools`, and returns its reply.

# %%
def sized(message):
    """A copy of a message that carries its size in tokens, as MyMemory expects."""
    return {**message, "tokens": message_tokens(message)}

def as_sent(messages):
    """The messages as a model is sent them: without the "tokens" our memory counts with."""
    return [{k: v for k, v in m.items() if k != "tokens"} for m in messages]

# %% tags=["exercise"]
def with_memory(model_fn, memory, budget):
    """A model function for your loop: it sends `memory`'s window of at most `budget` tokens."""
    def fitted(messages, tools):
        return model_fn(messages, tools)
    return fitted

# %% [markdown] tags=["hint"]
# The loop's list only grows: everything your memory holds is at its front, so what is new is
# what comes after. The first call is the one where the memory is still empty.

# %% [markdown] tags=["hint"]
# A slice `messages[len(memory.history):]` is the part not added yet. `memory.remember` takes a
# key and a value; the task is the content of the first message. Then the model gets the
# window your memory computes for the budget, passed through `as_sent`.

# %% [markdown] tags=["hint"]
# ```python
# def with_memory(model_fn, memory, budget):
#     def fitted(messages, tools):
#         if not memory.history and messages:
#             memory.remember("task", messages[0]["content"])
#         for message in messages[len(memory.history):]:
#             memory.add(sized(message))
#         return model_fn(as_sent(memory.messages(budget)), tools)
#     return fitted
# ```

# %% tags=["wrong"]
# wrong: adds the whole list on every call, so the memory holds each old message again and again
# expect: once
# patch:
# -        for message in messages[len(memory.history):]:         # only what is new since the last call
# +        for message in messages:

# %% tags=["wrong"]
# wrong: fills the memory but sends every message, ignoring the budget
# expect: over the budget
# patch:
# -        return model_fn(as_sent(memory.messages(budget)), tools)
# +        return model_fn(as_sent(memory.messages()), tools)

# %% tags=["wrong"]
# wrong: never remembers the task, so once the window moves past it the model no longer sees it
# expect: remember the task
# patch:
# -        if not memory.history and messages:
# -            memory.remember("task", messages[0]["content"])   # the task outlives the window

# %% tags=["solution"]
def with_memory(model_fn, memory, budget):
    """A model function for your loop: it sends `memory`'s window of at most `budget` tokens."""
    def fitted(messages, tools):
        if not memory.history and messages:
            memory.remember("task", messages[0]["content"])   # the task outlives the window
        for message in messages[len(memory.history):]:         # only what is new since the last call
            memory.add(sized(message))
        return model_fn(as_sent(memory.messages(budget)), tools)
    return fitted

# %% [markdown]
# Run A from lesson 16 again, through your loop, with your memory in front of the model and a
# budget of 520 tokens (the system message's 400 included). Each request the model gets is
# recorded, with its size:

# %%
BUDGET = 520
sent = []

def recorded(model_fn):
    """The same model, keeping a copy of every list of messages it is sent."""
    def model(messages, tools):
        sent.append([dict(m) for m in messages])
        return model_fn(messages, tools)
    return model

def request_tokens(messages):
    """A request's size as the memory counts it: 400 for the system message, then each message."""
    return 400 + sum(message_tokens(m) for m in messages if m["role"] != "system")

budget_memory = MyMemory("You are a research helper. Use the tools to answer from the notes.")
ran = attempt(my_run_agent, APRIL, attempt(with_memory, recorded(pick_model(REPLIES_A)), budget_memory, BUDGET), box, 6)
budget_run, budget_messages = ran if isinstance(ran, tuple) else ({"stopped": ran, "answer": None}, [])
print(budget_run)
for number, request in enumerate(sent, start=1):
    print(f"request {number}: {len(request)} messages, {request_tokens(request)} tokens:",
          [m["role"] for m in request])
history = getattr(budget_memory, "history", [])

# %% tags=["check"]
from looplab import Case, compare, generate, reference


def fitting(with_fn, sizes, budget, start=()):
    """Drive the wrapper as a loop would: a growing message list (from `start`), one call a step. What the
    model got, what the memory holds, and what the wrapper handed back."""
    got, memory = [], MyMemory("You help.")

    def model_fn(messages, tools):
        got.append(([(m.get("role"), m.get("content"), "tokens" in m) for m in messages], tools))
        return {"role": "assistant", "content": f"reply {len(got)}"}
    fitted = with_fn(model_fn, memory, budget)
    messages, replies = [dict(m) for m in start], []
    for step, size in enumerate(sizes):
        if size:
            messages.append({"role": "user", "content": f"task {step} " + "word " * size})
        replies.append(fitted(list(messages), ["a tool"])["content"])
        messages.append({"role": "assistant", "content": replies[-1]})
    return {"what the model was sent": got, "what it handed back": replies,
            "the memory's history": [(m.get("role"), m.get("content"), m.get("tokens")) for m in memory.history],
            "the memory's notes": dict(getattr(memory, "notes", {}))}


FITS = generate(lambda d: Case((d.some(lambda d: d.pick([1, 20, 60, 150]), 0, 4), d.pick([400, 430, 520, 700, 5000])),
                               ), count=60, edges=[
    Case(([5, 5], 520), "two small steps and a budget of 520"),
    Case(([0, 5], 5000), "a first call with no messages at all"),
    Case(([5], 5000, [{"role": "user", "content": "the task"}, {"role": "assistant", "content": "On it."}]),
         "a first call that already has two messages")])
# the model was asked, and no request is over the budget, the system message's 400 tokens included
assert sent and all(request_tokens(r) <= BUDGET for r in sent), (
    f"the requests were {[request_tokens(r) for r in sent]} tokens; one is over the budget of {BUDGET}: "
    "send memory.messages(budget), not every message")
# every request opens with the system message, and no request carries the token counts
assert all(r and r[0]["role"] == "system" and not any("tokens" in m for m in r) for r in sent), (
    "a request did not open with the memory's system message, or still carried \"tokens\": send "
    "as_sent(memory.messages(budget))")
# the memory holds each message of the run once, in order
assert [{k: v for k, v in m.items() if k != "tokens"} for m in history][:len(budget_messages) - 1] == \
    budget_messages[:len(history)] and len(history) in (len(budget_messages), len(budget_messages) - 1), (
    f"the loop kept {len(budget_messages)} messages and the memory {len(history)}; add each message once: "
    "only those after the first len(memory.history)")
# every request carries the task in its system message
assert sent and all(r and r[0]["role"] == "system" and APRIL in str(r[0].get("content")) for r in sent), (
    "a request's system message does not carry the task; remember the task on the first call: "
    "memory.remember(\"task\", messages[0][\"content\"])")
# with_memory sends, keeps and remembers what the lesson's does, for many runs and budgets
assert (fit_found := compare(with_memory, reference("with_memory"), FITS, observe=fitting)), fit_found
# with prepared replies, the window left the oldest messages out of the last request, and the run still ended well
expect(len(sent) == 5 and sum(m["role"] != "system" for m in sent[-1]) < len(budget_messages) - 1
       and budget_run.get("answer") == "Eastside, by 205.",
       f"the run gave {budget_run} after {len(sent)} requests, the last with {len(sent[-1]) if sent else 0} messages",
       observed=f"{len(sent)} requests; the last sent "
                f"{sum(m['role'] != 'system' for m in sent[-1]) if sent else 0} of the run's messages")

# %% [markdown]
# ## Task 2: which tools need a person?
#
# Six tools a research helper might be given:
#
# - `search_notes`: finds notes by title;
# - `read_note`: returns one note's text;
# - `calculate`: does arithmetic on two numbers;
# - `delete_note`: removes a note permanently;
# - `rename_note`: changes a note's title; renaming it back restores the old title;
# - `send_summary`: e-mails a summary of the notes to a list of people.
#
# ### Exercise 2: the approvals table
#
# Fill in `APPROVALS`: for each tool, whether it needs approval (`True` or `False`), and one
# sentence of reason that answers **both** questions: does it change something outside the
# program, and can the change be undone? The decision is yours to argue; the checks look at
# whether every row has one and a reason that answers both questions, not at a single right
# answer. The toolbox below is then built from your table: the decisions are data.

# %% tags=["exercise"]
APPROVALS = {
    "search_notes": (False, "Safe."),
    "read_note": (False, "Safe."),
    "calculate": (False, "Safe."),
    "delete_note": (True, "Dangerous."),
    "rename_note": (True, "It changes things."),
    "send_summary": (False, "Useful."),
}

# %% [markdown] tags=["hint"]
# Take the tools one at a time and answer the two questions out loud: does anything outside the
# program change (the stored notes, someone's inbox)? If so, could you put it back?

# %% [markdown] tags=["hint"]
# A reason that answers both says two things: whether the stored notes, an inbox or anything else
# outside the program changes, and whether the change could be put back (or that there is
# nothing to undo). Words such as *outside*, *changes nothing*, *undone*, *permanent*, *back*
# are what the check looks for.

# %% [markdown] tags=["hint"]
# ```python
# APPROVALS = {
#     "search_notes": (False, "It only reads titles and changes nothing outside the program, so there is nothing to undo."),
#     "read_note": (False, "It only reads a note and changes nothing outside the program, so there is nothing to undo."),
#     "calculate": (False, "It computes a number and changes nothing outside the program, so there is nothing to undo."),
#     "delete_note": (True, "It changes the stored notes outside the program and cannot be undone: the note is gone for good."),
#     "rename_note": (False, "It changes a title outside the program, but the change can be undone by renaming it back."),
#     "send_summary": (True, "It sends e-mail to people outside the program and cannot be undone once sent."),
# }
# ```

# %% tags=["wrong"]
# wrong: lets delete_note and send_summary run freely, though the reasons say they cannot be undone
# expect: cannot be undone, yet it runs freely
# patch:
# -    "delete_note": (True, "It changes the stored notes outside the program and cannot be undone: the note is gone for good."),
# +    "delete_note": (False, "It changes the stored notes outside the program and cannot be undone: the note is gone for good."),
#      "rename_note": (False, "It changes a title outside the program, but the change can be undone by renaming it back."),
# -    "send_summary": (True, "It sends e-mail to people outside the program and cannot be undone once sent."),
# +    "send_summary": (False, "It sends e-mail to people outside the program and cannot be undone once sent."),

# %% tags=["wrong"]
# wrong: one-word reasons for the two tools whose decision matters most
# expect: sentence of six words
# patch:
# -    "delete_note": (True, "It changes the stored notes outside the program and cannot be undone: the note is gone for good."),
# +    "delete_note": (True, "Permanent."),
# @@
# -    "send_summary": (True, "It sends e-mail to people outside the program and cannot be undone once sent."),
# +    "send_summary": (True, "Irreversible."),

# %% tags=["solution"]
APPROVALS = {
    "search_notes": (False, "It only reads titles and changes nothing outside the program, so there is nothing to undo."),
    "read_note": (False, "It only reads a note and changes nothing outside the program, so there is nothing to undo."),
    "calculate": (False, "It computes a number and changes nothing outside the program, so there is nothing to undo."),
    "delete_note": (True, "It changes the stored notes outside the program and cannot be undone: the note is gone for good."),
    "rename_note": (False, "It changes a title outside the program, but the change can be undone by renaming it back."),
    "send_summary": (True, "It sends e-mail to people outside the program and cannot be undone once sent."),
}

# %%
for tool, row in APPROVALS.items():
    needs, reason = row if isinstance(row, tuple) and len(row) == 2 else (row, "")
    print(f"| {tool:13} | {'needs approval' if needs else 'runs freely':14} | {reason} |")

helper = MyToolbox()
for tool, row in APPROVALS.items():
    attempt(helper.register, tool, f"The {tool} tool.", {"type": "object", "properties": {}},
            lambda: "ok", needs_approval=bool(row[0]) if isinstance(row, tuple) else False)

OUTSIDE = r"outside|inside|within the program|changes nothing|nothing changes|only reads|read-only|external"
UNDO = r"undo|undone|revers|permanent|for good|back|taken back|nothing to undo|recover"

def answers_both(reason):
    """Does a reason say whether the tool reaches outside the program, and whether it can be undone?"""
    return bool(re.search(OUTSIDE, reason, re.IGNORECASE) and re.search(UNDO, reason, re.IGNORECASE))

IRREVERSIBLE = r"cannot be undone|can't be undone|can not be undone|irreversib|permanent|for good|once sent|no way back"


def irreversible(reason):
    """Does a reason say the tool changes something that cannot be put back?"""
    return bool(re.search(IRREVERSIBLE, reason, re.IGNORECASE)) and not re.search(
        r"changes nothing|nothing changes|only reads|read-only|nothing to undo", reason, re.IGNORECASE)

def well_formed(row):
    """A row is (True or False, one sentence of at least six words)."""
    return (isinstance(row, tuple) and len(row) == 2 and isinstance(row[0], bool) and isinstance(row[1], str)
            and len(row[1].split()) >= 6 and row[1].rstrip()[-1:] in ".!")


# %%
from looplab import chat_with
from looplab.models.rules import rule_model
chat_with(lambda task: my_run_agent(task, with_memory(pick_model(rule_model), MyMemory(
              "You are a research helper. Use the tools to answer from the notes."), 1200), box)[0],
          name="research helper", suggestions=["read notes n1 and n2", "what is 1310 - 1105"])

# %% tags=["check"]
# given: the table has the lesson's six rows, one per tool (the decisions and reasons are yours to argue)
assert sorted(APPROVALS) == sorted(reference("APPROVALS")), f"tools in the table: {sorted(APPROVALS)}"
# every row is a decision, True or False, and one sentence of reason
assert all(well_formed(row) for row in APPROVALS.values()), (
    "rows that are not (True or False, a sentence of six words or more): "
    + "; ".join(f"{t}: {row!r}" for t, row in APPROVALS.items() if not well_formed(row)))
# every reason answers both questions: outside the program? can it be undone?
assert all(well_formed(row) and answers_both(row[1]) for row in APPROVALS.values()), (
    "reasons missing a question: " + "; ".join(f"{t}: {row[1]!r}" for t, row in APPROVALS.items()
                                                 if well_formed(row) and not answers_both(row[1])))
# a tool whose change reaches outside the program and cannot be undone needs a person
assert all(well_formed(row) for row in APPROVALS.values()) and not [
        t for t, row in APPROVALS.items() if not row[0] and irreversible(row[1])], (
    "every row needs its decision and reason first; these rows say the change cannot be undone, yet it runs freely: "
    + "; ".join(f"{t}: {row[1]!r}" for t, row in APPROVALS.items() if well_formed(row) and not row[0]
                and irreversible(row[1])) + ". A change nobody can take back needs a person's yes first")
# given: the toolbox built from your table follows it
assert [t for t in APPROVALS if helper.needs_approval(t)] == [t for t, row in APPROVALS.items() if row[0] is True], (
    "the toolbox built from the table disagrees with it")

# %% [markdown]
# Loop Lab's own reading, to compare with yours: searching, reading and computing run freely;
# `delete_note` and `send_summary` need a person (one is permanent, the other reaches other
# people's inboxes); `rename_note` changes something but can be put back, so it may run, with
# the rename recorded. A team that cannot tolerate even a wrong title for a minute would argue
# the other way, and that is a fine answer too, if the reason says so.
#
# ## Say it in five beats
#
# Someone asks you: *how does an agent decide what to do next, act on it, remember what
# happened, and know when to stop?* A complete answer has five beats, in this order:
#
# 1. **who chooses**: the model chooses the next step, not the code; that makes it an agent;
# 2. **the loop**: send the messages, run the tool it asks for, add the result, repeat;
# 3. **tools**: a name, a description, a schema and code; the program runs them, and errors go
#    back as text;
# 4. **memory**: the model keeps nothing, so the program sends the messages, trimmed to fit,
#    plus notes;
# 5. **stopping**: a final answer, a step limit, an error, or a person's approval.
#
# Practise it aloud until it comes out without notes. And test yourself; each answer is in the
# lesson named:
#
# - What separates a workflow from an agent? (1)
# - Describe the loop in order. (4)
# - Who runs a tool: the model or your program? (3)
# - What does a model see of a tool? (2)
# - Why does a toolbox return errors as text instead of raising them? (2)
# - Why use an enum in a parameter schema? (2)
# - Why does an agent need memory, and where does it come from? (6)
# - Name two ways to keep memory from overfilling the context window. (8)
# - What does a step limit protect against? (4)
# - When should a tool need a person's approval? (10, 16b)

# %% [markdown]
# ## What the research helper still lacks, and where it comes next
#
# The helper you built in lessons 16 and 16b answers from six notes with a scripted model. Before it could face real
# users and real models, each of these needs a lesson of its own:
#
# - is it any good? One passing run proves little: a task set, graders and a success rate (17);
# - a note that says "ignore your instructions" is data giving orders: prompt injection (18);
# - a reply a program must read should fit a schema, checked (19);
# - every step resends the conversation, and someone pays for it: tokens, cost, budgets (20);
# - a slow or failing call should not hang or kill the run: timeouts, retries, calls in parallel (21);
# - a long run outgrows any window: compaction (22);
# - one agent with every tool gets confused: several agents with their own roles (23);
# - its tools are written into this one program: a standard connector, MCP (24).
#
# That is **chapter 2**: the same agent, made to hold up. It starts with lesson 17. Chapter 3
# (25–27) then builds a coding agent, a benchmark to measure it, and this research helper made
# ready for real use.
