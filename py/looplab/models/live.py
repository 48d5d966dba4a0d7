"""The live model, built from the environment, so the same lesson code runs against a real endpoint.

    LLM_BASE_URL   the API's base URL, e.g. https://api.openai.com/v1 or http://127.0.0.1:11434/v1
    LLM_API_KEY    the key (may be empty for a local server such as Ollama or LM Studio)
    LLM_MODEL      the model name, e.g. gpt-4o-mini or llama3.2
    LLM_API        chat (default: raw HTTP chat completions) | responses | prompted | react | sdk
    LLM_TIMEOUT    seconds to wait for a reply (default 60)
    LLM_MAX_TOKENS the most tokens one reply may have (default 512; a reply cut by it is marked `cut`)
    LLM_EMBED_MODEL  the embeddings model for live_embedder (default text-embedding-3-small)
    LLM_STREAM     1 (default): replies stream, their text shown as it is written; 0: whole replies

In the browser the page's Settings set these for each run.
"""

import os

from .chat import chat_model
from .embeddings import EndpointEmbedder
from .endpoint import Endpoint
from .errors import ModelError
from .limits import DEFAULT_MAX_TOKENS
from .prompted import prompted
from .responses import responses_model
from .stream import streams_by_default

APIS = ("chat", "responses", "prompted", "react", "sdk")


def setting(name: str, required: bool = True, default: str = "") -> str:
    """One LLM_* setting from the environment; a missing required one is a ModelError saying what to set."""
    value = os.environ.get(name, "").strip()
    if not value and required:
        raise ModelError(
            f"live mode needs {name} — set it in Settings (or in the environment), e.g. {EXAMPLES[name]}", kind="setup"
        )
    return value or default


EXAMPLES = {"LLM_BASE_URL": "LLM_BASE_URL=http://127.0.0.1:11434/v1", "LLM_MODEL": "LLM_MODEL=llama3.2"}


def endpoint_from_env(model: str | None = None) -> Endpoint:
    """An Endpoint from LLM_BASE_URL, LLM_API_KEY, LLM_MODEL and LLM_TIMEOUT."""
    base_url = setting("LLM_BASE_URL")
    if not base_url.startswith(("http://", "https://")):
        raise ModelError(f"LLM_BASE_URL must start with http:// or https:// (it is {base_url!r})", kind="setup")
    timeout = setting("LLM_TIMEOUT", required=False, default="60")
    try:
        seconds = float(timeout)
    except ValueError:
        raise ModelError(f"LLM_TIMEOUT must be a number of seconds (it is {timeout!r})", kind="setup") from None
    if not seconds > 0:
        raise ModelError(f"LLM_TIMEOUT must be more than 0 seconds (it is {timeout!r})", kind="setup")
    return Endpoint(
        base_url, api_key=setting("LLM_API_KEY", required=False), model=model or setting("LLM_MODEL"), timeout=seconds
    )


def max_tokens_from_env() -> int:
    """LLM_MAX_TOKENS as a whole number of tokens (default 512); anything else is a ModelError."""
    text = setting("LLM_MAX_TOKENS", required=False, default=str(DEFAULT_MAX_TOKENS))
    try:
        tokens = int(text)
    except ValueError:
        tokens = 0
    if tokens < 1:
        raise ModelError(
            f"LLM_MAX_TOKENS must be a whole number of tokens, at least 1 (it is {text!r}); "
            f"{DEFAULT_MAX_TOKENS} suits most lessons",
            kind="setup",
        )
    return tokens


def live_model(api: str | None = None):
    """The model function for the configured endpoint and wire format (LLM_API, default chat)."""
    api = (api or os.environ.get("LLM_API") or "chat").strip().lower()
    if api not in APIS:
        raise ModelError(f"LLM_API is {api!r}; it must be one of {', '.join(APIS)}", kind="setup")
    endpoint = endpoint_from_env()
    limit = max_tokens_from_env()
    stream = streams_by_default(os.environ.get("LLM_STREAM"))
    if api == "responses":
        return responses_model(endpoint, stream=stream, max_output_tokens=limit)
    if api in ("prompted", "react"):
        return prompted(chat_model(endpoint, stream=stream, max_tokens=limit), react=api == "react")
    if api == "sdk":
        from .sdk import sdk_model

        return sdk_model(
            endpoint.base_url, endpoint.api_key, endpoint.model, endpoint.timeout, stream=stream, max_tokens=limit
        )
    return chat_model(endpoint, stream=stream, max_tokens=limit)


def live_embedder(model: str | None = None) -> EndpointEmbedder:
    """An embedder (for recall.FactStore) over {LLM_BASE_URL}/embeddings."""
    model = model or setting("LLM_EMBED_MODEL", required=False, default="text-embedding-3-small")
    return EndpointEmbedder(endpoint_from_env(model), model)
