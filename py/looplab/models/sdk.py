"""The openai SDK as a model function — the course's `openai_model_fn`, with the same clear errors.

    from openai import OpenAI
    client = OpenAI(base_url=os.environ["LLM_BASE_URL"], api_key=os.environ["LLM_API_KEY"])
    model_fn = openai_model_fn(client, os.environ["LLM_MODEL"])

The SDK retries 408/409/429/5xx and connection failures itself (honouring Retry-After); its
exceptions are turned into the same one-sentence `ModelError`s as the raw-HTTP adapters.

In the browser the SDK is not part of the page: it is installed on first use from wheels the
site serves (the "openai" group of wheels.lock.json and our httpx2_jsfetch from py-extra/). The
worker does that before a run that needs it (LLM_API=sdk in live mode, or code that imports
openai) with `pyodide.loadPackage` over the site's own lock file, which carries each wheel's
sha256 and dependencies (web/src/worker/worker.js, loadExtras).
"""

import sys

from .chat import wire_message
from .errors import ModelError, for_body, for_network, for_status
from .limits import CUT_REASONS, check_cut, limit_of, use_completion_tokens
from ..retry import retry_after_of
from .stream import ChatStream, refuses_streaming, stalled


def openai_model_fn(client, model: str, stream: bool = False, on_delta=None, **options):
    """A model function that calls `client.chat.completions.create` and returns the message as a dict.

    `options` (max_tokens, temperature, ...) go in every request. The token limit is sent as
    `max_tokens`, the name the raw-HTTP adapter uses, so both send the same body to a server
    (the SDK also knows `max_completion_tokens`, which not every compatible server reads); a
    server that refuses it and asks for `max_completion_tokens` gets that name from then on.
    With `stream=True` the SDK's chunks are assembled as the raw adapter's are (models/stream.py)
    into the ChatCompletion an unstreamed call returns, then read by the same code.
    """
    base_url = str(client.base_url).rstrip("/")
    secrets = [client.api_key] if getattr(client, "api_key", None) else []
    state = {"stream": stream}

    def create(messages: list[dict], tools: list[dict] | None, response_format: dict | None):
        extra = {**({"tools": tools} if tools else {}), **options}
        if response_format:
            extra["response_format"] = response_format
        if state["stream"]:
            extra.update(stream=True, stream_options={"include_usage": True})
        try:
            response = client.chat.completions.create(
                model=model, messages=[wire_message(m) for m in messages], **extra
            )
        except Exception as exc:
            raise sdk_error(exc, base_url, model, client.max_retries + 1, client.timeout, secrets) from None
        return read_chunks(response) if state["stream"] else (response, None)

    def read_chunks(chunks):
        """The SDK's stream of ChatCompletionChunks as the ChatCompletion they spell, and the stream's figures."""
        from openai.types.chat import ChatCompletion

        reader = ChatStream(base_url, on_delta, secrets)
        try:
            for chunk in chunks:
                reader.add(chunk.model_dump(exclude_none=True))
        except ModelError:
            raise
        except Exception as exc:
            raise stream_error(exc, reader, client.timeout) from None
        return ChatCompletion.model_validate(reader.finish(ended_cleanly=True)), reader.stats()

    def call(messages: list[dict], tools: list[dict] | None = None, response_format: dict | None = None) -> dict:
        for tries_left in (2, 1, 0):
            try:
                response, stats = create(messages, tools, response_format)
                break
            except ModelError as error:
                if tries_left and use_completion_tokens(error, options):  # a reasoning model asks for the other name
                    continue
                if tries_left and state["stream"] and refuses_streaming(error, base_url):
                    state["stream"] = False
                    continue
                raise
        if not hasattr(response, "choices"):  # the SDK hands back the text of a reply that is not JSON
            raise for_body(base_url, str(response), "was not JSON", secrets)
        if not response.choices:
            raise for_body(base_url, str(response), "had no choices", secrets)
        reply = response.choices[0].message.model_dump(exclude_none=True)
        if response.choices[0].finish_reason in CUT_REASONS:
            reply["cut"] = response.choices[0].finish_reason
        if getattr(response, "usage", None) is not None:
            reply["usage"] = response.usage.model_dump(exclude_none=True)  # for budget.py
        if stats:
            reply["stream"] = stats
        return check_cut(reply, limit_of(options))

    return call


def stream_error(exc: Exception, reader: ChatStream, timeout) -> ModelError:
    """What the SDK raised while reading a stream, as the sentence the raw adapter writes for the same fault."""
    import openai

    name = type(exc).__name__
    if "Timeout" in name:
        return stalled(reader.base_url, float(getattr(timeout, "read", timeout) or 0), reader.chunks, reader.secrets)
    if isinstance(exc, openai.APIError) and not isinstance(exc, openai.APIConnectionError):  # an error event
        return reader.fail(f"the server sent an error in the middle of it: {exc.message}")
    if isinstance(exc, ValueError):
        return reader.fail("a data: line was not JSON")
    unfinished = reader.unfinished_call()
    return reader.fail(
        f"the connection closed in the middle of it, after {reader.chunks} chunks ({name})"
        + (f"; {unfinished}" if unfinished else "")
    )


def sdk_error(exc: Exception, base_url: str, model: str, attempts: int, timeout, secrets) -> ModelError:
    """An openai SDK exception as the ModelError a raw-HTTP adapter would raise for the same fault."""
    import openai

    if isinstance(exc, openai.APIStatusError):
        status = exc.status_code
        tried = attempts if status in (408, 409, 429) or status >= 500 else 1
        return for_status(
            status,
            str(exc.request.url),
            base_url,
            exc.response.text,
            model,
            tried,
            retry_after_of({k.lower(): v for k, v in exc.response.headers.items()}),
            secrets,
        )
    if isinstance(exc, openai.APITimeoutError):
        seconds = getattr(timeout, "read", timeout)
        return for_network("timeout", base_url, "", float(seconds or 0), attempts, secrets)
    if isinstance(exc, openai.APIConnectionError):
        return for_network(connection_kind(exc), base_url, str(exc), None, attempts, secrets)
    if isinstance(exc, openai.APIResponseValidationError):
        return for_body(base_url, str(exc.body)[:200], "did not have the shape of a chat completion", secrets)
    if isinstance(exc, ValueError):  # e.g. a 200 body that is not JSON
        return for_body(base_url, "", f"could not be read ({type(exc).__name__})", secrets)
    return ModelError(f"the openai SDK failed calling {base_url}: {type(exc).__name__}: {exc}", secrets=secrets)


def connection_kind(exc: BaseException) -> str:
    """refused, dropped, blocked or other — read from the chain of causes under an APIConnectionError."""
    seen = exc
    while seen is not None:
        if isinstance(seen, ConnectionRefusedError) or "refused" in str(seen).lower():
            return "refused"
        if "blocked" in str(seen).lower() or "cors" in str(seen).lower():
            return "blocked"
        if type(seen).__name__ in ("RemoteProtocolError", "ReadError") or isinstance(seen, ConnectionResetError):
            return "dropped"
        seen = seen.__cause__ or seen.__context__
    return "other"


def sdk_model(
    base_url: str,
    api_key: str,
    model: str,
    timeout: float = 60.0,
    max_retries: int = 2,
    stream: bool = False,
    **options,
):
    """openai_model_fn over a new OpenAI client (the SDK must be installed: pip, or the site's wheels)."""
    try:
        from openai import OpenAI
    except ImportError:
        where = (
            "this page has not installed it yet (the site does that when LLM_API=sdk)"
            if sys.platform == "emscripten"
            else "install it with: pip install openai"
        )
        raise ModelError(f"LLM_API=sdk needs the openai package; {where}", kind="setup") from None
    client = OpenAI(base_url=base_url, api_key=api_key or "none", timeout=timeout, max_retries=max_retries)
    return openai_model_fn(client, model, stream=stream, **options)
