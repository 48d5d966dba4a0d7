"""Long-term memory: the hash embedder, the fact store, the retrieval query, fact extraction."""

import json

from looplab import FactStore, HashEmbedder, extract_facts, final, recall_query, scripted
from looplab.recall import cosine, parse_facts

ELEVEN = [
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


def test_what_is_my_name_finds_the_name_fact_first():
    store = FactStore()
    assert store.add(ELEVEN) == 11
    top = store.search("What is my name?", k=3)
    assert top[0][0] == ELEVEN[0] and len(top) == 3
    assert top[0][1] > top[1][1] >= top[2][1]


def test_related_questions_find_related_facts():
    store = FactStore()
    store.add(ELEVEN)
    assert store.search("What is the temperature in Paris right now?", 1)[0][0] == ELEVEN[4]
    assert store.search("Which flights should I book?", 1)[0][0] == ELEVEN[5]
    assert store.search("When does the fiscal year start?", 1)[0][0] == ELEVEN[10]


def test_embedder_is_deterministic_and_unit_length():
    a, b = HashEmbedder(dim=256).embed(["hello world", "hello world"])
    assert a == b and len(a) == 256 and abs(sum(x * x for x in a) - 1) < 1e-9
    assert cosine(a, b) > 0.999 and cosine([0.0, 0.0], [1.0, 0.0]) == 0.0


def test_add_skips_blank_and_duplicates_and_empty_search():
    store = FactStore()
    assert store.search("anything") == []
    assert store.add(["a fact", " a fact ", "", "another fact"]) == 2 and len(store) == 2
    assert store.add("a fact") == 0 and store.search("x", k=0) == []


def test_save_and_load_round_trip(tmp_path):
    store = FactStore()
    store.add(ELEVEN[:3])
    path = tmp_path / "facts.json"
    store.save(path)
    loaded = FactStore.load(path)
    assert loaded.facts == store.facts and loaded.vectors == store.vectors
    assert json.loads(path.read_text())["embedder"] == "hash-v1"


class Counting:
    name = "other"

    def __init__(self):
        self.calls = 0

    def embed(self, texts):
        self.calls += 1
        return [[float(len(t)), 1.0] for t in texts]


def test_pluggable_embedder_and_reembedding_on_load():
    store = FactStore()
    store.add(["x"])
    other = Counting()
    loaded = FactStore.from_json(store.to_json(), embedder=other)
    assert other.calls == 1 and loaded.vectors == [[1.0, 1.0]]


def test_recall_query_uses_recent_messages():
    messages = [
        {"role": "system", "content": "s"},
        {"role": "user", "content": "Buy Microsoft shares"},
        {"role": "assistant", "content": "How many?"},
        {"role": "tool", "content": "x", "tool_call_id": "1"},
        {"role": "assistant", "content": None},
    ]
    assert recall_query(messages, "200.", k=3) == "Buy Microsoft shares How many? 200."
    assert recall_query(messages, "200.", k=1) == "How many? 200." and recall_query([], "q") == "q"


def test_parse_facts_tolerates_malformed_answers():
    assert parse_facts('{"facts": ["A", " B ", 3, "", "A"]}') == ["A", "B"]
    assert parse_facts('Sure!\n```json\n{"facts": ["C"]}\n```') == ["C"]
    assert parse_facts('Here: {"facts": ["D"]} hope that helps') == ["D"]
    assert parse_facts('["E"]') == ["E"]
    assert parse_facts("no json") == [] and parse_facts('{"facts": "F"}') == [] and parse_facts(None) == []


def test_extract_facts_asks_the_model_with_the_conversation():
    model = scripted([final('{"facts": ["The user\'s name is Chris."]}')])
    talk = [{"role": "user", "content": "I am Chris."}, {"role": "tool", "content": "x", "tool_call_id": "1"}]
    assert extract_facts(model, talk) == ["The user's name is Chris."]
    sent = model.calls[0]["messages"]
    assert sent[0]["role"] == "system" and '"facts"' in sent[0]["content"]
    assert [m["role"] for m in sent] == ["system", "user", "user"]
