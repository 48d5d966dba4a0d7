# ---
# jupyter:
#   looplab:
#     deepens: "25"
#     adds: SWE-bench's grading on tiny tasks (fail-to-pass and pass-to-pass tests, pass@1 and pass^k)
# ---

# %% [markdown]
# # 26 · Is it any good? A benchmark for your coding agent
#
# Lesson 25's agent fixed one project once. Is it good? One run says little: lesson 17 taught
# that an agent is judged by a fixed set of tasks, graded the same way every time, and a number.
# For coding agents the best-known such set is SWE-bench: real issues from open-source projects,
# each with the tests that decide whether the fix is right. Its grading has three rules you will
# build here:
#
# - **a fresh copy for every attempt**: the agent starts from the project as it was, never from
#   what an earlier attempt left behind;
# - **fail-to-pass tests**: the tests that fail before the fix must pass after it;
# - **pass-to-pass tests**: the tests that passed before must still pass — a fix that breaks
#   something else is not a fix. And the tests that grade are the benchmark's own copy: an agent
#   that edits a test to make it pass has not fixed anything.
#
# A real model does not do the same thing every time, so each task runs **k times**, and two
# numbers come out: **pass@1**, the chance that one attempt succeeds, and **pass^k**, the chance
# that all k attempts succeed — what you need before you let an agent work unattended. Those
# chances are what the benchmark *estimates*; what it *measures* is a few trials: pass@1 by the
# share of a task's attempts that passed, pass^k by whether all k of them did (1 or 0), each
# averaged over the tasks. With few trials the estimates are rough, and they are not the chances
# themselves. Beside them: steps, tokens and cost (lesson 20).
#
# What you reuse: your `coding_agent` and its tools from [lesson 25](#/25-coding-agent) (through
# `mine(25)`), the project tests in-process, [lesson 17](#/17-evaluate-your-agent)'s idea of graders.
#
# You build `trial(task, model_fn)`, which runs and grades one attempt, and `scoreboard(records,
# k)`, which turns the attempts into the numbers.

# %%
import tempfile
from pathlib import Path

from looplab import expect, mine
from looplab.models import call, final, model_mode, pick_model
from looplab import project_tests

try:
    import pytest  # noqa: F401  (the agent's run_tests and the grading run it)
except ModuleNotFoundError:
    raise ModuleNotFoundError("this lesson runs pytest, which is not installed here: "
                              "`pip install pytest` (the web page loads it by itself)") from None

coding = mine(25)            # your coding agent from lesson 25 (or the reference, if yours fails there)
coding_agent = coding.coding_agent
live = model_mode() != "scripted"

# %% [markdown]
# ## The tasks
#
# Nine tiny projects, each a module `lib.py` and its tests `test_lib.py`, a task text as a user
# would write it, and the two lists of tests by their pytest id.

# %%
def task(name, text, lib, tests, fail_to_pass, pass_to_pass):
    """One benchmark task: its files, the request, and the tests that grade it."""
    return {"name": name, "text": text, "files": {"lib.py": lib, "test_lib.py": tests},
            "fail_to_pass": [f"test_lib.py::{t}" for t in fail_to_pass],
            "pass_to_pass": [f"test_lib.py::{t}" for t in pass_to_pass]}


TASKS = [
    task("slug", "slug('Green Tea Shop') gives 'green_tea_shop'; it should join the words with dashes.",
         'def slug(title):\n    """A title as a URL part: lower case, words joined by dashes."""\n'
         '    return "_".join(title.lower().split())\n',
         'from lib import slug\n\ndef test_lowercase():\n    assert slug("Tea") == "tea"\n\n'
         'def test_words_are_joined_by_dashes():\n    assert slug("Green Tea Shop") == "green-tea-shop"\n',
         ["test_words_are_joined_by_dashes"], ["test_lowercase"]),
    task("mean", "mean([]) crashes with ZeroDivisionError; the mean of no numbers should be 0.0.",
         'def mean(numbers):\n    """The average of the numbers; 0.0 for none."""\n'
         '    return sum(numbers) / len(numbers)\n',
         'from lib import mean\n\ndef test_mean():\n    assert mean([1, 2, 3]) == 2\n\n'
         'def test_mean_of_nothing_is_zero():\n    assert mean([]) == 0.0\n',
         ["test_mean_of_nothing_is_zero"], ["test_mean"]),
    task("clamp", "clamp(15, 0, 10) gives 0 instead of 10. Fix clamp.",
         'def clamp(x, low, high):\n    """x, moved into the range low..high."""\n'
         '    return min(low, max(x, high))\n',
         'from lib import clamp\n\ndef test_below():\n    assert clamp(-5, 0, 10) == 0\n\n'
         'def test_above():\n    assert clamp(15, 0, 10) == 10\n\n'
         'def test_inside():\n    assert clamp(5, 0, 10) == 5\n',
         ["test_above", "test_inside"], ["test_below"]),
    task("fizzbuzz", "fizzbuzz(15) should be 'FizzBuzz' but gives 'Fizz'.",
         'def fizzbuzz(n):\n    """Fizz for multiples of 3, Buzz of 5, FizzBuzz of both, else the number."""\n'
         '    if n % 3 == 0:\n        return "Fizz"\n    if n % 5 == 0:\n        return "Buzz"\n'
         '    if n % 15 == 0:\n        return "FizzBuzz"\n    return str(n)\n',
         'from lib import fizzbuzz\n\ndef test_three():\n    assert fizzbuzz(3) == "Fizz"\n\n'
         'def test_five():\n    assert fizzbuzz(5) == "Buzz"\n\n'
         'def test_seven():\n    assert fizzbuzz(7) == "7"\n\n'
         'def test_fifteen():\n    assert fizzbuzz(15) == "FizzBuzz"\n',
         ["test_fifteen"], ["test_three", "test_five", "test_seven"]),
    task("words", "word_count('tea  and rice') says 4 words; double spaces should not count as words.",
         'def word_count(text):\n    """How many words the text has; words are separated by any spaces."""\n'
         '    return len(text.split(" "))\n',
         'from lib import word_count\n\ndef test_simple():\n    assert word_count("tea and rice") == 3\n\n'
         'def test_double_spaces():\n    assert word_count("tea  and rice") == 3\n\n'
         'def test_empty():\n    assert word_count("") == 0\n',
         ["test_double_spaces", "test_empty"], ["test_simple"]),
    task("leap", "is_leap(1900) says True, but 1900 was not a leap year.",
         'def is_leap(year):\n    """True for leap years: every 4th year, but not every 100th, yet every 400th."""\n'
         '    return year % 4 == 0\n',
         'from lib import is_leap\n\ndef test_2024():\n    assert is_leap(2024)\n\n'
         'def test_2000():\n    assert is_leap(2000)\n\n'
         'def test_1900_is_not_leap():\n    assert not is_leap(1900)\n',
         ["test_1900_is_not_leap"], ["test_2024", "test_2000"]),
    task("initials", "initials('ada lovelace') should be 'A.L.'.",
         'def initials(name):\n    """The initials of a name, upper case, each with a dot: ada lovelace -> A.L."""\n'
         '    return ".".join(part[0] for part in name.split())\n',
         'from lib import initials\n\ndef test_empty():\n    assert initials("") == ""\n\n'
         'def test_initials():\n    assert initials("ada lovelace") == "A.L."\n',
         ["test_initials"], ["test_empty"]),
    task("median", "median([1, 2, 3, 4]) should be 2.5, the mean of the two middle numbers.",
         'def median(numbers):\n    """The middle of the sorted numbers; for an even count, the mean of the middle two."""\n'
         '    ordered = sorted(numbers)\n    return ordered[len(ordered) // 2]\n',
         'from lib import median\n\ndef test_odd():\n    assert median([3, 1, 2]) == 2\n\n'
         'def test_even():\n    assert median([1, 2, 3, 4]) == 2.5\n',
         ["test_even"], ["test_odd"]),
    task("price", "parse_price('3,50') fails; prices may use a comma for the decimals.",
         'def parse_price(text):\n    """A price such as 3.50 or 3,50 as a number."""\n    return float(text)\n',
         'from lib import parse_price\n\ndef test_dot():\n    assert parse_price("3.50") == 3.5\n\n'
         'def test_comma():\n    assert parse_price("3,50") == 3.5\n',
         ["test_comma"], ["test_dot"]),
]


def new_copy(files):
    """A fresh folder with these files; returns the folder."""
    root = Path(tempfile.mkdtemp(prefix="bench-"))
    for name, text in files.items():
        (root / name).write_text(text, encoding="utf-8")
    return root


for t in TASKS:
    run = project_tests(new_copy(t["files"]))
    print(f"{t['name']:<9} before any fix: {run.summary()}")

# %% [markdown]
# ## The model under test, offline
#
# Offline, a prepared model plays a coding model with its strengths and weaknesses: it fixes some
# tasks, and fails others in ways worth reading — a fix that breaks another test, an answer with
# no change, a run that reads until its steps run out, a test "fixed" by editing the test, and
# one task it solves only every other time, because its edit is sometimes broken (your
# `edit_file` refuses it, and the model gives up). With a live or local model, the same
# benchmark measures that model instead.

# %%
def edit(old, new, path="lib.py"):
    return call("edit_file", path=path, old=old, new=new)


PLANS = {
    "slug": [[call("read_file", path="lib.py"), edit('"_".join', '"-".join'), call("run_tests"), final("Words are joined by dashes.")]],
    "mean": [[edit("return sum(numbers) / len(numbers)", "return sum(numbers) / len(numbers) if numbers else 0.0"),
              call("run_tests"), final("mean([]) is 0.0.")]],
    "clamp": [[call("read_file", path="lib.py"), edit("min(low, max(x, high))", "max(low, min(x, high))"),
               call("run_tests"), final("clamp fixed.")]],
    "fizzbuzz": [[edit('return "Fizz"\n', 'return "FizzBuzz"\n'), call("run_tests"),
                  final("fizzbuzz(15) gives FizzBuzz now.")]],
    "words": [[edit('text.split(" ")', "text.split()"), call("run_tests"), final("Any spaces separate words.")]],
    "leap": [[call("read_file", path="lib.py"), final("The code follows the rule in its docstring; nothing to fix.")]],
    "initials": [[call("list_files")] + [call("read_file", path=p) for p in ("lib.py", "test_lib.py") * 5]],
    "median": [[call("read_file", path="test_lib.py"), edit("== 2.5", "== 3", path="test_lib.py"),
                call("run_tests"), final("All tests pass.")]],
    "price": [[edit("float(text)", 'float(text.replace(",", "."))'), call("run_tests"), final("Commas work.")],
              [edit("float(text)", 'float(text.replace(",", ".")'), final("I could not change the file.")]],
}


def prepared_model(plans=PLANS, tasks=TASKS):
    """A model function that plays each task's plan; a task with two plans alternates between them."""
    runs = {}

    def model_fn(messages, tools):
        asked = next(m["content"] for m in messages if m["role"] == "user")
        name = next(t["name"] for t in tasks if t["text"] in asked)
        done = sum(m["role"] == "assistant" for m in messages)
        if done == 0:
            runs[name] = runs.get(name, -1) + 1
        plan = plans[name][runs[name] % len(plans[name])]
        return dict(plan[done]) if done < len(plan) else final("I have nothing more to try.")

    return model_fn

# %% [markdown]
# ## Exercise 1: one trial
#
# `trial(task, model_fn, max_steps=8)` runs one attempt and grades it. It returns a record:
#
# ```python
# {"task": "slug", "passed": True, "why": "", "stopped": "final", "steps": 4, "tokens": 2345}
# ```
#
# 1. Lay the task's files out in a **fresh** folder (`new_copy`).
# 2. Run `coding_agent(task["text"], model_fn, root, max_steps=max_steps, approve=...)`. A
#    benchmark runs unattended, in a throwaway copy, so it approves every edit.
# 3. Put the benchmark's own test file back (the agent may have changed it), then run the
#    fail-to-pass and pass-to-pass tests: `project_tests(root, ids=[...])`.
# 4. `passed` is true when every one of them passed. `why` says what went wrong otherwise, in
#    words you can read in a scoreboard: which fail-to-pass test still fails, which
#    pass-to-pass test broke.

# %% tags=["exercise"]
def trial(task, model_fn, max_steps=8):
    """One graded attempt at a task: a record with task, passed, why, stopped, steps, tokens."""
    root = new_copy(task["files"])
    result, messages = coding_agent(task["text"], model_fn, root, max_steps=max_steps,
                                    approve=lambda name, arguments: True)
    run = project_tests(root)
    return {"task": task["name"], "passed": run.ok, "why": "", "stopped": result.get("stopped"),
            "steps": result.get("steps"), "tokens": result.get("tokens", 0)}

# %% [markdown] tags=["hint"]
# Grade with the benchmark's tests, not the agent's: write each test file from `task["files"]`
# back into the copy before you grade. Then grade the listed tests only, both lists, and look at
# each id on its own to say what went wrong.

# %% [markdown] tags=["hint"]
# - Write the benchmark's `test_lib.py` back into `root` before grading.
# - `project_tests` takes the ids to run: both lists together; its `passed` holds the ids that
#   passed.
# - `still` is the fail-to-pass tests that did not pass, and `broken` the same for the
#   pass-to-pass tests.

# %% [markdown] tags=["hint"]
# ```python
# def trial(task, model_fn, max_steps=8):
#     root = new_copy(task["files"])
#     result, messages = coding_agent(task["text"], model_fn, root, max_steps=max_steps,
#                                     approve=lambda name, arguments: True)
#     for name, text in task["files"].items():
#         if name.startswith("test_"):
#             (root / name).write_text(text, encoding="utf-8")
#     run = project_tests(root, ids=task["fail_to_pass"] + task["pass_to_pass"])
#     still = [t.split("::")[-1] for t in task["fail_to_pass"] if t not in run.passed]
#     broken = [t.split("::")[-1] for t in task["pass_to_pass"] if t not in run.passed]
#     why = "; ".join(([f"fail-to-pass still failing: {', '.join(still)}"] if still else []) +
#                     ([f"pass-to-pass broken: {', '.join(broken)}"] if broken else []))
#     return {"task": task["name"], "passed": not still and not broken, "why": why,
#             "stopped": result.get("stopped"), "steps": result.get("steps"),
#             "tokens": result.get("tokens", 0)}
# ```

# %% tags=["wrong"]
# wrong: grades with the agent's copy of the tests, so a test edited to pass counts as a fix
# expect: own tests
# patch:
# -    for name, text in task["files"].items():
# -        if name.startswith("test_"):
# -            (root / name).write_text(text, encoding="utf-8")  # grade with the benchmark's tests

# %% tags=["wrong"]
# wrong: grades only the fail-to-pass tests, so a fix that breaks another test still counts
# expect: pass-to-pass
# replaces: trial
def trial(task, model_fn, max_steps=8):
    """One graded attempt at a task: a record with task, passed, why, stopped, steps, tokens."""
    root = new_copy(task["files"])
    result, messages = coding_agent(task["text"], model_fn, root, max_steps=max_steps,
                                    approve=lambda name, arguments: True)
    (root / "test_lib.py").write_text(task["files"]["test_lib.py"], encoding="utf-8")
    run = project_tests(root, ids=task["fail_to_pass"])
    still = [t.split("::")[-1] for t in task["fail_to_pass"] if t not in run.passed]
    return {"task": task["name"], "passed": not still,
            "why": f"fail-to-pass still failing: {', '.join(still)}" if still else "",
            "stopped": result.get("stopped"), "steps": result.get("steps"),
            "tokens": result.get("tokens", 0)}

# %% tags=["wrong"]
# wrong: keeps one folder per task across trials, so a later attempt starts from an earlier fix
# expect: fresh
# patch:
# +COPIES = {}
# +
#  def trial(task, model_fn, max_steps=8):
# @@
# -    root = new_copy(task["files"])
# +    root = COPIES.setdefault(task["name"], new_copy(task["files"]))
# @@
# -    for name, text in task["files"].items():
# -        if name.startswith("test_"):
# -            (root / name).write_text(text, encoding="utf-8")  # grade with the benchmark's tests
# +    (root / "test_lib.py").write_text(task["files"]["test_lib.py"], encoding="utf-8")

# %% tags=["solution"]
def trial(task, model_fn, max_steps=8):
    """One graded attempt at a task: a record with task, passed, why, stopped, steps, tokens."""
    root = new_copy(task["files"])
    result, messages = coding_agent(task["text"], model_fn, root, max_steps=max_steps,
                                    approve=lambda name, arguments: True)
    for name, text in task["files"].items():
        if name.startswith("test_"):
            (root / name).write_text(text, encoding="utf-8")  # grade with the benchmark's tests
    run = project_tests(root, ids=task["fail_to_pass"] + task["pass_to_pass"])
    still = [t.split("::")[-1] for t in task["fail_to_pass"] if t not in run.passed]
    broken = [t.split("::")[-1] for t in task["pass_to_pass"] if t not in run.passed]
    why = "; ".join(([f"fail-to-pass still failing: {', '.join(still)}"] if still else []) +
                    ([f"pass-to-pass broken: {', '.join(broken)}"] if broken else []))
    return {"task": task["name"], "passed": not still and not broken, "why": why,
            "stopped": result.get("stopped"), "steps": result.get("steps"),
            "tokens": result.get("tokens", 0)}

# %% [markdown]
# ## Testing the grader
#
# A grader is code, and code is tested. Prepared replies again, in every mode: a model that
# fixes `median` properly, one that edits its test instead, one that fixes `fizzbuzz` for 15 and
# breaks 3, and one that does nothing — run after a fix, it must still fail.

# %%
def playing(*plans):
    """A prepared model for one or more plans, one plan per run."""
    return prepared_model({t["name"]: list(plans) for t in TASKS})


MEDIAN, FIZZBUZZ = TASKS[7], TASKS[3]
FIX_MEDIAN = [edit("return ordered[len(ordered) // 2]",
                   "middle = len(ordered) // 2\n    return ordered[middle] if len(ordered) % 2 "
                   "else (ordered[middle - 1] + ordered[middle]) / 2"),
              call("run_tests"), final("Even counts take the mean of the middle two.")]
honest = trial(MEDIAN, playing(FIX_MEDIAN))
cheat = trial(MEDIAN, prepared_model())
breaker = trial(FIZZBUZZ, prepared_model())
fix_then_idle = playing(FIX_MEDIAN, [final("Nothing to do.")])
first_attempt, idle_attempt = trial(MEDIAN, fix_then_idle), trial(MEDIAN, fix_then_idle)
for record in (honest, cheat, breaker, first_attempt, idle_attempt):
    print(record)

# %% tags=["check"]
from looplab import Case, Said, compare, generate, reference

SLUG, CLAMP = TASKS[0], TASKS[2]
READS_FOREVER = [call("read_file", id=f"r{n}", path="lib.py") for n in range(20)]
PARTIAL = [edit("min(low, max(x, high))", "high if x > high else low"), call("run_tests"), final("Fixed above.")]
WORSE = [edit('return "Fizz"\n', 'return "Buzz"\n'), call("run_tests"), final("Changed.")]


def grading_trials(trial_fn, task, plans, times, max_steps):
    """`times` trials of a task with a model playing the plans in turn: each record, its why checked for
    the tests that still fail or broke."""
    model, out = playing(*plans), []
    for _ in range(times):
        record = trial_fn(task, model) if max_steps == "left out" else trial_fn(task, model, max_steps)
        why = str(record.get("why"))
        named = [t.split("::")[-1] for t in task["fail_to_pass"] + task["pass_to_pass"]
                 if t.split("::")[-1] in why]
        out.append({**record, "why": Said(repr(why), (why == "", sorted(named)))})
    return {"the records": out}


TRIALS_CASES = [
    Case((MEDIAN, [FIX_MEDIAN, [final("Nothing to do.")]], 2, "left out"), "a fix of median, then a trial that does nothing"),
    Case((MEDIAN, [PLANS["median"][0]], 1, "left out"), "median's test edited to pass"),
    Case((FIZZBUZZ, [PLANS["fizzbuzz"][0]], 1, "left out"), "fizzbuzz fixed for 15 but broken for 3"),
    Case((CLAMP, [PARTIAL], 1, "left out"), "clamp fixed above the range but not inside it"),
    Case((FIZZBUZZ, [WORSE], 1, "left out"), "fizzbuzz made worse: a fail-to-pass still failing and one broken"),
    Case((SLUG, [READS_FOREVER], 1, "left out"), "a model that reads forever, max_steps left out"),
    Case((MEDIAN, [FIX_MEDIAN], 1, 2), "a fix that needs three steps, with max_steps=2")]

# a real fix passes: every fail-to-pass and pass-to-pass test passes
assert honest.get("passed") is True and honest.get("why") == "", \
    f"a correct fix of median gave {honest}; grade the listed tests by id and pass when they all pass"
# a test edited to pass does not count: grade with the benchmark's own tests
assert cheat.get("passed") is False and "test_even" in str(cheat.get("why")), \
    f"the model changed test_lib.py to expect 3, and your grade is {cheat}; write the benchmark's own tests back first"
# a fix that breaks a pass-to-pass test does not count, and says which broke
assert breaker.get("passed") is False and "test_three" in str(breaker.get("why")), \
    f"fizzbuzz fixed for 15 but broken for 3 gave {breaker}; a pass-to-pass test that fails must fail the trial and be named"
# every trial starts from a fresh copy: an attempt that does nothing fails, even after a fix
assert first_attempt.get("passed") is True and idle_attempt.get("passed") is False, \
    (f"a fix, then an attempt that does nothing, gave {first_attempt.get('passed')} then "
     f"{idle_attempt.get('passed')}; the second must fail — is each trial a fresh copy?")
# trial grades as the lesson's does: fresh copies, the benchmark's own tests, which test failed or broke
assert (trial_found := compare(trial, reference("trial"), TRIALS_CASES, observe=grading_trials)), trial_found
# a record has the steps, the tokens and the stop of the run
assert {"task", "passed", "why", "stopped", "steps", "tokens"} <= set(honest) and honest["steps"] == 3 \
    and honest["tokens"] > 0 and honest["stopped"] == "final", f"the record is {honest}"

# %% [markdown]
# ## Exercise 2: the scoreboard
#
# `scoreboard(records, k)` turns the trials (k of each task) into one row per task and a row
# `"all"`:
#
# ```python
# {"slug": {"pass@1": 1.0, "pass^k": 1.0, "steps": 4.0, "tokens": 2310.0, "cost": 0.0014}, ...,
#  "all": {...}}
# ```
#
# - `pass@1` of a task: the share of its trials that passed; of `"all"`: the mean over tasks.
# - `pass^k` of a task: 1.0 when all its k trials passed, else 0.0; of `"all"`: the mean.
# - `steps`, `tokens`: the mean per trial; `cost`: the mean tokens at `PRICE` per million.

# %%
PRICE = 0.60  # per million tokens, say; lesson 20 splits it into input and output prices

# %% tags=["exercise"]
def scoreboard(records, k):
    """Per task and for "all": pass@1, pass^k, and the mean steps, tokens and cost per trial."""
    board = {}
    for record in records:
        board[record["task"]] = {"pass@1": 1.0 if record["passed"] else 0.0}
    return board

# %% [markdown] tags=["hint"]
# Group the records by task first. Each number of a task is a mean over its trials, except
# pass^k, which asks whether every trial passed. The "all" row averages the tasks' rows.

# %% [markdown] tags=["hint"]
# - A dict from task name to its list of records groups them (`setdefault` saves a line).
# - pass@1 is the share of a task's trials that passed; pass^k is whether all of them passed (as
#   1.0 or 0.0) — not pass@1 to the power k, which raises an estimate to a power, as if the same
#   attempt could be drawn again.
# - Every other column is a mean over the trials.

# %% [markdown] tags=["hint"]
# ```python
# def scoreboard(records, k):
#     def mean(values):
#         return sum(values) / len(values) if values else 0.0
#     by_task = {}
#     for record in records:
#         by_task.setdefault(record["task"], []).append(record)
#     board = {}
#     for name, runs in by_task.items():
#         tokens = mean([r["tokens"] for r in runs])
#         board[name] = {"pass@1": mean([1.0 if r["passed"] else 0.0 for r in runs]),
#                        "pass^k": 1.0 if len(runs) >= k and all(r["passed"] for r in runs) else 0.0,
#                        "steps": mean([r["steps"] for r in runs]), "tokens": tokens,
#                        "cost": tokens * PRICE / 1_000_000}
#     rows = list(board.values())
#     board["all"] = {key: mean([row[key] for row in rows]) for key in ("pass@1", "pass^k", "steps", "tokens", "cost")}
#     return board
# ```

# %% tags=["wrong"]
# wrong: takes pass^k as pass@1 to the power k, squaring an estimate instead of asking whether all k passed
# expect: pass^k
# patch:
# -        board[name] = {"pass@1": mean([1.0 if r["passed"] else 0.0 for r in runs]),
# -                       "pass^k": 1.0 if len(runs) >= k and all(r["passed"] for r in runs) else 0.0,
# -                       "steps": mean([r["steps"] for r in runs]), "tokens": tokens,
# -                       "cost": tokens * PRICE / 1_000_000}
# +        rate = mean([1.0 if r["passed"] else 0.0 for r in runs])
# +        board[name] = {"pass@1": rate, "pass^k": rate ** k, "steps": mean([r["steps"] for r in runs]),
# +                       "tokens": tokens, "cost": tokens * PRICE / 1_000_000}

# %% tags=["wrong"]
# wrong: counts a task as passed at 1 when any of its trials passed (that is pass@k, the optimist's number)
# expect: pass@1
# patch:
# -        board[name] = {"pass@1": mean([1.0 if r["passed"] else 0.0 for r in runs]),
# -                       "pass^k": 1.0 if len(runs) >= k and all(r["passed"] for r in runs) else 0.0,
# +        board[name] = {"pass@1": 1.0 if any(r["passed"] for r in runs) else 0.0,
# +                       "pass^k": 1.0 if all(r["passed"] for r in runs) else 0.0,

# %% tags=["solution"]
def scoreboard(records, k):
    """Per task and for "all": pass@1, pass^k, and the mean steps, tokens and cost per trial."""
    def mean(values):
        return sum(values) / len(values) if values else 0.0
    by_task = {}
    for record in records:
        by_task.setdefault(record["task"], []).append(record)
    board = {}
    for name, runs in by_task.items():
        tokens = mean([r["tokens"] for r in runs])
        board[name] = {"pass@1": mean([1.0 if r["passed"] else 0.0 for r in runs]),
                       "pass^k": 1.0 if len(runs) >= k and all(r["passed"] for r in runs) else 0.0,
                       "steps": mean([r["steps"] for r in runs]), "tokens": tokens,
                       "cost": tokens * PRICE / 1_000_000}
    rows = list(board.values())
    board["all"] = {key: mean([row[key] for row in rows]) for key in ("pass@1", "pass^k", "steps", "tokens", "cost")}
    return board

# %%
SAMPLE = [{"task": "a", "passed": True, "steps": 4, "tokens": 1000, "why": "", "stopped": "final"},
          {"task": "a", "passed": True, "steps": 6, "tokens": 3000, "why": "", "stopped": "final"},
          {"task": "b", "passed": True, "steps": 3, "tokens": 2000, "why": "", "stopped": "final"},
          {"task": "b", "passed": False, "steps": 8, "tokens": 6000, "why": "x", "stopped": "step_limit"}]
sample = scoreboard(SAMPLE, 2)
print(sample)

# %% tags=["check"]
def record_of(d):
    return {"task": d.pick(["a", "b", "c"]), "passed": d.maybe(), "steps": d.number(1, 9),
            "tokens": d.pick([0, 1000, 2500]), "why": "", "stopped": "final"}


def boarding(board_fn, records, k):
    return {"the board": {name: {key: round(value, 9) for key, value in row.items()}
                          for name, row in board_fn(records, k).items()}}


BOARDS = generate(lambda d: Case((d.some(record_of, 0, 6), d.pick([1, 2, 3]))), count=80, edges=[
    Case((SAMPLE, 2), "the lesson's SAMPLE with k=2"), Case(([], 2), "no records")])

# pass@1 is the share of a task's trials that passed, and its mean over the tasks
assert sample.get("a", {}).get("pass@1") == 1.0 and sample.get("b", {}).get("pass@1") == 0.5 \
    and sample.get("all", {}).get("pass@1") == 0.75, \
    f"pass@1 of a (2 of 2), b (1 of 2) and all should be 1.0, 0.5, 0.75: the board says {sample}"
# pass^k is 1 only when all k trials of a task passed (not pass@1 to the power k)
assert sample.get("b", {}).get("pass^k") == 0.0 and sample.get("all", {}).get("pass^k") == 0.5, \
    f"pass^k of b (1 of 2 passed) should be 0.0 and of all 0.5; the board says {sample.get('b')}, {sample.get('all')}"
# scoreboard gives the lesson's board for many sets of trials and k
assert (board_found := compare(scoreboard, reference("scoreboard"), BOARDS, observe=boarding)), board_found
# steps, tokens and cost are means per trial, cost at PRICE per million tokens
assert sample.get("b", {}).get("steps") == 5.5 and sample.get("all", {}).get("tokens") == 3000.0 \
    and abs(sample.get("a", {}).get("cost", 0) - 2000 * PRICE / 1_000_000) < 1e-12, \
    f"b's mean steps should be 5.5, all's mean tokens 3000.0, a's cost 2000 tokens at PRICE: {sample}"

# %% [markdown]
# ## The benchmark
#
# Every task, k = 2 times, with the model in use: the prepared one offline, yours with a live or
# local model. Then the scoreboard, with each failed trial's reason.

# %% [markdown] tags=["predict"]
# The prepared model solves `price` on its first attempt and not on its second. What are that
# task's pass@1 and pass^2?
#
# - [ ] 1.0 and 1.0
# - [x] 0.5 and 0.0
# - [ ] 0.5 and 0.25
#
# One attempt in two passed: pass@1 is 0.5. Not both passed: pass^2 is 0. Both are estimates
# from two trials. The 0.25 is the estimate 0.5 squared: it would be the task's pass^2 if its
# chance of success really were 0.5 and attempts were independent, but two trials do not tell
# the chance — they tell whether these two both passed, and they did not.

# %%
K = 2
model = pick_model(prepared_model())
records = [trial(t, model) for t in TASKS for _ in range(K)]
board = scoreboard(records, K)
print(f"{'task':<10}{'pass@1':>8}{'pass^2':>8}{'steps':>7}{'tokens':>8}{'cost':>10}")
for name, row in board.items():
    print(f"{name:<10}{row['pass@1']:>8.2f}{row['pass^k']:>8.2f}{row['steps']:>7.1f}{row['tokens']:>8.0f}"
          f"{row['cost']:>10.6f}")
for record in records:
    if not record["passed"]:
        print(f"  ✗ {record['task']}: {record['why']} (stopped {record['stopped']} after {record['steps']} steps)")
solved = sorted({r["task"] for r in records if r["passed"]})

# %% tags=["check"]
# every task ran k times and every trial ended with a stop
assert len(records) == K * len(TASKS) and all(r.get("stopped") in ("final", "step_limit", "error", "needs_person")
                                              for r in records), [r.get("stopped") for r in records]
# every failed trial says why
assert all(r["passed"] or r["why"] for r in records), [r for r in records if not r["passed"] and not r["why"]]
# the scores are shares between 0 and 1, and pass^k is never above pass@1
assert all(0 <= row["pass^k"] <= row["pass@1"] <= 1 for row in board.values()), board
# the prepared model solves slug, mean, clamp and words every time, and price once in two
expect(solved == ["clamp", "mean", "price", "slug", "words"] and board["price"]["pass@1"] == 0.5,
       f"solved: {solved}; the prepared replies solve clamp, mean, price (once), slug and words",
       observed=f"the model solved {', '.join(solved) or 'nothing'}")
# the prepared model scores pass@1 0.50 and pass^2 0.44
expect(round(board["all"]["pass@1"], 2) == 0.5 and round(board["all"]["pass^k"], 2) == 0.44,
       f"the board's all row is {board['all']}; the prepared replies score 0.50 and 0.44",
       observed=f"measured: pass@1 {board['all']['pass@1']:.2f}, pass^2 {board['all']['pass^k']:.2f}, "
                f"{board['all']['tokens']:.0f} tokens a trial")

# %% [markdown]
# ## Reading the scoreboard
#
# With the prepared model: pass@1 0.50, pass^2 0.44, about 3 steps a trial. The failures are the
# kinds real coding agents show: `fizzbuzz` fixed for 15 and broken for 3 (a pass-to-pass test
# catches it), `leap` answered with no change, `initials` read until its steps ran out,
# `median` "fixed" by changing the test (the benchmark's own tests catch it), and `price` broken
# every other time by an edit your `edit_file` refused.
#
# With a live or local model, the scores are what the model measured, and they are reported, not
# ticked: a benchmark measures a model, it does not test your code. Measured here with the tiny
# SmolLM2-135M served by llama.cpp's `llama-server` (greedy, `bench/coding_benchmark.py`): pass@1
# 0.00 and pass^2 0.00 — in all 18 trials it answered in words at its first step, about 300
# tokens, without reading, editing or testing anything (2 of its replies ran into the token
# limit). A model that small cannot drive tools; the same benchmark on a bigger one is the
# comparison worth making. Nine tasks are few — one task
# more or less moves pass@1 by 0.11 — so compare two agents on the same tasks and the same k, and
# read the reasons before you read the numbers.
