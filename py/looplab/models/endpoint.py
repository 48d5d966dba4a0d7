"""An OpenAI-compatible endpoint: where it is, the key and the model, and JSON calls with retries.

    api = Endpoint("http://127.0.0.1:11434/v1", api_key="...", model="llama3.2")
    data = api.post("/chat/completions", {"model": api.model, "messages": [...]})
    pieces = api.stream("/chat/completions", {..., "stream": True})   # bytes as they arrive (or a dict)

`post`/`get` return the decoded JSON reply or raise `ModelError` with one clear sentence.
Retried (up to `attempts` tries in all): 408, 409, 429, 5xx and network failures, after an
exponential backoff with jitter or the wait the server's Retry-After asks for. Never retried:
other 4xx (a wrong key or model name will not fix itself), and replies that are not JSON.
"""

import json
import random
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from .. import http
from .errors import ModelError, for_body, for_network, for_status, server_says
from ..retry import ATTEMPTS, retry_after_of, wait_before_retry


@dataclass
class Endpoint:
    """Settings of one OpenAI-compatible API plus the call that talks to it; `sleep`/`rand` are injectable for tests."""

    base_url: str
    api_key: str = field(default="", repr=False)
    model: str = ""
    timeout: float = 60.0
    attempts: int = ATTEMPTS
    sleep: Callable[[float], None] = field(default=time.sleep, repr=False)
    rand: Callable[[], float] = field(default=random.random, repr=False)

    def __post_init__(self):
        self.base_url = self.base_url.rstrip("/")
        if self.attempts < 1:
            raise ValueError(f"attempts must be at least 1 (it is {self.attempts})")

    def headers(self) -> dict:
        """The request headers: JSON, and the key as a bearer token when there is one."""
        headers = {"Accept": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        return headers

    def post(self, path: str, body: dict) -> dict:
        """POST JSON to base_url + path; the decoded reply, or ModelError."""
        return self.call("POST", path, body)

    def get(self, path: str) -> dict:
        """GET base_url + path; the decoded reply, or ModelError."""
        return self.call("GET", path)

    def call(self, method: str, path: str, body: dict | None = None) -> dict:
        """One call with retries; see the module docstring for which faults are tried again."""
        return self.send(method, path, body, stream=False)

    def stream(self, path: str, body: dict) -> dict | Iterator[bytes]:
        """POST asking for a stream: its body's pieces as they arrive, or the decoded JSON of a server
        that answered whole. Retried as `call` is, until the first byte of a 2xx; never after."""
        return self.send("POST", path, body, stream=True)

    def send(self, method: str, path: str, body: dict | None, stream: bool):
        url = self.base_url + path
        secrets = [self.api_key] if self.api_key else []
        data = None if body is None else json.dumps(body)
        headers = {
            **self.headers(),
            **({"Content-Type": "application/json"} if data else {}),
            **({"Accept": "text/event-stream"} if stream else {}),
        }
        for attempt in range(1, self.attempts + 1):
            retry_after = None
            try:
                if stream:
                    status, found, pieces = http.open_stream(method, url, data, headers, self.timeout)
                    if 200 <= status < 300 and "json" not in found.get("content-type", ""):
                        return pieces
                    text = b"".join(pieces).decode("utf-8", errors="replace")
                else:
                    status, found, text = http.request(method, url, data, headers, self.timeout)
            except http.NetworkError as exc:
                error = for_network(exc.kind, self.base_url, exc.detail, self.timeout, attempt, secrets)
            else:
                if 200 <= status < 300:
                    return self.decode(text, secrets)
                retry_after = retry_after_of(found)
                error = for_status(
                    status,
                    url,
                    self.base_url,
                    text,
                    self.model,
                    attempt,
                    retry_after,
                    secrets,
                    location=found.get("location"),
                )
            if not error.retryable or attempt == self.attempts:
                raise error
            wait = wait_before_retry(attempt, retry_after, self.rand)
            if wait is None:  # the server asks for a longer wait than a lesson should block
                raise error
            self.sleep(wait)
        raise AssertionError("unreachable")

    def decode(self, text: str, secrets: list[str]) -> dict:
        """A 2xx body as JSON; a body that is not JSON, or is an error object, becomes ModelError."""
        try:
            data = json.loads(text)
        except ValueError:
            stripped = text.lstrip()
            why = "was cut off (incomplete JSON)" if stripped[:1] in ("{", "[") else "was not JSON"
            raise for_body(self.base_url, text, why, secrets) from None
        if not isinstance(data, dict):
            raise for_body(self.base_url, text, "was JSON but not an object", secrets)
        if data.get("error") and not (data.get("choices") or data.get("output") or data.get("data")):
            raise ModelError(
                f"{self.base_url} answered with an error: {server_says(text)}", kind="body", secrets=secrets
            )
        return data
