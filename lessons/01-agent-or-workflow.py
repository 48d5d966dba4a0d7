# ---
# jupyter:
#   looplab:
#     core: the one model call every agent is made of, and the question the course answers (who chooses the next step)
# ---

# %% [markdown]
# # 1 · Agent or workflow?
#
# Welcome to Loop Lab. Lesson by lesson you will build an AI agent from nothing but
# plain Python: the loop, the tools, the memory, the rules that keep it safe, and the ways it
# knows to stop. Every cell on this page runs. Change anything and press **Run**.
#
# An agent has a few parts, and this course gives each its own lesson:
#
# | part | what it does | lessons |
# | --- | --- | --- |
# | the **model** | reads the messages and decides what to do next: answer, call a tool, or ask | 1, 3, 5, 14, 14b |
# | **tools** | functions the model may ask your program to run: search, compute, act | 2, 3, 12 |
# | the **loop** | runs the tools, feeds the results back, and asks again until it is done | 4, 5, 7 |
# | **memory** | what the program sends the model on every call, since the model keeps nothing | 6, 8, 9 |
# | a **planner** | breaks a goal into steps; here, as in many real systems, the model plans in its replies | 11, 13 |
# | **policy** | what the agent may not do, and what needs a person's yes | 10 |
#
# The course has three chapters:
#
# - **Chapter 1, an agent from scratch (1–16).** One model call (1), the five workflow shapes to
#   try before any agent (1b), tools (2, 3), the loop and its stops (4), one shape for every
#   provider's reply (5), a conversation (6), state and a trace (7), memory that fits (8) and
#   memory that lasts (9), rules and approvals (10), tasks the agent schedules (11), tools
#   described in the prompt (12), ReAct (13), real models (14) and their replies streamed as they
#   come (14b); then all of it in one agent (15) and a project that builds the research helper
#   from your own parts, in two sittings (16, 16b).
# - **Chapter 2, making it hold up (17–24).** Evaluating your agent (17), prompt injection (18),
#   structured outputs (19), tokens, cost and budgets (20), timeouts, retries and calls in
#   parallel (21), compaction (22), several agents (23) and a standard tool connector, MCP (24).
# - **Chapter 3, agents at work (25–27).** A coding agent (25), a benchmark to measure it (26),
#   and the research helper made ready for real use (27).
#
# We start with the smallest piece of all: one call to a model.

# %%
from looplab import Toolbox, Memory, run_agent, printer
from looplab import expect
from looplab.models import pick_model, model_mode, call, final

print("The model in this lesson:", {"live": "your live endpoint", "local": "the model in this page"}.get(
    model_mode(), "scripted replies (offline)"))

# %% [markdown]
# ## One call: messages in, one reply out
#
# A chat model is a function. You hand it a list of **messages** and it hands back **one** new
# message. Each message is a small dictionary with a `role`:
#
# - `system`: standing instructions from the program ("you are a research helper");
# - `user`: what the person typed;
# - `assistant`: what the model said before;
# - `tool`: the result of a tool the program ran (lesson 3).
#
# In Loop Lab every model, scripted or live, is called the same way:
# `model(messages, tools)` returns an assistant message. The **scripted** model hands out replies
# written in advance, so the lesson works offline and always does the same thing. Switch the
# page to **live** and the very same code talks to a real model.

# %%
model = pick_model([final("Paris is the capital of France.")])

messages = [
    {"role": "system", "content": "You are a helpful assistant. Answer in one sentence."},
    {"role": "user", "content": "What is the capital of France?"},
]
reply = model(messages, [])
print(reply)
print("The text of the reply:", reply["content"])

# %% [markdown]
# This is what pressing Enter in a chat window does: the page sends the conversation, the model
# sends one message back. Nothing more happens unless a program decides it should. That program,
# and who decides what it does next, is the rest of this lesson.
#
# ## Two programs, one question
#
# A research helper has six short notes about two branches of a library (the later lessons use
# the same six, so `looplab` keeps them as `BRANCH_NOTES`):
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
from looplab import BRANCH_NOTES

NOTES = dict(BRANCH_NOTES)  # id -> (title, text)

def search_notes(keyword):
    return [note_id for note_id, (title, _) in NOTES.items() if keyword.lower() in title.lower()]

def read_note(note_id):
    return NOTES[note_id][1]

# %% [markdown]
# The question: *"Which branch had more visits in March, and by how many?"*
#
# **Program A** does the same steps every time: search for "visits", read the first two notes,
# take the first number from each, subtract, and word the answer.

# %%
import re

def program_a(question):
    first, second = search_notes("visits")[:2]
    a = int(re.findall(r"\d+", read_note(first))[0])
    b = int(re.findall(r"\d+", read_note(second))[0])
    return f"{NOTES[first][0].split(':')[0]} is ahead by {a - b}."

print(program_a("Which branch had more visits in March, and by how many?"))

# %% [markdown] tags=["predict"]
# Now Program A is asked *"Which branch is open longer?"*. What does it print?
#
# - [ ] `Eastside: open Monday to Saturday, one day more than Westside.`
# - [x] `Eastside is ahead by 260.`
# - [ ] an error: no note answers that question
#
# Read `program_a` again: nothing in it looks at the question.

# %%
print(program_a("Which branch is open longer?"))

# %% [markdown]
# The first answer is right. The second is nonsense: asked about opening days, Program A still
# searched for "visits" and subtracted visitor numbers, because **its code chose the steps**.
#
# **Program B** gives a model three tools (search the notes, read a note, do arithmetic) and the
# question, and lets the model pick each step. You will build every piece of it in the next
# three lessons; for now, just watch it run. Each line below is one event of the run.

# %%
box = Toolbox()

@box.tool
def search(keyword: str) -> list:
    "Find notes whose title contains a keyword. Returns their ids."
    return search_notes(keyword)

@box.tool
def read(note_id: str) -> str:
    "Return the text of one note, by id (n1 ... n6)."
    return read_note(note_id)

@box.tool
def subtract(a: float, b: float) -> float:
    "Subtract b from a."
    return a - b

march = pick_model([
    call("search", keyword="visits"),
    call("read", note_id="n1"),
    call("read", note_id="n2"),
    call("subtract", a=1240, b=980),
    final("Eastside had 260 more visits than Westside in March."),
])
run_march = run_agent("Which branch had more visits in March, and by how many?", march, box,
                      Memory("You answer questions from the notes."), tracer=printer())
print(run_march["answer"])

# %%
hours = pick_model([
    call("search", keyword="opening"),
    call("read", note_id="n3"),
    call("read", note_id="n4"),
    final("Eastside: it opens Monday to Saturday, Westside only Monday to Friday."),
])
run_hours = run_agent("Which branch is open longer?", hours, box,
                      Memory("You answer questions from the notes."), tracer=printer())
print(run_hours["answer"])

# %% [markdown]
# For the opening-days question the model searched for something else and never did arithmetic.
# In Program A the **programmer** chose the steps; in Program B the **model** did. That is the
# whole difference:
#
# - a **workflow** is a fixed chain of steps chosen in code (it may call a model inside a step);
# - an **agent** is a program in which the model chooses the next step and which tool to use.
#
# A recipe card is a workflow; a cook told "make dinner from what is in the fridge" is an agent.
# A bus follows its route; a taxi goes where the driver judges best.
#
# Neither is better. Agents suit open-ended problems where you cannot know the steps in
# advance. They cost more (more model calls) and their mistakes can compound, one wrong step
# feeding the next. So start with the simplest design that works: **if you can write the steps
# down, write a workflow.** Lesson 1b shows the five shapes workflows take; the rest of the course
# is about the times you cannot.
#
# ## Exercise 1: ask the model
#
# Write `ask(model, question)`: send a **system** message ("Answer in one sentence.") followed by
# the user's question, and return only the **text** of the reply, not the whole message dict.

# %%
sent = []  # every message list our model was given, so the checks can look at it

def recording(model):
    def model_that_records(messages, tools):
        sent.append(messages)
        return model(messages, tools)
    return model_that_records

# %% tags=["exercise"]
def ask(model, question):
    messages = [{"role": "user", "content": question}]
    reply = model(messages, [])
    return reply

answer = ask(recording(pick_model([final("Paris.")])), "What is the capital of France?")
print(answer)

# %% [markdown] tags=["hint"]
# Compare with the first code cell of this lesson: which message comes before the question
# there, and what did it print to get just the text?

# %% [markdown] tags=["hint"]
# The list needs two dicts, `{"role": "system", ...}` then `{"role": "user", ...}`. The reply is
# a message dict; its text is under the key `"content"`.

# %% [markdown] tags=["hint"]
# ```python
# def ask(model, question):
#     messages = [
#         {"role": "system", "content": "Answer in one sentence."},
#         {"role": "user", "content": question},
#     ]
#     reply = model(messages, [])
#     return reply["content"]
# ```

# %% tags=["wrong"]
# wrong: returns the whole reply, not its text
# expect: whole message dict just its text
# patch:
# -    reply = model(messages, [])
# -    return reply["content"]
# +    return model(messages, [])
# @@
# -print(answer)

# %% tags=["wrong"]
# wrong: puts the system message after the question
# expect: system message goes before the question
def ask(model, question):
    messages = [
        {"role": "user", "content": question},
        {"role": "system", "content": "Answer in one sentence."},
    ]
    return model(messages, [])["content"]

answer = ask(recording(pick_model([final("Paris.")])), "What is the capital of France?")

# %% tags=["wrong"]
# wrong: rewords the question inside the user message
# expect: question word for word
def ask(model, question):
    messages = [
        {"role": "system", "content": "Answer in one sentence."},
        {"role": "user", "content": "Please answer: " + question},
    ]
    return model(messages, [])["content"]

answer = ask(recording(pick_model([final("Paris.")])), "What is the capital of France?")

# %% tags=["solution"]
def ask(model, question):
    messages = [
        {"role": "system", "content": "Answer in one sentence."},
        {"role": "user", "content": question},
    ]
    reply = model(messages, [])
    return reply["content"]

answer = ask(recording(pick_model([final("Paris.")])), "What is the capital of France?")
print(answer)

# %% [markdown]
# ## Exercise 2: who chooses?
#
# Label each program `"workflow"` or `"agent"`.

# %% tags=["exercise"]
program_a_is = "?"
program_b_is = "?"

# %% [markdown] tags=["hint"]
# Ask of each program: when the question changed, who picked the next step, the code or the
# model?

# %% [markdown] tags=["hint"]
# Program A's steps are written in `program_a`; Program B's came from the model's replies.
# `program_a_is = "workflow"` and `program_b_is = "agent"`.

# %% tags=["wrong"]
# wrong: swaps them: Program A has the fixed tool code, Program B "follows a script" of replies
# expect: who chose Program A's steps
# replaces: program_a_is, program_b_is
program_a_is = "agent"

program_b_is = "workflow"

# %% tags=["wrong"]
# wrong: calls both workflows, since Program B's tools are fixed in code too
# expect: who chose Program B's steps
# replaces: program_b_is
program_b_is = "workflow"

# %% tags=["solution"]
program_a_is = "workflow"  # its code fixed the steps
program_b_is = "agent"     # the model chose them

# %%
from looplab import chat_with
from looplab.models.rules import rule_model
chat_with(lambda question: ask(pick_model(rule_model), question), name="ask",
          suggestions=["what is 1002 + 4002", "uppercase hello", "what is the temperature in Paris"])

# %% tags=["check"]
from looplab import Case, compare, reference


def asking(ask_fn, question, content):
    """What ask_fn returns, and what it sends, when the model replies `content`."""
    seen = []

    def model(messages, tools):
        seen.append([(m.get("role"), m.get("content") if m.get("role") != "system" else "(a system message)")
                     for m in messages])
        return {"role": "assistant", "content": content}
    return {"what it returned": ask_fn(model, question), "what the model was sent": seen}


QUESTIONS = [Case((question, content), f"the question {question!r} and the reply {content!r}")
             for question in ("What is the capital of Peru?", "", "Why?") for content in ("Lima.", "", None)]

# ask() returns the text of the reply
assert isinstance(answer, str) and answer, (
    f"ask() returned {type(answer).__name__}: {answer!r:.80}; the reply is a whole message dict: "
    "return just its text")
# ask() sends a system message first, then the question
assert sent and [m["role"] for m in sent[-1]] == ["system", "user"], (
    f"the model was sent roles {[m['role'] for m in sent[-1]] if sent else []}; "
    "it should get ['system', 'user']: the system message goes before the question")
# the question reaches the model unchanged
assert sent and sent[-1][-1] == {"role": "user", "content": "What is the capital of France?"} and len(sent[-1]) == 2, (
    "the last message sent should be the user's question, word for word")
# ask() does what the lesson's does with other questions and replies
assert (asked := compare(ask, reference("ask"), QUESTIONS, observe=asking)), asked
# Program A is a workflow: its code chose the steps
assert program_a_is == reference("program_a_is"), (
    f"program_a_is is {program_a_is!r}; who chose Program A's steps, the code or the model?")
# Program B is an agent: the model chose the steps
assert program_b_is == reference("program_b_is"), (
    f"program_b_is is {program_b_is!r}; who chose Program B's steps, the code or the model?")
# given: Program B's runs ended with a reason
assert run_march["stopped"] in ("final", "step_limit", "error") and run_hours["stopped"], (
    f"the runs stopped with {run_march['stopped']!r} and {run_hours['stopped']!r}")
# given: the model chose different tools for the two questions
expect(run_march["tool_calls"] == 4 and run_hours["tool_calls"] == 3,
       f"the March run used {run_march['tool_calls']} tools and the hours run {run_hours['tool_calls']}; "
       "expected 4 and 3: did a prepared reply change?",
       observed=f"the model ran {run_march['tool_calls']} tools for March and {run_hours['tool_calls']} for "
                f"the opening days, and answered {run_march['answer']!r}; the scripted model runs 4 and 3")
