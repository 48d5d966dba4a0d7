# ---
# jupyter:
#   looplab:
#     core: use it on code – a coding agent on your own toolbox finds and fixes a project's bugs
# ---

# %% [markdown]
# # 25 · A coding agent: read, edit, test, until the tests pass
#
# **Chapter 3 — the agents people use.** In this chapter you build, on parts you wrote earlier, a
# coding agent that fixes a real project (this lesson), a benchmark that says how good it is
# ([lesson 26](#/26-coding-benchmark)), and chapter 2's research helper made ready for users
# ([lesson 27](#/27-research-helper-ready)). By its end you will have three agents you could hand
# to someone: one that reads, edits and tests code until the tests pass; a scoreboard that says,
# in pass@1 and pass^k, how often it does; and a research helper that takes its tools from an MCP
# server, retries only what is safe, withholds planted orders, keeps to a budget, compacts long
# runs and answers in a strict shape — with your own grader's scores, before and after.
#
# A coding agent is the loop of lesson 4 with tools over a folder of files: list them, read a
# window of one, replace a piece of text, write a new file, run the tests. The model reads the
# failures, finds the lines, edits them, runs the tests again, and answers when they pass.
# Coding assistants you may use every day are this loop with more polish.
#
# Two findings of SWE-agent (Yang and others, 2024, arXiv 2405.15793), whose authors built a set
# of tools for a coding model and measured what each changed, shape the tools here:
#
# - **a window of numbered lines**, not the whole file: SWE-agent's file viewer shows 100 lines
#   at a time. The model says "line 12" and means it, and a long file does not flood the context
#   (lesson 8);
# - **an edit that is refused when it breaks the file**: SWE-agent lints every edit and does not
#   write one that does not parse. Here a replacement that leaves Python that no longer compiles
#   is not written, and the model is told the line of the error. Without that, a broken edit is
#   found only later, by a confusing test failure.
#
# What changed since: the same team's mini-swe-agent gives the model nothing but a shell, in
# about a hundred lines of Python, and scores over 74% on SWE-bench Verified, where SWE-agent's
# first version solved 12.5% of the (harder, full) SWE-bench. Its authors' reason is the models:
# as they grew more capable, most of the special tools stopped being needed. A window and a
# guarded edit still save a small model's context and any model some turns, and a page with no
# shell has no bash to give, so this lesson keeps them.
#
# There is no shell in the page (Pyodide cannot start processes), so the tests run with pytest
# inside this Python — which works the same on your machine.
#
# What you reuse: the toolbox you wrote in [lesson 2](#/02-tools) (`MyToolbox`, through
# `mine(2)`), the shape of your loop from [lesson 4](#/04-the-loop) with its four stops, approvals
# from [lesson 10](#/10-policy), a token budget from [lesson 20](#/20-tokens-cost-budgets).
#
# You build three things: `inside(root, path)`, which keeps every path in the project;
# `make_toolbox(root)`, the five tools; and `coding_agent(task, model_fn, root)`, the loop.

# %%
import json
import os
import re
import tempfile
from pathlib import Path

from looplab.budget import read_usage
from looplab import review_edits, expect, attempt, mine
from looplab.models import call, final, model_mode, pick_model, scripted
from looplab import show_project, project_tests, your_project
from looplab.tokens import message_tokens

try:
    import pytest  # noqa: F401  (run_tests runs it; the page loads it for lessons that import it)
except ModuleNotFoundError:
    raise ModuleNotFoundError("this lesson runs pytest, which is not installed here: "
                              "`pip install pytest` (the web page loads it by itself)") from None

my = mine(2)                 # your toolbox from lesson 2 (or the reference, if yours fails there)
MyToolbox = my.MyToolbox

# %% [markdown]
# ## The project
#
# A small shop's stock, as a Python package with its tests: `inventory/stock.py` has three
# functions, and three bugs. `new_project()` lays it out in a fresh folder (in the page, the
# browser's own file system) and returns the folder.

# %%
PROJECT = {
    "README.md": "# inventory\n\nStock levels of a small shop. Run the tests with `pytest`.\n",
    "inventory/__init__.py": '"""Stock levels of a small shop."""\n\nfrom .stock import low_stock, restock, total_units\n',
    "inventory/stock.py": '''"""Stock levels: each item is a dict {"name": ..., "units": ...}."""


def total_units(items):
    """How many units there are of all items together."""
    total = 0
    for item in items[1:]:
        total += item["units"]
    return total


def low_stock(items, threshold=5):
    """The names of the items with fewer than `threshold` units, in the order given."""
    return [item["name"] for item in items if item["units"] > threshold]


def restock(items, name, units):
    """Add `units` to the item called `name`; a name not there yet becomes a new item."""
    if units <= 0:
        raise ValueError(f"units must be positive, not {units}")
    for item in items:
        if item["name"] == name:
            item["units"] = units
            return items
    items.append({"name": name, "units": units})
    return items
''',
    "tests/test_stock.py": '''import pytest

from inventory import low_stock, restock, total_units


def shelf():
    return [{"name": "tea", "units": 3}, {"name": "rice", "units": 12}, {"name": "salt", "units": 0}]


def test_total_counts_every_item():
    assert total_units(shelf()) == 15


def test_total_of_nothing_is_zero():
    assert total_units([]) == 0


def test_low_stock_lists_the_items_below_the_threshold():
    assert low_stock(shelf()) == ["tea", "salt"]


def test_restock_adds_to_what_is_there():
    assert restock(shelf(), "tea", 5)[0] == {"name": "tea", "units": 8}


def test_restock_adds_a_new_item():
    assert restock(shelf(), "oil", 2)[-1] == {"name": "oil", "units": 2}


def test_restock_refuses_nothing():
    with pytest.raises(ValueError):
        restock(shelf(), "tea", 0)
''',
}


def new_project(files=PROJECT):
    """Write the files into a new folder; return the folder."""
    root = Path(tempfile.mkdtemp(prefix="inventory-"))
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    return root


before = project_tests(new_project())
print("the project's tests as it is:", before.summary())
for test, message in before.failed:
    print(" ", test, "-", message.splitlines()[0])

# %% [markdown]
# ## Exercise 1: every path stays in the project
#
# The model chooses the paths. A path it writes may climb out (`../../etc/passwd`), be absolute
# (`/home/you/.ssh/id_rsa`), or pass through a symbolic link that points outside. A tool must
# refuse all three — this is lesson 10's least privilege for files.
#
# Write `inside(root, path)`: the full path of `path` inside `root`, or a `ValueError` whose
# text says what is allowed. Compare **resolved** paths (`Path.resolve()` follows `..` and
# symlinks), and compare them as paths, not as strings: `/tmp/shop-old` starts with the text
# `/tmp/shop` but is not inside it.

# %% tags=["exercise"]
def inside(root, path):
    """The full path of `path` inside the folder `root`; ValueError when it would leave it."""
    return Path(root) / path

# %% [markdown] tags=["hint"]
# Resolve both, the root and the root joined with the path, then ask whether one is inside the
# other. Joining an absolute path to a folder gives the absolute path itself, so that case needs
# no rule of its own.

# %% [markdown] tags=["hint"]
# `Path.resolve()` makes a path absolute and follows `..` and symlinks; `a.is_relative_to(b)`
# says whether `a` is `b` or under it (a string's `startswith` is fooled by `/tmp/shop-old`).

# %% [markdown] tags=["hint"]
# ```python
# def inside(root, path):
#     base = Path(root).resolve()
#     full = (base / path).resolve()
#     if not full.is_relative_to(base):
#         raise ValueError(f"{path!r} is outside the project; use a path relative to the project "
#                          f"folder, such as 'inventory/stock.py'")
#     return full
# ```

# %% tags=["wrong"]
# wrong: only looks for ".." in the text, so an absolute path gets through
# expect: absolute
# replaces: inside
def inside(root, path):
    """The full path of `path` inside the folder `root`; ValueError when it would leave it."""
    if ".." in str(path):
        raise ValueError(f"{path!r} climbs out of the project")
    return Path(root) / path

# %% tags=["wrong"]
# wrong: compares the paths as strings, so a sibling folder with a longer name counts as inside
# expect: sibling
# patch:
# -    if not full.is_relative_to(base):
# -        raise ValueError(f"{path!r} is outside the project; use a path relative to the project "
# -                         f"folder, such as 'inventory/stock.py'")
# +    if not str(full).startswith(str(base)):
# +        raise ValueError(f"{path!r} is outside the project")

# %% tags=["wrong"]
# wrong: tidies the path without following symlinks, so a link that points out is let through
# expect: symlink
# replaces: inside
def inside(root, path):
    """The full path of `path` inside the folder `root`; ValueError when it would leave it."""
    base = os.path.abspath(root)
    full = os.path.normpath(os.path.join(base, path))
    if os.path.commonpath([base, full]) != base:
        raise ValueError(f"{path!r} is outside the project")
    return Path(full)

# %% tags=["solution"]
def inside(root, path):
    """The full path of `path` inside the folder `root`; ValueError when it would leave it."""
    base = Path(root).resolve()
    full = (base / path).resolve()
    if not full.is_relative_to(base):
        raise ValueError(f"{path!r} is outside the project; use a path relative to the project "
                         f"folder, such as 'inventory/stock.py'")
    return full

# %%
def refused(function, *args):
    """The text of the ValueError `function(*args)` raises, or None when it does not raise one."""
    try:
        function(*args)
    except ValueError as exc:
        return str(exc) or "(a ValueError with no text)"
    except Exception as exc:
        return f"raised {type(exc).__name__}, not ValueError: {exc}"
    return None


SANDBOX = Path(tempfile.mkdtemp(prefix="sandbox-"))
(SANDBOX / "shop").mkdir()
(SANDBOX / "shop" / "notes.txt").write_text("inside\n")
(SANDBOX / "shop-old").mkdir()
(SANDBOX / "secret.txt").write_text("outside\n")
try:
    (SANDBOX / "shop" / "link").symlink_to(SANDBOX / "secret.txt")
    SYMLINKS = True
except OSError:  # a file system without symlinks: that check is then about a plain file
    SYMLINKS = False
SHOP = SANDBOX / "shop"
print("inside(SHOP, 'notes.txt') ->", inside(SHOP, "notes.txt"))
for path in ("../secret.txt", str(SANDBOX / "secret.txt"), "../shop-old/x", "link"):
    print(f"inside(SHOP, {path!r}) ->", refused(inside, SHOP, path) or "allowed")

# %% tags=["check"]
import shutil

from looplab import Case, Said, compare, reference, scenarios


def placing(inside_fn, path):
    """Where inside puts a path (resolved), or its refusal: a ValueError that says what is allowed."""
    try:
        return {"the path": Path(inside_fn(str(SHOP), path)).resolve()}
    except ValueError as exc:
        return {"the path": Said(f"refused: {exc}", ("refused", "relative" in str(exc).lower()))}


PLACES = [Case((p,), repr(p)) for p in (
    "notes.txt", "sub/../notes.txt", ".", "", "../secret.txt", "../shop-old/x", "../shop/notes.txt",
    "sub/../../shop/notes.txt", str(SHOP / "notes.txt"), str(SANDBOX / "secret.txt"), "/etc/passwd",
    *(["link"] if SYMLINKS else []))]

# `inside` refuses a path that climbs out with .., and gives a file in the project its full path
assert refused(inside, SHOP, "../secret.txt") and refused(inside, SHOP, "notes.txt") is None \
    and Path(inside(SHOP, "notes.txt")).read_text() == "inside\n", \
    ("inside(SHOP, '../secret.txt') was allowed: resolve the path first" if not refused(inside, SHOP, "../secret.txt")
     else "inside(SHOP, 'notes.txt') should return the file's full path: look at how you join and return")
# `inside` refuses an absolute path outside the project
assert refused(inside, SHOP, str(SANDBOX / "secret.txt")), \
    "an absolute path outside the project was allowed: joining /x to a folder gives /x, so check the result"
# `inside` refuses a sibling folder whose name starts like the project's
assert refused(inside, SHOP, "../shop-old/x"), \
    "'../shop-old/x' was allowed: a sibling folder's name starts with 'shop' — compare paths, not strings"
# `inside` refuses a symlink that leads out of the project
assert not SYMLINKS or refused(inside, SHOP, "link"), \
    "the symlink 'link' points outside the project and was allowed: resolve() follows symlinks"
# inside places and refuses paths as the lesson's does
assert (inside_found := compare(inside, reference("inside"), PLACES, observe=placing)), inside_found
# the refusal says what would work
assert "relative" in (refused(inside, SHOP, "/etc/passwd") or "").lower(), \
    f"the ValueError says {refused(inside, SHOP, '/etc/passwd')!r}; say what is allowed (a path relative to the project)"

# %% [markdown]
# ## Exercise 2: the five tools
#
# `make_toolbox(root)` registers the tools on your `MyToolbox`. Three are written for you, in
# the cell below:
#
# - `list_files(path=".")`: the files under a folder, one path a line;
# - `write_file(path, text)`: a new file (it refuses to overwrite one: that is `edit_file`'s job);
# - `run_tests(path=".")`: pytest on the project, in-process — the counts, then each failure's
#   test and its assertion, cut short so a hundred failures do not fill the context.
#
# You write the two that matter most:
#
# - `read_file(path, start=1, count=100)`: a header such as `inventory/stock.py, lines 1–100
#   of 240` (a dash or a plain hyphen between the numbers), then each line with its number (`12: def low_stock(...)`), only the lines of the
#   window. A missing file is an `error:` that says how to find the right name.
# - `edit_file(path, old, new)`: `old` must occur **exactly once**; then it is replaced by `new`.
#   No such file, `old` not found, or found several times: an `error:` that says what would work
#   (how many times, and to include more of the lines around it). An edit that leaves a `.py`
#   file that does not compile is refused, the file left as it was, and the error names the line.
#
# And you decide which tools need a person's approval: the ones that change the project.

# %%
def given_tools(root):
    """list_files, write_file and run_tests over the project folder `root`, written for you."""
    def list_files(path="."):
        folder = inside(root, path)
        if not folder.is_dir():
            return f"error: {path!r} is not a folder; list_files('.') lists the whole project"
        found = sorted(str(p.relative_to(inside(root, "."))) for p in folder.rglob("*")
                       if p.is_file() and "__pycache__" not in p.parts)
        return "\n".join(found) or f"{path} has no files"

    def write_file(path, text):
        file = inside(root, path)
        if file.exists():
            return f"error: {path} exists; change it with edit_file"
        file.parent.mkdir(parents=True, exist_ok=True)
        file.write_text(text)
        return f"wrote {path} ({len(text.splitlines())} lines)"

    def run_tests(path="."):
        run = project_tests(inside(root, "."), path)
        lines = [run.summary()] + run.errors + [f"FAILED {test}: {message}" for test, message in run.failed]
        text = "\n".join(lines)
        return text if len(text) <= 2000 else text[:2000] + "\n… (cut: fix these first)"

    return list_files, write_file, run_tests


TEXT, NUMBER = {"type": "string"}, {"type": "integer"}
TOOLS = {  # name -> (description, parameters), for box.register(name, *TOOLS[name], func, ...)
    "list_files": ("List the project's files under a folder ('.' for all).",
                   {"type": "object", "properties": {"path": TEXT}, "required": []}),
    "read_file": ("Read lines of a file, numbered: `count` lines from line `start`.",
                  {"type": "object", "properties": {"path": TEXT, "start": NUMBER, "count": NUMBER},
                   "required": ["path"]}),
    "edit_file": ("Replace the one place where `old` occurs in a file by `new`.",
                  {"type": "object", "properties": {"path": TEXT, "old": TEXT, "new": TEXT},
                   "required": ["path", "old", "new"]}),
    "write_file": ("Create a new file with this text.",
                   {"type": "object", "properties": {"path": TEXT, "text": TEXT}, "required": ["path", "text"]}),
    "run_tests": ("Run the project's tests (pytest) and report the failures.",
                  {"type": "object", "properties": {"path": TEXT}, "required": []}),
}

# %% tags=["exercise"]
def make_toolbox(root):
    """The coding tools over the project folder `root`, on your MyToolbox."""
    list_files, write_file, run_tests = given_tools(root)

    def read_file(path, start=1, count=100):
        return inside(root, path).read_text()

    def edit_file(path, old, new):
        file = inside(root, path)
        file.write_text(file.read_text().replace(old, new))
        return f"edited {path}"

    box = MyToolbox()
    for name, func in [("list_files", list_files), ("read_file", read_file), ("edit_file", edit_file),
                       ("write_file", write_file), ("run_tests", run_tests)]:
        box.register(name, *TOOLS[name], func)
    return box

# %% [markdown] tags=["hint"]
# For `read_file`: split the text into lines, take a slice for the window (line numbers start at
# 1, list indexes at 0), and put the header first. For `edit_file`: count before you replace,
# and check the new text before you write it. Two of the five tools change files.

# %% [markdown] tags=["hint"]
# - `lines[start - 1:start - 1 + count]`, numbered with `enumerate(..., start=start)`; the last
#   shown line is `start + len(window) - 1`.
# - `text.count(old)` tells 0, 1 or many; `text.replace(old, new, 1)` replaces one.
# - `compile(new_text, path, "exec")` raises `SyntaxError` with `.lineno` and `.msg`; write only
#   when it does not.
# - `needs_approval=name in ("edit_file", "write_file")` in the register call.

# %% [markdown] tags=["hint"]
# ```python
#     def read_file(path, start=1, count=100):
#         file = inside(root, path)
#         if not file.is_file():
#             return f"error: no file {path!r}; list_files('.') shows the project's files"
#         lines = file.read_text().splitlines()
#         window = lines[start - 1:start - 1 + count]
#         end = start + len(window) - 1
#         head = f"{path}, lines {start}–{end} of {len(lines)}"
#         return "\n".join([head] + [f"{n}: {line}" for n, line in enumerate(window, start=start)])
#
#     def edit_file(path, old, new):
#         file = inside(root, path)
#         if not file.is_file():
#             return f"error: no file {path!r}; write_file creates a new one, list_files shows them"
#         text = file.read_text()
#         found = text.count(old)
#         if found != 1:
#             where = "not found" if not found else f"found {found} times"
#             return (f"error: `old` was {where} in {path}; copy it exactly from read_file, with "
#                     f"enough of the lines around it to occur once")
#         changed = text.replace(old, new, 1)
#         if path.endswith(".py"):
#             try:
#                 compile(changed, path, "exec")
#             except SyntaxError as exc:
#                 return (f"error: the edit was not made: {path} would not compile "
#                         f"(line {exc.lineno}: {exc.msg}); the file is unchanged")
#         file.write_text(changed)
#         return f"edited {path}: 1 place replaced"
# ```
# and register with `box.register(name, *TOOLS[name], func, needs_approval=name in ("edit_file", "write_file"))`.

# %% tags=["wrong"]
# wrong: replaces every occurrence of `old` instead of refusing when there are several
# expect: several
# patch:
# -        if found != 1:
# +        if found == 0:
# @@
# -        changed = text.replace(old, new, 1)
# +        changed = text.replace(old, new)

# %% tags=["wrong"]
# wrong: writes the edit first and checks that it compiles afterwards, leaving the broken file behind
# expect: unchanged
# patch:
#          changed = text.replace(old, new, 1)
# +        file.write_text(changed)

# %% tags=["wrong"]
# wrong: numbers the window from 0 and forgets the header, so "line 12" means two different lines
# expect: header
# patch:
# -        window = lines[start - 1:start - 1 + count]
# +        window = lines[start:start + count]
# @@
# -        return "\n".join([head] + [f"{n}: {line}" for n, line in enumerate(window, start=start)])
# +        return "\n".join(f"{n}: {line}" for n, line in enumerate(window, start=start - 1))

# %% tags=["wrong"]
# wrong: asks for approval only before edit_file, so a new file is written with nobody asked
# expect: approval
# patch:
# -        box.register(name, *TOOLS[name], func, needs_approval=name in ("edit_file", "write_file"))
# +        box.register(name, *TOOLS[name], func, needs_approval=name == "edit_file")

# %% tags=["wrong"]
# right: the header with a plain hyphen, as a keyboard types it
# patch:
# -        head = f"{path}, lines {start}–{end} of {len(lines)}"
# +        head = f"{path}, lines {start}-{end} of {len(lines)}"

# %% tags=["solution"]
def make_toolbox(root):
    """The coding tools over the project folder `root`, on your MyToolbox."""
    list_files, write_file, run_tests = given_tools(root)

    def read_file(path, start=1, count=100):
        file = inside(root, path)
        if not file.is_file():
            return f"error: no file {path!r}; list_files('.') shows the project's files"
        lines = file.read_text().splitlines()
        window = lines[start - 1:start - 1 + count]
        end = start + len(window) - 1
        head = f"{path}, lines {start}–{end} of {len(lines)}"
        return "\n".join([head] + [f"{n}: {line}" for n, line in enumerate(window, start=start)])

    def edit_file(path, old, new):
        file = inside(root, path)
        if not file.is_file():
            return f"error: no file {path!r}; write_file creates a new one, list_files shows them"
        text = file.read_text()
        found = text.count(old)
        if found != 1:
            where = "not found" if not found else f"found {found} times"
            return (f"error: `old` was {where} in {path}; copy it exactly from read_file, with "
                    f"enough of the lines around it to occur once")
        changed = text.replace(old, new, 1)
        if path.endswith(".py"):
            try:
                compile(changed, path, "exec")
            except SyntaxError as exc:
                return (f"error: the edit was not made: {path} would not compile "
                        f"(line {exc.lineno}: {exc.msg}); the file is unchanged")
        file.write_text(changed)
        return f"edited {path}: 1 place replaced"

    box = MyToolbox()
    for name, func in [("list_files", list_files), ("read_file", read_file), ("edit_file", edit_file),
                       ("write_file", write_file), ("run_tests", run_tests)]:
        box.register(name, *TOOLS[name], func, needs_approval=name in ("edit_file", "write_file"))
    return box

# %% [markdown] tags=["predict"]
# `inventory/stock.py` has the text `item["units"]` on three lines. The model asks
# `edit_file("inventory/stock.py", 'item["units"]', 'item["stock"]')`. What comes back?
#
# - [ ] `edited inventory/stock.py`, with all three replaced
# - [ ] `edited inventory/stock.py`, with the first one replaced
# - [x] an `error:` saying it was found 3 times, and the file is unchanged
#
# Which of the three did the model mean? The tool cannot know, so it refuses and says how to make
# `old` unique: copy more of the line, or the lines around it.

# %%
def run_tool(box, name, **arguments):
    """Your toolbox's answer to one call, as the model would get it."""
    return box.run(name, json.dumps(arguments))


scratch = new_project()
box = make_toolbox(scratch)
stock = scratch / "inventory" / "stock.py"
original = stock.read_text()
print(run_tool(box, "read_file", path="inventory/stock.py", start=12, count=4))
twice = run_tool(box, "edit_file", path="inventory/stock.py", old='item["units"]', new='item["stock"]')
print(twice)
unchanged_after_twice = stock.read_text() == original
broken = run_tool(box, "edit_file", path="inventory/stock.py", old="    return total\n", new="    return (total\n")
print(broken)
unchanged_after_broken = stock.read_text() == original
fixed = run_tool(box, "edit_file", path="inventory/stock.py", old="items[1:]", new="items")
print(fixed)
missing = run_tool(box, "edit_file", path="inventory/stok.py", old="a", new="b")
not_found = run_tool(box, "edit_file", path="inventory/stock.py", old="items[2:]", new="items")
OUTSIDE = f"../{scratch.name}-secret.txt"  # a file beside the project, not in it, wherever temp files live
(scratch / OUTSIDE).write_text("root: not the project's to read\n")
escape = run_tool(box, "read_file", path=OUTSIDE)
long_file = "\n".join(f"line {n}" for n in range(1, 241)) + "\n"
(scratch / "long.txt").write_text(long_file)
window = run_tool(box, "read_file", path="long.txt", start=101, count=100)
first = run_tool(box, "read_file", path="long.txt")
print(window.splitlines()[0], "…", window.splitlines()[-1])

# %% tags=["check"]
def files_of(root):
    """The project's files and their text (pytest's caches left out)."""
    return {str(p.relative_to(root)): p.read_text() for p in sorted(Path(root).rglob("*"))
            if p.is_file() and not {"__pycache__", ".pytest_cache"} & set(p.parts)}


def fact_error(text, name, arguments, before):
    """An error: text, with what the lesson asks it to say for this call (how many times, which line …)."""
    old = arguments.get("old", "")
    known = before.get(arguments.get("path", ""), "")
    facts = ("list_files" in text if name == "read_file" else
             f"{known.count(old)} times" in text if name == "edit_file" and known.count(old) > 1 else
             "not found" in text if name == "edit_file" and known and known.count(old) == 0 else
             "line" in text if name == "edit_file" and known.count(old) == 1 else True)
    return Said(repr(text)[:90], ("error", facts))


TOOL_CALLS = [
    ("read_file", {"path": "inventory/stock.py"}), ("read_file", {"path": "inventory/stock.py", "start": 5, "count": 3}),
    ("read_file", {"path": "README.md", "start": 2, "count": 50}), ("read_file", {"path": "nope.py"}),
    ("read_file", {"path": "../../etc/passwd"}), ("read_file", {"path": "inventory/stock.py", "start": 30, "count": 1}),
    ("edit_file", {"path": "inventory/stock.py", "old": "items[1:]", "new": "items"}),
    ("edit_file", {"path": "inventory/stock.py", "old": 'item["units"]', "new": "x"}),
    ("edit_file", {"path": "inventory/stock.py", "old": "    return total\n", "new": "    return (total\n"}),
    ("edit_file", {"path": "README.md", "old": "# inventory", "new": "# inventory (\n"}),
    ("edit_file", {"path": "inventory/stock.py", "old": "no such text", "new": "x"}),
    ("edit_file", {"path": "nope.py", "old": "a", "new": "b"}), ("write_file", {"path": "new.txt", "text": "hi"}),
    ("list_files", {}), ("run_tests", {})]


def toolbox_does(make_fn, calls_made):
    """The tools made for a fresh project: approvals, then each call's answer and the files after it."""
    root = new_project()
    try:
        box, out = make_fn(root), {}
        out["needs approval"] = {name: box.needs_approval(name) for name in TOOLS}
        for n, (name, arguments) in enumerate(calls_made):
            before = files_of(root)
            said = box.run(name, json.dumps(arguments))
            out[f"call {n + 1}, {name}({arguments})"] = fact_error(said, name, arguments, before) if str(
                said).startswith("error:") else said.replace(str(root), "<root>").replace("\u2013", "-")
            out[f"the files after call {n + 1}"] = files_of(root)
        return out
    finally:
        shutil.rmtree(root, ignore_errors=True)


TOOL_RUNS = [Case(([c],), f"one call: {c[0]}({c[1]})") for c in TOOL_CALLS] + [
    Case((TOOL_CALLS[6:8] + TOOL_CALLS[:1],), "an edit, another, then a read")]

# read_file starts with a header: the lines shown and how many there are ("lines 1-100 of 240")
assert first.splitlines()[0].replace("\u2013", "-").endswith("lines 1-100 of 240"), \
    f"read_file('long.txt') starts with {first.splitlines()[0]!r}; the header should end 'lines 1-100 of 240' " \
    "(with a hyphen or a dash)"
# read_file numbers each line from 1, and shows only the window
assert first.splitlines()[1] == "1: line 1" and len(first.splitlines()) == 101, \
    f"after the header, read_file's first line is {first.splitlines()[1:2]}, and it has {len(first.splitlines())} lines; expected '1: line 1' and 100 numbered lines"
# a window further down: lines 101 to 200, numbered as in the file
assert window.splitlines()[0].replace("\u2013", "-").endswith("lines 101-200 of 240") and window.splitlines()[1] == "101: line 101" \
    and window.splitlines()[-1] == "200: line 200", \
    f"read_file(start=101) gave {window.splitlines()[0]!r} … {window.splitlines()[-1]!r}; expected lines 101 to 200"
# read_file of a file that is not there is an error that says how to find the names
assert run_tool(box, "read_file", path="nope.py").startswith("error:") and "list_files" in run_tool(box, "read_file", path="nope.py"), \
    f"read_file('nope.py') gave {run_tool(box, 'read_file', path='nope.py')!r}; start with 'error:' and point to list_files"
# edit_file refuses an `old` found several times, says how many and changes nothing; one match is edited
assert twice.startswith("error:") and "3 times" in twice and unchanged_after_twice \
    and not fixed.startswith("error:") and "for item in items:" in stock.read_text(), \
    (f"an `old` that occurs 3 times gave {twice!r} (file unchanged: {unchanged_after_twice}); several matches: refuse, say how many"
     if not (twice.startswith("error:") and "3 times" in twice and unchanged_after_twice) else
     f"edit_file('items[1:]' -> 'items') gave {fixed!r}; the file should now say 'for item in items:'")
# edit_file refuses an edit that breaks the Python file, names the line, and leaves the file unchanged
assert broken.startswith("error:") and "line" in broken and unchanged_after_broken, \
    f"a breaking edit gave {broken!r}, file unchanged: {unchanged_after_broken}; compile before you write"
# edit_file with no such file, or an `old` not there, says what would work
assert missing.startswith("error:") and not_found.startswith("error:") and "not found" in not_found, \
    f"a missing file gave {missing!r}, a missing `old` gave {not_found!r}; each an 'error:' that says what would work"
# the tools refuse a path out of the project
assert escape.startswith("error:") and "root:" not in escape, f"read_file({OUTSIDE!r}) gave {escape[:80]!r}"
# your tools answer, change and ask for approval as the lesson's do, call by call
assert (tools_found := compare(make_toolbox, reference("make_toolbox"), TOOL_RUNS, observe=toolbox_does)), tools_found
# edit_file and write_file need a person's approval; reading does not
assert box.needs_approval("edit_file") and box.needs_approval("write_file") and not box.needs_approval("read_file"), \
    "edit_file and write_file change the project: register them with needs_approval=True"

# %% [markdown]
# ## Exercise 3: the loop
#
# `coding_agent(task, model_fn, root, max_steps=20, max_tokens=60_000, approve=None)` is your
# loop of lesson 4 with the coding tools, and two more rules:
#
# - a **token budget**: before each model call, when the tokens spent so far have reached
#   `max_tokens`, stop with `step_limit` and a detail that names the budget (lesson 20). What a
#   call spent is its reply's `usage` when the model says, else an estimate: `spent(messages,
#   reply)` below does that for you.
# - **no answer before the tests**: when the model answers but a file was changed since the last
#   `run_tests`, the run does not end. Add a user message that says to run the tests, and go on.
#   Only an answer with the tests run after the last edit ends the run with `final`.
#
# A tool that needs approval runs only when `approve(name, arguments)` says yes; otherwise the
# run stops with `needs_person`, every call answered, as in lesson 4. Return `(result,
# messages)`; the result has `answer`, `steps`, `stopped`, `tokens`, and `detail` when it failed.

# %%
SYSTEM = ("You fix Python projects. Read the failing tests' messages, find the code with list_files "
          "and read_file, change it with edit_file, and run run_tests after every change. When the "
          "tests pass, answer with a short summary of what you changed.")


def spent(messages, reply):
    """The tokens one model call spent: its usage when the reply says, else an estimate."""
    usage = read_usage(reply.get("usage"))
    if usage:
        return usage["total"]
    return sum(message_tokens(m) for m in messages) + message_tokens(reply)

# %% tags=["exercise"]
def coding_agent(task, model_fn, root, max_steps=20, max_tokens=60_000, approve=None):
    """Fix the project in `root` for `task`; return (result, messages)."""
    box = make_toolbox(root)
    messages = [{"role": "system", "content": SYSTEM}, {"role": "user", "content": task}]
    tokens = 0
    for step in range(1, max_steps + 1):
        reply = model_fn(messages, box.schemas())
        tokens += spent(messages, reply)
        messages.append(reply)
        if not reply.get("tool_calls"):
            return {"answer": reply.get("content"), "steps": step, "stopped": "final", "tokens": tokens}, messages
        for tool_call in reply["tool_calls"]:
            result = box.run(tool_call["function"]["name"], tool_call["function"]["arguments"])
            messages.append({"role": "tool", "tool_call_id": tool_call["id"], "content": result})
    return {"answer": None, "steps": max_steps, "stopped": "step_limit", "tokens": tokens}, messages

# %% [markdown] tags=["hint"]
# Keep two facts as the run goes: has a file changed, and have the tests run since? A successful
# `edit_file` or `write_file` sets the first and clears the second; a `run_tests` sets the
# second. The budget check goes at the top of each step, before the model is called.

# %% [markdown] tags=["hint"]
# - Budget: once the tokens used reach `max_tokens`, stop with `step_limit` and a `detail` that
#   names the budget and the tokens spent.
# - Answer too early: a reply with no tool calls, while a file changed and the tests have not run
#   since, is not the answer: append a user message asking to run the tests first, and go round
#   again.
# - Approvals, errors and the refused calls: as in your loop of lesson 4, with
#   `approve(name, arguments)`.

# %% [markdown] tags=["hint"]
# ```python
# def coding_agent(task, model_fn, root, max_steps=20, max_tokens=60_000, approve=None):
#     box = make_toolbox(root)
#     messages = [{"role": "system", "content": SYSTEM}, {"role": "user", "content": task}]
#     tokens, changed, tested = 0, False, False
#     for step in range(1, max_steps + 1):
#         if tokens >= max_tokens:
#             return {"answer": None, "steps": step - 1, "stopped": "step_limit", "tokens": tokens,
#                     "detail": f"the token budget of {max_tokens} is spent ({tokens} tokens)"}, messages
#         try:
#             reply = model_fn(messages, box.schemas())
#         except Exception as exc:
#             return {"answer": None, "steps": step, "stopped": "error", "tokens": tokens,
#                     "detail": str(exc)}, messages
#         tokens += spent(messages, reply)
#         messages.append(reply)
#         if not reply.get("tool_calls"):
#             if changed and not tested:
#                 messages.append({"role": "user", "content": "You changed files after the last "
#                                  "run_tests: run the tests before you answer."})
#                 continue
#             return {"answer": reply.get("content"), "steps": step, "stopped": "final",
#                     "tokens": tokens}, messages
#         refused = None
#         for tool_call in reply["tool_calls"]:
#             name, arguments = tool_call["function"]["name"], tool_call["function"]["arguments"]
#             if refused:
#                 result = f"error: not run: the run stopped to ask a person about {refused}"
#             elif box.needs_approval(name) and not (approve and approve(name, arguments)):
#                 refused, result = name, f"error: a person has not approved {name}"
#             else:
#                 result = box.run(name, arguments)
#                 if name in ("edit_file", "write_file") and not result.startswith("error:"):
#                     changed, tested = True, False
#                 if name == "run_tests" and not result.startswith("error:"):
#                     tested = True
#             messages.append({"role": "tool", "tool_call_id": tool_call["id"], "content": result})
#         if refused:
#             return {"answer": None, "steps": step, "stopped": "needs_person", "tokens": tokens}, messages
#     return {"answer": None, "steps": max_steps, "stopped": "step_limit", "tokens": tokens}, messages
# ```

# %% tags=["wrong"]
# wrong: ends the run on the first answer, even when files changed after the last run_tests
# expect: tests
# patch:
# -    tokens, changed, tested = 0, False, False
# +    tokens = 0
# @@
# -                    "detail": f"the token budget of {max_tokens} is spent ({tokens} tokens)"}, messages
# +                    "detail": f"the token budget of {max_tokens} is spent"}, messages
# @@
# -            return {"answer": None, "steps": step, "stopped": "error", "tokens": tokens,
# -                    "detail": str(exc)}, messages
# +            return {"answer": None, "steps": step, "stopped": "error", "tokens": tokens, "detail": str(exc)}, messages
# @@
# -            if changed and not tested:                                           # not yet: test first
# -                messages.append({"role": "user", "content": "You changed files after the last "
# -                                 "run_tests: run the tests before you answer."})
# -                continue
# -            return {"answer": reply.get("content"), "steps": step, "stopped": "final",
# -                    "tokens": tokens}, messages                                  # stop: final answer
# +            return {"answer": reply.get("content"), "steps": step, "stopped": "final", "tokens": tokens}, messages
# @@
# -                if name in ("edit_file", "write_file") and not result.startswith("error:"):
# -                    changed, tested = True, False
# -                if name == "run_tests" and not result.startswith("error:"):
# -                    tested = True

# %% tags=["wrong"]
# wrong: counts the tokens but never stops for them, so a long run spends without limit
# expect: budget
# patch:
# -        if tokens >= max_tokens:                                                 # stop: budget spent
# -            return {"answer": None, "steps": step - 1, "stopped": "step_limit", "tokens": tokens,
# -                    "detail": f"the token budget of {max_tokens} is spent ({tokens} tokens)"}, messages
# @@
# -            return {"answer": None, "steps": step, "stopped": "error", "tokens": tokens,
# -                    "detail": str(exc)}, messages
# +            return {"answer": None, "steps": step, "stopped": "error", "tokens": tokens, "detail": str(exc)}, messages
# @@
# -                messages.append({"role": "user", "content": "You changed files after the last "
# -                                 "run_tests: run the tests before you answer."})
# -                continue
# -            return {"answer": reply.get("content"), "steps": step, "stopped": "final",
# -                    "tokens": tokens}, messages                                  # stop: final answer
# +                messages.append({"role": "user", "content": "Run the tests before you answer."})
# +                continue
# +            return {"answer": reply.get("content"), "steps": step, "stopped": "final", "tokens": tokens}, messages
# @@
# -                if name == "run_tests" and not result.startswith("error:"):
# +                if name == "run_tests":

# %% tags=["solution"]
def coding_agent(task, model_fn, root, max_steps=20, max_tokens=60_000, approve=None):
    """Fix the project in `root` for `task`; return (result, messages)."""
    box = make_toolbox(root)
    messages = [{"role": "system", "content": SYSTEM}, {"role": "user", "content": task}]
    tokens, changed, tested = 0, False, False
    for step in range(1, max_steps + 1):
        if tokens >= max_tokens:                                                 # stop: budget spent
            return {"answer": None, "steps": step - 1, "stopped": "step_limit", "tokens": tokens,
                    "detail": f"the token budget of {max_tokens} is spent ({tokens} tokens)"}, messages
        try:
            reply = model_fn(messages, box.schemas())
        except Exception as exc:                                                 # stop: error
            return {"answer": None, "steps": step, "stopped": "error", "tokens": tokens,
                    "detail": str(exc)}, messages
        tokens += spent(messages, reply)
        messages.append(reply)
        if not reply.get("tool_calls"):
            if changed and not tested:                                           # not yet: test first
                messages.append({"role": "user", "content": "You changed files after the last "
                                 "run_tests: run the tests before you answer."})
                continue
            return {"answer": reply.get("content"), "steps": step, "stopped": "final",
                    "tokens": tokens}, messages                                  # stop: final answer
        refused = None
        for tool_call in reply["tool_calls"]:
            name, arguments = tool_call["function"]["name"], tool_call["function"]["arguments"]
            if refused:
                result = f"error: not run: the run stopped to ask a person about {refused}"
            elif box.needs_approval(name) and not (approve and approve(name, arguments)):
                refused, result = name, f"error: a person has not approved {name}"
            else:
                result = box.run(name, arguments)
                if name in ("edit_file", "write_file") and not result.startswith("error:"):
                    changed, tested = True, False
                if name == "run_tests" and not result.startswith("error:"):
                    tested = True
            messages.append({"role": "tool", "tool_call_id": tool_call["id"], "content": result})
        if refused:                                                              # stop: needs a person
            return {"answer": None, "steps": step, "stopped": "needs_person", "tokens": tokens}, messages
    return {"answer": None, "steps": max_steps, "stopped": "step_limit", "tokens": tokens}, messages

# %% [markdown]
# ## Testing the loop with prepared replies
#
# As in lesson 4, prepared replies test your loop, not a model, in every mode. The first model
# edits a file and answers at once; the second never stops reading; the third asks to edit with
# nobody to approve.

# %%
def tools_called(messages):
    """The names of the tools the model asked for, in order."""
    return [c["function"]["name"] for m in messages if m.get("role") == "assistant"
            for c in m.get("tool_calls") or []]


def tests_after_last_edit(messages):
    """True when no file was changed, or run_tests ran after the last change (a refused edit is none)."""
    results = {m.get("tool_call_id"): m.get("content") or "" for m in messages if m.get("role") == "tool"}
    done = [(c["function"]["name"], results.get(c["id"], "error: no answer")) for m in messages
            if m.get("role") == "assistant" for c in m.get("tool_calls") or []]
    changes = [i for i, (name, said) in enumerate(done)
               if name in ("edit_file", "write_file") and not said.startswith("error:")]
    return not changes or any(name == "run_tests" for name, _ in done[changes[-1] + 1:])


def yes(name, arguments):
    return True


hasty = scripted([call("edit_file", path="inventory/stock.py", old="items[1:]", new="items"),
                  final("Fixed."), call("run_tests"), final("Fixed, and the tests ran.")])
hasty_run, hasty_messages = attempt(coding_agent, "Fix total_units.", hasty, new_project(), approve=yes)
print("hasty:", hasty_run.get("stopped"), hasty_run.get("steps"), tools_called(hasty_messages))

reader = scripted([call("read_file", path="README.md")] * 30)
budget_run, _ = attempt(coding_agent, "Read forever.", reader, new_project(), max_steps=30, max_tokens=1500)
print("reader:", budget_run)

nobody = scripted([call("edit_file", path="inventory/stock.py", old="items[1:]", new="items"), final("Done.")])
nobody_root = new_project()
nobody_run, nobody_messages = attempt(coding_agent, "Fix it.", nobody, nobody_root)
print("nobody to approve:", nobody_run.get("stopped"))

# %% tags=["check"]
EDIT = ("edit_file", {"path": "inventory/stock.py", "old": "items[1:]", "new": "items"})
BENCHES = {"read": scenarios.Bench(read=("read_file", {"path": "inventory/stock.py", "start": 1, "count": 3}),
                                   other=("list_files", {"path": "."}), guarded=EDIT),
           "tests": scenarios.Bench(read=("run_tests", {}), guarded=EDIT),
           "write": scenarios.Bench(read=("run_tests", {}), guarded=("write_file", {"path": "n.txt", "text": "x"})),
           "missed edit": scenarios.Bench(read=("run_tests", {}), guarded=("edit_file", {
               "path": "inventory/stock.py", "old": "not there", "new": "x"}))}
OWN = [scenarios.Scenario("an edit, an answer, the tests, an answer",
                          (("calls", "guarded"), ("final", "Fixed."), ("calls", "read"), ("final", "Tested.")),
                          approve="yes"),
       scenarios.Scenario("the tests, an edit, an answer, the tests, an answer",
                          (("calls", "read"), ("calls", "guarded"), ("final", "Fixed."), ("calls", "read"),
                           ("final", "Tested.")), approve="yes")]


def with_the_lessons_tools(agent_fn, *args, **kwargs):
    """Run a coding agent on the lesson's make_toolbox, so this check is about the loop alone."""
    g = agent_fn.__globals__
    saved, g["make_toolbox"] = g["make_toolbox"], reference("make_toolbox")
    try:
        return agent_fn(*args, **kwargs)
    finally:
        g["make_toolbox"] = saved


def coding_runs(agent_fn, script):
    """One scenario through the coding agent: how it ended, what the model was sent, the files after."""
    root = new_project()
    try:
        result, messages = with_the_lessons_tools(agent_fn, "Fix the project.", script.model(), root, **script.settings)
        return {"how it ended": {k: result.get(k) for k in ("stopped", "steps", "answer", "tokens")},
                "its detail": result.get("detail") if result.get("stopped") == "error" else "detail" in result
                if result.get("stopped") == "final" else None,
                "what the model was sent": scenarios.sent(script), "the files after": files_of(root),
                "the messages it returned": [scenarios.plain(m) for m in messages]}
    finally:
        shutil.rmtree(root, ignore_errors=True)


CODING = [*scenarios.bank(BENCHES["read"], leave_out=("a model that never stops, with the default step limit",)),
          *[Case((scenarios.Script(s, BENCHES[b]),), f"{s.name} ({b})") for s in OWN for b in ("tests", "write",
                                                                                                 "missed edit")]]


def spending(agent_fn, per_call, max_tokens, max_steps):
    """A model that keeps reading, each call reporting `per_call` tokens: where the budget stops it."""
    asked = []

    def reader(messages, tools):
        if len(asked) >= 50:  # a loop that ignores its limits must end here
            raise RuntimeError("the model was asked 50 times: the loop does not stop")
        asked.append(len(messages))
        return {**call("read_file", id=f"r{len(asked)}", path="README.md"),
                "usage": {"prompt_tokens": per_call, "completion_tokens": 0, "total_tokens": per_call}}
    root = new_project()
    try:
        options = {} if max_tokens == "left out" else {"max_tokens": max_tokens}
        result, _ = with_the_lessons_tools(agent_fn, "Read.", reader, root, max_steps=max_steps, **options)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    return {"how it ended": {k: result.get(k) for k in ("stopped", "steps", "tokens")},
            "its detail names the budget": "budget" in str(result.get("detail")) if result.get("steps", 0) < max_steps
            else None, "the calls made": len(asked)}


BUDGETS = [Case((per, budget, steps), f"{per} tokens a call, max_tokens {budget}, max_steps {steps}")
           for per, budget, steps in [(500, 1500, 10), (500, 1499, 10), (500, 1501, 10), (500, 0, 10), (500, 500, 10),
                                      (20_000, "left out", 10), (30_000, "left out", 10), (59_999, "left out", 10),
                                      (1, 1500, 3)]]

# an answer right after an edit does not end the run: the tests run first, then `final`
assert hasty_run.get("stopped") == "final" and tools_called(hasty_messages) == ["edit_file", "run_tests"] \
    and hasty_run.get("answer") == "Fixed, and the tests ran.", \
    (f"the model answered right after its edit, and your loop gave {hasty_run} after calling "
     f"{tools_called(hasty_messages)}; it should ask for the tests and end only after run_tests")
# the token budget stops a run that keeps going, with step_limit and a detail naming the budget
assert budget_run.get("stopped") == "step_limit" and budget_run.get("steps", 99) < 30 \
    and "budget" in str(budget_run.get("detail", "")), \
    f"a model reading forever with max_tokens=1500 gave {budget_run}; stop with step_limit and a detail about the budget"
# your coding agent does what the lesson's does in every scenario of the bank, the test-before-answer rule too
assert (coding_found := compare(coding_agent, reference("coding_agent"), CODING, observe=coding_runs)), coding_found
# your token budget stops the run where the lesson's does (reached exactly, just missed, left at its default)
assert (budget_found := compare(coding_agent, reference("coding_agent"), BUDGETS, observe=spending)), budget_found
# an edit nobody approved is not made: needs_person, the file unchanged, the call answered
assert nobody_run.get("stopped") == "needs_person" and "items[1:]" in (nobody_root / "inventory/stock.py").read_text() \
    and nobody_messages[-1].get("role") == "tool", \
    f"with no approve, an edit gave {nobody_run}; it should stop with needs_person and leave the file as it was"

# %% [markdown]
# ## The agent fixes the project
#
# Now a model at work. Offline, the prepared replies below play a careful model: it lists the
# files, runs the tests, reads the file, and fixes the three bugs one edit at a time — with one
# `old` that is not unique and one edit that would break the file, both refused, on the way.
# With a live or local model, the same call runs it for real: the model reads what your tools
# say and decides. Edits need approval: offline the lesson approves them; with a real model you
# are asked, with the diff of the change in front of you (Approve or Reject in the page, y or a
# reason in the terminal). In the page, the **Files** panel shows the project after the run:
# its files, and the diff of everything the agent changed; Reset project lays it out again.
#
# On your own code: `looplab run 25 --live --project DIR` hands the agent a copy of DIR instead of
# the shop (`your_project()`). Your folder is never written; what the agent changed is saved as a
# patch, for you to read and apply.

# %% [markdown] tags=["predict"]
# After the three fixes, the prepared model's next reply is an answer, with no `run_tests` in
# between. What does your loop do?
#
# - [ ] It ends the run with `final`: the answer is right
# - [x] It tells the model to run the tests; the run ends after they pass
# - [ ] It stops with `step_limit`
#
# The answer may well be right, but nobody checked it. Your loop holds the model to the rule: a
# change is done when the tests say so.

# %%
FIX = [
    call("list_files"),
    call("run_tests"),
    call("read_file", path="inventory/stock.py"),
    call("edit_file", path="inventory/stock.py", old="for item in items[1:]:", new="for item in items:"),
    call("edit_file", path="inventory/stock.py", old='item["units"] > threshold', new='item["units"] < threshold]'),
    call("edit_file", path="inventory/stock.py", old='item["units"] > threshold', new='item["units"] < threshold'),
    call("edit_file", path="inventory/stock.py", old='item["units"]', new='item["units"] +'),
    call("edit_file", path="inventory/stock.py", old='            item["units"] = units', new='            item["units"] += units'),
    final("Fixed three bugs in inventory/stock.py."),
    call("run_tests"),
    final("Fixed three bugs in inventory/stock.py: total_units skipped the first item, low_stock "
          "kept the items above the threshold, restock replaced the units instead of adding. All tests pass."),
]
project = show_project(your_project() or new_project())  # the Files panel shows it; Reset lays it out again
approve = yes if model_mode() == "scripted" else review_edits(project)  # a person sees each edit's diff
result, messages = coding_agent("The tests of this project fail. Fix the code so that they pass.",
                                pick_model(FIX), project, approve=approve)
for m in messages:
    if m.get("role") == "tool":
        print("  ←", m["content"].splitlines()[0][:110] if m["content"] else "")
print(result)
after = project_tests(project)
print("the project's tests now:", after.summary())

# %% tags=["check"]
PROBLEMS = [text for bad, text in [
    (result.get("stopped") not in ("final", "step_limit", "error", "needs_person"), f"the run ended with {result}"),
    (sum(len(m.get("tool_calls") or []) for m in messages) != sum(m.get("role") == "tool" for m in messages),
     "some tool call has no tool message: answer every call, also refused ones"),
    ((SANDBOX / "secret.txt").read_text() != "outside\n", "a file outside the project changed"),
    (result.get("stopped") == "final" and not tests_after_last_edit(messages),
     f"the run ended 'final' after {tools_called(messages)}: the tests did not run after the last edit"),
] if bad]
# the run ended well: a stop reason, every call answered, nothing outside changed, tests after the last edit
assert not PROBLEMS, "; ".join(PROBLEMS)
# the prepared model fixes the project: every test passes
expect(after.ok and after.summary() == "6 passed, 0 failed",
       f"after the run the tests say {after.summary()}; the prepared replies fix all three bugs",
       observed=f"the model's run ended {result.get('stopped')} after {result.get('steps')} steps; the tests: {after.summary()}")
# the prepared model needed 11 steps, the refused edits and the reminder among them
expect(result.get("steps") == 11 and result.get("stopped") == "final",
       f"the run gave {result}; the prepared replies end with final at step 11",
       observed=f"the model took {result.get('steps')} steps and used {result.get('tokens')} tokens")

# %% [markdown]
# ## What you built, and what real coding agents add
#
# Your agent reads, edits, tests and answers, and every one of those steps is yours: the paths
# it may touch, the window it reads, the edits it may make, the tests that decide. Coding
# assistants add more of the same kind: a search tool (grep) so the model need not read every
# file, a linter beside the compile check, a sandbox in which commands may run, several edits in
# one call, and a memory of the project between sessions. Lesson 26 asks the question that
# decides which of those are worth it: how often does the agent succeed?
