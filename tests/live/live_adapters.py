"""Every live adapter built the same way for the tests: (model_fn, path it posts to, a good reply)."""

import json
import socket

from fakeserver import chat_text, responses_text

from looplab.models.chat import chat_model
from looplab.models.endpoint import Endpoint
from looplab.models.prompted import prompted
from looplab.models.responses import responses_model
from looplab.models.sdk import openai_model_fn

GOOD = {
    "chat": chat_text("ok"),
    "responses": responses_text("ok"),
    "prompted": chat_text(json.dumps({"type": "final_answer", "answer": "ok"})),
    "sdk": chat_text("ok"),
}
PATH = {
    "chat": "/v1/chat/completions",
    "responses": "/v1/responses",
    "prompted": "/v1/chat/completions",
    "sdk": "/v1/chat/completions",
}
ADAPTERS = list(GOOD)
KEY = "sk-test-SECRETKEY-0123456789abcdef"


def build(kind: str, base_url: str, key: str = KEY, model: str = "fake-model", timeout: float = 5.0):
    """A model function of one kind against base_url; retries never really sleep."""
    if kind == "sdk":
        from openai import OpenAI

        client = OpenAI(base_url=base_url, api_key=key, timeout=timeout, max_retries=2)
        client._calculate_retry_timeout = lambda *args, **kwargs: 0.001  # keep the SDK's backoff short
        return openai_model_fn(client, model)
    endpoint = Endpoint(base_url, api_key=key, model=model, timeout=timeout, sleep=lambda s: None)
    if kind == "chat":
        return chat_model(endpoint)
    if kind == "responses":
        return responses_model(endpoint)
    return prompted(chat_model(endpoint))


def closed_port() -> int:
    """A port on 127.0.0.1 where nothing listens."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    sock.close()
    return port
