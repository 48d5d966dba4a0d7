"""ModelError: a model call that failed, said in one sentence the learner can act on (never the key).

Every model function raises it for a fault it cannot answer past (an adapter for an HTTP status or
a dropped connection, structured outputs for a reply that never matched its format, the recall
store for an embedder that failed); the loop turns it into a stop with reason `error` and shows the
sentence. The sentences for each network fault are written in models/errors.py.
"""

from .trace import redact_text, secrets_from_env


class ModelError(Exception):
    """A model call that failed; the message says why and what to do, `status`/`kind` say it for code."""

    def __init__(
        self,
        message: str,
        *,
        status: int | None = None,
        kind: str | None = None,
        retryable: bool = False,
        retry_after: float | None = None,
        secrets: list[str] | None = None,
    ):
        super().__init__(redact_text(message, [*(secrets or []), *secrets_from_env()]))
        self.status, self.kind, self.retryable, self.retry_after = status, kind, retryable, retry_after
