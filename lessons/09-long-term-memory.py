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
from looplab.models import pick_model, model_mode, final
from looplab.models.rules import rule_model

live = model_mode() == "live"

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
    system = "You are a helpful assistant. Use the conversation and relevant memories below."
    return run_agent(question, pick_model(rule_model), Toolbox(), Memory(system))

# %% tags=["solution"]
def answer_with_memory(question, store, k=3):
    found = [fact for fact, score in store.search(question, k=k)]
    system = ("You are a helpful assistant. Use the conversation and relevant memories below.\n"
              "Relevant long-term memories:\n" + "\n".join(f"- {fact}" for fact in found))
    return run_agent(question, pick_model(rule_model), Toolbox(), Memory(system))

# %%
named = answer_with_memory("What is my name?", store)
print(named["answer"])

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
    return user_message

# %% tags=["solution"]
def make_query(recent, user_message, k=3):
    texts = [m["content"] for m in recent[-k:] if m.get("content")]
    return " ".join(texts + [user_message])

# %%
alone = store.search("200.", k=1)[0][0]
query = make_query(recent, "200.")
with_context = store.search(query, k=1)[0][0]
print("query:", query)
print("'200.' alone finds:  ", alone)
print("with the context:    ", with_context)

# %% tags=["check"]
# the extracted facts are a list of sentences
assert isinstance(facts, list) and all(isinstance(f, str) for f in facts), f"extract_facts gave {facts!r}"
# the eleven facts are in the store
assert len(store) == 11, f"the store holds {len(store)} facts"
# the name fact is the best match for "What is my name?"
assert store.search("What is my name?", k=1)[0][0].startswith("The user's name"), "retrieval lost the name fact"
# the retrieved facts reached the model, and it answered with the name
assert live or "Chris" in (named["answer"] or ""), (
    f"the helper said {named['answer']!r}; put the retrieved facts into the system message")
# the query joins recent messages and the new one
assert query.endswith("200.") and "stocks" in query, (
    f"make_query gave {query!r}; join the recent messages' text and the new message")
# with context, retrieval finds the brokerage fact
assert "brokerage" in with_context, (
    f"the query {query!r} found {with_context!r}; the recent messages should bring 'stocks' into it")
