"""A streamed Responses API reply: its events assembled into the `response` an unstreamed call gives.

    stream = ResponsesStream(base_url, on_delta=print)
    for piece in pieces_of_bytes:
        stream.feed(piece)
    data = stream.finish()          # the response object: read it with responses.read_output

The events that matter (each a `data:` JSON object with a `type`):

    response.output_item.added          an item starts at `output_index` (a message, a function_call ...)
    response.output_text.delta          a piece of a message's text (shown as it comes)
    response.refusal.delta              a piece of a refusal
    response.function_call_arguments.delta   a piece of a call's arguments
    response.output_item.done           the item, whole
    response.completed / .incomplete    the end; carries the response (status, usage, incomplete_details)
    response.failed, error              the server could not answer: the run ends with its message

An item the stream never finished is built from its pieces; a stream that ends before
`response.completed` (or `.incomplete`) is broken, and says which call it left unfinished.
"""

import json
from collections.abc import Callable

from .stream import Deltas, start

ENDS = ("response.completed", "response.incomplete")


class ResponsesStream(Deltas):
    """Responses API stream events, fed as bytes (`feed`) or decoded (`add`), assembled by `finish`."""

    def __init__(
        self,
        base_url: str = "the endpoint",
        on_delta: Callable[[str], None] | None = None,
        secrets: list[str] | None = None,
        **kwargs,
    ):
        super().__init__(base_url, on_delta, secrets, **kwargs)
        self.items: dict[int, dict] = {}  # output_index -> the item as far as it has come
        self.pieces: dict[int, list[str]] = {}
        self.done: set[int] = set()
        self.response: dict | None = None  # from the last event

    def feed(self, piece: bytes | str) -> None:
        for event in self.parser.feed(piece):
            if event.data.strip() != "[DONE]":  # some compatible servers end with it too
                self.add(self.json_of(event.data))

    def add(self, event: dict) -> None:
        """One decoded event."""
        kind = event.get("type", "")
        if kind == "error" or kind == "response.failed":
            error = event.get("error") or (event.get("response") or {}).get("error") or event
            says = error.get("message") if isinstance(error, dict) else error
            raise self.fail(f"the server sent an error in the middle of it: {says}")
        self.counted()
        index = event.get("output_index", 0)
        if kind == "response.output_item.added" and isinstance(event.get("item"), dict):
            self.items[index] = dict(event["item"])
        elif kind in ("response.output_text.delta", "response.refusal.delta", "response.function_call_arguments.delta"):
            piece = event.get("delta") if isinstance(event.get("delta"), str) else ""
            self.pieces.setdefault(index, []).append(piece)
            if kind == "response.output_text.delta":
                self.show(piece)
        elif kind == "response.output_item.done" and isinstance(event.get("item"), dict):
            self.items[index] = event["item"]
            self.done.add(index)
        elif kind in ENDS and isinstance(event.get("response"), dict):
            self.response = event["response"]

    def finish(self) -> dict:
        """The response the events spelled, or the fault that broke the stream."""
        pending = self.parser.close()
        if self.response is None or pending:
            where = "in the middle of an event" if pending else "before response.completed"
            unfinished = self.unfinished_call()
            raise self.fail(
                f"it ended {where}, after {self.chunks} event{'s' if self.chunks != 1 else ''}"
                + (f"; {unfinished}" if unfinished else "")
            )
        output = [self.item(i) for i in sorted(self.items)]
        return {**self.response, "output": output or self.response.get("output") or []}

    def item(self, index: int) -> dict:
        """An output item: whole if its `done` event came, else built from its pieces."""
        item = self.items[index]
        if index in self.done:
            return item
        text = "".join(self.pieces.get(index, []))
        if item.get("type") == "function_call":
            return {**item, "arguments": text}
        if item.get("type") == "message":
            return {**item, "content": [{"type": "output_text", "text": text, "annotations": []}]}
        return item

    def unfinished_call(self) -> str:
        """Words for the first function call the stream left unfinished ("" when none)."""
        for index in sorted(self.items):
            item = self.items[index]
            if item.get("type") == "function_call" and index not in self.done:
                arguments = "".join(self.pieces.get(index, []))
                try:
                    json.loads(arguments)
                except ValueError:
                    return (
                        f"the model's call to {item.get('name')!r} never completed (its arguments "
                        f"stop at {start(arguments[-40:])})"
                    )
        return ""
