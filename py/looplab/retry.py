"""When to try a failed request again, and how long to wait: exponential backoff with jitter, or Retry-After.

    delay = backoff(attempt=1)                          # ~0.5 s, then ~1 s, ~2 s ... (capped)

Used by the live adapters (models/endpoint.py) for model calls, and by tools.py for tool calls;
it imports nothing of looplab, so the core need not import the adapters' package for it.
    wait = parse_retry_after("7") or parse_retry_after("Wed, 21 Oct 2026 07:28:00 GMT")
"""

import random
import time
from email.utils import parsedate_to_datetime

ATTEMPTS = 3  # tries in all, the first one included
BASE_DELAY = 0.5  # seconds before the second try; doubles each time
MAX_DELAY = 8.0  # backoff never waits longer than this
MAX_RETRY_AFTER = 20.0  # a server asking for a longer wait is not waited for: the learner is told


def backoff(attempt: int, rand=random.random, base: float = BASE_DELAY) -> float:
    """Seconds to wait after failed try number `attempt` (1, 2, ...): doubling from `base`, capped, with jitter."""
    full = min(MAX_DELAY, base * 2 ** (attempt - 1))
    return full / 2 + rand() * full / 2  # "equal jitter": never zero, never in lockstep


def parse_retry_after(value: str | None, now: float | None = None) -> float | None:
    """A Retry-After header (seconds, or an HTTP date) as seconds from now; None if absent or unreadable."""
    if value is None:
        return None
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if when is None:
        return None
    return max(0.0, when.timestamp() - (time.time() if now is None else now))


def retry_after_of(headers: dict) -> float | None:
    """The wait a reply's headers ask for: `retry-after-ms` (milliseconds) or `retry-after`."""
    ms = headers.get("retry-after-ms")
    if ms is not None:
        try:
            return max(0.0, float(ms) / 1000)
        except ValueError:
            pass
    return parse_retry_after(headers.get("retry-after"))


def wait_before_retry(attempt: int, retry_after: float | None, rand=random.random) -> float | None:
    """Seconds to wait before the next try, or None when the server asks for more than MAX_RETRY_AFTER."""
    if retry_after is None:
        return backoff(attempt, rand)
    if retry_after > MAX_RETRY_AFTER:
        return None
    return retry_after
