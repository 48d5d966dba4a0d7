# ---
# jupyter:
#   looplab:
#     core: the memory window that keeps a long run inside the context; lesson 16b puts yours in front of your loop
# ---

# %% [markdown]
# # 8 · Memory that fits
#
# Lesson 6 kept the whole conversation and sent it every time. Every step of a run adds a
# reply and a tool result, so a long conversation grows until it no longer fits the model's
# **context window**, and well before that it gets worse: as the window fills, a model becomes
# less able to find and use what is in it (this decline is sometimes called *context rot*).
# Picture a desk that holds seven folders: put down an eighth and the oldest slides off the
# edge, and the answer is written without it.
#
# So the program decides, on every call, what to send. Four common strategies:
#
# | strategy | what it does | what you lose |
# | --- | --- | --- |
# | keep the last N messages | drops the oldest | early facts, such as the first question |
# | summarise old messages | replaces a long stretch with a short summary (*compaction*) | details the summary left out |
# | keep notes outside the window | the program records key facts and puts them back in the system message (*structured note-taking*) | nothing in the window, but someone must decide what to note |
# | clear old tool results | removes bulky results the agent has already used | the raw data, if it is needed again |

# %%
from looplab import Toolbox, Memory, run_agent, count_tokens
from looplab import expect
from looplab.models import pick_model
from looplab.models.rules import rule_model

# %% [markdown]
# ## Counting tokens
#
# Budgets are counted in **tokens**, the pieces of text a model reads. Real tokenizers differ
# by model; for budgeting, an estimate that errs on the high side is enough. Loop Lab counts
# one token per four characters, plus four for each message's role and separators. In this
# lesson each message carries its size in a `tokens` field, so the examples have round numbers.

# %%
print(count_tokens("Which branch had more visits in March?"))

# %% [markdown]
# ## A worked example
#
# The system message is 400 tokens, every other message 600, and one call may use 5,000.
# After the system message, 5,000 − 400 = 4,600 tokens remain; 4,600 / 600 = 7.67, so **7**
# whole messages fit, not 8. Keep the newest 7 and drop the rest.
#
# Two rules make the cut honest:
#
# - **walk back from the newest message and stop at the first one that does not fit.** Do not
#   skip it to take an older, smaller one: the window must be an unbroken run of the latest
#   messages, or the model reads a conversation with a hole in it;
# - **never open on an orphan.** A tool result means nothing without the request it answers, and
#   an API refuses a tool message whose call is missing. So if the window starts with a tool
#   result, drop it too. A smaller window, but a truthful one.
#
# ## Exercise 1: build the memory
#
# Complete `MyMemory(system_prompt)`. `add` and `remember` are done: they keep the messages and
# the facts. Write `messages(budget=None)`, which returns what the model is sent:
#
# 1. the system message first, counting as `SYSTEM_TOKENS` (400), with every remembered fact
#    written into its content (for example `Known facts: March winner: Eastside`);
# 2. then the newest messages that fit in `budget` tokens, the system message included: walk
#    back from the newest, add up each message's `tokens`, and stop at the first that would go
#    over. With no budget, every message;
# 3. then drop tool results at the front of what you kept.

# %% tags=["exercise"]
class MyMemory:
    """Short-term memory: the history, notes kept in the system message, a window within a budget."""

    SYSTEM_TOKENS = 400  # the size the system message counts for

    def __init__(self, system_prompt):
        self.system_prompt = system_prompt
        self.history = []   # every message, oldest first; each has a "tokens" size
        self.notes = {}     # key -> value, written into the system message on every call

    def add(self, message):
        self.history.append(message)

    def remember(self, key, value):
        self.notes[key] = value

    def messages(self, budget=None):
        """The system message, then the newest messages that fit in `budget` tokens (system included)."""
        system = {"role": "system", "content": self.system_prompt, "tokens": self.SYSTEM_TOKENS}
        return [system] + self.history

# %% [markdown] tags=["hint"]
# Three parts, in order: build the system message (its content plus the notes), choose how many
# of the newest messages fit, then trim tool results off the front. Build a new content string
# on each call rather than adding to `self.system_prompt`, or the facts pile up call after call.

# %% [markdown] tags=["hint"]
# For the notes: join `key: value` pairs with `"; "`. For the walk: keep the room left (the
# budget less the system message's size) and an index that starts past the newest message; while
# the message just before the index fits in the room, take it, shrinking the room and moving the
# index back; the window is the history from the index on. Then, as long as the window opens on a
# `tool` message, drop its first message.

# %% [markdown] tags=["hint"]
# ```python
# def messages(self, budget=None):
#     content = self.system_prompt
#     if self.notes:
#         content += " Known facts: " + "; ".join(f"{k}: {v}" for k, v in self.notes.items())
#     system = {"role": "system", "content": content, "tokens": self.SYSTEM_TOKENS}
#     kept = list(self.history)
#     if budget is not None:
#         room, start = budget - self.SYSTEM_TOKENS, len(self.history)
#         while start > 0 and self.history[start - 1]["tokens"] <= room:
#             room -= self.history[start - 1]["tokens"]
#             start -= 1
#         kept = self.history[start:]
#     while kept and kept[0]["role"] == "tool":
#         kept = kept[1:]
#     return [system] + kept
# ```

# %% tags=["wrong"]
# wrong: skips a message that does not fit and takes older, smaller ones
# expect: does not skip it
# patch:
# -            while start > 0 and self.history[start - 1]["tokens"] <= room:
# -                room -= self.history[start - 1]["tokens"]
# -                start -= 1
# -            kept = self.history[start:]
# +            kept = []
# +            for message in reversed(self.history):
# +                if message["tokens"] <= room:
# +                    room -= message["tokens"]
# +                    kept.insert(0, message)

# %% tags=["wrong"]
# wrong: keeps a tool result at the front of the window, its request cut off
# expect: drop tool results at the front
# patch:
# -        while kept and kept[0]["role"] == "tool":
# -            kept = kept[1:]

# %% tags=["wrong"]
# wrong: adds the facts to self.system_prompt, so they pile up call after call
# expect: build the content afresh
# patch:
# -        content = self.system_prompt
# -        if self.notes:
# -            content += " Known facts: " + "; ".join(f"{k}: {v}" for k, v in self.notes.items())
# +        if self.notes:
# +            self.system_prompt += " Known facts: " + "; ".join(f"{k}: {v}" for k, v in self.notes.items())
# +        content = self.system_prompt

# %% tags=["wrong"]
# wrong: forgets that the system message takes 400 of the budget
# expect: over the budget
# patch:
# -            room, start = budget - self.SYSTEM_TOKENS, len(self.history)
# +            room, start = budget, len(self.history)

# %% tags=["solution"]
class MyMemory:
    """Short-term memory: the history, notes kept in the system message, a window within a budget."""

    SYSTEM_TOKENS = 400  # the size the system message counts for

    def __init__(self, system_prompt):
        self.system_prompt = system_prompt
        self.history = []   # every message, oldest first; each has a "tokens" size
        self.notes = {}     # key -> value, written into the system message on every call

    def add(self, message):
        self.history.append(message)

    def remember(self, key, value):
        self.notes[key] = value

    def messages(self, budget=None):
        """The system message, then the newest messages that fit in `budget` tokens (system included)."""
        content = self.system_prompt
        if self.notes:
            content += " Known facts: " + "; ".join(f"{k}: {v}" for k, v in self.notes.items())
        system = {"role": "system", "content": content, "tokens": self.SYSTEM_TOKENS}
        kept = list(self.history)
        if budget is not None:
            room, start = budget - self.SYSTEM_TOKENS, len(self.history)
            while start > 0 and self.history[start - 1]["tokens"] <= room:
                room -= self.history[start - 1]["tokens"]
                start -= 1
            kept = self.history[start:]
        while kept and kept[0]["role"] == "tool":
            kept = kept[1:]
        return [system] + kept

# %% [markdown]
# ## The research helper's twelve messages
#
# A conversation of twelve messages, oldest first. An assistant message that asks for a tool is
# followed by that tool's result.
#
# | position | role | tokens | | position | role | tokens |
# | --- | --- | --- | --- | --- | --- | --- |
# | 1 | user | 120 | | 7 | tool result | 520 |
# | 2 | assistant (asks for a tool) | 80 | | 8 | assistant | 150 |
# | 3 | tool result | 450 | | 9 | user | 90 |
# | 4 | assistant (asks for a tool) | 80 | | 10 | assistant (asks for a tool) | 80 |
# | 5 | tool result | 300 | | 11 | tool result | 610 |
# | 6 | assistant (asks for a tool) | 80 | | 12 | assistant | 200 |

# %%
TABLE = [("user", 120, False), ("assistant", 80, True), ("tool", 450, False), ("assistant", 80, True),
         ("tool", 300, False), ("assistant", 80, True), ("tool", 520, False), ("assistant", 150, False),
         ("user", 90, False), ("assistant", 80, True), ("tool", 610, False), ("assistant", 200, False)]


def conversation():
    """The twelve messages, each with its `tokens` and its `pos` (1-12); calls and results paired by id."""
    messages, last_call = [], None
    for pos, (role, tokens, asks) in enumerate(TABLE, start=1):
        message = {"role": role, "content": f"message {pos}", "tokens": tokens, "pos": pos}
        if asks:
            last_call = f"c{pos}"
            message["content"] = None
            message["tool_calls"] = [{"id": last_call, "type": "function",
                                      "function": {"name": "read_note", "arguments": "{}"}}]
        if role == "tool":
            message["tool_call_id"] = last_call
        messages.append(message)
    return messages


def attempt(function, *args):
    """Call the learner's code; an exception becomes text the checks can read."""
    try:
        return function(*args)
    except Exception as exc:
        return f"raised {type(exc).__name__}: {exc}"


def window_of(memory, budget=None):
    """(positions kept, total tokens) of memory.messages(budget), or what went wrong instead."""
    window = attempt(memory.messages, budget)
    if not isinstance(window, list) or not window or not isinstance(window[0], dict):
        return f"messages({budget}) gave {window!r:.100}", None
    return [m.get("pos") for m in window[1:]], sum(m.get("tokens", 0) for m in window)


table_memory = MyMemory("You are a research helper.")
for message in conversation():
    table_memory.add(message)

# %% [markdown] tags=["predict"]
# With a budget of 2,100 tokens, which positions will the window keep?
#
# - [ ] 6 to 12
# - [ ] 7 to 12
# - [x] 8 to 12
# - [ ] all twelve
#
# 400 for the system message leaves 1,700: messages 12 down to 7 fit (1,650), message 6 does not.
# Message 7 is a tool result whose request (6) was cut, so it is dropped as an orphan.

# %%
windows = {budget: window_of(table_memory, budget) for budget in (1300, 1500, 2100)}
for budget, (positions, total) in windows.items():
    print(f"budget {budget}: positions {positions}, {total} tokens")
table_memory.remember("March winner", "Eastside")
remembered = [attempt(table_memory.messages, budget) for budget in (1300, None)]
print("the system message:", remembered[0][0] if isinstance(remembered[0], list) else remembered[0])

# %% [markdown]
# More cases, each where a memory goes wrong: the worked example, a budget that would tempt the
# walk to skip a big message, a budget smaller than the system message, every budget from 300
# to 4,000, and two calls in a row (does the system message grow?).

# %%
worked = MyMemory("You are a research helper.")
for i in range(1, 13):
    worked.add({"role": "user" if i % 2 else "assistant", "content": f"message {i}", "tokens": 600, "pos": i})
worked_window = window_of(worked, 5000)

skip = MyMemory("Helper.")
for pos, (role, tokens) in enumerate([("user", 50), ("assistant", 500), ("user", 50)], start=1):
    skip.add({"role": role, "content": f"message {pos}", "tokens": tokens, "pos": pos})
skip_window = window_of(skip, 500)

sweep = {budget: window_of(table_memory, budget) for budget in range(300, 4001, 100)}
no_budget = window_of(table_memory)
twice = [attempt(lambda: table_memory.messages()[0].get("content")) for _ in range(2)]
print("worked example:", worked_window, "| skip:", skip_window, "| no budget:", no_budget)

# %% [markdown]
# ## The hardened version: `looplab.Memory`
#
# Loop Lab's `Memory` (in `looplab/memory.py`) walks the window the same way. What it adds:
#
# - **estimated sizes**: real messages do not arrive with a `tokens` field, so it estimates one
#   from the text and the tool calls (the `tokens` field still wins when it is there);
# - **notes are counted**: the facts make the system message bigger, and the window shrinks to
#   make room, so a long note cannot push a call over the budget unnoticed;
# - `keep_last=N`, the "last N messages" strategy, alone or with a budget; `forget(key)`;
# - **copies**: the window holds copies of the messages, so code that edits what it was given
#   cannot change the history;
# - it plugs into `run_agent`, whose `context_window=` is `messages()`'s budget on every model call.
#
# On the twelve messages it keeps the same positions as yours:

# %%
reference = Memory({"role": "system", "content": "You are a research helper.", "tokens": 400})
for message in conversation():
    reference.add(message)
theirs = {budget: [m["pos"] for m in reference.messages(budget)[1:]] for budget in (1300, 1500, 2100)}
print("Memory's:", theirs)
print("yours:   ", {budget: positions for budget, (positions, _) in windows.items()})

# %% [markdown]
# ## Notes that survive trimming
#
# `keep_last=N` keeps just the newest N messages. Cheap, and fine until the one fact that
# mattered was in message one. A doctor clips a one-page summary to the front of a thick file
# so the allergy is seen even when older pages are not read; `remember(key, value)` is that
# page. A note is rewritten into the system message on every call, so no trimming can drop it.

# %%
brain = pick_model(rule_model)
tools = Toolbox()
chat = Memory("You are a helpful assistant.", keep_last=2)
for text in ("My name is Chris.", "Hello", "Hi there"):
    run_agent(text, brain, tools, chat)
forgot = run_agent("What is my name?", brain, tools, chat)
print("without a note:", forgot["answer"])
print([m["content"] for m in chat.messages()])

# %% [markdown]
# ## Exercise 2: a note, and a lighter history
#
# 1. Make the helper answer the name question again, **without** raising `keep_last`: give the
#    `chat` memory a note.
# 2. Old tool results are often the bulkiest messages. Write `clear_old_results(history,
#    keep=1)`, which returns a copy of the history where every tool result but the newest
#    `keep` has its content replaced by `"[cleared]"`. Keep the messages themselves: each call
#    must still have its answer.

# %% tags=["exercise"]
def clear_old_results(history, keep=1):
    return [m for m in history if m["role"] != "tool"]

# %% [markdown] tags=["hint"]
# The note is one call on `chat`, with a key and the value the model should always see. For
# `clear_old_results`, find the positions of the tool messages first; the ones to clear are all
# but the last `keep` of them.

# %% [markdown] tags=["hint"]
# `chat.remember` takes the key and the value. Then list the indexes of the `tool` messages; the
# old ones are all but the last `keep` of that list (careful: all of them when `keep` is 0, where
# a `[:-0]` slice gives none), and a cleared message is a new dict, a copy whose content is
# `[cleared]`.

# %% [markdown] tags=["hint"]
# ```python
# chat.remember("name", "Chris")
#
# def clear_old_results(history, keep=1):
#     results = [i for i, m in enumerate(history) if m["role"] == "tool"]
#     old = set(results[:-keep] if keep else results)
#     return [{**m, "content": "[cleared]"} if i in old else m for i, m in enumerate(history)]
# ```

# %% tags=["wrong"]
# wrong: drops the old tool results instead of clearing them
# expect: removed tool messages
# patch:
# -    return [{**m, "content": "[cleared]"} if i in old else m for i, m in enumerate(history)]
# +    return [m for i, m in enumerate(history) if i not in old]

# %% tags=["wrong"]
# wrong: clears every tool result, the newest too
# expect: but the newest
# replaces: clear_old_results
def clear_old_results(history, keep=1):
    return [{**m, "content": "[cleared]"} if m["role"] == "tool" else m for m in history]

# %% tags=["wrong"]
# wrong: writes clear_old_results but gives the chat no note
# expect: note holding the user's name
# patch:
# -chat.remember("name", "Chris")
# -

# %% tags=["solution"]
chat.remember("name", "Chris")

def clear_old_results(history, keep=1):
    results = [i for i, m in enumerate(history) if m["role"] == "tool"]
    old = set(results[:-keep] if keep else results)
    return [{**m, "content": "[cleared]"} if i in old else m for i, m in enumerate(history)]

# %%
remembered_name = run_agent("What is my name?", brain, tools, chat)
print("with a note:", remembered_name["answer"])
print(chat.messages()[0]["content"])

long_run = []
for i in range(1, 4):
    long_run += [{"role": "assistant", "content": None, "tool_calls": [
                     {"id": f"c{i}", "type": "function", "function": {"name": "read_note", "arguments": "{}"}}]},
                 {"role": "tool", "tool_call_id": f"c{i}", "content": f"a long note number {i} " * 20}]
lighter = clear_old_results(long_run, keep=1)
print([m["content"][:22] if m["role"] == "tool" else "(call)" for m in lighter])

# %%
from looplab import chat_with
talk = Memory("You are a helpful assistant.")  # the chat's memory, sent within a 200-token window
chat_with(lambda message: run_agent(message, brain, Toolbox(), talk, context_window=200), name="brain",
          suggestions=["My name is Alice.", "What is my name?"])

# %% tags=["check"]
from looplab import Case, compare, generate, reference


def conversation_of(d):
    """A generated history: user questions, calls with their results, answers; each with tokens and pos."""
    out = []
    while len(out) < d.number(0, 9):
        kind = d.pick(["user", "calls", "answer"])
        size = lambda: d.pick([0, 40, 100, 250, 400])  # noqa: E731
        if kind == "calls":
            ids = [f"c{len(out)}_{i}" for i in range(d.number(1, 2))]
            out.append({"role": "assistant", "content": None, "tokens": size(),
                        "tool_calls": [{"id": i, "type": "function", "function": {"name": "read_note",
                                                                                  "arguments": "{}"}} for i in ids]})
            out += [{"role": "tool", "tool_call_id": i, "content": "a note", "tokens": size()} for i in ids]
        else:
            out.append({"role": "user" if kind == "user" else "assistant", "content": "text", "tokens": size()})
    return [{**m, "pos": n} for n, m in enumerate(out, 1)]


def memory_case(d):
    history = conversation_of(d)
    total = sum(m["tokens"] for m in history)
    tail = sum(m["tokens"] for m in history[-d.number(1, 3):]) if history else 0
    budgets = [None, 400, 399, 400 + tail, 400 + tail - 1, 400 + total, d.number(300, 1500)]
    facts = d.some(lambda d: (d.pick(["name", "winner", "city"]), d.pick(["Ada", "Eastside", "Lima"])), 0, 2)
    return Case((history, facts, d.subset(budgets) or [None]),
                f"{len(history)} messages of {[m['tokens'] for m in history]} tokens, facts {facts}, "
                f"budgets {d.pick(['as listed'])}")


def windowing(memory_class, history, facts, budgets):
    """What messages(budget) keeps (by pos) for each budget, and what its system message holds."""
    memory = memory_class("You help.")
    for message in history:
        memory.add(message)
    for key, value in facts:
        memory.remember(key, value)
    out = {}
    for budget in budgets + budgets[:1]:
        window = memory.messages(budget)
        system = window[0]
        out[f"messages({budget}) keeps"] = [m.get("pos") for m in window[1:]]
        out[f"messages({budget})'s system message"] = (
            system.get("role"), system.get("tokens"), "You help." in str(system.get("content")),
            [str(v) in str(system.get("content")) and k in str(system.get("content")) for k, v in facts],
            str(system.get("content")).count(str(facts[-1][1])) if facts else 0)
    return out


MEMORIES = generate(memory_case, count=120, edges=[
    Case(([], [], [None, 400, 100]), "an empty history"),
    Case((conversation(), [], [1300, 1500, 2100]), "the lesson's twelve messages"),
    Case((conversation(), [("March winner", "Eastside")], [None, 2000]), "a remembered fact")])


def clearing(clear_fn, history, keep):
    before = [dict(m) for m in history]
    out = clear_fn(history) if keep == "left out" else clear_fn(history, keep)
    results = [m for m in out if m.get("role") == "tool"]
    return {"tool results it left as they were": sum(m.get("content") != "[cleared]" for m in results),
            "tool results it cleared": sum(m.get("content") == "[cleared]" for m in results),
            "what it returned": [(m.get("role"), m.get("tool_call_id"), m.get("content"), m.get("pos")) for m in out],
            "the history you were given": "unchanged" if history == before else "changed"}


def clear_case(d):
    history = [{**m, "content": m["content"] if m["role"] != "tool" else f"result {m['pos']}"}
               for m in conversation_of(d)]
    results = sum(m["role"] == "tool" for m in history)
    keep = d.pick(["left out", 0, 1, 2, results, results + 1])
    return Case((history, keep), f"keep={keep} and {results} tool results in {len(history)} messages")


CLEARS = generate(clear_case, count=80, edges=[
    Case((long_run, 0), "keep=0 and 3 tool results"), Case((long_run, "left out"), "keep left out and 3 tool results"),
    Case((long_run, 3), "keep=3 and 3 tool results"), Case(([], 1), "an empty history")])
# given: the system message comes first and counts as 400 tokens
assert isinstance(remembered[1], list) and remembered[1][0].get("role") == "system" \
    and remembered[1][0].get("tokens") == 400, (
    f"messages() began with {remembered[1][0] if isinstance(remembered[1], list) else remembered[1]!r:.120}; "
    "the first message is the system message, with 'tokens': SYSTEM_TOKENS")
# at 1,300 tokens the window keeps positions 10 to 12
assert windows[1300][0] == [10, 11, 12], (
    f"with a budget of 1,300 your window kept positions {windows[1300][0]}; 900 tokens remain after "
    "the system message: walk back from the newest and stop at the first that does not fit")
# at 1,500 tokens the window keeps positions 9 to 12
assert windows[1500][0] == [9, 10, 11, 12], (
    f"with a budget of 1,500 your window kept positions {windows[1500][0]}; 1,100 tokens remain after "
    "the system message")
# at 2,100 tokens the window keeps positions 8 to 12: the orphaned result 7 is dropped
assert windows[2100][0] == [8, 9, 10, 11, 12], (
    f"with a budget of 2,100 your window kept positions {windows[2100][0]}; 7 fits but is a tool result "
    "whose request (6) did not: drop tool results at the front")
# no window is over its budget, the system message included
assert all(total is not None and (total <= budget or positions == []) for budget, (positions, total) in sweep.items()), (
    "over the budget: " + ", ".join([f"budget {b}: {t} tokens" for b, (p, t) in sweep.items()
                                     if t is None or (t > b and p)][:4]) + " ...")
# every window is the newest messages, oldest first, with no gap
assert all(isinstance(p, list) and p == list(range(13 - len(p), 13)) for p, _ in sweep.values()) and any(
        isinstance(p, list) and 0 < len(p) < 12 for p, _ in sweep.values()), (
    "these windows are not the newest messages in order: " + ", ".join(
        f"{b}: {p}" for b, (p, _) in sweep.items() if not (isinstance(p, list) and p == list(range(13 - len(p), 13)))))
# no window opens on a tool result
assert all(not p or TABLE[p[0] - 1][0] != "tool" for p, _ in sweep.values() if isinstance(p, list)) and any(
        isinstance(p, list) and 0 < len(p) < 12 for p, _ in sweep.values()), (
    "these windows open on a tool result: " + ", ".join(
        f"{b}: {p}" for b, (p, _) in sweep.items() if isinstance(p, list) and p and TABLE[p[0] - 1][0] == "tool"))
# the walk stops at the first message that does not fit, even if an older one would
assert skip_window[0] == [3], (
    f"with messages of 50, 500 and 50 tokens and 100 tokens of room, your window kept {skip_window[0]}; "
    "the 500 does not fit, so the walk stops there: it does not skip it to take the older 50")
# the worked example keeps the newest 7 messages of 600 tokens
assert worked_window[0] == list(range(6, 13)), (
    f"with 12 messages of 600 tokens and a budget of 5,000 your window kept {worked_window[0]}; "
    "4,600 / 600 leaves room for 7")
# given: without a budget, every message is sent
assert no_budget[0] == list(range(1, 13)), f"messages() with no budget kept positions {no_budget[0]}"
# a remembered fact is in the system message on every call
assert all(isinstance(w, list) and "March winner" in str(w[0].get("content")) and "Eastside" in str(w[0].get("content"))
           for w in remembered), (
    f"after remember('March winner', 'Eastside') the system message was "
    f"{[w[0].get('content') if isinstance(w, list) else w for w in remembered]}; write the notes into "
    "its content in messages()")
# the system message is the same on every call: facts are not added again
assert isinstance(twice[0], str) and twice[0] == twice[1] and twice[0].count("March winner") == 1, (
    f"two calls in a row gave system messages {twice}; build the content afresh in each call instead of "
    "adding to self.system_prompt")
# your windows agree with looplab's Memory
assert {b: p for b, (p, _) in windows.items()} == theirs, f"yours {windows}, Memory's {theirs}"
# your MyMemory keeps what the lesson's keeps, for many histories, facts and budgets (exact fits too)
assert (memory_found := compare(MyMemory, reference("MyMemory"), MEMORIES, observe=windowing)), memory_found
# the note is kept in the chat memory
assert "name" in chat.notes, (
    f"the chat memory's notes are {chat.notes}; the exercise asks for a note holding the user's name")
# with a note, the helper knows the name again
expect("Chris" in (remembered_name["answer"] or ""),
       f"the helper said {remembered_name['answer']!r}; the note should put the name in the system message "
       "on every call",
       observed=f"the model answered {remembered_name['answer']!r}; the scripted model answers 'Chris' "
                "once the name is in the system message")
# old tool results are cleared, the newest kept
assert [m["content"] for m in lighter if m["role"] == "tool"][:2] == ["[cleared]", "[cleared]"] and \
    lighter[-1]["content"] == long_run[-1]["content"], (
    "clear_old_results should replace the content of every tool result but the newest with '[cleared]'")
# every call still has its answer
assert [m.get("tool_call_id") for m in lighter if m["role"] == "tool"] == ["c1", "c2", "c3"], (
    "clear_old_results removed tool messages; keep each message and only replace its content, so "
    "every call keeps its answer")
# clear_old_results clears what the lesson's clears, for every keep (0, past the end, left out)
assert (clear_found := compare(clear_old_results, reference("clear_old_results"), CLEARS, observe=clearing)), \
    clear_found
