"""Long-term memory: facts kept across conversations, found again by meaning-ish similarity.

Works in the browser with no numpy: `HashEmbedder` turns a text into a vector of hashed words,
word pairs and character trigrams; the store ranks facts by cosine similarity. Any object with
`embed(texts) -> list[list[float]]` can replace it (an embeddings endpoint, say).

    store = FactStore()
    store.add(["The user's name is Chris.", "The user lives in Singapore."])
    store.search("What is my name?", k=1)     # [("The user's name is Chris.", 0.41)]
    facts = extract_facts(model, conversation)  # ask a model for {"facts": [...]} (structured.py)
"""

import json
import math
import re
import zlib
from pathlib import Path
from typing import Protocol

from .modelerror import ModelError
from .structured import structured

STOPWORDS = frozenset(
    "a an and are as at be but by can could did do does for from had has have he her his how i if "
    "in is it its just me my of on or our she so than that the their them then there these they "
    "this to us was we were what when where which who why will with would you your".split()
)

EXTRACT_PROMPT = (
    "Extract concise facts that may be useful in future conversations: ongoing projects, stable "
    "preferences, decisions, facts about the user. Leave out temporary details and guesses. "
    'Answer with only a JSON object: {"facts": ["...", "..."]}; if nothing is worth keeping, '
    '{"facts": []}.'
)


class Embedder(Protocol):
    """Anything that turns texts into vectors."""

    def embed(self, texts: list[str]) -> list[list[float]]:
        """One vector per text, in the order of the texts."""


def words(text: str) -> list[str]:
    """Lower-case words without stopwords, with a plain English plural/possessive trimmed."""
    out = []
    for word in re.findall(r"[a-z0-9]+(?:'[a-z]+)?", text.lower()):
        word = word.split("'")[0]
        if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
            word = word[:-1]
        if word not in STOPWORDS:
            out.append(word)
    return out


class HashEmbedder:
    """A pure-Python embedder: hashed words (weight 1), word pairs (0.5) and char trigrams (0.25)."""

    name = "hash-v1"

    def __init__(self, dim: int = 1024):
        self.dim = dim

    def features(self, text: str) -> dict[str, float]:
        """The weighted features of a text: words, word pairs and character trigrams."""
        feats: dict[str, float] = {}
        tokens = words(text)
        for i, word in enumerate(tokens):
            feats["w:" + word] = feats.get("w:" + word, 0) + 1.0
            if i + 1 < len(tokens):
                pair = f"p:{word} {tokens[i + 1]}"
                feats[pair] = feats.get(pair, 0) + 0.5
            padded = f"#{word}#"
            for j in range(len(padded) - 2):
                gram = "c:" + padded[j : j + 3]
                feats[gram] = feats.get(gram, 0) + 0.25
        return feats

    def embed(self, texts: list[str]) -> list[list[float]]:
        """One unit-length vector per text (crc32 hashing: the same in CPython and Pyodide)."""
        vectors = []
        for text in texts:
            vec = [0.0] * self.dim
            for feat, weight in self.features(text).items():
                h = zlib.crc32(feat.encode())
                vec[h % self.dim] += weight if (h >> 16) & 1 else -weight
            vectors.append(normalise(vec))
        return vectors


def normalise(vec: list[float]) -> list[float]:
    """The vector scaled to unit length (all zeros stays all zeros)."""
    norm = math.sqrt(sum(x * x for x in vec))
    return [x / norm for x in vec] if norm else vec


def cosine(a: list[float], b: list[float]) -> float:
    """Cosine similarity of two vectors (0.0 when either is all zeros)."""
    dot = sum(x * y for x, y in zip(a, b))
    na, nb = math.sqrt(sum(x * x for x in a)), math.sqrt(sum(y * y for y in b))
    return dot / (na * nb) if na and nb else 0.0


class FactStore:
    """Facts and their vectors: `add(facts)`, `search(query, k)`, `save(path)`, `FactStore.load(path)`."""

    def __init__(self, embedder: Embedder | None = None):
        self.embedder = embedder or HashEmbedder()
        self.facts: list[str] = []
        self.vectors: list[list[float]] = []

    def add(self, facts: list[str] | str) -> int:
        """Add facts (blank and already-known ones are skipped); returns how many were added."""
        if isinstance(facts, str):
            facts = [facts]
        new = []
        for fact in facts:
            fact = str(fact).strip()
            if fact and fact not in self.facts and fact not in new:
                new.append(fact)
        if new:
            self.vectors.extend(self.embedder.embed(new))
            self.facts.extend(new)
        return len(new)

    def search(self, query: str, k: int = 3) -> list[tuple[str, float]]:
        """The k facts most similar to the query, best first, with their scores."""
        if not self.facts or k <= 0:
            return []
        qvec = self.embedder.embed([query])[0]
        scored = [(fact, round(cosine(qvec, vec), 4)) for fact, vec in zip(self.facts, self.vectors)]
        order = sorted(range(len(scored)), key=lambda i: (-scored[i][1], i))
        return [scored[i] for i in order[:k]]

    def __len__(self) -> int:
        return len(self.facts)

    def to_json(self) -> str:
        """The store as JSON text (facts, vectors and the embedder's name)."""
        name = getattr(self.embedder, "name", type(self.embedder).__name__)
        return json.dumps({"embedder": name, "facts": self.facts, "vectors": self.vectors})

    @classmethod
    def from_json(cls, text: str, embedder: Embedder | None = None) -> "FactStore":
        """A store from `to_json` text; vectors are recomputed if the embedder differs."""
        data = json.loads(text)
        store = cls(embedder)
        name = getattr(store.embedder, "name", type(store.embedder).__name__)
        facts = [str(f) for f in data.get("facts", [])]
        vectors = data.get("vectors")
        if data.get("embedder") == name and isinstance(vectors, list) and len(vectors) == len(facts):
            store.facts, store.vectors = facts, vectors
        else:
            store.add(facts)
        return store

    def save(self, path) -> None:
        """Write the store to a JSON file."""
        Path(path).write_text(self.to_json(), encoding="utf-8")

    @classmethod
    def load(cls, path, embedder: Embedder | None = None) -> "FactStore":
        """Read a store written by `save`."""
        return cls.from_json(Path(path).read_text(encoding="utf-8"), embedder)


def recall_query(messages: list[dict], user_message: str = "", k: int = 3) -> str:
    """The retrieval query: the text of the last k messages plus the new user message.

    A reply like "Yes." or "200." means nothing alone; the recent turns give it its subject.
    """
    recent = [m.get("content") for m in messages if m.get("role") in ("user", "assistant")]
    recent = [c for c in recent if isinstance(c, str) and c.strip()][-k:] if k else []
    return " ".join([*recent, user_message]).strip()


def parse_facts(text) -> list[str]:
    """The facts in a model's answer, tolerating code fences, prose around the JSON and bad shapes."""
    if not isinstance(text, str):
        return []
    data = None
    for candidate in (
        text,
        *re.findall(r"```(?:json)?\s*(.*?)```", text, re.S),
        *re.findall(r"\{.*\}|\[.*\]", text, re.S),
    ):
        try:
            data = json.loads(candidate)
            break
        except (json.JSONDecodeError, TypeError):
            continue
    facts = data.get("facts") if isinstance(data, dict) else data
    if not isinstance(facts, list):
        return []
    out = []
    for fact in facts:
        if isinstance(fact, str) and fact.strip() and fact.strip() not in out:
            out.append(fact.strip())
    return out


FACTS_SCHEMA = {
    "type": "object",
    "properties": {"facts": {"type": "array", "items": {"type": "string"}}},
    "required": ["facts"],
    "additionalProperties": False,
}


def extract_facts(model_fn, messages: list[dict]) -> list[str]:
    """Ask a model for the durable facts of a conversation as structured output; [] if it cannot say.

    The request carries `response_format` with FACTS_SCHEMA (strict); a reply that does not fit is
    answered once with what was wrong (structured.py); a second misfit or a refusal gives [].
    """
    talk = [
        {"role": m["role"], "content": m["content"]}
        for m in messages
        if m.get("role") in ("user", "assistant") and isinstance(m.get("content"), str)
    ]
    prompt = [
        {"role": "system", "content": EXTRACT_PROMPT},
        *talk,
        {"role": "user", "content": "Extract the useful long-term facts from the conversation above."},
    ]
    try:
        reply = structured(model_fn, FACTS_SCHEMA, name="facts")(prompt, [])
    except ModelError as exc:
        if exc.kind not in ("format", "refusal"):
            raise
        return []
    return parse_facts(json.dumps(reply["parsed"]))
