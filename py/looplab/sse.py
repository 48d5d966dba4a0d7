"""Server-sent events: the `text/event-stream` a streaming model reply comes in, read piece by piece.

    parser = SSEParser()
    for piece in pieces_of_bytes:            # as they arrive: any split, even inside a UTF-8 character
        for event in parser.feed(piece):
            ...  event.event ("message" unless an `event:` line named it), event.data (its text)
    parser.close()                           # the stream ended: the text of an event left half-sent, or ""

The format (WHATWG HTML, "server-sent events"): lines end in LF, CRLF or CR; a blank line ends
an event; `data:` lines of one event are joined with newlines; `event:` names it; a line that
starts with `:` is a comment (servers send them to keep a connection open); a field's value
loses one leading space. Pure code with no I/O: CPython feeds it from a socket, the browser from
whatever chunks its transport hands over, and both get the same events.
"""

import codecs
import re
from dataclasses import dataclass

LINE_BREAK = re.compile(r"\r\n|\r|\n")


@dataclass
class Event:
    """One server-sent event: its name and its data (several `data:` lines joined by newlines)."""

    event: str
    data: str


class SSEParser:
    """Turns bytes, fed in any pieces, into whole events; nothing is lost or duplicated across splits."""

    def __init__(self):
        self.decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self.buffer = ""  # text not yet ended by a line break
        self.data: list[str] = []
        self.name = ""
        self.skip_lf = False  # the last piece ended in CR: an LF starting the next is the same break

    def feed(self, data: bytes | str) -> list[Event]:
        """The events the stream completed with this piece (bytes, or text already decoded)."""
        text = self.decoder.decode(data) if isinstance(data, (bytes, bytearray)) else data
        if not text:
            return []
        if self.skip_lf and text.startswith("\n"):
            text = text[1:]
        self.skip_lf = text.endswith("\r")  # maybe the first half of a CRLF split across pieces
        *lines, self.buffer = LINE_BREAK.split(self.buffer + text)  # only CR and LF end lines, never U+2028
        events = [event for line in lines if (event := self.line(line)) is not None]
        return events

    def line(self, line: str) -> Event | None:
        """Read one line; a blank one hands back the event it ends (if it had data)."""
        if not line:
            event = Event(self.name or "message", "\n".join(self.data)) if self.data else None
            self.data, self.name = [], ""
            return event
        if line.startswith(":"):
            return None
        field, _, value = line.partition(":")
        value = value.removeprefix(" ")
        if field == "data":
            self.data.append(value)
        elif field == "event":
            self.name = value
        return None  # `id:` and `retry:` do not matter for one reply

    def close(self) -> str:
        """Call when the stream ends: the data of an event it left unfinished ("" when it ended cleanly)."""
        rest = self.buffer + self.decoder.decode(b"", final=True)
        self.buffer = ""
        if rest:
            self.line(rest)  # a last line with no line break: its value joins the unfinished event
        pending, self.data, self.name = "\n".join(self.data), [], ""
        return pending
