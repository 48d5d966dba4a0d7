"""`python -m looplab chat N`: a conversation in the terminal with the agent lesson N offers.

The lesson runs once (quietly; a cell that raises is reported and the chat does not start), then
each line typed goes to its entry point (chat.py) in the lesson's namespace, which persists
between messages. A streamed reply's text is written as it arrives; the turn's tool calls and
blocks are shown as one line each; the answer ends the turn. Ctrl+C ends a turn (the reply being
written, the request, the tools) and the conversation goes on; Ctrl+D or `quit` leaves.
"""

import contextlib
import io
import sys
from collections.abc import Callable
from pathlib import Path

from .. import trace
from ..modelmode import model_mode
from ..models import stream as streams
from . import lesson as lessons
from .chat import Offer, begin, offered, say

QUIT = ("quit", "exit", ":q")


def load(path: Path, solution: bool) -> tuple[Offer | None, str]:
    """Run the lesson quietly; its offer, or None with a sentence saying why there is none."""
    cells = lessons.parse(path.read_text(encoding="utf-8"))
    namespace = {"__name__": "__lesson__"}
    with contextlib.redirect_stdout(io.StringIO()):
        result = lessons.run_cells(cells, solution, namespace=namespace)
    if result.error:
        last = result.error.strip().splitlines()[-1]
        hint = "" if solution else " (finish its exercises, or add --solution)"
        return None, f"{path.name} did not run to the end{hint}: {last}"
    offer = offered(namespace)
    if offer is None:
        return None, f"{path.name} offers no agent to talk to (a lesson offers one with chat_with(...))"
    return offer, ""


def converse(offer: Offer, read: Callable[[str], str] = input, out=None) -> int:
    """The conversation: read a line, send it, show the reply as it comes; 0 when the learner leaves."""
    out = out or sys.stdout
    live_text = []

    def show(text: str) -> None:
        live_text.append(text)
        out.write(text)
        out.flush()

    def note(event: dict) -> None:
        if event["type"] == "model_call":
            if live_text:
                out.write("\n")
            live_text.clear()
        elif event["type"] in ("tool_result", "policy_block"):
            out.write(("\n" if live_text else "") + f"   · {trace.describe(event, 90)}\n")
            live_text.clear()

    while True:
        try:
            message = read("you> ").strip()
        except EOFError:
            out.write("\n")
            return 0
        except KeyboardInterrupt:
            out.write("\n")
            continue
        if message.lower() in QUIT:
            return 0
        if not message:
            continue
        live_text.clear()
        stop_text, stop_events = streams.listen(show), trace.listen(note)
        try:
            answer = say(offer, message)
        except KeyboardInterrupt:
            out.write("\n(turn stopped; say something else, or quit)\n")
            continue
        except Exception as exc:
            out.write(f"\n(the agent raised {type(exc).__name__}: {trace.redact_text(str(exc))})\n")
            continue
        finally:
            stop_text()
            stop_events()
        streamed = "".join(live_text)
        if streamed.strip() and streamed.strip() == answer.strip():
            out.write("\n")  # the answer is what was just written as it streamed
        else:
            out.write(("\n" if streamed else "") + f"{offer.name}> {answer}\n")
        out.flush()


def chat(path: Path, solution: bool) -> int:
    """Load the lesson and talk; 0 when the learner leaves, 1 when the lesson offers no chat."""
    offer, why = load(path, solution)
    if offer is None:
        print(why, file=sys.stderr)
        return 1
    mode = model_mode()
    print(f"── {path.name} · {mode} model · talking to {offer.name}() · quit or Ctrl+D leaves, Ctrl+C ends a turn ──")
    if offer.suggestions and mode == "scripted":
        print("The scripted model understands, for example:")
        for suggestion in offer.suggestions:
            print(f"  · {suggestion}")
    begin(offer)
    return converse(offer)
