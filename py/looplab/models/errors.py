"""What went wrong with a live model, in one sentence the learner can act on (and never the key).

Every live adapter raises `ModelError` (looplab/modelerror.py); the loop turns it into a stop with
reason `error` and shows the sentence. `for_status` and `for_network` write the sentence for each fault.
"""

import json

from ..modelerror import ModelError

RETRY_STATUSES = frozenset({408, 409, 429}) | frozenset(range(500, 600))


def server_says(body: str, limit: int = 200) -> str:
    """The error text inside an error reply ({"error": {"message": ...}}, {"error": "..."}, or the raw text)."""
    try:
        data = json.loads(body)
    except (ValueError, TypeError):
        data = None
    message = None
    if isinstance(data, dict):
        error = data.get("error", data.get("detail", data.get("message")))
        if isinstance(error, dict):
            message = error.get("message") or error.get("code")
        elif error is not None:
            message = error
    text = " ".join(str(message if message is not None else body or "").split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def looks_like_missing_model(body: str, model: str | None) -> bool:
    """True when a 404 is about the model rather than the URL (OpenAI's model_not_found, Ollama's 'not found')."""
    text = body.lower()
    return (
        "model_not_found" in text
        or ("model" in text and "not found" in text)
        or (bool(model) and f"{model}".lower() in text)
    )


def for_status(
    status: int,
    url: str,
    base_url: str,
    body: str,
    model: str | None = None,
    attempts: int = 1,
    retry_after: float | None = None,
    secrets: list[str] | None = None,
    location: str | None = None,
) -> ModelError:
    """The error for an HTTP status that is not a success (`location`: where a redirect points)."""
    says = server_says(body)
    tried = f" (tried {attempts} times)" if attempts > 1 else ""
    if 300 <= status < 400:
        where = f" to {location}" if location else ""
        text = (
            f"{status} from {url}: the endpoint moved{where} — put the new address (often "
            f"https:// instead of http://) as the base URL in Settings"
        )
    elif status == 401:
        text = f"401 from {base_url}: the API key was refused — check it in Settings"
    elif status == 403:
        text = (
            f"403 from {base_url}: the key may not use this model or endpoint — check the key's "
            f"permissions or pick another model in Settings ({says})"
        )
    elif status == 404 and looks_like_missing_model(body, model):
        text = f"model '{model}' not found at {base_url} — check the model name in Settings (the server said: {says})"
    elif status == 404:
        text = f"404 from {url}: there is no such endpoint — check the base URL in Settings (it usually ends in /v1)"
    elif status == 429:
        wait = f"; the server asks to wait {retry_after:g} s" if retry_after else ""
        text = (
            f"429 from {base_url}: rate limited{tried}{wait} — wait a little and run again, or "
            f"check your plan's limits ({says})"
        )
    elif status in (408, 409) or status >= 500:
        text = f"{status} from {base_url}: the server failed{tried} — try again in a moment ({says})"
    else:  # 400, 413, 415, 422 ...: the request itself was refused
        text = f"{status} from {base_url}: the request was refused: {says}"
    return ModelError(
        text, status=status, kind="status", retryable=status in RETRY_STATUSES, retry_after=retry_after, secrets=secrets
    )


CORS_HELP = (
    "the endpoint did not allow requests from this page (CORS), or the network failed; "
    "for Ollama start it with OLLAMA_ORIGINS=* (or this site's origin), for LM Studio turn "
    "on CORS in its server settings, for a provider that refuses browsers use a proxy that "
    "adds Access-Control-Allow-Origin"
)


def for_network(
    kind: str,
    base_url: str,
    detail: str = "",
    timeout: float | None = None,
    attempts: int = 1,
    secrets: list[str] | None = None,
) -> ModelError:
    """The error for a request that got no complete answer (see looplab.http.NetworkError kinds)."""
    tried = f" (tried {attempts} times)" if attempts > 1 else ""
    if kind == "timeout":
        text = (
            f"no reply from {base_url} within {timeout:g} s{tried} — the server or the model is "
            f"slow or overloaded; try again, or set a longer LLM_TIMEOUT"
        )
    elif kind == "refused":
        text = (
            f"could not connect to {base_url}: connection refused{tried} — is the server "
            f"running, and is the base URL in Settings right?"
        )
    elif kind == "dns":
        text = f"could not find the host of {base_url} — check the base URL in Settings"
    elif kind == "dropped":
        text = f"the connection to {base_url} closed before the reply was complete{tried} — try again in a moment"
    elif kind == "blocked":
        text = f"could not reach {base_url} from this page{tried}: {CORS_HELP}"
    elif kind == "withheld":
        text = f"no request to {base_url} with your key: {detail}"
    else:
        text = f"could not reach {base_url}{tried}: {detail or kind}"
    return ModelError(
        text, kind=kind, retryable=kind in ("timeout", "refused", "dropped", "blocked", "other"), secrets=secrets
    )


def for_body(base_url: str, body: str, why: str = "was not JSON", secrets: list[str] | None = None) -> ModelError:
    """The error for a 2xx reply whose body is not the JSON an OpenAI-compatible API sends."""
    start = " ".join(body.split())[:60]
    began = f" (it began {start!r})" if start else " (it was empty)"
    text = (
        f"the reply from {base_url} {why}{began} — is the base URL an OpenAI-compatible API (it usually ends in /v1)?"
    )
    return ModelError(text, kind="body", secrets=secrets)
