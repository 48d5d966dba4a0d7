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
from looplab.models import pick_model, model_mode
from looplab.models.rules import rule_model

live = model_mode() == "live"

# %% [markdown]
# ## Counting tokens
#
# Budgets are counted in **tokens**, the pieces of text a model reads. Real tokenizers differ
# by model; for budgeting, an estimate that errs on the high side is enough. Loop Lab counts
# one token per four characters, plus four for each message's role and separators. A message
# may also carry its size in a `tokens` field, which wins over the estimate (handy for
# examples with round numbers).

# %%
print(count_tokens("Which branch had more visits in March?"))
memory = Memory("You are a research helper.")
print(memory.size({"role": "user", "content": "Which branch had more visits in March?"}))
print(memory.size({"role": "tool", "tool_call_id": "c1", "content": "...", "tokens": 450}))

# %% [markdown]
# ## A worked example
#
# The system message is 400 tokens, every other message 600, and one call may use 5,000.
# After the system message, 5,000 − 400 = 4,600 tokens remain; 4,600 / 600 = 7.67, so **7**
# whole messages fit, not 8. Keep the newest 7 and drop the rest:

# %%
memory = Memory({"role": "system", "content": "You are a research helper.", "tokens": 400})
for i in range(1, 13):
    memory.add({"role": "user" if i % 2 else "assistant", "content": f"message {i}", "tokens": 600})
window = memory.messages(budget=5000)
print(len(window) - 1, "messages kept:", [m["content"] for m in window[1:]])
print("total tokens:", memory.tokens(budget=5000))

# %% [markdown]
# ## Never open on an orphan
#
# A tool result means nothing without the request it answers, and an API will refuse a tool
# message whose call is missing. So after trimming, any tool results left at the **front** of
# the window are dropped too. The window is always the newest messages that fit, walking back
# from the end, minus orphans at the front. Here a budget that would cut between a call and its
# result:

# %%
history = [
    {"role": "user", "content": "Which branch had more visits?", "tokens": 100},
    {"role": "assistant", "content": None, "tokens": 50, "tool_calls": [
        {"id": "c1", "type": "function", "function": {"name": "read_note", "arguments": "{\"note_id\": \"n1\"}"}}]},
    {"role": "tool", "tool_call_id": "c1", "content": "March visits: 1240. April visits: 1310.", "tokens": 300},
    {"role": "assistant", "content": "Eastside, with 1240.", "tokens": 80},
]
memory = Memory({"role": "system", "content": "Helper.", "tokens": 100})
for message in history:
    memory.add(message)
for budget in (600, 500, 300):
    print(budget, [m["role"] for m in memory.messages(budget)])

# %% [markdown]
# With 500 tokens the request (50) no longer fits, so the walk stops there, and the result it
# had already taken (300) is dropped as an orphan. A smaller window, but a truthful one.
#
# ## Exercise 1: write the trimming walk
#
# Write `fit(history, budget, system_tokens)` returning the messages to send after the system
# message: walk back from the newest, **stop at the first message that would go over** the
# budget (do not skip it to take older, smaller ones), then drop tool results at the front.
# Sizes are in each message's `tokens` field.

# %% tags=["exercise"]
def fit(history, budget, system_tokens):
    room = budget - system_tokens
    kept = []
    for message in reversed(history):
        if message["tokens"] <= room:
            kept.insert(0, message)
            room -= message["tokens"]
    return kept

# %% tags=["solution"]
def fit(history, budget, system_tokens):
    room = budget - system_tokens
    start = len(history)
    while start > 0 and history[start - 1]["tokens"] <= room:
        room -= history[start - 1]["tokens"]
        start -= 1
    kept = history[start:]
    while kept and kept[0]["role"] == "tool":
        kept = kept[1:]
    return kept

# %%
yours = {budget: [m["role"] for m in fit(history, budget, 100)] for budget in (600, 500, 300)}
reference = {budget: [m["role"] for m in memory.messages(budget)[1:]] for budget in (600, 500, 300)}
print("yours:    ", yours)
print("Memory's: ", reference)

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
#    memory a note with `chat.remember(...)`.
# 2. Old tool results are often the bulkiest messages. Write `clear_old_results(history,
#    keep=1)`, which returns a copy of the history where every tool result but the newest
#    `keep` has its content replaced by `"[cleared]"`. Keep the messages themselves: each call
#    must still have its answer.

# %% tags=["exercise"]
def clear_old_results(history, keep=1):
    return [m for m in history if m["role"] != "tool"]

# %% tags=["solution"]
chat.remember("name", "Chris")

def clear_old_results(history, keep=1):
    results = [i for i, m in enumerate(history) if m["role"] == "tool"]
    old = set(results[:-keep] if keep else results)
    return [{**m, "content": "[cleared]"} if i in old else m for i, m in enumerate(history)]

# %%
remembered = run_agent("What is my name?", brain, tools, chat)
print("with a note:", remembered["answer"])
print(chat.messages()[0]["content"])

long_run = []
for i in range(1, 4):
    long_run += [{"role": "assistant", "content": None, "tool_calls": [
                     {"id": f"c{i}", "type": "function", "function": {"name": "read_note", "arguments": "{}"}}]},
                 {"role": "tool", "tool_call_id": f"c{i}", "content": f"a long note number {i} " * 20}]
lighter = clear_old_results(long_run, keep=1)
print([m["content"][:22] if m["role"] == "tool" else "(call)" for m in lighter])

# %% tags=["check"]
# the worked example keeps 7 messages of 600 tokens
assert len(window) - 1 == 7, f"kept {len(window) - 1} messages; 4,600 / 600 leaves room for 7"
# your walk stops at the first message that does not fit
assert yours[500] == reference[500], (
    f"with a budget of 500 your fit() kept {yours[500]}, Memory keeps {reference[500]}; stop at the "
    "first message that would go over, do not skip it to take older ones")
# your window never opens on a tool result
assert all(not roles or roles[0] != "tool" for roles in yours.values()), (
    f"your windows: {yours}; drop tool results left at the front")
# your fit() agrees with Memory on every budget
assert yours == reference, f"yours {yours}, Memory's {reference}"
# with a note, the helper knows the name again
assert "name" in chat.notes and (live or "Chris" in remembered["answer"]), (
    f"the helper said {remembered['answer']!r}; use chat.remember('name', 'Chris') so the fact is in "
    "the system message on every call")
# old tool results are cleared, the newest kept
assert [m["content"] for m in lighter if m["role"] == "tool"][:2] == ["[cleared]", "[cleared]"] and \
    lighter[-1]["content"] == long_run[-1]["content"], (
    "clear_old_results should replace the content of every tool result but the newest with '[cleared]'")
# every call still has its answer
assert [m.get("tool_call_id") for m in lighter if m["role"] == "tool"] == ["c1", "c2", "c3"], (
    "clear_old_results removed tool messages; keep each message and only replace its content, so "
    "every call keeps its answer")
