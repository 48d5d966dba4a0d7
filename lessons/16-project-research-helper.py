# %% [markdown]
# # 15 · Project: the research helper
#
# Time to build one agent end to end, on your own, in three tasks: a **toolbox** whose errors
# come back as text, the **loop** driven through four runs that end four different ways, and a
# **memory** trimmed by a token budget, plus a decision on which tools need a person. Every
# task has checks; work through them in order and stop when they pass.
#
# The notes (invented for the exercise):
#
# | id | title | text |
# | --- | --- | --- |
# | n1 | Eastside branch: visits | March visits: 1240. April visits: 1310. |
# | n2 | Westside branch: visits | March visits: 980. April visits: 1105. |
# | n3 | Eastside branch: opening days | Open Monday to Saturday. |
# | n4 | Westside branch: opening days | Open Monday to Friday. |
# | n5 | Eastside branch: staff | Staff count: 14. |
# | n6 | Westside branch: staff | Staff count: 9. |

# %%
import json
import re
from looplab import Toolbox, ToolError, Memory, run_agent
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

# %% [markdown]
# ## Task 1: the toolbox
#
# Register three tools on `box`:
#
# - `search_notes(keyword)`: the ids and titles of notes whose title contains the keyword,
#   ignoring case; when nothing matches, a message that names the keyword;
# - `read_note(note_id)`: the text of one note; for an unknown id, an error that names the id
#   and lists the ids that exist;
# - `calculate(a, b, operation)`: `operation` one of add, subtract, multiply, divide, **as an
#   enum in the schema**; a division by zero, or another operation, gives an error.
#
# `box.run` already never raises and marks failures with `error:`; your job is the tools and
# the messages.

# %% tags=["exercise"]
box = Toolbox()

@box.tool
def search_notes(keyword: str) -> str:
    "Find notes whose title contains a keyword."
    raise NotImplementedError("write search_notes")

@box.tool
def read_note(note_id: str) -> str:
    "Return the text of one note."
    raise NotImplementedError("write read_note")

@box.tool
def calculate(a: float, b: float, operation: str) -> float:
    "Apply one operation to two numbers."
    raise NotImplementedError("write calculate")

# %% tags=["solution"]
from typing import Literal

box = Toolbox()

@box.tool
def search_notes(keyword: str) -> str:
    "Find notes whose title contains a keyword (ignoring case). Returns 'id: title' lines."
    found = [f"{i}: {title}" for i, (title, _) in NOTES.items() if keyword.lower() in title.lower()]
    return "\n".join(found) if found else f"no notes found for {keyword!r}"

@box.tool
def read_note(note_id: str) -> str:
    "Return the text of one note by its id, such as n1."
    if note_id not in NOTES:
        raise ToolError(f"no note with id {note_id!r}; ids are {', '.join(NOTES)}")
    return NOTES[note_id][1]

@box.tool
def calculate(a: float, b: float, operation: Literal["add", "subtract", "multiply", "divide"]) -> float:
    "Apply one operation to two numbers and return the result."
    if operation == "divide" and b == 0:
        raise ToolError("cannot divide by zero; use a non-zero b")
    return {"add": a + b, "subtract": a - b, "multiply": a * b, "divide": a / b if b else 0}[operation]

# %% [markdown]
# Now the eight requests, run directly, with the answers printed:

# %%
REQUESTS = [
    ("search_notes", {"keyword": "visits"}),
    ("search_notes", {"keyword": "parking"}),
    ("read_note", {"note_id": "n2"}),
    ("read_note", {"note_id": "n9"}),
    ("calculate", {"a": 1240, "b": 980, "operation": "subtract"}),
    ("calculate", {"a": 14, "b": 0, "operation": "divide"}),
    ("calculate", {"a": 2, "b": 3, "operation": "power"}),
    ("delete_everything", {}),
]
answers = []
for number, (name, arguments) in enumerate(REQUESTS, start=1):
    answers.append(box.run(name, json.dumps(arguments)))
    print(f"{number}. {name}({arguments}) -> {answers[-1]}")
tool_list = box.schemas()   # kept now: Task 2 adds a fourth tool

# %% tags=["check"]
# the eight requests all returned text
assert len(answers) == 8 and all(isinstance(a, str) for a in answers), "every request must return a string"
# request 1 finds the two visit notes
assert "n1" in answers[0] and "n2" in answers[0] and not answers[0].startswith("error:"), (
    f"search_notes('visits') returned {answers[0]!r}; it should list n1 and n2")
# request 2 says no note matched 'parking'
assert "parking" in answers[1] and "n1" not in answers[1], (
    f"search_notes('parking') returned {answers[1]!r}; say that nothing matched, naming the keyword")
# request 3 returns the text of n2
assert answers[2] == NOTES["n2"][1], f"read_note('n2') returned {answers[2]!r}"
# requests 4, 6, 7 and 8 return errors
assert all(answers[i].startswith("error:") for i in (3, 5, 6, 7)), (
    f"requests 4, 6, 7 and 8 should start with 'error:'; got {[answers[i][:60] for i in (3, 5, 6, 7)]}")
# request 4's error names n9 and at least three existing ids
assert "n9" in answers[3] and sum(i in answers[3] for i in NOTES) >= 3 and "NotImplemented" not in answers[3], (
    f"read_note('n9') returned {answers[3]!r}; name the id and list the ids that exist")
# request 5 computes 1240 - 980
assert answers[4] in ("260", "260.0"), f"calculate(1240, 980, subtract) returned {answers[4]!r}"
# request 6's error is about the division by zero
assert "zero" in answers[5], f"calculate(14, 0, divide) returned {answers[5]!r}"
# the tool list has three tools, each with a name, a description and parameters
assert len(tool_list) == 3 and all(s["function"].get("description") and s["function"].get("parameters")
                                   for s in tool_list), "register exactly the three tools"
operation = tool_list[2]["function"]["parameters"]["properties"]["operation"]
# the operation enum has exactly four values
assert sorted(operation.get("enum", [])) == ["add", "divide", "multiply", "subtract"], (
    f"the operation schema is {operation}; list the four operations as an enum")

# %% [markdown]
# ## Task 2: the loop and four runs
#
# Add one more tool: `delete_note(note_id)`, which removes a note and returns `deleted`, and
# which must **need a person's approval**. Then prepare four runs (the cell after yours runs
# them with `run_agent` and prints each result with the number of messages in its memory, the
# system message not counted):
#
# - **Run A**: "Which branch had more April visits, and by how many?", `max_steps` 6. Replies: a
#   call to `search_notes` with "visits"; `read_note` n1; `read_note` n2; `calculate` with 1310,
#   1105, subtract; then the text "Eastside, by 205."
# - **Run B**: the same replies, with `max_steps` 3.
# - **Run C**: "Remove the Eastside staff note.", `max_steps` 6, with no approval: replies
#   `search_notes` "staff", `delete_note` n5, then "Done."
# - **Run D**: a model that raises an exception saying "network down".
#
# In live mode your model chooses its own steps (Run A may take more or fewer); the checks then
# hold it only to what a real model can promise.

# %% tags=["exercise"]
def delete_note(note_id: str) -> str:
    NOTES.pop(note_id)
    return "deleted"

box.register("delete_note", "Delete one note by id, permanently.",
             {"type": "object", "properties": {"note_id": {"type": "string"}}, "required": ["note_id"]},
             delete_note)

REPLIES_A = [call("search_notes", keyword="visits"), call("read_note", note_id="n1"),
             call("read_note", note_id="n2"), final("Eastside, by 205.")]
REPLIES_C = [call("search_notes", keyword="staff"), call("delete_note", note_id="n5"), final("Done.")]
MAX_STEPS_B = 6
MODEL_D = None                    # a model that raises "network down"

# %% tags=["solution"]
def delete_note(note_id: str) -> str:
    NOTES.pop(note_id)
    return "deleted"

box.register("delete_note", "Delete one note by id, permanently.",
             {"type": "object", "properties": {"note_id": {"type": "string"}}, "required": ["note_id"]},
             delete_note, needs_approval=True)

REPLIES_A = [call("search_notes", keyword="visits"), call("read_note", note_id="n1"),
             call("read_note", note_id="n2"), call("calculate", a=1310, b=1105, operation="subtract"),
             final("Eastside, by 205.")]
REPLIES_C = [call("search_notes", keyword="staff"), call("delete_note", note_id="n5"), final("Done.")]
MAX_STEPS_B = 3
MODEL_D = failing("network down")  # fails in live mode too: that is the point of Run D

# %% [markdown]
# The four runs, each with a fresh memory that keeps every message:

# %%
APRIL = "Which branch had more April visits, and by how many?"
runs = {}
for label, task, model, steps in [("A", APRIL, pick_model(REPLIES_A), 6),
                                  ("B", APRIL, pick_model(REPLIES_A), MAX_STEPS_B),
                                  ("C", "Remove the Eastside staff note.", pick_model(REPLIES_C), 6),
                                  ("D", APRIL, MODEL_D, 6)]:
    memory = Memory("You are a research helper. Use the tools to answer from the notes.")
    runs[label] = (run_agent(task, model, box, memory, max_steps=steps, approve=None), memory)

# %%
for label, (result, memory) in runs.items():
    print(f"Run {label}: {result} | {len(memory.history)} messages")
print("n5 afterwards:", box.run("read_note", '{"note_id": "n5"}'))

def pairing_holds(memory):
    """Each tool message comes straight after the assistant message holding its call, or a sibling result."""
    history = memory.history
    for i, message in enumerate(history):
        if message["role"] != "tool":
            continue
        j = i - 1
        while j >= 0 and history[j]["role"] == "tool":
            j -= 1
        ids = [c["id"] for c in history[j].get("tool_calls") or []] if j >= 0 else []
        if message["tool_call_id"] not in ids:
            return False
    return True

# %% tags=["check"]
# Run A returns final with exactly the prepared text
assert live or runs["A"][0]["stopped"] == "final" and runs["A"][0]["answer"] == "Eastside, by 205.", runs["A"][0]
# Run A searched, read two notes and calculated before answering
assert live or [c["function"]["name"] for m in runs["A"][1].history for c in m.get("tool_calls") or []] == [
    "search_notes", "read_note", "read_note", "calculate"], (
    "Run A's replies are: search_notes 'visits', read_note n1, read_note n2, calculate 1310 - 1105, "
    "then the text; is one missing from REPLIES_A?")
# Run B stops at the step limit with no answer, after max_steps steps
assert live or (runs["B"][0]["stopped"], runs["B"][0]["answer"], runs["B"][0]["steps"]) == ("step_limit", None, 3), (
    f"Run B gave {runs['B'][0]}; this run expects 'step_limit' with no answer: is its max_steps 3?")
# Run C stops for a person, and n5 is still readable
assert (live or runs["C"][0]["stopped"] == "needs_person") and not box.run("read_note", '{"note_id": "n5"}').startswith("error:"), (
    f"Run C gave {runs['C'][0]} and n5 is {'gone' if 'n5' not in NOTES else 'there'}; register "
    "delete_note with needs_approval=True")
# Run D stops with error, and its detail says network down
assert runs["D"][0]["stopped"] == "error" and "network down" in runs["D"][0].get("detail", ""), (
    f"Run D gave {runs['D'][0]}; use a model that raises: failing('network down')")
# in all four runs, every tool message follows the call it answers
assert all(pairing_holds(memory) for _, memory in runs.values()), "a tool message is not paired with its call"

# %% [markdown]
# ## Task 3, part A: a memory that fits a budget
#
# An invented history of twelve messages (the number is each one's size in tokens) and a
# system message of 400 tokens:
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
#
# Load it into a `Memory`, ask for the window at budgets of **1,300**, **1,500** and **2,100**
# tokens (the budget includes the system message), and report for each the positions kept and
# their total with the system message. Then remember `("March winner", "Eastside")` and print
# the system message.

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

# %% [markdown]
# Write `window(budget)`: it returns `(positions, total)` for one budget.

# %% tags=["exercise"]
helper_memory = Memory({"role": "system", "content": "You are a research helper.", "tokens": 400})
for position, (kind, tokens) in enumerate(TABLE, start=1):
    helper_memory.add(table_message(position, kind, tokens))

def window(budget):
    kept = helper_memory.history[-5:]
    return [m["position"] for m in kept], sum(m["tokens"] for m in kept)

# %% tags=["solution"]
helper_memory = Memory({"role": "system", "content": "You are a research helper.", "tokens": 400})
for position, (kind, tokens) in enumerate(TABLE, start=1):
    helper_memory.add(table_message(position, kind, tokens))

def window(budget):
    messages = helper_memory.messages(budget)
    return [m["position"] for m in messages[1:]], sum(m["tokens"] for m in messages)

# %%
windows = {budget: window(budget) for budget in (1300, 1500, 2100)}
for budget, (positions, total) in windows.items():
    print(f"budget {budget}: positions {positions}, {total} tokens with the system message")
helper_memory.remember("March winner", "Eastside")
system_text = helper_memory.messages()[0]["content"]
print(system_text)

# %% [markdown]
# At 2,100 the walk back reaches position 7, a tool result whose request (position 6) did not
# fit; it is dropped, so the window opens on position 8.
#
# ## Task 3, part B: which tools need a person?
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
# Fill in `APPROVALS`: for each tool, whether it needs approval, and one sentence of reason
# that answers **both** questions: does it change something outside the program, and can the
# change be undone? The toolbox below is then built from your table: the decisions are data.

# %% tags=["exercise"]
APPROVALS = {
    "search_notes": (False, "Safe."),
    "read_note": (False, "Safe."),
    "calculate": (False, "Safe."),
    "delete_note": (True, "Dangerous."),
    "rename_note": (True, "It changes things."),
    "send_summary": (False, "Useful."),
}

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
for tool, (needs, reason) in APPROVALS.items():
    print(f"| {tool:13} | {'needs approval' if needs else 'runs freely':14} | {reason} |")

helper = Toolbox()
for tool, (needs, reason) in APPROVALS.items():
    helper.register(tool, f"The {tool} tool.", None, lambda: "ok", needs_approval=needs)

def answers_both(reason):
    outside = re.search(r"outside|changes nothing|nothing changes", reason, re.IGNORECASE)
    undo = re.search(r"undo|undone|revers|back|for good|permanent|nothing to undo", reason, re.IGNORECASE)
    return bool(outside and undo)

# %% tags=["check"]
tool_positions = {i for i, (kind, _) in enumerate(TABLE, start=1) if kind == "tool"}
# the three lists of kept positions rise and never start on a tool result
assert all(p == sorted(p) and p and p[0] not in tool_positions for p, _ in windows.values()), (
    f"kept positions: { {b: p for b, (p, _) in windows.items()} }; each list must be in order and "
    "must not start on a tool result")
# no total, system message included, is over its budget
assert all(total <= budget for budget, (_, total) in windows.items()), (
    f"totals: { {b: t for b, (_, t) in windows.items()} }; count the system message's 400 tokens too")
# each window holds the newest messages that fit
assert windows == {1300: ([10, 11, 12], 1290), 1500: ([9, 10, 11, 12], 1380), 2100: ([8, 9, 10, 11, 12], 1530)}, (
    f"got {windows}; walk back from the newest, stop at the first that would pass the budget, then "
    "drop a leading tool result")
# the system message carries the remembered fact
assert "March winner" in system_text and "Eastside" in system_text, system_text
# the table has six rows, one per tool
assert sorted(APPROVALS) == sorted(["search_notes", "read_note", "calculate", "delete_note", "rename_note",
                                    "send_summary"]), f"tools in the table: {sorted(APPROVALS)}"
# delete_note and send_summary need a person; rename_note can be undone; reading and computing run freely
assert [t for t, (needs, _) in APPROVALS.items() if needs] == ["delete_note", "send_summary"], (
    f"needing approval: {[t for t, (n, _) in APPROVALS.items() if n]}; ask of each: does it reach outside "
    "the program, and can it be undone? (renaming back restores a title; an e-mail cannot be unsent)")
# every reason answers both questions
assert all(answers_both(reason) for _, reason in APPROVALS.values()), (
    "reasons missing a question: " + "; ".join(f"{t}: {r!r}" for t, (_, r) in APPROVALS.items()
                                                 if not answers_both(r)))
# the toolbox follows the table
assert [t for t in helper.names() if helper.needs_approval(t)] == [t for t, (n, _) in APPROVALS.items() if n]

# %% [markdown]
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
# - When should a tool need a person's approval? (10, 15)
