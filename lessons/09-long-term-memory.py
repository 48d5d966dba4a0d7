# ---
# jupyter:
#   looplab:
#     deepens: "08"
#     adds: facts kept across conversations and found again by meaning
# ---

# %% [markdown]
# # 9 · Long-term memory: facts that outlive the conversation
#
# Short-term memory (lessons 6 and 8) is the record of *this* conversation: it ends with the
# session, or when trimming drops it. **Long-term memory** keeps what is worth keeping across
# conversations, outside the context window: in a database, a vector store, a file.
#
# Why not simply store every message forever? Because most of a chat is not worth it:
#
# - **transient** things: "I'm running late today", this morning's weather;
# - **noise**: greetings, small talk, typos, false starts;
# - **repetition**: the same fact said five ways;
# - **outdated** details, which may contradict newer ones.
#
# Storing all of it buries the useful items and wastes the prompt. So long-term memory
# **selects and condenses**: after a conversation, extract the few durable facts (a name, a
# preference, a decision, an ongoing project), store those, and before answering a new
# question, **retrieve** only the handful that matter.

# %%
from looplab import Toolbox, Memory, run_agent, FactStore, HashEmbedder, extract_facts, recall_query
from looplab.recall import cosine, parse_facts
from looplab.models import pick_model, final
from looplab.models.rules import rule_model
from looplab import expect


# %% [markdown]
# ## Step 1: extract facts, with the model
#
# A model is good at reading a conversation and writing down what should be kept. We send it
# the conversation plus an instruction: keep stable facts, preferences, decisions and ongoing
# projects; leave out temporary details and guesses; answer only with `{"facts": [...]}`.

# %%
conversation = [
    {"role": "user", "content": "I am building a reinforcement learning notebook."},
    {"role": "assistant", "content": "We can organise it around the agent-environment loop."},
]
extractor = pick_model([final('{"facts": ["The user is building a reinforcement learning notebook.", '
                              '"The notebook will be organised around the agent-environment loop."]}')])
facts = extract_facts(extractor, conversation)
for fact in facts:
    print("-", fact)

# %% [markdown]
# This step trusts the model to do a good job. It also trusts it to answer in the requested
# shape, which models do not always do. `parse_facts` reads the answer defensively (a code fence
# around the JSON, a sentence before it, a bare list) and anything it cannot read gives no
# facts rather than an error:

# %%
print(parse_facts('Sure! ```json\n{"facts": ["The user prefers Python."]}\n```'))
print(parse_facts('["The user lives in Singapore."]'))
print(parse_facts("I could not find any facts."))

# %% [markdown]
# ## Step 2: embed, so facts can be found by similarity
#
# Long-term memory grows large, and only a small part of it is relevant to any question. To find
# that part, each fact is turned into a vector, an **embedding**, and a question is embedded
# the same way; the facts whose vectors point in the most similar direction (highest **cosine
# similarity**) are the candidates. Other ways to search memory: keywords (exact names and ids),
# structured lookup (facts filed under fields such as "preferences"), or a hybrid of these,
# filtered by recency or importance.
#
# A real embedding model (a sentence-transformer, or an `/embeddings` endpoint) places texts
# with similar *meaning* close together. Loop Lab's `HashEmbedder` is a stand-in that runs
# anywhere without numpy: it hashes the words, word pairs and three-letter pieces of a text.
# It finds shared words and word pieces, not meaning, and that difference will show.

# %%
embed = HashEmbedder()
a, b, c = embed.embed(["The user's name is Chris.", "What is my name?", "Buy some shares."])
print("name fact vs name question:", round(cosine(a, b), 3))
print("name fact vs shares:       ", round(cosine(a, c), 3))

# %% [markdown]
# ## Step 3: store and retrieve the top k
#
# Here are eleven facts a helper has collected about one user over many conversations (one of
# them with the typos it was stored with: memory keeps what it was given).

# %%
FACTS = [
    "The user's name is Christian, but he prefers to be called just Chris.",
    "The user works as a lecturer at a large university.",
    "The user is learning how to build AI agents from scratch in Python.",
    "The user lives in Singapore and works in the Asia/Singapore time zone.",
    "The user always wants temperatures in Celsius and distances in kilometers.",
    "The user prefers flights with at most one layover and an aisle seat.",
    "The user wants all code examples written in Python 3.12 with type hints.",
    "The user has recently created a brokerage account for buying stocks.",
    "The user of travels acorss South-East Asia but also to Europe.",
    "The user is currently working on creating Jupyter notebooks about AI agents.",
    "The fiscal year of the university the user works starts on April 1.",
]
store = FactStore()          # in live mode you could pass embedder=looplab.models.live.live_embedder()
store.add(FACTS)

# %% [markdown] tags=["predict"]
# None of the eleven facts is about Paris. Asked for the top `k=3` facts for "What is the
# temperature in Paris right now?", how many does the store return?
#
# - [ ] none: no fact is relevant
# - [ ] one: the closest, the temperature preference
# - [x] three, whatever their scores
#
# A top-k search always returns k results; it ranks, it does not judge. Whether the best of them
# is good enough is for you to decide from the scores.

# %%
for question in ("What is my name?", "What is the temperature in Paris right now?",
                 "Is it currently warmer in Singapore than in Jakarta?"):
    print(question)
    for fact, score in store.search(question, k=3):
        print(f"   {score:.3f}  {fact}")

# %% [markdown]
# The store always returns k facts, even when none is really relevant; the scores tell you how
# close they are. The quality of retrieval decides how useful memory is: **if the right fact is
# not found, the agent behaves as if it had never learned it.**
#
# The store can be saved and loaded, so it survives the session (in the browser, files live in
# a temporary folder; a real app would use a database):

# %%
store.save("/tmp/looplab-facts.json")
print(len(FactStore.load("/tmp/looplab-facts.json")), "facts loaded back")

# %% [markdown]
# ## Exercise 1: answer with memory
#
# Write `answer_with_memory(question, store, k=3)`: retrieve the top `k` facts for the
# question, put them into the **system message** under a heading such as "Relevant long-term
# memories:", and run the agent. The fake brain reads facts from its system message, as a real
# model would.

# %% tags=["exercise"]
def answer_with_memory(question, store, k=3):
    """Run the agent on the question with the top k facts from the store in its system message."""
    system = "You are a helpful assistant. Use the conversation and relevant memories below."
    return run_agent(question, pick_model(rule_model), Toolbox(), Memory(system))

# %% [markdown] tags=["hint"]
# Two steps before the run: ask the store for the facts that match the question (as many as
# `k` says), then add them to the text of `system`.

# %% [markdown] tags=["hint"]
# One fact a line reads well: `"\n".join(f"- {fact}" for fact, score in found)`, after a line
# such as "Relevant long-term memories:".

# %% [markdown] tags=["hint"]
# ```python
# def answer_with_memory(question, store, k=3):
#     found = [fact for fact, score in store.search(question, k=k)]
#     system = ("You are a helpful assistant. Use the conversation and relevant memories below.\n"
#               "Relevant long-term memories:\n" + "\n".join(f"- {fact}" for fact in found))
#     return run_agent(question, pick_model(rule_model), Toolbox(), Memory(system))
# ```

# %% tags=["wrong"]
# wrong: searches the store but never writes what it found into the system message
# expect: facts the store found must be written into the system message
# patch:
# -    system = ("You are a helpful assistant. Use the conversation and relevant memories below.\n"
# -              "Relevant long-term memories:\n" + "\n".join(f"- {fact}" for fact in found))
# +    system = "You are a helpful assistant. Use the conversation and relevant memories below."

# %% tags=["wrong"]
# wrong: puts the facts in front of the question, in the user message
# expect: written into the system message
# replaces: answer_with_memory
def answer_with_memory(question, store, k=3):
    found = [fact for fact, score in store.search(question, k=k)]
    system = "You are a helpful assistant. Use the conversation and relevant memories below."
    task = "Relevant long-term memories:\n" + "\n".join(f"- {fact}" for fact in found) + "\n" + question
    return run_agent(task, pick_model(rule_model), Toolbox(), Memory(system))

# %% tags=["wrong"]
# wrong: asks the store for its default number of facts, not k
# expect: store.search(question, k=k)
# patch:
# -    found = [fact for fact, score in store.search(question, k=k)]
# +    found = [fact for fact, score in store.search(question)]

# %% tags=["solution"]
def answer_with_memory(question, store, k=3):
    """Run the agent on the question with the top k facts from the store in its system message."""
    found = [fact for fact, score in store.search(question, k=k)]
    system = ("You are a helpful assistant. Use the conversation and relevant memories below.\n"
              "Relevant long-term memories:\n" + "\n".join(f"- {fact}" for fact in found))
    return run_agent(question, pick_model(rule_model), Toolbox(), Memory(system))

# %%
class ListStore:
    """A stand-in store that hands out its facts in order and notes what it was asked."""
    def __init__(self, facts):
        self.facts, self.asked = facts, []
    def search(self, question, k=3):
        self.asked.append((question, k))
        return [(fact, 1.0) for fact in self.facts[:k]]

def attempt(fn, *args, **kwargs):
    try:
        return fn(*args, **kwargs)
    except Exception as exc:
        return {"answer": f"raised {type(exc).__name__}: {exc}", "stopped": "raised"}

from looplab import trace

systems_sent = []  # the system message of every model call, whatever the model

def keep_system(event):
    if event["type"] == "model_call" and event.get("context"):
        systems_sent.append(str(event["context"][0].get("content")))

stop_keeping = trace.listen(keep_system)
named = attempt(answer_with_memory, "What is my name?", store)
dana_store = ListStore(["The user's name is Dana.", "The user likes tea."])
systems_sent.clear()
dana = attempt(answer_with_memory, "What is my name?", dana_store, k=2)
dana_systems = list(systems_sent)
nameless = attempt(answer_with_memory, "What is my name?", ListStore(["The user likes tea."]), k=1)
stop_keeping()
print(named["answer"], "|", dana["answer"], "|", nameless["answer"])
print("the stand-in store was asked:", dana_store.asked)

# %% [markdown]
# ## Step 4: build the query from recent messages
#
# A follow-up often means nothing on its own. The helper asks "How many would you like, and at
# what price?" and the user answers **"200."** Search for "200." and you get noise. Join the
# last few messages and the new one into the query, and the subject comes back.
#
# (With a real embedding model this works even when the words differ: "Microsoft shares" would
# find "a brokerage account for buying stocks". Our hashing embedder needs shared words, so
# here the user said "stocks".)
#
# ## Exercise 2: a query with context
#
# Write `make_query(recent, user_message, k=3)`: the text of the last `k` messages in
# `recent`, then the new message, joined by spaces. (`looplab.recall_query` does the same; write
# your own.)

# %%
recent = [
    {"role": "user", "content": "Please buy some stocks for me."},
    {"role": "assistant", "content": "How many would you like, and at what price?"},
]

# %% tags=["exercise"]
def make_query(recent, user_message, k=3):
    """The text of the last k messages with text, then the new message, joined by spaces."""
    return user_message

# %% [markdown] tags=["hint"]
# Which end of `recent` holds the latest messages, and which slice takes the last few (all of
# them when there are fewer)? Some messages carry no text at all (an assistant message that only
# calls a tool): leave those out.

# %% [markdown] tags=["hint"]
# Collect `m["content"]` for those that have one, add `user_message` at the end, and
# `" ".join(...)` the list.

# %% [markdown] tags=["hint"]
# ```python
# def make_query(recent, user_message, k=3):
#     texts = [m["content"] for m in recent[-k:] if m.get("content")]
#     return " ".join(texts + [user_message])
# ```

# %% tags=["wrong"]
# wrong: keeps messages with no text, so join meets None
# expect: content is None
# replaces: make_query
def make_query(recent, user_message, k=3):
    return " ".join([m["content"] for m in recent[-k:]] + [user_message])

# %% tags=["wrong"]
# wrong: takes the first k messages, not the last k
# expect: take recent[-k:]
# patch:
# -    texts = [m["content"] for m in recent[-k:] if m.get("content")]
# +    texts = [m["content"] for m in recent[:k] if m.get("content")]

# %% tags=["wrong"]
# wrong: puts the new message first
# expect: join the recent messages' text and the new message
# patch:
# -    return " ".join(texts + [user_message])
# +    return " ".join([user_message] + texts)

# %% tags=["solution"]
def make_query(recent, user_message, k=3):
    """The text of the last k messages with text, then the new message, joined by spaces."""
    texts = [m["content"] for m in recent[-k:] if m.get("content")]
    return " ".join(texts + [user_message])

# %%
alone = store.search("200.", k=1)[0][0]
query = make_query(recent, "200.")
with_context = store.search(query, k=1)[0][0]
print("query:", query)
print("'200.' alone finds:  ", alone)
print("with the context:    ", with_context)
longer = recent + [{"role": "assistant", "content": None, "tool_calls": []},
                   {"role": "user", "content": "Microsoft, please."}]
QUERIES = {
    "k=1": attempt(make_query, recent, "200.", k=1),
    "no history": attempt(make_query, [], "200."),
    "k bigger than the history": attempt(make_query, recent, "200.", k=10),
    "a message with no text": attempt(make_query, longer, "200.", k=2),
}
for label, made in QUERIES.items():
    print(f"{label:26} -> {made!r}")

# %%
from looplab import chat_with
chat_with(lambda question: answer_with_memory(question, store), name="answer_with_memory",
          suggestions=["What is my name?"])

# %% tags=["check"]
from looplab import Case, compare, generate, reference


def answering(answer_fn, question, facts, k):
    """What the store was asked, which of its facts the model's system message held, how the run ended."""
    fact_store, seen = ListStore(facts), []

    def keep(event):
        if event["type"] == "model_call" and event.get("context"):
            seen.append([fact in str(event["context"][0].get("content")) for fact in facts])
    stop = trace.listen(keep)
    try:
        result = answer_fn(question, fact_store) if k == "left out" else answer_fn(question, fact_store, k=k)
    finally:
        stop()
    return {"what the store was asked": fact_store.asked, "the store's facts in each system message": seen,
            "how the run ended": (result["stopped"], result["answer"])}


FACT_SETS = [["The user's name is Dana.", "The user likes tea.", "The user lives in Lima.", "The user has a cat."],
             ["The user likes tea."], []]
ANSWERS = [Case((q, facts, k), f"the question {q!r}, {len(facts)} facts in the store and k " + (
    "left out" if k == "left out" else f"= {k}"))
           for q in ("What is my name?", "add 2 and 3") for facts in FACT_SETS for k in ("left out", 1, 2, 3, 4)]


def query_case(d):
    recent = d.some(lambda d: d.pick([{"role": "user", "content": d.pick(["Buy stocks.", "Hi."])},
                                      {"role": "assistant", "content": d.pick(["How many?", ""])},
                                      {"role": "assistant", "content": None, "tool_calls": []},
                                      {"role": "tool", "tool_call_id": "c1", "content": "done"}]), 0, 6)
    k = d.pick(["left out", 1, 2, 3, 4, 10])
    return Case((recent, d.pick(["200.", "Yes."]), k), f"{len(recent)} recent messages and k={k}")


def querying(make_fn, recent, message, k):
    return {"the query": make_fn(recent, message) if k == "left out" else make_fn(recent, message, k=k)}


MADE_QUERIES = generate(query_case, count=80, edges=[Case(([], "200.", 3), "no recent messages")])
# given: the extracted facts are a list of sentences
assert isinstance(facts, list) and all(isinstance(f, str) for f in facts), f"extract_facts gave {facts!r}"
# given: the eleven facts are in the store
assert len(store) == 11, f"the store holds {len(store)} facts"
# given: the name fact is the best match for "What is my name?"
assert store.search("What is my name?", k=1)[0][0].startswith("The user's name"), "retrieval lost the name fact"
# the store is asked for the question's top k facts
assert dana_store.asked == [("What is my name?", 2)], (
    f"answer_with_memory asked the store {dana_store.asked}; call store.search(question, k=k) once")
# the facts the store found are in the system message the model was sent
assert dana_systems and all("The user's name is Dana." in text and "The user likes tea." in text
                            for text in dana_systems), (
    f"with a store returning Dana's two facts, the model was sent the system message(s) {dana_systems}; the "
    "facts the store found must be written into the system message, where the model reads standing context")
# answer_with_memory asks and sends what the lesson's does, for other stores, questions and k
assert (memory_found := compare(answer_with_memory, reference("answer_with_memory"), ANSWERS, observe=answering)), \
    memory_found
# the retrieved facts reached the model, and it answered with the name
expect("Chris" in (named["answer"] or ""),
       f"the helper said {named['answer']!r}; put the retrieved facts into the system message",
       observed=f"the model answered {named['answer']!r}; the fake brain reads 'Chris' from the system message")
# another store, another name: the answer comes from the facts found, not from the lesson
expect("Dana" in (dana["answer"] or "") and "Dana" not in (nameless["answer"] or ""),
       f"with a store naming Dana the helper said {dana['answer']!r}, and with no name fact "
       f"{nameless['answer']!r}; write the facts the store returns into the system message",
       observed=f"the model answered {dana['answer']!r} with Dana's facts and {nameless['answer']!r} without")
# the query joins recent messages and the new one
assert query.endswith("200.") and "stocks" in query, (
    f"make_query gave {query!r}; join the recent messages' text and the new message")
# k limits how many recent messages go in, and a short or empty history is fine
assert QUERIES["k=1"] == "How many would you like, and at what price? 200." and QUERIES["no history"] == "200." \
    and QUERIES["k bigger than the history"] == "Please buy some stocks for me. How many would you like, and at what price? 200.", (
    f"make_query gave {QUERIES}; take recent[-k:], then the new message")
# messages with no text are left out
assert QUERIES["a message with no text"] == "Microsoft, please. 200.", (
    f"make_query gave {QUERIES['a message with no text']!r}; skip messages whose content is None")
# with context, retrieval finds the brokerage fact
assert "brokerage" in with_context, (
    f"the query {query!r} found {with_context!r}; the recent messages should bring 'stocks' into it")
# make_query builds the lesson's query for many recent histories and k
assert (query_found := compare(make_query, reference("make_query"), MADE_QUERIES, observe=querying)), query_found
