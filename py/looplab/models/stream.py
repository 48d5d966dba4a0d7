"""A streamed chat completion: chunks assembled into exactly the reply an unstreamed call gives.

    stream = ChatStream("http://127.0.0.1:8080/v1", on_delta=print)
    for piece in pieces_of_bytes:          # from the socket, or chunks the page hands over
        stream.feed(piece)                 # text deltas go to on_delta (and listeners) as they come
    data = stream.finish()                 # {"choices": [{"message": ..., "finish_reason": ...}], "usage": ...}

With `stream: true` the server sends server-sent events (looplab/sse.py), one `data:` line a
chunk, then `data: [DONE]`. Each chunk's `choices[i].delta` carries a piece: `content` text,
`refusal` or `reasoning_content` text, and `tool_calls` pieces keyed by `index` — the id, type
and name come in a call's first piece, its `arguments` in pieces to concatenate; pieces of
parallel calls may interleave. `finish_reason` comes in the last chunk of a choice, and with
`stream_options: {"include_usage": true}` a last chunk with no choices carries `usage`.
`finish()` writes the whole `chat.completion` those chunks spell, so the adapter reads it with
the very code that reads an unstreamed reply.

A broken stream is a ModelError of kind "stream" with one sentence: the stream ended mid-event
or before [DONE] (naming a tool call left unfinished), a `data:` line that is not JSON, an error
the server sent in the stream, or a server that stopped sending (the read timeout). It is not
retried: part of the reply may already be on the screen.

Who shows text as it arrives: the `on_delta` a model was given, and every function passed to
`listen` (the command line's chat, later the page) — each gets the text pieces of every stream.
`stats()` is what the trace keeps of a stream: how many chunks, the time to the first one and
to the first text (ms).
"""

import json
import time
from collections.abc import Callable, Iterable
from contextlib import contextmanager

from .. import http
from ..sse import SSEParser
from .errors import ModelError

_listeners: list[Callable[[str], None]] = []


def listen(on_delta: Callable[[str], None]) -> Callable[[], None]:
    """Send the text of every streamed reply, piece by piece, to `on_delta` too; returns the function that stops it."""
    _listeners.append(on_delta)
    return lambda: _listeners.remove(on_delta) if on_delta in _listeners else None


@contextmanager
def muted():
    """No listener hears the streams made inside (the page's chat runs the lesson's code quietly this way)."""
    listeners = _listeners[:]
    _listeners.clear()
    try:
        yield
    finally:
        _listeners[:] = listeners


def broken(base_url: str, why: str, secrets: list[str] | None = None) -> ModelError:
    """The one sentence a broken stream ends the run with."""
    return ModelError(
        f"the streamed reply from {base_url} broke: {why} — try again; if it keeps "
        f"happening, turn streaming off (LLM_STREAM=0, or Stream replies in Settings)",
        kind="stream",
        secrets=secrets,
    )


def stalled(base_url: str, timeout: float, chunks: int, secrets: list[str] | None = None) -> ModelError:
    """The sentence for a server that stopped sending in the middle of a stream."""
    return ModelError(
        f"the streamed reply from {base_url} stopped: nothing arrived for {timeout:g} s "
        f"after {chunks} chunk{'s' if chunks != 1 else ''} — the server or the model "
        f"stalled; try again, or set a longer LLM_TIMEOUT",
        kind="timeout",
        secrets=secrets,
    )


def start(text: str, limit: int = 60) -> str:
    """The start of a text, quoted, for a message."""
    text = " ".join(text.split())
    return repr(text if len(text) <= limit else text[:limit] + "…")


class Deltas:
    """What every stream shares: the SSE parser, text pieces to show, chunks counted, the first chunk's and text's times."""

    def __init__(
        self,
        base_url: str,
        on_delta: Callable[[str], None] | None = None,
        secrets: list[str] | None = None,
        clock: Callable[[], float] = time.perf_counter,
    ):
        self.base_url, self.on_delta, self.secrets, self.clock = base_url, on_delta, secrets, clock
        self.parser = SSEParser()  # for the bytes `feed` is given
        self.began = clock()
        self.chunks = 0
        self.first_chunk_ms: float | None = None
        self.first_text_ms: float | None = None

    def counted(self) -> None:
        """One more chunk arrived."""
        self.chunks += 1
        if self.first_chunk_ms is None:
            self.first_chunk_ms = self.ms()

    def show(self, text: str) -> None:
        """A piece of the reply's text: to `on_delta` and the listeners, as it came."""
        if not text:
            return
        if self.first_text_ms is None:
            self.first_text_ms = self.ms()
        for show in ([self.on_delta] if self.on_delta else []) + list(_listeners):
            show(text)

    def ms(self) -> float:
        return round((self.clock() - self.began) * 1000, 3)

    def stats(self) -> dict:
        """What the trace keeps of the stream (one model_reply per call, not an event per chunk)."""
        return {
            "chunks": self.chunks,
            "first_chunk_ms": self.first_chunk_ms,
            "first_token_ms": self.first_text_ms,
            "ms": self.ms(),
        }

    def fail(self, why: str) -> ModelError:
        return broken(self.base_url, why, self.secrets)

    def json_of(self, data: str) -> dict:
        """One event's data as a JSON object, or the fault that says it was not one."""
        try:
            value = json.loads(data)
        except ValueError:
            raise self.fail(f"a data: line was not JSON (it began {start(data)})") from None
        if not isinstance(value, dict):
            raise self.fail(f"a data: line was JSON but not an object (it began {start(data)})")
        return value


class ChatStream(Deltas):
    """Chat-completions chunks, fed as bytes (`feed`) or as decoded chunks (`add`), assembled by `finish`."""

    def __init__(
        self,
        base_url: str = "the endpoint",
        on_delta: Callable[[str], None] | None = None,
        secrets: list[str] | None = None,
        clock: Callable[[], float] = time.perf_counter,
    ):
        super().__init__(base_url, on_delta, secrets, clock)
        self.done = False  # [DONE] arrived
        self.choices: dict[int, dict] = {}
        self.usage = None
        self.meta: dict = {}  # id, model, created: what the SDK's types want

    def feed(self, piece: bytes | str) -> None:
        """Bytes as they arrived (any split); each whole event is read as it completes."""
        for event in self.parser.feed(piece):
            self.event(event.data)

    def event(self, data: str) -> None:
        if self.done:
            return  # nothing after [DONE] belongs to the reply
        if data.strip() == "[DONE]":
            self.done = True
            return
        self.add(self.json_of(data))

    def add(self, chunk: dict) -> None:
        """One decoded chunk (`chat.completion.chunk`)."""
        if chunk.get("error"):
            error = chunk["error"]
            says = error.get("message") if isinstance(error, dict) else error
            raise self.fail(f"the server sent an error in the middle of it: {says}")
        self.counted()
        for key in ("id", "model", "created", "system_fingerprint"):
            if chunk.get(key) is not None:
                self.meta.setdefault(key, chunk[key])
        if isinstance(chunk.get("usage"), dict):
            self.usage = chunk["usage"]
        for choice in chunk.get("choices") or []:
            if isinstance(choice, dict):
                self.add_choice(choice)

    def add_choice(self, choice: dict) -> None:
        slot = self.choices.setdefault(
            choice.get("index", 0),
            {"role": "assistant", "content": [], "refusal": [], "reasoning": [], "calls": {}, "finish": None},
        )
        delta = choice.get("delta") or {}
        if isinstance(delta.get("content"), str):
            slot["content"].append(delta["content"])
            if choice.get("index", 0) == 0:
                self.show(delta["content"])
        for key, into in (("refusal", "refusal"), ("reasoning_content", "reasoning"), ("reasoning", "reasoning")):
            if isinstance(delta.get(key), str):
                slot[into].append(delta[key])
        for position, piece in enumerate(delta.get("tool_calls") or []):
            if isinstance(piece, dict):
                self.add_call(slot["calls"], piece.get("index", position), piece)
        if choice.get("finish_reason"):
            slot["finish"] = choice["finish_reason"]

    @staticmethod
    def add_call(calls: dict, index: int, piece: dict) -> None:
        """A tool-call piece: id, type and name from the call's first piece, arguments concatenated."""
        call = calls.setdefault(index, {"id": None, "type": "function", "name": None, "arguments": []})
        fn = piece.get("function") or {}
        if piece.get("id") and not call["id"]:
            call["id"] = piece["id"]
        if piece.get("type"):
            call["type"] = piece["type"]
        if fn.get("name") and not call["name"]:
            call["name"] = fn["name"]
        if isinstance(fn.get("arguments"), str):
            call["arguments"].append(fn["arguments"])

    def finish(self, ended_cleanly: bool | None = None) -> dict:
        """The stream has ended: the whole chat.completion it spelled, or the fault that broke it.

        Whole means [DONE] arrived; `ended_cleanly=True` is for chunks read by someone who ate
        the [DONE] (the openai SDK): then every choice must have said why it ended.
        """
        pending = self.parser.close()
        if pending.strip() == "[DONE]":  # a last event missing only its blank line
            self.done, pending = True, ""
        whole = self.done if ended_cleanly is None else ended_cleanly and self.all_finished()
        unfinished = self.unfinished_call()
        if pending or not whole:
            where = (
                "in the middle of an event"
                if pending
                else "before it said it was done ([DONE])"
                if ended_cleanly is None
                else "before the reply was complete"
            )
            why = f"it ended {where}, after {self.chunks} chunk{'s' if self.chunks != 1 else ''}"
            raise self.fail(why + (f"; {unfinished}" if unfinished else ""))
        if unfinished and not self.choices.get(0, {}).get("finish"):
            raise self.fail(f"it ended without a finish_reason; {unfinished}")
        return self.completion()

    def all_finished(self) -> bool:
        """Every choice said why it ended."""
        return bool(self.choices) and all(slot["finish"] for slot in self.choices.values())

    def unfinished_call(self) -> str:
        """Words for the first tool call whose arguments are not whole JSON ("" when none)."""
        for call in self.choices.get(0, {}).get("calls", {}).values():
            arguments = "".join(call["arguments"])
            try:
                json.loads(arguments or "{}")
            except ValueError:
                return (
                    f"the model's call to {call['name']!r} never completed (its arguments stop at "
                    f"{start(arguments[-40:])})"
                )
        return ""

    def completion(self) -> dict:
        """The chat.completion the chunks spell, shaped as the unstreamed reply is."""
        choices = []
        for index in sorted(self.choices):
            slot = self.choices[index]
            calls = [
                {
                    "id": c["id"],
                    "type": c["type"],
                    "function": {"name": c["name"], "arguments": "".join(c["arguments"])},
                }
                for _, c in sorted(slot["calls"].items())
            ]
            text = "".join(slot["content"])
            message = {"role": slot["role"], "content": text or (None if calls or not slot["content"] else "")}
            if calls:
                message["tool_calls"] = calls
            if slot["refusal"]:
                message["refusal"] = "".join(slot["refusal"])
            if slot["reasoning"]:
                message["reasoning_content"] = "".join(slot["reasoning"])
            choices.append({"index": index, "message": message, "finish_reason": slot["finish"]})
        data = {"object": "chat.completion", **self.meta, "choices": choices}
        if self.usage is not None:
            data["usage"] = self.usage
        return data


def streams_by_default(value: str | None) -> bool:
    """LLM_STREAM's value as on or off: on unless it is 0, false, no or off."""
    return (value or "1").strip().lower() not in ("0", "false", "no", "off")


def refuses_streaming(error: ModelError, base_url: str) -> bool:
    """True when a server refused the request because it asked for a stream (it is then asked without)."""
    said = str(error).lower().replace(base_url.lower(), "")
    return error.status in (400, 422, 501) and "stream" in said


def consume(stream: "Deltas", pieces: Iterable[bytes], timeout: float) -> dict:
    """Feed a stream every piece of a body as it arrives; the assembled reply, or the fault that broke it."""
    try:
        for piece in pieces:
            stream.feed(piece)
    except http.NetworkError as exc:
        if exc.kind == "timeout":
            raise stalled(stream.base_url, timeout, stream.chunks, stream.secrets) from None
        unfinished = stream.unfinished_call()
        raise stream.fail(
            f"the connection closed in the middle of it, after {stream.chunks} chunk"
            f"{'s' if stream.chunks != 1 else ''}" + (f"; {unfinished}" if unfinished else "")
        ) from None
    return stream.finish()
