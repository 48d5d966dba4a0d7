# %% [markdown]
# # 16 · Project: the research helper
#
# Time to build one agent end to end, on your own parts only: **your toolbox**, whose errors
# come back as text, **your loop**, driven through four runs that end four different ways, and
# **your memory**, trimmed by a token budget, plus a decision on which tools need a person.
# Nothing here comes from `looplab` but the prepared model replies. Each part has its checks;
# work through them in order and stop when they pass. If you wrote `MyToolbox`, `my_run_agent`
# or `MyMemory` in lessons 2, 4 and 8, paste yours in and adapt it.
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
from looplab.models import pick_model, scripted, call, calls, final, failing
from looplab.lesson import expect


NOTES = {
    "n1": ("Eastside branch: visits", "March visits: 1240. April visits: 1310."),
    "n2": ("Westside branch: visits", "March visits: 980. April visits: 1105."),
    "n3": ("Eastside branch: opening days", "Open Monday to Saturday."),
    "n4": ("Westside branch: opening days", "Open Monday to Friday."),
    "n5": ("Eastside branch: staff", "Staff count: 14."),
    "n6": ("Westside branch: staff", "Staff count: 9."),
}

def attempt(fn, *args, **kwargs):
    """Call fn; an exception comes back as text, so a check can say what happened."""
    try:
        return fn(*args, **kwargs)
    except Exception as exc:
        return f"raised {type(exc).__name__}: {exc}"

# %% [markdown]
# ## Task 1: the toolbox
#
# ### Exercise 1: `MyToolbox`
#
# Write the class the model's tools live in:
#
# - `register(name, description, parameters, func, needs_approval=False)`;
# - `schemas()`: the tools as the model is sent them, in the order they were registered:
#   `{"type": "function", "function": {"name", "description", "parameters"}}`;
# - `needs_approval(name)`: the flag, and `False` for a name that is not registered;
# - `run(name, arguments_json) -> str`, which **never raises**. An unknown tool, arguments that
#   are not a JSON object, a missing or unknown argument, a tool that raises: each comes back as
#   text starting with `error:` that says what would work (the tools there are, the arguments
#   the tool takes). A result that is not text is turned into text.

# %% tags=["exercise"]
class MyToolbox:
    """Tools by name: their descriptions for the model, and a run that never raises."""

    def __init__(self):
        self.tools = {}

    def register(self, name, description, parameters, func, needs_approval=False):
        self.tools[name] = {"description": description, "parameters": parameters, "func": func,
                            "needs_approval": needs_approval}

    def schemas(self):
        return []

    def needs_approval(self, name):
        return False

    def run(self, name, arguments_json):
        return str(self.tools[name]["func"](**json.loads(arguments_json)))

# %% [markdown] tags=["hint"]
# `schemas` and `needs_approval` are one line each. In `run`, deal with the failures one at a
# time, each with an early return of its error text: the name first, then the JSON, then the
# arguments against the schema, and last the call itself.

# %% [markdown] tags=["hint"]
# `json.loads` raises `ValueError` on broken JSON (and `TypeError` when given `None`); check the
# result with `isinstance(args, dict)`. Compare `args` with `parameters.get("required", [])` and
# `parameters.get("properties", {})`. Wrap the call in `try: ... except Exception as exc:`.

# %% [markdown] tags=["hint"]
# ```python
# class MyToolbox:
#     def __init__(self):
#         self.tools = {}
#
#     def register(self, name, description, parameters, func, needs_approval=False):
#         self.tools[name] = {"description": description, "parameters": parameters, "func": func,
#                             "needs_approval": needs_approval}
#
#     def schemas(self):
#         return [{"type": "function", "function": {"name": name, "description": tool["description"],
#                                                   "parameters": tool["parameters"]}}
#                 for name, tool in self.tools.items()]
#
#     def needs_approval(self, name):
#         return name in self.tools and self.tools[name]["needs_approval"]
#
#     def run(self, name, arguments_json):
#         if name not in self.tools:
#             return f"error: no tool named {name!r}; the tools are {', '.join(self.tools)}"
#         try:
#             args = json.loads(arguments_json or "{}")
#         except (ValueError, TypeError):
#             return f"error: the arguments {arguments_json!r} are not JSON; send an object"
#         if not isinstance(args, dict):
#             return "error: the arguments must be a JSON object"
#         parameters = self.tools[name]["parameters"] or {}
#         takes = parameters.get("properties", {})
#         missing = [p for p in parameters.get("required", []) if p not in args]
#         unknown = [a for a in args if a not in takes]
#         if missing or unknown:
#             return (f"error: {name} takes {', '.join(takes) or 'no arguments'}; "
#                     f"missing: {', '.join(missing) or 'none'}; unknown: {', '.join(unknown) or 'none'}")
#         try:
#             return str(self.tools[name]["func"](**args))
#         except Exception as exc:
#             return f"error: {name} failed: {exc}"
# ```

# %% tags=["wrong"]
# wrong: needs_approval looks the name up without checking it is registered
# expect: an unknown name
class MyToolbox:
    """Tools by name: their descriptions for the model, and a run that never raises."""

    def __init__(self):
        self.tools = {}

    def register(self, name, description, parameters, func, needs_approval=False):
        self.tools[name] = {"description": description, "parameters": parameters, "func": func,
                            "needs_approval": needs_approval}

    def schemas(self):
        return [{"type": "function", "function": {"name": name, "description": tool["description"],
                                                  "parameters": tool["parameters"]}}
                for name, tool in self.tools.items()]

    def needs_approval(self, name):
        return self.tools[name]["needs_approval"]

    def run(self, name, arguments_json):
        if name not in self.tools:
            return f"error: no tool named {name!r}; the tools are {', '.join(self.tools)}"
        try:
            args = json.loads(arguments_json or "{}")   # no arguments at all: an empty object
        except (ValueError, TypeError):
            return f"error: the arguments {arguments_json!r} are not JSON; send an object"
        if not isinstance(args, dict):
            return "error: the arguments must be a JSON object"
        parameters = self.tools[name]["parameters"] or {}
        takes = parameters.get("properties", {})
        missing = [p for p in parameters.get("required", []) if p not in args]
        unknown = [a for a in args if a not in takes]
        if missing or unknown:
            return (f"error: {name} takes {', '.join(takes) or 'no arguments'}; "
                    f"missing: {', '.join(missing) or 'none'}; unknown: {', '.join(unknown) or 'none'}")
        try:
            return str(self.tools[name]["func"](**args))
        except Exception as exc:
            return f"error: {name} failed: {exc}"


# %% tags=["wrong"]
# wrong: no try around the tool's call, so a tool that raises makes run raise
# expect: did not come back as 'error:' text
class MyToolbox:
    """Tools by name: their descriptions for the model, and a run that never raises."""

    def __init__(self):
        self.tools = {}

    def register(self, name, description, parameters, func, needs_approval=False):
        self.tools[name] = {"description": description, "parameters": parameters, "func": func,
                            "needs_approval": needs_approval}

    def schemas(self):
        return [{"type": "function", "function": {"name": name, "description": tool["description"],
                                                  "parameters": tool["parameters"]}}
                for name, tool in self.tools.items()]

    def needs_approval(self, name):
        return name in self.tools and self.tools[name]["needs_approval"]

    def run(self, name, arguments_json):
        if name not in self.tools:
            return f"error: no tool named {name!r}; the tools are {', '.join(self.tools)}"
        try:
            args = json.loads(arguments_json or "{}")   # no arguments at all: an empty object
        except (ValueError, TypeError):
            return f"error: the arguments {arguments_json!r} are not JSON; send an object"
        if not isinstance(args, dict):
            return "error: the arguments must be a JSON object"
        parameters = self.tools[name]["parameters"] or {}
        takes = parameters.get("properties", {})
        missing = [p for p in parameters.get("required", []) if p not in args]
        unknown = [a for a in args if a not in takes]
        if missing or unknown:
            return (f"error: {name} takes {', '.join(takes) or 'no arguments'}; "
                    f"missing: {', '.join(missing) or 'none'}; unknown: {', '.join(unknown) or 'none'}")
        return str(self.tools[name]["func"](**args))


# %% tags=["wrong"]
# wrong: an unknown tool's error does not say which tools there are
# expect: name the tools that exist
class MyToolbox:
    """Tools by name: their descriptions for the model, and a run that never raises."""

    def __init__(self):
        self.tools = {}

    def register(self, name, description, parameters, func, needs_approval=False):
        self.tools[name] = {"description": description, "parameters": parameters, "func": func,
                            "needs_approval": needs_approval}

    def schemas(self):
        return [{"type": "function", "function": {"name": name, "description": tool["description"],
                                                  "parameters": tool["parameters"]}}
                for name, tool in self.tools.items()]

    def needs_approval(self, name):
        return name in self.tools and self.tools[name]["needs_approval"]

    def run(self, name, arguments_json):
        if name not in self.tools:
            return f"error: no tool named {name!r}"
        try:
            args = json.loads(arguments_json or "{}")   # no arguments at all: an empty object
        except (ValueError, TypeError):
            return f"error: the arguments {arguments_json!r} are not JSON; send an object"
        if not isinstance(args, dict):
            return "error: the arguments must be a JSON object"
        parameters = self.tools[name]["parameters"] or {}
        takes = parameters.get("properties", {})
        missing = [p for p in parameters.get("required", []) if p not in args]
        unknown = [a for a in args if a not in takes]
        if missing or unknown:
            return (f"error: {name} takes {', '.join(takes) or 'no arguments'}; "
                    f"missing: {', '.join(missing) or 'none'}; unknown: {', '.join(unknown) or 'none'}")
        try:
            return str(self.tools[name]["func"](**args))
        except Exception as exc:
            return f"error: {name} failed: {exc}"


# %% tags=["solution"]
class MyToolbox:
    """Tools by name: their descriptions for the model, and a run that never raises."""

    def __init__(self):
        self.tools = {}

    def register(self, name, description, parameters, func, needs_approval=False):
        self.tools[name] = {"description": description, "parameters": parameters, "func": func,
                            "needs_approval": needs_approval}

    def schemas(self):
        return [{"type": "function", "function": {"name": name, "description": tool["description"],
                                                  "parameters": tool["parameters"]}}
                for name, tool in self.tools.items()]

    def needs_approval(self, name):
        return name in self.tools and self.tools[name]["needs_approval"]

    def run(self, name, arguments_json):
        if name not in self.tools:
            return f"error: no tool named {name!r}; the tools are {', '.join(self.tools)}"
        try:
            args = json.loads(arguments_json or "{}")   # no arguments at all: an empty object
        except (ValueError, TypeError):
            return f"error: the arguments {arguments_json!r} are not JSON; send an object"
        if not isinstance(args, dict):
            return "error: the arguments must be a JSON object"
        parameters = self.tools[name]["parameters"] or {}
        takes = parameters.get("properties", {})
        missing = [p for p in parameters.get("required", []) if p not in args]
        unknown = [a for a in args if a not in takes]
        if missing or unknown:
            return (f"error: {name} takes {', '.join(takes) or 'no arguments'}; "
                    f"missing: {', '.join(missing) or 'none'}; unknown: {', '.join(unknown) or 'none'}")
        try:
            return str(self.tools[name]["func"](**args))
        except Exception as exc:
            return f"error: {name} failed: {exc}"

# %% [markdown]
# Your toolbox on a small test bench, before it meets the notes:

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
# given: a good call returns the result as text
assert BENCH["6 / 3"] == "2.0", f"run('divide', '{{\"a\": 6, \"b\": 3}}') gave {BENCH['6 / 3']!r}"
# schemas() lists the tools in the order registered, in the shape the model is sent
assert attempt(bench.schemas) == [
    {"type": "function", "function": {"name": "divide", "description": "Divide a by b.",
                                      "parameters": bench.tools["divide"]["parameters"]}},
    {"type": "function", "function": {"name": "wipe", "description": "Wipe everything.",
                                      "parameters": {"type": "object", "properties": {}}}}], (
    f"schemas() gave {attempt(bench.schemas)}")
# needs_approval is the flag, and False for a name nobody registered
assert [attempt(bench.needs_approval, n) for n in ("divide", "wipe", "nothing")] == [False, True, False], (
    f"needs_approval gave {[attempt(bench.needs_approval, n) for n in ('divide', 'wipe', 'nothing')]} for "
    "divide, wipe and an unknown name")
# no failure raises: each comes back as text starting with error:
assert all(isinstance(BENCH[k], str) and BENCH[k].startswith("error:") for k in BENCH if k != "6 / 3"), (
    "these did not come back as 'error:' text: "
    + "; ".join(f"{k}: {BENCH[k]!r}" for k in BENCH if k != "6 / 3" and not str(BENCH[k]).startswith("error:")))
# an unknown tool's error names the tools there are
assert "divide" in BENCH["unknown tool"] and "wipe" in BENCH["unknown tool"], (
    f"the error for an unknown tool was {BENCH['unknown tool']!r}; name the tools that exist")
# a missing argument's error names it
assert BENCH["missing b"].startswith("error:") and "b" in BENCH["missing b"].split("error:", 1)[1], (
    f"the error for a missing argument was {BENCH['missing b']!r}; say which one is missing")
# a failing tool's error says what went wrong
assert str(BENCH["the tool raises"]).startswith("error:") and "zero" in BENCH["the tool raises"], (
    f"the error for a division by zero was {BENCH['the tool raises']!r}; include the exception's text")

# %% [markdown]
# ### Exercise 2: three tools on your toolbox
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
# Lower-case both sides to ignore case. For an unknown id, `raise ValueError(f"no note with id
# {note_id!r}; ids are {', '.join(NOTES)}")`. The enum goes in the schema:
# `"operation": {"type": "string", "enum": ["add", "subtract", "multiply", "divide"]}`.

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
box = MyToolbox()
OPERATIONS = {"add": lambda a, b: a + b, "subtract": lambda a, b: a - b,
              "multiply": lambda a, b: a * b, "divide": lambda a, b: a / b}

def search_notes(keyword):
    found = [f"{i}: {title}" for i, (title, _) in NOTES.items() if keyword in title]
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


# %% tags=["wrong"]
# wrong: a search that finds nothing returns an empty text
# expect: naming the keyword
box = MyToolbox()
OPERATIONS = {"add": lambda a, b: a + b, "subtract": lambda a, b: a - b,
              "multiply": lambda a, b: a * b, "divide": lambda a, b: a / b}

def search_notes(keyword):
    found = [f"{i}: {title}" for i, (title, _) in NOTES.items() if keyword.lower() in title.lower()]
    return "\n".join(found)

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


# %% tags=["wrong"]
# wrong: the operation is checked in code but not listed as an enum in the schema
# expect: as an enum
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
                                               "operation": {"type": "string"}},
              "required": ["a", "b", "operation"]},
             calculate)


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
# the eight requests all returned text, none raised
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
# requests 4, 6, 7 and 8 return errors
assert all(answers[i].startswith("error:") for i in (3, 5, 6, 7)), (
    f"requests 4, 6, 7 and 8 should start with 'error:'; got {[answers[i][:60] for i in (3, 5, 6, 7)]}")
# request 4's error names n9 and at least three existing ids
assert "n9" in answers[3] and sum(i in answers[3] for i in NOTES) >= 3 and "NotImplemented" not in answers[3], (
    f"read_note('n9') returned {answers[3]!r}; name the id and list the ids that exist")
# request 5 computes 1240 - 980
assert answers[4] in ("260", "260.0"), f"calculate(1240, 980, subtract) returned {answers[4]!r}"
# request 6's error is about the division by zero, request 7's about the operation
assert "zero" in answers[5] and "power" in answers[6], (
    f"calculate(14, 0, divide) returned {answers[5]!r} and calculate(2, 3, power) {answers[6]!r}; say "
    "what went wrong: the zero, the unknown operation")
# the tool list has three tools, each with a name, a description and parameters
assert isinstance(tool_list, list) and len(tool_list) == 3 and all(
    s["function"].get("name") and s["function"].get("description") and s["function"].get("parameters")
    for s in tool_list), f"the tool list is {tool_list}; register exactly the three tools"
# the operation enum has exactly four values
assert sorted(tool_list[2]["function"]["parameters"]["properties"]["operation"].get("enum", [])) == [
    "add", "divide", "multiply", "subtract"], (
    f"the operation schema is {tool_list[2]['function']['parameters']['properties']['operation']}; "
    "list the four operations as an enum")

# %% [markdown]
# ## Task 2: the loop and four runs
#
# For this task the memory is the simplest there is: it keeps every message (you will write a
# better one in Task 3). It has the two methods the loop needs, `add(message)` and
# `messages()`.

# %%
class ListMemory:
    """The simplest memory: every message, kept in order."""

    def __init__(self, system_prompt):
        self.system = {"role": "system", "content": system_prompt}
        self.history = []

    def add(self, message):
        self.history.append(message)

    def messages(self, budget=None):
        return [self.system] + self.history

def tool_message(call, result):
    """The message that answers one tool call."""
    return {"role": "tool", "tool_call_id": call["id"], "content": result}

# %% [markdown]
# ### Exercise 3: `my_run_agent`
#
# Write `my_run_agent(task, model_fn, toolbox, memory, max_steps=6, approve=None)`. It adds
# the task as a user message, then up to `max_steps` times: calls
# `model_fn(memory.messages(), toolbox.schemas())`, adds the reply to the memory, and if the
# reply asks for no tool, returns its content as the answer. Otherwise it runs **every** call in
# the reply through the toolbox and adds each result as a `tool` message with the call's id.
# It returns `{"answer", "steps", "stopped"}`, where `stopped` is
#
# | stopped | when | answer |
# | --- | --- | --- |
# | `final` | a reply asks for no tool | its content |
# | `step_limit` | `max_steps` replies all asked for tools | `None` |
# | `error` | `model_fn` raised; add `"detail"` with the exception's text | `None` |
# | `needs_person` | a call's tool needs approval and `approve` (given the tool's name) did not say yes | `None` |
#
# A refused call still gets its `error:` tool message before the run returns, and so does
# every later call of the same reply (it was skipped): no call is left without its answer.

# %% tags=["exercise"]
def my_run_agent(task, model_fn, toolbox, memory, max_steps=6, approve=None):
    """Run one task to a stop: {"answer", "steps", "stopped"}, and "detail" for an error."""
    memory.add({"role": "user", "content": task})
    for step in range(1, max_steps + 1):
        reply = model_fn(memory.messages(), toolbox.schemas())
        memory.add(reply)
        # the tool calls, approvals and the other three stops: yours to write
        return {"answer": reply.get("content"), "steps": step, "stopped": "final"}

# %% [markdown] tags=["hint"]
# Lesson 4's loop, with a memory object instead of a list. The four stops are four `return`s:
# one in an `except` around the model call, one when there are no calls, one inside the loop
# over the calls, and one after the `for step` loop has run out.

# %% [markdown] tags=["hint"]
# Loop with `for i, call in enumerate(calls):`, so that on a refusal you can answer
# `call` with `error: a person has not approved ...` and every `calls[i + 1:]` with
# `error: skipped ...` before `return`. The check is
# `toolbox.needs_approval(name) and not (approve and approve(name))`.

# %% [markdown] tags=["hint"]
# ```python
# def my_run_agent(task, model_fn, toolbox, memory, max_steps=6, approve=None):
#     memory.add({"role": "user", "content": task})
#     for step in range(1, max_steps + 1):
#         try:
#             reply = model_fn(memory.messages(), toolbox.schemas())
#         except Exception as exc:
#             return {"answer": None, "steps": step, "stopped": "error", "detail": str(exc)}
#         memory.add(reply)
#         calls = reply.get("tool_calls") or []
#         if not calls:
#             return {"answer": reply.get("content"), "steps": step, "stopped": "final"}
#         for i, call in enumerate(calls):
#             name = call["function"]["name"]
#             if toolbox.needs_approval(name) and not (approve and approve(name)):
#                 memory.add(tool_message(call, f"error: a person has not approved {name}"))
#                 for skipped in calls[i + 1:]:
#                     memory.add(tool_message(skipped, "error: skipped: the run stopped to ask a person"))
#                 return {"answer": None, "steps": step, "stopped": "needs_person"}
#             memory.add(tool_message(call, toolbox.run(name, call["function"]["arguments"])))
#     return {"answer": None, "steps": max_steps, "stopped": "step_limit"}
# ```

# %% tags=["wrong"]
# wrong: stops at a refusal without answering the calls after it
# expect: c3 as skipped
def my_run_agent(task, model_fn, toolbox, memory, max_steps=6, approve=None):
    """Run one task to a stop: {"answer", "steps", "stopped"}, and "detail" for an error."""
    memory.add({"role": "user", "content": task})
    for step in range(1, max_steps + 1):
        try:
            reply = model_fn(memory.messages(), toolbox.schemas())
        except Exception as exc:                                       # stop: error
            return {"answer": None, "steps": step, "stopped": "error", "detail": str(exc)}
        memory.add(reply)
        calls = reply.get("tool_calls") or []
        if not calls:                                                  # stop: final answer
            return {"answer": reply.get("content"), "steps": step, "stopped": "final"}
        for i, call in enumerate(calls):
            name = call["function"]["name"]
            if toolbox.needs_approval(name) and not (approve and approve(name)):
                memory.add(tool_message(call, f"error: a person has not approved {name}"))
                return {"answer": None, "steps": step, "stopped": "needs_person"}   # stop: a person
            memory.add(tool_message(call, toolbox.run(name, call["function"]["arguments"])))
    return {"answer": None, "steps": max_steps, "stopped": "step_limit"}          # stop: step limit


# %% tags=["wrong"]
# wrong: no try around the model call
# expect: catch it and return
def my_run_agent(task, model_fn, toolbox, memory, max_steps=6, approve=None):
    """Run one task to a stop: {"answer", "steps", "stopped"}, and "detail" for an error."""
    memory.add({"role": "user", "content": task})
    for step in range(1, max_steps + 1):
        reply = model_fn(memory.messages(), toolbox.schemas())
        memory.add(reply)
        calls = reply.get("tool_calls") or []
        if not calls:                                                  # stop: final answer
            return {"answer": reply.get("content"), "steps": step, "stopped": "final"}
        for i, call in enumerate(calls):
            name = call["function"]["name"]
            if toolbox.needs_approval(name) and not (approve and approve(name)):
                memory.add(tool_message(call, f"error: a person has not approved {name}"))
                for skipped in calls[i + 1:]:                          # answered, never left open
                    memory.add(tool_message(skipped, "error: skipped: the run stopped to ask a person"))
                return {"answer": None, "steps": step, "stopped": "needs_person"}   # stop: a person
            memory.add(tool_message(call, toolbox.run(name, call["function"]["arguments"])))
    return {"answer": None, "steps": max_steps, "stopped": "step_limit"}          # stop: step limit


# %% tags=["wrong"]
# wrong: nothing after the loop, so a run out of steps returns None
# expect: max_steps=3 gave
def my_run_agent(task, model_fn, toolbox, memory, max_steps=6, approve=None):
    """Run one task to a stop: {"answer", "steps", "stopped"}, and "detail" for an error."""
    memory.add({"role": "user", "content": task})
    for step in range(1, max_steps + 1):
        try:
            reply = model_fn(memory.messages(), toolbox.schemas())
        except Exception as exc:                                       # stop: error
            return {"answer": None, "steps": step, "stopped": "error", "detail": str(exc)}
        memory.add(reply)
        calls = reply.get("tool_calls") or []
        if not calls:                                                  # stop: final answer
            return {"answer": reply.get("content"), "steps": step, "stopped": "final"}
        for i, call in enumerate(calls):
            name = call["function"]["name"]
            if toolbox.needs_approval(name) and not (approve and approve(name)):
                memory.add(tool_message(call, f"error: a person has not approved {name}"))
                for skipped in calls[i + 1:]:                          # answered, never left open
                    memory.add(tool_message(skipped, "error: skipped: the run stopped to ask a person"))
                return {"answer": None, "steps": step, "stopped": "needs_person"}   # stop: a person
            memory.add(tool_message(call, toolbox.run(name, call["function"]["arguments"])))


# %% tags=["solution"]
def my_run_agent(task, model_fn, toolbox, memory, max_steps=6, approve=None):
    """Run one task to a stop: {"answer", "steps", "stopped"}, and "detail" for an error."""
    memory.add({"role": "user", "content": task})
    for step in range(1, max_steps + 1):
        try:
            reply = model_fn(memory.messages(), toolbox.schemas())
        except Exception as exc:                                       # stop: error
            return {"answer": None, "steps": step, "stopped": "error", "detail": str(exc)}
        memory.add(reply)
        calls = reply.get("tool_calls") or []
        if not calls:                                                  # stop: final answer
            return {"answer": reply.get("content"), "steps": step, "stopped": "final"}
        for i, call in enumerate(calls):
            name = call["function"]["name"]
            if toolbox.needs_approval(name) and not (approve and approve(name)):
                memory.add(tool_message(call, f"error: a person has not approved {name}"))
                for skipped in calls[i + 1:]:                          # answered, never left open
                    memory.add(tool_message(skipped, "error: skipped: the run stopped to ask a person"))
                return {"answer": None, "steps": step, "stopped": "needs_person"}   # stop: a person
            memory.add(tool_message(call, toolbox.run(name, call["function"]["arguments"])))
    return {"answer": None, "steps": max_steps, "stopped": "step_limit"}          # stop: step limit

# %% [markdown]
# Your loop on a test bench first, with prepared replies in every mode: two calls in one reply,
# a tool that does not exist, a refusal in the middle of a reply, a yes from `approve`, a model
# whose network is down.

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
    memory = ListMemory("You test the loop.")
    return attempt(my_run_agent, "test", scripted(replies), bench, memory, max_steps, approve), memory.messages()

LOOP_BENCH = {
    "two calls": bench_run([calls(("divide", {"a": 6, "b": 3}, "c1"), ("divide", {"a": 1, "b": 4}, "c2")), final("2 and 0.25")]),
    "unknown tool": bench_run([call("multiply", id="c1", a=2, b=3), final("no multiply")]),
    "refused mid-reply": bench_run([calls(("divide", {"a": 6, "b": 3}, "c1"), ("wipe", {}, "c2"), ("divide", {"a": 1, "b": 1}, "c3"))]),
    "approved": bench_run([call("wipe", id="c1"), final("wiped")], approve=lambda name: name == "wipe"),
    "step limit": bench_run([call("divide", id=f"c{i}", a=i, b=1) for i in range(1, 5)], max_steps=3),
    "network down": bench_run([failing("network down")]),
}
for label, (result, messages) in LOOP_BENCH.items():
    print(f"{label:17} -> {result}")
    print(" " * 21, [(m["role"], m.get("tool_call_id"), m.get("content")) for m in messages[2:]])

# %% tags=["check"]
result, messages = LOOP_BENCH["two calls"]
# two calls in one reply are both run and answered, in order
assert isinstance(result, dict) and result.get("stopped") == "final" and [
    (m.get("tool_call_id"), m["content"]) for m in messages if m["role"] == "tool"] == [("c1", "2.0"), ("c2", "0.25")], (
    f"a reply with two calls gave {result} and tool messages "
    f"{[(m.get('tool_call_id'), m['content']) for m in messages if m['role'] == 'tool']}; run every call, each "
    "answered with its own id")
result, messages = LOOP_BENCH["unknown tool"]
# an unknown tool is answered with the toolbox's error and the run goes on
assert isinstance(result, dict) and result.get("answer") == "no multiply" and \
    [m["content"] for m in messages if m["role"] == "tool"][0].startswith("error:"), (
    f"a call to an unknown tool gave {result}; send the toolbox's error text back and ask the model again")
result, messages = LOOP_BENCH["refused mid-reply"]
# a refusal answers the refused call and the calls after it, then stops for a person
assert isinstance(result, dict) and (result.get("stopped"), result.get("answer")) == ("needs_person", None) and \
    [m.get("tool_call_id") for m in messages if m["role"] == "tool"] == ["c1", "c2", "c3"] and \
    all(m["content"].startswith("error:") for m in messages if m["role"] == "tool" and m["tool_call_id"] != "c1"), (
    f"divide, wipe (needs approval), divide in one reply gave {result} and tool messages for "
    f"{[m.get('tool_call_id') for m in messages if m['role'] == 'tool']}; answer c2 with an error, c3 as "
    "skipped, and stop with needs_person")
# a yes from approve lets the tool run
assert LOOP_BENCH["approved"][0] == {"answer": "wiped", "steps": 2, "stopped": "final"} and \
    [m["content"] for m in LOOP_BENCH["approved"][1] if m["role"] == "tool"] == ["wiped"], (
    f"with approve saying yes to wipe the run gave {LOOP_BENCH['approved'][0]}; run the tool when approve(name) is true")
# the step limit stops after max_steps steps, with no answer
assert LOOP_BENCH["step limit"][0] == {"answer": None, "steps": 3, "stopped": "step_limit"}, (
    f"four tool replies with max_steps=3 gave {LOOP_BENCH['step limit'][0]}")
# a model that raises stops the run with error and the exception's text in detail
assert isinstance(LOOP_BENCH["network down"][0], dict) and LOOP_BENCH["network down"][0].get("stopped") == "error" \
    and "network down" in LOOP_BENCH["network down"][0].get("detail", ""), (
    f"a model raising 'network down' gave {LOOP_BENCH['network down'][0]}; catch it and return "
    "stopped 'error' with the text in 'detail'")
# on the bench, every tool message answers a call of the message before it, once
assert all(pairing_holds(messages) for _, messages in LOOP_BENCH.values()), (
    "a tool call went unanswered, or a tool message answers no call: "
    + ", ".join(label for label, (_, messages) in LOOP_BENCH.items() if not pairing_holds(messages)))

# %% [markdown]
# ### Exercise 4: the four runs
#
# Add one more tool: `delete_note(note_id)`, which removes a note and returns `deleted`, and
# which must **need a person's approval**. Then prepare four runs (the cell after yours runs
# them with your loop and prints each result with the number of messages in its memory, the
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
# Run A lacks its calculation: `call("calculate", a=1310, b=1105, operation="subtract")` goes
# before the final text. `delete_note` needs `needs_approval=True`, Run B `MAX_STEPS_B = 3`, and
# `failing("network down")` is a model that raises.

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
def delete_note(note_id):
    NOTES.pop(note_id)
    return "deleted"

box.register("delete_note", "Delete one note by id, permanently.",
             {"type": "object", "properties": {"note_id": {"type": "string"}}, "required": ["note_id"]},
             delete_note)

REPLIES_A = [call("search_notes", keyword="visits"), call("read_note", note_id="n1"),
             call("read_note", note_id="n2"), call("calculate", a=1310, b=1105, operation="subtract"),
             final("Eastside, by 205.")]
REPLIES_C = [call("search_notes", keyword="staff"), call("delete_note", note_id="n5"), final("Done.")]
MAX_STEPS_B = 3
MODEL_D = failing("network down")  # fails with a live model too: that is the point of Run D


# %% tags=["wrong"]
# wrong: Run D's model fails with another message
# expect: failing('network down')
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

# %% [markdown]
# The four runs, each with a fresh memory that keeps every message:

# %%
APRIL = "Which branch had more April visits, and by how many?"
runs = {}
for label, task, model, steps in [("A", APRIL, pick_model(REPLIES_A), 6),
                                  ("B", APRIL, pick_model(REPLIES_A), MAX_STEPS_B),
                                  ("C", "Remove the Eastside staff note.", pick_model(REPLIES_C), 6),
                                  ("D", APRIL, MODEL_D, 6)]:
    memory = ListMemory("You are a research helper. Use the tools to answer from the notes.")
    result = attempt(my_run_agent, task, model, box, memory, max_steps=steps, approve=None)
    runs[label] = (result if isinstance(result, dict) else {"stopped": result, "answer": None}, memory)

for label, (result, memory) in runs.items():
    print(f"Run {label}: {result} | {len(memory.history)} messages")
print("n5 afterwards:", attempt(box.run, "read_note", '{"note_id": "n5"}'))
tools_called_in_A = [c["function"]["name"] for m in runs["A"][1].history for c in m.get("tool_calls") or []]

# %% tags=["check"]
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
# in all four runs, every tool message answers a call of the message before it
assert all(pairing_holds(memory.messages()) for _, memory in runs.values()), (
    "a tool message is not paired with its call in runs "
    + ", ".join(label for label, (_, memory) in runs.items() if not pairing_holds(memory.messages())))

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
# ### Exercise 5: `MyMemory`
#
# Write `MyMemory(system_prompt)` with
#
# - `add(message)`;
# - `remember(key, value)`: a fact that appears in the system message on **every** call;
# - `messages(budget=None)`: the system message (it counts as **400 tokens**), then the newest
#   messages that fit. Each message carries a `"tokens"` number. Walk from the newest back,
#   **stop** at the first that would push the total over the budget, and if the oldest kept
#   message is then a tool result, drop it: a window never opens on a result without its
#   request. With no budget, every message.

# %% tags=["exercise"]
class MyMemory:
    """A conversation's messages, and facts, fitted into a token budget."""

    SYSTEM_TOKENS = 400

    def __init__(self, system_prompt):
        self.system_prompt = system_prompt
        self.history = []

    def add(self, message):
        self.history.append(message)

    def remember(self, key, value):
        pass

    def messages(self, budget=None):
        system = {"role": "system", "content": self.system_prompt}
        return [system] + self.history[-5:]

# %% [markdown] tags=["hint"]
# Keep the facts in a dictionary and write them into the system message's text each time
# `messages` is called. For the window, walk from the newest message back, with a running total
# that starts with the system message's size.

# %% [markdown] tags=["hint"]
# `break` (not `continue`) at the first message whose `tokens` would pass the budget: the window
# is a run of the newest messages, with no gaps. Then `while kept and kept[0]["role"] == "tool":
# kept.pop(0)`.

# %% [markdown] tags=["hint"]
# ```python
# class MyMemory:
#     SYSTEM_TOKENS = 400
#
#     def __init__(self, system_prompt):
#         self.system_prompt = system_prompt
#         self.history = []
#         self.facts = {}
#
#     def add(self, message):
#         self.history.append(message)
#
#     def remember(self, key, value):
#         self.facts[key] = value
#
#     def messages(self, budget=None):
#         content = self.system_prompt
#         if self.facts:
#             content += " Known facts: " + "; ".join(f"{k}: {v}" for k, v in self.facts.items())
#         system = {"role": "system", "content": content, "tokens": self.SYSTEM_TOKENS}
#         if budget is None:
#             return [system] + list(self.history)
#         kept, total = [], self.SYSTEM_TOKENS
#         for message in reversed(self.history):
#             if total + message.get("tokens", 0) > budget:
#                 break
#             kept.insert(0, message)
#             total += message.get("tokens", 0)
#         while kept and kept[0]["role"] == "tool":
#             kept.pop(0)
#         return [system] + kept
# ```

# %% tags=["wrong"]
# wrong: skips a message that does not fit and goes on to older ones
# expect: ends the walk
class MyMemory:
    """A conversation's messages, and facts, fitted into a token budget."""

    SYSTEM_TOKENS = 400

    def __init__(self, system_prompt):
        self.system_prompt = system_prompt
        self.history = []
        self.facts = {}

    def add(self, message):
        self.history.append(message)

    def remember(self, key, value):
        self.facts[key] = value

    def messages(self, budget=None):
        content = self.system_prompt
        if self.facts:
            content += " Known facts: " + "; ".join(f"{k}: {v}" for k, v in self.facts.items())
        system = {"role": "system", "content": content, "tokens": self.SYSTEM_TOKENS}
        if budget is None:
            return [system] + list(self.history)
        kept, total = [], self.SYSTEM_TOKENS
        for message in reversed(self.history):
            if total + message.get("tokens", 0) > budget:
                continue
            kept.insert(0, message)
            total += message.get("tokens", 0)
        while kept and kept[0]["role"] == "tool":
            kept.pop(0)                        # never open on a result without its request
        return [system] + kept


# %% tags=["wrong"]
# wrong: keeps a tool result at the front of the window
# expect: must not start on a tool result
class MyMemory:
    """A conversation's messages, and facts, fitted into a token budget."""

    SYSTEM_TOKENS = 400

    def __init__(self, system_prompt):
        self.system_prompt = system_prompt
        self.history = []
        self.facts = {}

    def add(self, message):
        self.history.append(message)

    def remember(self, key, value):
        self.facts[key] = value

    def messages(self, budget=None):
        content = self.system_prompt
        if self.facts:
            content += " Known facts: " + "; ".join(f"{k}: {v}" for k, v in self.facts.items())
        system = {"role": "system", "content": content, "tokens": self.SYSTEM_TOKENS}
        if budget is None:
            return [system] + list(self.history)
        kept, total = [], self.SYSTEM_TOKENS
        for message in reversed(self.history):
            if total + message.get("tokens", 0) > budget:
                break                          # the first that does not fit ends the walk
            kept.insert(0, message)
            total += message.get("tokens", 0)
        return [system] + kept


# %% tags=["wrong"]
# wrong: keeps the facts but never writes them into the system message
# expect: carries the remembered fact
class MyMemory:
    """A conversation's messages, and facts, fitted into a token budget."""

    SYSTEM_TOKENS = 400

    def __init__(self, system_prompt):
        self.system_prompt = system_prompt
        self.history = []
        self.facts = {}

    def add(self, message):
        self.history.append(message)

    def remember(self, key, value):
        self.facts[key] = value

    def messages(self, budget=None):
        content = self.system_prompt
        system = {"role": "system", "content": content, "tokens": self.SYSTEM_TOKENS}
        if budget is None:
            return [system] + list(self.history)
        kept, total = [], self.SYSTEM_TOKENS
        for message in reversed(self.history):
            if total + message.get("tokens", 0) > budget:
                break                          # the first that does not fit ends the walk
            kept.insert(0, message)
            total += message.get("tokens", 0)
        while kept and kept[0]["role"] == "tool":
            kept.pop(0)                        # never open on a result without its request
        return [system] + kept


# %% tags=["solution"]
class MyMemory:
    """A conversation's messages, and facts, fitted into a token budget."""

    SYSTEM_TOKENS = 400

    def __init__(self, system_prompt):
        self.system_prompt = system_prompt
        self.history = []
        self.facts = {}

    def add(self, message):
        self.history.append(message)

    def remember(self, key, value):
        self.facts[key] = value

    def messages(self, budget=None):
        content = self.system_prompt
        if self.facts:
            content += " Known facts: " + "; ".join(f"{k}: {v}" for k, v in self.facts.items())
        system = {"role": "system", "content": content, "tokens": self.SYSTEM_TOKENS}
        if budget is None:
            return [system] + list(self.history)
        kept, total = [], self.SYSTEM_TOKENS
        for message in reversed(self.history):
            if total + message.get("tokens", 0) > budget:
                break                          # the first that does not fit ends the walk
            kept.insert(0, message)
            total += message.get("tokens", 0)
        while kept and kept[0]["role"] == "tool":
            kept.pop(0)                        # never open on a result without its request
        return [system] + kept

# %% [markdown]
# The table, loaded into your memory as real chat messages, each tagged with its position:

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

# more inputs: everything with no budget, a budget below the system message, a gap that stops the walk
everything = window(helper_memory, None)
tiny = window(helper_memory, 300)
gappy = MyMemory("Test.")
for position, (role, tokens) in enumerate([("user", 100), ("assistant", 900), ("user", 50)], start=1):
    gappy.add({"role": role, "content": f"message {position}", "tokens": tokens, "position": position})
gap = window(gappy, 600)
print("no budget:", everything, "| budget 300:", tiny, "| a big message in the middle:", gap)

# %% [markdown]
# Your memory plugs into your loop: Run A again, with `MyMemory` in place of the simplest one.

# %%
again_memory = MyMemory("You are a research helper. Use the tools to answer from the notes.")
again = attempt(my_run_agent, APRIL, pick_model(REPLIES_A), box, again_memory, 6)
again = again if isinstance(again, dict) else {"stopped": again, "answer": None}
print(again)

# %% [markdown]
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
# ### Exercise 6: the approvals table
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
# A reason that answers both reads like "It changes the stored notes outside the program and
# cannot be undone." or "It only reads, so nothing outside the program changes and there is
# nothing to undo." Words such as *outside*, *changes nothing*, *undone*, *permanent*, *back*
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
APPROVALS = {
    "search_notes": (False, "It only reads titles and changes nothing outside the program, so there is nothing to undo."),
    "read_note": (False, "It only reads a note and changes nothing outside the program, so there is nothing to undo."),
    "calculate": (False, "It computes a number and changes nothing outside the program, so there is nothing to undo."),
    "delete_note": (False, "It changes the stored notes outside the program and cannot be undone: the note is gone for good."),
    "rename_note": (False, "It changes a title outside the program, but the change can be undone by renaming it back."),
    "send_summary": (False, "It sends e-mail to people outside the program and cannot be undone once sent."),
}


# %% tags=["wrong"]
# wrong: one-word reasons
# expect: sentence of six words
APPROVALS = {
    "search_notes": (False, "Reads."),
    "read_note": (False, "Reads."),
    "calculate": (False, "Computes."),
    "delete_note": (True, "Permanent."),
    "rename_note": (False, "Reversible."),
    "send_summary": (True, "Irreversible."),
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
from looplab.lesson import chat_with
from looplab.models.rules import rule_model
chat_memory = MyMemory("You are a research helper. Use the tools to answer from the notes.")
chat_with(lambda task: my_run_agent(task, pick_model(rule_model), box, chat_memory), name="research helper",
          suggestions=["read notes n1 and n2", "what is 1310 - 1105"])

# %% tags=["check"]
tool_positions = {i for i, (kind, _) in enumerate(TABLE, start=1) if kind == "tool"}
# the three lists of kept positions rise and never start on a tool result
assert all(isinstance(p, list) and p == sorted(p) and p and p[0] not in tool_positions for p, _ in windows.values()) \
    and len({tuple(p) if isinstance(p, list) else p for p, _ in windows.values()}) == 3, (
    f"kept positions: { {b: p for b, (p, _) in windows.items()} }; each list must be in order and "
    "must not start on a tool result, and each budget keeps its own window")
# no total, system message included, is over its budget
assert all(total is not None and total <= budget for budget, (_, total) in windows.items()), (
    f"totals: { {b: t for b, (_, t) in windows.items()} }; count the system message's 400 tokens too")
# each window holds the newest messages that fit
assert windows == {1300: ([10, 11, 12], 1290), 1500: ([9, 10, 11, 12], 1380), 2100: ([8, 9, 10, 11, 12], 1530)}, (
    f"got {windows}; walk back from the newest, stop at the first that would pass the budget, then "
    "drop a leading tool result")
# with no budget every message is there; below the system message's size, none is
assert everything == (list(range(1, 13)), 400 + sum(t for _, t in TABLE)) and tiny == ([], 400), (
    f"no budget kept {everything[0]} and a budget of 300 kept {tiny[0]}; without a budget return every "
    "message, and with a budget the system message alone may already fill it")
# the walk stops at the first message that does not fit, leaving no gap
assert gap == ([3], 450), (
    f"user 100, assistant 900, user 50 with a budget of 600 kept positions {gap[0]}; the 900-token "
    "message ends the walk, so the older message behind it is not kept either")
# the system message carries the remembered fact, with and without a budget
assert all("March winner" in text and "Eastside" in text for text in system_texts), system_texts
# your loop runs with your memory
expect(again.get("stopped") == "final" and again.get("answer") == "Eastside, by 205.",
       f"Run A with MyMemory gave {again}",
       observed=f"Run A with MyMemory ended {again.get('stopped')!r} with {again.get('answer')!r}")
# given: the table has six rows, one per tool
assert sorted(APPROVALS) == sorted(["search_notes", "read_note", "calculate", "delete_note", "rename_note",
                                    "send_summary"]), f"tools in the table: {sorted(APPROVALS)}"
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
# the toolbox follows the table
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
# - When should a tool need a person's approval? (10, 16)

# %% [markdown]
# ## What the research helper still lacks, and where it comes next
#
# The helper you built answers from six notes with a scripted model. Before it could face real
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
