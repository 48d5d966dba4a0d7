# ---
# jupyter:
#   looplab:
#     deepens: "08"
#     adds: the model forgets between calls, so a conversation's history is what makes a chat
# ---

# %% [markdown]
# # 6 · Conversation: the model remembers nothing
#
# A user asks the research helper *"Which branch had more visits in March?"* and gets
# *"Eastside."* Then they ask *"And for April?"*, and the helper replies *"Which branches do you
# mean?"* It forgot the first question. Why?
#
# Because a model call is **stateless**. Each request stands alone¹: the model knows exactly
# what that request carries, nothing more. A chat feels continuous only because the program
# sends the earlier messages again, every time. Think of a whiteboard wiped clean between
# meetings: if you want the important lines there next time, you copy them back before the
# meeting starts.
#
# ¹ *A footnote for the Responses API (lesson 14).* It can keep a conversation on the provider's
# side: send `previous_response_id` and the server puts the earlier turns back in for you, so
# your request carries only the new message. That is state kept by the **server**, not by the
# model: the model is still handed the whole conversation on every call, and still remembers
# nothing between them. (It also means the history lives somewhere you do not control.)

# %%
from looplab import Toolbox, Memory, run_agent
from looplab import expect
from looplab.models import pick_model, final
from looplab.models.rules import rule_model

NOTES_TEXT = ("Eastside branch: March visits 1240, April visits 1310. "
              "Westside branch: March visits 980, April visits 1105.")
SYSTEM = f"You are a research helper. Answer in one short sentence. The notes: {NOTES_TEXT}"

# %% [markdown]
# ## A fake brain
#
# For lessons about free-form chat, prepared replies are not enough: we want a model that
# reacts to whatever is typed. Loop Lab has a small **rule-based model**, `rule_model`, written
# in plain Python in `looplab/models/rules.py`. It has no neural network: it looks for a few
# patterns ("add 10 and 5", "remember my name is ...", "what is my name?") in the last user
# message and in what the conversation says. Like a real model it keeps **nothing** between
# calls: every reply is worked out again from the messages it is sent. That makes it the
# perfect subject for this lesson. In live mode your real model takes its place.
#
# First, two separate runs, each with a fresh memory.

# %% [markdown] tags=["predict"]
# The first run is told *"My name is Chris."*; the second, with a fresh memory, is asked *"What
# is my name?"*. What does the second run answer?
#
# - [ ] "Your name is Chris."
# - [x] that it does not know the name
# - [ ] it raises an error: the memory is empty
#
# The second run's model is sent one user message, the question, and nothing about Chris.

# %%
brain = pick_model(rule_model)
tools = Toolbox()  # no tools needed to chat

first = run_agent("My name is Chris.", brain, tools, Memory(SYSTEM))
second = run_agent("What is my name?", brain, tools, Memory(SYSTEM))
print("1:", first["answer"])
print("2:", second["answer"])

# %% [markdown]
# The second run started from an empty memory, so the model was sent just one user message.
# Now the same two turns with **one** memory carried across them:

# %%
memory = Memory(SYSTEM)
first = run_agent("My name is Chris.", brain, tools, memory)
second = run_agent("What is my name?", brain, tools, memory)
print("1:", first["answer"])
print("2:", second["answer"])
for message in memory.messages():
    print(f"   {message['role']:9} {message['content'][:70]}")

# %% [markdown]
# That list is the whole of what the model received on the second call: the system message,
# the first exchange, then the new question. This list *is* the conversation's memory.
#
# Memory of this kind, the program's own record of this conversation, is different from
# retrieval (RAG), which fetches passages from documents. Both end up as text in the context
# window, so both must fit: lesson 8 trims the record, lesson 9 adds facts that outlive it.
#
# ## "And for April?"
#
# The branch question, with a fake model that answers April only if it can see from the
# messages what was asked before:

# %%
def branch_brain(messages, tools):
    asked = [m["content"] for m in messages if m["role"] == "user"]
    question = asked[-1].lower()
    if "march" in question:
        return final("Eastside: 1240 visits in March against Westside's 980.")
    if "april" in question and any("visits" in q.lower() for q in asked[:-1]):
        return final("Eastside again: 1310 visits in April against 1105, a lead of 205.")
    return final("Which branches do you mean, and what would you like to know about April?")

# %% [markdown]
# ## Exercise: keep the conversation
#
# `chat(questions, model)` answers a list of questions in order and returns the answers. The
# starter makes a new `Memory` for every question, so each question arrives alone. Make all
# turns share one memory.

# %% tags=["exercise"]
def chat(questions, model):
    answers = []
    for question in questions:
        memory = Memory(SYSTEM)
        answers.append(run_agent(question, model, tools, memory)["answer"])
    return answers

# %% [markdown] tags=["hint"]
# Where is the `Memory` made? Each time through the loop the starter makes a new one, empty
# but for the system message.

# %% [markdown] tags=["hint"]
# Move `memory = Memory(SYSTEM)` above the `for` loop, so every question is added to the same
# memory and `run_agent` sends the earlier turns along.

# %% tags=["wrong"]
# wrong: sends the earlier questions glued into one task instead of keeping the turns
# expect: first question is missing
# replaces: chat
def chat(questions, model):
    answers, asked = [], []
    for question in questions:
        asked.append(question)
        answers.append(run_agent(" ".join(asked), model, tools, Memory(SYSTEM))["answer"])
    return answers

# %% tags=["wrong"]
# wrong: one memory, but returns the whole run results instead of the answers
# expect: one text answer per question
# replaces: chat
def chat(questions, model):
    memory = Memory(SYSTEM)
    return [run_agent(question, model, tools, memory) for question in questions]

# %% tags=["solution"]
def chat(questions, model):
    memory = Memory(SYSTEM)          # one memory for the whole conversation
    answers = []
    for question in questions:
        answers.append(run_agent(question, model, tools, memory)["answer"])
    return answers

# %%
sent = []  # what the model was sent on each call

def recording(model):
    def model_that_records(messages, tools):
        sent.append([m["content"] for m in messages])
        return model(messages, tools)
    return model_that_records

branches = chat(["Which branch had more visits in March?", "And for April?"],
                recording(pick_model(branch_brain)))
names = chat(["My name is Chris.", "What is my name?"], pick_model(rule_model))
print(branches)
print(names)

# %%
from looplab import chat_with
talk = Memory(SYSTEM)  # one memory for the whole chat: each message is sent with the ones before it
chat_with(lambda message: run_agent(message, brain, tools, talk), name="brain",
          suggestions=["My name is Chris.", "What is my name?"])

# %% tags=["check"]
from looplab import Case, compare, generate, reference


def chatting(chat_fn, questions):
    """What chat answers, and what the model was sent on each call."""
    seen = []

    def model(messages, tools):
        seen.append([(m["role"], m["content"]) for m in messages])
        return final(f"answer {len(seen)}")
    return {"the answers": chat_fn(questions, model), "what the model was sent": seen}


CONVERSATIONS = generate(lambda d: Case((d.some(lambda d: d.pick(["Hi.", "My name is Ada.", "And for April?",
                                                                  "What is my name?"]), 0, 4),)), count=40,
                         edges=[Case(([],), "no questions"), Case((["Hi.", "And for April?"],), "two questions")])
# the second question was sent together with the first
assert len(sent) >= 2 and "Which branch had more visits in March?" in sent[-1], (
    f"on the 'And for April?' call the model was sent {sent[-1] if sent else []}; the first "
    "question is missing: look at where chat() makes its Memory")
# the April answer follows from the March question
expect("1310" in (branches[-1] or ""),
       f"the helper answered {branches[-1]!r}; it could not see which branches the user meant",
       observed=f"asked 'And for April?' the model answered {branches[-1]!r}; the scripted model answers "
                "with Eastside's 1310 when it can see the March question")
# the helper remembers the user's name within the conversation
expect("Chris" in (names[-1] or ""),
       f"asked 'What is my name?' the helper said {names[-1]!r}; was 'My name is Chris.' sent again?",
       observed=f"asked 'What is my name?' the model answered {names[-1]!r}; the scripted model answers "
                "'Chris' when the earlier turn is sent again")
# given: every question got an answer
assert len(branches) == 2 and len(names) == 2 and all(isinstance(a, str) for a in branches + names), (
    f"chat() returned {branches} and {names}; expected one text answer per question")
# chat sends what the lesson's sends, for conversations of none to four questions
assert (chat_found := compare(chat, reference("chat"), CONVERSATIONS, observe=chatting)), chat_found
