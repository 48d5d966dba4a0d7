# %% [markdown]
# # 2 · Tools: a name, a description, a schema and a function
#
# A model can only write text. To look something up, compute exactly or change anything in the
# world, it needs **tools**: functions your program offers and runs on its behalf. A tool has
# four parts:
#
# 1. a **name**, such as `search_notes`;
# 2. a **description**: what it does, when to use it, what it returns;
# 3. a **parameter schema**: JSON Schema naming its inputs, their types and which are required;
# 4. the **function**: the code that does the work.
#
# The model is shown the first three and never the fourth. Like the label on a drawer, the
# name and description must tell a newcomer what is inside without opening it.

# %%
import json
from typing import Literal

from looplab import Toolbox, ToolError

NOTES = {
    "n1": ("Eastside branch: visits", "March visits: 1240. April visits: 1310."),
    "n2": ("Westside branch: visits", "March visits: 980. April visits: 1105."),
    "n3": ("Eastside branch: opening days", "Open Monday to Saturday."),
    "n4": ("Westside branch: opening days", "Open Monday to Friday."),
    "n5": ("Eastside branch: staff", "Staff count: 14."),
    "n6": ("Westside branch: staff", "Staff count: 9."),
}

# %% [markdown]
# ## A vague tool, and a clear one
#
# Here is a first attempt. Read it as the model would, knowing nothing else:

# %%
vague = Toolbox()
vague.register("notes", "Does stuff with notes.",
               {"type": "object", "properties": {"text": {"type": "string"}}},
               lambda text: "...")
print(json.dumps(vague.schemas(), indent=2))

# %% [markdown]
# What is `text` for: a word, a sentence, a note id? What comes back? Asked for the March visit
# figures, a model given this tool will guess, and guess differently each time: it might send
# "visits", a whole sentence, or "n1". The code could be perfect; **the description is broken.**
#
# A good test: could a new colleague use the tool with nothing but its name, description and
# schema? Make the implicit explicit, name inputs without ambiguity, and say what comes back.

# %%
box = Toolbox()

def search_notes(keyword):
    found = [f"{note_id}: {title}" for note_id, (title, _) in NOTES.items()
             if keyword.lower() in title.lower()]
    return "\n".join(found) if found else f"no notes found for {keyword!r}"

box.register(
    "search_notes",
    "Find notes whose title contains a keyword (ignoring case). Returns one 'id: title' line per note.",
    {"type": "object",
     "properties": {"keyword": {"type": "string",
                                "description": 'one word from a note title, such as "visits"'}},
     "required": ["keyword"]},
    search_notes,
)
print(box.run("search_notes", '{"keyword": "visits"}'))
print(box.run("search_notes", '{"keyword": "parking"}'))

# %% [markdown]
# Notice the second call: a search that finds nothing says so, and names the keyword. An empty
# list would leave the model wondering whether the search ran at all.
#
# `run(name, arguments_json)` is how the program runs a tool: the arguments arrive as **JSON
# text**, because that is what a model writes.
#
# ## Schemas from Python
#
# Writing JSON Schema by hand gets tedious. `@box.tool` builds it from the function's type
# hints and docstring: the first line becomes the description, an `Args:` section describes the
# parameters, and parameters without a default are required.

# %%
@box.tool
def word_count(text: str, unique: bool = False) -> int:
    """Count the words in a text.

    Args:
        text: the text to count, as it is
        unique: count each different word once
    """
    words = text.lower().split()
    return len(set(words)) if unique else len(words)

print(json.dumps(box.schemas()[-1], indent=2))
print(box.run("word_count", '{"text": "red green red"}'), box.run("word_count", '{"text": "red green red", "unique": true}'))

# %% [markdown]
# ## The enum guard
#
# For arithmetic it is tempting to take a free-form expression and evaluate it. Don't: then the
# program runs whatever text the model invented. Offer a fixed list of operations instead. An
# **enum** in the schema limits an input to values you name, and the toolbox refuses anything
# else *before your function runs*. In Python, `Literal[...]` becomes an enum.
#
# ## Errors are text the model can act on
#
# `Toolbox.run` never raises. Whatever goes wrong (an unknown tool, arguments that are not JSON,
# a missing or mistyped argument, the function itself failing) comes back as a string starting
# with `error:` that says **what was wrong and what would work**. The model reads it on its next
# step and can fix its call. Compare a form that says "Error 7" with one that says "the date
# must look like 2024-03-31".

# %%
for name, arguments in [
    ("serch_notes", '{"keyword": "visits"}'),   # a typo in the name
    ("search_notes", '{keyword: visits}'),       # not JSON
    ("search_notes", '{}'),                      # a required argument missing
    ("search_notes", '{"keyword": 42}'),         # the wrong type
    ("search_notes", '{"keyword": "x", "limit": 3}'),  # an argument that does not exist
]:
    print(f"{name}({arguments}) -> {box.run(name, arguments)}")

# %% [markdown]
# Inside a tool, raise `ToolError("...")` to send the model a plain message of your own. Any
# other exception is caught too, and reported with its type.
#
# ## Small outputs, few tools, little power
#
# A tool's result goes into the conversation, and the context window is finite: keep results
# short (filter, paginate, cut). The toolbox cuts very long results and says how much it cut.
#
# Offer **few** tools and give each **little power**. OWASP's list of risks for model
# applications calls the opposite *excessive agency*: a research helper needs to read notes, it
# does not need to delete them. Lesson 10 adds a person's approval for the tools that do change
# things.
#
# Some APIs offer a **strict mode**, where the model's arguments are guaranteed to match the
# schema. It asks for every property to be listed as required (optional ones may be `null`) and
# for `additionalProperties: false`. `schemas(strict=True)` writes that variant for you:

# %%
print(json.dumps(box.schemas(strict=True)[-1]["function"], indent=2))

# %% [markdown]
# ## Exercise 1: the enum guard
#
# `calculate` below accepts any string as `operation`, so `"power"` reaches the function and
# fails with a `KeyError` the model cannot learn much from. Change the type hint of `operation`
# to `Literal["add", "subtract", "multiply", "divide"]`, so the schema lists the four operations
# and the toolbox itself answers with the allowed values. Also make a division by zero raise
# `ToolError` with a clear message.

# %% tags=["exercise"]
calc = Toolbox()

@calc.tool
def calculate(a: float, b: float, operation: str) -> float:
    "Apply one operation to two numbers and return the result."
    return {"add": a + b, "subtract": a - b, "multiply": a * b,
            "divide": a / b if b else None}[operation]

# %% tags=["solution"]
calc = Toolbox()

@calc.tool
def calculate(a: float, b: float, operation: Literal["add", "subtract", "multiply", "divide"]) -> float:
    "Apply one operation to two numbers and return the result."
    if operation == "divide" and b == 0:
        raise ToolError("cannot divide by zero; use a non-zero b")
    return {"add": a + b, "subtract": a - b, "multiply": a * b,
            "divide": a / b if b else None}[operation]

# %%
power = calc.run("calculate", '{"a": 2, "b": 3, "operation": "power"}')
by_zero = calc.run("calculate", '{"a": 14, "b": 0, "operation": "divide"}')
print(power)
print(by_zero)
print(calc.run("calculate", '{"a": 1240, "b": 980, "operation": "subtract"}'))

# %% [markdown]
# ## Exercise 2: an error that helps
#
# `read_note` fails on an unknown id with a bare `KeyError`. Make it raise `ToolError` with a
# message that names the id asked for **and** lists the ids that exist, for example
# `no note with id 'n9'; ids are n1, n2, n3, n4, n5, n6`.

# %% tags=["exercise"]
@box.tool
def read_note(note_id: str) -> str:
    "Return the text of one note by its id, such as n1."
    return NOTES[note_id][1]

# %% tags=["solution"]
@box.tool
def read_note(note_id: str) -> str:
    "Return the text of one note by its id, such as n1."
    if note_id not in NOTES:
        raise ToolError(f"no note with id {note_id!r}; ids are {', '.join(NOTES)}")
    return NOTES[note_id][1]

# %%
missing_note = box.run("read_note", '{"note_id": "n9"}')
print(missing_note)

# %% [markdown]
# ## Exercise 3: describe it well
#
# Rewrite the vague `notes` tool so a model could use it without guessing: name it
# `search_notes`, call its input `keyword`, describe the input (with an example), and make the
# tool's description say what it searches and what it returns.

# %% tags=["exercise"]
mine = Toolbox()
mine.register("notes", "Does stuff with notes.",
              {"type": "object", "properties": {"text": {"type": "string"}}},
              lambda text: search_notes(text))

# %% tags=["solution"]
mine = Toolbox()
mine.register("search_notes",
              "Find notes whose title contains a keyword. Returns the id and title of each match.",
              {"type": "object",
               "properties": {"keyword": {"type": "string",
                                          "description": 'a word from a note title, such as "staff"'}},
               "required": ["keyword"]},
              lambda keyword: search_notes(keyword))

# %% tags=["check"]
# the calculate schema lists exactly four operations
schema = calc.schemas()[0]["function"]["parameters"]["properties"]["operation"]
assert sorted(schema.get("enum", [])) == ["add", "divide", "multiply", "subtract"], (
    f"the schema of operation is {schema}; type it as Literal['add', 'subtract', 'multiply', "
    "'divide'] so the model sees the four choices")
# an operation outside the four is refused with the allowed values
assert power.startswith("error:") and "add, subtract, multiply, divide" in power, (
    f"calculate(2, 3, 'power') returned {power!r}; with the enum in place the toolbox answers "
    "with the allowed operations")
# a division by zero returns a clear error
assert by_zero.startswith("error:") and "zero" in by_zero, (
    f"calculate(14, 0, 'divide') returned {by_zero!r}; raise ToolError('cannot divide by zero ...')")
# the error for an unknown note names the id asked for
assert missing_note.startswith("error:") and "n9" in missing_note, (
    f"read_note('n9') returned {missing_note!r}; the message should name 'n9'")
# the error for an unknown note lists the ids that exist
assert sum(i in missing_note for i in NOTES) >= 3 and "KeyError" not in missing_note, (
    f"read_note('n9') returned {missing_note!r}; list the ids that do exist, such as n1, n2, n3 "
    "(raise ToolError, not KeyError)")
# the rewritten tool is called search_notes and takes a keyword
fn = mine.schemas()[0]["function"]
assert fn["name"] == "search_notes" and list(fn["parameters"]["properties"]) == ["keyword"], (
    f"the tool is {fn['name']!r} with inputs {list(fn['parameters']['properties'])}; name it "
    "search_notes with one input, keyword")
# the keyword is described and required, the description says what comes back
assert (fn["parameters"]["properties"]["keyword"].get("description")
        and fn["parameters"].get("required") == ["keyword"]
        and len(fn["description"].split()) >= 8 and "return" in fn["description"].lower()), (
    "describe the keyword input (with an example), list it as required, and say in the tool's "
    "description what it searches and what it returns")
# the rewritten tool still works
assert "n5" in mine.run("search_notes", '{"keyword": "staff"}'), "search_notes('staff') should find n5"
