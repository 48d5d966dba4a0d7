# ---
# jupyter:
#   looplab:
#     deepens: "04"
#     adds: a task queue the agent adds to itself, with a cap
# ---

# %% [markdown]
# # 11 · Self-scheduling: an agent that adds to its own to-do list
#
# "Deep research" modes do not answer in one run. They split the job: look this up, then
# compare those, then write the summary, and each piece becomes a task of its own. The agent
# can **schedule** work for later.
#
# The mechanism is small:
#
# - a **task queue**: tasks waiting, first in, first out;
# - a `schedule` **tool** the model may call to add a task to the queue;
# - a **scheduler**: take the next task, run the agent on it, repeat until the queue is empty.
#
# And one guard, because an agent that can add work can add work forever: a **cap** on how many
# tasks run. It is the step limit again, one level up.

# %%
from looplab import Toolbox, Memory, run_agent, TaskQueue
from looplab.models import pick_model, call, final
from looplab.models.rules import rule_model
from looplab import expect


box = Toolbox()

@box.tool
def add(a: float, b: float) -> float:
    "Add two numbers."
    return a + b

@box.tool
def upper(text: str) -> str:
    "Uppercase a text."
    return text.upper()

# %% [markdown]
# ## A queue the model can add to
#
# `TaskQueue.add_tool(box)` registers a `schedule(task)` tool whose function appends to the
# queue. To the model it is a tool like any other; that its effect is "more work for me later"
# is for us to know.

# %%
queue = TaskQueue(max_tasks=5)
queue.add_tool(box)
queue.schedule("add 2 and 3, then schedule a follow-up: uppercase the word done")

def agent(task):
    print(">>", task)
    result = run_agent(task, pick_model(rule_model), box, Memory("Be concise."))
    print("  ", result["answer"])
    return result

queue.run(agent)
print("queue stopped:", queue.stopped, "| tasks run:", len(queue.results))

# %% [markdown]
# The first task added 2 and 3 and scheduled a follow-up; the scheduler then ran the follow-up
# as a task of its own, with a fresh memory. Two runs, one request.
#
# ## A runaway
#
# This fake model has learnt a bad habit: every task, it schedules another "check again".
# Without a cap the queue would never empty (here it gives up after fifty, so that the lesson
# cannot hang). It is a fake in every mode, live included: it is here to test the cap, not a
# model.

# %%
def always_more(messages, tools):
    task = [m["content"] for m in messages if m["role"] == "user"][-1]
    done = any(m["role"] == "tool" for m in messages)
    n = int(task.split()[-1]) if task.split()[-1].isdigit() else 0
    if done or n >= 50:
        return final(f"Checked ({n}).")
    return call("schedule", task=f"check again {n + 1}")

capped = TaskQueue(max_tasks=5)
capped.add_tool(box)
capped.schedule("check the visits 0")

# %% [markdown] tags=["predict"]
# The runaway starts with one task and schedules one more each time. With `max_tasks=5`, how
# does the queue end?
#
# - [ ] it never ends: every task adds another
# - [x] five tasks run, it stops with `task_limit`, and one task is left waiting
# - [ ] five tasks run and the queue is empty
#
# The cap counts tasks run, not tasks scheduled. The fifth task scheduled a sixth before the cap
# stopped the queue, so that one waits, never run.

# %%
capped.run(lambda task: run_agent(task, always_more, box, Memory("")))
print(capped.stopped, len(capped.results), "tasks run;", len(capped.pending), "left waiting")

# %% [markdown]
# ## Exercise: write the scheduler
#
# Write `process(tasks, agent_fn, max_tasks)`: while `tasks` (a plain list) is not empty, take
# the **first** task, run `agent_fn(task)`, and keep `{"task": ..., "result": ...}`. Stop once
# `max_tasks` tasks have run, even if more are waiting. Return the results and why it stopped:
# `"empty"` or `"task_limit"`.
#
# The `schedule` tool below appends to the same list, so tasks the agent schedules are picked
# up by your loop.

# %%
todo = []
mine = Toolbox()
mine.register("schedule", "Schedule a follow-up task; it runs after the current one.",
              {"type": "object", "properties": {"task": {"type": "string"}}, "required": ["task"]},
              lambda task: todo.append(task) or f"scheduled: {task}")

def my_agent(task):
    return run_agent(task, always_more, mine, Memory(""))

# %% tags=["exercise"]
def process(tasks, agent_fn, max_tasks):
    """Run tasks first in, first out, at most max_tasks of them; return (results, why it stopped)."""
    results = []
    while tasks:
        task = tasks.pop()
        results.append({"task": task, "result": agent_fn(task)})
    return results, "empty"

# %% [markdown] tags=["hint"]
# Two things to fix in the starter: which end of the list `pop` takes from, and a check, before
# each task runs, of how many have run already.

# %% [markdown] tags=["hint"]
# `pop(0)` takes the oldest. At the top of the `while`, compare how many results there are with
# `max_tasks` and stop with `"task_limit"` once the cap is reached: checked there, a queue that
# empties exactly at the cap still says "empty".

# %% [markdown] tags=["hint"]
# ```python
# def process(tasks, agent_fn, max_tasks):
#     results = []
#     while tasks:
#         if len(results) >= max_tasks:
#             return results, "task_limit"
#         task = tasks.pop(0)
#         results.append({"task": task, "result": agent_fn(task)})
#     return results, "empty"
# ```

# %% tags=["wrong"]
# wrong: checks the cap after each task, so a queue that empties at the cap says task_limit
# expect: both should say 'empty'
# patch:
#      while tasks:
# +        task = tasks.pop(0)
# +        results.append({"task": task, "result": agent_fn(task)})
# @@
# -        task = tasks.pop(0)                    # first in, first out
# -        results.append({"task": task, "result": agent_fn(task)})

# %% tags=["wrong"]
# wrong: caps the tasks but still takes the newest first
# expect: take the oldest task first
# patch:
# -        task = tasks.pop(0)                    # first in, first out
# +        task = tasks.pop()

# %% tags=["wrong"]
# wrong: loops over a copy of the first max_tasks tasks, so nothing leaves the list
# expect: leave c in the list
# replaces: process
def process(tasks, agent_fn, max_tasks):
    results = [{"task": task, "result": agent_fn(task)} for task in tasks[:max_tasks]]
    return results, "task_limit" if len(tasks) > max_tasks else "empty"

# %% tags=["solution"]
def process(tasks, agent_fn, max_tasks):
    """Run tasks first in, first out, at most max_tasks of them; return (results, why it stopped)."""
    results = []
    while tasks:
        if len(results) >= max_tasks:
            return results, "task_limit"
        task = tasks.pop(0)                    # first in, first out
        results.append({"task": task, "result": agent_fn(task)})
    return results, "empty"

# %%
todo[:] = ["check the visits 0", "check the staff 0"]
processed, why = process(todo, my_agent, max_tasks=5)
print(why, len(processed), "tasks:", [r["task"] for r in processed][:6])

def run_process(tasks, max_tasks):
    """Your scheduler on plain tasks with an agent that only notes each one: (tasks run, why, left)."""
    try:
        done, reason = process(tasks, lambda task: task.upper(), max_tasks)
    except Exception as exc:
        return f"raised {type(exc).__name__}: {exc}", None, tasks
    return [r["task"] for r in done], reason, tasks

PLAIN = {
    "nothing to do": run_process([], 3),
    "three, cap 5": run_process(["a", "b", "c"], 5),
    "three, cap 3": run_process(["a", "b", "c"], 3),
    "three, cap 2": run_process(["a", "b", "c"], 2),
}
for label, outcome in PLAIN.items():
    print(f"{label:14} -> ran {outcome[0]}, said {outcome[1]!r}, left {outcome[2]}")

# %% tags=["check"]
from looplab import Case, compare, generate, reference


def scheduling(process_fn, tasks, follow_ups, max_tasks):
    """process with an agent that schedules a follow-up for some tasks: results, why, what is left."""
    asked = []

    def agent_fn(task):
        if len(asked) >= 100:  # a scheduler that never empties its list must end here
            raise RuntimeError("the agent was run 100 times: the scheduler does not stop")
        asked.append(task)
        if task in follow_ups:
            tasks.append(task + "+")
        return task.upper()
    done, reason = process_fn(tasks, agent_fn, max_tasks)
    return {"the results": done, "why it stopped": reason, "the tasks left waiting": list(tasks),
            "the tasks the agent ran": asked}


def schedule_case(d):
    tasks = d.some(lambda d: d.pick("abcde"), 0, 4)
    cap = d.pick([0, 1, 2, len(tasks), len(tasks) + 1, 5])
    return Case((tasks, d.subset(["a", "b", "a+"]), cap), f"tasks {tasks}, follow-ups and max_tasks={cap}")


SCHEDULES = generate(schedule_case, count=80, edges=[Case(([], [], 0), "no tasks and max_tasks=0"),
                                                     Case((["a", "b"], [], 2), "two tasks and max_tasks=2"),
                                                     Case((["a"], ["a"], 2), "a task that schedules one more, max 2")])
# given: the follow-up the agent scheduled ran as a task of its own
expect([r["task"] for r in queue.results] == [
           "add 2 and 3, then schedule a follow-up: uppercase the word done", "uppercase the word done"],
       f"the queue ran {[r['task'] for r in queue.results]}",
       observed=f"the queue ran {[r['task'] for r in queue.results]}; the fake brain schedules "
                "'uppercase the word done' as a follow-up")
# given: the cap stopped the runaway queue after five tasks
assert capped.stopped == "task_limit" and len(capped.results) == 5, (
    f"the capped queue stopped with {capped.stopped!r} after {len(capped.results)} tasks")
# your scheduler stops at the cap
assert len(processed) <= 5, (
    f"your scheduler ran {len(processed)} tasks; stop once max_tasks (5) have run")
# your scheduler says why it stopped
assert why == "task_limit", f"process() said {why!r}; with work still waiting it should say 'task_limit'"
# your scheduler takes tasks first in, first out
assert [r["task"] for r in processed][:2] == ["check the visits 0", "check the staff 0"], (
    f"the first tasks run were {[r['task'] for r in processed][:2]}; take the oldest task first")
# given: with nothing to do it runs nothing and says empty
assert PLAIN["nothing to do"][:2] == ([], "empty"), f"process([], ...) gave {PLAIN['nothing to do'][:2]}"
# a queue that empties within the cap, or exactly at it, says empty
assert PLAIN["three, cap 5"][:2] == (["a", "b", "c"], "empty") and PLAIN["three, cap 3"][:2] == (["a", "b", "c"], "empty"), (
    f"three tasks gave {PLAIN['three, cap 5'][:2]} with a cap of 5 and {PLAIN['three, cap 3'][:2]} with a cap of 3; "
    "both ran everything, so both should say 'empty'")
# a cap below the work stops with task_limit and leaves the rest waiting
assert PLAIN["three, cap 2"] == (["a", "b"], "task_limit", ["c"]), (
    f"three tasks with a cap of 2 gave {PLAIN['three, cap 2']}; run a and b, say 'task_limit', leave c in the list")
# process runs, returns and leaves what the lesson's does, with follow-ups scheduled and every cap
assert (process_found := compare(process, reference("process"), SCHEDULES, observe=scheduling)), process_found
