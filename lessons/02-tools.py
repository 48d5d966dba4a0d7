# ---
# jupyter:
#   looplab:
#     core: the Toolbox, the tools every later agent calls, with errors the model can act on
# ---

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
# name and description must tell a newcomer what is inside without opening it. In this lesson
# you build the box that holds tools, then fill it with three good ones.

# %%
import json

from looplab import BRANCH_NOTES

NOTES = dict(BRANCH_NOTES)  # lesson 1's six notes, id -> (title, text); this lesson's own copy


def attempt(function, *args):
    """Call the learner's code; an exception becomes text the checks can read."""
    try:
        return function(*args)
    except Exception as exc:
        return f"raised {type(exc).__name__}: {exc}"


def try_run(box, name, arguments_json):
    """box.run(...) as text, whatever it did: its result, or what it raised or returned instead."""
    result = attempt(box.run, name, arguments_json)
    return result if isinstance(result, str) else f"returned {type(result).__name__} {result!r}, not text"

# %% [markdown]
# ## What the model is sent
#
# A model is told about its tools in a list, one entry a tool, in the shape chat APIs agree on.
# Here is a first attempt at a notes tool. Read it as the model would, knowing nothing else:

# %%
vague = {"type": "function",
         "function": {"name": "notes", "description": "Does stuff with notes.",
                      "parameters": {"type": "object", "properties": {"text": {"type": "string"}}}}}
print(json.dumps(vague, indent=2))

# %% [markdown]
# What is `text` for: a word, a sentence, a note id? What comes back? Asked for the March visit
# figures, a model given this tool will guess, and guess differently each time: it might send
# "visits", a whole sentence, or "n1". The code could be perfect; **the description is broken.**
# A good test: could a new colleague use the tool with nothing but its name, description and
# schema? You will fix this one in exercise 2.
#
# ## The toolbox
#
# The program keeps its tools in a **toolbox** with four jobs:
#
# - `register(name, description, parameters, func, needs_approval=False)` adds a tool;
# - `schemas()` lists the tools in the shape above, in the order they were registered;
# - `needs_approval(name)` says whether a person must approve the tool first (lesson 4 uses it);
# - `run(name, arguments_json)` runs one. The arguments arrive as **JSON text**, because that is
#   what a model writes: `'{"keyword": "visits"}'`.
#
# ## Errors are text the model can act on
#
# `run` must **never raise**. A model asks for things that do not exist, writes broken JSON,
# forgets an argument, and tools fail. If `run` raised, the whole program would stop over a typo.
# Instead every failure comes back as a string starting with `error:` that says **what was
# wrong and what would work**. The model reads it on its next step and fixes its call.
# Compare a form that says "Error 7" with one that says "the date must look like 2024-03-31":
#
# | what went wrong | a message that helps |
# | --- | --- |
# | an unknown tool | `error: no tool named 'serch_notes'; tools are search_notes, read_note` |
# | arguments that are not JSON | `error: the arguments are not valid JSON; send an object such as {"keyword": ...}` |
# | a missing or unknown argument | `error: search_notes takes keyword (required: keyword)` |
# | the tool itself failed | `error: read_note failed: no note with id 'n9'; ids are n1, ..., n6` |
#
# Lesson 3 meets a second audience for failures: programs. A test or a dashboard wants a short,
# stable **code** such as `unknown_tool` that it can compare and count. So: **codes for
# programs, sentences for the model.** The text you write here is the sentence.
#
# ## Exercise 1: build the toolbox
#
# Complete `MyToolbox`. `register` is done. Write `schemas()`, `needs_approval(name)` (False for
# a name it does not know, not a `KeyError`) and `run(name, arguments_json)`, which always
# returns text: the tool's result as a string, or an `error:` message for an unknown tool, bad
# JSON, a missing or unknown argument, or a tool that raised.

# %% tags=["exercise"]
class MyToolbox:
    """Tools the model may ask for: register them, list their schemas, run one by name."""

    def __init__(self):
        self.tools = {}  # name -> {"description", "parameters", "func", "needs_approval"}

    def register(self, name, description, parameters, func, needs_approval=False):
        self.tools[name] = {"description": description, "parameters": parameters,
                            "func": func, "needs_approval": needs_approval}

    def schemas(self):
        """[{"type": "function", "function": {"name", "description", "parameters"}}, ...] in order."""
        return []

    def needs_approval(self, name):
        """True if the tool was registered with needs_approval=True; False for any other name."""
        return self.tools[name]["needs_approval"]

    def run(self, name, arguments_json):
        """Run a tool by name; always return text, 'error: ...' saying what would work."""
        arguments = json.loads(arguments_json)
        return str(self.tools[name]["func"](**arguments))

# %% [markdown] tags=["hint"]
# Start with the two short methods: what must `schemas()` keep from each registration, and in
# what order? What should `needs_approval` say about a name nobody registered? Then take `run`'s
# failures in the order they can happen: the name, the JSON, the arguments, the call itself. Each
# one returns its message instead of raising.

# %% [markdown] tags=["hint"]
# Where each failure shows itself: `name not in self.tools`; `json.loads` raises
# `json.JSONDecodeError` (and may give a list, not a dict); the tool's `parameters` has
# `"properties"` (the arguments it takes) and `"required"`: compare them with the keys of the
# arguments **before** calling; wrap the call in `try` / `except Exception as exc` and put
# `exc` in the message. Name what would work: the tools there are, the arguments it takes.

# %% [markdown] tags=["hint"]
# The three methods:
#
# ```python
# def schemas(self):
#     return [{"type": "function",
#              "function": {"name": name, "description": t["description"], "parameters": t["parameters"]}}
#             for name, t in self.tools.items()]
#
# def needs_approval(self, name):
#     return name in self.tools and self.tools[name]["needs_approval"]
#
# def run(self, name, arguments_json):
#     if name not in self.tools:
#         return f"error: no tool named {name!r}; tools are {', '.join(self.tools) or 'none'}"
#     tool = self.tools[name]
#     takes = tool["parameters"].get("properties", {})
#     required = tool["parameters"].get("required", [])
#     try:
#         arguments = json.loads(arguments_json or "{}")
#     except json.JSONDecodeError as exc:
#         example = ", ".join(f'"{k}": ...' for k in takes)
#         return f"error: the arguments are not valid JSON ({exc.msg}); send an object such as {{{example}}}"
#     if not isinstance(arguments, dict) or set(required) - set(arguments) or set(arguments) - set(takes):
#         return (f"error: {name} takes {', '.join(takes) or 'no arguments'} "
#                 f"(required: {', '.join(required) or 'none'})")
#     try:
#         return str(tool["func"](**arguments))
#     except Exception as exc:
#         return f"error: {name} failed: {exc}"
# ```

# %% tags=["wrong"]
# wrong: needs_approval looks the name up without checking it is registered
# expect: check that the name is registered
# patch:
# -        return name in self.tools and self.tools[name]["needs_approval"]
# +        return self.tools[name]["needs_approval"]

# %% tags=["wrong"]
# wrong: no try/except around the tool's call, so a tool that raises makes run raise
# expect: run raised for tool fails
# patch:
# -        try:
# -            return str(tool["func"](**arguments))
# -        except Exception as exc:
# -            return f"error: {name} failed: {exc}"
# +        return str(tool["func"](**arguments))

# %% tags=["wrong"]
# wrong: never compares the arguments with the schema, leaving it to the function call to fail
# expect: name the arguments echo takes
# patch:
# -        if not isinstance(arguments, dict) or set(required) - set(arguments) or set(arguments) - set(takes):
# +        if not isinstance(arguments, dict):

# %% tags=["solution"]
class MyToolbox:
    """Tools the model may ask for: register them, list their schemas, run one by name."""

    def __init__(self):
        self.tools = {}  # name -> {"description", "parameters", "func", "needs_approval"}

    def register(self, name, description, parameters, func, needs_approval=False):
        self.tools[name] = {"description": description, "parameters": parameters,
                            "func": func, "needs_approval": needs_approval}

    def schemas(self):
        """[{"type": "function", "function": {"name", "description", "parameters"}}, ...] in order."""
        return [{"type": "function",
                 "function": {"name": name, "description": t["description"], "parameters": t["parameters"]}}
                for name, t in self.tools.items()]

    def needs_approval(self, name):
        """True if the tool was registered with needs_approval=True; False for any other name."""
        return name in self.tools and self.tools[name]["needs_approval"]

    def run(self, name, arguments_json):
        """Run a tool by name; always return text, 'error: ...' saying what would work."""
        if name not in self.tools:
            return f"error: no tool named {name!r}; tools are {', '.join(self.tools) or 'none'}"
        tool = self.tools[name]
        takes = tool["parameters"].get("properties", {})
        required = tool["parameters"].get("required", [])
        try:
            arguments = json.loads(arguments_json or "{}")
        except json.JSONDecodeError as exc:
            example = ", ".join(f'"{k}": ...' for k in takes)
            return f"error: the arguments are not valid JSON ({exc.msg}); send an object such as {{{example}}}"
        if not isinstance(arguments, dict) or set(required) - set(arguments) or set(arguments) - set(takes):
            return (f"error: {name} takes {', '.join(takes) or 'no arguments'} "
                    f"(required: {', '.join(required) or 'none'})")
        try:
            return str(tool["func"](**arguments))
        except Exception as exc:
            return f"error: {name} failed: {exc}"

# %% [markdown]
# ## Trying your toolbox
#
# A toolbox is tested with tools made for the test: one that works, one that always fails, one
# that needs approval. Then every kind of bad request, each of which must come back as text:

# %%
def echo(text, times=1):
    return " ".join([text] * times)

def explode():
    raise RuntimeError("the disk is full")

TRIAL = {  # name: (description, parameters, function, needs approval)
    "echo": ("Repeat a text.", {"type": "object", "required": ["text"],
                                "properties": {"text": {"type": "string"}, "times": {"type": "integer"}}},
             echo, False),
    "explode": ("Always fails.", {"type": "object", "properties": {}}, explode, False),
    "wipe": ("Delete everything.", {"type": "object", "properties": {}}, lambda: "wiped", True),
}
trial = MyToolbox()
for name, (description, parameters, function, approval) in TRIAL.items():
    trial.register(name, description, parameters, function, needs_approval=approval)

tried = {
    "works": try_run(trial, "echo", '{"text": "hi", "times": 2}'),
    "unknown tool": try_run(trial, "ecko", '{"text": "hi"}'),
    "not JSON": try_run(trial, "echo", "{text: hi}"),
    "not an object": try_run(trial, "echo", '["hi"]'),
    "missing": try_run(trial, "echo", '{"times": 2}'),
    "unknown arg": try_run(trial, "echo", '{"text": "hi", "loud": true}'),
    "tool fails": try_run(trial, "explode", "{}"),
}
for case, result in tried.items():
    print(f"{case:14} -> {result}")
trial_schemas = attempt(trial.schemas)
approvals = {name: attempt(trial.needs_approval, name) for name in ("wipe", "echo", "no_such_tool")}
print("needs approval:", approvals)

# %% [markdown]
# ## Exercise 2: describe it well
#
# Now the research helper's tools, on a toolbox of your own. `search_notes` below does the work;
# register it so a model could use it without guessing. Rewrite the vague registration: name the
# tool `search_notes`, call its one input `keyword`, describe that input (with an example) and
# list it as required, and make the tool's description say what it searches and what it
# returns.

# %%
def search_notes(keyword):
    found = [f"{note_id}: {title}" for note_id, (title, _) in NOTES.items()
             if keyword.lower() in title.lower()]
    return "\n".join(found) if found else f"no notes found for {keyword!r}"

# %% tags=["exercise"]
mine = MyToolbox()
mine.register("notes", "Does stuff with notes.",
              {"type": "object", "properties": {"text": {"type": "string"}}},
              lambda text: search_notes(text))

# %% [markdown] tags=["hint"]
# Read the registration as a new colleague would: the name, the description and each input
# should answer "what is this for, what do I pass, what do I get back?"

# %% [markdown] tags=["hint"]
# Four changes: the name `search_notes`; a description that says it looks at note *titles* and
# returns one `id: title` line per match; a single string property named `keyword`, whose own
# description gives an example such as "visits"; and that property listed as required. The
# function then receives `keyword`, not `text`.

# %% [markdown] tags=["hint"]
# ```python
# mine = MyToolbox()
# mine.register("search_notes",
#               "Find notes whose title contains a keyword (any case). Returns one 'id: title' line per note.",
#               {"type": "object",
#                "properties": {"keyword": {"type": "string",
#                                           "description": 'one word from a note title, such as "visits"'}},
#                "required": ["keyword"]},
#               search_notes)
# ```

# %% tags=["wrong"]
# wrong: renames the tool but keeps its vague input, text
# expect: one input, keyword
mine = MyToolbox()
mine.register("search_notes", "Find notes whose title contains a keyword. Returns one 'id: title' line per note.",
              {"type": "object", "properties": {"text": {"type": "string"}}},
              lambda text: search_notes(text))

# %% tags=["wrong"]
# wrong: the right input, but not described and not required
# expect: list it as required
mine = MyToolbox()
mine.register("search_notes", "Find notes whose title contains a keyword. Returns one 'id: title' line per note.",
              {"type": "object", "properties": {"keyword": {"type": "string"}}},
              search_notes)

# %% tags=["solution"]
mine = MyToolbox()
mine.register("search_notes",
              "Find notes whose title contains a keyword (any case). Returns one 'id: title' line per note.",
              {"type": "object",
               "properties": {"keyword": {"type": "string",
                                          "description": 'one word from a note title, such as "visits"'}},
               "required": ["keyword"]},
              search_notes)

# %% [markdown]
# A search that finds nothing says so, and names the keyword: `no notes found for 'parking'`.
# An empty list would leave the model wondering whether the search ran at all.
#
# A tool's own failure should help too. `read_note` raises with a message that names the id it
# was asked for **and** the ids that exist; your `run` turns that into the `error:` text. (A
# bare `NOTES[note_id]` would raise `KeyError('n9')`, and the model would read just `'n9'`.)

# %%
def read_note(note_id):
    if note_id not in NOTES:
        raise ValueError(f"no note with id {note_id!r}; ids are {', '.join(NOTES)}")
    return NOTES[note_id][1]

mine.register("read_note", "Return the text of one note, by its id (n1 to n6).",
              {"type": "object",
               "properties": {"note_id": {"type": "string", "description": "a note id such as n1"}},
               "required": ["note_id"]},
              read_note)

# %% [markdown]
# ## Exercise 3: the enum guard
#
# For arithmetic it is tempting to take a free-form expression and evaluate it. Don't: the
# program would run whatever text the model invented. Offer a fixed list of operations instead.
# An **enum** in the schema limits an input to values you name, and the model sees the list.
#
# The `calculate` below has two faults. Its schema accepts any string as `operation`. And its
# dictionary computes **all four** results before picking one, so `calculate(5, 0, "add")` fails
# dividing by zero, and `"power"` fails with a `KeyError` that tells the model nothing. Give
# `operation` an `"enum"` of the four operations; compute only the operation asked for; and
# raise an error with a clear message for a division by zero and for an operation outside the
# four (name the four).

# %% tags=["exercise"]
def calculate(a, b, operation):
    return {"add": a + b, "subtract": a - b, "multiply": a * b, "divide": a / b}[operation]

mine.register("calculate", "Apply one operation to two numbers and return the result.",
              {"type": "object",
               "properties": {"a": {"type": "number"}, "b": {"type": "number"},
                              "operation": {"type": "string"}},
               "required": ["a", "b", "operation"]},
              calculate)

# %% [markdown] tags=["hint"]
# Two places to change: the schema of `operation` (what the model is shown) and the body of
# `calculate` (what runs). A dictionary literal evaluates every value in it, so it cannot pick
# just one computation.

# %% [markdown] tags=["hint"]
# In the schema: `"operation": {"type": "string", "enum": ["add", "subtract", "multiply",
# "divide"]}`. In the function: one `if operation == ...: return ...` per operation; before the
# division, `if b == 0: raise ValueError(...)`; at the end, `raise ValueError(...)` naming the
# four operations. Your toolbox's `run` turns the raise into `error: calculate failed: ...`.

# %% [markdown] tags=["hint"]
# ```python
# def calculate(a, b, operation):
#     if operation == "add":
#         return a + b
#     if operation == "subtract":
#         return a - b
#     if operation == "multiply":
#         return a * b
#     if operation == "divide":
#         if b == 0:
#             raise ValueError("cannot divide by zero; use a b other than 0")
#         return a / b
#     raise ValueError(f"unknown operation {operation!r}; use add, subtract, multiply or divide")
# ```
#
# and in the schema, `"operation": {"type": "string", "enum": ["add", "subtract", "multiply", "divide"]}`.

# %% tags=["wrong"]
# wrong: adds the enum but still computes all four results in a dictionary
# expect: compute only the asked operation
def calculate(a, b, operation):
    return {"add": a + b, "subtract": a - b, "multiply": a * b, "divide": a / b}[operation]

mine.register("calculate", "Apply one operation to two numbers and return the result.",
              {"type": "object",
               "properties": {"a": {"type": "number"}, "b": {"type": "number"},
                              "operation": {"type": "string", "enum": ["add", "subtract", "multiply", "divide"]}},
               "required": ["a", "b", "operation"]},
              calculate)

# %% tags=["wrong"]
# wrong: fixes the function but leaves the schema without an enum
# expect: enum
# patch:
# -OPERATIONS = ["add", "subtract", "multiply", "divide"]
# -
# @@
# -               "properties": {"a": {"type": "number"}, "b": {"type": "number"},
# -                              "operation": {"type": "string", "enum": OPERATIONS}},
# +               "properties": {"a": {"type": "number"}, "b": {"type": "number"}, "operation": {"type": "string"}},

# %% tags=["wrong"]
# wrong: an unknown operation falls off the end and returns None instead of an error
# expect: names the four operations
# patch:
# -OPERATIONS = ["add", "subtract", "multiply", "divide"]
# -
# @@
# -    raise ValueError(f"unknown operation {operation!r}; use add, subtract, multiply or divide")
# @@
# -                              "operation": {"type": "string", "enum": OPERATIONS}},
# +                              "operation": {"type": "string", "enum": ["add", "subtract", "multiply", "divide"]}},

# %% tags=["solution"]
OPERATIONS = ["add", "subtract", "multiply", "divide"]

def calculate(a, b, operation):
    if operation == "add":
        return a + b
    if operation == "subtract":
        return a - b
    if operation == "multiply":
        return a * b
    if operation == "divide":
        if b == 0:
            raise ValueError("cannot divide by zero; use a b other than 0")
        return a / b
    raise ValueError(f"unknown operation {operation!r}; use add, subtract, multiply or divide")

mine.register("calculate", "Apply one operation to two numbers and return the result.",
              {"type": "object",
               "properties": {"a": {"type": "number"}, "b": {"type": "number"},
                              "operation": {"type": "string", "enum": OPERATIONS}},
               "required": ["a", "b", "operation"]},
              calculate)

# %% [markdown]
# ## The eight requests
#
# The research helper's toolbox, tried on eight requests: four that work and four that must
# come back as `error:` text.

# %%
def args(**values):
    return json.dumps(values)

eight = [
    ("search_notes", args(keyword="visits")),
    ("search_notes", args(keyword="parking")),
    ("read_note", args(note_id="n2")),
    ("read_note", args(note_id="n9")),
    ("calculate", args(a=1240, b=980, operation="subtract")),
    ("calculate", args(a=14, b=0, operation="divide")),
    ("calculate", args(a=2, b=3, operation="power")),
    ("delete_everything", "{}"),
]
answers = [try_run(mine, name, arguments) for name, arguments in eight]
for (name, arguments), answer in zip(eight, answers):
    print(f"{name}({arguments}) -> {answer}")
five_plus_zero = try_run(mine, "calculate", args(a=5, b=0, operation="add"))
staff = try_run(mine, "search_notes", args(keyword="staff"))
print("calculate(5, 0, add) ->", five_plus_zero)


def entry(schemas, name):
    """The "function" entry of one tool in a schemas() list ({} when it is not there)."""
    for schema in schemas if isinstance(schemas, list) else []:
        if isinstance(schema, dict) and isinstance(schema.get("function"), dict) \
                and schema["function"].get("name") == name:
            return schema["function"]
    return {}

mine_schemas = attempt(mine.schemas)
search_entry, calc_entry = entry(mine_schemas, "search_notes"), entry(mine_schemas, "calculate")

# %% [markdown]
# ## The hardened version: `looplab.Toolbox`
#
# Loop Lab's `Toolbox` (in `looplab/tools.py`) has your four methods with the same names, so
# the rest of the course can use it where you would use yours. What it adds:
#
# - **schemas from Python**: `@box.tool` builds the schema from the function's type hints and
#   docstring, so the description and the code cannot drift apart. `Literal[...]` becomes an
#   enum, a parameter without a default is required, an `Args:` section describes each input;
# - **validation before the function runs**: types (`"keyword": 42` is refused), enums, items of
#   lists and nested objects, not just the argument names; a whole number sent as `5.0` for an
#   `int` is accepted as 5;
# - `ToolError("...")` for a tool to send a plain message; any other exception is reported
#   with its type (`KeyError: 'n9'`), so even a careless tool says something;
# - **short output**: a result over 4,000 characters is cut, and the cut is said
#   (`[cut 1200 of 5200 characters]`), because every result goes into the context window;
# - **strict mode**: `schemas(strict=True)` writes the variant some APIs use to guarantee the
#   arguments match (every property required, optional ones nullable, no extra properties).

# %%
from typing import Literal

from looplab import Toolbox, ToolError

box = Toolbox()

@box.tool
def word_count(text: str, unique: bool = False) -> int:
    """Count the words in a text.

    Args:
        text: the text to count, as it is
        unique: count each different word once
    """
    words = text.lower().split()
    return len(set(words)) if unique else len(words)

@box.tool
def calculate_safely(a: float, b: float, operation: Literal["add", "subtract", "multiply", "divide"]) -> float:
    "Apply one operation to two numbers and return the result."
    ran.append(operation)
    if operation == "divide" and b == 0:
        raise ToolError("cannot divide by zero; use a b other than 0")
    return {"add": lambda: a + b, "subtract": lambda: a - b,
            "multiply": lambda: a * b, "divide": lambda: a / b}[operation]()

ran = []  # the operations that reached the function
print(json.dumps(box.schemas()[0]["function"], indent=2))
print(json.dumps(box.schemas()[1]["function"]["parameters"]["properties"]["operation"]))

# %% [markdown] tags=["predict"]
# `calculate_safely` is asked for `"power"`, which its schema does not list. What happens?
#
# - [ ] the function runs and fails with a `KeyError`
# - [x] the toolbox answers with an `error:` that lists the four operations; the function never runs
# - [ ] `run` raises, and the program stops
#
# The enum is checked before the call: `ran` stays empty, and the model is told what it may send.

# %%
power = box.run("calculate_safely", '{"a": 2, "b": 3, "operation": "power"}')
ran_for_power = list(ran)
print(power, "| operations that reached the function:", ran_for_power)
for name, arguments in [
    ("word_count", '{"text": 42}'),                  # the wrong type
    ("word_count", '{"text": "a b", "lang": "en"}'),  # an argument that does not exist
    ("calculate_safely", '{"a": 1, "b": 0, "operation": "divide"}'),
]:
    print(f"{name}({arguments}) -> {box.run(name, arguments)}")
box.register("long_text", "Return a very long text.", None, lambda: "all work and no play " * 250)
print("...", box.run("long_text", "{}")[-60:])
print(json.dumps(box.schemas(strict=True)[0]["function"]["parameters"], indent=2))

# %% [markdown]
# ## Few tools, little power
#
# Offer **few** tools and give each **little power**. OWASP's list of risks for model
# applications calls the opposite *excessive agency*: a research helper needs to read notes, it
# does not need to delete them. A tool that does change things gets `needs_approval=True`, and
# lesson 4's loop asks a person before it runs.

# %% tags=["check"]
from looplab import Case, Said, compare, generate, reference

QUERIES = {  # a request to run, what kind of request it is, and what its error must name
    "works": ("echo", '{"text": "hi"}'), "works twice": ("echo", '{"text": "ho", "times": 3}'),
    "unknown tool": ("ecko", '{"text": "hi"}'), "not JSON": ("echo", "{text: hi}"),
    "empty arguments": ("wipe", ""), "not an object": ("echo", '["hi"]'), "missing": ("echo", '{"times": 2}'),
    "unknown arg": ("echo", '{"text": "hi", "loud": true}'), "tool fails": ("explode", "{}"),
    "a number back": ("count", '{"text": "a b c"}'), "no arguments": ("wipe", "{}"),
}
MUST_NAME = {"unknown tool": ("echo", "explode"), "not JSON": ("json",), "missing": ("text",),
             "unknown arg": ("text", "times"), "tool fails": ("the disk is full",)}


def toolbox_does(box_class, order, approval, queries):
    """Register the trial tools in this order, then ask for schemas, approvals and runs."""
    box = box_class()
    for name in order:
        description, parameters, function, needs = {**TRIAL, "count": (
            "Count words.", {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]},
            lambda text: len(text.split()), False)}[name]
        if approval == "left out":
            box.register(name, description, parameters, function)
        else:
            box.register(name, description, parameters, function, needs_approval=needs)
    out = {"schemas()": box.schemas(), "needs_approval": {n: box.needs_approval(n) for n in [*order, "nothing"]}}
    for kind in queries:
        text = box.run(*QUERIES[kind])
        needed = [w for w in MUST_NAME.get(kind, ()) if w in order or w not in TRIAL]
        out[f"run for {kind}"] = Said(repr(text)[:90], ("error", all(w in text.lower() for w in needed))) \
            if isinstance(text, str) and text.startswith("error:") else text
    return out


def trial_case(d):
    order = d.shuffled(d.subset(["echo", "explode", "wipe", "count"]) or ["echo"])
    return Case((order, d.pick(["kept", "left out"]), d.shuffled(d.subset(list(QUERIES)))),
                f"tools {order} registered, then {d.pick(['these'])} requests")


BOX_CASES = generate(trial_case, count=60, edges=[
    Case((["echo", "explode", "wipe"], "kept", list(QUERIES)), "the trial tools and every kind of request"),
    Case((["echo"], "left out", ["works"]), "one tool registered without needs_approval"),
    Case(([], "kept", ["unknown tool", "missing"]), "an empty toolbox")])


def calculating(fn, a, b, operation):
    """What calculate gives: a number, or the error it raised (does it say zero? name the four?)."""
    try:
        return {"calculate(a, b, operation)": fn(a, b, operation)}
    except Exception as exc:
        text = str(exc).lower()
        return {"calculate(a, b, operation)": Said(f"raised {type(exc).__name__}: {exc}", (
            "raised", "zero" in text, all(op in text for op in ("add", "subtract", "multiply", "divide")),
            "its own words" if "division by zero" not in text else "Python's 'division by zero'"))}


SUMS = generate(lambda d: Case((d.number(-9, 9), d.pick([0, 1, 2, -1, 0.5]), d.pick(
    ["add", "subtract", "multiply", "divide", "power", "Add", ""]))), count=90, edges=[
    Case((5, 0, op), f"5 and 0 with {op!r}") for op in ("add", "subtract", "multiply", "divide", "power")])


def searching(box, keyword):
    """The rewritten tool as the model meets it: its schema, and what it finds."""
    entry = next((s["function"] for s in box.schemas() if s["function"]["name"] == "search_notes"), {})
    parameters = entry.get("parameters") or {}
    return {"its inputs": list(parameters.get("properties") or {}),
            "required": parameters.get("required"),
            "the keyword is described": bool(((parameters.get("properties") or {}).get("keyword") or {}).get(
                "description")),
            "what it finds": box.run("search_notes", json.dumps({"keyword": keyword}))}


KEYWORDS = [Case((k,), f"the keyword {k!r}") for k in ("staff", "VISITS", "parking", "", "branch")]

# schemas() lists every tool, in the order registered, in the shape the model is sent
assert isinstance(trial_schemas, list) and [
    (s.get("type"), s.get("function", {}).get("name")) for s in trial_schemas if isinstance(s, dict)
] == [("function", "echo"), ("function", "explode"), ("function", "wipe")], (
    f"schemas() gave {str(trial_schemas)[:200]}; expected one {{'type': 'function', 'function': {{...}}}} "
    "entry per tool, in the order they were registered (echo, explode, wipe)")
# each schema carries the description and parameters it was registered with
assert isinstance(trial_schemas, list) and len(trial_schemas) == 3 and all(
    isinstance(s, dict) and s.get("function", {}).get("description") == TRIAL[name][0]
    and s.get("function", {}).get("parameters") == TRIAL[name][1]
    for s, name in zip(trial_schemas, TRIAL)), (
    "a schema's 'function' entry should hold the tool's name, description and parameters as registered")
# given: needs_approval is True only for a tool registered with needs_approval=True
assert approvals["wipe"] is True and approvals["echo"] is False, (
    f"needs_approval gave {approvals}; wipe was registered with needs_approval=True, echo was not")
# needs_approval answers False for a name it does not know, without an error
assert approvals["no_such_tool"] is False, (
    f"needs_approval('no_such_tool') gave {approvals['no_such_tool']!r}; check that the name is "
    "registered before looking it up")
# given: run returns the tool's result as text
assert tried["works"] == "hi hi", (
    f"run('echo', '{{\"text\": \"hi\", \"times\": 2}}') gave {tried['works']!r}; call the function with "
    "the parsed arguments and return str() of what it returns")
# run never raises, whatever the request
assert not [case for case, result in tried.items() if result.startswith("raised")], (
    "run raised for: " + "; ".join(f"{case} ({result})" for case, result in tried.items()
                                   if result.startswith("raised")) + ". Return an 'error: ...' text instead")
# an unknown tool is an error that names the tools there are
assert tried["unknown tool"].startswith("error:") and all(
    name in tried["unknown tool"] for name in ("echo", "explode", "wipe")), (
    f"run('ecko', ...) gave {tried['unknown tool']!r}; say there is no such tool and list the ones there are")
# arguments that are not JSON are an error that says so
assert tried["not JSON"].startswith("error:") and "json" in tried["not JSON"].lower(), (
    f"run with '{{text: hi}}' gave {tried['not JSON']!r}; catch json.JSONDecodeError and say the "
    "arguments are not valid JSON")
# JSON that is not an object is an error too
assert tried["not an object"].startswith("error:"), (
    f"run with '[\"hi\"]' gave {tried['not an object']!r}; json.loads gave a list, and a tool needs "
    "an object of named arguments")
# a missing required argument is an error that names it
assert tried["missing"].startswith("error:") and "text" in tried["missing"], (
    f"run('echo', '{{\"times\": 2}}') gave {tried['missing']!r}; compare the arguments with the "
    "schema's 'required' list and name what is missing")
# an argument the tool does not take is an error that names the ones it does
assert tried["unknown arg"].startswith("error:") and "text" in tried["unknown arg"] \
    and "times" in tried["unknown arg"], (
    f"run('echo', ... 'loud' ...) gave {tried['unknown arg']!r}; compare the arguments with the "
    "schema's 'properties' and name the arguments echo takes")
# a tool that raises is an error that carries its message
assert tried["tool fails"].startswith("error:") and "the disk is full" in tried["tool fails"], (
    f"run('explode', '{{}}') gave {tried['tool fails']!r}; catch the exception around the call and "
    "put its text in the message")
# your MyToolbox does what the lesson's does for every kind of request
assert (box_found := compare(MyToolbox, reference("MyToolbox"), BOX_CASES, observe=toolbox_does)), box_found
search_params = search_entry.get("parameters") or {}
# the rewritten tool is called search_notes and takes one input, keyword
assert list(search_params.get("properties") or {}) == ["keyword"], (
    f"the tools in your box are {[t for t in getattr(mine, 'tools', {})]}, and search_notes takes "
    f"{list(search_params.get('properties') or {})}; register it as search_notes with one input, keyword "
    "(and make sure schemas() from exercise 1 lists it)")
# the keyword is described and required, and the description says what comes back
assert ((search_params.get("properties") or {}).get("keyword", {}).get("description")
        and search_params.get("required") == ["keyword"]
        and len(search_entry.get("description", "").split()) >= 8
        and "return" in search_entry.get("description", "").lower()), (
    "describe the keyword input (with an example), list it as required, and say in the tool's "
    "description what it searches and what it returns")
# the rewritten tool finds notes by keyword
assert "n5" in staff, (
    f"search_notes with keyword 'staff' gave {staff!r}; it should find n5: pass the keyword on to search_notes")
# your search_notes tool is registered and works as the lesson's
assert (search_found := compare(mine, reference("mine"), KEYWORDS, observe=searching)), search_found
operation = ((calc_entry.get("parameters") or {}).get("properties") or {}).get("operation", {})
# the calculate schema lists exactly the four operations
assert sorted(operation.get("enum", [])) == ["add", "divide", "multiply", "subtract"], (
    f"the schema of operation is {operation}; give it an \"enum\" of the four operations so the model "
    "sees its choices")
# calculate computes only the operation asked for
assert answers[4] in ("260", "260.0") and five_plus_zero in ("5", "5.0"), (
    f"calculate gave {answers[4]!r} for 1240 - 980 and {five_plus_zero!r} for 5 + 0; a dictionary of "
    "all four results divides by zero even for 'add': compute only the asked operation")
# calculate does what the lesson's does for every operation, known or not, and b = 0
assert (calc_found := compare(calculate, reference("calculate"), SUMS, observe=calculating)), calc_found
# a division by zero is an error that says so
assert answers[5].startswith("error:") and "zero" in answers[5], (
    f"calculate(14, 0, 'divide') gave {answers[5]!r}; check b before dividing and raise with a clear message")
# an operation outside the four is an error that names the four
assert answers[6].startswith("error:") and all(op in answers[6] for op in ("add", "subtract", "multiply", "divide")), (
    f"calculate(2, 3, 'power') gave {answers[6]!r}; end calculate with an error that names the four operations")
# the eight requests: 4, 6, 7 and 8 are errors, the others are not
assert [a.startswith("error:") for a in answers] == [False, False, False, True, False, True, True, True], (
    "which requests came back as errors: " + ", ".join(f"{i}: {a[:40]!r}" for i, a in enumerate(answers, 1)))
# read_note's error names n9 and the ids that exist
assert answers[3].startswith("error:") and "n9" in answers[3] and sum(i in answers[3] for i in NOTES) >= 3, (
    f"read_note('n9') gave {answers[3]!r}; your run should pass the tool's own message through")
# given: looplab's Toolbox refused 'power' before the function ran
assert power.startswith("error:") and "add, subtract, multiply, divide" in power and ran_for_power == [], (
    f"looplab's Toolbox gave {power!r}, and the function ran for {ran_for_power}")
