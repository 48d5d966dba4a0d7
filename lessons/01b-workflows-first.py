# ---
# jupyter:
#   looplab:
#     deepens: "01"
#     adds: the five workflow shapes, and when a workflow beats an agent
# ---

# %% [markdown]
# # 1b · Workflows first
#
# Lesson 1 ended on a rule: **if you can write the steps down, write a workflow.** A workflow
# still uses a model, often several times, but *your code* fixes where each call sits and what
# happens with its reply. Five shapes cover most of them. Each is a few lines of plain Python
# around `model(messages, tools)`; you will build two of them yourself.
#
# All five use one small helper: send a system message and a user message, get back the text.

# %%
import json
from collections import Counter

from looplab import expect
from looplab.models import final, pick_model, scripted


def text(model, system, user):
    """One model call: a system message, a user message, the reply's text ('' when it has none)."""
    reply = model([{"role": "system", "content": system}, {"role": "user", "content": user}], [])
    return reply.get("content") or ""


def recording(model, sent):
    """The same model, keeping every message list it is sent in `sent` (so checks can look)."""
    def model_that_records(messages, tools):
        sent.append(messages)
        return model(messages, tools)
    return model_that_records

# %% [markdown]
# ## 1. Prompt chaining: one step's output is the next step's input
#
# Break a task into fixed steps, each one model call, and put a **gate** in code between them: a
# plain check that stops the chain when a step went wrong, before a later step builds on it.

# %%
def outline_then_write(model, topic):
    outline = text(model, "List two or three section headings, one a line.", topic)
    headings = [line.strip("-* ").strip() for line in outline.splitlines() if line.strip()]
    if len(headings) < 2:  # the gate: checked by code, not by another model call
        return {"ok": False, "why": f"the outline had {len(headings)} heading(s)", "text": outline}
    draft = text(model, "Write one sentence under each heading.", "\n".join(headings))
    return {"ok": True, "headings": headings, "text": draft}


chained = outline_then_write(pick_model([
    final("Visits\nOpening days"),
    final("Visits: Eastside had 1240 in March. Opening days: Eastside opens six days a week."),
]), "A short report on the Eastside branch")
print(chained)

# %% [markdown] tags=["predict"]
# Now the outline step answers with a single line, `Visits`. What does `outline_then_write` do?
#
# - [ ] it writes one sentence under the one heading
# - [x] it stops at the gate: the model is called once, and no draft is written
# - [ ] it raises an error
#
# The gate wants two headings or more. With one, the function returns before the second call.

# %%
gate_sent = []
gated = outline_then_write(recording(scripted([final("Visits"), final("never sent")]), gate_sent), "A report")
print(gated, "· model calls:", len(gate_sent))

# %% [markdown]
# ## 2. Routing: one call sorts the input, code sends it on
#
# A first call puts the input in one of a few classes; each class has its own handling (its own
# prompt, a cheaper model, or no model at all). The classes are chosen in advance, so a reply that
# names none of them must still land somewhere safe. That is your first exercise, below.
#
# ## 3. Parallelization: sections and voting
#
# **Sections**: independent parts of a task, each its own call, combined by code. **Voting**:
# the same question asked several times, the majority wins: more calls for more confidence.
# Here the calls run one after another; lesson 21 runs independent calls side by side.

# %%
NOTE = "Eastside: 1240 visits in March, 1310 in April; open Monday to Saturday; 14 staff."

sections_model = pick_model([final("Visits rose from 1240 to 1310."), final("Open six days, 14 staff.")])
sections = {part: text(sections_model, f"Summarise only the {part} in one sentence.", NOTE)
            for part in ("visits", "opening days and staff")}
print(sections)


def vote(model, question, n=3):
    answers = [text(model, "Answer yes or no.", question).strip().lower().rstrip(".") for _ in range(n)]
    return Counter(answers).most_common(1)[0][0], answers


voted = vote(pick_model([final("yes"), final("No."), final("yes")]), "Did Eastside have more visits in April?")
print(voted)

# %% [markdown]
# ## 4. Orchestrator and workers: the model splits the task
#
# Like sections, except that the parts are not known in advance: an **orchestrator** call
# decides them for this input, a **worker** call handles each, and a last call (or code) puts
# the results together. The program still fixes the shape: plan, work, combine, done.

# %%
def orchestrate(model, question):
    plan = text(model, "Reply with only a JSON list of short sub-questions.", question)
    try:
        parts = [p for p in json.loads(plan) if isinstance(p, str)] or [question]
    except (ValueError, TypeError):
        parts = [question]  # not a JSON list: the question itself is the one part
    results = [text(model, "Answer from the notes, in one sentence.", part) for part in parts]
    return text(model, "Combine these answers into one.", "\n".join(results)), parts


combined, parts = orchestrate(pick_model([
    final('["Eastside visits in March?", "Westside visits in March?"]'),
    final("Eastside had 1240."), final("Westside had 980."),
    final("Eastside had 1240 visits in March, Westside 980."),
]), "Compare the two branches' March visits.")
print(parts, "->", combined)

# %% [markdown]
# ## 5. Evaluator and optimizer: write, grade, write again
#
# One call writes, another grades against clear criteria and says what to fix, and the writer
# tries again with that feedback, for a fixed number of rounds at most. That is your second
# exercise.
#
# ## Which one, and when an agent
#
# | shape | choose it when | the cost |
# | --- | --- | --- |
# | prompt chaining | the task splits into the same steps every time | one call a step; a gate per step |
# | routing | inputs fall into a few kinds that need different handling | one extra call, a fallback for the rest |
# | sections / voting | parts are independent, or one answer is not trusted enough | n calls, run side by side |
# | orchestrator–workers | the parts depend on the input and cannot be listed in advance | a planning call, then one per part |
# | evaluator–optimizer | there are clear criteria and feedback makes drafts better | up to two calls a round |
#
# An **agent** (lesson 4 on) is the step after these: the model chooses every step, how many
# there are and which tool each uses. It is worth its cost (more calls, more tokens, mistakes that
# compound, a run you cannot predict) only when the steps cannot be written down in advance and
# the task is worth it: an open question over many notes, a bug in unknown code. If one of the
# five shapes does the job, it is cheaper, faster and easier to test.
#
# ## Exercise 1: routing
#
# Write `route(model, question)`. Ask the model, with a **system** message that names every label
# in `ROUTES`, to reply with one label; the question is the user message. Read the reply as a
# label: spaces, capitals and a full stop around it do not matter (`" Numbers.\n"` is
# `"numbers"`). A reply that is not one of the labels goes to `"other"`. Return
# `(label, ROUTES[label](question))`.

# %%
ROUTES = {
    "numbers": lambda q: "numbers desk: read the visit notes n1 and n2",
    "hours": lambda q: "hours desk: read the opening-day notes n3 and n4",
    "other": lambda q: "sorry, I can only answer about visits and opening days",
}

# %% tags=["exercise"]
def route(model, question):
    ...  # ask for a label, read it, fall back to "other", hand the question to its route

# %% [markdown] tags=["hint"]
# Three parts: one call with `text(...)`, a few string methods on the reply, and one `if` for a
# reply that is not a key of `ROUTES`.

# %% [markdown] tags=["hint"]
# Build the system message from `", ".join(ROUTES)`. `.strip().strip(".").lower()` reads
# `" Numbers.\n"` as `"numbers"`; `label not in ROUTES` catches the rest.

# %% [markdown] tags=["hint"]
# ```python
# def route(model, question):
#     system = "Reply with one word, one of: " + ", ".join(ROUTES) + "."
#     label = text(model, system, question).strip().strip(".").lower()
#     if label not in ROUTES:
#         label = "other"
#     return label, ROUTES[label](question)
# ```

# %% tags=["wrong"]
# wrong: uses the reply as it comes, so " Numbers.\n" is not read as numbers
# expect: spaces capitals full stop
# patch:
# -    label = text(model, system, question).strip().strip(".").lower()
# +    label = text(model, system, question)

# %% tags=["wrong"]
# wrong: no fallback, so a label outside ROUTES raises KeyError
# expect: not one of the labels other
# patch:
# -    if label not in ROUTES:
# -        label = "other"

# %% tags=["wrong"]
# wrong: never tells the model which labels there are
# expect: system message name every label
# patch:
# -    system = "Reply with one word, one of: " + ", ".join(ROUTES) + "."
# -    label = text(model, system, question).strip().strip(".").lower()
# +    label = text(model, "Classify the question.", question).strip().strip(".").lower()

# %% tags=["solution"]
def route(model, question):
    system = "Reply with one word, one of: " + ", ".join(ROUTES) + "."
    label = text(model, system, question).strip().strip(".").lower()
    if label not in ROUTES:
        label = "other"
    return label, ROUTES[label](question)

# %%
routed = route(pick_model([final("hours")]), "Which branch is open longer?")
print(routed)

# %% [markdown]
# ## Exercise 2: evaluator and optimizer
#
# Write `improve(writer, grader, task, rounds=3)`:
#
# 1. the writer gets the task (`text(writer, "Write a one-sentence answer.", task)`);
# 2. the grader gets the draft as its user message and replies `PASS` or what to fix;
# 3. on `PASS` (spaces and capitals do not matter) return
#    `{"text": draft, "passed": True, "rounds": n}`, `n` the number of drafts written;
# 4. otherwise the writer writes again, its user message the task **and the grader's
#    feedback**; after `rounds` drafts without a pass, return the last draft with
#    `"passed": False` and `"rounds": rounds`. Never more than `rounds` drafts.

# %% tags=["exercise"]
def improve(writer, grader, task, rounds=3):
    draft = text(writer, "Write a one-sentence answer.", task)
    return {"text": draft, "passed": True, "rounds": 1}

# %% [markdown] tags=["hint"]
# A `for` loop over the rounds holds both calls. What must the writer see the second time that it
# did not see the first?

# %% [markdown] tags=["hint"]
# Keep the writer's user message in a variable: the task at first, then the task plus
# `"\nFeedback: " + verdict`. Return inside the loop on a pass; after the loop, the last draft
# with `"passed": False`.

# %% [markdown] tags=["hint"]
# ```python
# def improve(writer, grader, task, rounds=3):
#     ask = task
#     for n in range(1, rounds + 1):
#         draft = text(writer, "Write a one-sentence answer.", ask)
#         verdict = text(grader, "Reply PASS, or say what to fix.", draft)
#         if verdict.strip().upper() == "PASS":
#             return {"text": draft, "passed": True, "rounds": n}
#         ask = task + "\nFeedback: " + verdict
#     return {"text": draft, "passed": False, "rounds": rounds}
# ```

# %% tags=["wrong"]
# wrong: writes again without the grader's feedback, so the next draft cannot improve
# expect: feedback second draft
# replaces: improve
def improve(writer, grader, task, rounds=3):
    for n in range(1, rounds + 1):
        draft = text(writer, "Write a one-sentence answer.", task)
        verdict = text(grader, "Reply PASS, or say what to fix.", draft)
        if verdict.strip().upper() == "PASS":
            return {"text": draft, "passed": True, "rounds": n}
    return {"text": draft, "passed": False, "rounds": rounds}

# %% tags=["wrong"]
# wrong: loops until the grader passes, with no cap on the rounds
# expect: more than rounds drafts
# patch:
# -    ask = task
# -    for n in range(1, rounds + 1):
# +    ask, n = task, 0
# +    while True:
# +        n += 1
# @@
# -    return {"text": draft, "passed": False, "rounds": rounds}

# %% tags=["wrong"]
# wrong: reports a pass after the last round even though the grader never said PASS
# expect: never passed
# patch:
# -            return {"text": draft, "passed": True, "rounds": n}
# -        ask = task + "\nFeedback: " + verdict
# -    return {"text": draft, "passed": False, "rounds": rounds}
# +            break
# +        ask = task + "\nFeedback: " + verdict
# +    return {"text": draft, "passed": True, "rounds": n}

# %% tags=["solution"]
def improve(writer, grader, task, rounds=3):
    ask = task
    for n in range(1, rounds + 1):
        draft = text(writer, "Write a one-sentence answer.", ask)
        verdict = text(grader, "Reply PASS, or say what to fix.", draft)
        if verdict.strip().upper() == "PASS":
            return {"text": draft, "passed": True, "rounds": n}
        ask = task + "\nFeedback: " + verdict
    return {"text": draft, "passed": False, "rounds": rounds}

# %%
improved = improve(pick_model([final("Eastside won."), final("Eastside had 260 more visits in March.")]),
                   pick_model([final("Say by how many."), final("PASS")]),
                   "Which branch had more visits in March?")
print(improved)

# %% [markdown]
# The checks below call your two functions with prepared replies of their own, in every mode: a
# check about your code should not depend on what a live model happens to say.

# %%
def attempt(function, *args, **kwargs):
    """Call `function`; its result, or the exception it raised (so a check can say what happened)."""
    try:
        return function(*args, **kwargs)
    except Exception as exc:
        return exc


route_sent = []
hours_route = attempt(route, recording(scripted([final("hours")]), route_sent), "Which branch is open longer?")
messy_route = attempt(route, scripted([final(" Numbers.\n")]), "How many visits in March?")
odd_route = attempt(route, scripted([final("weather")]), "Will it rain?")

writer_sent, grader_sent = [], []
two_rounds = attempt(improve, recording(scripted([final("Eastside won."), final("Eastside, by 260.")]), writer_sent),
                     recording(scripted([final("Say by how many."), final(" pass ")]), grader_sent),
                     "Which branch had more visits in March?")
capped_writer = []
never = attempt(improve, recording(scripted([final(f"draft {i}") for i in range(1, 5)]), capped_writer),
                scripted([final("Too vague.")] * 4), "Which branch?", rounds=3)

# %% tags=["check"]
from looplab import Case, compare, generate, reference


def replying(replies, sent):
    """A model that gives these texts in turn and keeps what each call was sent."""
    def model(messages, tools):
        if len(sent) >= 40:  # a loop with no cap must end here, not run forever
            raise RuntimeError("the model was asked 40 times: the loop has no cap")
        sent.append([dict(m) for m in messages])
        return {"role": "assistant", "content": replies[min(len(sent), len(replies)) - 1]}
    return model


def routing(route_fn, reply, question):
    sent = []
    label, answer = route_fn(replying([reply], sent), question)
    system = " ".join(m["content"] for m in sent[0] if m["role"] == "system") if sent else ""
    return {"the label": label, "the route's answer": answer, "model calls": len(sent),
            "labels named in the system message": [name for name in ROUTES if name in system],
            "the user message": [m for m in sent[0] if m["role"] == "user"] if sent else None}


ROUTE_CASES = [Case((reply, "How many visits?"), f"the reply {reply!r}") for reply in (
    "hours", "numbers", "other", " Numbers.\n", "HOURS.", "weather", "", None, "hours desk", "The label is hours.",
    "numbers, hours", ".hours.")]


def improving(improve_fn, verdicts, rounds):
    drafts, graded = [], []
    writer = replying([f"draft {n}" for n in range(1, 8)], drafts)
    grader = replying(verdicts, graded)
    out = improve_fn(writer, grader, "Which branch won?", *([] if rounds is None else [rounds]))
    return {"what it returned": out, "drafts written": len(drafts), "grades asked": len(graded),
            "what the grader was sent": [m[-1]["content"] for m in graded],
            "the writer had the task": ["Which branch won?" in m[-1]["content"] for m in drafts],
            "the writer had the last feedback": [n == 0 or verdicts[min(n, len(verdicts)) - 1] in m[-1]["content"]
                                                 for n, m in enumerate(drafts)]}


IMPROVE_CASES = generate(
    lambda d: Case((d.some(lambda d: d.pick(["Say by how many.", "PASS", " pass ", "Pass", "Too vague.",
                                             "Not a pass yet: add the numbers."]), 1, 5), d.pick([None, 1, 2, 3, 4]))),
    count=80, edges=[Case((["Too vague."], 1), "a grader that never passes and rounds=1"),
                     Case((["Too vague.", "PASS"], 2), "a pass on exactly the last round"),
                     Case((["Not a pass yet: add the numbers.", "PASS"], 3), "feedback with the word pass in it"),
                     Case((["Too vague."], None), "a grader that never passes and rounds left at its default")])

# given: the chain wrote a draft from a two-heading outline
expect(chained["ok"] and chained["headings"] == ["Visits", "Opening days"],
       f"the chain returned {chained}", observed=f"the chain returned {chained}")
# given: the gate stopped the chain after one call when the outline had one heading
assert gated["ok"] is False and len(gate_sent) == 1, f"{gated}, {len(gate_sent)} calls"
# given: voting asked three times and took the majority
expect(voted[0] == "yes" and len(voted[1]) == 3, f"vote returned {voted}", observed=f"the votes were {voted[1]}")
# given: the orchestrator split the question in two and combined the answers
expect(len(parts) == 2 and "980" in combined, f"{parts} -> {combined}", observed=f"{parts} -> {combined!r}")
# route returns the label and its route's answer
assert isinstance(hours_route, tuple) and hours_route == ("hours", ROUTES["hours"]("")), (
    f"route(model replying 'hours', ...) returned {hours_route!r}; it should return "
    "('hours', ROUTES['hours'](question))")
# route's system message names every label, and the question is the user message
assert route_sent and route_sent[0][0]["role"] == "system" and all(
    label in route_sent[0][0]["content"] for label in ROUTES) and route_sent[0][-1] == {
    "role": "user", "content": "Which branch is open longer?"}, (
    f"route sent {route_sent[0] if route_sent else 'nothing'}; the system message must name every label in "
    "ROUTES (numbers, hours, other), or the model can only guess them")
# a reply with spaces, capitals or a full stop is still read as its label
assert isinstance(messy_route, tuple) and messy_route[0] == "numbers", (
    f"with the reply ' Numbers.\\n' route returned {messy_route!r}; spaces, capitals and a full stop around "
    "the label should not matter: strip them and lowercase")
# a reply that is not one of the labels goes to "other"
assert isinstance(odd_route, tuple) and odd_route == ("other", ROUTES["other"]("")), (
    f"with the reply 'weather' route returned {odd_route!r}; a reply that is not one of the labels goes "
    "to 'other', so every input lands somewhere")
# route does what the lesson's does with every kind of reply (spaces, capitals, other words, no text)
assert (routed_found := compare(route, reference("route"), ROUTE_CASES, observe=routing)), routed_found
# improve stops at the grader's pass and returns that draft
assert isinstance(two_rounds, dict) and two_rounds == {"text": "Eastside, by 260.", "passed": True, "rounds": 2}, (
    f"with the grader replying 'Say by how many.' then ' pass ', improve returned {two_rounds!r}; "
    "expected the second draft, passed, after 2 rounds")
# the second draft was asked for with the grader's feedback
assert len(writer_sent) == 2 and "Say by how many." in writer_sent[1][-1]["content"] and len(grader_sent) == 2, (
    f"the writer was called {len(writer_sent)} times; for the second draft its user message should hold the "
    "grader's feedback 'Say by how many.', else the writer cannot know what to fix")
# after `rounds` drafts without a pass, improve stops and says so
assert len(capped_writer) == 3 and isinstance(never, dict) and never == {
    "text": "draft 3", "passed": False, "rounds": 3}, (
    f"with a grader that never passes and rounds=3, the writer wrote {len(capped_writer)} drafts and improve "
    f"returned {never!r}; expected 3 drafts, never more than rounds drafts, and "
    "{'text': 'draft 3', 'passed': False, 'rounds': 3}: a draft that never passed is not a pass")
# improve does what the lesson's does for many graders and round limits
assert (improved_found := compare(improve, reference("improve"), IMPROVE_CASES, observe=improving)), improved_found
