"""input() and sys.stdin in Loop Lab's page: the prompt and an answer field in the Output panel.

In the page, Python runs in a worker with no terminal. `install()` (the worker's bridge calls it)
makes `input(prompt)` and `sys.stdin.readline()` ask the page (looplab/page.py): the Output panel
shows the prompt and a field, and Python waits until the learner presses Enter. An empty answer
is "" (a line "\\n" for readline). Stop raises KeyboardInterrupt while it waits. On a page that is
not cross-origin isolated Python cannot wait, and input() raises EOFError with a sentence that
says why and what to do. In CPython nothing changes: the terminal answers.

    install()
    name = input("Your name? ")      # the page asks; Enter answers
"""

import builtins
import io
import sys

from ..page import PageUnavailable, ask_page

NOT_ISOLATED = (
    "input() cannot wait for your answer here: this page is not cross-origin isolated, "
    "so Python cannot pause while you type. Open Loop Lab from its own address (its "
    "service worker isolates the page) and reload, or put the value in the code instead."
)


def read_line(prompt: str = "") -> str:
    """One line the learner types in the page after `prompt` (without its line break)."""
    try:
        answer = ask_page("stdin", {"prompt": prompt})
    except PageUnavailable as exc:
        if "not cross-origin isolated" in str(exc):
            raise EOFError(NOT_ISOLATED) from None
        raise EOFError(f"input() got no answer: {exc}") from None
    text = answer.get("text", "")
    return text if isinstance(text, str) else str(text)


def page_input(prompt: object = "") -> str:
    """input() in the page: the prompt and the answer field in the Output panel."""
    sys.stdout.flush()
    return read_line(str(prompt))


class PageStdin(io.TextIOBase):
    """sys.stdin in the page: each line read is asked for in the Output panel."""

    encoding = "utf-8"

    def readable(self) -> bool:
        return True

    def readline(self, size: int | None = -1) -> str:
        line = read_line("") + "\n"
        return line if size is None or size < 0 else line[:size]

    def read(self, size: int | None = -1) -> str:
        return self.readline(size)

    def isatty(self) -> bool:
        return False


def install() -> None:
    """Make input() and sys.stdin ask the page (once a session, in the page's worker)."""
    builtins.input = page_input
    sys.stdin = PageStdin()
