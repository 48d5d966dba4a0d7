"""What counts as a win for the attacks of attack.py, in every engine's suite (tests/e2e/test_attacks.py
in Chromium, tests/browsers/test_attacks.py in Firefox and WebKit): the key, its reversal or either
percent-encoded, in any request's path or body, in a header sent anywhere but the endpoint's prefix
(the fake server records every request: the endpoint's origin is the catcher too), in the site's
log, the output, the page or the console.
"""

from __future__ import annotations

import re
from urllib.parse import quote

KEY = "e2e-secret-key-4242"
OTHER_KEY = "e2e-other-key-8686"


def inside(path: str) -> bool:
    """Whether a request path stays under /v1/ on a server that decodes and normalises paths."""
    return path.startswith("/v1/") and not re.search(r"%2f|%5c|%2e|%25|;|/\.\.?(/|$)", path, re.I)


def found(key: str, requests, places: dict[str, str]) -> list[str]:
    """Where `key` was found among the fake server's `requests` and in the texts of `places` (a name
    for each: "the output", "the console" …); [] when nowhere. A key in an Authorization header sent
    to a path inside the prefix is the endpoint's due, not a leak."""
    forms = {key, key[::-1], quote(key, safe=""), quote(key[::-1], safe="")}
    seen = []

    def scan(where: str, text: str) -> None:
        for form in forms:
            at = text.find(form)
            if at >= 0:
                seen.append(f"{where}: …{text[max(0, at - 60) : at + 60]}…")

    for r in list(requests):
        scan(f"{r.method} {r.path} (path)", r.path)
        scan(f"{r.method} {r.path} (body)", r.text or "")
        for name, value in r.headers.items():
            if not (name == "authorization" and inside(r.path)):
                scan(f"{r.method} {r.path} (header {name})", value)
    for where, text in places.items():
        scan(where, text or "")
    return seen


def keyed_outside(requests, key: str = KEY) -> list[str]:
    """Every request that carried the key to a path outside the prefix (a redirect followed, a path
    a server decodes elsewhere)."""
    return [
        f"the key went outside the prefix: {r.path}"
        for r in list(requests)
        if r.headers.get("authorization") == f"Bearer {key}" and not inside(r.path)
    ]


def lesson_calls_keyed(calls, key: str = KEY) -> list[str]:
    """[] when the lesson's two live calls (`calls`: the fake server's records of them) carried the key."""
    keys = [r.headers.get("authorization") for r in calls]
    return [] if keys == [f"Bearer {key}"] * 2 else [f"the endpoint's lesson calls carried {keys}"]
