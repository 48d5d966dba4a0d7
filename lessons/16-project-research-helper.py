# ---
# jupyter:
#   looplab:
#     core: use it – your toolbox and your loop become the research helper and answer its eight requests
# ---

# %% [markdown]
# # 16 · Project: the research helper, part 1
#
# Time to put your own parts together into one agent. You wrote them already: **your toolbox**
# (lesson 2), whose errors come back as text, and **your loop** (lesson 4), with its four stops.
# `mine(2)` and `mine(4)` hand them to this lesson as you left them; if one of them does not pass
# its own lesson's checks yet, the lesson says so in one sentence and uses the reference solution
# for that part, until yours passes there. Nothing else here comes from `looplab` but the
# prepared model replies.
#
# In this part you give the toolbox the notes' tools and drive four runs that end four different
# ways. Part 2 (lesson 16b) adds your memory from lesson 8 and decides which tools need a person.
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
from looplab.models import pick_model, scripted, call, calls, final, failing
from looplab import expect, mine, BRANCH_NOTES


NOTES = dict(BRANCH_NOTES)  # lesson 1's six notes, id -> (title, text); this lesson's own copy

def attempt(fn, *args, **kwargs):
    """Call fn; an exception comes back as text, so a check can say what happened."""
    try:
        return fn(*args, **kwargs)
    except Exception as exc:
        return f"raised {type(exc).__name__}: {exc}"

MyToolbox = mine(2).MyToolbox          # your toolbox from lesson 2
my_run_agent = mine(4).my_run_agent    # your loop from lesson 4

# %% [markdown]
# ## Task 1: the toolbox
#
# Your `MyToolbox` from lesson 2, on a small test bench before it meets the notes: a good call,
# and six that cannot work, each of which must come back as `error:` text rather than raise.

# %%
def divide(a, b):
    return a / b

bench = MyToolbox()
bench.register("divide", "Divide a by b.", {"type": "object", "properties": {"a": {"type": "number"},
               "b": {"type": "number"}}, "required": ["a", "b"]}, divide)
bench.register("wipe", "Wipe everything.", {"type": "object", "properties": {}}, lambda: "wiped",
               needs_approval=True)
BENCH = {
    "6 / 3": attempt(bench.run, "divide", '{"a": 6, "b": 3}'),
    "unknown tool": attempt(bench.run, "multiply", '{"a": 6, "b": 3}'),
    "not JSON": attempt(bench.run, "divide", "{a: 6"),
    "a list": attempt(bench.run, "divide", "[6, 3]"),
    "missing b": attempt(bench.run, "divide", '{"a": 6}'),
    "an extra argument": attempt(bench.run, "divide", '{"a": 6, "b": 3, "c": 1}'),
    "the tool raises": attempt(bench.run, "divide", '{"a": 6, "b": 0}'),
}
for label, answer in BENCH.items():
    print(f"{label:18} -> {answer}")
print(attempt(bench.schemas))
print("needs approval:", [attempt(bench.needs_approval, n) for n in ("divide", "wipe", "nothing")])

# %% tags=["check"]
# given: your lesson-2 toolbox returns a good call's result as text
assert BENCH["6 / 3"] == "2.0", f"run('divide', '{{\"a\": 6, \"b\": 3}}') gave {BENCH['6 / 3']!r}; see lesson 2"
# given: your lesson-2 toolbox turns every failure into text starting with error:
assert all(isinstance(BENCH[k], str) and BENCH[k].startswith("error:") for k in BENCH if k != "6 / 3"), (
    "these did not come back as 'error:' text: "
    + "; ".join(f"{k}: {BENCH[k]!r}" for k in BENCH if k != "6 / 3" and not str(BENCH[k]).startswith("error:"))
    + "; fix them in lesson 2")
# given: your lesson-2 toolbox flags only the tool registered with needs_approval=True
assert [attempt(bench.needs_approval, n) for n in ("divide", "wipe", "nothing")] == [False, True, False], (
    f"needs_approval gave {[attempt(bench.needs_approval, n) for n in ('divide', 'wipe', 'nothing')]} for "
    "divide, wipe and an unknown name; see lesson 2")

# %% [markdown]
# ### Exercise 1: three tools on your toolbox
#
# Register three tools on `box`:
#
# - `search_notes(keyword)`: the ids and titles of notes whose title contains the keyword,
#   ignoring case; when nothing matches, a message that names the keyword;
# - `read_note(note_id)`: the text of one note; for an unknown id, an error that names the id
#   and lists the ids that exist (raise an exception: your toolbox turns it into `error:` text);
# - `calculate(a, b, operation)`: `operation` one of add, subtract, multiply, divide, **as an
#   enum in the schema**; a division by zero, or another operation, gives an error.

# %% tags=["exercise"]
box = MyToolbox()

def search_notes(keyword):
    raise NotImplementedError("write search_notes")

def read_note(note_id):
    raise NotImplementedError("write read_note")

def calculate(a, b, operation):
    raise NotImplementedError("write calculate")

box.register("search_notes", "Find notes.",
             {"type": "object", "properties": {"keyword": {"type": "string"}}, "required": ["keyword"]},
             search_notes)
box.register("read_note", "Read a note.",
             {"type": "object", "properties": {"note_id": {"type": "string"}}, "required": ["note_id"]},
             read_note)
box.register("calculate", "Do arithmetic.",
             {"type": "object", "properties": {"a": {"type": "number"}, "b": {"type": "number"},
                                               "operation": {"type": "string"}},
              "required": ["a", "b", "operation"]},
             calculate)

# %% [markdown] tags=["hint"]
# Each body is a few lines over `NOTES`, which maps an id to `(title, text)`. Say in each
# description what the tool returns, as lesson 2's clear `search_notes` did.

# %% [markdown] tags=["hint"]
# Lower-case both sides to ignore case. For an unknown id, raise a `ValueError` whose text names
# the id and lists the keys of `NOTES`: your toolbox turns it into the `error:` text. The enum
# belongs in the schema, as an `"enum"` list beside `"type"` in the `operation` property.

# %% [markdown] tags=["hint"]
# ```python
# def search_notes(keyword):
#     found = [f"{i}: {title}" for i, (title, _) in NOTES.items() if keyword.lower() in title.lower()]
#     return "\n".join(found) if found else f"no notes found for {keyword!r}"
#
# def read_note(note_id):
#     if note_id not in NOTES:
#         raise ValueError(f"no note with id {note_id!r}; ids are {', '.join(NOTES)}")
#     return NOTES[note_id][1]
#
# def calculate(a, b, operation):
#     if operation == "divide" and b == 0:
#         raise ValueError("cannot divide by zero; use a b other than 0")
#     if operation not in OPERATIONS:
#         raise ValueError(f"unknown operation {operation!r}; use one of {', '.join(OPERATIONS)}")
#     return OPERATIONS[operation](a, b)
#
# OPERATIONS = {"add": lambda a, b: a + b, "subtract": lambda a, b: a - b,
#               "multiply": lambda a, b: a * b, "divide": lambda a, b: a / b}
# ```
# and in `calculate`'s schema, `"operation": {"type": "string", "enum": list(OPERATIONS)}`.

# %% tags=["wrong"]
# wrong: compares the keyword with the title as written, so STAFF finds nothing
# expect: lower case
# patch:
# -    found = [f"{i}: {title}" for i, (title, _) in NOTES.items() if keyword.lower() in title.lower()]
# +    found = [f"{i}: {title}" for i, (title, _) in NOTES.items() if keyword in title]

# %% tags=["wrong"]
# wrong: a search that finds nothing returns an empty text
# expect: naming the keyword
# patch:
# -    return "\n".join(found) if found else f"no notes found for {keyword!r}"
# +    return "\n".join(found)

# %% tags=["wrong"]
# wrong: the operation is checked in code but not listed as an enum in the schema
# expect: as an enum
# patch:
# -                                               "operation": {"type": "string", "enum": list(OPERATIONS)}},
# +                                               "operation": {"type": "string"}},

# %% tags=["solution"]
box = MyToolbox()
OPERATIONS = {"add": lambda a, b: a + b, "subtract": lambda a, b: a - b,
              "multiply": lambda a, b: a * b, "divide": lambda a, b: a / b}

def search_notes(keyword):
    found = [f"{i}: {title}" for i, (title, _) in NOTES.items() if keyword.lower() in title.lower()]
    return "\n".join(found) if found else f"no notes found for {keyword!r}"

def read_note(note_id):
    if note_id not in NOTES:
        raise ValueError(f"no note with id {note_id!r}; ids are {', '.join(NOTES)}")
    return NOTES[note_id][1]

def calculate(a, b, operation):
    if operation == "divide" and b == 0:
        raise ValueError("cannot divide by zero; use a b other than 0")
    if operation not in OPERATIONS:
        raise ValueError(f"unknown operation {operation!r}; use one of {', '.join(OPERATIONS)}")
    return OPERATIONS[operation](a, b)

box.register("search_notes", "Find notes whose title contains a keyword, ignoring case. Returns 'id: title' lines.",
             {"type": "object", "properties": {"keyword": {"type": "string", "description": "a word from the title, such as visits"}},
              "required": ["keyword"]},
             search_notes)
box.register("read_note", "Return the text of one note by its id, such as n1.",
             {"type": "object", "properties": {"note_id": {"type": "string"}}, "required": ["note_id"]},
             read_note)
box.register("calculate", "Apply one operation to two numbers and return the result.",
             {"type": "object", "properties": {"a": {"type": "number"}, "b": {"type": "number"},
                                               "operation": {"type": "string", "enum": list(OPERATIONS)}},
              "required": ["a", "b", "operation"]},
             calculate)

# %% [markdown]
# Now the eight requests, run directly through your toolbox, with the answers printed:

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
    answers.append(attempt(box.run, name, json.dumps(arguments)))
    print(f"{number}. {name}({arguments}) -> {answers[-1]}")
tool_list = attempt(box.schemas)   # kept now: Task 2 adds a fourth tool
print(attempt(box.run, "search_notes", '{"keyword": "STAFF"}'))

# %% tags=["check"]
from looplab import Case, Said, compare, generate, reference


def tools_answer(toolbox, name, arguments):
    """What the toolbox answers: the text, or for an error whether it names what the lesson asks."""
    text = toolbox.run(name, json.dumps(arguments))
    if not str(text).startswith("error:"):
        return {"the answer": text}
    named = {"read_note": [arguments.get("note_id", "")] + ["n1", "n2", "n3"], "calculate": [
        "zero" if arguments.get("operation") == "divide" else str(arguments.get("operation"))]}.get(name, [])
    return {"the answer": Said(repr(text)[:90], ("error", all(str(w) in text for w in named)))}


def tools_listed(toolbox):
    return [(s["function"]["name"], list(s["function"]["parameters"].get("properties", {})),
             sorted(s["function"]["parameters"].get("required", [])),
             sorted(s["function"]["parameters"]["properties"].get("operation", {}).get("enum", [])))
            for s in toolbox.schemas()[:3]]


TOOL_REQUESTS = generate(lambda d: Case(d.pick([
    ("search_notes", {"keyword": d.pick(["visits", "STAFF", "Opening", "parking", "branch", "", "e"])}),
    ("read_note", {"note_id": d.pick(["n1", "n6", "n9", "N1", "", "n10"])}),
    ("calculate", {"a": d.pick([6, -2, 0.5]), "b": d.pick([3, 0, 1, -1]),
                   "operation": d.pick(["add", "subtract", "multiply", "divide", "power", "Add"])})])),
    count=90, edges=[Case(("search_notes", {"keyword": "visits"}), "search_notes('visits')"),
                     *[Case(("calculate", {"a": 6, "b": b, "operation": "divide"}), f"6 divided by {b}") for b in (0, 1, -1)]])

# given: your lesson-2 toolbox returned text for the eight requests, none raised
assert len(answers) == 8 and all(isinstance(a, str) and not a.startswith("raised") for a in answers), (
    "every request must return a string: " + "; ".join(a for a in answers if str(a).startswith("raised")))
# request 1 finds the two visit notes
assert "n1" in answers[0] and "n2" in answers[0] and not answers[0].startswith("error:"), (
    f"search_notes('visits') returned {answers[0]!r}; it should list n1 and n2")
# the search ignores case
assert "n5" in attempt(box.run, "search_notes", '{"keyword": "STAFF"}'), (
    f"search_notes('STAFF') returned {attempt(box.run, 'search_notes', json.dumps({'keyword': 'STAFF'}))!r}; "
    "compare the keyword and the title in lower case")
# request 2 says no note matched 'parking'
assert "parking" in answers[1] and not answers[1].startswith("error:") and "n1" not in answers[1], (
    f"search_notes('parking') returned {answers[1]!r}; say that nothing matched, naming the keyword")
# request 3 returns the text of n2
assert answers[2] == NOTES["n2"][1], f"read_note('n2') returned {answers[2]!r}"
# requests 4, 6, 7 and 8 return errors, and requests 1, 3 and 5 do not
assert all(answers[i].startswith("error:") for i in (3, 5, 6, 7)) and not any(
    answers[i].startswith("error:") for i in (0, 2, 4)), (
    f"requests 4, 6, 7 and 8 should start with 'error:' and 1, 3 and 5 should not; got "
    f"{[answers[i][:60] for i in range(8)]}")
# request 4's error names n9 and at least three existing ids
assert "n9" in answers[3] and sum(i in answers[3] for i in NOTES) >= 3 and "NotImplemented" not in answers[3], (
    f"read_note('n9') returned {answers[3]!r}; name the id and list the ids that exist")
# request 5 computes 1240 - 980
assert answers[4] in ("260", "260.0"), f"calculate(1240, 980, subtract) returned {answers[4]!r}"
# request 6's error is about the division by zero, request 7's about the operation
assert "zero" in answers[5] and "power" in answers[6], (
    f"calculate(14, 0, divide) returned {answers[5]!r} and calculate(2, 3, power) {answers[6]!r}; say "
    "what went wrong: the zero, the unknown operation")
# your three tools are listed with the lesson's names, inputs, required inputs and operations
assert (listed_found := compare(box, reference("box"), [Case((), "the tool list")],
                                observe=lambda toolbox: {"the tools": tools_listed(toolbox)})), listed_found
# the tool list has three tools, each with parameters and a description that says what it returns
assert isinstance(tool_list, list) and len(tool_list) == 3 and all(
    s["function"].get("name") and len(str(s["function"].get("description")).split()) > 4
    and s["function"].get("parameters") for s in tool_list), (
    f"the tool list is {[(s['function'].get('name'), s['function'].get('description')) for s in tool_list]}; "
    "register exactly the three tools, each description saying what the tool returns")
# your three tools answer as the lesson's do, for many requests (any case, unknown ids, every operation)
assert (tools_found := compare(box, reference("box"), TOOL_REQUESTS, observe=tools_answer)), tools_found
# the operation enum has exactly four values
assert sorted(tool_list[2]["function"]["parameters"]["properties"]["operation"].get("enum", [])) == [
    "add", "divide", "multiply", "subtract"], (
    f"the operation schema is {tool_list[2]['function']['parameters']['properties']['operation']}; "
    "list the four operations as an enum")

# %% [markdown]
# ## Task 2: the loop and four runs
#
# The loop is yours from lesson 4: `my_run_agent(task, model_fn, toolbox, max_steps=6,
# approve=None)` returns `(result, messages)`, where `result` is `{"answer", "steps",
# "stopped"}`. On the test bench first, with prepared replies in every mode: two calls in one
# reply, a tool that does not exist, a refusal in the middle of a reply, a yes from `approve`, a
# model whose network is down.

# %%
def pairing_holds(messages):
    """Every call answered exactly once, by a tool message after its assistant message and before the next."""
    open_ids, answered = set(), []
    for message in messages:
        if message["role"] == "assistant":
            if open_ids:
                return False
            open_ids = {c["id"] for c in message.get("tool_calls") or []}
        elif message["role"] == "tool":
            if message["tool_call_id"] not in open_ids:
                return False
            open_ids.discard(message["tool_call_id"])
            answered.append(message["tool_call_id"])
        elif open_ids:
            return False
    return not open_ids and len(answered) == len(set(answered))

def bench_run(replies, max_steps=6, approve=None):
    """Your loop on the test bench: (its result, or what it raised; the messages it kept)."""
    ran = attempt(my_run_agent, "test", scripted(replies), bench, max_steps, approve)
    return ran if isinstance(ran, tuple) and len(ran) == 2 else (ran, [])

LOOP_BENCH = {
    "two calls": bench_run([calls(("divide", {"a": 6, "b": 3}, "c1"), ("divide", {"a": 1, "b": 4}, "c2")), final("2 and 0.25")]),
    "refused mid-reply": bench_run([calls(("divide", {"a": 6, "b": 3}, "c1"), ("wipe", {}, "c2"), ("divide", {"a": 1, "b": 1}, "c3"))]),
    "approved": bench_run([call("wipe", id="c1"), final("wiped")], approve=lambda name: name == "wipe"),
    "step limit": bench_run([call("divide", id=f"c{i}", a=i, b=1) for i in range(1, 5)], max_steps=3),
    "network down": bench_run([failing("network down")]),
}
for label, (result, messages) in LOOP_BENCH.items():
    print(f"{label:17} -> {result}")
    print(" " * 21, [(m["role"], m.get("tool_call_id"), m.get("content")) for m in messages[1:]])

# %% tags=["check"]
# given: your lesson-4 loop ends each bench run with the stop it should
assert [r.get("stopped") if isinstance(r, dict) else r for r, _ in LOOP_BENCH.values()] == [
    "final", "needs_person", "final", "step_limit", "error"], (
    f"the bench runs stopped {[r.get('stopped') if isinstance(r, dict) else r for r, _ in LOOP_BENCH.values()]}; "
    "expected final, needs_person, final, step_limit, error: see lesson 4")
# given: your lesson-4 loop answers every call once, the refused one and the one after it included
assert all(pairing_holds(messages) for _, messages in LOOP_BENCH.values()) and [
    m.get("tool_call_id") for m in LOOP_BENCH["refused mid-reply"][1] if m["role"] == "tool"] == ["c1", "c2", "c3"], (
    "a tool call went unanswered, or a tool message answers no call: "
    + ", ".join(label for label, (_, messages) in LOOP_BENCH.items() if not pairing_holds(messages))
    + "; see lesson 4")

# %% [markdown]
# ### Exercise 2: the four runs
#
# Add one more tool: `delete_note(note_id)`, which removes a note and returns `deleted`, and
# which must **need a person's approval**. Then prepare four runs (the cell after yours runs
# them with your loop and prints each result with the number of messages it kept):
#
# - **Run A**: "Which branch had more April visits, and by how many?", `max_steps` 6. Replies: a
#   call to `search_notes` with "visits"; `read_note` n1; `read_note` n2; `calculate` with 1310,
#   1105, subtract; then the text "Eastside, by 205."
# - **Run B**: the same replies, with `max_steps` 3.
# - **Run C**: "Remove the Eastside staff note.", `max_steps` 6, with no approval: replies
#   `search_notes` "staff", `delete_note` n5, then "Done."
# - **Run D**: a model that raises an exception saying "network down".
#
# With a live model your model chooses its own steps (Run A may take more or fewer); the checks
# then hold it only to what a real model can promise.

# %% tags=["exercise"]
def delete_note(note_id):
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

# %% [markdown] tags=["hint"]
# Compare `REPLIES_A` with Run A's list above, reply by reply; then read `register`'s last
# parameter; then make a model that fails.

# %% [markdown] tags=["hint"]
# Run A lacks its calculation step, just before the final text. `register` has a flag for tools
# that need a person; Run B needs a smaller limit than Run A's; `failing(...)` is a model that
# raises the text you give it.

# %% [markdown] tags=["hint"]
# ```python
# box.register("delete_note", "Delete one note by id, permanently.",
#              {"type": "object", "properties": {"note_id": {"type": "string"}}, "required": ["note_id"]},
#              delete_note, needs_approval=True)
#
# REPLIES_A = [call("search_notes", keyword="visits"), call("read_note", note_id="n1"),
#              call("read_note", note_id="n2"), call("calculate", a=1310, b=1105, operation="subtract"),
#              final("Eastside, by 205.")]
# MAX_STEPS_B = 3
# MODEL_D = failing("network down")
# ```

# %% tags=["wrong"]
# wrong: prepares the runs but registers delete_note without needs_approval
# expect: register it with needs_approval=True
# patch:
# -             delete_note, needs_approval=True)
# +             delete_note)

# %% tags=["wrong"]
# wrong: Run D's model fails with another message
# expect: failing('network down')
# replaces: MODEL_D
MODEL_D = failing("timed out")  # fails with a live model too: that is the point of Run D

# %% tags=["solution"]
def delete_note(note_id):
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
MODEL_D = failing("network down")  # fails with a live model too: that is the point of Run D

# %% [markdown] tags=["predict"]
# Run C asks to delete n5, and no one is there to say yes. After the run, what does
# `read_note("n5")` give?
#
# - [ ] an `error:` text: the note was deleted before the loop noticed
# - [x] "Staff count: 14.": the loop answered the call with a refusal and stopped
# - [ ] nothing: the run raised an exception
#
# A tool that needs approval is never called without a yes: the loop answers its call with an
# `error:` text, so the model's request still has its answer, and stops with `needs_person`.

# %% [markdown]
# The four runs, each through your loop with a fresh list of messages:

# %%
APRIL = "Which branch had more April visits, and by how many?"
runs = {}
for label, task, model, steps in [("A", APRIL, pick_model(REPLIES_A), 6),
                                  ("B", APRIL, pick_model(REPLIES_A), MAX_STEPS_B),
                                  ("C", "Remove the Eastside staff note.", pick_model(REPLIES_C), 6),
                                  ("D", APRIL, MODEL_D, 6)]:
    ran = attempt(my_run_agent, task, model, box, max_steps=steps, approve=None)
    runs[label] = ran if isinstance(ran, tuple) else ({"stopped": ran, "answer": None}, [])

for label, (result, messages) in runs.items():
    print(f"Run {label}: {result} | {len(messages)} messages")
print("n5 afterwards:", attempt(box.run, "read_note", '{"note_id": "n5"}'))
tools_called_in_A = [c["function"]["name"] for m in runs["A"][1] for c in m.get("tool_calls") or []]

# %% tags=["check"]
def as_steps(replies):
    """Prepared replies as (tool, arguments) or the final text, ids left out (they are made up)."""
    return [[(c["function"]["name"], json.loads(c["function"]["arguments"])) for c in r["tool_calls"]]
            if r.get("tool_calls") else r.get("content") for r in replies] if isinstance(replies, list) else replies


def the_runs(parts, note_id):
    """delete_note on a copy of the notes (approval, result, notes left), the replies, the step limit, model D."""
    toolbox, replies_a, replies_c, steps_b, model_d = parts
    kept = dict(NOTES)
    try:
        said = toolbox.run("delete_note", json.dumps({"note_id": note_id}))
        left = sorted(NOTES)
    finally:
        NOTES.clear()
        NOTES.update(kept)
    try:
        model_d([{"role": "user", "content": "hi"}], [])
        d_says = "it answered"
    except Exception as exc:
        d_says = Said(f"raised {exc}", "network down" in str(exc))
    return {"delete_note needs approval": toolbox.needs_approval("delete_note"),
            "delete_note answers": said if not str(said).startswith("error:") else "error", "the notes left": left,
            "Run A's replies": as_steps(replies_a), "Run C's replies": as_steps(replies_c),
            "Run B's max_steps": steps_b, "Run D's model": d_says}


DELETES = [Case((n,), f"delete_note({n!r})") for n in ("n6", "n9")]
# your delete_note, four runs and their settings are the lesson's
assert (runs_found := compare((box, REPLIES_A, REPLIES_C, MAX_STEPS_B, MODEL_D), tuple(reference(name) for name in (
    "box", "REPLIES_A", "REPLIES_C", "MAX_STEPS_B", "MODEL_D")), DELETES, observe=the_runs)), runs_found
# Run A returns final with exactly the prepared text, after five steps
expect((runs["A"][0].get("stopped"), runs["A"][0].get("answer"), runs["A"][0].get("steps")) == ("final", "Eastside, by 205.", 5),
       f"Run A gave {runs['A'][0]}; with its five replies it should end 'final' with 'Eastside, by 205.' after "
       "5 steps: is one of the replies missing?",
       observed=f"Run A ended {runs['A'][0].get('stopped')!r} after {runs['A'][0].get('steps')} steps with "
                f"{runs['A'][0].get('answer')!r}; the prepared replies take 5 steps to 'Eastside, by 205.'")
# Run A searched, read two notes and calculated before answering
expect(tools_called_in_A == ["search_notes", "read_note", "read_note", "calculate"],
       f"Run A called {tools_called_in_A}; its replies are: search_notes 'visits', read_note n1, "
       "read_note n2, calculate 1310 - 1105, then the text",
       observed=f"the model called {', '.join(tools_called_in_A) or 'no tool'}; the prepared replies call "
                "search_notes, read_note twice, then calculate")
# Run B stops at the step limit with no answer, after max_steps steps
expect((runs["B"][0].get("stopped"), runs["B"][0].get("answer"), runs["B"][0].get("steps")) == ("step_limit", None, 3),
       f"Run B gave {runs['B'][0]}; this run expects 'step_limit' with no answer: is its max_steps 3?",
       observed=f"Run B ended {runs['B'][0].get('stopped')!r} after {runs['B'][0].get('steps')} steps "
                f"(max_steps {MAX_STEPS_B}); the prepared replies still want tools at step 3")
# Run C stops for a person
expect(runs["C"][0].get("stopped") == "needs_person",
       f"Run C gave {runs['C'][0]}; register delete_note with needs_approval=True",
       observed=f"Run C ended {runs['C'][0].get('stopped')!r}; the prepared replies ask to delete n5")
# n5 is still readable after Run C, and delete_note needs approval
assert box.needs_approval("delete_note") and not str(attempt(box.run, "read_note", '{"note_id": "n5"}')).startswith("error:"), (
    f"n5 is {'gone' if 'n5' not in NOTES else 'there'} and delete_note "
    f"{'needs' if box.needs_approval('delete_note') else 'does not need'} approval; register it with "
    "needs_approval=True")
# Run D stops with error, and its detail says network down
assert runs["D"][0].get("stopped") == "error" and "network down" in runs["D"][0].get("detail", ""), (
    f"Run D gave {runs['D'][0]}; use a model that raises: failing('network down')")
# given: in all four runs, your lesson-4 loop answers every tool call once
assert all(pairing_holds(messages) for _, messages in runs.values()), (
    "a tool message is not paired with its call in runs "
    + ", ".join(label for label, (_, messages) in runs.items() if not pairing_holds(messages)))

# %%
from looplab import chat_with
from looplab.models.rules import rule_model
chat_with(lambda task: my_run_agent(task, pick_model(rule_model), box)[0], name="research helper",
          suggestions=["read notes n1 and n2", "what is 1310 - 1105"])

# %% [markdown]
# ## What you have, and what part 2 adds
#
# One agent, from your own parts: a toolbox that never raises, four tools on it, and a loop
# that ends each run with a stop you can name, even when the model fails or a person is needed.
# Two things are still missing: every run sends its whole history, which a long run cannot
# afford, and `delete_note` needs a person only because you decided so for one tool. Part 2,
# [lesson 16b](#/16b-project-memory-and-approvals), gives the helper your memory from lesson 8
# and turns the question "which tools need a person?" into a table with reasons.
