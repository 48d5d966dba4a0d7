"""The page, seen from Python in the browser: ask it something and wait for the answer.

In Loop Lab's page, Python runs in a Web Worker, which takes no messages while Python runs. So a
question — may this tool run? what does the local model reply? — goes to the page as a message,
and the worker sleeps on shared memory until the page writes its answer there (web/src/shared/asking.js).
That is possible only when the page is cross-origin isolated; otherwise `ask_page` raises
`PageUnavailable` at once. Stop still works while Python waits: it raises KeyboardInterrupt.

    answer = ask_page("approval", {"tool": "delete_note", "arguments": '{"note_id": "n5"}'})
    answer["approved"], answer.get("reason")
"""

import json
import sys


class PageUnavailable(Exception):
    """The page cannot answer: not running in Loop Lab's page, or the page is not isolated."""


def in_page() -> bool:
    """True when this Python runs in Loop Lab's page (Pyodide in the browser worker)."""
    if sys.platform != "emscripten":
        return False
    try:
        import looplab_page  # noqa: F401  (registered by web/src/worker/worker.js)
    except ImportError:
        return False
    return True


def ask_page(kind: str, request: dict) -> dict:
    """Ask the page a question of this kind and wait for its answer (a dict)."""
    if not in_page():
        raise PageUnavailable("this Python is not running in Loop Lab's page")
    import looplab_page

    answer = json.loads(looplab_page.ask(kind, json.dumps(request, default=str)))
    if not isinstance(answer, dict):
        raise PageUnavailable(f"the page answered {answer!r}, not an object")
    if answer.get("unavailable"):
        raise PageUnavailable(str(answer["unavailable"]))
    return answer
