"""An embedder for long-term memory (recall.FactStore) that calls {base_url}/embeddings.

store = FactStore(embedder=live_embedder())     # or EndpointEmbedder(Endpoint(...), "text-embedding-3-small")
"""

from .endpoint import Endpoint
from .errors import ModelError


class EndpointEmbedder:
    """recall's Embedder over an OpenAI-compatible /embeddings endpoint."""

    def __init__(self, endpoint: Endpoint, model: str | None = None):
        self.endpoint = endpoint
        self.model = model or endpoint.model
        self.name = f"endpoint:{self.model}"

    def embed(self, texts: list[str]) -> list[list[float]]:
        """One vector per text, in the order of the texts."""
        if not texts:
            return []
        data = self.endpoint.post("/embeddings", {"model": self.model, "input": list(texts)})
        rows = data.get("data")
        if not isinstance(rows, list) or len(rows) != len(texts):
            raise ModelError(
                f"the reply from {self.endpoint.base_url}/embeddings did not hold one "
                f"vector per text ({len(texts)} sent)",
                kind="body",
            )
        rows = sorted(rows, key=lambda r: r.get("index", 0))
        return [[float(x) for x in row["embedding"]] for row in rows]
