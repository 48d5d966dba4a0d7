"""The token limit on a live reply: its default, and what a reply cut by it becomes.

Every live request carries a limit (`max_tokens` for chat completions, `max_output_tokens` for
the Responses API), so a rambling model ends a reply in seconds instead of minutes. A reply
the limit cut short says so: the adapter puts `cut` on the assistant message ("length" for the
token limit, or the server's other reason, e.g. "content_filter"), and the loop shows it in the
trace. A cut that breaks a tool call (its arguments stop mid-JSON) cannot be run, and guessing
would hide the cause, so it becomes a ModelError that names the limit and how to raise it.

Chat completions name the limit `max_tokens`, which every compatible server reads; OpenAI's
reasoning models refuse it with a 400 that asks for `max_completion_tokens` instead, so the
chat adapters switch to that name once, when told, and keep it for the model's later calls.
"""

import json

from .errors import ModelError

DEFAULT_MAX_TOKENS = 512
RAISE_IT = "raise LLM_MAX_TOKENS (Max reply tokens in Settings)"


def limit_text(limit: int | None, name: str = "max_tokens") -> str:
    """How the limit is named in a message: `the token limit (max_tokens=512)`."""
    return f"the token limit ({name}={limit})" if limit else "the token limit"


CUT_REASONS = ("length", "content_filter")  # chat finish_reasons that mean the reply is not whole


def check_cut(reply: dict, limit: int | None = None, name: str = "max_tokens") -> dict:
    """The reply as it is, unless the limit cut it where it cannot be used: then ModelError.

    `reply["cut"]` (set by the adapter that read it) says why it was cut; only "length" breaks it.
    """
    if reply.get("cut") != "length":
        return reply
    for call in reply.get("tool_calls") or []:
        fn = call.get("function") if isinstance(call, dict) else None
        arguments = fn.get("arguments") if isinstance(fn, dict) else None
        if isinstance(arguments, str) and not parses(arguments):
            raise ModelError(
                f"the model's reply was cut at {limit_text(limit, name)} in the middle of "
                f"its call to {fn.get('name')!r}, so the call's arguments are incomplete "
                f"JSON and it was not run — {RAISE_IT}, or ask for less",
                kind="length",
            )
    if not reply.get("tool_calls") and not (reply.get("content") or "").strip():
        raise ModelError(
            f"the model's reply was cut at {limit_text(limit, name)} before it wrote "
            f"anything (a reasoning model may spend the whole limit thinking) — "
            f"{RAISE_IT}",
            kind="length",
        )
    return reply


def use_completion_tokens(error: ModelError, options: dict) -> bool:
    """Rename max_tokens to max_completion_tokens in `options` if the error is a 400 asking for it."""
    if error.status == 400 and "max_completion_tokens" in str(error) and "max_tokens" in options:
        options["max_completion_tokens"] = options.pop("max_tokens")
        return True
    return False


def limit_of(options: dict) -> int | None:
    """The token limit a chat request carries, under either of its names."""
    return options.get("max_tokens", options.get("max_completion_tokens"))


def parses(text: str) -> bool:
    """True when the text is complete JSON."""
    try:
        json.loads(text)
    except ValueError:
        return False
    return True
