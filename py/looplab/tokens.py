"""Token counting: a documented estimate, used wherever a message carries no `tokens` field.

Real tokenizers differ by model; for budgeting a context window an estimate that errs on the
high side is enough. The rule: one token per 4 characters of text (rounded up), plus 4 tokens of
overhead per message for its role and separators — close to what OpenAI's own guide counts for
chat messages with English text.
"""

import json
import math

CHARS_PER_TOKEN = 4
MESSAGE_OVERHEAD = 4


def count_tokens(text: str) -> int:
    """Estimate the tokens in a text: ceil(len / 4). `count_tokens("hello world") == 3`."""
    return math.ceil(len(text) / CHARS_PER_TOKEN) if text else 0


def message_tokens(message: dict, counter=count_tokens) -> int:
    """The size of one message: its `tokens` field if it has one, else an estimate of its content and calls."""
    if isinstance(message.get("tokens"), int):
        return message["tokens"]
    content = message.get("content")
    text = content if isinstance(content, str) else json.dumps(content, default=str) if content else ""
    if message.get("tool_calls"):
        text += json.dumps(message["tool_calls"], default=str)
    return MESSAGE_OVERHEAD + counter(text)
